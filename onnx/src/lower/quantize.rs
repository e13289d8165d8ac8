//! Quantization: `QuantizeLinear` → `graph.quantize`, `DequantizeLinear` → `graph.dequantize`,
//! `MatMulInteger` → `graph.matmul_integer`, `ConvInteger` → `graph.conv_integer`, and the
//! compositions of them: `QLinearMatMul` and `QLinearConv` are the integer product (with the
//! bias added in i32) followed by `graph.requantize` with the multiplier
//! `x_scale * w_scale / y_scale` computed in the scales' float type; `DynamicQuantizeLinear`
//! computes its scale and zero point from the input's range with float ops and quantizes with
//! them.
//!
//! Omitted zero points are zeros: of `ui8` for QuantizeLinear (or of `output_dtype`), of the
//! quantized operand's type elsewhere.

use std::rc::Rc;

use super::compose::Compose;
use super::conv::{groups, window};
use super::Builder;
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// Input `index` of `node`, which must be of one of `allowed` element types.
fn typed_input<'a>(
    node: &Node,
    inputs: &Inputs<'a>,
    index: usize,
    what: &str,
    allowed: &[ElementType],
) -> Result<&'a Value, ImportError> {
    let value = inputs.required(index, what)?;
    let element = value.ty().element;
    if !allowed.contains(&element) {
        let names: Vec<String> = allowed.iter().map(ToString::to_string).collect();
        return Err(node.unsupported(format!(
            "input {index} ({what}) of type {element} is not supported, only {}",
            names.join(", ")
        )));
    }
    Ok(value)
}

const FLOATS: &[ElementType] = &[ElementType::F32, ElementType::F16, ElementType::Bf16];
const BYTES: &[ElementType] = &[ElementType::I8, ElementType::U8];

/// The zero point input `index` of `node`, of `element`; zeros of `shape` when it is omitted.
fn zero_point<'a>(
    node: &Node,
    inputs: &Inputs<'a>,
    index: usize,
    element: ElementType,
    shape: &[usize],
) -> Result<Value, ImportError> {
    let Some(value) = inputs.get(index) else {
        let count = shape.iter().product();
        let tensor = Tensor::new(shape.to_vec(), Data::zeros(element, count));
        return Ok(Value::Const {
            name: format!("{}.zero_point{index}", node.name),
            tensor: Rc::new(tensor),
        });
    };
    let given = value.ty().element;
    if given != element {
        return Err(node.invalid(format!(
            "input {index} (zero point) is {given} but the quantized values are {element}"
        )));
    }
    Ok(value.clone())
}

/// Checks that a scale or zero point of `shape` is one value (per tensor) or 1-D of the size of
/// `axis` of `data` (per axis; the axis is read only then).
fn check_scale(
    node: &Node,
    what: &str,
    shape: &[usize],
    data: &[usize],
    axis: i64,
) -> Result<(), ImportError> {
    if shape.is_empty() || shape == [1] {
        return Ok(());
    }
    let along = shape::axis(axis, data.len()).map_err(|message| node.invalid(message))?;
    if shape != [data[along]] {
        return Err(node.invalid(format!(
            "{what} of shape {shape:?} is neither one value nor 1-D of {} (axis {axis} of \
             {data:?})",
            data[along]
        )));
    }
    Ok(())
}

/// Refuses the blocked quantization of opset 21 (`block_size` above 0).
fn per_tensor_or_axis(node: &Node) -> Result<(), ImportError> {
    match node.int("block_size", 0)? {
        0 => Ok(()),
        size => Err(node.unsupported(format!(
            "blocked quantization (block_size {size}) is not supported, only per tensor and \
             per axis"
        ))),
    }
}

