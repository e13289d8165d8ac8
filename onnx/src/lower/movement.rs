//! Data movement: `Reshape`, `Squeeze`, `Unsqueeze` → `graph.reshape`; `Flatten` →
//! `graph.flatten`; `Transpose`, `Concat`, `Split`, `Slice`, `Pad`, `Gather` → the graph op of
//! the same name; `Expand` → `graph.broadcast`; `Tile` → reshapes around a broadcast; `Trilu` →
//! `graph.where` with a constant mask.
//!
//! Shapes, axes, starts and pads are inputs in ONNX but attributes (or result types) in the
//! dialect, so those inputs must be constants, which folding makes them in static models. A node
//! that does not move anything (a reshape to the same shape, a full slice) is dropped.

use super::compose::Compose;
use super::Builder;
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::infer;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{self, TensorType};
use crate::value::{Inputs, Value};

/// `Reshape`, `Squeeze`, `Unsqueeze` and `Flatten`.
pub fn reshape(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "data")?;
    let ty = input.ty();
    let shape = match node.op_type() {
        "Reshape" => infer::reshape(node, inputs)?,
        "Squeeze" => infer::squeeze(node, inputs)?,
        "Unsqueeze" => infer::unsqueeze(node, inputs)?,
        _ => {
            let (axis, shape) = shape::flatten(&ty.shape, node.int("axis", 1)?)
                .map_err(|message| node.invalid(message))?;
            let x = builder.operand(input);
            let result = TensorType::new(shape, ty.element);
            return Ok(vec![builder.emit(
                node,
                "graph.flatten",
                &[&x],
                &[("axis", Attribute::Int(axis as i64))],
                result,
            )]);
        }
    };
    if shape == ty.shape {
        return Ok(vec![input.clone()]);
    }
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.reshape",
        &[&x],
        &[],
        TensorType::new(shape, ty.element),
    )])
}

/// `Transpose`.
pub fn transpose(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "data")?;
    let (permutation, shape) = infer::transpose(node, inputs)?;
    if permutation
        .iter()
        .enumerate()
        .all(|(index, &dim)| dim == index as i64)
    {
        return Ok(vec![input.clone()]);
    }
    let result = TensorType::new(shape, input.ty().element);
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.transpose",
        &[&x],
        &[("permutation", Attribute::Ints(permutation))],
        result,
    )])
}

/// `Concat`.
pub fn concat(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let (axis, shape) = infer::concat(node, inputs)?;
    let values: Vec<&Value> = inputs.present().collect();
    if let [only] = values.as_slice() {
        return Ok(vec![(*only).clone()]);
    }
    let result = TensorType::new(shape, values[0].ty().element);
    let operands: Vec<_> = values.iter().map(|value| builder.operand(value)).collect();
    let operands: Vec<_> = operands.iter().collect();
    Ok(vec![builder.emit(
        node,
        "graph.concat",
        &operands,
        &[("axis", Attribute::Int(axis as i64))],
        result,
    )])
}

