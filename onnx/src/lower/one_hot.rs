//! One-hot encodings, composed from comparisons with a constant range along the encoded axis:
//! `OneHot` selects its on and off values where an index (cast to an integer when it is a float)
//! equals the position (a negative index
//! counts from the end; one outside `[-depth, depth)` matches nothing, so its row is all off, as
//! the specification says); `Hardmax` is the one-hot of `ArgMax` along its axis, as f32.

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// `0, 1, ..., depth - 1` of `element` along dimension `axis` of a tensor of `rank` dimensions
/// whose other dimensions are 1.
fn positions(
    compose: &mut Compose,
    element: ElementType,
    depth: usize,
    axis: usize,
    rank: usize,
) -> Operand {
    let mut shape = vec![1; rank];
    shape[axis] = depth;
    let data = match element {
        ElementType::I32 => Data::I32((0..depth as i32).collect()),
        _ => Data::I64((0..depth as i64).collect()),
    };
    let location = compose.location().to_owned();
    compose
        .builder()
        .body
        .constant(&Tensor::new(shape, data), &location)
}

/// `OneHot` with a constant depth.
pub fn one_hot(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let mut indices = builder.operand(inputs.required(0, "indices")?);
    // Float indices are cast to integers (toward zero), as the specification says, and 8-bit
    // ones widened, so that adding the depth to a negative index cannot wrap.
    match indices.ty.element {
        ElementType::Bool => return Err(node.invalid("indices are booleans, not numbers")),
        ElementType::I32 | ElementType::I64 => {}
        _ => {
            let ty = indices.ty.with_element(ElementType::I64);
            indices = builder
                .body
                .op1("graph.cast", &[&indices], &[], ty, &node.name);
        }
    }
    let depth = match inputs.constant(1, "depth")?.and_then(Tensor::scalar_f32) {
        Some(depth) if depth >= 1.0 && depth == depth.trunc() => depth as usize,
        Some(depth) => return Err(node.invalid(format!("depth {depth} is not a positive integer"))),
        None => return Err(node.invalid("input 1 (depth) is missing")),
    };
    let values = inputs.required(2, "values")?;
    if values.ty().shape != [2] {
        return Err(node.invalid(format!("values has shape {:?}, not [2]", values.ty().shape)));
    }
    let rank = indices.ty.rank();
    let axis =
        shape::axis(node.int("axis", -1)?, rank + 1).map_err(|message| node.invalid(message))?;
    let values = builder.operand(values);
    let mut compose = Compose::new(builder, node);
    let mut spread = indices.ty.shape.clone();
    spread.insert(axis, 1);
    let spread = compose.reshape(&indices, spread);
    let element = indices.ty.element;
    let zero = compose.integer(element, 0);
    let negative = compose.compare("lt", &spread, &zero)?;
    let depth_value = compose.integer(element, depth as i64);
    let wrapped = compose.binary("graph.add", &spread, &depth_value)?;
    let index = compose.select(&negative, &wrapped, &spread)?;
    let range = positions(&mut compose, element, depth, axis, rank + 1);
    let hit = compose.compare("eq", &index, &range)?;
    let pick = |compose: &mut Compose, position: i64| {
        let at = compose.integer(ElementType::I64, position);
        let ty = TensorType::new(Vec::new(), values.ty.element);
        let attributes = [("axis", Attribute::Int(0))];
        compose.op("graph.gather", &[&values, &at], &attributes, ty)
    };
    let (off, on) = (pick(&mut compose, 0), pick(&mut compose, 1));
    Ok(vec![Value::Dynamic(compose.select(&hit, &on, &off)?)])
}

/// `Hardmax` (opset 13: one axis, default -1).
pub fn hardmax(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "input")?;
    let ty = x.ty();
    let axis =
        shape::axis(node.int("axis", -1)?, ty.rank()).map_err(|message| node.invalid(message))?;
    if ty.shape[axis] == 0 {
        return Ok(vec![x.clone()]);
    }
    let x = builder.operand(x);
    let mut compose = Compose::new(builder, node);
    let mut kept = ty.shape.clone();
    kept[axis] = 1;
    let attributes = [
        ("axis", Attribute::Int(axis as i64)),
        ("keepdims", Attribute::Bool(true)),
    ];
    let index_ty = TensorType::new(kept, ElementType::I64);
    let largest = compose.op("graph.argmax", &[&x], &attributes, index_ty);
    let range = positions(
        &mut compose,
        ElementType::I64,
        ty.shape[axis],
        axis,
        ty.rank(),
    );
    let hit = compose.compare("eq", &largest, &range)?;
    let ty = hit.ty.with_element(ty.element);
    Ok(vec![Value::Dynamic(compose.op(
        "graph.cast",
        &[&hit],
        &[],
        ty,
    ))])
}
