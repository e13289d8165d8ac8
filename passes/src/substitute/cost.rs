//! What a graph costs, for the search to compare candidates (MetaFlow §4: a cost model with
//! several dimensions, any of which the search may minimise).
//!
//! `cycles` is the lowering's own estimate of the layer-wise schedule on the target
//! ([`layerwise_cycles_excluding`]: the layers it would form, priced by the tile choices it would
//! make; with `prepared_weights`, without what the function computes from weights alone).
//! `flops` counts arithmetic only; `memory` counts the bytes of every tensor the graph produces,
//! and is infinite past the target's DDR.

use crate::graph_view::{FunctionView, Node};
use crate::kernels::estimate::{layerwise_cycles_excluding, LayerCache};
use crate::target::Machine;
use turbine_dialects::ops::graph;

/// What the search minimises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Estimated cycles on the target.
    Cycles,
    /// Floating-point operations.
    Flops,
    /// Bytes of the tensors the graph produces (infinite past the target's DDR).
    Memory,
}

impl Metric {
    /// Parses an option value.
    pub fn parse(text: &str) -> Result<Metric, String> {
        match text {
            "cycles" => Ok(Metric::Cycles),
            "flops" => Ok(Metric::Flops),
            "memory" => Ok(Metric::Memory),
            other => Err(format!(
                "cost '{other}' is not one of cycles, flops, memory"
            )),
        }
    }
}

/// What a search minimises, and whether what the graph computes from weights alone is free
/// (`graph-prepare-weights` computes it once at load time, MetaFlow §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pricing {
    /// What is counted.
    pub metric: Metric,
    /// Whether the ops computing from weights alone cost nothing.
    pub prepared_weights: bool,
}

/// The cost of `view` by `pricing` on `machine`; `cache` keeps layer estimates between calls.
pub fn cost(
    view: &FunctionView,
    pricing: Pricing,
    machine: Option<&Machine>,
    cache: &mut LayerCache,
) -> f64 {
    let excluded = if pricing.prepared_weights {
        view.prepared().ops
    } else {
        vec![false; view.ops.len()]
    };
    let ops = view
        .ops
        .iter()
        .zip(&excluded)
        .filter(|(node, &excluded)| !excluded && !node.is_terminator() && !is_free(node))
        .map(|(node, _)| node);
    match pricing.metric {
        Metric::Flops => ops.map(|node| flops(view, node)).sum(),
        Metric::Memory => {
            let bytes: f64 = ops.map(produced_bytes).sum();
            if machine.is_some_and(|machine| bytes > machine.ddr_bytes as f64) {
                f64::INFINITY
            } else {
                bytes
            }
        }
        Metric::Cycles => {
            layerwise_cycles_excluding(
                view,
                machine.expect("the cycles cost reads a target"),
                cache,
                &excluded,
            )
            .0
        }
    }
}

/// Ops that move no data of their own: constants and weights are read by their consumers, and a
/// reshape is a view.
fn is_free(node: &Node) -> bool {
    matches!(
        node.graph_kind(),
        Some(
            graph::Kind::Constant
                | graph::Kind::Weight
                | graph::Kind::Reshape
                | graph::Kind::Flatten
        )
    )
}

fn produced_bytes(node: &Node) -> f64 {
    node.results
        .iter()
        .map(|(_, r#type)| r#type.bytes() as f64)
        .sum()
}

/// Floating-point operations: two per multiply-accumulate of the anchor ops, one per result
/// element of the others.
fn flops(view: &FunctionView, node: &Node) -> f64 {
    let elements = |shape: &[usize]| shape.iter().product::<usize>() as f64;
    let result = node
        .results
        .first()
        .map(|(_, r#type)| elements(&r#type.shape))
        .unwrap_or(0.0);
    let operand = |index: usize| view.type_of(node.operands[index]).shape.clone();
    match node.graph_kind() {
        Some(graph::Kind::Conv2d) => {
            let filter = operand(1);
            2.0 * result * elements(&filter[1..])
        }
        Some(graph::Kind::Matmul | graph::Kind::BatchMatmul) => {
            let lhs = operand(0);
            2.0 * result * lhs[lhs.len() - 1] as f64
        }
        Some(graph::Kind::Gemm) => {
            let a = operand(0);
            let k = if node
                .attributes
                .get("trans_a")
                .is_some_and(|a| matches!(a, crate::graph_view::Attr::Bool(true)))
            {
                a[0]
            } else {
                a[1]
            };
            2.0 * result * k as f64
        }
        _ => result,
    }
}
