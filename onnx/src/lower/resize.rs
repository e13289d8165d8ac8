//! `Resize` (opsets 11-19) → `graph.resize`: nearest, linear and cubic interpolation with
//! constant scales or sizes. The dialect keeps the scale of every dimension, because ONNX maps
//! coordinates with the given scale, which differs from `out / in` when the product was rounded.

use super::Builder;
use crate::emit::Attribute;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::Data;
use crate::types::{checked_len, format_shape, TensorType, MAX_ELEMENTS};
use crate::value::{Inputs, Value};

/// `Resize`.
pub fn resize(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = super::float_input(node, inputs, 0, "X")?;
    let ty = input.ty();
    let (mode, coordinates, nearest) = modes(node)?;
    let axes = resized_axes(node, ty.rank())?;
    let (scales, shape) = scales_and_shape(node, inputs, &ty, &axes)?;
    if checked_len(&shape).is_none() {
        return Err(node.unsupported(format!(
            "an output of shape {} has more than 2^31 elements",
            format_shape(&shape)
        )));
    }
    if shape == ty.shape && scales.iter().all(|&scale| scale == 1.0) {
        return Ok(vec![input.clone()]);
    }
    let attributes = [
        ("scales", Attribute::Floats(scales)),
        ("mode", Attribute::Enum("resize_mode", mode)),
        (
            "coordinates",
            Attribute::Enum("resize_coordinates", coordinates),
        ),
        ("nearest", Attribute::Enum("nearest_rounding", nearest)),
    ];
    let mut attributes = attributes.to_vec();
    if mode == "cubic" {
        attributes.push((
            "cubic_coeff_a",
            Attribute::Float(node.float("cubic_coeff_a", -0.75)?),
        ));
        attributes.push((
            "exclude_outside",
            Attribute::Bool(node.int("exclude_outside", 0)? != 0),
        ));
    }
    let x = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.resize",
        &[&x],
        &attributes,
        TensorType::new(shape, ty.element),
    )])
}

/// The interpolation mode, coordinate transformation and nearest rounding, as the dialect
/// names them; refuses antialiasing and aspect-ratio policies other than stretching.
fn modes(node: &Node) -> Result<(&'static str, &'static str, &'static str), ImportError> {
    let mode = match node.string("mode", "nearest")?.as_str() {
        "nearest" => "nearest",
        "linear" => "linear",
        "cubic" => "cubic",
        other => return Err(node.invalid(format!("unknown mode '{other}'"))),
    };
    let coordinates = match node
        .string("coordinate_transformation_mode", "half_pixel")?
        .as_str()
    {
        "half_pixel" => "half_pixel",
        "pytorch_half_pixel" => "pytorch_half_pixel",
        "align_corners" => "align_corners",
        "asymmetric" => "asymmetric",
        other => {
            return Err(node.unsupported(format!(
                "coordinate_transformation_mode '{other}' is not supported"
            )))
        }
    };
    let nearest = match node.string("nearest_mode", "round_prefer_floor")?.as_str() {
        "round_prefer_floor" => "round_prefer_floor",
        "round_prefer_ceil" => "round_prefer_ceil",
        "floor" => "floor",
        "ceil" => "ceil",
        other => return Err(node.invalid(format!("unknown nearest_mode '{other}'"))),
    };
    if node.int("antialias", 0)? != 0 {
        return Err(node.unsupported("antialias is not supported"));
    }
    let policy = node.string("keep_aspect_ratio_policy", "stretch")?;
    if policy != "stretch" {
        return Err(node.unsupported(format!(
            "keep_aspect_ratio_policy '{policy}' is not supported"
        )));
    }
    Ok((mode, coordinates, nearest))
}

/// The axes the scales or sizes are given for: all, or (opset 18) those `axes` names.
fn resized_axes(node: &Node, rank: usize) -> Result<Vec<usize>, ImportError> {
    Ok(match node.ints("axes")? {
        None => (0..rank).collect(),
        Some(axes) => axes
            .iter()
            .map(|&axis| shape::axis(axis, rank))
            .collect::<Result<_, _>>()
            .map_err(|message| node.invalid(message))?,
    })
}

/// The scale of every dimension and the output shape, from exactly one of the constant
/// inputs `scales` and `sizes`.
fn scales_and_shape(
    node: &Node,
    inputs: &Inputs,
    ty: &TensorType,
    axes: &[usize],
) -> Result<(Vec<f32>, Vec<usize>), ImportError> {
    let given_scales = match inputs.constant(2, "scales")? {
        Some(tensor) if !tensor.data.is_empty() => match &tensor.data {
            Data::F32(values) => Some(values.clone()),
            _ => return Err(node.invalid("input 2 (scales) must hold floats")),
        },
        _ => None,
    };
    let sizes = inputs.ints(3, "sizes")?.filter(|sizes| !sizes.is_empty());
    match (given_scales, sizes) {
        (Some(given), None) => from_scales(node, ty, axes, &given),
        (None, Some(sizes)) => from_sizes(node, ty, axes, &sizes),
        (Some(_), Some(_)) => {
            Err(node.invalid("both scales and sizes are given; exactly one must be"))
        }
        (None, None) => Err(node.invalid("neither scales nor sizes is given; exactly one must be")),
    }
}

/// Scales and output shape from the given scales of `axes`: each size is floored, as ONNX's.
fn from_scales(
    node: &Node,
    ty: &TensorType,
    axes: &[usize],
    given: &[f32],
) -> Result<(Vec<f32>, Vec<usize>), ImportError> {
    let mut scales = vec![1.0f32; ty.rank()];
    let mut shape = ty.shape.clone();
    if given.len() != axes.len() {
        return Err(node.invalid(format!("{} scales for {} axes", given.len(), axes.len())));
    }
    for (&axis, &scale) in axes.iter().zip(given) {
        if scale.is_nan() || scale <= 0.0 {
            return Err(node.invalid(format!("scale {scale} of axis {axis} is not positive")));
        }
        scales[axis] = scale;
        let size = (ty.shape[axis] as f64 * scale as f64).floor();
        if size > MAX_ELEMENTS as f64 {
            return Err(node.unsupported(format!(
                "a scale of {scale} makes axis {axis} of size {size}, \
                 more than 2^31 elements"
            )));
        }
        // A scale below 1 / size empties the axis: an empty result, as ONNX's floor gives.
        shape[axis] = size as usize;
    }
    Ok((scales, shape))
}

/// Scales and output shape from the given sizes of `axes`: each scale is size / input size.
fn from_sizes(
    node: &Node,
    ty: &TensorType,
    axes: &[usize],
    sizes: &[i64],
) -> Result<(Vec<f32>, Vec<usize>), ImportError> {
    let mut scales = vec![1.0f32; ty.rank()];
    let mut shape = ty.shape.clone();
    if sizes.len() != axes.len() {
        return Err(node.invalid(format!("{} sizes for {} axes", sizes.len(), axes.len())));
    }
    for (&axis, &size) in axes.iter().zip(sizes) {
        if size <= 0 {
            return Err(node.invalid(format!("size {size} of axis {axis} is not positive")));
        }
        shape[axis] =
            shape::bounded(size, "size").map_err(|message| node.invalid(message))? as usize;
        scales[axis] = size as f32 / ty.shape[axis] as f32;
    }
    Ok((scales, shape))
}
