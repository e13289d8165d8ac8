//! The per-op dispatch of the library: which emitter lowers a layer, and which estimate prices
//! it. Every lowering (layer-wise, GraphTurbo's instances) and the substitution cost model go
//! through these functions, so that they agree on what the software DSA can run.

use super::{
    arg_reduce, conv, convert, elementwise,
    emit::{Body, Space, Tensor},
    error::LoweringError,
    gather,
    kernel::Kernel,
    layers::{self, Layer, Scope, Step, Viewed},
    matmul, movement,
    ports::Estimate,
    rows, scatter, selection, top_k, window,
};
use crate::graph_view::Node;
use turbine_dialects::ops::graph;

/// The emitters of the anchors that are not elementwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Emitter {
    /// A convolution's (`conv`).
    Conv,
    /// A matrix product's (`matmul`).
    Product,
    /// A pooling window's (`window`).
    Pool,
    /// A reduction's (`rows`).
    Reduce,
    /// A softmax's (`rows`).
    Softmax,
    /// A layer normalisation's (`rows`).
    LayerNorm,
    /// A local response normalisation's (`rows`).
    Lrn,
    /// A data movement's (`movement`).
    Movement,
    /// A cast's (`convert`).
    Convert,
    /// A gather's with run-time indices (`gather`).
    Gather,
    /// A gather of elements' (`gather`).
    GatherElements,
    /// A scatter of elements' (`scatter`).
    ScatterElements,
    /// An arg reduction's (`arg_reduce`).
    ArgReduce,
    /// A top-k's (`top_k`).
    TopK,
    /// A comparison's, a selection's or an integer binary operation's (`selection`).
    Selection,
}

/// The emitter of a layer anchored at a graph op of kind `kind` that is not an elementwise
/// anchor; none for the ops the software DSA lowering does not run as such a layer.
fn emitter(kind: graph::Kind) -> Option<Emitter> {
    use graph::Kind as K;
    match kind {
        K::Conv2d => Some(Emitter::Conv),
        K::Matmul | K::BatchMatmul | K::Gemm => Some(Emitter::Product),
        K::MaxPool2d | K::AvgPool2d => Some(Emitter::Pool),
        K::GlobalAvgPool | K::ReduceSum | K::ReduceMean | K::ReduceMax | K::ReduceProd => {
            Some(Emitter::Reduce)
        }
        K::Softmax => Some(Emitter::Softmax),
        K::LayerNorm => Some(Emitter::LayerNorm),
        K::Lrn => Some(Emitter::Lrn),
        K::Transpose | K::Concat | K::Slice | K::Pad | K::Split | K::Broadcast => {
            Some(Emitter::Movement)
        }
        K::Cast => Some(Emitter::Convert),
        K::Gather => Some(Emitter::Gather),
        K::GatherElements => Some(Emitter::GatherElements),
        K::ScatterElements => Some(Emitter::ScatterElements),
        K::ArgMax | K::ArgMin => Some(Emitter::ArgReduce),
        K::TopK => Some(Emitter::TopK),
        K::Compare | K::Where => Some(Emitter::Selection),
        K::Constant
        | K::Weight
        | K::Add
        | K::Sub
        | K::Mul
        | K::Div
        | K::Pow
        | K::Max
        | K::Min
        | K::Mod
        | K::Sqrt
        | K::Erf
        | K::Relu
        | K::Sigmoid
        | K::Tanh
        | K::Silu
        | K::Exp
        | K::Log
        | K::Neg
        | K::Abs
        | K::Reciprocal
        | K::Gelu
        | K::Clip
        | K::BatchNorm
        | K::Reshape
        | K::Flatten
        | K::Resize
        | K::Quantize
        | K::Dequantize
        | K::Requantize
        | K::MatmulInteger
        | K::ConvInteger
        | K::Yield
        | K::If
        | K::Loop => None,
    }
}

/// The emitter of a layer anchored at `node`, not an elementwise anchor.
fn emitter_of(node: &Node) -> Option<Emitter> {
    if layers::integer_binary(node).is_some() {
        return Some(Emitter::Selection);
    }
    node.graph_kind().and_then(emitter)
}

/// Whether the lowering of a layer anchored at `node` stores its tiles into the layer's
/// [`mirror`](Layer::mirror) too: the convolutions' and products' tile stores do.
pub(crate) fn writes_mirror(node: &Node, elementwise_anchor: bool) -> bool {
    !elementwise_anchor && matches!(emitter_of(node), Some(Emitter::Conv | Emitter::Product))
}

