//! What tracing records and the Chrome trace-event JSON (object format) made of it, which
//! ui.perfetto.dev and chrome://tracing open. One process per cluster; in it one thread (track)
//! per compute unit and DMA channel of each core, and one for each of the cluster's ports (DDR
//! port, GB bus); plus a "device" process with one track showing each launch. Timestamps are
//! simulated time in microseconds at the target clock.
//!
//! Recording keeps one compact [`Span`] per instruction (and one more per DMA that held a port);
//! the JSON is made when written, in one of two forms ([`TraceFormat`]): per layer (a track's
//! consecutive instructions of one layer and launch merged into one event, small enough for a
//! whole model) or per instruction.

use crate::instr::Engine;
use crate::launch::{Launch, NO_LAYER};
use crate::link::Port;
use crate::timing::Schedule;
use std::collections::BTreeMap;
use std::fmt::Write;
use turbine_targets::Target;

/// What a written trace holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// Chrome trace-event JSON with one event per run of consecutive instructions of the same
    /// layer and launch on a track: its span, instruction count, busy cycles and bytes or work.
    Layers,
    /// Chrome trace-event JSON with one event per instruction.
    Instructions,
    /// An SVG picture of the run (see `timeline`).
    TimelineSvg,
}

/// What kind of track a span is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanKind {
    Compute,
    Dma,
    /// A port of the cluster, held by a DMA.
    Link,
}

impl SpanKind {
    fn category(self) -> &'static str {
        match self {
            SpanKind::Compute => "compute",
            SpanKind::Dma => "dma",
            SpanKind::Link => "link",
        }
    }
}

/// One instruction on its unit or DMA channel, or one DMA on a port.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Span {
    /// Index of its launch in [`Trace::launches`].
    pub launch: u32,
    pub layer: u32,
    pub cluster: u32,
    /// The core that ran the instruction.
    pub core: u32,
    /// Its track in the cluster (see [`Tracks`]).
    pub track: u32,
    /// Index of the instruction in its core's stream.
    pub instruction: u32,
    pub name: &'static str,
    pub kind: SpanKind,
    /// Simulated cycles, end exclusive.
    pub start: u64,
    pub end: u64,
    /// Bytes moved (DMA and port spans) or work done (compute spans).
    pub amount: f64,
}

/// One executed launch.
#[derive(Debug, Clone)]
pub(crate) struct LaunchSpan {
    pub name: String,
    pub start: u64,
    pub end: u64,
    pub cores: usize,
    pub instructions: usize,
}

/// What was recorded while tracing was on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trace {
    pub launches: Vec<LaunchSpan>,
    /// Grouped by launch, in launch order.
    pub spans: Vec<Span>,
}

impl Trace {
    /// Adds the spans of one executed launch that started at cycle `start`.
    pub fn record(&mut self, target: &Target, launch: &Launch, schedule: &Schedule, start: u64) {
        let tracks = Tracks::new(target);
        let index = self.launches.len() as u32;
        self.launches.push(LaunchSpan {
            name: launch.name.clone(),
            start,
            end: schedule.end,
            cores: launch.cores.len(),
            instructions: launch.instruction_count(),
        });
        for (slot, stream) in launch.streams.iter().enumerate() {
            let core = launch.cores[slot];
            for (position, (rec, s)) in stream.iter().zip(&schedule.slots[slot]).enumerate() {
                let Some(resource) = s.resource else { continue };
                let dma = rec.instr.engine() == Engine::Dma;
                let span = Span {
                    launch: index,
                    layer: rec.layer,
                    cluster: core.cluster,
                    core: core.core,
                    track: tracks.resource(core.core, resource),
                    instruction: position as u32,
                    name: rec.instr.name(),
                    kind: if dma {
                        SpanKind::Dma
                    } else {
                        SpanKind::Compute
                    },
                    start: s.start,
                    end: s.end,
                    amount: rec.work(target.cost.special_function),
                };
                self.spans.push(span);
                if let Some((port, a, b)) = s.link {
                    self.spans.push(Span {
                        track: tracks.link(port),
                        kind: SpanKind::Link,
                        start: a,
                        end: b,
                        ..span
                    });
                }
            }
        }
    }