/// `Split`: sizes from the `split` input, or `num_outputs` (opset 18; the last piece may be
/// smaller), or equal pieces, one per output.
pub fn split(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "input")?;
    let ty = input.ty();
    let axis =
        shape::axis(node.int("axis", 0)?, ty.rank()).map_err(|message| node.invalid(message))?;
    let size = ty.shape[axis];
    let sizes: Vec<usize> = match inputs.ints(1, "split")? {
        Some(sizes) => sizes
            .iter()
            .map(|&size| usize::try_from(size))
            .collect::<Result<_, _>>()
            .map_err(|_| node.invalid(format!("split sizes {sizes:?} must not be negative")))?,
        None => {
            let pieces = node.int("num_outputs", node.proto.output.len() as i64)?;
            let pieces = usize::try_from(pieces)
                .ok()
                .filter(|&pieces| pieces >= 1 && pieces <= size.max(1))
                .ok_or_else(|| {
                    node.invalid(format!("cannot split {size} elements into {pieces} pieces"))
                })?;
            let chunk = size.div_ceil(pieces);
            (0..pieces)
                .map(|piece| chunk.min(size - (chunk * piece).min(size)))
                .collect()
        }
    };
    if sizes.len() != node.proto.output.len() {
        return Err(node.invalid(format!(
            "{} pieces for {} outputs",
            sizes.len(),
            node.proto.output.len()
        )));
    }
    let shapes = shape::split(&ty.shape, axis, &sizes).map_err(|message| node.invalid(message))?;
    let results: Vec<TensorType> = shapes
        .into_iter()
        .map(|shape| TensorType::new(shape, ty.element))
        .collect();
    let x = builder.operand(input);
    let pieces = builder.body.op(
        "graph.split",
        &[&x],
        &[("axis", Attribute::Int(axis as i64))],
        &results,
        &node.name,
    );
    Ok(pieces.into_iter().map(Value::Dynamic).collect())
}

/// `Slice` with constant starts, ends, axes and positive steps.
pub fn slice(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "data")?;
    let ty = input.ty();
    let window = infer::slice(node, inputs)?;
    if window.shape == ty.shape && window.starts.iter().all(|&start| start == 0) {
        return Ok(vec![input.clone()]);
    }
    let as_i64 = |values: &[usize]| values.iter().map(|&value| value as i64).collect();
    let attributes = [
        ("starts", Attribute::Ints(as_i64(&window.starts))),
        ("steps", Attribute::Ints(as_i64(&window.steps))),
    ];
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.slice",
        &[&x],
        &attributes,
        TensorType::new(window.shape, ty.element),
    )])
}

/// `Pad` with constant pads, constant value and (opset 18) axes.
pub fn pad(builder: &mut Builder, node: &Node, inputs: &Inputs) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "data")?;
    let ty = input.ty();
    let mode = match node.string("mode", "constant")?.as_str() {
        "constant" => "constant",
        "reflect" => "reflect",
        "edge" => "edge",
        other => return Err(node.unsupported(format!("mode '{other}' is not supported"))),
    };
    let given = inputs.required_ints(1, "pads")?;
    let pads = match inputs.ints(3, "axes")? {
        None => given,
        Some(axes) => {
            let dims = shape::axes(&axes, ty.rank()).map_err(|message| node.invalid(message))?;
            if given.len() != 2 * dims.len() {
                return Err(node.invalid(format!("{} pads for {} axes", given.len(), dims.len())));
            }
            // `axes` may be in any order; shape::axes sorted them, so look each one up.
            let mut pads = vec![0; 2 * ty.rank()];
            for (index, &axis) in axes.iter().enumerate() {
                let dim = shape::axis(axis, ty.rank()).map_err(|message| node.invalid(message))?;
                pads[dim] = given[index];
                pads[ty.rank() + dim] = given[axes.len() + index];
            }
            pads
        }
    };
    let shape = shape::pad(&ty.shape, &pads).map_err(|message| node.invalid(message))?;
    if mode == "reflect" {
        // Reflection mirrors the dimension without its edge value, so a pad reaches at most
        // size - 1 elements in; graph.pad's verifier holds it to that.
        let rank = ty.rank();
        if let Some(dim) = (0..rank).find(|&d| {
            pads[d].max(pads[rank + d]) >= ty.shape[d] as i64 && pads[d].max(pads[rank + d]) > 0
        }) {
            return Err(node.unsupported(format!(
                "reflect padding of {} on dimension {dim} of size {} is not supported \
                 (a reflection pad must be smaller than its dimension)",
                pads[dim].max(pads[rank + dim]),
                ty.shape[dim]
            )));
        }
    }
    let value = match inputs.constant(2, "constant_value")? {
        None => 0.0,
        Some(tensor) => tensor
            .scalar_f32()
            .ok_or_else(|| node.invalid("constant_value must be a scalar"))?,
    };
    let attributes = [
        ("pads", Attribute::Ints(pads)),
        ("mode", Attribute::Enum("pad_mode", mode)),
        ("value", Attribute::Float(value)),
    ];
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.pad",
        &[&x],
        &attributes,
        TensorType::new(shape, ty.element),
    )])
}

