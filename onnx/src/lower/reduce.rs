//! Reductions: `ReduceMean`, `ReduceSum`, `ReduceMax` → `graph.reduce_mean`, `graph.reduce_sum`,
//! `graph.reduce_max`.
//!
//! The axes moved from an attribute to an input at opset 13 for `ReduceSum` and at opset 18 for
//! the others; both forms are read. Empty axes reduce everything, unless
//! `noop_with_empty_axes` says that the node does nothing.

use super::{float_input, Builder};
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// `ReduceMean`, `ReduceSum`, `ReduceMax`.
pub fn reduce(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "data")?;
    let ty = x.ty();
    let axes = match inputs.ints(1, "axes")? {
        Some(axes) => axes,
        None => node.ints("axes")?.unwrap_or_default(),
    };
    if axes.is_empty() && node.int("noop_with_empty_axes", 0)? != 0 {
        return Ok(vec![x.clone()]);
    }
    let keepdims = node.int("keepdims", 1)? != 0;
    let (axes, shape) =
        shape::reduce(&ty.shape, &axes, keepdims).map_err(|message| node.invalid(message))?;
    let name = match node.op_type() {
        "ReduceMean" => "graph.reduce_mean",
        "ReduceSum" => "graph.reduce_sum",
        // The dispatcher sends only these operators here.
        _ => "graph.reduce_max",
    };
    let attributes = [
        (
            "axes",
            Attribute::Ints(axes.into_iter().map(|axis| axis as i64).collect()),
        ),
        ("keepdims", Attribute::Bool(keepdims)),
    ];
    let x = builder.operand(x);
    Ok(vec![builder.emit(
        node,
        name,
        &[&x],
        &attributes,
        TensorType::new(shape, ty.element),
    )])
}