/// Emits `layer` into `kernel` with the emitter of its anchor's kind (`results`: the tensors of
/// the anchor's results), and checks that its tiles fit the LB.
pub(crate) fn emit_layer(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    results: &[Tensor],
    elementwise_anchor: bool,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let (index, node, machine) = (layer.index, layer.node, scope.machine);
    // The layer's instructions carry its op's location: a kernel of GraphTurbo's holds many
    // layers, and was opened at another op's.
    kernel.body.set_location(node.op.location());
    // A layer of empty results (a zero-size dimension, as ONNX allows) computes nothing.
    if results.iter().all(|result| result.view.elements() == 0) {
        return Ok(kernel);
    }
    let kernel = if elementwise_anchor {
        elementwise::lower(scope, host, layer, kernel)?
    } else {
        match emitter_of(node) {
            Some(Emitter::Conv) => conv::lower(scope, host, layer, kernel)?,
            Some(Emitter::Product) => matmul::lower(scope, host, layer, kernel)?,
            Some(Emitter::Pool) => window::lower_pool(scope, layer, kernel)?,
            Some(Emitter::Reduce) => rows::lower_reduce(scope, host, layer, kernel)?,
            Some(Emitter::Softmax) => rows::lower_softmax(scope, host, layer, kernel)?,
            Some(Emitter::LayerNorm) => rows::lower_layer_norm(scope, host, layer, kernel)?,
            Some(Emitter::Lrn) => rows::lower_lrn(scope, host, layer, kernel)?,
            Some(Emitter::Movement) => movement::lower(scope, host, layer, results, kernel)?,
            Some(Emitter::Convert) => convert::lower(scope, host, layer, &results[0], kernel)?,
            Some(Emitter::Gather) => gather::lower(scope, host, layer, &results[0], kernel)?,
            Some(Emitter::ArgReduce) => arg_reduce::lower(scope, host, layer, &results[0], kernel)?,
            Some(Emitter::TopK) => top_k::lower(scope, host, layer, results, kernel)?,
            Some(Emitter::GatherElements) => {
                gather::lower_elements(scope, layer, &results[0], kernel)?
            }
            Some(Emitter::ScatterElements) => scatter::lower(scope, layer, &results[0], kernel)?,
            Some(Emitter::Selection) => selection::lower(scope, host, layer, &results[0], kernel)?,
            None => {
                return Err(LoweringError::at(
                    index,
                    format!(
                        "'{}' is not supported by the software DSA lowering yet",
                        node.name
                    ),
                ))
            }
        }
    };
    if kernel.lb_elements > machine.lb_elements() {
        return Err(LoweringError::at(
            index,
            format!(
                "'{}' does not fit the local buffer of target '{}': its tiles need {} bytes of \
                 the {} available",
                node.name,
                machine.name,
                kernel.lb_elements * 4,
                machine.lb_bytes
            ),
        ));
    }
    Ok(kernel)
}

/// Whether [`emit_layer`] has an emitter for a layer anchored at `node` (its dispatch's arms): the
/// cost model of `graph-substitute` must not find a graph the lowering refuses cheaper.
pub(crate) fn has_emitter(node: &Node, elementwise_anchor: bool) -> bool {
    elementwise_anchor || emitter_of(node).is_some()
}

/// The estimated cycles of the layer anchored at `node` (fused with `steps`, writing a value of
/// shape `out`) with its operands where `scope` says; `None` for layers whose emitters choose no
/// tiling by cost (elementwise, rows, windows, movement) or that do not fit the LB.
pub(crate) fn estimate<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    steps: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    elementwise_anchor: bool,
) -> Option<f64> {
    estimate_ports(scope, node, steps, out, out_space, elementwise_anchor, None)
        .map(|estimate| estimate.cycles)
}

/// [`estimate`] with the DDR port's share of it.
pub(crate) fn estimate_ports<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    steps: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    elementwise_anchor: bool,
    absorbed: Option<&Node>,
) -> Option<Estimate> {
    match emitter_of(node) {
        _ if elementwise_anchor => None,
        Some(Emitter::Conv) => conv::estimate(scope, node, steps, out, out_space, absorbed),
        Some(Emitter::Product) => matmul::estimate(scope, node, steps, out, out_space),
        _ => None,
    }
}

/// The estimate of the convolution `node` (fused with `steps`, writing `out`) among the tilings
/// whose tiles cover its output rows by multiples of `rows`: those that can store a slice of the
/// output stepping by `rows` along them ([`Layer::stepped`]); none for other layers.
pub(crate) fn estimate_stepped<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    steps: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    rows: usize,
    absorbed: Option<&Node>,
) -> Option<f64> {
    node.is(graph::Kind::Conv2d)
        .then(|| conv::estimate_rows_by(scope, node, steps, out, out_space, rows, absorbed))
        .flatten()
}
