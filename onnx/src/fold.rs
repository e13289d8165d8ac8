//! Constant folding: evaluating at import time the nodes whose inputs are all known.
//!
//! Exporters compute shapes at run time (`Shape → Gather → Unsqueeze → Concat → Reshape`), but in
//! a model with static shapes every such subgraph is a constant, and the graph dialect wants
//! shapes as types. Folding evaluates these subgraphs (and any other all-constant elementwise or
//! data-movement node) with small kernels on `f32`/`i32`/`i64`/`bool`, so they never reach the IR.
//! `Shape` and `Size` fold even on run-time values, because their types are static.
//!
//! Folding is an optimisation for operators that also have a lowering: a result above
//! [`FOLD_LIMIT`] elements is left to the lowering instead. Operators that exist only here
//! (`Range`, `Not`, `Shape`, ...) must fold, and report an error when they cannot.

use crate::error::ImportError;
use crate::infer;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{checked_len, format_shape, ElementType};
use crate::value::Inputs;

/// The most elements a folded result may have (16 Mi, 64 MiB of `f32`): shape subgraphs are tiny,
/// and a larger all-constant computation is better written into the IR than evaluated here.
pub const FOLD_LIMIT: usize = 1 << 24;

/// The most elements a folded `ConstantOfShape` may have (64 Ki). Its result is a splat, which the
/// IR holds as one literal at any size; expanding it in Rust only pays when something downstream
/// folds too, as shape arithmetic and attention masks do and weights (ONNX's "light" models fill
/// theirs this way) do not.
pub const SPLAT_FOLD_LIMIT: usize = 1 << 16;

/// Operators that only folding handles: with inputs computed at run time they are unsupported.
pub const FOLD_ONLY: &[&str] = &[
    "Constant", "Range", "Shape", "Size", "Not", "And", "Or", "Floor", "Ceil",
];

/// Why a kernel did not produce a result.
enum Failure {
    /// Leave the node to its lowering (the result is too large, or the element types are not
    /// ones the kernel evaluates); the message says which.
    Skip(String),
    /// The node is wrong.
    Error(ImportError),
}

impl From<ImportError> for Failure {
    fn from(error: ImportError) -> Self {
        Self::Error(error)
    }
}

type Folded = Result<Vec<Tensor>, Failure>;

/// Evaluates `node` when it can be folded: `Ok(None)` leaves it to lowering.
pub fn evaluate(node: &Node, inputs: &Inputs) -> Result<Option<Vec<Tensor>>, ImportError> {
    let op = node.op_type();
    let type_only = matches!(op, "Shape" | "Size");
    if !type_only && !inputs.all_const() {
        return Ok(None);
    }
    let result = match op {
        "Constant" => constant(node).map(|tensor| vec![tensor]),
        "Shape" => shape_of(node, inputs),
        "Size" => Ok(vec![scalar_i64(
            inputs.required(0, "data")?.ty().num_elements() as i64,
        )]),
        "ConstantOfShape" => constant_of_shape(node, inputs),
        "Range" => range(node, inputs),
        "Cast" => cast(node, inputs),
        "Reshape" => reshape_like(inputs, infer::reshape(node, inputs)?),
        "Flatten" => reshape_like(inputs, infer::flatten(node, inputs)?),
        "Squeeze" => reshape_like(inputs, infer::squeeze(node, inputs)?),
        "Unsqueeze" => reshape_like(inputs, infer::unsqueeze(node, inputs)?),
        "Transpose" => transpose(node, inputs),
        "Slice" => slice(node, inputs),
        "Gather" => gather(node, inputs),
        "Concat" => concat(node, inputs),
        "Expand" => expand(node, inputs),
        "Where" => select(node, inputs),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Mod" | "Max" | "Min" | "Sum" => {
            arithmetic(node, inputs)
        }
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" | "And" | "Or" => {
            comparison(node, inputs)
        }
        "Neg" | "Abs" | "Sqrt" | "Exp" | "Log" | "Reciprocal" | "Relu" | "Sigmoid" | "Tanh"
        | "Floor" | "Ceil" | "Not" => unary(node, inputs),
        _ => return Ok(None),
    };
    match result {
        Ok(tensors) => Ok(Some(tensors)),
        Err(Failure::Error(error)) => Err(error),
        Err(Failure::Skip(reason)) if FOLD_ONLY.contains(&op) => Err(node.unsupported(reason)),
        Err(Failure::Skip(_)) => Ok(None),
    }
}

