//! What a run cost on the simulated device: cycles and time, kernel launches, the steps and
//! conditions of control flow between launches, bytes per memory path and direction, busy time
//! and utilisation of every compute unit, DMA channel and cluster link, and memory high-water
//! marks. Printed as a table ([`std::fmt::Display`]) or serialised as JSON
//! ([`Report::to_json`]); the fields are documented in `docs/Runtime.md`.

use crate::ids::CoreId;
use crate::launch::{Launch, Recorded, NO_LAYER};
use crate::link::Port;
use crate::memory::Usage;
use crate::timing::{Schedule, Slot};
use serde::Serialize;
use std::collections::BTreeMap;
use turbine_targets::{MemLevel, Target, UnitKind};

/// Timing of one executed launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaunchSummary {
    /// Kernel name given to `launch_begin`.
    pub name: String,
    /// Number of cores in the launch.
    pub cores: usize,
    /// Number of instructions recorded.
    pub instructions: usize,
    /// Cycle at which the cores started: the previous launch's end plus the launch latency,
    /// or plus the barrier latency for a step.
    pub start: u64,
    /// Cycle at which the last instruction ended.
    pub end: u64,
    /// Whether it ran as a later step of a persistent kernel, which the device started itself
    /// after the previous step (`Device::persistent_begin`), rather than a launch by the host.
    pub step: bool,
}

impl LaunchSummary {
    /// `end - start`.
    pub fn cycles(&self) -> u64 {
        self.end - self.start
    }
}

/// Counters accumulated over launches since the last reset.
#[derive(Debug, Clone)]
pub(crate) struct Stats {
    /// Device cycle at the last reset.
    since: u64,
    launches: Vec<LaunchSummary>,
    instructions: u64,
    /// (src, dst) -> (bytes, DMAs).
    transfers: BTreeMap<(MemLevel, MemLevel), (u64, u64)>,
    host_to_ddr: u64,
    ddr_to_host: u64,
    /// Scalars the host read from the device, each a synchronisation.
    host_syncs: u64,
    /// Scalars the cores read inside persistent regions, each a branch on the device.
    device_branches: u64,
    /// Per flat core, per resource: (instructions, busy cycles, work).
    resources: Vec<Vec<(u64, u64, f64)>>,
    /// Per cluster, per port (in [`Port::ALL`] order): (busy cycles, bytes).
    links: Vec<[(u64, u64); 2]>,
    /// Per layer the program named (`td_layer`).
    layers: BTreeMap<u32, LayerCounters>,
}

/// What the instructions attributed to one layer did, over every launch.
#[derive(Debug, Clone, Default)]
struct LayerCounters {
    instructions: u64,
    start: u64,
    end: u64,
    /// Busy cycles per kind of unit (vector core, vector engine, matrix engine), then DMA.
    busy: [u64; 4],
    dma_bytes: u64,
    /// Flat indices of the cores that ran any of them.
    cores: std::collections::BTreeSet<u32>,
    /// The cycles during which any of them ran, as disjoint sorted intervals (merged after
    /// each launch).
    active: Vec<(u64, u64)>,
}

impl LayerCounters {
    /// Sorts and merges `active`.
    fn merge(&mut self) {
        self.active.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(self.active.len());
        for &(start, end) in &self.active {
            match merged.last_mut() {
                Some(last) if start <= last.1 => last.1 = last.1.max(end),
                _ => merged.push((start, end)),
            }
        }
        self.active = merged;
    }
}

impl Stats {
    pub fn new(target: &Target, since: u64) -> Stats {
        let resources = target.core.units.len() + target.core.dma_channels as usize;
        Stats {
            since,
            launches: Vec::new(),
            instructions: 0,
            transfers: BTreeMap::new(),
            host_to_ddr: 0,
            ddr_to_host: 0,
            host_syncs: 0,
            device_branches: 0,
            resources: vec![vec![(0, 0, 0.0); resources]; target.total_cores() as usize],
            links: vec![[(0, 0); 2]; target.device.clusters as usize],
            layers: BTreeMap::new(),
        }
    }

    pub fn host_write(&mut self, bytes: u64) {
        self.host_to_ddr += bytes;
    }

    pub fn host_read(&mut self, bytes: u64) {
        self.ddr_to_host += bytes;
    }

    /// Counts a scalar read by the host.
    pub fn host_sync(&mut self) {
        self.host_syncs += 1;
    }

    /// Counts a scalar read by the cores inside a persistent region.
    pub fn device_branch(&mut self) {
        self.device_branches += 1;
    }