    /// The trace as Chrome trace-event JSON, one event per instruction for
    /// [`TraceFormat::Instructions`], else per layer, with names for every process and track;
    /// layers are named from `layer_names`. (The SVG timeline is drawn by `timeline`.)
    pub fn to_json(
        &self,
        target: &Target,
        format: TraceFormat,
        layer_names: &BTreeMap<u32, String>,
    ) -> String {
        let mut out = String::from("{\"traceEvents\":[");
        write_metadata(&mut out, target);
        let us = |cycles: u64| cycles as f64 / target.clock_mhz;
        let device = target.device.clusters;
        for launch in &self.launches {
            let _ = write!(
                out,
                ",\n{{\"name\":{},\"cat\":\"launch\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\
                 \"pid\":{device},\"tid\":0,\"args\":{{\"cores\":{},\"instructions\":{}}}}}",
                quoted(&launch.name),
                us(launch.start),
                us(launch.end - launch.start),
                launch.cores,
                launch.instructions
            );
        }
        let names = EventNames::new(self, layer_names);
        match format {
            TraceFormat::Instructions => {
                for span in &self.spans {
                    write_instruction(&mut out, span, &names, us);
                }
            }
            TraceFormat::Layers | TraceFormat::TimelineSvg => {
                for group in merged(&self.spans) {
                    write_group(&mut out, &group, &names, us);
                }
            }
        }
        let _ = write!(
            out,
            "],\n\"displayTimeUnit\":\"ns\",\"otherData\":{{\"target\":{},\"clock_mhz\":{}}}}}",
            quoted(&target.name),
            target.clock_mhz
        );
        out
    }
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).expect("strings serialise")
}

/// Launch and layer names, quoted for JSON once.
struct EventNames {
    launches: Vec<String>,
    layers: BTreeMap<u32, String>,
}

impl EventNames {
    fn new(trace: &Trace, layer_names: &BTreeMap<u32, String>) -> EventNames {
        let mut layers = BTreeMap::new();
        for span in trace.spans.iter().filter(|s| s.layer != NO_LAYER) {
            layers.entry(span.layer).or_insert_with(|| {
                quoted(
                    &layer_names
                        .get(&span.layer)
                        .cloned()
                        .unwrap_or_else(|| format!("layer {}", span.layer)),
                )
            });
        }
        EventNames {
            launches: trace.launches.iter().map(|l| quoted(&l.name)).collect(),
            layers,
        }
    }

    fn layer(&self, layer: u32) -> Option<&str> {
        self.layers.get(&layer).map(String::as_str)
    }
}

/// `"bytes":N` for DMA and port spans, `"work":W` for compute spans.
fn amount(kind: SpanKind, amount: f64) -> String {
    match kind {
        SpanKind::Compute => format!("\"work\":{amount}"),
        _ => format!("\"bytes\":{}", amount as u64),
    }
}

fn write_instruction(out: &mut String, span: &Span, names: &EventNames, us: impl Fn(u64) -> f64) {
    let name = match span.kind {
        SpanKind::Link => quoted(&format!("dma from core {}", span.core)),
        _ => format!("\"{}\"", span.name),
    };
    let _ = write!(
        out,
        ",\n{{\"name\":{name},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\
         \"tid\":{},\"args\":{{\"launch\":{},\"instruction\":{},\"start_cycle\":{},\
         \"end_cycle\":{},{}",
        span.kind.category(),
        us(span.start),
        us(span.end - span.start),
        span.cluster,
        span.track,
        names.launches[span.launch as usize],
        span.instruction,
        span.start,
        span.end,
        amount(span.kind, span.amount),
    );
    if let Some(layer) = names.layer(span.layer) {
        let _ = write!(out, ",\"layer\":{layer}");
    }
    out.push_str("}}");
}

/// Consecutive spans of one track with the same launch, layer and kind.
#[derive(Debug, Clone, Copy)]
struct Group {
    first: Span,
    end: u64,
    instructions: u64,
    busy: u64,
    amount: f64,
}

/// The spans merged into groups, per launch and then per track in time order.
fn merged(spans: &[Span]) -> Vec<Group> {
    let mut groups = Vec::new();
    for launch in spans.chunk_by(|a, b| a.launch == b.launch) {
        let mut ordered: Vec<&Span> = launch.iter().collect();
        ordered.sort_by_key(|s| (s.cluster, s.track, s.start));
        for span in ordered {
            match groups.last_mut() {
                Some(Group {
                    first,
                    end,
                    instructions,
                    busy,
                    amount,
                }) if (
                    first.cluster,
                    first.track,
                    first.layer,
                    first.kind,
                    first.launch,
                ) == (span.cluster, span.track, span.layer, span.kind, span.launch) =>
                {
                    *end = (*end).max(span.end);
                    *instructions += 1;
                    *busy += span.end - span.start;
                    *amount += span.amount;
                }
                _ => groups.push(Group {
                    first: *span,
                    end: span.end,
                    instructions: 1,
                    busy: span.end - span.start,
                    amount: span.amount,
                }),
            }
        }
    }
    groups
}