/// `QuantizeLinear` → `graph.quantize`.
pub fn quantize_linear(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    per_tensor_or_axis(node)?;
    let x = typed_input(node, inputs, 0, "x", FLOATS)?;
    let scale = typed_input(node, inputs, 1, "y_scale", &[x.ty().element])?;
    let axis = node.int("axis", 1)?;
    check_scale(node, "y_scale", &scale.ty().shape, &x.ty().shape, axis)?;
    let element = match (inputs.get(2), node.int("output_dtype", 0)?) {
        (Some(given), _) => given.ty().element,
        (None, 0) => ElementType::U8,
        (None, code) => ElementType::from_onnx(code as i32)
            .filter(|element| BYTES.contains(element))
            .ok_or_else(|| {
                node.unsupported(format!(
                    "output_dtype {} is not supported, only INT8 and UINT8",
                    ElementType::onnx_name(code as i32)
                ))
            })?,
    };
    if !BYTES.contains(&element) {
        return Err(node.unsupported(format!(
            "quantizing to {element} is not supported, only to i8 and ui8"
        )));
    }
    let zero = zero_point(node, inputs, 2, element, &scale.ty().shape)?;
    check_scale(node, "y_zero_point", &zero.ty().shape, &x.ty().shape, axis)?;
    let result = TensorType::new(x.ty().shape, element);
    let operands = [
        builder.operand(x),
        builder.operand(scale),
        builder.operand(&zero),
    ];
    let attributes = [("axis", Attribute::Int(axis))];
    let operands: Vec<_> = operands.iter().collect();
    Ok(vec![builder.emit(
        node,
        "graph.quantize",
        &operands,
        &attributes,
        result,
    )])
}

/// `DequantizeLinear` → `graph.dequantize`.
pub fn dequantize_linear(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    per_tensor_or_axis(node)?;
    let allowed = [ElementType::I8, ElementType::U8, ElementType::I32];
    let x = typed_input(node, inputs, 0, "x", &allowed)?;
    let scale = typed_input(node, inputs, 1, "x_scale", FLOATS)?;
    let axis = node.int("axis", 1)?;
    check_scale(node, "x_scale", &scale.ty().shape, &x.ty().shape, axis)?;
    let zero = zero_point(node, inputs, 2, x.ty().element, &scale.ty().shape)?;
    check_scale(node, "x_zero_point", &zero.ty().shape, &x.ty().shape, axis)?;
    let result = TensorType::new(x.ty().shape, scale.ty().element);
    let operands = [
        builder.operand(x),
        builder.operand(scale),
        builder.operand(&zero),
    ];
    let attributes = [("axis", Attribute::Int(axis))];
    let operands: Vec<_> = operands.iter().collect();
    Ok(vec![builder.emit(
        node,
        "graph.dequantize",
        &operands,
        &attributes,
        result,
    )])
}

/// `DynamicQuantizeLinear`: `scale = (max(0, max x) - min(0, min x)) / 255` (1 / 255 when both
/// are 0), `zero_point = saturate(round(-min(0, min x) / scale))` and `y = quantize(x, scale,
/// zero_point)`, all in ui8, as ONNX's reference computes them in f32.
pub fn dynamic_quantize_linear(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = typed_input(node, inputs, 0, "x", &[ElementType::F32])?;
    let x = builder.operand(x);
    let all: Vec<usize> = (0..x.ty.rank()).collect();
    let mut compose = Compose::new(builder, node);
    let zero = compose.scalar(ElementType::F32, 0.0);
    let max = compose.reduce("graph.reduce_max", &x, &all, false);
    let negated = compose.unary("graph.neg", &x);
    let negated_min = compose.reduce("graph.reduce_max", &negated, &all, false);
    let high = compose.binary("graph.max", &max, &zero)?;
    let low_negated = compose.binary("graph.max", &negated_min, &zero)?;
    let span = compose.binary("graph.add", &high, &low_negated)?;
    let empty = compose.compare("eq", &span, &zero)?;
    let one = compose.scalar(ElementType::F32, 1.0);
    let span = compose.select(&empty, &one, &span)?;
    let levels = compose.scalar(ElementType::F32, 255.0);
    let scale = compose.binary("graph.div", &span, &levels)?;
    let no_zero = Tensor::new(Vec::new(), Data::U8(vec![0]));
    let no_zero = compose.builder().body.constant(&no_zero, &node.name);
    let axis = [("axis", Attribute::Int(0))];
    let byte = TensorType::new(Vec::new(), ElementType::U8);
    let zero_point = compose.op(
        "graph.quantize",
        &[&low_negated, &scale, &no_zero],
        &axis,
        byte,
    );
    let quantized = TensorType::new(x.ty.shape.clone(), ElementType::U8);
    let y = compose.op(
        "graph.quantize",
        &[&x, &scale, &zero_point],
        &axis,
        quantized,
    );
    Ok([y, scale, zero_point]
        .into_iter()
        .map(Value::Dynamic)
        .collect())
}

