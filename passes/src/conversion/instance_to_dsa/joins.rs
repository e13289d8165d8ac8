//! Which segments continue the last kernel of the segment before (a barrier of every core of
//! the launch instead of a launch of their own), and where the results they keep in the GB go:
//! a reserve the opener's last arena leaves them, or blocks carved out of that arena.

use super::handover::Handover;
use super::walk::Walk;
use crate::graph_view::{FunctionView, ValueId};
use std::collections::{BTreeMap, BTreeSet};

/// What [`plan_joins`] decided, per segment.
pub(super) struct Joins {
    /// Whether the segment continues the kernel of the segment before.
    pub(super) continues: Vec<bool>,
    /// The bytes of its last kernel's arena that a segment opening a kernel reserves for the
    /// results the segments continuing it keep in the GB.
    pub(super) reserves: Vec<usize>,
    /// Whether the segment carves the results it keeps in the GB out of the arena of the
    /// kernel it continues.
    pub(super) carved: Vec<bool>,
}

/// Which segments continue the kernel of the segment before (`continues`), what the segment that
/// opened a kernel reserves of its last kernel's arena for the results those keep in the GB
/// (`reserves`), and which of them carve their kept results out of that arena instead
/// (`carved`). A segment keeping results allocates them while the kernel it continues is open,
/// beside that kernel's arena: the opener leaves them room in the arena of its last kernel when
/// its intermediates and those of the segments continuing it still fit. When it cannot spare
/// them, they are carved out of its arena, whose contents are dead once the opener is done, if
/// every segment reading them continues that kernel, in one kernel of its own: a segment keeping
/// a result that had to launch a kernel of its own copied its inputs while the cores waited.
pub(super) fn plan_joins(
    outer: &FunctionView,
    nodes: &[usize],
    walks: &[Walk],
    handover: &Handover,
    last_reader: &BTreeMap<ValueId, usize>,
    join: bool,
) -> Joins {
    let count = walks.len();
    let mut uncarvable = BTreeSet::new();
    loop {
        let (mut continues, mut reserves, mut carved, mut carved_in) = (
            vec![false; count],
            vec![0; count],
            vec![false; count],
            vec![0; count],
        );
        let mut opener = 0;
        for index in 0..count {
            let kept = handover.kept_by(outer, nodes[index]);
            let joins = index > 0 && join && continues_kernel(&walks[index - 1], &walks[index]);
            let continuing = &walks[opener + 1..=index];
            if joins
                && (kept == 0
                    || leaves_room(
                        &walks[opener],
                        reserves[opener] + kept,
                        carved_in[opener],
                        continuing,
                    ))
            {
                continues[index] = true;
                reserves[opener] += kept;
            } else if joins
                && !uncarvable.contains(&index)
                && leaves_room(
                    &walks[opener],
                    reserves[opener],
                    carved_in[opener] + kept,
                    continuing,
                )
            {
                (continues[index], carved[index]) = (true, true);
                carved_in[opener] += kept;
            } else {
                opener = index;
            }
            // A segment of several kernels opens its last one: the segments after it continue
            // that kernel, and what they keep in the GB is reserved of its arena.
            if walks[index].items.len() > 1 {
                opener = index;
            }
        }
        // A carved result read after its kernel is launched would be read after its arena.
        let broken: Vec<usize> = (0..count)
            .filter(|&index| carved[index])
            .filter(|&index| {
                let last = outer.ops[nodes[index]]
                    .results
                    .iter()
                    .filter_map(|(value, _)| last_reader.get(value))
                    .copied()
                    .max()
                    .unwrap_or(index)
                    .max(index);
                !continues[index + 1..=last].iter().all(|&c| c)
                    || walks[index..=last].iter().any(|walk| walk.items.len() > 1)
            })
            .collect();
        if broken.is_empty() {
            return Joins {
                continues,
                reserves,
                carved,
            };
        }
        uncarvable.extend(broken);
    }
}

/// Whether the last kernel of `opener`, continued by the segments walked as `continuing`, leaves
/// `reserve` bytes of its arena to results kept in the GB beside it, and `carved` more to results
/// carved out of it once `opener` is done: its own intermediates fit the rest of the first, those
/// of the continuing segments what both leave. (Without a reserve the opener's arena is its own
/// business: its needs count a convolution's result beside its epilogue's, which is never stored,
/// and can exceed it.)
fn leaves_room(opener: &Walk, reserve: usize, carved: usize, continuing: &[Walk]) -> bool {
    let last = opener.items.len() - 1;
    let room = (opener.arena_elements(last) * opener.word_bytes(last)).saturating_sub(reserve);
    let own = opener.needs.get(last).copied().unwrap_or(0);
    let theirs = continuing
        .iter()
        .map(|walk| walk.needs.first().copied().unwrap_or(0))
        .max()
        .unwrap_or(0);
    (reserve == 0 || room >= own) && room.saturating_sub(carved) >= theirs
}

/// Whether the first kernel of the segment walked as `walk` can continue the last kernel of the
/// segment before (walked as `before`): on as many clusters, neither of them typed (their LBs
/// differ), placing no tensor of its own in the GB (the buffers of both stay allocated until the
/// one launch), with at least the arena it would have had alone or what its intermediates need.
fn continues_kernel(before: &Walk, walk: &Walk) -> bool {
    let last = before.items.len() - 1;
    let room = before.arena_elements(last) * before.word_bytes(last);
    walk.count == before.count
        && before.arena_element.last().copied().flatten().is_some()
        && before.arena_element.last() == walk.arena_element.first()
        && walk.starts_without_gb_tensors()
        && room
            >= walk
                .needs
                .first()
                .copied()
                .unwrap_or(0)
                .min(walk.arena_elements(0) * walk.word_bytes(0))
}