fn write_group(out: &mut String, group: &Group, names: &EventNames, us: impl Fn(u64) -> f64) {
    let first = &group.first;
    let launch = &names.launches[first.launch as usize];
    let name = names.layer(first.layer).unwrap_or(launch);
    let _ = write!(
        out,
        ",\n{{\"name\":{name},\"cat\":\"{}\",\"ph\":\"X\",\"ts\":{},\"dur\":{},\"pid\":{},\
         \"tid\":{},\"args\":{{\"launch\":{launch},\"instructions\":{},\"busy_cycles\":{},\
         \"start_cycle\":{},\"end_cycle\":{},{}",
        first.kind.category(),
        us(first.start),
        us(group.end - first.start),
        first.cluster,
        first.track,
        group.instructions,
        group.busy,
        first.start,
        group.end,
        amount(first.kind, group.amount),
    );
    if let Some(layer) = names.layer(first.layer) {
        let _ = write!(out, ",\"layer\":{layer}");
    }
    out.push_str("}}");
}

/// The metadata events that name and order every process and track, the first of the list.
fn write_metadata(out: &mut String, target: &Target) {
    let tracks = Tracks::new(target);
    let mut events: Vec<String> = Vec::new();
    let mut name = |kind: &str, pid: u32, tid: u32, name: &str, sort: u32| {
        events.push(format!(
            "{{\"name\":\"{kind}\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\
             \"args\":{{\"name\":{},\"sort_index\":{sort}}}}}",
            quoted(name)
        ));
        if kind == "thread_name" {
            events.push(format!(
                "{{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":{pid},\"tid\":{tid},\
                 \"args\":{{\"sort_index\":{tid}}}}}"
            ));
        }
    };
    for cl in 0..target.device.clusters {
        name("process_name", cl, 0, &format!("cluster {cl}"), 0);
        for (tid, track) in tracks.names().enumerate() {
            name("thread_name", cl, tid as u32, &track, tid as u32);
        }
    }
    let device = target.device.clusters;
    name("process_name", device, 0, "device", 0);
    name("thread_name", device, 0, "launches", 0);
    for cl in 0..target.device.clusters {
        events.push(format!(
            "{{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":{cl},\
             \"args\":{{\"sort_index\":{cl}}}}}"
        ));
    }
    out.push_str(&events.join(",\n"));
}

/// Track (thread id) numbering inside a cluster's process: for core `k`, its resources
/// (units, then DMA channels) are `k * R + r`; the ports come after all cores.
pub(crate) struct Tracks {
    /// Names of a core's resources (`matrix_engine#2`, `dma#0`).
    resources: Vec<String>,
    cores: u32,
}

impl Tracks {
    pub fn new(target: &Target) -> Tracks {
        let mut resources: Vec<String> = target
            .core
            .units
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k}#{i}"))
            .collect();
        resources.extend((0..target.core.dma_channels).map(|c| format!("dma#{c}")));
        Tracks {
            resources,
            cores: target.cluster.cores,
        }
    }

    pub fn resource(&self, core: u32, resource: usize) -> u32 {
        core * self.resources.len() as u32 + resource as u32
    }

    pub fn link(&self, port: Port) -> u32 {
        self.cores * self.resources.len() as u32 + port.index() as u32
    }

    /// Tracks in a cluster.
    pub fn count(&self) -> u32 {
        self.link(Port::ALL[Port::ALL.len() - 1]) + 1
    }

    /// The name of every track of a cluster, in track order (`core 3 dma#0`, `ddr port`).
    pub fn names(&self) -> impl Iterator<Item = String> + '_ {
        (0..self.cores)
            .flat_map(|core| {
                self.resources
                    .iter()
                    .map(move |resource| format!("core {core} {resource}"))
            })
            .chain(Port::ALL.iter().map(|port| port.name().to_string()))
    }

    /// Resources of a core: its units then its DMA channels.
    pub fn per_core(&self) -> u32 {
        self.resources.len() as u32
    }
}
