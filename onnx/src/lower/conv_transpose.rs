//! `ConvTranspose` (2-D, and 1-D as 2-D of height 1) as a convolution, which every schedule
//! compiles: the input is spread by inserting `stride - 1` zeros after each element along each
//! spatial dimension (`reshape`, `pad`, `reshape`, on rank-4 tensors), then convolved at stride 1
//! with the filter flipped in space and transposed per group, padded by
//! `dilation * (kernel - 1) - pad` on each side, plus `output_padding` at the end. Padding that
//! comes out negative is a `slice` instead. A constant filter (as exporters write it) is
//! transformed now; one computed at run time by `transpose` and `gather` of reversed indices.
//!
//! The spread input holds `stride²` times as many elements as the input and the convolution
//! multiplies the inserted zeros too, so a stride-2 layer does 4 times the arithmetic that a
//! dedicated kernel would. A layer whose windows tile the output without overlap (stride equal
//! to the kernel) is a 1×1 convolution and a pixel shuffle instead ([`pixel_shuffle`]).

use std::rc::Rc;

use super::compose::Compose;
use super::conv::{bias, lifted, lowered, pair, spatial_rank};
use super::pixel_shuffle;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// The geometry of a transposed convolution along the two (lifted) spatial dimensions.
struct Geometry {
    strides: Vec<i64>,
    dilations: Vec<i64>,
    /// Padding removed from the full result, `[top, left, bottom, right]` (negative: zeros added).
    pads: Vec<i64>,
    output_padding: Vec<i64>,
}

/// `ConvTranspose` → a spread input and `graph.conv2d`.
pub fn conv_transpose(
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
    let (input, shape) = (lifted(&x.ty().shape), lifted(&w.ty().shape));
    let groups = node.int("group", 1)?;
    if groups < 1 || input[1] as i64 % groups != 0 || shape[0] != input[1] {
        return Err(node.invalid(format!(
            "{groups} groups do not fit {} input channels and a filter of shape {:?}",
            input[1],
            w.ty().shape
        )));
    }
    let groups = groups as usize;
    let outputs = shape[1] * groups;
    let kernel = [shape[2] as i64, shape[3] as i64];
    if let Some(given) = node.ints("kernel_shape")? {
        if given[..] != kernel[2 - spatial..] {
            return Err(node.invalid(format!(
                "kernel_shape {given:?} differs from the filter's {:?}",
                &kernel[2 - spatial..]
            )));
        }
    }
    let geometry = geometry(node, &input, kernel, spatial)?;
    let bias = bias(node, inputs, outputs)?;
    let x = builder.operand(x);
    let tiles = groups == 1
        && geometry.strides[..] == kernel[..]
        && geometry.dilations.iter().all(|&dilation| dilation == 1)
        && geometry
            .pads
            .iter()
            .chain(&geometry.output_padding)
            .all(|&pad| pad == 0);
    if tiles {
        let layer = pixel_shuffle::Layer {
            x: &x,
            input: &input,
            filter: w,
            shape: &shape,
            bias,
        };
        if let Some(result) = pixel_shuffle::pixel_shuffle(builder, node, &layer) {
            return Ok(lowered(builder, node, result, spatial));
        }
    }
    let bias = bias.map(|bias| builder.operand(bias));
    let flipped = match w {
        Value::Const { name, tensor } => builder.operand(&Value::Const {
            name: format!("{name}.transposed"),
            tensor: Rc::new(flipped_filter(tensor, &shape, groups)),
        }),
        Value::Dynamic(w) => {
            flipped_at_run_time(&mut Compose::new(builder, node), w, &shape, groups)
        }
    };
    let mut compose = Compose::new(builder, node);
    let x = compose.reshape(&x, input.clone());
    let spread = spread(&mut compose, &x, &geometry.strides);
    let (spread, pads) = padded(&mut compose, spread, &geometry, kernel)?;
    let mut operands = vec![&spread, &flipped];
    operands.extend(bias.as_ref());
    let height =
        spread.ty.shape[2] as i64 + pads[0] + pads[2] - geometry.dilations[0] * (kernel[0] - 1);
    let width =
        spread.ty.shape[3] as i64 + pads[1] + pads[3] - geometry.dilations[1] * (kernel[1] - 1);
    if height < 1 || width < 1 {
        return Err(node.invalid(format!("the result would be empty ({height} x {width})")));
    }
    let result = TensorType::new(
        vec![input[0], outputs, height as usize, width as usize],
        spread.ty.element,
    );
    let attributes = [
        ("pads", Attribute::Ints(pads)),
        ("dilations", Attribute::Ints(geometry.dilations.clone())),
        ("groups", Attribute::Int(groups as i64)),
    ];
    let result = compose.op("graph.conv2d", &operands, &attributes, result);
    Ok(lowered(compose.builder(), node, result, spatial))
}

