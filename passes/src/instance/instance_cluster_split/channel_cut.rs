//! Which layers leave the function's cut for a cut along their output channels.
//!
//! With the batch cut of GraphTurbo §5.1 every cluster reads every weight for its share of the
//! images. At a small batch per cluster a layer whose filter outweighs its share of the work
//! waits on the cluster's DDR port: ResNet-50's classifier at batch 8 reads 8 MB of weights for
//! two images per cluster, and at batch 1, where nothing separates and one cluster runs the whole
//! network, stage 4 reads its 9.4 MB 3x3 filters through one port while three clusters idle. Cut
//! along its output channels instead, each cluster reads a share of the filter and the whole
//! input, and writes a share of the output. The clusters share nothing but DDR, so such a layer
//! runs in a segment of its own whose input and output go through DDR, between segments with the
//! function's cut: its neighbours hand over through DDR what they kept in their GB, its kernel
//! copies its input before computing, and the kernel boundaries cost launches and the weight
//! prefetch across them. Consecutive layers cut along their channels hand over to each other
//! through DDR directly (ResNet-50's stage 4 at batch 8: each of its convolutions reads 1 to
//! 9.4 MB of filter for two 7×7 images per cluster). A run of layers takes the channel cut only
//! when the estimate says it stays under a fraction of the other (`channel-cut-gain`).

use crate::graph_view::{FunctionView, Node, ValueId};
use crate::instance::split_info::work;
use crate::slicing::subsampling::subsampling_steps;
use crate::target::Machine;
use turbine_dialects::ops::graph;

/// A layer cut along its output channels: its anchor, the element-wise ops fused after it and a
/// global pooling (flattened or not) after those.
#[derive(Debug, Clone)]
pub(super) struct ChannelLayer {
    /// Op positions in the function view, the anchor first, in order.
    pub members: Vec<usize>,
    /// The dimension of the last member's result that the clusters share.
    pub dim: usize,
    /// Estimated cycles of one cluster for the layer with the batch cut and with the channel cut.
    pub batch_cycles: f64,
    pub channel_cycles: f64,
    /// The row and column steps of the anchor's input when it is a strided 1×1 convolution whose
    /// input comes from the segment before, cut along the batch: that segment subsamples it, and
    /// the layer reads a copy a stride's square smaller (ResNet-50's stage-4 projection reads
    /// 1.6 MB instead of 6.4 MB at batch 8).
    pub subsample: Option<[usize; 2]>,
}

/// Whether `value` is a weight or a constant of the function.
fn is_parameter(view: &FunctionView, value: ValueId) -> bool {
    view.producer(value).is_some_and(|index| {
        matches!(
            view.ops[index].graph_kind(),
            Some(graph::Kind::Weight | graph::Kind::Constant)
        )
    })
}

/// The result dimension of `node` that its output channels take, when `node` is an anchor whose
/// filter the cut can divide: a convolution of one group or a product by a 2-D weight (a
/// `graph.batch_matmul` broadcasting it over the batch, as a transformer's projections do).
fn channel_dim(view: &FunctionView, node: &Node) -> Option<usize> {
    let (_, result) = node.results.first()?;
    let weight = *node.operands.get(1)?;
    if !is_parameter(view, weight) {
        return None;
    }
    match node.graph_kind()? {
        graph::Kind::Conv2d if node.int_opt("groups").unwrap_or(1) == 1 => Some(1),
        graph::Kind::Gemm if !node.flag("trans_a") => Some(1),
        graph::Kind::Matmul | graph::Kind::BatchMatmul if view.type_of(weight).shape.len() == 2 => {
            result.shape.len().checked_sub(1)
        }
        _ => None,
    }
}

