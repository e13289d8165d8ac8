//! Sliding windows: `Conv` → `graph.conv2d`, `MaxPool`/`AveragePool` → `graph.max_pool2d`/
//! `graph.avg_pool2d`, `GlobalAveragePool` → `graph.global_avg_pool`, `GlobalMaxPool` →
//! `graph.reduce_max` over the spatial axes.
//!
//! The graph dialect has 2-D windows only, with explicit pads: `auto_pad` is resolved here to
//! `[top, left, bottom, right]` from the input size. A 1-D window (the convolutions and pools of
//! audio and sequence models, NCL) is a 2-D window of height 1: the input is reshaped to NC1L,
//! a constant filter is folded to OI1K, and the result is reshaped back. A 3-D window is an
//! error.

use std::rc::Rc;

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// The resolved geometry of a 2-D window.
pub(super) struct Window {
    pub(super) strides: Vec<i64>,
    pub(super) pads: Vec<i64>,
    pub(super) dilations: Vec<i64>,
    /// Output height and width.
    pub(super) output: [usize; 2],
}

/// A per-dimension attribute list of `spatial` positive values, as 2 values (a 1-D window's
/// lifted to height 1); `[1, 1]` when absent unless `required`.
pub(super) fn pair(
    node: &Node,
    name: &str,
    required: bool,
    spatial: usize,
) -> Result<Vec<i64>, ImportError> {
    let values = match node.ints(name)? {
        Some(values) => values,
        None if required => return Err(node.invalid(format!("attribute '{name}' is missing"))),
        None => vec![1; spatial],
    };
    if values.len() != spatial
        || values
            .iter()
            .any(|&value| value < 1 || shape::bounded(value, name).is_err())
    {
        return Err(node.invalid(format!(
            "'{name}' must hold {spatial} positive values, got {values:?}"
        )));
    }
    Ok(if spatial == 1 {
        vec![1, values[0]]
    } else {
        values
    })
}

/// Reads strides, dilations, pads and auto_pad and computes the output size of a window of
/// `kernel` over the spatial dimensions of `input` (NCHW, a 1-D window's lifted to height 1;
/// `spatial` is the window's own number of dimensions).
pub(super) fn window(
    node: &Node,
    input: &[usize],
    kernel: [i64; 2],
    ceil_mode: bool,
    spatial: usize,
) -> Result<Window, ImportError> {
    if kernel.iter().any(|&size| size < 1) {
        return Err(node.invalid(format!("kernel {kernel:?} has an empty dimension")));
    }
    let strides = pair(node, "strides", false, spatial)?;
    let dilations = pair(node, "dilations", false, spatial)?;
    let auto_pad = node.string("auto_pad", "NOTSET")?;
    let pads = if auto_pad == "NOTSET" {
        let pads = node.ints("pads")?.unwrap_or_else(|| vec![0; 2 * spatial]);
        if pads.len() != 2 * spatial
            || pads
                .iter()
                .any(|&pad| pad < 0 || shape::bounded(pad, "pad").is_err())
        {
            return Err(node.invalid(format!(
                "'pads' must hold {} non-negative values, got {pads:?}",
                2 * spatial
            )));
        }
        if spatial == 1 {
            vec![0, pads[0], 0, pads[1]]
        } else {
            pads
        }
    } else {
        let mut pads = vec![0; 4];
        for dim in 0..2 {
            let (begin, end) = shape::auto_pad(
                &auto_pad,
                input[2 + dim],
                kernel[dim],
                strides[dim],
                dilations[dim],
            )
            .map_err(|message| node.invalid(message))?;
            pads[dim] = begin;
            pads[2 + dim] = end;
        }
        pads
    };
    let mut output = [0; 2];
    for dim in 0..2 {
        output[dim] = shape::window(
            input[2 + dim],
            pads[dim],
            pads[2 + dim],
            kernel[dim],
            strides[dim],
            dilations[dim],
            ceil_mode,
        )
        .map_err(|message| node.unsupported(message))?;
    }
    Ok(Window {
        strides,
        pads,
        dilations,
        output,
    })
}