/// [`flipped_filter`] by graph operations, for a filter computed at run time: `reshape` to
/// `[g, C/g, M/g, kH, kW]`, `transpose` the channel dimensions, `reshape` to `[M, C/g, kH, kW]`,
/// and reverse each spatial dimension with a `gather` of constant indices.
fn flipped_at_run_time(
    compose: &mut Compose,
    w: &Operand,
    shape: &[usize],
    groups: usize,
) -> Operand {
    let (channels, per_group_out, height, width) = (shape[0], shape[1], shape[2], shape[3]);
    let split = vec![groups, channels / groups, per_group_out, height, width];
    let w = compose.reshape(w, shape.to_vec());
    let w = compose.reshape(&w, split);
    let permutation: [usize; 5] = [0, 2, 1, 3, 4];
    let transposed: Vec<usize> = permutation.iter().map(|&d| w.ty.shape[d]).collect();
    let permutation = permutation.map(|d| d as i64);
    let attributes = [("permutation", Attribute::Ints(permutation.to_vec()))];
    let ty = TensorType::new(transposed, w.ty.element);
    let w = compose.op("graph.transpose", &[&w], &attributes, ty);
    let outputs = per_group_out * groups;
    let mut w = compose.reshape(&w, vec![outputs, channels / groups, height, width]);
    for axis in [2, 3] {
        let size = w.ty.shape[axis];
        let reversed = Tensor::from_i64s((0..size as i64).rev().collect());
        let location = compose.location().to_owned();
        let indices = compose.builder().body.constant(&reversed, &location);
        let attributes = [("axis", Attribute::Int(axis as i64))];
        w = compose.op("graph.gather", &[&w, &indices], &attributes, w.ty.clone());
    }
    w
}

/// Strides, dilations, output padding and pads, from `pads`, `auto_pad` or `output_shape`.
fn geometry(
    node: &Node,
    input: &[usize],
    kernel: [i64; 2],
    spatial: usize,
) -> Result<Geometry, ImportError> {
    let strides = pair(node, "strides", false, spatial)?;
    let dilations = pair(node, "dilations", false, spatial)?;
    let output_padding = match node.ints("output_padding")? {
        None => vec![0, 0],
        Some(values) if values.len() == spatial && values.iter().all(|&v| v >= 0) => {
            if spatial == 1 {
                vec![0, values[0]]
            } else {
                values
            }
        }
        Some(values) => {
            return Err(node.invalid(format!(
                "'output_padding' must hold {spatial} non-negative values, got {values:?}"
            )))
        }
    };
    // The size of the full result along each dimension, before any padding is removed.
    let full: Vec<i64> = (0..2)
        .map(|d| {
            (input[2 + d] as i64 - 1) * strides[d]
                + dilations[d] * (kernel[d] - 1)
                + 1
                + output_padding[d]
        })
        .collect();
    let auto_pad = node.string("auto_pad", "NOTSET")?;
    let wanted: Option<Vec<i64>> = match node.ints("output_shape")? {
        Some(shape) if shape.len() == spatial => Some(if spatial == 1 {
            vec![1, shape[0]]
        } else {
            shape
        }),
        Some(shape) => {
            return Err(node.invalid(format!(
                "'output_shape' must hold {spatial} values, got {shape:?}"
            )))
        }
        None if auto_pad.starts_with("SAME") => {
            Some((0..2).map(|d| input[2 + d] as i64 * strides[d]).collect())
        }
        None => None,
    };
    let explicit = node.ints("pads")?.unwrap_or_else(|| vec![0; 2 * spatial]);
    if explicit.len() != 2 * spatial || explicit.iter().any(|&pad| pad < 0) {
        return Err(node.invalid(format!(
            "'pads' must hold {} non-negative values, got {explicit:?}",
            2 * spatial
        )));
    }
    let mut pads = if spatial == 1 {
        vec![0, explicit[0], 0, explicit[1]]
    } else {
        explicit
    };
    // A requested size splits the difference from the full result as onnxruntime does: the
    // larger half at the start, except for SAME_UPPER; a larger size adds zeros at the end (a
    // negative end pad).
    if let Some(wanted) = wanted {
        for d in 0..2 {
            let total = full[d] - wanted[d];
            let (small, large) = (total / 2, total - total / 2);
            (pads[d], pads[2 + d]) = match auto_pad.as_str() {
                _ if total < 0 => (0, total),
                "SAME_UPPER" => (small, large),
                _ => (large, small),
            };
        }
    }
    Ok(Geometry {
        strides,
        dilations,
        pads,
        output_padding,
    })
}

