//! Chrome trace-event output (JSON object format), which ui.perfetto.dev and chrome://tracing
//! open. One process per cluster; in it one thread (track) per compute unit and DMA channel of
//! each core, and one for each of the cluster's ports (DDR port, GB bus); plus a "device" process
//! with one track showing each launch. Timestamps are simulated time in microseconds at the
//! target clock.

use crate::instr::Engine;
use crate::launch::{Launch, NO_LAYER};
use crate::link::Port;
use crate::timing::Schedule;
use serde::Serialize;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use turbine_targets::Target;

/// One complete ("X") event.
#[derive(Debug, Clone, Serialize)]
struct Event {
    name: String,
    cat: &'static str,
    ph: &'static str,
    ts: f64,
    dur: f64,
    pid: u32,
    tid: u32,
    args: Value,
}

/// Events recorded while tracing is on.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trace {
    events: Vec<Event>,
}

impl Trace {
    /// Adds the events of one executed launch; an instruction's event names its layer (from
    /// `layer_names`) when the program named one.
    pub fn record(
        &mut self,
        target: &Target,
        launch: &Launch,
        schedule: &Schedule,
        start: u64,
        layer_names: &BTreeMap<u32, String>,
    ) {
        let us = |cycles: u64| cycles as f64 / target.clock_mhz;
        let tracks = Tracks::new(target);
        self.events.push(Event {
            name: launch.name.clone(),
            cat: "launch",
            ph: "X",
            ts: us(start),
            dur: us(schedule.end - start),
            pid: target.device.clusters,
            tid: 0,
            args: json!({
                "cores": launch.cores.len(),
                "instructions": launch.instruction_count(),
            }),
        });
        for (slot, stream) in launch.streams.iter().enumerate() {
            let core = launch.cores[slot];
            for (index, (rec, s)) in stream.iter().zip(&schedule.slots[slot]).enumerate() {
                let Some(resource) = s.resource else { continue };
                let mut args = json!({
                    "launch": launch.name,
                    "instruction": index,
                    "start_cycle": s.start,
                    "end_cycle": s.end,
                });
                if rec.layer != NO_LAYER {
                    args["layer"] = json!(layer_names
                        .get(&rec.layer)
                        .cloned()
                        .unwrap_or_else(|| format!("layer {}", rec.layer)));
                }
                match rec.instr.engine() {
                    Engine::Dma => args["bytes"] = json!(rec.bytes),
                    _ => args["work"] = json!(rec.work(target.cost.special_function)),
                }
                self.events.push(Event {
                    name: rec.instr.name().to_string(),
                    cat: if rec.instr.engine() == Engine::Dma {
                        "dma"
                    } else {
                        "compute"
                    },
                    ph: "X",
                    ts: us(s.start),
                    dur: us(s.end - s.start),
                    pid: core.cluster,
                    tid: tracks.resource(core.core, resource),
                    args: args.clone(),
                });
                if let Some((port, a, b)) = s.link {
                    self.events.push(Event {
                        name: format!("dma from core {}", core.core),
                        cat: "link",
                        ph: "X",
                        ts: us(a),
                        dur: us(b - a),
                        pid: core.cluster,
                        tid: tracks.link(port),
                        args,
                    });
                }
            }
        }
    }

    /// The whole trace as Chrome trace-event JSON, with names for every process and track.
    pub fn to_json(&self, target: &Target) -> String {
        let tracks = Tracks::new(target);
        let meta = |pid: u32, tid: u32, kind: &str, name: String, sort: u32| {
            json!({
                "name": kind,
                "ph": "M",
                "pid": pid,
                "tid": tid,
                "args": { "name": name, "sort_index": sort },
            })
        };
        let mut events: Vec<Value> = Vec::new();
        for cl in 0..target.device.clusters {
            events.push(meta(cl, 0, "process_name", format!("cluster {cl}"), 0));
            events.push(json!({
                "name": "process_sort_index",
                "ph": "M",
                "pid": cl,
                "args": { "sort_index": cl },
            }));
            for core in 0..target.cluster.cores {
                for (r, name) in tracks.names.iter().enumerate() {
                    let tid = tracks.resource(core, r);
                    events.push(meta(
                        cl,
                        tid,
                        "thread_name",
                        format!("core {core} {name}"),
                        tid,
                    ));
                    events.push(thread_sort_index(cl, tid));
                }
            }
            for port in Port::ALL {
                let link = tracks.link(port);
                events.push(meta(cl, link, "thread_name", port.name().to_string(), link));
                events.push(thread_sort_index(cl, link));
            }
        }
        let device = target.device.clusters;
        events.push(meta(device, 0, "process_name", "device".to_string(), 0));
        events.push(meta(device, 0, "thread_name", "launches".to_string(), 0));
        events.extend(
            self.events
                .iter()
                .map(|e| serde_json::to_value(e).expect("events serialise")),
        );
        serde_json::to_string(&json!({
            "traceEvents": events,
            "displayTimeUnit": "ns",
            "otherData": { "target": target.name, "clock_mhz": target.clock_mhz },
        }))
        .expect("the trace serialises")
    }
}

/// The metadata event that places track `tid` of process `pid` at position `tid`.
fn thread_sort_index(pid: u32, tid: u32) -> Value {
    json!({
        "name": "thread_sort_index",
        "ph": "M",
        "pid": pid,
        "tid": tid,
        "args": { "sort_index": tid },
    })
}

/// Track (thread id) numbering inside a cluster's process: for core `k`, its resources
/// (units, then DMA channels) are `k * R + r`; the ports come after all cores.
struct Tracks {
    names: Vec<String>,
    cores: u32,
}

impl Tracks {
    fn new(target: &Target) -> Tracks {
        let mut names: Vec<String> = target
            .core
            .units
            .iter()
            .enumerate()
            .map(|(i, k)| format!("{k}#{i}"))
            .collect();
        names.extend((0..target.core.dma_channels).map(|c| format!("dma#{c}")));
        Tracks {
            names,
            cores: target.cluster.cores,
        }
    }

    fn resource(&self, core: u32, resource: usize) -> u32 {
        core * self.names.len() as u32 + resource as u32
    }

    fn link(&self, port: Port) -> u32 {
        self.cores * self.names.len() as u32 + port.index() as u32
    }
}
