//! Which graph ops form one layer of the layer-wise schedule: an anchor and the elementwise
//! epilogue fused after it (the epilogue itself is defined once, by
//! [`FunctionView::epilogue_reader`]), as steps the vector units run on the anchor's output tile.

use super::{
    emit::reshaped,
    emit::Body,
    emit::Tensor,
    layers::{self, Elementwise, Operand, Step},
    view::buffer_shape,
};
use crate::graph_view::{FunctionView, Node, ValueId};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::UnaryKind;
use turbine_dialects::ops::graph;

/// Synthetic value ids for views the lowering makes (a batch norm's parameters reshaped to
/// `[1, C, 1, 1]`), far above the program's own.
pub struct Synthetic(ValueId);

impl Synthetic {
    /// Ids above every value of `program`.
    pub fn new(program: &FunctionView) -> Self {
        Self(program.value_count + 1_000_000)
    }

    fn next(&mut self) -> ValueId {
        self.0 += 1;
        self.0
    }
}

/// A layer's epilogue: its steps, the ops fused into it, and the value the layer finally writes.
pub struct Fused {
    /// Steps on the anchor's output tile (an elementwise anchor's own steps first).
    pub steps: Vec<Step>,
    /// Whether the anchor itself is elementwise (the layer is a chain of vector steps).
    pub elementwise_anchor: bool,
    /// The ops fused after the anchor, in order.
    pub fused: Vec<usize>,
    /// The value the layer writes (the anchor's result when nothing is fused).
    pub last: Option<ValueId>,
}

