//! Which graph ops form one layer of the layer-wise schedule: an anchor and the elementwise
//! epilogue fused after it (the epilogue itself is defined once, by
//! [`FunctionView::epilogue_reader`]), as steps the vector units run on the anchor's output tile.

use super::{
    host::buffer_shape,
    emit::Body,
    emit::reshaped,
    emit::Tensor,
    layers::{self, Elementwise, Operand, Step},
};
use crate::graph_view::{FunctionView, Node, ValueId};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::UnaryKind;

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
        vec![(last.expect("one result"), buffer_shape(&node.results[0].1.shape))]
    } else {
        node.results.iter().map(|(value, r#type)| (*value, buffer_shape(&r#type.shape))).collect()
    }
}

/// The epilogue of the layer anchored at op `index`. The fused ops' other operands must already
/// have a tensor; batch-norm parameters get per-channel views in `tensors`, made on `host`.
pub fn layer_epilogue(
    program: &FunctionView,
    index: usize,
    tensors: &mut BTreeMap<ValueId, Tensor>,
    host: &mut Body,
    synthetic: &mut Synthetic,
) -> Fused {
    let node = &program.ops[index];
    let mut steps = Vec::new();
    let mut elementwise_anchor = false;
    let location = node.op.location();
    if let Some(anchor_steps) = layers::elementwise_steps(node) {
        elementwise_anchor = true;
        steps.extend(first_steps(node, &anchor_steps));
    } else if node.name == "graph.batch_norm" {
        elementwise_anchor = true;
        let copy = Elementwise::Unary { kind: UnaryKind::Copy, bounds: None, affine: None };
        steps.push(Step::chained(copy, vec![Operand::External(node.operands[0])], location));
        steps.extend(batch_norm_steps(node, tensors, host, synthetic));
    }
    // Row-wise and data-movement layers write their result whole; only the tiled anchors (and
    // elementwise chains) take an epilogue.
    let fusible_anchor = node.results.len() == 1
        && (elementwise_anchor
            || matches!(
                node.name.as_str(),
                "graph.conv2d" | "graph.matmul" | "graph.batch_matmul" | "graph.gemm" | "graph.max_pool2d" | "graph.avg_pool2d"
            ));
    let mut last = node.results.first().map(|(value, _)| *value);
    let mut fused = Vec::new();
    while let Some(value) = last.filter(|_| fusible_anchor) {
        let Some(reader) = program.epilogue_reader(value, |operand| tensors.contains_key(&operand)) else { break };
        let user = &program.ops[reader];
        let location = user.op.location();
        if let Some(user_steps) = layers::elementwise_steps(user) {
            let operands: Vec<Operand> = user
                .operands
                .iter()
                .map(|&operand| if operand == value { Operand::Chain } else { Operand::External(operand) })
                .collect();
            for (op, _) in user_steps {
                steps.push(Step::chained(op, operands.clone(), location));
            }
        } else if user.name == "graph.batch_norm" && user.operands[0] == value {
            steps.extend(batch_norm_steps(user, tensors, host, synthetic));
        } else {
            // Elementwise, but not something the vector units run as a step.
            break;
        }
        fused.push(reader);
        last = user.results.first().map(|(value, _)| *value);
    }
    Fused { steps, elementwise_anchor, fused, last }
}

/// The steps of an elementwise op that starts a layer: every operand is external.
fn first_steps(node: &Node, steps: &[(Elementwise, usize)]) -> Vec<Step> {
    steps
        .iter()
        .map(|(op, arity)| {
            let operands = node.operands[..*arity].iter().map(|&v| Operand::External(v)).collect();
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