/// The ONNX comparison operators as `graph.compare` predicates.
pub fn compare_predicate(op: &str) -> Option<&'static str> {
    Some(match op {
        "Equal" => "eq",
        "Less" => "lt",
        "Greater" => "gt",
        "LessOrEqual" => "le",
        "GreaterOrEqual" => "ge",
        _ => return None,
    })
}

fn scalar_i64(value: i64) -> Tensor {
    Tensor::new(vec![], Data::I64(vec![value]))
}

/// Checks that a result of `shape` may be folded.
fn budget(shape: &[usize]) -> Result<usize, Failure> {
    match checked_len(shape) {
        Some(count) if count <= FOLD_LIMIT => Ok(count),
        _ => Err(Failure::Skip(format!(
            "folding a result of shape {} is not supported: it has more than {FOLD_LIMIT} elements",
            format_shape(shape)
        ))),
    }
}

fn tensor<'a>(inputs: &Inputs<'a>, index: usize, what: &str) -> Result<&'a Tensor, Failure> {
    let value = inputs.required(index, what)?;
    // `evaluate` checked that every present input is constant.
    Ok(value.as_const().expect("folded nodes have constant inputs"))
}

fn constant(node: &Node) -> Result<Tensor, Failure> {
    let name = node
        .proto
        .output
        .first()
        .map_or(node.name.as_str(), String::as_str);
    if let Some(proto) = node.tensor("value")? {
        return Ok(Tensor::from_proto(proto, name)?);
    }
    if node.has("value_float") {
        return Ok(Tensor::new(
            vec![],
            Data::F32(vec![node.float("value_float", 0.0)?]),
        ));
    }
    if let Some(values) = node.floats("value_floats")? {
        return Ok(Tensor::new(vec![values.len()], Data::F32(values)));
    }
    if node.has("value_int") {
        return Ok(scalar_i64(node.int("value_int", 0)?));
    }
    if let Some(values) = node.ints("value_ints")? {
        return Ok(Tensor::from_i64s(values));
    }
    let kind = node
        .proto
        .attribute
        .first()
        .map_or("no value".to_owned(), |attribute| {
            format!("'{}'", attribute.name)
        });
    Err(node
        .unsupported(format!("a constant given by {kind} is not supported"))
        .into())
}

fn shape_of(node: &Node, inputs: &Inputs) -> Folded {
    let dims: Vec<i64> = inputs
        .required(0, "data")?
        .ty()
        .shape
        .iter()
        .map(|&dim| dim as i64)
        .collect();
    // Opset 15's start and end: clamped, negative from the end.
    let rank = dims.len() as i64;
    let clamp = |value: i64| if value < 0 { (value + rank).max(0) } else { value.min(rank) } as usize;
    let start = clamp(node.int("start", 0)?);
    let end = clamp(node.int("end", rank)?);
    Ok(vec![Tensor::from_i64s(
        dims[start..end.max(start)].to_vec(),
    )])
}

fn constant_of_shape(node: &Node, inputs: &Inputs) -> Folded {
    let dims = inputs.required_ints(0, "input")?;
    let shape = shape::static_dims(&dims, "shape").map_err(|message| node.invalid(message))?;
    let count = budget(&shape)?;
    if count > SPLAT_FOLD_LIMIT {
        return Err(Failure::Skip(format!(
            "{count} elements are left to a splat constant"
        )));
    }
    let value = fill_value(node)?;
    Ok(vec![Tensor::new(shape, value.data.repeat_first(count))])
}

/// The fill value of `ConstantOfShape`: its `value` attribute (one element), or f32 0.
pub fn fill_value(node: &Node) -> Result<Tensor, ImportError> {
    let value = match node.tensor("value")? {
        None => Tensor::new(vec![1], Data::F32(vec![0.0])),
        Some(proto) => Tensor::from_proto(proto, &node.name)?,
    };
    if value.data.len() != 1 {
        return Err(node.invalid("attribute 'value' must hold one element"));
    }
    Ok(value)
}