    /// Adds one core's run of instructions of one layer, timed by `slots`, to the layer's
    /// counters.
    fn record_layer(&mut self, target: &Target, run: &[Recorded], slots: &[Slot], core: u32) {
        let start = slots.iter().map(|s| s.start).min().unwrap_or(0);
        let layer = self
            .layers
            .entry(run[0].layer)
            .or_insert_with(|| LayerCounters {
                start,
                ..Default::default()
            });
        layer.instructions += run.len() as u64;
        layer.start = layer.start.min(start);
        layer.cores.insert(core);
        for (rec, s) in run.iter().zip(slots) {
            layer.end = layer.end.max(s.end);
            if s.end > s.start {
                layer.active.push((s.start, s.end));
            }
            if let Some(r) = s.resource {
                let kind = match target.core.units.get(r) {
                    Some(UnitKind::VectorCore) => 0,
                    Some(UnitKind::VectorEngine) => 1,
                    Some(UnitKind::MatrixEngine) => 2,
                    None => 3,
                };
                layer.busy[kind] += s.end - s.start;
            }
            layer.dma_bytes += rec.bytes;
        }
    }

    /// Adds an executed launch.
    pub fn record(
        &mut self,
        target: &Target,
        launch: &Launch,
        schedule: &Schedule,
        summary: LaunchSummary,
    ) {
        self.instructions += summary.instructions as u64;
        self.launches.push(summary);
        for (slot, stream) in launch.streams.iter().enumerate() {
            let core = launch.cores[slot];
            let flat = (core.cluster * target.cluster.cores + core.core) as usize;
            let slots = &schedule.slots[slot];
            // A core's instructions come in runs of one layer: each run updates its layer's
            // counters with one lookup.
            let mut first = 0;
            for run in stream.chunk_by(|a, b| a.layer == b.layer) {
                let timed = &slots[first..first + run.len()];
                first += run.len();
                if run[0].layer != NO_LAYER {
                    self.record_layer(target, run, timed, flat as u32);
                }
            }
            for (rec, s) in stream.iter().zip(slots) {
                if let Some(r) = s.resource {
                    let entry = &mut self.resources[flat][r];
                    entry.0 += 1;
                    entry.1 += s.end - s.start;
                    entry.2 += rec.work(target.cost.special_function);
                }
                if let Some((sl, dl)) = rec.path {
                    let bytes = rec.bytes;
                    let t = self.transfers.entry((sl, dl)).or_default();
                    t.0 += bytes;
                    t.1 += 1;
                    if let Some((port, a, b)) = s.link {
                        let link = &mut self.links[core.cluster as usize][port.index()];
                        link.0 += b - a;
                        link.1 += bytes;
                    }
                }
            }
        }
        let touched: std::collections::BTreeSet<u32> = launch
            .streams
            .iter()
            .flatten()
            .map(|rec| rec.layer)
            .filter(|&layer| layer != NO_LAYER)
            .collect();
        for layer in touched {
            if let Some(counters) = self.layers.get_mut(&layer) {
                counters.merge();
            }
        }
    }
}

/// Bytes moved by DMA along one path, in one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TransferStat {
    /// Source level.
    pub src: MemLevel,
    /// Destination level.
    pub dst: MemLevel,
    /// Bytes copied.
    pub bytes: u64,
    /// Number of DMA instructions.
    pub dmas: u64,
}

/// Bytes the host moved in and out of DDR (not timed: host transfers are outside the model).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HostStat {
    /// Bytes written by the host into DDR buffers.
    pub to_ddr_bytes: u64,
    /// Bytes read by the host from DDR buffers.
    pub from_ddr_bytes: u64,
}

/// One compute unit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnitStat {
    /// Its core.
    pub core: CoreId,
    /// Its index in `core.units`.
    pub unit: usize,
    /// Its kind.
    pub kind: UnitKind,
    /// Instructions it ran.
    pub instructions: u64,
    /// Cycles it was busy (setup included).
    pub busy_cycles: u64,
    /// `busy_cycles / cycles`.
    pub utilisation: f64,
    /// Flops (matrix engine) or element operations (vector units) it performed.
    pub work: f64,
}

/// One DMA channel.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChannelStat {
    /// Its core.
    pub core: CoreId,
    /// Its index among the core's channels.
    pub channel: usize,
    /// DMAs it ran.
    pub transfers: u64,
    /// Bytes it moved.
    pub bytes: u64,
    /// Cycles it was busy (setup and waiting for the link included).
    pub busy_cycles: u64,
    /// `busy_cycles / cycles`.
    pub utilisation: f64,
}

/// One shared transfer resource of a cluster: its DDR port or its GB bus.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LinkStat {
    /// The cluster.
    pub cluster: u32,
    /// Which of its ports.
    pub port: Port,
    /// Bytes that crossed it.
    pub bytes: u64,
    /// Cycles it was transferring.
    pub busy_cycles: u64,
    /// `busy_cycles / cycles`.
    pub utilisation: f64,
}

