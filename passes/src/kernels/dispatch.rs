//! The per-op dispatch of the library: which emitter lowers a layer, and which estimate prices
//! it. Every lowering (layer-wise, GraphTurbo's instances) and the substitution cost model go
//! through these functions, so that they agree on what the software DSA can run.

use super::{
    conv, elementwise,
    emit::{Body, Space, Tensor},
    error::LoweringError,
    kernel::Kernel,
    layers::{Layer, Scope, Step, Viewed},
    matmul, movement,
    ports::Estimate,
    rows, window,
};
use crate::graph_view::Node;

/// Whether the lowering of a layer anchored at `node` stores its tiles into the layer's
/// [`mirror`](Layer::mirror) too: the convolutions' and products' tile stores do.
pub(crate) fn writes_mirror(node: &Node, elementwise_anchor: bool) -> bool {
    !elementwise_anchor
        && matches!(
            node.name.as_str(),
            "graph.conv2d" | "graph.matmul" | "graph.batch_matmul" | "graph.gemm"
        )
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
        match node.name.as_str() {
            "graph.conv2d" => conv::lower(scope, host, layer, kernel)?,
            "graph.matmul" | "graph.batch_matmul" | "graph.gemm" => {
                matmul::lower(scope, host, layer, kernel)?
            }
            "graph.max_pool2d" | "graph.avg_pool2d" => window::lower_pool(scope, layer, kernel)?,
            "graph.global_avg_pool"
            | "graph.reduce_sum"
            | "graph.reduce_mean"
            | "graph.reduce_max" => rows::lower_reduce(scope, host, layer, kernel)?,
            "graph.softmax" => rows::lower_softmax(scope, host, layer, kernel)?,
            "graph.layer_norm" => rows::lower_layer_norm(scope, host, layer, kernel)?,
            "graph.lrn" => rows::lower_lrn(scope, host, layer, kernel)?,
            "graph.transpose" | "graph.concat" | "graph.slice" | "graph.pad" | "graph.split"
            | "graph.broadcast" => movement::lower(scope, host, layer, results, kernel)?,
            other => {
                return Err(LoweringError::at(
                    index,
                    format!("'{other}' is not supported by the software DSA lowering yet"),
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
    elementwise_anchor
        || matches!(
            node.name.as_str(),
            "graph.conv2d"
                | "graph.matmul"
                | "graph.batch_matmul"
                | "graph.gemm"
                | "graph.max_pool2d"
                | "graph.avg_pool2d"
                | "graph.global_avg_pool"
                | "graph.reduce_sum"
                | "graph.reduce_mean"
                | "graph.reduce_max"
                | "graph.softmax"
                | "graph.layer_norm"
                | "graph.lrn"
                | "graph.transpose"
                | "graph.concat"
                | "graph.slice"
                | "graph.pad"
                | "graph.split"
                | "graph.broadcast"
        )
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
    match node.name.as_str() {
        _ if elementwise_anchor => None,
        "graph.conv2d" => conv::estimate(scope, node, steps, out, out_space, absorbed),
        "graph.matmul" | "graph.batch_matmul" | "graph.gemm" => {
            matmul::estimate(scope, node, steps, out, out_space)
        }
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
    (node.name == "graph.conv2d")
        .then(|| conv::estimate_rows_by(scope, node, steps, out, out_space, rows, absorbed))
        .flatten()
}
