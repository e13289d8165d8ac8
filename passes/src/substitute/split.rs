//! MetaFlow's flow-based recursive split (§5.2): a graph too large to search whole is cut into
//! parts searched one by one, then a local search tries the rewrites that span the cuts
//! ([`super::cuts`]). A cut should separate as few substitution opportunities as possible, so
//! each op's capacity is the number of matches that touch both an input and an output edge of it
//! (cutting there loses them), and the cut is a minimum vertex cut, found as a maximum flow
//! (Dinic's algorithm) between the first and the last third of the ops in block order,
//! recursively until every part has at most the threshold's ops.
//!
//! Parts are marked on the ops with a discardable `substitute.part` attribute while the search
//! runs (new ops inherit their match's part), so that the search keeps to one part at a time.

use super::matcher::find;
use super::rule::{PatternValue, Rule};
use crate::graph_view::FunctionView;
use crate::ir::{i64_attribute, string_ref, Op};
use mlir_sys::*;
use petgraph::algo::dinics;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Bfs, EdgeRef, Walker};
use turbine_dialects::ops::graph;

/// The attribute that marks an op's part during a split search.
pub const PART_ATTRIBUTE: &str = "substitute.part";

/// Matches counted per rule for the capacities at most.
const CAPACITY_MATCHES: usize = 1024;

/// What a cut costs beyond the matches it loses: one per cut op, so that among cuts losing the
/// same matches the smallest wins.
const WEIGHT: u64 = 1024;

/// Flow through data edges and the source and sink: never the bottleneck.
const UNBOUNDED: u64 = u64::MAX / 4;

/// Ops that count towards a part's size (weights and constants are inputs, not work).
pub fn counts(view: &FunctionView, op: usize) -> bool {
    let node = &view.ops[op];
    !matches!(
        node.graph_kind(),
        Some(graph::Kind::Weight | graph::Kind::Constant)
    ) && !node.is_terminator()
}

/// Each op's capacity: the matches of `rules` in which it has a matched producer and a matched
/// consumer.
pub fn capacities(view: &FunctionView, rules: &[Rule]) -> Vec<u64> {
    let mut capacity = vec![0u64; view.ops.len()];
    for rule in rules {
        for found in find(rule, view, CAPACITY_MATCHES) {
            for (index, pattern_op) in rule.source.ops.iter().enumerate() {
                let has_input = pattern_op
                    .operands
                    .iter()
                    .any(|operand| matches!(operand, PatternValue::Result(..)));
                let has_output = rule.source.ops.iter().any(|other| {
                    other.operands.iter().any(
                        |operand| matches!(operand, PatternValue::Result(op, _) if *op == index),
                    )
                });
                if has_input && has_output {
                    capacity[found.ops[index]] += 1;
                }
            }
        }
    }
    capacity
}

/// Cuts `ops` (indices of `view`'s ops, in block order) recursively into parts of at most
/// `threshold` counted ops; returns the parts and the capacity of each cut made.
pub fn split(
    view: &FunctionView,
    ops: Vec<usize>,
    capacity: &[u64],
    threshold: usize,
) -> (Vec<Vec<usize>>, Vec<u64>) {
    let size = ops.iter().filter(|&&op| counts(view, op)).count();
    if size <= threshold.max(1) || ops.len() < 3 {
        return (vec![ops], Vec::new());
    }
    let (first, second, cut) = bisect(view, &ops, capacity);
    if first.is_empty() || second.is_empty() {
        return (vec![ops], Vec::new());
    }
    let (mut parts, mut cuts) = split(view, first, capacity, threshold);
    let (more, more_cuts) = split(view, second, capacity, threshold);
    parts.extend(more);
    cuts.push(cut);
    cuts.extend(more_cuts);
    (parts, cuts)
}

