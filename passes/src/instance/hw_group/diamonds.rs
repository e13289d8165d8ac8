//! Diamond merges (Algorithm 2): one entry, one exit, at least two paths between them, and an
//! interior connected to nothing else; the interior and the exit merge under rule (ii).
//!
//! The exit of an entry's diamond is found by sweeping the groups below the entry in a
//! topological order, which reaches the exit once it has taken the interior and nothing else.
//! Exits are named by their first op and the diamond merged is the one whose exit has the
//! smallest name; the sweep ends when no exit past the one it reached can have a smaller name
//! ([`diamond`]), so that it takes about one diamond's groups however large the function is.

use super::{
    explain::{describe, factor_text},
    group_graph::GroupGraph,
    grouping::{factor, Grouping},
    merges::NO_SPLIT_FITS,
};
use crate::instance::split_info::Split;
use std::collections::{BTreeMap, BTreeSet};

impl Grouping<'_> {
    /// Diamond merges, each entry in turn, until none merges.
    pub(super) fn diamond_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for entry in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&entry) || self.graph.consumer_count(entry) < 2 {
                    continue;
                }
                let Some(members) = diamond(&self.graph, entry) else {
                    continue;
                };
                if self.merge_diamond(entry, &members) {
                    changed = true;
                    progress = true;
                }
            }
        }
        changed
    }

    /// Rule (ii) for the diamond from `entry` whose interior and exit (last) are `members`:
    /// merges them when it accepts, else records the refusal. Returns whether they merged.
    fn merge_diamond(&mut self, entry: usize, members: &[usize]) -> bool {
        let exit = *members.last().expect("a diamond has an exit");
        let attempt = self.attempt(2, members);
        if self.refused.contains(&attempt) {
            return false;
        }
        let merged = self.analysed_union(members);
        let largest = members
            .iter()
            .map(|g| factor(self.groups[g].best))
            .max()
            .unwrap_or(usize::MAX);
        let accepted =
            merged.best.is_some() && (!self.diamond_factor_rule || factor(merged.best) <= largest);
        self.remark(exit, || {
            let parts: Vec<String> = members
                .iter()
                .map(|g| format!("{} ({})", self.label(*g), describe(self.groups[g].best)))
                .collect();
            format!(
                "diamond merge from entry {} of {} -> {}: {}",
                self.label(entry),
                parts.join(" + "),
                describe(merged.best),
                diamond_verdict(merged.best, accepted, largest)
            )
        });
        if accepted {
            self.merge(members, merged);
        } else {
            self.refused.insert(attempt);
        }
        accepted
    }
}

/// The remark's verdict on a diamond whose merged split is `merged` and whose largest part's
/// factor is `largest`, `accepted` or not by rule (ii) and the cost check.
fn diamond_verdict(merged: Option<Split>, accepted: bool, largest: usize) -> String {
    if accepted && factor(merged) > largest {
        format!(
            "accepted: the merged factor {} exceeds the largest part's {}, which rule (ii) \
             refuses only for instances sized for the LB",
            factor_text(merged),
            largest
        )
    } else if accepted {
        "accepted by rule (ii)".to_owned()
    } else if merged.is_none() {
        NO_SPLIT_FITS.to_owned()
    } else {
        format!(
            "refused by rule (ii): the merged factor {} exceeds the largest part's {}",
            factor_text(merged),
            largest
        )
    }
}