/// The filter `[C, M/g, kH, kW]` as a convolution's `[M, C/g, kH, kW]`: transposed within each
/// group and flipped in both spatial dimensions.
fn flipped_filter(filter: &Tensor, shape: &[usize], groups: usize) -> Tensor {
    let (channels, per_group_out, height, width) = (shape[0], shape[1], shape[2], shape[3]);
    let per_group_in = channels / groups;
    let outputs = per_group_out * groups;
    let mut indices = Vec::with_capacity(filter.data.len());
    for m in 0..outputs {
        let (group, mo) = (m / per_group_out, m % per_group_out);
        for ci in 0..per_group_in {
            let c = group * per_group_in + ci;
            for kh in 0..height {
                for kw in 0..width {
                    let (fh, fw) = (height - 1 - kh, width - 1 - kw);
                    indices.push(((c * per_group_out + mo) * height + fh) * width + fw);
                }
            }
        }
    }
    Tensor::new(
        vec![outputs, per_group_in, height, width],
        filter.data.take(&indices),
    )
}

/// `x` (NCHW) with `stride - 1` zeros inserted after every element along H and W: the channels
/// merge into N, and each dimension is spread by a `pad` of a new unit dimension after it.
fn spread(compose: &mut Compose, x: &Operand, strides: &[i64]) -> Operand {
    if strides.iter().all(|&stride| stride == 1) {
        return x.clone();
    }
    let [n, c, h, w] = [x.ty.shape[0], x.ty.shape[1], x.ty.shape[2], x.ty.shape[3]];
    let (sh, sw) = (strides[0] as usize, strides[1] as usize);
    let rows = compose.reshape(x, vec![n * c, h, 1, w]);
    let rows = zero_pad(compose, &rows, [0, 0, 0, 0, 0, 0, sh as i64 - 1, 0]);
    let columns = compose.reshape(&rows, vec![n * c, h * sh, w, 1]);
    let columns = zero_pad(compose, &columns, [0, 0, 0, 0, 0, 0, 0, sw as i64 - 1]);
    compose.reshape(&columns, vec![n, c, h * sh, w * sw])
}

/// `graph.pad` with zeros by `pads` (the amounts before each dimension, then after); none when
/// every amount is 0.
fn zero_pad(compose: &mut Compose, x: &Operand, pads: [i64; 8]) -> Operand {
    if pads.iter().all(|&pad| pad == 0) {
        return x.clone();
    }
    let shape = (0..4)
        .map(|d| x.ty.shape[d] + (pads[d] + pads[4 + d]) as usize)
        .collect();
    let attributes = [
        ("pads", Attribute::Ints(pads.to_vec())),
        ("mode", Attribute::Enum("pad_mode", "constant")),
        ("value", Attribute::Float(0.0)),
    ];
    compose.op(
        "graph.pad",
        &[x],
        &attributes,
        TensorType::new(shape, x.ty.element),
    )
}

/// The convolution's pads around the spread input `x`: `dilation * (kernel - 1) - pad` before,
/// the same plus `output_padding` after, less the `stride - 1` zeros that the spreading left at
/// the end. Negative amounts are cut off `x` by a `slice` instead.
fn padded(
    compose: &mut Compose,
    x: Operand,
    geometry: &Geometry,
    kernel: [i64; 2],
) -> Result<(Operand, Vec<i64>), ImportError> {
    let mut pads = vec![0; 4];
    let mut starts = vec![0i64; 4];
    let mut shape = x.ty.shape.clone();
    for d in 0..2 {
        let reach = geometry.dilations[d] * (kernel[d] - 1);
        let before = reach - geometry.pads[d];
        let after =
            reach - geometry.pads[2 + d] + geometry.output_padding[d] - (geometry.strides[d] - 1);
        let size = shape[2 + d] as i64;
        let cut = before.min(0).abs() + after.min(0).abs();
        if cut >= size {
            return Err(compose.invalid("the pads remove the whole input"));
        }
        starts[2 + d] = before.min(0).abs();
        shape[2 + d] = (size - cut) as usize;
        pads[d] = before.max(0);
        pads[2 + d] = after.max(0);
    }
    if shape == x.ty.shape {
        return Ok((x, pads));
    }
    let attributes = [("starts", Attribute::Ints(starts))];
    let ty = TensorType::new(shape, x.ty.element);
    Ok((compose.op("graph.slice", &[&x], &attributes, ty), pads))
}