/// Capacities and high-water marks, in bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemoryStat {
    /// Capacity of each LB.
    pub lb_capacity: u64,
    /// Capacity of each GB.
    pub gb_capacity: u64,
    /// Capacity of DDR.
    pub ddr_capacity: u64,
    /// Largest LB high-water mark over all cores.
    pub lb_high_water_max: u64,
    /// High-water mark of each core's LB, flat core order (cluster-major).
    pub lb_high_water: Vec<u64>,
    /// High-water mark of each cluster's GB.
    pub gb_high_water: Vec<u64>,
    /// High-water mark of DDR.
    pub ddr_high_water: u64,
}

/// What the instructions of one layer of the model cost (the layers are the program's: the
/// compiler names each instruction's model op, `td_layer`). A layer's instructions may run in
/// several launches and overlap other layers'.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LayerStat {
    /// The name the program gave it (the model op's location), or its id when it gave none.
    pub name: String,
    /// Instructions attributed to it.
    pub instructions: u64,
    /// Cycle its first instruction started.
    pub start: u64,
    /// Cycle its last instruction ended.
    pub end: u64,
    /// Cycles during which any of its instructions ran (the union of their intervals): its
    /// time on the device when other layers' instructions run in between.
    pub active_cycles: u64,
    /// Cores that ran any of its instructions.
    pub cores: usize,
    /// Busy cycles of its instructions on matrix engines, summed over cores.
    pub matrix_engine_busy: u64,
    /// On vector engines.
    pub vector_engine_busy: u64,
    /// On vector cores.
    pub vector_core_busy: u64,
    /// On DMA channels.
    pub dma_busy: u64,
    /// Bytes its DMAs moved.
    pub dma_bytes: u64,
}

impl LayerStat {
    /// `end - start` (other layers' instructions may run in between: GraphTurbo's instances
    /// run a group's layers once per instance).
    pub fn span(&self) -> u64 {
        self.end - self.start
    }

    /// Busy cycles of its instructions on every unit and DMA channel: what the layer cost the
    /// device, wherever and whenever it ran.
    pub fn busy(&self) -> u64 {
        self.matrix_engine_busy + self.vector_engine_busy + self.vector_core_busy + self.dma_busy
    }
}

/// The report. Times are simulated device time, never host time.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Target name.
    pub target: String,
    /// Target clock.
    pub clock_mhz: f64,
    /// Simulated cycles since the last reset (launch latencies and idle gaps included).
    pub cycles: u64,
    /// `cycles` at the target clock, in microseconds.
    pub time_us: f64,
    /// Launches made by the host: every launch outside persistent regions, and the first
    /// launch that ended in each region (the persistent kernel's own launch).
    pub kernel_launches: u64,
    /// Launches that ran as later steps of a persistent kernel, sequenced by the device.
    pub device_steps: u64,
    /// Scalars the host read from the device to decide a loop or a branch, each a
    /// synchronisation (`Device::read_scalar` outside a persistent region).
    pub host_syncs: u64,
    /// Scalars the cores read to decide a loop or a branch themselves (`Device::read_scalar`
    /// inside a persistent region).
    pub device_branches: u64,
    /// Instructions executed.
    pub instructions: u64,
    /// Whether the launches were checked for races before they ran
    /// ([`Device::set_race_check`](crate::Device::set_race_check)).
    pub race_check: bool,
    /// Every launch, in order, steps of persistent kernels included.
    pub launches: Vec<LaunchSummary>,
    /// DMA bytes per path and direction (only paths used).
    pub transfers: Vec<TransferStat>,
    /// Host traffic.
    pub host: HostStat,
    /// Every compute unit of every core.
    pub units: Vec<UnitStat>,
    /// Every DMA channel of every core.
    pub dma_channels: Vec<ChannelStat>,
    /// Every port of every cluster.
    pub links: Vec<LinkStat>,
    /// Memory use.
    pub memory: MemoryStat,
    /// Every layer the program named, in the order of their first instruction.
    pub layers: Vec<LayerStat>,
}

impl Report {
    /// The report of the counters in `stats` at device cycle `now`, with the memory usage of
    /// the LBs, the GBs and DDR and the names the program gave its layers.
    pub(crate) fn build(
        target: &Target,
        stats: &Stats,
        now: u64,
        usage: (&[Usage], &[Usage], Usage),
        layer_names: &BTreeMap<u32, String>,
        race_check: bool,
    ) -> Report {
        let cycles = now - stats.since;
        let (units, dma_channels) = stats.unit_and_channel_stats(target, cycles);
        let device_steps = stats.launches.iter().filter(|l| l.step).count() as u64;
        Report {
            target: target.name.clone(),
            clock_mhz: target.clock_mhz,
            cycles,
            time_us: cycles as f64 / target.clock_mhz,
            kernel_launches: stats.launches.len() as u64 - device_steps,
            device_steps,
            host_syncs: stats.host_syncs,
            device_branches: stats.device_branches,
            instructions: stats.instructions,
            race_check,
            launches: stats.launches.clone(),
            transfers: stats.transfer_stats(),
            host: HostStat {
                to_ddr_bytes: stats.host_to_ddr,
                from_ddr_bytes: stats.ddr_to_host,
            },
            units,
            dma_channels,
            links: stats.link_stats(cycles),
            memory: memory_stat(target, usage),
            layers: stats.layer_stats(layer_names),
        }
    }