/// The number of spatial dimensions of a window over an input of `rank`: 2 (NCHW) or 1 (NCL);
/// other ranks fail.
pub(super) fn spatial_rank(node: &Node, rank: usize) -> Result<usize, ImportError> {
    if rank == 3 || rank == 4 {
        return Ok(rank - 2);
    }
    let what = match rank.checked_sub(2) {
        Some(spatial) if spatial > 0 => {
            format!("{spatial}-D windows are not supported, only 1-D (NCL) and 2-D (NCHW)")
        }
        _ => {
            return Err(node.invalid(format!(
                "expects an input of rank at least 3, got rank {rank}"
            )))
        }
    };
    Err(node.unsupported(what))
}

/// `shape` as NCHW: a 1-D window's NCL (or OIK) with a height of 1 inserted.
pub(super) fn lifted(shape: &[usize]) -> Vec<usize> {
    match shape {
        [n, c, l] => vec![*n, *c, 1, *l],
        _ => shape.to_vec(),
    }
}

/// `value` lifted to NCHW: a constant is reshaped now (a filter stays a weight), a run-time value
/// by `graph.reshape`.
fn lifted_operand(builder: &mut Builder, node: &Node, value: &Value) -> Operand {
    let shape = lifted(&value.ty().shape);
    match value {
        Value::Const { name, tensor } if tensor.shape != shape => builder.operand(&Value::Const {
            name: format!("{name}.2d"),
            tensor: Rc::new(Tensor::new(shape, tensor.data.clone())),
        }),
        _ => {
            let operand = builder.operand(value);
            Compose::new(builder, node).reshape(&operand, shape)
        }
    }
}

/// `result` (NCHW) with the inserted height removed again when the window is 1-D.
pub(super) fn lowered(
    builder: &mut Builder,
    node: &Node,
    result: Operand,
    spatial: usize,
) -> Vec<Value> {
    let result = if spatial == 1 {
        let shape = vec![result.ty.shape[0], result.ty.shape[1], result.ty.shape[3]];
        Compose::new(builder, node).reshape(&result, shape)
    } else {
        result
    };
    vec![Value::Dynamic(result)]
}

/// The `group` attribute of convolution `node`, checked against its `channels` input channels
/// and its (2-D) `filter` shape; `shown` is the filter's shape as the model gives it, for the
/// message.
pub(super) fn groups(
    node: &Node,
    channels: usize,
    filter: &[usize],
    shown: &[usize],
) -> Result<i64, ImportError> {
    let groups = node.int("group", 1)?;
    let channels = channels as i64;
    if groups < 1
        || channels % groups != 0
        || filter[0] as i64 % groups != 0
        || channels / groups != filter[1] as i64
    {
        return Err(node.invalid(format!(
            "{groups} groups do not fit {channels} input channels and a filter of shape {shown:?}"
        )));
    }
    Ok(groups)
}

/// The optional bias, input 2, which must hold one f32 per output channel.
pub(super) fn bias<'a>(
    node: &Node,
    inputs: &Inputs<'a>,
    channels: usize,
) -> Result<Option<&'a Value>, ImportError> {
    if inputs.get(2).is_none() {
        return Ok(None);
    }
    let bias = float_input(node, inputs, 2, "B")?;
    if bias.ty().shape != [channels] {
        return Err(node.invalid(format!(
            "bias shape {:?} is not [{channels}]",
            bias.ty().shape
        )));
    }
    Ok(Some(bias))
}

