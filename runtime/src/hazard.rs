//! The race check run at `launch_end`, before anything executes. It is what makes the
//! functional result independent of timing and of host threads: if two instructions touch the
//! same elements, at least one of them writes, and nothing orders them, the launch is rejected
//! with both instructions named.
//!
//! "Ordered" (happens-before) within a core means: a chain of tokens, a `wait` between them,
//! a barrier between them, or the same in-order queue (the same compute unit or DMA channel in
//! the simulated schedule). Across cores only barriers order. Given a race-free launch, running
//! each core's instructions in program order, barrier phase by barrier phase, with the cores
//! of a phase in any interleaving, gives the same memory contents as the timed hardware would.
//!
//! Within a core, happens-before is a vector clock over the core's queues: instruction `j`
//! knows, for each queue, how many of its instructions are known to complete before `j`
//! starts. Accesses to each buffer are checked against the live earlier accesses, and an
//! earlier access is retired once a later one that is ordered after it covers it (so a
//! double-buffered loop keeps the live set small).

use crate::error::{Result, RuntimeError};
use crate::footprint::Footprint;
use crate::hashing::IntMap;
use crate::ids::BufferId;
use crate::instr::{Access, Instr};
use crate::launch::Launch;
use crate::timing::Schedule;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Unmerged runs read and written: (reads, writes).
type RunLists = (Vec<(u64, u64)>, Vec<(u64, u64)>);

/// One instruction's use of one buffer.
struct Use {
    slot: usize,
    index: usize,
    phase: usize,
    reads: Footprint,
    writes: Footprint,
}

impl Use {
    fn touched(&self) -> Footprint {
        self.reads.union(&self.writes)
    }