/// The operands of an integer product (`A` and `B`, or `x` and `w`), each with its zero point
/// (one zero of its type when omitted).
struct Integers {
    a: Value,
    b: Value,
    a_zero: Value,
    b_zero: Value,
}

impl Integers {
    /// The operands at input positions `a` and `b` (named `names` in messages) and their zero
    /// points at `a_zero` and `b_zero`.
    fn read(
        node: &Node,
        inputs: &Inputs,
        [a, a_zero, b, b_zero]: [usize; 4],
        [a_name, b_name]: [&str; 2],
    ) -> Result<Integers, ImportError> {
        let a_value = typed_input(node, inputs, a, a_name, BYTES)?;
        let b_value = typed_input(node, inputs, b, b_name, BYTES)?;
        Ok(Integers {
            a_zero: zero_point(node, inputs, a_zero, a_value.ty().element, &[])?,
            b_zero: zero_point(node, inputs, b_zero, b_value.ty().element, &[])?,
            a: a_value.clone(),
            b: b_value.clone(),
        })
    }

    /// The SSA operands: `a`, `b` and their zero points, in the integer ops' order.
    fn operands(&self, builder: &mut Builder) -> [Operand; 4] {
        [&self.a, &self.b, &self.a_zero, &self.b_zero].map(|value| builder.operand(value))
    }
}

/// Checks that a zero point is one value or 1-D of `size` (one per `what`).
fn check_zero(node: &Node, value: &Value, size: usize, what: &str) -> Result<(), ImportError> {
    let shape = value.ty().shape;
    if shape.is_empty() || shape == [1] || shape == [size] {
        return Ok(());
    }
    Err(node.invalid(format!(
        "zero point of shape {shape:?} is neither one value nor 1-D of {size} (one per {what})"
    )))
}

/// `graph.matmul_integer` of `operands` for `node`: the i32 product, shapes as ONNX MatMul's with
/// operands of rank at least 2.
fn matmul_integer_op(
    builder: &mut Builder,
    node: &Node,
    operands: &Integers,
) -> Result<Operand, ImportError> {
    let (a, b) = (operands.a.ty().shape, operands.b.ty().shape);
    if a.len() < 2 || b.len() < 2 {
        return Err(node.unsupported(format!(
            "integer products of 1-D operands are not supported (shapes {a:?} and {b:?})"
        )));
    }
    let (m, k, n) = (a[a.len() - 2], a[a.len() - 1], b[b.len() - 1]);
    if b[b.len() - 2] != k {
        return Err(node.invalid(format!("inner dimensions differ: {a:?} x {b:?}")));
    }
    check_zero(node, &operands.a_zero, m, "row of A")?;
    check_zero(node, &operands.b_zero, n, "column of B")?;
    let mut shape = shape::broadcast(&a[..a.len() - 2], &b[..b.len() - 2])
        .map_err(|message| node.invalid(message))?;
    shape.extend([m, n]);
    let operands = operands.operands(builder);
    let operands: Vec<_> = operands.iter().collect();
    let result = TensorType::new(shape, ElementType::I32);
    Ok(builder
        .body
        .op1("graph.matmul_integer", &operands, &[], result, &node.name))
}

/// `MatMulInteger` → `graph.matmul_integer`.
pub fn matmul_integer(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let operands = Integers::read(node, inputs, [0, 2, 1, 3], ["A", "B"])?;
    Ok(vec![Value::Dynamic(matmul_integer_op(
        builder, node, &operands,
    )?)])
}

/// `graph.conv_integer` of `operands` for `node` (2-D windows, NCHW).
fn conv_integer_op(
    builder: &mut Builder,
    node: &Node,
    operands: &Integers,
) -> Result<Operand, ImportError> {
    let (input, filter) = (operands.a.ty().shape, operands.b.ty().shape);
    if input.len() != 4 || filter.len() != 4 {
        return Err(node.unsupported(format!(
            "integer convolutions of shapes {input:?} and {filter:?} are not supported, only 2-D \
             windows (NCHW)"
        )));
    }
    let groups = groups(node, input[1], &filter, &filter)?;
    check_zero(node, &operands.a_zero, 1, "tensor")?;
    check_zero(node, &operands.b_zero, filter[0], "output channel")?;
    let kernel = [filter[2] as i64, filter[3] as i64];
    let geometry = window(node, &input, kernel, false, 2)?;
    let attributes = [
        ("strides", Attribute::Ints(geometry.strides)),
        ("pads", Attribute::Ints(geometry.pads)),
        ("dilations", Attribute::Ints(geometry.dilations)),
        ("groups", Attribute::Int(groups)),
    ];
    let shape = vec![input[0], filter[0], geometry.output[0], geometry.output[1]];
    let operands = operands.operands(builder);
    let operands: Vec<_> = operands.iter().collect();
    let result = TensorType::new(shape, ElementType::I32);
    Ok(builder.body.op1(
        "graph.conv_integer",
        &operands,
        &attributes,
        result,
        &node.name,
    ))
}