/// The element-wise ops that follow `anchor` alone (each the only reader of the one before, with
/// its shape), as the lowering fuses an epilogue.
fn epilogue(view: &FunctionView, anchor: usize) -> Vec<usize> {
    let mut members = vec![anchor];
    loop {
        let last = &view.ops[*members.last().expect("the anchor")];
        let [(value, r#type)] = last.results.as_slice() else {
            break;
        };
        let [reader] = view.readers(*value) else {
            break;
        };
        let node = &view.ops[*reader];
        if !node.elementwise
            || node.is_terminator()
            || node.results.len() != 1
            || node.results[0].1.shape != r#type.shape
        {
            break;
        }
        members.push(*reader);
    }
    // A global pooling after it reduces each channel on its own (then flattened to [N, C]): the
    // cluster that computes a share of the channels pools it, and hands over the pooled share.
    for kind in [graph::Kind::GlobalAvgPool, graph::Kind::Flatten] {
        let last = &view.ops[*members.last().expect("the anchor")];
        let [(value, r#type)] = last.results.as_slice() else {
            break;
        };
        let [reader] = view.readers(*value) else {
            break;
        };
        let node = &view.ops[*reader];
        let keeps_channels =
            node.results.len() == 1 && node.results[0].1.shape.get(..2) == r#type.shape.get(..2);
        if !node.is(kind) || !keeps_channels {
            break;
        }
        members.push(*reader);
    }
    members
}

/// A layer the channel cut can divide, with the terms of its estimates (cycles of one cluster).
struct Candidate {
    layer: ChannelLayer,
    /// Cut along its channels: the whole input copied to the GB first, then the layer's work and
    /// its share of the weights, output and other operands over the DDR port, overlapped (the
    /// tiles stream the filter from DDR under the compute).
    channel: f64,
    /// Before it, when the layer before is cut along the batch: that segment writes the input
    /// to DDR whole.
    enter: f64,
    /// With the batch cut, how much of its weights' copy overlaps its work (the smaller of
    /// the two): what it loses when it ends a batch segment just before a run ([`entry`]).
    overlap: f64,
    /// When `channel` reads the input subsampled (`ChannelLayer::subsample`): the op producing
    /// the input, and `channel` and `enter` with the input read whole, which the layer pays when
    /// that op's layer takes the channel cut too (a channel segment hands over the whole input).
    whole_input: Option<(usize, f64, f64)>,
    /// After it, when the layer after is cut along the batch: that segment reads the output back
    /// from DDR and the weights of its first layer lose the DDR port's idle time under this
    /// layer (the batch cut copies them while this layer computes, GraphTurbo §4.4); one launch
    /// more, the batch segments on both sides being split in two.
    leave: f64,
}

/// The layers of `view` (cut along the batch over `batch_count` clusters, 1 when it runs on one)
/// that take the cut along their output channels over `count` clusters: runs of layers with
/// nothing else between them in the function's order (their channel segments hand over to each
/// other through DDR, with no segment cut along the batch between), each under `gain` of its
/// batch cut's estimate, chosen by dynamic programming over the layers in order for the lowest
/// total.
pub(super) fn weight_bound_layers(
    view: &FunctionView,
    batch_count: usize,
    count: usize,
    machine: &Machine,
    gain: f64,
) -> Vec<ChannelLayer> {
    let mut candidates = candidates(view, batch_count, count, machine);
    loop {
        let chosen = choose(view, &candidates, machine, gain);
        // A layer priced with its input subsampled by a batch segment, whose input's producer
        // another run takes (no batch segment computes it then), is priced whole and the choice
        // made again; each round prices one layer more whole, so the rounds end.
        let cut: Vec<usize> = chosen
            .iter()
            .flat_map(|layer| layer.members.iter().copied())
            .collect();
        let mut repriced = false;
        for candidate in &mut candidates {
            let taken = chosen.iter().any(|layer| {
                layer.members[0] == candidate.layer.members[0] && layer.subsample.is_some()
            });
            if let (true, Some((producer, whole, enter))) = (taken, candidate.whole_input) {
                if cut.contains(&producer) {
                    candidate.channel = whole;
                    candidate.enter = enter;
                    candidate.whole_input = None;
                    candidate.layer.subsample = None;
                    repriced = true;
                }
            }
        }
        if !repriced {
            return chosen;
        }
    }
}

/// The layers among `candidates` that take the channel cut: see [`weight_bound_layers`].
fn choose(
    view: &FunctionView,
    candidates: &[Candidate],
    machine: &Machine,
    gain: f64,
) -> Vec<ChannelLayer> {
    // best[i]: the lowest total of the first i candidates, and the first candidate of the run
    // ending at the i-th, if one does. A run is a choice when its estimate is under `gain` of its
    // batch cut's; above 1 the gain also divides the runs' estimates in the total, so that a
    // gain far above 1 takes every layer (under 1 it is a margin for what the estimate leaves
    // out, and dividing by it there would take runs that lose).
    let discount = gain.max(1.0);
    let mut owner: Vec<Option<usize>> = vec![None; view.ops.len()];
    for (index, candidate) in candidates.iter().enumerate() {
        for &member in &candidate.layer.members {
            owner[member] = Some(index);
        }
    }
    let mut best: Vec<(f64, Option<usize>)> = vec![(0.0, None)];
    for end in 0..candidates.len() {
        let mut here = (best[end].0 + candidates[end].layer.batch_cycles, None);
        let (mut channel, mut batch) = (0.0, 0.0);
        for first in (end.saturating_sub(LONGEST_RUN - 1)..=end).rev() {
            channel += candidates[first].channel + machine.kernel_launch;
            channel += (first..=end)
                .map(|later| whole_input_extra(candidates, &owner, later, first..=first))
                .sum::<f64>();
            batch += candidates[first].layer.batch_cycles;
            // A gap may close further back (an epilogue that a later anchor's layer skips).
            if !contiguous(view, candidates, &owner, first..=end) {
                continue;
            }
            let run = channel + entry(view, candidates, &owner, first) + candidates[end].leave;
            if run < gain * batch && best[first].0 + run / discount < here.0 {
                here = (best[first].0 + run / discount, Some(first));
            }
        }
        best.push(here);
    }
    let mut chosen = Vec::new();
    let mut end = candidates.len();
    while end > 0 {
        match best[end].1 {
            Some(first) => {
                for (index, candidate) in candidates.iter().enumerate().take(end).skip(first) {
                    let mut layer = candidate.layer.clone();
                    let extra = whole_input_extra(candidates, &owner, index, first..=end - 1);
                    if extra > 0.0 {
                        layer.subsample = None;
                    }
                    layer.channel_cycles = candidate.channel
                        + extra
                        + machine.kernel_launch
                        + if index == first {
                            entry(view, candidates, &owner, first)
                        } else {
                            0.0
                        }
                        + if index + 1 == end {
                            candidate.leave
                        } else {
                            0.0
                        };
                    chosen.push(layer);
                }
                end = first;
            }
            None => end -= 1,
        }
    }
    chosen.reverse();
    chosen
}

/// What candidate `index` pays over its estimate for reading its input whole, because the layer
/// producing it is one of the candidates `run`: a subsampled input is made by a batch segment
/// only.
fn whole_input_extra(
    candidates: &[Candidate],
    owner: &[Option<usize>],
    index: usize,
    run: std::ops::RangeInclusive<usize>,
) -> f64 {
    match candidates[index].whole_input {
        Some((producer, whole, _))
            if owner[producer].is_some_and(|producer| run.contains(&producer)) =>
        {
            whole - candidates[index].channel
        }
        _ => 0.0,
    }
}

/// What a run starting at candidate `first` pays at its start: the hand-over of its input, and
/// the overlap lost by a layer with nothing between it and the run, which then ends the batch
/// segment before it in a kernel of its own (its result leaves the segment, so it groups with
/// nothing after it), where its weights are copied before it computes instead of under the layer
/// before (such a layer runs far slower than inside a kernel).
fn entry(
    view: &FunctionView,
    candidates: &[Candidate],
    owner: &[Option<usize>],
    first: usize,
) -> f64 {
    let orphaned = first > 0 && contiguous(view, candidates, owner, first - 1..=first);
    candidates[first].enter
        + if orphaned {
            candidates[first - 1].overlap
        } else {
            0.0
        }
}

/// The most layers a run holds: the dynamic program tries every run up to this length ending at
/// each layer (ResNet-50's stage 4 is 10 layers; a deep chain of products stays linear).
const LONGEST_RUN: usize = 64;

/// Whether nothing but parameters lies between the first and the last op of the candidates
/// `run` (`owner` gives each op's candidate) in the function's order but their members, so that
/// a run of channel segments holds them without a segment cut along the batch between (a ResNet
/// block's projection sits between its third convolution and their residual add).
fn contiguous(
    view: &FunctionView,
    candidates: &[Candidate],
    owner: &[Option<usize>],
    run: std::ops::RangeInclusive<usize>,
) -> bool {
    let members = || {
        candidates[run.clone()]
            .iter()
            .flat_map(|candidate| candidate.layer.members.iter().copied())
    };
    let (Some(start), Some(end)) = (members().min(), members().max()) else {
        return true;
    };
    (start..=end).all(|position| {
        matches!(
            view.ops[position].graph_kind(),
            Some(graph::Kind::Weight | graph::Kind::Constant)
        ) || owner[position].is_some_and(|index| run.contains(&index))
    })
}

/// The layers the channel cut can divide, in order, with their estimates.
fn candidates(
    view: &FunctionView,
    batch_count: usize,
    count: usize,
    machine: &Machine,
) -> Vec<Candidate> {
    let flops_per_cycle =
        machine.matrix_flops * (machine.matrix_engines_per_core * machine.cores_per_cluster) as f64;
    if count < 2 || flops_per_cycle <= 0.0 {
        return Vec::new();
    }
    let pricing = Pricing {
        view,
        batch_count,
        count,
        machine,
        flops_per_cycle,
    };
    let mut candidates: Vec<Candidate> = Vec::new();
    for (position, node) in view.ops.iter().enumerate() {
        let Some(dim) = channel_dim(view, node) else {
            continue;
        };
        let members = layer_members(view, position, &candidates);
        if let Some(candidate) = pricing.candidate(position, dim, members) {
            candidates.push(candidate);
        }
    }
    candidates
}

/// The members of the layer anchored at op `position`: the anchor and its epilogue, or the
/// anchor alone when an earlier candidate already holds part of that epilogue (two anchors
/// whose chains meet, a residual add of two convolutions, share their epilogue: the first one
/// takes it, the other is a layer alone).
fn layer_members(view: &FunctionView, position: usize, candidates: &[Candidate]) -> Vec<usize> {
    let mut members = epilogue(view, position);
    if candidates.iter().any(|candidate| {
        candidate
            .layer
            .members
            .iter()
            .any(|member| members.contains(member))
    }) {
        members.truncate(1);
    }
    members
}

/// What the estimates of a layer rest on: the function, the two cuts and the machine.
struct Pricing<'a> {
    view: &'a FunctionView,
    /// Clusters of the batch cut (1 when the function runs on one).
    batch_count: usize,
    /// Clusters of the channel cut.
    count: usize,
    machine: &'a Machine,
    /// Floating-point operations one cluster's matrix engines complete per cycle (a multiply-add
    /// counts two).
    flops_per_cycle: f64,
}

impl Pricing<'_> {
    /// Cycles of the DDR port for `bytes`.
    fn port(&self, bytes: usize) -> f64 {
        bytes as f64 / self.machine.ddr_bandwidth
    }

    /// The candidate of the layer anchored at op `position` with `members`, whose output
    /// channels are result dimension `dim`; None when the clusters cannot share those channels
    /// evenly, or the output's element type differs from the input's.
    fn candidate(&self, position: usize, dim: usize, members: Vec<usize>) -> Option<Candidate> {
        let (view, batch_count, count) = (self.view, self.batch_count, self.count);
        let node = &view.ops[position];
        let sink = &view.ops[*members.last().expect("the anchor")];
        let (_, output) = &sink.results[0];
        if output
            .shape
            .get(dim)
            .is_none_or(|&channels| channels % count != 0)
            || output.element_type != view.type_of(node.operands[0]).element_type
        {
            return None;
        }
        let shape_of_operand = |index: usize| {
            node.operands
                .get(index)
                .map(|&value| view.type_of(value).shape.as_slice())
        };
        let flops = 2.0 * work(node, &shape_of_operand) / self.flops_per_cycle;
        let (weights, sliced_data) = member_reads(view, &members, position);
        let next_weights = next_layer_weights(view, *members.last().expect("the anchor"));
        let input = self.input(position);
        let port = |bytes: usize| self.port(bytes);
        let batch_cycles = (flops / batch_count as f64).max(port(weights));
        let layer_work =
            (flops / count as f64).max(port((weights + output.bytes() + sliced_data) / count));
        let channel = port(input.bytes) + layer_work;
        let idle = (flops / batch_count as f64 - port(weights)).max(0.0);
        Some(Candidate {
            layer: ChannelLayer {
                members,
                dim,
                batch_cycles,
                channel_cycles: channel,
                subsample: input.subsample,
            },
            channel,
            enter: port(input.bytes / batch_count),
            whole_input: input.subsample.and(input.producer).map(|producer| {
                (
                    producer,
                    port(input.whole) + layer_work,
                    port(input.whole / batch_count),
                )
            }),
            overlap: port(weights).min(flops / batch_count as f64),
            leave: port(output.bytes() / batch_count)
                + port(next_weights).min(idle)
                + self.machine.kernel_launch,
        })
    }

    /// What the anchor at op `position` reads of its input.
    ///
    /// A strided 1x1 convolution's input computed in the function (not an argument or a
    /// weight, which no segment computes) is subsampled by its batch segment; not when the
    /// function runs on one cluster, where the choice this price leads to is slower (a block
    /// left on one cluster whose 3x3 layer runs far above its batch estimate).
    fn input(&self, position: usize) -> AnchorInput {
        let view = self.view;
        let node = &view.ops[position];
        let whole = view.type_of(node.operands[0]).bytes();
        let producer = view
            .producer(node.operands[0])
            .filter(|_| !is_parameter(view, node.operands[0]));
        let subsample =
            subsampling_steps(node.op).filter(|_| producer.is_some() && self.batch_count > 1);
        let bytes = match subsample {
            Some([rows, columns]) => {
                let shape = &view.type_of(node.operands[0]).shape;
                whole * shape[2].div_ceil(rows) * shape[3].div_ceil(columns)
                    / (shape[2] * shape[3]).max(1)
            }
            None => whole,
        };
        AnchorInput {
            whole,
            producer,
            subsample,
            bytes,
        }
    }
}