fn range(node: &Node, inputs: &Inputs) -> Folded {
    let (start, limit, delta) = (
        tensor(inputs, 0, "start")?,
        tensor(inputs, 1, "limit")?,
        tensor(inputs, 2, "delta")?,
    );
    let data = match (&start.data, &limit.data, &delta.data) {
        (Data::F32(start), Data::F32(limit), Data::F32(delta))
            if start.len() == 1 && limit.len() == 1 && delta.len() == 1 =>
        {
            let (start, limit, delta) = (start[0], limit[0], delta[0]);
            let count = ((limit - start) / delta).ceil();
            if !count.is_finite() {
                return Err(node
                    .invalid("delta is 0 or the bounds are not finite")
                    .into());
            }
            let count = budget(&[count.max(0.0) as usize])?;
            Data::F32(
                (0..count)
                    .map(|index| start + index as f32 * delta)
                    .collect(),
            )
        }
        _ => {
            let scalar = |tensor: &Tensor| {
                tensor
                    .to_i64s()
                    .filter(|values| values.len() == 1)
                    .map(|values| values[0])
            };
            let (Some(first), Some(end), Some(step)) =
                (scalar(start), scalar(limit), scalar(delta))
            else {
                return Err(node
                    .invalid("start, limit and delta must be scalars of one numeric type")
                    .into());
            };
            if step == 0 {
                return Err(node.invalid("delta is 0").into());
            }
            let (first, end, step) = (i128::from(first), i128::from(end), i128::from(step));
            let count = ((end - first) + step - step.signum()) / step;
            let count = budget(&[usize::try_from(count.max(0)).unwrap_or(usize::MAX)])?;
            let values = (0..count as i128).map(|index| (first + index * step) as i64);
            match start.data {
                Data::I32(_) => Data::I32(values.map(|value| value as i32).collect()),
                _ => Data::I64(values.collect()),
            }
        }
    };
    Ok(vec![Tensor::new(vec![data.len()], data)])
}

/// The ONNX element type code of `Cast`'s `to` attribute as an element type.
pub fn cast_target(node: &Node) -> Result<ElementType, ImportError> {
    let code = node.int("to", 0)?;
    i32::try_from(code)
        .ok()
        .and_then(ElementType::from_onnx)
        .ok_or_else(|| {
            node.unsupported(format!(
                "cast to {} is not supported",
                ElementType::onnx_name(code as i32)
            ))
        })
}

/// `data` converted to `element` as ONNX `Cast` does (float to integer truncates toward zero).
pub fn convert(data: &Data, element: ElementType) -> Data {
    macro_rules! to {
        ($values:expr, $f32:expr, $i32:expr, $i64:expr, $bool:expr) => {
            match element {
                ElementType::F32 => Data::F32($values.iter().map($f32).collect()),
                ElementType::I32 => Data::I32($values.iter().map($i32).collect()),
                ElementType::I64 => Data::I64($values.iter().map($i64).collect()),
                ElementType::Bool => Data::Bool($values.iter().map($bool).collect()),
            }
        };
    }
    match data {
        Data::F32(values) => to!(values, |&v| v, |&v| v as i32, |&v| v as i64, |&v| v != 0.0),
        Data::I32(values) => to!(values, |&v| v as f32, |&v| v, |&v| i64::from(v), |&v| v
            != 0),
        Data::I64(values) => to!(values, |&v| v as f32, |&v| v as i32, |&v| v, |&v| v != 0),
        Data::Bool(values) => to!(
            values,
            |&v| f32::from(u8::from(v)),
            |&v| i32::from(v),
            |&v| i64::from(v),
            |&v| v
        ),
    }
}

fn cast(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "input")?;
    let element = cast_target(node)?;
    Ok(vec![Tensor::new(
        input.shape.clone(),
        convert(&input.data, element),
    )])
}

fn reshape_like(inputs: &Inputs, shape: Vec<usize>) -> Folded {
    Ok(vec![Tensor::new(
        shape,
        tensor(inputs, 0, "data")?.data.clone(),
    )])
}

/// Row-major strides of `shape`.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        strides[dim] = strides[dim + 1] * shape[dim + 1];
    }
    strides
}

/// For every element of a tensor of `shape` (row-major), `source(coordinates)`.
fn index_map(shape: &[usize], count: usize, source: impl Fn(&[usize]) -> usize) -> Vec<usize> {
    let mut indices = Vec::with_capacity(count);
    let mut coordinates = vec![0; shape.len()];
    for _ in 0..count {
        indices.push(source(&coordinates));
        for dim in (0..shape.len()).rev() {
            coordinates[dim] += 1;
            if coordinates[dim] < shape[dim] {
                break;
            }
            coordinates[dim] = 0;
        }
    }
    indices
}

/// For every element of a tensor of `output` shape, the element of a tensor of `input` shape
/// that numpy broadcasting reads.
fn broadcast_map(input: &[usize], output: &[usize], count: usize) -> Vec<usize> {
    let offset = output.len() - input.len();
    let input_strides = strides(input);
    index_map(output, count, |coordinates| {
        (0..input.len())
            .filter(|&dim| input[dim] != 1)
            .map(|dim| coordinates[offset + dim] * input_strides[dim])
            .sum()
    })
}

