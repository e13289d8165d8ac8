//! Normalisation: `BatchNormalization` → `graph.batch_norm`, `LayerNormalization` →
//! `graph.layer_norm` (its mean and inverse standard deviation outputs, when used, composed from
//! reductions), `Softmax` → `graph.softmax`, `LRN` → `graph.lrn`; `LogSoftmax` is composed as
//! `x - m - log(sum(exp(x - m)))` with `m` the maximum, and `InstanceNormalization` as a layer
//! norm over the spatial elements of each channel followed by the per-channel scale and bias.
//!
//! Only inference forms are imported: the training outputs of batch normalisation (running
//! statistics) have no counterpart, so a model that uses them is rejected when the importer finds
//! the extra output used.

use super::compose::Compose;
use super::{coerce, float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::TensorType;
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
    let epsilon = node.float("epsilon", 1e-5)?;
    let attributes = [
        ("axis", Attribute::Int(axis)),
        ("epsilon", Attribute::Float(epsilon)),
    ];
    let normalized = builder.emit(node, "graph.layer_norm", &operands, &attributes, ty.clone());
    let mut outputs = vec![normalized];
    if node
        .proto
        .output
        .iter()
        .skip(1)
        .any(|name| !name.is_empty())
    {
        let first = ty.rank() - normalized_rank(&ty.shape, axis);
        let x = operands[0].clone();
        outputs.extend(statistics(
            &mut Compose::new(builder, node),
            &x,
            first,
            epsilon,
        )?);
    }
    Ok(outputs)
}

/// The number of trailing dimensions that `axis` normalises.
fn normalized_rank(shape: &[usize], axis: i64) -> usize {
    let axis = if axis < 0 {
        axis + shape.len() as i64
    } else {
        axis
    };
    shape.len() - axis as usize
}

/// Layer normalisation's mean and inverse standard deviation over the dimensions from `first`,
/// kept as 1s (ONNX's `Mean` and `InvStdDev` outputs).
fn statistics(
    compose: &mut Compose,
    x: &Operand,
    first: usize,
    epsilon: f32,
) -> Result<[Value; 2], ImportError> {
    let axes: Vec<usize> = (first..x.ty.rank()).collect();
    let mean = compose.reduce("graph.reduce_mean", x, &axes, true);
    let centered = compose.binary("graph.sub", x, &mean)?;
    let square = compose.binary("graph.mul", &centered, &centered)?;
    let variance = compose.reduce("graph.reduce_mean", &square, &axes, true);
    let shifted = compose.shifted(&variance, epsilon)?;
    let deviation = compose.unary("graph.sqrt", &shifted);
    let inverse = compose.unary("graph.reciprocal", &deviation);
    Ok([Value::Dynamic(mean), Value::Dynamic(inverse)])
}

/// `InstanceNormalization`: each channel of each item normalised over its spatial elements.
pub fn instance_norm(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "input")?;
    let ty = x.ty();
    if ty.rank() < 3 {
        return Err(node.invalid(format!(
            "expects an input of rank at least 3 (N, C, spatial...), got {:?}",
            ty.shape
        )));
    }
    let channels = ty.shape[1];
    let mut parameters = Vec::new();
    for (index, what) in [(1, "scale"), (2, "B")] {
        let parameter = float_input(node, inputs, index, what)?;
        if parameter.ty().shape != [channels] {
            return Err(node.invalid(format!(
                "{what} has shape {:?}, not [{channels}]",
                parameter.ty().shape
            )));
        }
        let mut per_channel = vec![1; ty.rank() - 1];
        per_channel[0] = channels;
        parameters.push(coerce(builder, node, parameter, &per_channel));
    }
    let spatial: usize = ty.shape[2..].iter().product();
    let ones = Tensor::new(Vec::new(), Data::F32(vec![1.0]));
    let ones = builder.body.splat(
        &ones,
        TensorType::new(vec![spatial], ty.element),
        &node.name,
    );
    let x = builder.operand(x);
    let mut compose = Compose::new(builder, node);
    let flat = compose.reshape(&x, vec![ty.shape[0], channels, spatial]);
    let attributes = [
        ("axis", Attribute::Int(-1)),
        ("epsilon", Attribute::Float(node.float("epsilon", 1e-5)?)),
    ];
    let normalized = compose.op(
        "graph.layer_norm",
        &[&flat, &ones],
        &attributes,
        flat.ty.clone(),
    );
    let normalized = compose.reshape(&normalized, ty.shape.clone());
    let scaled = compose.binary("graph.mul", &normalized, &parameters[0])?;
    Ok(vec![Value::Dynamic(compose.binary(
        "graph.add",
        &scaled,
        &parameters[1],
    )?)])
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

/// `LogSoftmax` with opset 13 semantics: along one axis (default -1).
pub fn log_softmax(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "input")?;
    let axis = shape::axis(node.int("axis", -1)?, x.ty().rank())
        .map_err(|message| node.invalid(message))?;
    let x = builder.operand(x);
    let log_softmax = Compose::new(builder, node).log_softmax(&x, axis)?;
    Ok(vec![Value::Dynamic(log_softmax)])
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
