//! The timing model: when each instruction of a launch starts and ends, in cycles.
//!
//! Every core has one timeline per compute unit and per DMA channel; each cluster has one
//! timeline per shared transfer resource, its DDR port and its GB bus ([`Port`]). An instruction
//! starts when (1) the tokens it waits on are ready, (2) the core's fence allows it (launch
//! start, last `wait`, last barrier), and (3) its unit or channel is free; units and channels
//! are in-order queues fed in program order. With several units of a kind (or several DMA
//! channels), it takes the one free first, the lowest index on a tie.
//!
//! - compute: `compute_setup + ceil(work / throughput[kind][type])` cycles on its unit, `type`
//!   the element type it computes on (the f32 rate where the target states none);
//! - DMA: `dma_setup` cycles on its channel, then `ceil(bytes / bandwidth[path])` cycles of
//!   transfer; a transfer with DDR at one end also holds its cluster's DDR port for the
//!   transfer time, one between GB and LB or within GB its cluster's GB bus, at the earliest
//!   free interval of the port after the setup; LB↔LB holds nothing shared;
//! - `wait`: takes no time, moves the core's fence to its tokens' ready time;
//! - barrier: released `latency.barrier` cycles after the last core of the launch has
//!   finished everything before it.
//!
//! Cores interact only through ports and barriers. The scheduler picks, among all cores, the
//! next instruction that can start earliest (ties: lowest core), so port reservations are made
//! in a fixed order computed from simulated times alone: the result does not depend on the
//! host, on threads, or on anything but the program.

use crate::instr::{Engine, Instr};
use crate::launch::Launch;
use crate::link::{LinkTimeline, Port};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use turbine_targets::Target;

/// When one instruction ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Slot {
    pub start: u64,
    pub end: u64,
    /// Index in the core's resources: units `0..U` in `core.units` order, then DMA channels
    /// `U..U+D`. `None` for `wait` and barriers.
    pub resource: Option<usize>,
    /// For a DMA over a port of its cluster: the port and the interval it held it.
    pub link: Option<(Port, u64, u64)>,
}

/// The simulated schedule of a launch.
#[derive(Debug, Clone)]
pub(crate) struct Schedule {
    /// Per core slot, per instruction.
    pub slots: Vec<Vec<Slot>>,
    /// When the last instruction ended (the launch's start if it has none).
    pub end: u64,
}

/// Per-core scheduling state.
struct CoreState {
    /// Index of the head instruction in the core's stream.
    next: usize,
    /// No instruction of the core may start before this (launch start, `wait`, barrier).
    fence: u64,
    /// End of everything issued so far on the core.
    done: u64,
    /// When each resource (units, then DMA channels) becomes free.
    free: Vec<u64>,
    /// Resource and start time chosen for the head instruction while it is in the heap.
    pending: Option<(Option<usize>, u64)>,
}

/// The simulation of one launch.
struct Sim<'a> {
    target: &'a Target,
    launch: &'a Launch,
    cores: Vec<CoreState>,
    slots: Vec<Vec<Slot>>,
    links: BTreeMap<(u32, Port), LinkTimeline>,
    /// Heads ready to be scheduled, by (start time, core slot).
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    /// Arrival time of each core at the current barrier.
    at_barrier: Vec<Option<u64>>,
}

/// Simulates `launch` starting at cycle `start`. The launch has been fully checked (operands,
/// unit kinds present, equal barrier counts), so scheduling cannot fail.
pub(crate) fn simulate(target: &Target, launch: &Launch, start: u64) -> Schedule {
    let resources = target.core.units.len() + target.core.dma_channels as usize;
    let n = launch.cores.len();
    let mut sim = Sim {
        target,
        launch,
        cores: (0..n)
            .map(|_| CoreState {
                next: 0,
                fence: start,
                done: start,
                free: vec![start; resources],
                pending: None,
            })
            .collect(),
        slots: launch
            .streams
            .iter()
            .map(|s| Vec::with_capacity(s.len()))
            .collect(),
        links: BTreeMap::new(),
        heap: BinaryHeap::new(),
        at_barrier: vec![None; n],
    };
    for c in 0..n {
        sim.queue_head(c);
    }
    while let Some(Reverse((_, c))) = sim.heap.pop() {
        sim.run_head(c);
        sim.queue_head(c);
    }
    let end = sim.cores.iter().map(|s| s.done).max().unwrap_or(start);
    Schedule {
        slots: sim.slots,
        end,
    }
}

