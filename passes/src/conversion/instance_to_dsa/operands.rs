//! Where a GB instance's layer reads its operands: which weights (and operands every cluster
//! reads whole) it copies to the GB first (GraphTurbo §4.2), and which strided views its tiles
//! read in place rather than through contiguous copies.

use crate::graph_view::{FunctionView, Node, ValueId};
use crate::kernels::{
    emit::{Space, Tensor},
    layers,
};
use crate::target::Machine;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// Which of `weights` (the layer's weights and operands read whole) to copy to the GB before
/// their layer: the set with the lowest estimate of the layer's cycles with those in the GB plus
/// the copy's (their bytes over the cluster's DDR port while every core waits, one DMA setup, the
/// barrier after it, less what the layer before leaves of the port to the part prefetched under
/// it: [`Cover`]), the empty set being the layer reading them where they are (GraphTurbo §4.2
/// promotes weights DDR → GB → LB; a layer whose tiles read each weight once gains nothing from
/// the detour). Every subset is tried, operands being few: a channel-cut layer of
/// `instance-cluster-split` wants its input, which every core re-reads, in the GB and its filter
/// share, which each core reads once, streamed from DDR under its compute (ResNet-50's stage-4
/// 3×3 layers, whose filter share copied first would keep every core waiting). A layer without
/// an estimate (elementwise, rows, windows) promotes all of them.
///
/// The subsets are estimated on `tensors` themselves, the instance's, with the spaces of the
/// weights read from DDR set for each subset: they are in DDR again on return.
pub(super) fn promoted_weights(
    machine: &Machine,
    tensors: &mut BTreeMap<ValueId, Tensor>,
    weights: &BTreeSet<ValueId>,
    estimate: &dyn Fn(&BTreeMap<ValueId, Tensor>) -> Option<f64>,
    (cover, goes_early): (Cover, &dyn Fn(&ValueId) -> bool),
) -> BTreeSet<ValueId> {
    let in_ddr: Vec<ValueId> = weights
        .iter()
        .copied()
        .filter(|weight| tensors[weight].view.space == Space::Ddr)
        .collect();
    let Some(direct) = estimate(tensors) else {
        return weights.clone();
    };
    if in_ddr.is_empty() {
        return BTreeSet::new();
    }
    // Beyond a few operands, all or nothing (2^n estimates).
    let subsets: Vec<u32> = if in_ddr.len() <= 4 {
        (1..1u32 << in_ddr.len()).collect()
    } else {
        vec![u32::MAX]
    };
    let mut candidates = vec![(direct, BTreeSet::new())];
    // Each subset sets the space of every weight read from DDR.
    for subset in subsets {
        let (mut bytes, mut early) = (0, 0);
        let mut chosen = BTreeSet::new();
        for (bit, weight) in in_ddr.iter().enumerate() {
            let tensor = tensors
                .get_mut(weight)
                .expect("a weight of the layer has a tensor");
            tensor.view.space = Space::Ddr;
            if subset & (1 << bit.min(31)) != 0 {
                tensor.view.space = Space::Gb;
                let size = tensor.view.elements() * tensor.view.element.bytes();
                bytes += size;
                early += if goes_early(weight) { size } else { 0 };
                chosen.insert(*weight);
            }
        }
        if let Some(in_gb) = estimate(tensors) {
            candidates.push((
                in_gb + copy_cycles(machine, bytes) - cover.credit(machine, bytes, early),
                chosen,
            ));
        }
    }
    for weight in &in_ddr {
        tensors
            .get_mut(weight)
            .expect("a weight of the layer has a tensor")
            .view
            .space = Space::Ddr;
    }
    // A set within 2 % of the lowest that holds it and more is a tie won by the larger set (as
    // between tilings): the estimates do not price an epilogue's operands, such as a bias that
    // every tile would read from DDR.
    let (lowest, best) = candidates
        .iter()
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .cloned()
        .expect("reading in place is one");
    candidates
        .into_iter()
        .filter(|(cycles, chosen)| {
            *cycles <= lowest * TIE && !best.is_empty() && chosen.is_superset(&best)
        })
        .max_by_key(|(_, chosen)| chosen.len())
        .map_or(best, |(_, chosen)| chosen)
}

/// What a layer leaves of its cluster's DDR port to a weight copy issued under it (GraphTurbo
/// §4.4: the weights of layer k + 1 promoted while layer k computes).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Cover {
    /// The cycles of its estimate that leave the port idle.
    pub idle: f64,
    /// The bytes of a copy its tiles spread among their own loads
    /// ([`trickle::spread_bytes`](crate::kernels::trickle::spread_bytes)).
    pub spread: usize,
    /// The bytes of the arena free beside what the instance needs at the layer the copy is for.
    pub room: usize,
}

impl Cover {
    /// The cycles of a copy of `bytes`, `early` of them issued under the layer, that move while
    /// the port would be idle: none when the arena has no room for the copy beside the
    /// instance's buffers (the copy would take an intermediate's place, which then spills).
    fn credit(&self, machine: &Machine, bytes: usize, early: usize) -> f64 {
        if bytes > self.room {
            return 0.0;
        }
        self.idle
            .min(early.min(self.spread) as f64 / machine.ddr_bandwidth)
    }
}