/// The diamond from `entry` (a group with several consumers) in `graph`: its interior, in order,
/// then its exit; None when no group below the entry is the exit of a diamond from it. Of several
/// exits, the one with the smallest name (first op).
///
/// The groups below the entry are swept in a topological order (Kahn's algorithm from the entry:
/// a group is taken once all its producers are). A group is an exit exactly when, at some point of
/// the sweep, it is the only group reached and not yet taken, all its producers are taken, and it
/// has several of them; the interior is then every group taken but the entry. Every order of the
/// sweep passes through that point. A taken group that may not be inside a diamond
/// ([`GroupGraph::may_be_interior`]) would be inside the diamond of every later exit, so the sweep
/// ends there.
///
/// The exits form a chain, each below the one before. Following the first op of a later exit back
/// through its operands, each time to the first op of the group making one, stays between the two
/// exits and ends either in the earlier exit, whose name is then smaller, or in a root op
/// ([`Grouping::is_root`]) of a group below the earlier exit. So no exit after X has a name
/// smaller than both X's and the smallest root op below X ([`GroupGraph::root_floor_below`]): the
/// sweep ends at an exit once the smallest name found is below that floor.
fn diamond(graph: &GroupGraph, entry: usize) -> Option<Vec<usize>> {
    // The groups reached and not taken, each with how many of its producers are not taken yet.
    let mut waiting: BTreeMap<usize, usize> = BTreeMap::new();
    let mut ready = Vec::new();
    let mut interior = BTreeSet::new();
    let mut found: Option<Vec<usize>> = None;
    let mut taken = entry;
    loop {
        for consumer in graph.consumers(taken) {
            let left = waiting
                .entry(consumer)
                .or_insert_with(|| graph.producer_count(consumer));
            *left -= 1;
            if *left == 0 {
                ready.push(consumer);
            }
        }
        if let Some(exit) = sole_ready(&waiting).filter(|&exit| graph.producer_count(exit) >= 2) {
            let best = match found.as_deref() {
                Some([.., best]) if *best < exit => *best,
                _ => {
                    found = Some(interior.iter().copied().chain([exit]).collect());
                    exit
                }
            };
            if best < graph.root_floor_below(exit) {
                break;
            }
        }
        let Some(next) = ready.pop() else {
            break;
        };
        waiting.remove(&next);
        if !graph.may_be_interior(next) {
            break;
        }
        interior.insert(next);
        taken = next;
    }
    found
}

/// The group of `waiting` when it is the only one and has no producer left to take.
fn sole_ready(waiting: &BTreeMap<usize, usize>) -> Option<usize> {
    match (waiting.len(), waiting.first_key_value()) {
        (1, Some((&group, 0))) => Some(group),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Groups named by their first op: entry 10 feeds 11 and 12, which join at 13; 13 feeds 14
    /// and 15, which join at `second`; `second` feeds the returned 30.
    fn two_diamonds(second: usize, roots: &[(usize, usize)]) -> GroupGraph {
        let edges = [
            (10, 11),
            (10, 12),
            (11, 13),
            (12, 13),
            (13, 14),
            (13, 15),
            (14, second),
            (15, second),
            (second, 30),
        ];
        GroupGraph::of_edges(&edges, &[30], roots)
    }

    #[test]
    fn the_first_exit_is_taken_when_nothing_below_it_is_named_smaller() {
        let graph = two_diamonds(16, &[]);
        assert_eq!(diamond(&graph, 10), Some(vec![11, 12, 13]));
        assert_eq!(diamond(&graph, 13), Some(vec![14, 15, 16]));
    }

    #[test]
    fn a_later_exit_named_by_a_smaller_root_op_is_taken() {
        // The second exit's first op, 2, reads only weights: it names the group though the group
        // is below the first exit.
        let graph = two_diamonds(2, &[(2, 2)]);
        assert_eq!(diamond(&graph, 10), Some(vec![11, 12, 13, 14, 15, 2]));
        // A root op below the first exit that names no exit does not change the diamond.
        let graph = two_diamonds(16, &[(30, 5)]);
        assert_eq!(diamond(&graph, 10), Some(vec![11, 12, 13]));
    }

    #[test]
    fn no_exit_past_a_group_that_may_not_be_inside() {
        // 11 is also returned, so no diamond from 10 holds it.
        let edges = [(10, 11), (10, 12), (11, 13), (12, 13)];
        let graph = GroupGraph::of_edges(&edges, &[11, 13], &[]);
        assert_eq!(diamond(&graph, 10), None);
    }

    #[test]
    fn a_producer_outside_the_entry_s_descendants_closes_no_diamond() {
        // 13 also reads 5, which the entry does not reach.
        let edges = [(10, 11), (10, 12), (11, 13), (12, 13), (5, 13), (13, 30)];
        let graph = GroupGraph::of_edges(&edges, &[30], &[]);
        assert_eq!(diamond(&graph, 10), None);
    }
}
