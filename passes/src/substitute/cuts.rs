//! The local search around the cuts of a split (MetaFlow §5.2: once the parts are searched and
//! stitched together, a local backtracking search around each cut finds the substitutions that
//! span it). Each match that spans parts seeds a window: its ops and the ops within
//! [`RADIUS`] data edges of them, so that a rewrite across the cut can be followed by the rewrites
//! it enables next to it. Windows that share an op are one window, and each is closed under the
//! paths between its ops, which makes it convex: it can be searched alone as a function of its
//! own ([`super::extract`]), whose candidates clone and price the window only.
//!
//! Ops without operands (weights, constants) join a window only when all their readers are in it:
//! one read across the graph would otherwise join windows far apart into one.

use super::matcher::find;
use super::rule::Rule;
use super::search::Region;
use crate::graph_view::FunctionView;
use petgraph::unionfind::UnionFind;
use petgraph::Direction;
use std::collections::BTreeMap;

/// Data edges, either way, between a window's match and the ops the window takes besides.
const RADIUS: usize = 2;

/// The windows of the local search across the cuts of `view` (its ops marked with their parts):
/// disjoint convex sets of op positions, each ascending, around every match of `rules` that spans
/// two parts or more.
pub fn windows(view: &FunctionView, rules: &[Rule]) -> Vec<Vec<usize>> {
    let count = view.ops.len();
    let mut sets = UnionFind::new(count);
    let mut taken = vec![false; count];
    for rule in rules {
        for found in find(rule, view, usize::MAX) {
            if !Region::AcrossParts.admits(&found, view) {
                continue;
            }
            let window = neighbourhood(view, &found.ops);
            let Some(&first) = window.first() else {
                continue;
            };
            for &op in &window {
                taken[op] = true;
                sets.union(first, op);
            }
        }
    }
    loop {
        let windows = groups(&mut sets, &taken);
        let mut grown = false;
        for window in &windows {
            for op in convex_hull(view, window) {
                grown |= !taken[op];
                taken[op] = true;
                sets.union(window[0], op);
            }
        }
        if !grown {
            return windows
                .into_iter()
                .map(|window| with_own_sources(view, window))
                .collect();
        }
    }
}

/// Whether op `op` of `view` reads nothing: a weight or a constant.
fn is_source(view: &FunctionView, op: usize) -> bool {
    view.ops[op].operands.is_empty()
}

/// `seeds` and the ops within [`RADIUS`] data edges of them, either way, the terminator and ops
/// without operands aside.
fn neighbourhood(view: &FunctionView, seeds: &[usize]) -> Vec<usize> {
    let mut reached: Vec<usize> = seeds
        .iter()
        .copied()
        .filter(|&op| !is_source(view, op))
        .collect();
    let mut frontier = reached.clone();
    for _ in 0..RADIUS {
        let mut next = Vec::new();
        for &op in &frontier {
            let node = FunctionView::node_index(op);
            for direction in [Direction::Incoming, Direction::Outgoing] {
                for neighbour in view.graph.neighbors_directed(node, direction) {
                    let neighbour = view.graph[neighbour];
                    let skipped = view.ops[neighbour].is_terminator() || is_source(view, neighbour);
                    if !skipped && !reached.contains(&neighbour) {
                        reached.push(neighbour);
                        next.push(neighbour);
                    }
                }
            }
        }
        frontier = next;
    }
    reached
}

/// The taken ops grouped by their set, each group ascending, groups by their first op.
fn groups(sets: &mut UnionFind<usize>, taken: &[bool]) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for op in (0..taken.len()).filter(|&op| taken[op]) {
        groups.entry(sets.find_mut(op)).or_default().push(op);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().collect();
    groups.sort_unstable_by_key(|group| group[0]);
    groups
}

/// The ops on paths between ops of `window` (ascending) that are not in it: those that depend on
/// one of its ops and that one of its ops depends on. Block order is topological, so only the
/// ops between its first and last can be.
fn convex_hull(view: &FunctionView, window: &[usize]) -> Vec<usize> {
    let (first, last) = (window[0], window[window.len() - 1]);
    let span = last - first + 1;
    let mut inside = vec![false; span];
    window.iter().for_each(|&op| inside[op - first] = true);
    let producers = |op: usize| {
        view.graph
            .neighbors_directed(FunctionView::node_index(op), Direction::Incoming)
            .map(|node| view.graph[node])
    };
    let mut descends = vec![false; span];
    for op in first..=last {
        descends[op - first] = producers(op).any(|producer| {
            producer >= first && (inside[producer - first] || descends[producer - first])
        });
    }
    let mut feeds = inside.clone();
    for op in (first..=last).rev() {
        if feeds[op - first] {
            for producer in producers(op).filter(|&producer| producer >= first) {
                feeds[producer - first] = true;
            }
        }
    }
    (first..=last)
        .filter(|&op| !inside[op - first] && descends[op - first] && feeds[op - first])
        .collect()
}

/// `window` (ascending) with the ops without operands that only its ops read.
fn with_own_sources(view: &FunctionView, mut window: Vec<usize>) -> Vec<usize> {
    let inside = |op: &usize| window.binary_search(op).is_ok();
    let own: Vec<usize> = window
        .iter()
        .flat_map(|&op| view.ops[op].operands.iter())
        .filter_map(|&value| view.producer(value))
        .filter(|&producer| is_source(view, producer))
        .filter(|&producer| {
            view.ops[producer]
                .results
                .iter()
                .all(|(value, _)| view.readers(*value).iter().all(inside))
        })
        .collect();
    window.extend(own);
    window.sort_unstable();
    window.dedup();
    window
}