/// `ConvInteger` → `graph.conv_integer`.
pub fn conv_integer(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let operands = Integers::read(node, inputs, [0, 2, 1, 3], ["x", "w"])?;
    Ok(vec![Value::Dynamic(conv_integer_op(
        builder, node, &operands,
    )?)])
}

/// `acc` requantized by `graph.requantize` with the multiplier `a_scale * b_scale / y_scale`
/// (inputs `scales`: scalars of one float type, the second one possibly per `axis` of `acc`)
/// computed in their type, and the zero point input `y_zero`.
fn requantized(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
    acc: &Operand,
    (scales, y_zero, axis): ([usize; 3], usize, usize),
) -> Result<Value, ImportError> {
    let names = ["a_scale", "b_scale", "y_scale"];
    let float = typed_input(node, inputs, scales[0], names[0], FLOATS)?
        .ty()
        .element;
    let mut factors = Vec::new();
    for (index, name) in scales.into_iter().zip(names) {
        let scale = typed_input(node, inputs, index, name, &[float])?;
        check_scale(node, name, &scale.ty().shape, &acc.ty.shape, axis as i64)?;
        if index != scales[1] && scale.ty().num_elements() != 1 {
            return Err(node.invalid(format!("{name} must be one value")));
        }
        factors.push(builder.operand(scale));
    }
    let zero = typed_input(node, inputs, y_zero, "y_zero_point", BYTES)?;
    check_scale(
        node,
        "y_zero_point",
        &zero.ty().shape,
        &acc.ty.shape,
        axis as i64,
    )?;
    let element = zero.ty().element;
    let zero = builder.operand(zero);
    let mut compose = Compose::new(builder, node);
    let product = compose.binary("graph.mul", &factors[0], &factors[1])?;
    let multiplier = compose.binary("graph.div", &product, &factors[2])?;
    let result = TensorType::new(acc.ty.shape.clone(), element);
    let attributes = [("axis", Attribute::Int(axis as i64))];
    let operands = [acc, &multiplier, &zero];
    Ok(Value::Dynamic(compose.op(
        "graph.requantize",
        &operands,
        &attributes,
        result,
    )))
}

/// `QLinearMatMul`: `graph.matmul_integer`, then `graph.requantize` (per column of B when
/// `b_scale` is).
pub fn qlinear_matmul(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let operands = Integers::read(node, inputs, [0, 2, 3, 5], ["a", "b"])?;
    let acc = matmul_integer_op(builder, node, &operands)?;
    let last = acc.ty.rank() - 1;
    Ok(vec![requantized(
        builder,
        node,
        inputs,
        &acc,
        ([1, 4, 6], 7, last),
    )?])
}

/// `QLinearConv`: `graph.conv_integer`, the i32 bias added, then `graph.requantize` (per output
/// channel when `w_scale` is).
pub fn qlinear_conv(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let operands = Integers::read(node, inputs, [0, 2, 3, 5], ["x", "w"])?;
    let mut acc = conv_integer_op(builder, node, &operands)?;
    if inputs.get(8).is_some() {
        let bias = typed_input(node, inputs, 8, "B", &[ElementType::I32])?;
        let channels = acc.ty.shape[1];
        if bias.ty().shape != [channels] {
            return Err(node.invalid(format!(
                "bias shape {:?} is not [{channels}]",
                bias.ty().shape
            )));
        }
        let bias = builder.operand(bias);
        let mut compose = Compose::new(builder, node);
        let bias = compose.reshape(&bias, vec![channels, 1, 1]);
        acc = compose.binary("graph.add", &acc, &bias)?;
    }
    Ok(vec![requantized(
        builder,
        node,
        inputs,
        &acc,
        ([1, 4, 6], 7, 1),
    )?])
}
