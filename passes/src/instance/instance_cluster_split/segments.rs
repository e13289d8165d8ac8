//! The function as a sequence of `instance.clusters` segments: each layer that takes the channel
//! cut ([`super::channel_cut`]) in one of its own, the ops between them in segments cut like the
//! whole function. Values crossing from one segment to the next are whole tensors outside the
//! segments (the lowering keeps them in DDR); weights read by one batch segment only live in it,
//! every other weight outside, an operand its segment cuts or reads whole.

use super::channel_cut::ChannelLayer;
use super::clusters::build_clusters;
use super::cut::Cut;
use super::partition::partition;
use crate::graph_view::FunctionView;
use crate::instance::wrap::wrap_ops;
use crate::ir::{i64_array, i64_attribute, InsertionPoint, Op, Val};
use crate::slicing::subsampling::read_subsampled;
use mlir_sys::*;
use petgraph::algo::is_cyclic_directed;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use turbine_dialects::ops::{graph, instance};

/// A run of ops in the new order: a channel layer (its index) or ops cut like the function.
struct Segment {
    ops: Vec<usize>,
    channel: Option<usize>,
    /// Ops made for the segment, each after the op at a position of `ops`: the subsampling of a
    /// later channel layer's input after the input's producer.
    made: Vec<(usize, Op)>,
}

/// Whether the op at `position` is a weight or a constant.
fn is_parameter(view: &FunctionView, position: usize) -> bool {
    matches!(
        view.ops[position].graph_kind(),
        Some(graph::Kind::Weight | graph::Kind::Constant)
    )
}

/// The dependence graph of the ops (parameters and the terminator left out) with each layer of
/// `layers` contracted into one node: node `position` for an op outside them, node `ops + k`
/// for layer k.
fn contracted(view: &FunctionView, layers: &[&ChannelLayer]) -> DiGraph<(), ()> {
    let ops = view.ops.len();
    let mut unit: Vec<usize> = (0..ops).collect();
    for (k, layer) in layers.iter().enumerate() {
        for &member in &layer.members {
            unit[member] = ops + k;
        }
    }
    let mut graph = DiGraph::new();
    for _ in 0..ops + layers.len() {
        graph.add_node(());
    }
    for edge in view.graph.edge_references() {
        let (from, to) = (view.graph[edge.source()], view.graph[edge.target()]);
        if is_parameter(view, from) || view.ops[to].is_terminator() || unit[from] == unit[to] {
            continue;
        }
        graph.update_edge(NodeIndex::new(unit[from]), NodeIndex::new(unit[to]), ());
    }
    graph
}

/// The layers that can each be made one run of consecutive ops (a layer whose contraction
/// would close a cycle — an op outside it both reads it and feeds it — is dropped), and the
/// ops in an order that makes them so, the original order kept wherever it can be.
fn order(view: &FunctionView, candidates: &[ChannelLayer]) -> (Vec<usize>, Vec<Segment>) {
    let mut kept: Vec<&ChannelLayer> = Vec::new();
    let mut indices = Vec::new();
    for (index, layer) in candidates.iter().enumerate() {
        kept.push(layer);
        if is_cyclic_directed(&contracted(view, &kept)) {
            kept.pop();
        } else {
            indices.push(index);
        }
    }
    let graph = contracted(view, &kept);
    let ops = view.ops.len();
    // Ops outside the layers go first whenever they are ready, so that each batch segment
    // computes all it can before the next channel layer and the fewest values cross it; then
    // the original order.
    let first_op = |node: usize| {
        if node < ops {
            (0, node)
        } else {
            (1, kept[node - ops].members[0])
        }
    };
    let present = |node: usize| {
        node >= ops
            || !(is_parameter(view, node)
                || view.ops[node].is_terminator()
                || kept.iter().any(|l| l.members.contains(&node)))
    };
    // Kahn's algorithm with a priority among the ready nodes (petgraph's `Topo` takes them in no
    // chosen order).
    let mut waiting: Vec<usize> = graph
        .node_indices()
        .map(|node| graph.neighbors_directed(node, petgraph::Incoming).count())
        .collect();
    let mut ready: BinaryHeap<Reverse<((usize, usize), usize)>> = (0..graph.node_count())
        .filter(|&node| present(node) && waiting[node] == 0)
        .map(|node| Reverse((first_op(node), node)))
        .collect();
    let mut segments: Vec<Segment> = Vec::new();
    while let Some(Reverse((_, node))) = ready.pop() {
        for next in graph.neighbors_directed(NodeIndex::new(node), petgraph::Outgoing) {
            waiting[next.index()] -= 1;
            if waiting[next.index()] == 0 && present(next.index()) {
                ready.push(Reverse((first_op(next.index()), next.index())));
            }
        }
        if node >= ops {
            segments.push(Segment {
                ops: kept[node - ops].members.clone(),
                channel: Some(indices[node - ops]),
                made: Vec::new(),
            });
        } else if let Some(Segment {
            ops, channel: None, ..
        }) = segments.last_mut()
        {
            ops.push(node);
        } else {
            segments.push(Segment {
                ops: vec![node],
                channel: None,
                made: Vec::new(),
            });
        }
    }
    (indices, segments)
}

