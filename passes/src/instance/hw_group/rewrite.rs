//! The IR side of `hw-group`: each final subgraph becomes an `instance.group` region, in a
//! topological order of the groups, named `g0`, `g1`, ... in that order.

use super::grouping::Group;
use crate::{graph_view::FunctionView, instance::wrap::group_ops, ir::Op};
use petgraph::{graph::DiGraph, graph::NodeIndex, Direction};
use std::{cmp::Reverse, collections::BinaryHeap};

/// Rebuilds the function body: one `instance.group` per group, in [`order`], before the
/// terminator.
pub(super) fn rewrite(program: &FunctionView, groups: &[Group]) {
    let ops = &program.ops;
    let terminator = ops.last().expect("a body ends in its terminator").op;
    for (name_index, position) in order(program, groups).into_iter().enumerate() {
        let group = &groups[position];
        let members: Vec<Op> = group.ops.iter().map(|&op| ops[op].op).collect();
        group_ops(
            terminator,
            &members,
            &format!("g{name_index}"),
            &group.info,
            group.best,
        );
    }
}

/// The positions of `groups` (sorted by first op) in a topological order of the data flow
/// between them, taking the group with the smallest first op among those whose producers are
/// placed: groups keep the order of their ops in the input as far as the data flow allows, so
/// that their names are stable and read in source order.
fn order(program: &FunctionView, groups: &[Group]) -> Vec<usize> {
    let mut owner = vec![None; program.ops.len()];
    for (position, group) in groups.iter().enumerate() {
        for &op in &group.ops {
            owner[op] = Some(position);
        }
    }
    // Node i is groups[i]; an edge per pair of groups with data flowing between them.
    let mut flow: DiGraph<(), ()> = DiGraph::with_capacity(groups.len(), 0);
    for _ in groups {
        flow.add_node(());
    }
    for edge in program.graph.edge_indices() {
        let (from, to) = program.graph.edge_endpoints(edge).expect("the edge exists");
        if let (Some(from), Some(to)) = (owner[program.graph[from]], owner[program.graph[to]]) {
            if from != to {
                flow.update_edge(NodeIndex::new(from), NodeIndex::new(to), ());
            }
        }
    }
    // Kahn's algorithm with a min-heap of the ready groups.
    let mut waiting: Vec<usize> = flow
        .node_indices()
        .map(|node| flow.neighbors_directed(node, Direction::Incoming).count())
        .collect();
    let mut ready: BinaryHeap<Reverse<usize>> = (0..groups.len())
        .filter(|&position| waiting[position] == 0)
        .map(Reverse)
        .collect();
    let mut order = Vec::with_capacity(groups.len());
    while let Some(Reverse(position)) = ready.pop() {
        order.push(position);
        for next in flow.neighbors_directed(NodeIndex::new(position), Direction::Outgoing) {
            waiting[next.index()] -= 1;
            if waiting[next.index()] == 0 {
                ready.push(Reverse(next.index()));
            }
        }
    }
    assert_eq!(
        order.len(),
        groups.len(),
        "merges keep the group graph acyclic"
    );
    order
}
