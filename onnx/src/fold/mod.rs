//! Constant folding: evaluating at import time the nodes whose inputs are all known.
//!
//! Exporters compute shapes at run time (`Shape → Gather → Unsqueeze → Concat → Reshape`), but in
//! a model with static shapes every such subgraph is a constant, and the graph dialect wants
//! shapes as types. Folding evaluates these subgraphs (and any other all-constant elementwise or
//! data-movement node) with small kernels, so they never reach the IR. Data movement keeps every
//! element type; arithmetic computes f16 and bf16 in `f32` and i8 and ui8 in `i64`, then rounds
//! or wraps each result to its declared type, as one operation of that type would.
//! `Shape` and `Size` fold even on run-time values, because their types are static.
//!
//! Folding is an optimisation for operators that also have a lowering: a result above
//! [`FOLD_LIMIT`] elements is left to the lowering instead. Operators that exist only here
//! (`Range`, `Shape`, ...) must fold, and report an error when they cannot.

use crate::error::ImportError;
use crate::infer;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{checked_len, format_shape, ElementType};
use crate::value::Inputs;

mod arithmetic;
mod movement;

use arithmetic::{arithmetic, comparison, select, unary};
use movement::{concat, expand, gather, reshape_like, slice, transpose};

/// The most elements a folded result may have (4 Mi, 16 MiB of `f32`, a 2048 x 2048 mask): shape
/// subgraphs are tiny, and a larger all-constant computation is better written into the IR than
/// evaluated here. (At 16 Mi, fuzzing found imports spending seconds expanding one initializer.)
pub const FOLD_LIMIT: usize = 1 << 22;

/// The most elements a folded `ConstantOfShape` may have (64 Ki). Its result is a splat, which the
/// IR holds as one literal at any size; expanding it in Rust only pays when something downstream
/// folds too, as shape arithmetic and attention masks do and weights (ONNX's "light" models fill
/// theirs this way) do not.
pub const SPLAT_FOLD_LIMIT: usize = 1 << 16;

/// Operators that only folding handles: with inputs computed at run time they are unsupported.
pub const FOLD_ONLY: &[&str] = &["Constant", "Range", "Shape", "Size", "Floor", "Ceil"];

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
    let clamp = |value: i64| {
        let clamped = if value < 0 {
            (value + rank).max(0)
        } else {
            value.min(rank)
        };
        clamped as usize
    };
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
            // Range takes 32- and 64-bit integers (and floats).
            let scalar = |tensor: &Tensor| {
                matches!(tensor.data, Data::I32(_) | Data::I64(_))
                    .then(|| tensor.to_i64s())
                    .flatten()
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

fn cast(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "input")?;
    let element = cast_target(node)?;
    Ok(vec![Tensor::new(
        input.shape.clone(),
        input.data.convert(element),
    )])
}