/// A minimum vertex cut of `ops` between its first and last third: the ops on the source side of
/// the cut (the cut ops with them), the others, and the cut's capacity in matches.
fn bisect(view: &FunctionView, ops: &[usize], capacity: &[u64]) -> (Vec<usize>, Vec<usize>, u64) {
    let mut network: DiGraph<(), u64> = DiGraph::new();
    let (source, sink) = (network.add_node(()), network.add_node(()));
    let nodes: Vec<(NodeIndex, NodeIndex)> = ops
        .iter()
        .map(|_| (network.add_node(()), network.add_node(())))
        .collect();
    let position = |op: usize| ops.binary_search(&op).ok();
    for (index, &op) in ops.iter().enumerate() {
        let (inward, outward) = nodes[index];
        network.add_edge(inward, outward, capacity[op] * WEIGHT + 1);
        for edge in view.graph.edges(FunctionView::node_index(op)) {
            if let Some(reader) = position(edge.target().index()) {
                network.add_edge(outward, nodes[reader].0, UNBOUNDED);
            }
        }
        if index < ops.len() / 3 {
            network.add_edge(source, inward, UNBOUNDED);
        } else if index >= ops.len() - ops.len() / 3 {
            network.add_edge(outward, sink, UNBOUNDED);
        }
    }
    let (flow, flows) = dinics(&network, source, sink);
    // The source side of the minimum cut: what the residual network still reaches.
    let mut residual: DiGraph<(), ()> =
        DiGraph::with_capacity(network.node_count(), network.edge_count() * 2);
    for _ in 0..network.node_count() {
        residual.add_node(());
    }
    for edge in network.edge_references() {
        let used = flows[edge.id().index()];
        if used < *edge.weight() {
            residual.add_edge(edge.source(), edge.target(), ());
        }
        if used > 0 {
            residual.add_edge(edge.target(), edge.source(), ());
        }
    }
    let reached: Vec<bool> = {
        let mut reached = vec![false; residual.node_count()];
        for node in Bfs::new(&residual, source).iter(&residual) {
            reached[node.index()] = true;
        }
        reached
    };
    let (first, second): (Vec<usize>, Vec<usize>) = ops
        .iter()
        .enumerate()
        .map(|(index, &op)| (op, reached[nodes[index].0.index()]))
        .fold(
            (Vec::new(), Vec::new()),
            |(mut first, mut second), (op, source_side)| {
                if source_side {
                    first.push(op)
                } else {
                    second.push(op)
                }
                (first, second)
            },
        );
    (first, second, flow / WEIGHT)
}

/// Marks each op of `view` with its part.
pub fn mark(view: &FunctionView, parts: &[Vec<usize>]) {
    for (part, ops) in parts.iter().enumerate() {
        for &op in ops {
            set_part(view.ops[op].op, part as i64);
        }
    }
}

/// Marks `op` as part of `part`.
pub fn set_part(op: Op, part: i64) {
    // SAFETY: a live op; MLIR copies the attribute into the op.
    unsafe {
        let context = mlirOperationGetContext(op.raw());
        mlirOperationSetDiscardableAttributeByName(
            op.raw(),
            string_ref(PART_ATTRIBUTE),
            i64_attribute(context, part),
        );
    }
}

/// The part of `op`, None when it is not marked.
pub fn part_of(op: Op) -> Option<i64> {
    // SAFETY: a live op; the kind is checked before the value is read.
    unsafe {
        let attribute =
            mlirOperationGetDiscardableAttributeByName(op.raw(), string_ref(PART_ATTRIBUTE));
        (!attribute.ptr.is_null() && mlirAttributeIsAInteger(attribute))
            .then(|| mlirIntegerAttrGetValueInt(attribute))
    }
}

/// Removes the marks of every op of `function`.
pub fn unmark(function: Op) {
    for op in function.body_ops() {
        // SAFETY: a live op.
        unsafe {
            mlirOperationRemoveDiscardableAttributeByName(op.raw(), string_ref(PART_ATTRIBUTE))
        };
    }
}