/// What an anchor reads of its input (operand 0).
struct AnchorInput {
    /// Bytes of the whole input.
    whole: usize,
    /// The op producing the input, when the function computes it.
    producer: Option<usize>,
    /// The row and column steps when the input is read subsampled.
    subsample: Option<[usize; 2]>,
    /// Bytes the anchor reads: the subsampled copy's, else the whole input's.
    bytes: usize,
}

/// What the `members` of the layer anchored at op `anchor` read: bytes of weights (cut by the
/// channels), and bytes of data from outside the layer other than the anchor's input (an
/// epilogue's other operand, cut by the channels; the anchor's input is read whole).
fn member_reads(view: &FunctionView, members: &[usize], anchor: usize) -> (usize, usize) {
    let input = view.ops[anchor].operands[0];
    let (mut weights, mut sliced_data) = (0, 0);
    for member in members {
        for &operand in &view.ops[*member].operands {
            let inside = view
                .producer(operand)
                .is_some_and(|producer| members.contains(&producer));
            if is_parameter(view, operand) {
                weights += view.type_of(operand).bytes();
            } else if !inside && (*member != anchor || operand != input) {
                sliced_data += view.type_of(operand).bytes();
            }
        }
    }
    (weights, sliced_data)
}

/// Bytes of the weights of the first anchor after op `sink` (0 when none follows).
fn next_layer_weights(view: &FunctionView, sink: usize) -> usize {
    view.ops[sink + 1..]
        .iter()
        .find(|later| channel_dim(view, later).is_some())
        .map_or(0, |later| {
            later
                .operands
                .iter()
                .filter(|&&operand| is_parameter(view, operand))
                .map(|&operand| view.type_of(operand).bytes())
                .sum()
        })
}