fn transpose(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "data")?;
    let (permutation, shape) = infer::transpose(node, inputs)?;
    let count = budget(&shape)?;
    let input_strides = strides(&input.shape);
    let indices = index_map(&shape, count, |coordinates| {
        coordinates
            .iter()
            .zip(&permutation)
            .map(|(&coordinate, &dim)| coordinate * input_strides[dim as usize])
            .sum()
    });
    Ok(vec![Tensor::new(shape, input.data.take(&indices))])
}

fn slice(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "data")?;
    let window = infer::slice(node, inputs)?;
    let count = budget(&window.shape)?;
    let input_strides = strides(&input.shape);
    let indices = index_map(&window.shape, count, |coordinates| {
        (0..coordinates.len())
            .map(|dim| {
                (window.starts[dim] + coordinates[dim] * window.steps[dim]) * input_strides[dim]
            })
            .sum()
    });
    Ok(vec![Tensor::new(window.shape, input.data.take(&indices))])
}

fn gather(node: &Node, inputs: &Inputs) -> Folded {
    let data = tensor(inputs, 0, "data")?;
    let (axis, shape) = infer::gather(node, inputs)?;
    let count = budget(&shape)?;
    let indices = tensor(inputs, 1, "indices")?.to_i64s().unwrap_or_default();
    let size = data.shape[axis];
    let positions = indices
        .iter()
        .map(|&index| {
            let position = if index < 0 {
                index + size as i64
            } else {
                index
            };
            usize::try_from(position)
                .ok()
                .filter(|&position| position < size)
                .ok_or_else(|| {
                    node.invalid(format!(
                        "index {index} is out of range for dimension {axis} of size {size}"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let inner: usize = data.shape[axis + 1..].iter().product();
    let outer: usize = data.shape[..axis].iter().product();
    let mut map = Vec::with_capacity(count);
    for block in 0..outer {
        for &position in &positions {
            let base = (block * size + position) * inner;
            map.extend(base..base + inner);
        }
    }
    Ok(vec![Tensor::new(shape, data.data.take(&map))])
}

fn concat(node: &Node, inputs: &Inputs) -> Folded {
    let (axis, shape) = infer::concat(node, inputs)?;
    let count = budget(&shape)?;
    let parts: Vec<&Tensor> = inputs
        .present()
        .filter_map(|value| value.as_const())
        .collect();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    // Index into the parts laid end to end.
    let mut offsets = Vec::with_capacity(parts.len());
    let mut total = 0;
    for part in &parts {
        offsets.push(total);
        total += part.data.len();
    }
    let mut map = Vec::with_capacity(count);
    for block in 0..outer {
        for (part, offset) in parts.iter().zip(&offsets) {
            let slab = part.shape[axis] * inner;
            let base = offset + block * slab;
            map.extend(base..base + slab);
        }
    }
    let mut all = parts[0].data.clone();
    for part in &parts[1..] {
        append(&mut all, &part.data);
    }
    Ok(vec![Tensor::new(shape, all.take(&map))])
}

/// Appends `more` (of the same element type, which [`infer::concat`] checked) to `data`.
fn append(data: &mut Data, more: &Data) {
    match (data, more) {
        (Data::F32(values), Data::F32(more)) => values.extend_from_slice(more),
        (Data::I32(values), Data::I32(more)) => values.extend_from_slice(more),
        (Data::I64(values), Data::I64(more)) => values.extend_from_slice(more),
        (Data::Bool(values), Data::Bool(more)) => values.extend_from_slice(more),
        _ => unreachable!("concat operands share one element type"),
    }
}

fn expand(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "input")?;
    let shape = infer::expand(node, inputs)?;
    let count = budget(&shape)?;
    Ok(vec![Tensor::new(
        shape.clone(),
        input.data.take(&broadcast_map(&input.shape, &shape, count)),
    )])
}

/// The operands of a broadcasting operator, each read at the broadcast shape.
fn broadcast_operands(node: &Node, inputs: &Inputs) -> Result<(Vec<usize>, Vec<Data>), Failure> {
    let shape = infer::broadcast(node, inputs)?;
    let count = budget(&shape)?;
    let operands = inputs
        .present()
        .filter_map(|value| value.as_const())
        .map(|operand| {
            operand
                .data
                .take(&broadcast_map(&operand.shape, &shape, count))
        })
        .collect();
    Ok((shape, operands))
}

fn select(node: &Node, inputs: &Inputs) -> Folded {
    let (shape, operands) = broadcast_operands(node, inputs)?;
    let [Data::Bool(condition), lhs, rhs] = operands.as_slice() else {
        return Err(node.invalid("the condition must be boolean").into());
    };
    if lhs.element() != rhs.element() {
        return Err(node
            .invalid("the two choices have different element types")
            .into());
    }
    let indices: Vec<usize> = condition
        .iter()
        .enumerate()
        .map(|(index, &take_lhs)| {
            if take_lhs {
                index
            } else {
                index + condition.len()
            }
        })
        .collect();
    let mut both = lhs.clone();
    append(&mut both, rhs);
    Ok(vec![Tensor::new(shape, both.take(&indices))])
}

/// The arithmetic of one element type.
trait Number: Copy + PartialOrd {
    fn add(self, other: Self) -> Self;
    fn sub(self, other: Self) -> Self;
    fn mul(self, other: Self) -> Self;
    /// `None` for an integer division by zero.
    fn div(self, other: Self) -> Option<Self>;
    /// ONNX `Mod`: the sign of the divisor, or of the dividend with `fmod`.
    fn modulo(self, other: Self, fmod: bool) -> Option<Self>;
    fn pow(self, other: Self) -> Option<Self>;
}

impl Number for f32 {
    fn add(self, other: Self) -> Self {
        self + other
    }
    fn sub(self, other: Self) -> Self {
        self - other
    }
    fn mul(self, other: Self) -> Self {
        self * other
    }
    fn div(self, other: Self) -> Option<Self> {
        Some(self / other)
    }
    fn modulo(self, other: Self, _fmod: bool) -> Option<Self> {
        // ONNX requires fmod = 1 for floats; Rust's `%` is C's fmod.
        Some(self % other)
    }
    fn pow(self, other: Self) -> Option<Self> {
        Some(self.powf(other))
    }
}

macro_rules! integer_number {
    ($type:ty) => {
        impl Number for $type {
            // Integer tensors wrap on overflow, as numpy's and onnxruntime's do.
            fn add(self, other: Self) -> Self {
                self.wrapping_add(other)
            }
            fn sub(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
            fn mul(self, other: Self) -> Self {
                self.wrapping_mul(other)
            }
            fn div(self, other: Self) -> Option<Self> {
                (other != 0).then(|| self.wrapping_div(other))
            }
            fn modulo(self, other: Self, fmod: bool) -> Option<Self> {
                let remainder = self
                    .checked_rem(other)
                    .or_else(|| (other == -1).then_some(0))?;
                Some(
                    if !fmod && remainder != 0 && (remainder < 0) != (other < 0) {
                        remainder + other
                    } else {
                        remainder
                    },
                )
            }
            fn pow(self, other: Self) -> Option<Self> {
                u32::try_from(other)
                    .ok()
                    .map(|exponent| self.wrapping_pow(exponent))
            }
        }
    };
}
integer_number!(i32);
integer_number!(i64);

fn apply<T: Number>(op: &str, fmod: bool, lhs: &[T], rhs: &[T]) -> Result<Vec<T>, String> {
    lhs.iter()
        .zip(rhs)
        .map(|(&a, &b)| {
            let value = match op {
                "Add" | "Sum" => Some(a.add(b)),
                "Sub" => Some(a.sub(b)),
                "Mul" => Some(a.mul(b)),
                "Div" => a.div(b),
                "Mod" => a.modulo(b, fmod),
                "Pow" => a.pow(b),
                "Max" => Some(if b > a { b } else { a }),
                _ => Some(if b < a { b } else { a }),
            };
            value.ok_or_else(|| format!("{op} is undefined on its integer operands (a division by zero or a negative exponent)"))
        })
        .collect()
}

fn arithmetic(node: &Node, inputs: &Inputs) -> Folded {
    let op = node.op_type();
    let fmod = node.int("fmod", 0)? != 0;
    let (shape, mut operands) = broadcast_operands(node, inputs)?;
    if op == "Mod" && !fmod && operands.iter().any(|operand| operand.element().is_float()) {
        return Err(node
            .invalid("fmod must be 1 for floating-point operands")
            .into());
    }
    if op == "Pow" && operands.len() == 2 && operands[0].element() != operands[1].element() {
        // Pow's exponent may have another type; the result has the base's.
        operands[1] = convert(&operands[1], operands[0].element());
    }
    let mut operands = operands.into_iter();
    let first = operands.next().ok_or_else(|| node.invalid("no operands"))?;
    let result = operands.try_fold(first, |lhs, rhs| {
        Ok(match (&lhs, &rhs) {
            (Data::F32(a), Data::F32(b)) => {
                Data::F32(apply(op, fmod, a, b).map_err(|message| node.invalid(message))?)
            }
            (Data::I32(a), Data::I32(b)) => {
                Data::I32(apply(op, fmod, a, b).map_err(|message| node.invalid(message))?)
            }
            (Data::I64(a), Data::I64(b)) => {
                Data::I64(apply(op, fmod, a, b).map_err(|message| node.invalid(message))?)
            }
            _ => {
                return Err(Failure::Skip(format!(
                    "{op} of {} and {} is not folded",
                    lhs.element(),
                    rhs.element()
                )))
            }
        })
    })?;
    Ok(vec![Tensor::new(shape, result)])
}

fn compare<T: PartialOrd>(op: &str, lhs: &[T], rhs: &[T]) -> Vec<bool> {
    lhs.iter()
        .zip(rhs)
        .map(|(a, b)| match op {
            "Equal" => a == b,
            "Less" => a < b,
            "Greater" => a > b,
            "LessOrEqual" => a <= b,
            _ => a >= b,
        })
        .collect()
}

fn comparison(node: &Node, inputs: &Inputs) -> Folded {
    let op = node.op_type();
    let (shape, operands) = broadcast_operands(node, inputs)?;
    let result = match operands.as_slice() {
        [Data::Bool(a), Data::Bool(b)] if op == "And" => {
            a.iter().zip(b).map(|(&a, &b)| a && b).collect()
        }
        [Data::Bool(a), Data::Bool(b)] if op == "Or" => {
            a.iter().zip(b).map(|(&a, &b)| a || b).collect()
        }
        _ if matches!(op, "And" | "Or") => {
            return Err(node.invalid("operands must be boolean").into())
        }
        [Data::F32(a), Data::F32(b)] => compare(op, a, b),
        [Data::I32(a), Data::I32(b)] => compare(op, a, b),
        [Data::I64(a), Data::I64(b)] => compare(op, a, b),
        [Data::Bool(a), Data::Bool(b)] => compare(op, a, b),
        _ => return Err(node.invalid("operands have different element types").into()),
    };
    Ok(vec![Tensor::new(shape, Data::Bool(result))])
}

fn unary(node: &Node, inputs: &Inputs) -> Folded {
    let op = node.op_type();
    let input = tensor(inputs, 0, "X")?;
    let data = match &input.data {
        Data::F32(values) => {
            let function: fn(f32) -> f32 = match op {
                "Neg" => |x| -x,
                "Abs" => f32::abs,
                "Sqrt" => f32::sqrt,
                "Exp" => f32::exp,
                "Log" => f32::ln,
                "Reciprocal" => |x| 1.0 / x,
                "Relu" => |x| x.max(0.0),
                "Sigmoid" => |x| 1.0 / (1.0 + (-x).exp()),
                "Tanh" => f32::tanh,
                "Floor" => f32::floor,
                "Ceil" => f32::ceil,
                _ => return Err(node.invalid("expects a boolean operand").into()),
            };
            Data::F32(values.iter().map(|&value| function(value)).collect())
        }
        Data::I64(values) => match op {
            "Neg" => Data::I64(values.iter().map(|value| value.wrapping_neg()).collect()),
            "Abs" => Data::I64(values.iter().map(|value| value.wrapping_abs()).collect()),
            "Relu" => Data::I64(values.iter().map(|&value| value.max(0)).collect()),
            _ => return Err(Failure::Skip(format!("{op} of integers is not folded"))),
        },
        Data::I32(values) => match op {
            "Neg" => Data::I32(values.iter().map(|value| value.wrapping_neg()).collect()),
            "Abs" => Data::I32(values.iter().map(|value| value.wrapping_abs()).collect()),
            "Relu" => Data::I32(values.iter().map(|&value| value.max(0)).collect()),
            _ => return Err(Failure::Skip(format!("{op} of integers is not folded"))),
        },
        Data::Bool(values) if op == "Not" => {
            Data::Bool(values.iter().map(|&value| !value).collect())
        }
        Data::Bool(_) => return Err(node.invalid("expects a numeric operand").into()),
    };
    Ok(vec![Tensor::new(input.shape.clone(), data)])
}