    /// The report as pretty-printed JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a report has only strings, numbers and lists")
    }
}

/// `busy` cycles as a share of a run of `cycles` (0 for an empty run).
fn utilisation(busy: u64, cycles: u64) -> f64 {
    if cycles == 0 {
        0.0
    } else {
        busy as f64 / cycles as f64
    }
}

/// Capacities and high-water marks of the LBs, the GBs and DDR.
fn memory_stat(target: &Target, (lb, gb, ddr): (&[Usage], &[Usage], Usage)) -> MemoryStat {
    MemoryStat {
        lb_capacity: target.core.lb_bytes,
        gb_capacity: target.cluster.gb_bytes,
        ddr_capacity: target.device.ddr_bytes,
        lb_high_water_max: lb.iter().map(|u| u.high_water).max().unwrap_or(0),
        lb_high_water: lb.iter().map(|u| u.high_water).collect(),
        gb_high_water: gb.iter().map(|u| u.high_water).collect(),
        ddr_high_water: ddr.high_water,
    }
}

impl Stats {
    /// Every compute unit and every DMA channel of every core, over a run of `cycles`.
    fn unit_and_channel_stats(
        &self,
        target: &Target,
        cycles: u64,
    ) -> (Vec<UnitStat>, Vec<ChannelStat>) {
        let units_n = target.core.units.len();
        let mut units = Vec::new();
        let mut dma_channels = Vec::new();
        for (flat, res) in self.resources.iter().enumerate() {
            let core = CoreId::new(
                flat as u32 / target.cluster.cores,
                flat as u32 % target.cluster.cores,
            );
            for (r, &(instructions, busy, work)) in res.iter().enumerate() {
                if r < units_n {
                    units.push(UnitStat {
                        core,
                        unit: r,
                        kind: target.core.units[r],
                        instructions,
                        busy_cycles: busy,
                        utilisation: utilisation(busy, cycles),
                        work,
                    });
                } else {
                    dma_channels.push(ChannelStat {
                        core,
                        channel: r - units_n,
                        transfers: instructions,
                        // The work of a DMA is its byte count.
                        bytes: work as u64,
                        busy_cycles: busy,
                        utilisation: utilisation(busy, cycles),
                    });
                }
            }
        }
        (units, dma_channels)
    }

    /// Bytes and DMAs per memory path and direction.
    fn transfer_stats(&self) -> Vec<TransferStat> {
        self.transfers
            .iter()
            .map(|(&(src, dst), &(bytes, dmas))| TransferStat {
                src,
                dst,
                bytes,
                dmas,
            })
            .collect()
    }

    /// Every port of every cluster, over a run of `cycles`.
    fn link_stats(&self, cycles: u64) -> Vec<LinkStat> {
        self.links
            .iter()
            .enumerate()
            .flat_map(|(cl, ports)| {
                Port::ALL.into_iter().map(move |port| {
                    let (busy, bytes) = ports[port.index()];
                    LinkStat {
                        cluster: cl as u32,
                        port,
                        bytes,
                        busy_cycles: busy,
                        utilisation: utilisation(busy, cycles),
                    }
                })
            })
            .collect()
    }

    /// Every layer the program named, ordered by first start then end.
    fn layer_stats(&self, layer_names: &BTreeMap<u32, String>) -> Vec<LayerStat> {
        let mut layers: Vec<LayerStat> = self
            .layers
            .iter()
            .map(|(id, layer)| LayerStat {
                name: layer_names
                    .get(id)
                    .cloned()
                    .unwrap_or_else(|| format!("layer {id}")),
                instructions: layer.instructions,
                start: layer.start,
                end: layer.end,
                active_cycles: layer.active.iter().map(|(start, end)| end - start).sum(),
                cores: layer.cores.len(),
                vector_core_busy: layer.busy[0],
                vector_engine_busy: layer.busy[1],
                matrix_engine_busy: layer.busy[2],
                dma_busy: layer.busy[3],
                dma_bytes: layer.dma_bytes,
            })
            .collect();
        layers.sort_by_key(|layer| (layer.start, layer.end));
        layers
    }
}