/// Estimates within this factor of the lowest are a tie.
const TIE: f64 = 1.02;

/// The estimated cycles of copying `bytes` of weights from DDR to a cluster's GB while its cores
/// wait: the bytes over the cluster's DDR port, one DMA setup, the barrier after it.
pub(super) fn copy_cycles(machine: &Machine, bytes: usize) -> f64 {
    bytes as f64 / machine.ddr_bandwidth + machine.dma_setup + machine.barrier
}

/// Whether `value` is read only as the input of convolutions (directly or through windows of
/// it), whose tile loads take any strided view: a window that the region inference cut out of a
/// larger buffer (the 55×55 rows and columns a stride-2 projection reads of a 56×56 image) is
/// then read where it is, instead of through contiguous copies that cost the whole window twice
/// over the buffer's port each.
pub(super) fn read_as_conv_inputs(body: &FunctionView, value: ValueId) -> bool {
    read_by_convolutions(body, value, &BTreeSet::new())
}

/// The ops of `body` fused after a convolution, as `fusion::layer_epilogue` will fuse them when
/// it lowers the convolution (their other operands computed before it).
pub(super) fn conv_epilogues(body: &FunctionView) -> BTreeSet<usize> {
    let mut members = BTreeSet::new();
    for (index, node) in body.ops.iter().enumerate() {
        let [(result, _)] = node.results.as_slice() else {
            continue;
        };
        if !node.is(graph::Kind::Conv2d) {
            continue;
        }
        let mut value = *result;
        let computed = |operand: ValueId| {
            body.producer(operand)
                .is_none_or(|producer| producer < index)
        };
        while let Some(reader) = body.epilogue_reader(value, computed) {
            if layers::elementwise_steps(&body.ops[reader]).is_none() {
                break;
            }
            members.insert(reader);
            value = body.ops[reader].results[0].0;
        }
    }
    members
}

/// Whether every reader of `value` is a convolution's tile loads, which take any view: as its
/// input (directly or through windows of it, which only convolutions' inputs or stepped slices
/// may read, see [`read_as_conv_inputs`]) or as an operand of its epilogue (`epilogues`, from
/// [`conv_epilogues`]; a channel-cut layer's residual share); or a stepped slice, whose tiles
/// load any view into the LB. Such a value is read where it is, not through a contiguous copy.
pub(super) fn read_by_convolutions(
    body: &FunctionView,
    value: ValueId,
    epilogues: &BTreeSet<usize>,
) -> bool {
    let readers = body.readers(value);
    !readers.is_empty()
        && !body.returned().contains(&value)
        && readers.iter().all(|&reader| {
            epilogues.contains(&reader) || {
                let node = &body.ops[reader];
                match node.graph_kind() {
                    Some(graph::Kind::Conv2d) => node
                        .operands
                        .iter()
                        .skip(1)
                        .all(|&operand| operand != value),
                    // A stepped slice stages its tiles through LB from any view (movement's
                    // `stepped_columns`); a window takes a view when what reads it does.
                    Some(graph::Kind::Slice) => {
                        !unit_steps(node) || read_as_conv_inputs(body, node.results[0].0)
                    }
                    _ => false,
                }
            }
        })
}

/// A stepped slice of `value` (an image tensor) whose elements are every step-th row and column
/// of `value` from the first: its op and its steps along the last two dimensions, reached through
/// windows from the origin that are views (the rows and columns a strided 1×1 projection reads,
/// as region inference and `graph-subsample-strided-convs` cut them). The layer computing
/// `value` can store it as it goes ([`Layer::stepped`]).
///
/// [`Layer::stepped`]: crate::kernels::layers::Layer::stepped
pub(super) fn stepped_slice(body: &FunctionView, value: ValueId) -> Option<(usize, [usize; 2])> {
    let shape = &body.type_of(value).shape;
    let [n, c, h, w] = shape[..] else { return None };
    let from_origin = |node: &Node| node.ints("starts").iter().all(|&start| start == 0);
    let mut frontier = vec![value];
    while let Some(current) = frontier.pop() {
        for &reader in body.readers(current).iter() {
            let node = &body.ops[reader];
            if !node.is(graph::Kind::Slice) || !from_origin(node) {
                continue;
            }
            let result = node.results[0].0;
            if unit_steps(node) {
                if read_as_conv_inputs(body, result) {
                    frontier.push(result);
                }
                continue;
            }
            let steps = node.ints("steps");
            let [1, 1, rows, columns] = steps[..] else {
                continue;
            };
            let (rows, columns) = (rows as usize, columns as usize);
            let expected = [n, c, h / rows, w / columns];
            if h % rows == 0 && w % columns == 0 && body.type_of(result).shape[..] == expected[..] {
                return Some((reader, [rows, columns]));
            }
        }
    }
    None
}

/// Whether the slice `node` takes every element of its window (its columns are whole runs).
pub(super) fn unit_steps(node: &Node) -> bool {
    node.ints_opt("steps")
        .is_none_or(|steps| steps.iter().all(|&step| step == 1))
}