/// Makes the wrapped segment `op` one cluster's: count 1, every operand and result whole.
fn on_one_cluster(op: Op) {
    // SAFETY: the op is alive; the attributes are built in its context.
    unsafe {
        let context = mlirOperationGetContext(op.raw());
        let whole = |count: isize| i64_array(context, &vec![-1; count as usize]);
        op.set_attribute("count", i64_attribute(context, 1));
        op.set_attribute("input_dims", whole(mlirOperationGetNumOperands(op.raw())));
        op.set_attribute("result_dims", whole(mlirOperationGetNumResults(op.raw())));
    }
}

/// What [`segment`] made.
pub(super) struct Segmented {
    /// The indices of the layers given a segment, each with whether it reads its input
    /// subsampled.
    pub layers: Vec<(usize, bool)>,
    /// The segments between channel layers given a cut of their own (the function having
    /// none): the location of each one's first op, the dimension of its first result cut, and
    /// the clusters it is cut over.
    pub own_cuts: Vec<(MlirLocation, usize, usize)>,
}

/// Rewrites the body of `clone` (a clone of the function `view` read) into segments: the
/// channel layers among `candidates` that can be made consecutive each in its own, cut along
/// its `dim` over `count` clusters, the ops between them in segments cut along dimension 0 of
/// their first result over `batch_count` clusters. When that is 1 (no dimension of the
/// function's result separates), each segment between channel layers takes the cut of its own
/// first result that separates it over the most clusters ([`own_cut`]), else runs whole on one
/// cluster. Returns what it made, or why a segment does not separate.
pub(super) fn segment(
    clone: Op,
    view: &FunctionView,
    candidates: &[ChannelLayer],
    batch_count: usize,
    count: usize,
) -> Result<Segmented, String> {
    let view = view.of_clone(clone);
    results_leave_alone(&view)?;
    let (layers, mut segments) = order(&view, candidates);
    let terminator = view.ops.last().expect("a body ends in its terminator").op;
    // SAFETY: moving live ops of the clone's block before its terminator, in the new order;
    // parameters stay first.
    for segment in &segments {
        for &position in &segment.ops {
            unsafe { mlirOperationMoveBefore(view.ops[position].op.raw(), terminator.raw()) };
        }
    }
    let subsampled = subsample_inputs(&view, candidates, &mut segments);
    let mut wrapped = Vec::new();
    let mut own_cuts = Vec::new();
    for (index, segment) in segments.iter().enumerate() {
        let members = segment_members(&view, segment);
        let op = wrap_ops(terminator, &members, instance::Kind::Clusters, &[]);
        match segment.channel {
            Some(k) => wrapped.push((op, candidates[k].dim, count, index)),
            None if batch_count > 1 => wrapped.push((op, 0, batch_count, index)),
            None => match own_cut(&view, op, count) {
                Some((dim, shares)) => {
                    let first = view.ops[segment.ops[0]].op;
                    own_cuts.push((first.location(), dim, shares));
                    wrapped.push((op, dim, shares, index));
                }
                None => on_one_cluster(op),
            },
        }
    }
    for (op, dim, count, index) in wrapped {
        share_segment(&view, op, dim, count, index)?;
    }
    Ok(Segmented {
        layers: layers
            .into_iter()
            .map(|k| (k, subsampled.contains(&candidates[k].members[0])))
            .collect(),
        own_cuts,
    })
}

/// The cut of the segment `op` between channel layers of a function no dimension of which
/// separates: the dimension of the segment's first result that separates it over the most of
/// `count` clusters, the outer one on a tie, as [`Cut`] chooses the function's (a
/// sequence-first transformer at batch 1 cuts its row-wise segments along the rows of its
/// flattened products, while its attention runs whole); None when none does.
fn own_cut(view: &FunctionView, op: Op, count: usize) -> Option<(usize, usize)> {
    let body = FunctionView::read_body(op, view.name.clone()).ok()?;
    Cut::choose(&body, count)
        .chosen
        .map(|(dim, partition)| (dim, partition.count))
}