/// `Conv` → `graph.conv2d`.
pub fn conv(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let w = float_input(node, inputs, 1, "W")?;
    let spatial = spatial_rank(node, x.ty().rank())?;
    if w.ty().rank() != spatial + 2 {
        return Err(node.invalid(format!(
            "expects a {}-D filter, got shape {:?}",
            spatial + 2,
            w.ty().shape
        )));
    }
    let (input, filter) = (lifted(&x.ty().shape), lifted(&w.ty().shape));
    let kernel = [filter[2] as i64, filter[3] as i64];
    if let Some(given) = node.ints("kernel_shape")? {
        if given[..] != kernel[2 - spatial..] {
            return Err(node.invalid(format!(
                "kernel_shape {given:?} differs from the filter's {:?}",
                &kernel[2 - spatial..]
            )));
        }
    }
    let groups = groups(node, input[1], &filter, &w.ty().shape)?;
    let bias = bias(node, inputs, filter[0])?;
    let geometry = window(node, &input, kernel, false, spatial)?;
    let result = TensorType::new(
        vec![input[0], filter[0], geometry.output[0], geometry.output[1]],
        x.ty().element,
    );
    let mut operands = vec![
        lifted_operand(builder, node, x),
        lifted_operand(builder, node, w),
    ];
    operands.extend(bias.map(|bias| builder.operand(bias)));
    let attributes = [
        ("strides", Attribute::Ints(geometry.strides)),
        ("pads", Attribute::Ints(geometry.pads)),
        ("dilations", Attribute::Ints(geometry.dilations)),
        ("groups", Attribute::Int(groups)),
    ];
    let operands: Vec<_> = operands.iter().collect();
    let result = builder
        .body
        .op1("graph.conv2d", &operands, &attributes, result, &node.name);
    Ok(lowered(builder, node, result, spatial))
}

/// `MaxPool` → `graph.max_pool2d`, `AveragePool` → `graph.avg_pool2d`.
pub fn pool(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let spatial = spatial_rank(node, x.ty().rank())?;
    let input = lifted(&x.ty().shape);
    let kernel = pair(node, "kernel_shape", true, spatial)?;
    let ceil_mode = node.int("ceil_mode", 0)? != 0;
    let geometry = window(node, &input, [kernel[0], kernel[1]], ceil_mode, spatial)?;
    let result = TensorType::new(
        vec![input[0], input[1], geometry.output[0], geometry.output[1]],
        x.ty().element,
    );
    let x = lifted_operand(builder, node, x);
    let mut attributes = vec![
        ("kernel", Attribute::Ints(kernel)),
        ("strides", Attribute::Ints(geometry.strides)),
        ("pads", Attribute::Ints(geometry.pads)),
        ("ceil_mode", Attribute::Bool(ceil_mode)),
    ];
    let op = if node.op_type() == "MaxPool" {
        node.require_int_defaults(&[("storage_order", 0)])?;
        attributes.push(("dilations", Attribute::Ints(geometry.dilations)));
        "graph.max_pool2d"
    } else {
        if geometry.dilations != [1, 1] {
            return Err(node.unsupported("dilated average pooling is not supported"));
        }
        attributes.push((
            "count_include_pad",
            Attribute::Bool(node.int("count_include_pad", 0)? != 0),
        ));
        "graph.avg_pool2d"
    };
    let result = builder.body.op1(op, &[&x], &attributes, result, &node.name);
    Ok(lowered(builder, node, result, spatial))
}

/// `GlobalAveragePool` → `graph.global_avg_pool`; `GlobalMaxPool` → `graph.reduce_max` over the
/// spatial dimensions, keeping them as 1s.
pub fn global_pool(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let input = x.ty().shape;
    if input.len() < 3 {
        return Err(node.invalid(format!(
            "expects an input of rank at least 3 (N, C, spatial...), got {input:?}"
        )));
    }
    let mut shape = vec![1; input.len()];
    shape[..2].copy_from_slice(&input[..2]);
    let result = TensorType::new(shape, x.ty().element);
    let x = builder.operand(x);
    Ok(vec![if node.op_type() == "GlobalAveragePool" {
        builder.emit(node, "graph.global_avg_pool", &[&x], &[], result)
    } else {
        let axes = (2..input.len() as i64).collect();
        builder.emit(
            node,
            "graph.reduce_max",
            &[&x],
            &[
                ("axes", Attribute::Ints(axes)),
                ("keepdims", Attribute::Bool(true)),
            ],
            result,
        )
    }])
}
