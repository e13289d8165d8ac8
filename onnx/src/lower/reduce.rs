//! Reductions: `ReduceMean`, `ReduceSum`, `ReduceMax`, `ReduceProd` → `graph.reduce_mean`,
//! `graph.reduce_sum`, `graph.reduce_max`, `graph.reduce_prod`; the others are composed from
//! them: `ReduceMin` is `-max(-x)` (negation is exact), `ReduceSumSquare` `sum(x * x)`,
//! `ReduceL1` `sum(|x|)`, `ReduceL2` `sqrt(sum(x * x))`, `ReduceLogSum` `log(sum(x))` and
//! `ReduceLogSumExp` `log(sum(exp(x - m))) + m` with `m` the maximum, so that `exp` never
//! overflows. `ArgMax`, `ArgMin` → `graph.argmax`, `graph.argmin`.
//!
//! The axes moved from an attribute to an input at opset 13 for `ReduceSum` and at opset 18 for
//! the others; both forms are read. Empty axes reduce everything, unless
//! `noop_with_empty_axes` says that the node does nothing.

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// Every reduction operator the importer reads.
pub const OPERATORS: &[&str] = &[
    "ReduceMean",
    "ReduceSum",
    "ReduceMax",
    "ReduceMin",
    "ReduceSumSquare",
    "ReduceL1",
    "ReduceL2",
    "ReduceLogSum",
    "ReduceLogSumExp",
    "ReduceProd",
];

/// One of [`OPERATORS`].
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
    let (axes, _) =
        shape::reduce(&ty.shape, &axes, keepdims).map_err(|message| node.invalid(message))?;
    let x = builder.operand(x);
    let mut compose = Compose::new(builder, node);
    let result = match node.op_type() {
        "ReduceMean" => compose.reduce("graph.reduce_mean", &x, &axes, keepdims),
        "ReduceSum" => compose.reduce("graph.reduce_sum", &x, &axes, keepdims),
        "ReduceMax" => compose.reduce("graph.reduce_max", &x, &axes, keepdims),
        "ReduceProd" => compose.reduce("graph.reduce_prod", &x, &axes, keepdims),
        "ReduceMin" => {
            let negated = compose.unary("graph.neg", &x);
            let max = compose.reduce("graph.reduce_max", &negated, &axes, keepdims);
            compose.unary("graph.neg", &max)
        }
        "ReduceSumSquare" | "ReduceL2" => {
            let square = compose.binary("graph.mul", &x, &x)?;
            let sum = compose.reduce("graph.reduce_sum", &square, &axes, keepdims);
            match node.op_type() {
                "ReduceL2" => compose.unary("graph.sqrt", &sum),
                _ => sum,
            }
        }
        "ReduceL1" => {
            let magnitude = compose.unary("graph.abs", &x);
            compose.reduce("graph.reduce_sum", &magnitude, &axes, keepdims)
        }
        "ReduceLogSum" => {
            let sum = compose.reduce("graph.reduce_sum", &x, &axes, keepdims);
            compose.unary("graph.log", &sum)
        }
        // The dispatcher sends only these operators here.
        _ => log_sum_exp(&mut compose, &x, &axes, keepdims)?,
    };
    Ok(vec![Value::Dynamic(result)])
}

/// `log(sum(exp(x - m))) + m` over `axes`, with `m` the maximum over them.
fn log_sum_exp(
    compose: &mut Compose,
    x: &Operand,
    axes: &[usize],
    keepdims: bool,
) -> Result<Operand, ImportError> {
    let max = compose.reduce("graph.reduce_max", x, axes, true);
    let shifted = compose.binary("graph.sub", x, &max)?;
    let exp = compose.unary("graph.exp", &shifted);
    let sum = compose.reduce("graph.reduce_sum", &exp, axes, true);
    let log = compose.unary("graph.log", &sum);
    let result = compose.binary("graph.add", &log, &max)?;
    // The kept dimensions of size 1 go when `keepdims` is off: the element count is the same.
    let shape =
        x.ty.shape
            .iter()
            .enumerate()
            .filter(|(axis, _)| keepdims || !axes.contains(axis))
            .map(|(axis, &size)| if axes.contains(&axis) { 1 } else { size })
            .collect();
    Ok(compose.reshape(&result, shape))
}

/// `ArgMax`, `ArgMin` → `graph.argmax`, `graph.argmin` (i64 indices).
pub fn arg_extreme(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "data")?;
    let ty = x.ty();
    let axis = node.int("axis", 0)?;
    let along = shape::axis(axis, ty.rank()).map_err(|message| node.invalid(message))?;
    if ty.shape[along] == 0 {
        return Err(node.invalid(format!("axis {axis} is empty: it has no extreme element")));
    }
    let keepdims = node.int("keepdims", 1)? != 0;
    let shape = ty
        .shape
        .iter()
        .enumerate()
        .filter(|&(d, _)| keepdims || d != along)
        .map(|(d, &size)| if d == along { 1 } else { size })
        .collect();
    let attributes = [
        ("axis", Attribute::Int(axis)),
        ("keepdims", Attribute::Bool(keepdims)),
        (
            "select_last_index",
            Attribute::Bool(node.int("select_last_index", 0)? != 0),
        ),
    ];
    let name = match node.op_type() {
        "ArgMax" => "graph.argmax",
        // The dispatcher sends only these operators here.
        _ => "graph.argmin",
    };
    let x = builder.operand(x);
    Ok(vec![builder.emit(
        node,
        name,
        &[&x],
        &attributes,
        TensorType::new(shape, ElementType::I64),
    )])
}