/// The values the layer anchored at `node` writes, with their buffer shapes: the last value of
/// its epilogue (`last`) for a one-result anchor, else each of its results.
pub fn written(node: &Node, last: Option<ValueId>) -> Vec<(ValueId, Vec<usize>)> {
    if node.results.len() == 1 {
        vec![(
            last.expect("one result"),
            buffer_shape(&node.results[0].1.shape),
        )]
    } else {
        node.results
            .iter()
            .map(|(value, r#type)| (*value, buffer_shape(&r#type.shape)))
            .collect()
    }
}

/// The steps of an elementwise anchor `node` itself (a batch norm's: a copy of its input, then
/// its per-channel steps, with views made as [`layer_epilogue`] says), and whether it is one;
/// none for another anchor.
fn anchor_steps(
    node: &Node,
    tensors: &mut BTreeMap<ValueId, Tensor>,
    host: &mut Body,
    synthetic: &mut Synthetic,
) -> (Vec<Step>, bool) {
    let mut steps = Vec::new();
    let mut elementwise_anchor = false;
    let location = node.op.location();
    if let Some(anchor_steps) = layers::elementwise_steps(node) {
        elementwise_anchor = true;
        steps.extend(first_steps(node, &anchor_steps));
    } else if node.is(graph::Kind::BatchNorm) {
        elementwise_anchor = true;
        let copy = Elementwise::Unary {
            kind: UnaryKind::Copy,
            bounds: None,
            affine: None,
        };
        steps.push(Step::chained(
            copy,
            vec![Operand::External(node.operands[0])],
            location,
        ));
        steps.extend(batch_norm_steps(node, tensors, host, synthetic));
    }
    (steps, elementwise_anchor)
}

/// Whether a layer anchored at `node`, not an elementwise anchor, takes an epilogue: the tiled
/// anchors (the graph dialect's contractions, and pooling windows) do; row-wise and
/// data-movement layers write their result whole.
pub fn takes_epilogue(node: &Node) -> bool {
    node.graph_kind().is_some_and(|kind| {
        kind.is_contraction() || matches!(kind, graph::Kind::MaxPool2d | graph::Kind::AvgPool2d)
    })
}

/// The epilogue of the layer anchored at op `index`. The fused ops' other operands must already
/// have a tensor, but for `absorbed`, the result of a convolution the layer absorbs
/// ([`absorbing_conv`]), which the layer computes; batch-norm parameters get per-channel views in
/// `tensors`, made on `host`.
pub fn layer_epilogue(
    program: &FunctionView,
    index: usize,
    tensors: &mut BTreeMap<ValueId, Tensor>,
    host: &mut Body,
    synthetic: &mut Synthetic,
    absorbed: Option<ValueId>,
) -> Fused {
    let node = &program.ops[index];
    let (mut steps, elementwise_anchor) = anchor_steps(node, tensors, host, synthetic);
    let fusible_anchor = node.results.len() == 1 && (elementwise_anchor || takes_epilogue(node));
    let mut last = node.results.first().map(|(value, _)| *value);
    let mut fused = Vec::new();
    while let Some(value) = last.filter(|_| fusible_anchor) {
        let Some(reader) = program.epilogue_reader(value, |operand| {
            tensors.contains_key(&operand) || Some(operand) == absorbed
        }) else {
            break;
        };
        let user = &program.ops[reader];
        if let Some(user_steps) = layers::elementwise_steps(user) {
            steps.extend(layers::chained_steps(user, value, user_steps));
        } else if user.is(graph::Kind::BatchNorm) && user.operands[0] == value {
            steps.extend(batch_norm_steps(user, tensors, host, synthetic));
        } else {
            // Elementwise, but not something the vector units run as a step.
            break;
        }
        fused.push(reader);
        last = user.results.first().map(|(value, _)| *value);
    }
    Fused {
        steps,
        elementwise_anchor,
        fused,
        last,
    }
}

/// The convolutions of `program` that a later convolution's layer absorbs, each with that layer:
/// a 1×1 convolution (stride 1, no padding, one group, no activation) whose result only a
/// residual addition reads, that addition being the first step of a later convolution's epilogue
/// (one group, no activation of its own, the same output shape). The later layer's accumulator
/// then sums both products, so the result never goes to memory and back as a residual: a
/// bottleneck block's last convolution and its projection. Otherwise that result goes to DDR
/// (layer-wise) or to the GB (GraphTurbo's kernels), whose bus it loads twice over.
pub fn absorbed_convs(program: &FunctionView) -> BTreeMap<usize, usize> {
    (0..program.ops.len())
        .filter_map(|index| Some((index, absorbing_conv(program, index)?)))
        .collect()
}

/// The op at which op `reader` reads its operands: the layer absorbing it, for a convolution of
/// `absorbed_into` ([`absorbed_convs`]).
pub fn read_at(absorbed_into: &BTreeMap<usize, usize>, reader: usize) -> usize {
    absorbed_into.get(&reader).copied().unwrap_or(reader)
}

/// The later convolution whose layer absorbs convolution `index` (see [`absorbed_convs`]).
pub fn absorbing_conv(program: &FunctionView, index: usize) -> Option<usize> {
    let node = &program.ops[index];
    let ones = |name: &str| {
        node.ints_opt(name)
            .is_none_or(|values| values.iter().all(|&v| v == 1))
    };
    let unpadded = node
        .ints_opt("pads")
        .is_none_or(|pads| pads.iter().all(|&p| p == 0));
    let [(result, r#type)] = node.results.as_slice() else {
        return None;
    };
    let filter = program.type_of(*node.operands.get(1)?);
    if !node.is(graph::Kind::Conv2d)
        || node.activation().is_some()
        || node.int_opt("groups").unwrap_or(1) != 1
        || !ones("strides")
        || !ones("dilations")
        || !unpadded
        || filter.shape.get(2..) != Some(&[1, 1][..])
        || program.returned().contains(result)
    {
        return None;
    }
    let &[sum] = program.readers(*result) else {
        return None;
    };
    let addition = &program.ops[sum];
    let [a, b] = addition.operands[..] else {
        return None;
    };
    if !addition.is(graph::Kind::Add) || a == b {
        return None;
    }
    let other = if a == *result { b } else { a };
    let later = program.producer(other).filter(|&later| later > index)?;
    let anchor = &program.ops[later];
    let [(anchor_result, anchor_type)] = anchor.results.as_slice() else {
        return None;
    };
    let takes_the_sum =
        program.epilogue_reader(*anchor_result, |operand| operand == *result) == Some(sum);
    (anchor.is(graph::Kind::Conv2d)
        && anchor.activation().is_none()
        && anchor.int_opt("groups").unwrap_or(1) == 1
        && anchor_type.shape == r#type.shape
        && takes_the_sum)
        .then_some(later)
}

/// The steps of an elementwise op that starts a layer: every operand is external.
fn first_steps(node: &Node, steps: &[(Elementwise, usize)]) -> Vec<Step> {
    steps
        .iter()
        .map(|(op, arity)| {
            let operands = node.operands[..*arity]
                .iter()
                .map(|&v| Operand::External(v))
                .collect();
            Step::chained(op.clone(), operands, node.op.location())
        })
        .collect()
}

/// A batch norm's steps, with its per-channel parameters viewed as `[1, C, 1, ...]` so that they
/// broadcast over the channel dimension.
fn batch_norm_steps(
    node: &Node,
    tensors: &mut BTreeMap<ValueId, Tensor>,
    host: &mut Body,
    synthetic: &mut Synthetic,
) -> Vec<Step> {
    let rank = node.results[0].1.shape.len();
    let mut ids = Vec::new();
    for &operand in &node.operands[1..5] {
        let source = tensors[&operand].clone();
        let mut shape = vec![1; rank.max(2)];
        shape[1] = source.view.elements();
        let id = synthetic.next();
        tensors.insert(id, reshaped(host, &source, &shape));
        ids.push(id);
    }
    let epsilon = node.float("epsilon");
    layers::batch_norm_steps(ids[0], ids[1], ids[2], ids[3], epsilon, node.op.location())
}