/// `Gather` → `graph.gather` (indices may be computed at run time).
pub fn gather(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let (axis, shape) = infer::gather(node, inputs)?;
    let data = builder.operand(inputs.required(0, "data")?);
    let indices = builder.operand(inputs.required(1, "indices")?);
    let result = TensorType::new(shape, data.ty.element);
    Ok(vec![builder.emit(
        node,
        "graph.gather",
        &[&data, &indices],
        &[("axis", Attribute::Int(axis as i64))],
        result,
    )])
}

/// `Expand` → `graph.broadcast`.
pub fn expand(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "input")?;
    let shape = infer::expand(node, inputs)?;
    let ty = input.ty();
    if shape == ty.shape {
        return Ok(vec![input.clone()]);
    }
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.broadcast",
        &[&x],
        &[],
        TensorType::new(shape, ty.element),
    )])
}

/// `Tile` with constant repeats: each dimension `d` of size `n` repeated `r > 1` times is an
/// inserted dimension of size `r` before it, broadcast, then merged: `reshape` to
/// `[1, n0, 1, n1, ...]`, `broadcast` to `[r0, n0, r1, n1, ...]`, `reshape` to `[r0 n0, ...]`.
pub fn tile(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "input")?;
    let ty = input.ty();
    let repeats = inputs.required_ints(1, "repeats")?;
    if repeats.len() != ty.rank() {
        return Err(node.invalid(format!(
            "repeats has {} values for an input of rank {}",
            repeats.len(),
            ty.rank()
        )));
    }
    let repeats =
        shape::static_dims(&repeats, "repeat").map_err(|message| node.invalid(message))?;
    if repeats.iter().all(|&repeat| repeat == 1) {
        return Ok(vec![input.clone()]);
    }
    // Only repeated dimensions get an inserted dimension, so that the broadcast has as few runs
    // of repeated and kept dimensions as the repeats allow.
    let interleaved = |first: &dyn Fn(usize) -> usize| -> Vec<usize> {
        (0..ty.rank())
            .flat_map(|dim| match repeats[dim] {
                1 => vec![ty.shape[dim]],
                _ => vec![first(dim), ty.shape[dim]],
            })
            .collect()
    };
    let result: Vec<usize> = (0..ty.rank())
        .map(|dim| repeats[dim] * ty.shape[dim])
        .collect();
    if types::checked_len(&result).is_none() {
        return Err(node.invalid(format!("the result shape {result:?} is too large")));
    }
    let x = builder.operand(input);
    let mut compose = Compose::new(builder, node);
    let spread = compose.reshape(&x, interleaved(&|_| 1));
    let repeated = compose.broadcast(&spread, interleaved(&|dim| repeats[dim]));
    Ok(vec![Value::Dynamic(compose.reshape(&repeated, result))])
}