/// Checks that every result can leave a segment as its own value (the lowering writes each
/// result from the segment computing it): an error when the function returns an argument, a
/// weight or one value twice.
fn results_leave_alone(view: &FunctionView) -> Result<(), String> {
    let returned = view.returned();
    let computed = |value: &usize| {
        view.producer(*value)
            .is_some_and(|position| !is_parameter(view, position))
    };
    if returned
        .iter()
        .enumerate()
        .any(|(position, value)| !computed(value) || returned[..position].contains(value))
    {
        return Err("the function returns an argument, a weight or one value twice".into());
    }
    Ok(())
}

/// Builds the subsampled inputs of the channel segments: a strided 1×1 convolution cut along its
/// channels reads its input subsampled (`ChannelLayer::subsample`) by the batch segment that
/// computes the input, where the slice follows the input's producer. Returns the anchors that
/// read their input so.
fn subsample_inputs(
    view: &FunctionView,
    candidates: &[ChannelLayer],
    segments: &mut [Segment],
) -> Vec<usize> {
    let mut subsampled = Vec::new();
    for index in 0..segments.len() {
        let anchor = segments[index].ops[0];
        let steps = segments[index]
            .channel
            .and_then(|k| candidates[k].subsample);
        let producer = view.producer(view.ops[anchor].operands[0]);
        let home = producer.and_then(|producer| {
            segments[..index]
                .iter()
                .position(|segment| segment.channel.is_none() && segment.ops.contains(&producer))
        });
        let (Some(steps), Some(producer), Some(home)) = (steps, producer, home) else {
            continue;
        };
        // SAFETY: the producer is a live op of the clone's block, followed by its terminator at
        // least, a live op of the same block.
        let next =
            unsafe { Op::from_raw(mlirOperationGetNextInBlock(view.ops[producer].op.raw())) };
        let slice = read_subsampled(view.ops[anchor].op, steps, InsertionPoint::Before(next));
        segments[home].made.push((producer, slice));
        subsampled.push(anchor);
    }
    subsampled
}

/// The ops `segment` wraps, in order: for a batch segment the weights read by its ops only,
/// then its ops, each followed by the ops made after it.
fn segment_members(view: &FunctionView, segment: &Segment) -> Vec<Op> {
    let mut members: Vec<Op> = Vec::new();
    if segment.channel.is_none() {
        // Weights read by this segment's ops only.
        for position in 0..view.ops.len() {
            let readers = view.ops[position]
                .results
                .iter()
                .flat_map(|(value, _)| view.readers(*value).iter());
            let mut readers = readers.peekable();
            if is_parameter(view, position)
                && readers.peek().is_some()
                && readers.all(|reader| segment.ops.contains(reader))
            {
                members.push(view.ops[position].op);
            }
        }
    }
    for &position in &segment.ops {
        members.push(view.ops[position].op);
        members.extend(
            segment
                .made
                .iter()
                .filter(|(after, _)| *after == position)
                .map(|(_, op)| *op),
        );
    }
    members
}

/// Replaces the wrapped segment `op` (number `index`) by its clusters, cut along `dim` of its
/// first result over `count` clusters; an error says why the segment does not separate.
fn share_segment(
    view: &FunctionView,
    op: Op,
    dim: usize,
    count: usize,
    index: usize,
) -> Result<(), String> {
    let body = FunctionView::read_body(op, view.name.clone()).map_err(|error| error.message)?;
    let shares = partition(&body, dim, count)
        .map_err(|refusal| format!("segment {index}: {}", refusal.reason))?;
    // SAFETY: reading the operands of a live op.
    let arguments: Vec<Val> = (0..unsafe { mlirOperationGetNumOperands(op.raw()) } as usize)
        .map(|position| op.operand(position))
        .collect();
    let clusters = build_clusters(op, &arguments, &body, &shares, op.location());
    // SAFETY: both ops are alive and have the same result types.
    for position in 0..unsafe { mlirOperationGetNumResults(op.raw()) } as usize {
        op.result(position)
            .replace_all_uses_with(clusters.result(position));
    }
    // SAFETY: the segment op's results feed nothing now (their uses read the clusters'), values
    // inside it are read only inside (`wrap_ops` made them so), and neither it nor its members are
    // used after: `body` ends here and the caller reads only `view`'s name.
    unsafe { op.erase() };
    Ok(())
}
