//! Normalisation: `BatchNormalization` → `graph.batch_norm`, `LayerNormalization` →
//! `graph.layer_norm`, `Softmax` → `graph.softmax`, `LRN` → `graph.lrn`.
//!
//! Only inference forms are imported: the training outputs (running statistics, saved mean and
//! inverse standard deviation) have no counterpart, so a model that uses them is rejected when
//! the importer finds the extra output used.

use super::{coerce, float_input, Builder};
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::value::{Inputs, Value};

/// `BatchNormalization` in inference mode.
pub fn batch_norm(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    node.require_int_defaults(&[("training_mode", 0)])?;
    let x = float_input(node, inputs, 0, "X")?;
    let ty = x.ty();
    if ty.rank() < 2 {
        return Err(node.invalid(format!(
            "expects an input of rank at least 2 (N, C, ...), got {:?}",
            ty.shape
        )));
    }
    let mut operands = vec![builder.operand(x)];
    for (index, what) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
        let parameter = float_input(node, inputs, index, what)?;
        if parameter.ty().shape != [ty.shape[1]] {
            return Err(node.invalid(format!(
                "{what} has shape {:?}, not [{}]",
                parameter.ty().shape,
                ty.shape[1]
            )));
        }
        operands.push(builder.operand(parameter));
    }
    let operands: Vec<_> = operands.iter().collect();
    let attributes = [("epsilon", Attribute::Float(node.float("epsilon", 1e-5)?))];
    Ok(vec![builder.emit(
        node,
        "graph.batch_norm",
        &operands,
        &attributes,
        ty,
    )])
}

/// `LayerNormalization` (opset 17): scale and bias broadcast to `shape[axis:]` as ONNX allows.
pub fn layer_norm(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let ty = x.ty();
    let axis = node.int("axis", -1)?;
    let normalized =
        ty.shape[shape::axis(axis, ty.rank()).map_err(|message| node.invalid(message))?..].to_vec();
    let mut parameters = vec![float_input(node, inputs, 1, "Scale")?];
    if inputs.get(2).is_some() {
        parameters.push(float_input(node, inputs, 2, "B")?);
    }
    let mut operands = vec![builder.operand(x)];
    for parameter in parameters {
        let shape = parameter.ty().shape;
        if shape::broadcast(&shape, &normalized).ok().as_ref() != Some(&normalized) {
            return Err(node.invalid(format!(
                "parameter shape {shape:?} does not broadcast to {normalized:?}"
            )));
        }
        operands.push(coerce(builder, node, parameter, &normalized));
    }
    let operands: Vec<_> = operands.iter().collect();
    let attributes = [
        ("axis", Attribute::Int(axis)),
        ("epsilon", Attribute::Float(node.float("epsilon", 1e-5)?)),
    ];
    Ok(vec![builder.emit(
        node,
        "graph.layer_norm",
        &operands,
        &attributes,
        ty,
    )])
}

/// `Softmax` with opset 13 semantics: along one axis (default -1).
pub fn softmax(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "input")?;
    let ty = x.ty();
    let axis = node.int("axis", -1)?;
    shape::axis(axis, ty.rank()).map_err(|message| node.invalid(message))?;
    let x = builder.operand(x);
    Ok(vec![builder.emit(
        node,
        "graph.softmax",
        &[&x],
        &[("axis", Attribute::Int(axis))],
        ty,
    )])
}

/// `LRN` across channels of an NCHW tensor.
pub fn lrn(builder: &mut Builder, node: &Node, inputs: &Inputs) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let ty = x.ty();
    if ty.rank() != 4 {
        return Err(node.unsupported(format!(
            "{}-D inputs are not supported, only 4-D (NCHW)",
            ty.rank()
        )));
    }
    let size = node.int("size", 0)?;
    if !(1..=i64::from(u16::MAX)).contains(&size) {
        return Err(node.invalid(format!("'size' must be a positive window, got {size}")));
    }
    let attributes = [
        ("size", Attribute::Int(size)),
        ("alpha", Attribute::Float(node.float("alpha", 1e-4)?)),
        ("beta", Attribute::Float(node.float("beta", 0.75)?)),
        ("bias", Attribute::Float(node.float("bias", 1.0)?)),
    ];
    let x = builder.operand(x);
    Ok(vec![builder.emit(
        node,
        "graph.lrn",
        &[&x],
        &attributes,
        ty,
    )])
}