    /// An element both touch where at least one writes, if any.
    fn conflict(&self, other: &Use) -> Option<u64> {
        [
            self.writes.first_common(&other.writes),
            self.writes.first_common(&other.reads),
            self.reads.first_common(&other.writes),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// Elements per bucket of [`LiveUses`]' index.
const BUCKET: u64 = 4096;

/// One core's live accesses to one buffer, in program order, indexed by the buckets of elements
/// they touch: only an access sharing an element with a new one can race with it or be covered
/// by it, and a core's tiles of a large buffer are mostly elsewhere, so the check looks at those
/// sharing a bucket instead of at every live access (quadratic in a kernel's tiles).
#[derive(Default)]
struct LiveUses<'a> {
    /// Every access pushed, by id (program order).
    uses: Vec<&'a Use>,
    retired: Vec<bool>,
    /// Bucket → ids of the accesses touching it (retired ones dropped lazily).
    buckets: IntMap<u64, Vec<usize>>,
    /// The id of the access last queried that saw each id, so that one seen in several
    /// buckets is listed once.
    seen: Vec<usize>,
}

impl<'a> LiveUses<'a> {
    fn buckets_of(footprint: &Footprint) -> impl Iterator<Item = u64> + '_ {
        let mut last = None;
        footprint
            .runs()
            .iter()
            .flat_map(|&(start, end)| start / BUCKET..=(end - 1) / BUCKET)
            .filter(move |&b| {
                let new = last != Some(b);
                last = Some(b);
                new
            })
    }

    /// The live accesses that share a bucket with `touched`, in program order.
    fn overlapping(&mut self, touched: &Footprint) -> Vec<usize> {
        let stamp = self.uses.len() + 1;
        let mut found = Vec::new();
        for bucket in Self::buckets_of(touched) {
            let Some(ids) = self.buckets.get_mut(&bucket) else {
                continue;
            };
            ids.retain(|&id| !self.retired[id]);
            for &id in ids.iter() {
                if self.seen[id] != stamp {
                    self.seen[id] = stamp;
                    found.push(id);
                }
            }
        }
        found.sort_unstable();
        found
    }

    fn retire(&mut self, id: usize) {
        self.retired[id] = true;
    }

    fn push(&mut self, u: &'a Use, touched: &Footprint) {
        let id = self.uses.len();
        self.uses.push(u);
        self.retired.push(false);
        self.seen.push(0);
        for bucket in Self::buckets_of(touched) {
            self.buckets.entry(bucket).or_default().push(id);
        }
    }
}

/// Instructions below which a launch is checked on the calling thread: a thread start costs
/// about what checking a few hundred accesses does.
const PARALLEL_MIN_INSTRUCTIONS: usize = 512;

/// Rejects `launch` if it has a race under `schedule`'s queue assignment. Cores' accesses are
/// gathered, and buffers checked, on up to `threads` host threads; the race reported is the one
/// a sequential check finds first (the lowest buffer id), whatever the threads.
pub(crate) fn check(
    launch: &Launch,
    schedule: &Schedule,
    resources: usize,
    threads: usize,
) -> Result<()> {
    let slots = launch.streams.len();
    let threads = if launch.instruction_count() < PARALLEL_MIN_INSTRUCTIONS {
        1
    } else {
        threads
    };
    let clocks: Vec<Vec<u32>> = (0..slots)
        .map(|slot| vector_clocks(launch, schedule, slot, resources))
        .collect();
    let positions: Vec<Vec<u32>> = (0..slots)
        .map(|slot| queue_positions(schedule, slot, resources))
        .collect();
    let ordered =
        |slot: usize, earlier: usize, later: usize| match schedule.slots[slot][earlier].resource {
            Some(q) => clocks[slot][later * resources + q] >= positions[slot][earlier],
            None => true,
        };

    // Only a buffer that the launch writes can race: the weights and input activations that
    // every core reads (tens of thousands of accesses in a batch's convolution) need no check.
    let mut written: Vec<BufferId> = launch
        .streams
        .iter()
        .flatten()
        .flat_map(|rec| rec.instr.operands())
        .filter(|(_, _, access)| *access == Access::Write)
        .map(|(_, view, _)| view.buffer)
        .collect();
    written.sort_unstable();
    written.dedup();
    // Per buffer, every core's uses in core order, each core's in program order.
    let mut uses: BTreeMap<BufferId, Vec<Use>> = BTreeMap::new();
    for per_core in parallel_map(slots, threads, |slot| core_uses(launch, slot, &written)) {
        for (buffer, u) in per_core {
            uses.entry(buffer).or_default().push(u);
        }
    }
    let buffers: Vec<(&BufferId, &Vec<Use>)> = uses.iter().collect();
    let outcomes = parallel_map(buffers.len(), threads, |i| {
        let (&buffer, list) = buffers[i];
        check_buffer(launch, buffer, list, &ordered)
    });
    outcomes.into_iter().collect()
}

/// `f(0..n)` on up to `threads` scoped host threads, results in index order.
fn parallel_map<T: Send>(n: usize, threads: usize, f: impl Fn(usize) -> T + Sync) -> Vec<T> {
    let threads = threads.min(n);
    if threads <= 1 {
        return (0..n).map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= n {
                            return mine;
                        }
                        mine.push((i, f(i)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a race-check thread panicked"))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// One core's uses of each buffer, in program order: an instruction's operands on one buffer
/// make one use (at most three operands: a short list beats a map). Buffers not in `written`
/// are left out.
fn core_uses(launch: &Launch, slot: usize, written: &[BufferId]) -> Vec<(BufferId, Use)> {
    let mut out = Vec::new();
    let mut phase = 0;
    for (index, rec) in launch.streams[slot].iter().enumerate() {
        if rec.instr == Instr::Barrier {
            phase += 1;
        }
        let mut by_buffer: Vec<(BufferId, Footprint, Footprint)> = Vec::new();
        for (_, view, access) in rec.instr.operands() {
            if written.binary_search(&view.buffer).is_err() {
                continue;
            }
            let i = match by_buffer.iter().position(|(b, _, _)| *b == view.buffer) {
                Some(i) => i,
                None => {
                    by_buffer.push((view.buffer, Footprint::empty(), Footprint::empty()));
                    by_buffer.len() - 1
                }
            };
            let footprint = view.footprint();
            let set = match access {
                Access::Read => &mut by_buffer[i].1,
                Access::Write => &mut by_buffer[i].2,
            };
            *set = if set.is_empty() {
                footprint
            } else {
                set.union(&footprint)
            };
        }
        for (buffer, reads, writes) in by_buffer {
            out.push((
                buffer,
                Use {
                    slot,
                    index,
                    phase,
                    reads,
                    writes,
                },
            ));
        }
    }
    out
}

/// Checks the uses of one buffer: within each core, then across cores.
fn check_buffer(
    launch: &Launch,
    buffer: BufferId,
    list: &[Use],
    ordered: &(impl Fn(usize, usize, usize) -> bool + Sync),
) -> Result<()> {
    check_within_cores(launch, buffer, list, ordered)?;
    // Nothing to do across cores for a buffer that one core alone touches, as most LB buffers
    // are.
    if list.iter().all(|u| u.slot == list[0].slot) {
        return Ok(());
    }
    check_across_cores(launch, buffer, list)
}

/// Names the instruction of a use for a race message: its core, index, name and access.
fn describe_use(launch: &Launch, u: &Use) -> String {
    let rec = &launch.streams[u.slot][u.index];
    let what = if u.writes.is_empty() {
        "reads"
    } else {
        "writes"
    };
    format!(
        "{} instruction #{} ({}, {what})",
        launch.cores[u.slot],
        u.index,
        rec.instr.name()
    )
}

/// The race between uses `a` and `b` of `buffer`, first met at `element`.
fn race(launch: &Launch, buffer: BufferId, element: u64, a: &Use, b: &Use) -> RuntimeError {
    RuntimeError::Race {
        launch: launch.name.clone(),
        buffer,
        element,
        first: describe_use(launch, a),
        second: describe_use(launch, b),
    }
}

/// Within each core, in program order (the list is grouped by core, in order): two uses in
/// the same barrier phase that conflict must be ordered by a token or wait. A barrier orders
/// everything before it, so each phase starts with no live uses; within a phase, a use that
/// covers an earlier one after it retires the earlier one from the uses later ones are checked
/// against.
fn check_within_cores(
    launch: &Launch,
    buffer: BufferId,
    list: &[Use],
    ordered: &(impl Fn(usize, usize, usize) -> bool + Sync),
) -> Result<()> {
    let mut live = LiveUses::default();
    for (i, u) in list.iter().enumerate() {
        if i > 0 && (list[i - 1].slot, list[i - 1].phase) != (u.slot, u.phase) {
            live = LiveUses::default();
        }
        let touched = u.touched();
        let overlapping = live.overlapping(&touched);
        for &l in &overlapping {
            let l = live.uses[l];
            if let Some(e) = l.conflict(u) {
                if !ordered(u.slot, l.index, u.index) {
                    return Err(race(launch, buffer, e, l, u));
                }
            }
        }
        for l in overlapping {
            let earlier = live.uses[l];
            let covered = u.writes.contains(&earlier.writes) && touched.contains(&earlier.reads);
            if covered && ordered(u.slot, earlier.index, u.index) {
                live.retire(l);
            }
        }
        live.push(u, &touched);
    }
    Ok(())
}

/// Across cores, within each barrier phase: the footprints of two cores in the same phase
/// must not overlap where one of them writes. Where they do, the first pair of conflicting
/// uses is the race reported.
fn check_across_cores(launch: &Launch, buffer: BufferId, list: &[Use]) -> Result<()> {
    let per_phase = footprints_per_phase_and_core(list);
    let keys: Vec<&(usize, usize)> = per_phase.keys().collect();
    for (i, ka) in keys.iter().enumerate() {
        for kb in keys.iter().skip(i + 1).take_while(|kb| kb.0 == ka.0) {
            let (ra, wa) = &per_phase[ka];
            let (rb, wb) = &per_phase[kb];
            let hit = [
                wa.first_common(wb),
                wa.first_common(rb),
                ra.first_common(wb),
            ]
            .into_iter()
            .flatten()
            .min();
            if hit.is_some() {
                let (ka, kb) = (**ka, **kb);
                for a in list.iter().filter(|u| (u.phase, u.slot) == ka) {
                    for b in list.iter().filter(|u| (u.phase, u.slot) == kb) {
                        if let Some(e) = a.conflict(b) {
                            return Err(race(launch, buffer, e, a, b));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The elements each core reads and writes in each barrier phase, keyed by (phase, slot).
fn footprints_per_phase_and_core(list: &[Use]) -> BTreeMap<(usize, usize), (Footprint, Footprint)> {
    let mut runs: BTreeMap<(usize, usize), RunLists> = BTreeMap::new();
    for u in list {
        let e = runs.entry((u.phase, u.slot)).or_default();
        e.0.extend_from_slice(u.reads.runs());
        e.1.extend_from_slice(u.writes.runs());
    }
    runs.into_iter()
        .map(|(k, (r, w))| (k, (Footprint::from_runs(r), Footprint::from_runs(w))))
        .collect()
}

/// 1-based position of each instruction on its queue (0 for unqueued ones).
fn queue_positions(schedule: &Schedule, slot: usize, resources: usize) -> Vec<u32> {
    let mut count = vec![0u32; resources];
    schedule.slots[slot]
        .iter()
        .map(|s| match s.resource {
            Some(q) => {
                count[q] += 1;
                count[q]
            }
            None => 0,
        })
        .collect()
}

/// For each instruction `j` of the core, including itself: per queue, how many of the
/// queue's instructions complete before `j` does (a vector clock), as `resources` consecutive
/// entries per instruction.
fn vector_clocks(launch: &Launch, schedule: &Schedule, slot: usize, resources: usize) -> Vec<u32> {
    let join = |clocks: &mut Vec<u32>, start: usize, from: usize| {
        for q in 0..resources {
            clocks[start + q] = clocks[start + q].max(clocks[from * resources + q]);
        }
    };
    let mut clocks: Vec<u32> = Vec::with_capacity(launch.streams[slot].len() * resources);
    let mut fence = vec![0u32; resources];
    let mut issued = vec![0u32; resources];
    let mut last_on: Vec<Option<usize>> = vec![None; resources];
    for (j, rec) in launch.streams[slot].iter().enumerate() {
        let start = clocks.len();
        if rec.instr == Instr::Barrier {
            // Everything issued so far completes before anything after the barrier starts.
            fence.copy_from_slice(&issued);
            clocks.extend_from_slice(&fence);
            continue;
        }
        clocks.extend_from_slice(&fence);
        for &w in &rec.waits {
            join(&mut clocks, start, w);
        }
        match schedule.slots[slot][j].resource {
            Some(q) => {
                if let Some(p) = last_on[q] {
                    join(&mut clocks, start, p);
                }
                issued[q] += 1;
                clocks[start + q] = clocks[start + q].max(issued[q]);
                last_on[q] = Some(j);
            }
            None => fence.copy_from_slice(&clocks[start..]),
        }
    }
    clocks
}
