//! `TopK` → `graph.top_k`: the f32 values and i64 indices of each line's k extremes, with k the
//! constant `K` input (its form from opset 10 on; the importer reads opsets 13 and later).

use super::Builder;
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// `TopK` with a constant k no larger than the axis.
pub fn top_k(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = inputs.required(0, "X")?;
    let ty = x.ty();
    if ty.element != ElementType::F32 {
        return Err(node.unsupported(format!(
            "input 0 (X) of type {} is not supported, only f32",
            ty.element
        )));
    }
    let axis = node.int("axis", -1)?;
    let along = shape::axis(axis, ty.rank()).map_err(|message| node.invalid(message))?;
    let k = match inputs.required_ints(1, "K")?.as_slice() {
        &[k] => k,
        k => return Err(node.invalid(format!("K {k:?} must hold one value"))),
    };
    let size = ty.shape[along];
    let k = usize::try_from(k)
        .ok()
        .filter(|&k| k <= size)
        .ok_or_else(|| {
            node.invalid(format!(
                "k = {k} is not within the size {size} of axis {axis}"
            ))
        })?;
    let mut shape = ty.shape.clone();
    shape[along] = k;
    let attributes = [
        ("k", Attribute::Int(k as i64)),
        ("axis", Attribute::Int(axis)),
        ("largest", Attribute::Bool(node.int("largest", 1)? != 0)),
        ("sorted", Attribute::Bool(node.int("sorted", 1)? != 0)),
    ];
    let results = [
        TensorType::new(shape.clone(), ElementType::F32),
        TensorType::new(shape, ElementType::I64),
    ];
    let x = builder.operand(x);
    let picked = builder
        .body
        .op("graph.top_k", &[&x], &attributes, &results, &node.name);
    Ok(picked.into_iter().map(Value::Dynamic).collect())
}