/// `Trilu` with a constant diagonal offset `k`: the elements outside the kept triangle of the
/// last two dimensions become 0, by `graph.where` with a constant mask.
pub fn trilu(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "input")?;
    let ty = input.ty();
    if ty.rank() < 2 {
        return Err(node.invalid(format!(
            "expects an input of rank at least 2, got {:?}",
            ty.shape
        )));
    }
    let offset = match inputs.ints(1, "k")? {
        None => 0,
        Some(values) if values.len() == 1 => values[0],
        Some(values) => return Err(node.invalid(format!("k must be a scalar, got {values:?}"))),
    };
    let upper = node.int("upper", 1)? != 0;
    let (rows, columns) = (ty.shape[ty.rank() - 2], ty.shape[ty.rank() - 1]);
    let keep: Vec<bool> = (0..rows * columns)
        .map(|index| {
            let diagonal = (index % columns) as i64 - (index / columns) as i64;
            if upper {
                diagonal >= offset
            } else {
                diagonal <= offset
            }
        })
        .collect();
    let mask = Tensor::new(vec![rows, columns], Data::Bool(keep));
    let mask = builder.body.constant(&mask, &node.name);
    let zero = Tensor::new(Vec::new(), Data::zeros(ty.element, 1));
    let zero = builder.body.constant(&zero, &node.name);
    let x = builder.operand(input);
    let mut compose = Compose::new(builder, node);
    Ok(vec![Value::Dynamic(compose.select(&mask, &x, &zero)?)])
}

/// `GatherElements` → `graph.gather_elements` (indices may be computed at run time).
pub fn gather_elements(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let data = builder.operand(inputs.required(0, "data")?);
    let indices = builder.operand(inputs.required(1, "indices")?);
    let axis = element_indices(node, &data.ty, &indices.ty)?;
    let result = TensorType::new(indices.ty.shape.clone(), data.ty.element);
    Ok(vec![builder.emit(
        node,
        "graph.gather_elements",
        &[&data, &indices],
        &[("axis", Attribute::Int(axis as i64))],
        result,
    )])
}

/// `ScatterElements` (and the `Scatter` it replaced) → `graph.scatter_elements` (indices and
/// updates may be computed at run time).
pub fn scatter_elements(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let data = builder.operand(inputs.required(0, "data")?);
    let indices = builder.operand(inputs.required(1, "indices")?);
    let updates = builder.operand(inputs.required(2, "updates")?);
    let axis = element_indices(node, &data.ty, &indices.ty)?;
    if updates.ty != TensorType::new(indices.ty.shape.clone(), data.ty.element) {
        return Err(node.invalid(format!(
            "updates {} differ from the indices' shape {:?} or the data's element type {}",
            updates.ty, indices.ty.shape, data.ty.element
        )));
    }
    let reduction = match node.string("reduction", "none")?.as_str() {
        "none" => "none",
        "add" => "add",
        "mul" => "mul",
        "max" => "max",
        "min" => "min",
        other => return Err(node.invalid(format!("unknown reduction '{other}'"))),
    };
    if reduction != "none" && data.ty.element == types::ElementType::Bool {
        return Err(node.invalid(format!("reduction '{reduction}' on booleans")));
    }
    Ok(vec![builder.emit(
        node,
        "graph.scatter_elements",
        &[&data, &indices, &updates],
        &[
            ("axis", Attribute::Int(axis as i64)),
            ("reduction", Attribute::Enum("reduction", reduction)),
        ],
        data.ty.clone(),
    )])
}

/// The axis of a gather or scatter of elements, after checking that `indices` are integers of
/// the rank of `data` that reach past it along no other axis.
fn element_indices(
    node: &Node,
    data: &TensorType,
    indices: &TensorType,
) -> Result<usize, ImportError> {
    let rank = data.rank();
    let axis = shape::axis(node.int("axis", 0)?, rank).map_err(|message| node.invalid(message))?;
    if indices.rank() != rank {
        return Err(node.invalid(format!(
            "indices of rank {} for data of rank {rank}",
            indices.rank()
        )));
    }
    if !matches!(
        indices.element,
        types::ElementType::I32 | types::ElementType::I64
    ) {
        return Err(node.invalid(format!("indices are {}, not integers", indices.element)));
    }
    if let Some(dim) = (0..rank).find(|&d| d != axis && indices.shape[d] > data.shape[d]) {
        return Err(node.invalid(format!(
            "indices {:?} reach past the data {:?} along dimension {dim}",
            indices.shape, data.shape
        )));
    }
    Ok(axis)
}