impl Sim<'_> {
    /// Chooses the resource and start time of core `c`'s head instruction and queues it; a
    /// barrier instead registers the core's arrival.
    fn queue_head(&mut self, c: usize) {
        let Some(rec) = self.launch.streams[c].get(self.cores[c].next) else {
            return;
        };
        let units = &self.target.core.units;
        let state = &mut self.cores[c];
        let ready = rec
            .waits
            .iter()
            .map(|&w| self.slots[c][w].end)
            .fold(state.fence, u64::max);
        let resource = match rec.instr.engine() {
            Engine::Sync if rec.instr == Instr::Barrier => {
                let arrival = ready.max(state.done);
                self.arrive(c, arrival);
                return;
            }
            Engine::Sync => None,
            Engine::Unit(kind) => Some(earliest(
                &state.free,
                (0..units.len()).filter(|&i| units[i] == kind),
            )),
            Engine::Dma => Some(earliest(&state.free, units.len()..state.free.len())),
        };
        let start = resource.map_or(ready, |r| ready.max(state.free[r]));
        state.pending = Some((resource, start));
        self.heap.push(Reverse((start, c)));
    }

    /// Core `c` reached the barrier at `arrival`; when every core has, releases them all.
    fn arrive(&mut self, c: usize, arrival: u64) {
        self.at_barrier[c] = Some(arrival);
        if self.at_barrier.iter().any(Option::is_none) {
            return;
        }
        let arrivals: Vec<u64> = self
            .at_barrier
            .iter_mut()
            .map(|a| a.take().unwrap_or(arrival))
            .collect();
        let release = arrivals
            .iter()
            .copied()
            .max()
            .unwrap_or(arrival)
            .saturating_add(self.target.latency.barrier);
        for (slot, arrival) in arrivals.into_iter().enumerate() {
            let state = &mut self.cores[slot];
            self.slots[slot].push(Slot {
                start: arrival,
                end: release,
                resource: None,
                link: None,
            });
            state.fence = release;
            state.done = state.done.max(release);
            state.next += 1;
        }
        for slot in 0..self.cores.len() {
            self.queue_head(slot);
        }
    }

    /// Schedules core `c`'s queued head instruction.
    fn run_head(&mut self, c: usize) {
        let rec = &self.launch.streams[c][self.cores[c].next];
        let (resource, start) = self.cores[c]
            .pending
            .take()
            .expect("queued heads have a plan");
        let target = self.target;
        let slot = match (rec.path, rec.instr.engine()) {
            (Some((sl, dl)), _) => {
                let transfer = cycles(rec.work(1.0) / target.bandwidth.between(sl, dl));
                let ready = start.saturating_add(target.latency.dma_setup);
                let (end, link) = match Port::of(sl, dl) {
                    Some(port) => {
                        let cluster = self.launch.cores[c].cluster;
                        let l = self
                            .links
                            .entry((cluster, port))
                            .or_default()
                            .reserve(ready, transfer);
                        let end = l.saturating_add(transfer);
                        (end, Some((port, l, end)))
                    }
                    None => (ready.saturating_add(transfer), None),
                };
                Slot {
                    start,
                    end,
                    resource,
                    link,
                }
            }
            (None, Engine::Unit(kind)) => {
                let rate = target.rate(kind, rec.element.rate_type());
                let work = rec.instr.work(target.cost.special_function);
                let end = start
                    .saturating_add(target.latency.compute_setup)
                    .saturating_add(cycles(work / rate));
                Slot {
                    start,
                    end,
                    resource,
                    link: None,
                }
            }
            // `wait` (barriers never get here): moves the fence to its tokens' ready time.
            _ => {
                self.cores[c].fence = self.cores[c].fence.max(start);
                Slot {
                    start,
                    end: start,
                    resource: None,
                    link: None,
                }
            }
        };
        let state = &mut self.cores[c];
        if let Some(r) = slot.resource {
            state.free[r] = slot.end;
        }
        state.done = state.done.max(slot.end);
        state.next += 1;
        self.slots[c].push(slot);
    }
}

/// The resource among `candidates` that is free first (lowest index on a tie).
fn earliest(free: &[u64], candidates: impl Iterator<Item = usize>) -> usize {
    candidates
        .min_by_key(|&i| (free[i], i))
        .expect("recording checks that the core has a unit of the needed kind")
}

/// Whole cycles needed for `x` cycles of work (at least 1 for any positive work); saturates at
/// `u64::MAX`, like every sum of the model, so that an overflow shows as a time past
/// [`CYCLE_LIMIT`] rather than a wrapped one.
fn cycles(x: f64) -> u64 {
    x.ceil() as u64
}

/// Simulated times at or past this are refused (an error, never a wrapped count): 2^62 leaves
/// room for the sums of a launch before they saturate.
pub const CYCLE_LIMIT: u64 = 1 << 62;
