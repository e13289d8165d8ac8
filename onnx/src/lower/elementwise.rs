//! Elementwise operators: arithmetic (`Sum`, `Max` and `Min` with more than two operands become a
//! chain of binary ops), comparisons → `graph.compare`, `Where` → `graph.where`, `Cast` →
//! `graph.cast`, `Clip` (bounds as constant inputs) → `graph.clip`, `Gelu` → `graph.gelu`, and
//! the float activations, each to the graph op of the same name; `And`, `Or`, `Xor`, `Not` →
//! `graph.where` selections.

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::fold::{cast_target, compare_predicate};
use crate::node::Node;
use crate::shape;
use crate::tensor::Tensor;
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// The broadcast shape of `operands`.
fn broadcast(node: &Node, operands: &[&Operand]) -> Result<Vec<usize>, ImportError> {
    let mut shape = Vec::new();
    for operand in operands {
        shape =
            shape::broadcast(&shape, &operand.ty.shape).map_err(|message| node.invalid(message))?;
    }
    Ok(shape)
}

/// `Add`, `Sub`, `Mul`, `Div`, `Pow`, `Mod`, and the variadic `Sum`, `Max`, `Min`.
pub fn binary(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let op = node.op_type();
    let name = match op {
        "Add" | "Sum" => "graph.add",
        "Sub" => "graph.sub",
        "Mul" => "graph.mul",
        "Div" => "graph.div",
        "Pow" => "graph.pow",
        "Max" => "graph.max",
        "Min" => "graph.min",
        // The dispatcher sends only these operators here.
        _ => "graph.mod",
    };
    let variadic = matches!(op, "Sum" | "Max" | "Min");
    let values: Vec<&Value> = if variadic {
        inputs.present().collect()
    } else {
        vec![inputs.required(0, "A")?, inputs.required(1, "B")?]
    };
    let Some((first, rest)) = values.split_first() else {
        return Err(node.invalid("expects at least one operand"));
    };
    if rest.is_empty() {
        return Ok(vec![(*first).clone()]);
    }
    let mut attributes = Vec::new();
    if op == "Mod" {
        let fmod = node.int("fmod", 0)? != 0;
        if !fmod && first.ty().element.is_float() {
            return Err(node.invalid("fmod must be 1 for floating-point operands"));
        }
        attributes.push(("fmod", Attribute::Bool(fmod)));
    }
    let mut result = builder.operand(first);
    for value in rest {
        let rhs = if op == "Pow" {
            exponent(builder, node, value, result.ty.element)
        } else {
            builder.operand(value)
        };
        if rhs.ty.element != result.ty.element {
            return Err(node.invalid(format!(
                "operands have different element types {} and {}",
                result.ty.element, rhs.ty.element
            )));
        }
        let shape = broadcast(node, &[&result, &rhs])?;
        result = builder.body.op1(
            name,
            &[&result, &rhs],
            &attributes,
            TensorType::new(shape, result.ty.element),
            &node.name,
        );
    }
    Ok(vec![Value::Dynamic(result)])
}

/// `Pow`'s exponent in the base's element type (ONNX lets them differ; the dialect does not):
/// converted now when constant, by `graph.cast` otherwise.
fn exponent(builder: &mut Builder, node: &Node, value: &Value, element: ElementType) -> Operand {
    let ty = value.ty();
    if ty.element == element {
        return builder.operand(value);
    }
    match value {
        Value::Const { name, tensor } => {
            let converted = Tensor::new(tensor.shape.clone(), tensor.data.convert(element));
            builder.operand(&Value::Const {
                name: format!("{name}.{element}"),
                tensor: converted.into(),
            })
        }
        Value::Dynamic(operand) => builder.body.op1(
            "graph.cast",
            &[operand],
            &[],
            ty.with_element(element),
            &node.name,
        ),
    }
}

/// `Equal`, `Less`, `Greater`, `LessOrEqual`, `GreaterOrEqual` → `graph.compare`.
pub fn compare(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let predicate = compare_predicate(node.op_type()).unwrap_or("eq");
    let lhs = builder.operand(inputs.required(0, "A")?);
    let rhs = builder.operand(inputs.required(1, "B")?);
    if lhs.ty.element != rhs.ty.element {
        return Err(node.invalid(format!(
            "operands have different element types {} and {}",
            lhs.ty.element, rhs.ty.element
        )));
    }
    let shape = broadcast(node, &[&lhs, &rhs])?;
    let result = TensorType::new(shape, ElementType::Bool);
    Ok(vec![builder.emit(
        node,
        "graph.compare",
        &[&lhs, &rhs],
        &[("predicate", Attribute::Enum("predicate", predicate))],
        result,
    )])
}

/// `Where` → `graph.where`.
pub fn select(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let condition = builder.operand(inputs.required(0, "condition")?);
    let lhs = builder.operand(inputs.required(1, "X")?);
    let rhs = builder.operand(inputs.required(2, "Y")?);
    if condition.ty.element != ElementType::Bool {
        return Err(node.invalid(format!(
            "the condition is {}, not a boolean",
            condition.ty.element
        )));
    }
    if lhs.ty.element != rhs.ty.element {
        return Err(node.invalid(format!(
            "X and Y have different element types {} and {}",
            lhs.ty.element, rhs.ty.element
        )));
    }
    let shape = broadcast(node, &[&condition, &lhs, &rhs])?;
    let result = TensorType::new(shape, lhs.ty.element);
    Ok(vec![builder.emit(
        node,
        "graph.where",
        &[&condition, &lhs, &rhs],
        &[],
        result,
    )])
}

/// `Cast` → `graph.cast`, `CastLike` likewise to the element type of its second input; nothing
/// when the type does not change.
pub fn cast(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let input = inputs.required(0, "input")?;
    let element = match node.op_type() {
        "CastLike" => inputs.required(1, "target_type")?.ty().element,
        _ => cast_target(node)?,
    };
    let ty = input.ty();
    if ty.element == element {
        return Ok(vec![input.clone()]);
    }
    let input = builder.operand(input);
    Ok(vec![builder.emit(
        node,
        "graph.cast",
        &[&input],
        &[],
        ty.with_element(element),
    )])
}

/// `Clip` with constant `min` and `max` inputs. An omitted bound is the largest finite value of
/// the input's type with that sign (`numeric_limits::lowest()` and `max()`, Clip-6's defaults),
/// so infinities clip to it, as onnxruntime does; opset 13 does not say.
pub fn clip(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "input")?;
    let bound = |index: usize, what: &str| -> Result<Option<f32>, ImportError> {
        inputs
            .constant(index, what)?
            .map(|tensor| {
                tensor
                    .scalar_f32()
                    .ok_or_else(|| node.invalid(format!("{what} must be a scalar")))
            })
            .transpose()
    };
    let largest = x.ty().element.max_finite().unwrap_or(f32::MAX);
    let min = bound(1, "min")?.unwrap_or(-largest);
    let max = bound(2, "max")?.unwrap_or(largest);
    if min > max {
        return Err(node.unsupported(format!("min {min} above max {max} is not supported")));
    }
    let ty = x.ty();
    let x = builder.operand(x);
    let attributes = [
        ("min", Attribute::Float(min)),
        ("max", Attribute::Float(max)),
    ];
    Ok(vec![builder.emit(
        node,
        "graph.clip",
        &[&x],
        &attributes,
        ty,
    )])
}

/// `Gelu` (opset 20): exact, or the tanh approximation.
pub fn gelu(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let approximate = match node.string("approximate", "none")?.as_str() {
        "none" => false,
        "tanh" => true,
        other => return Err(node.invalid(format!("unknown approximate '{other}'"))),
    };
    let ty = x.ty();
    let x = builder.operand(x);
    Ok(vec![builder.emit(
        node,
        "graph.gelu",
        &[&x],
        &[("approximate", Attribute::Bool(approximate))],
        ty,
    )])
}

/// The float activations and elementwise functions: `Relu` → `graph.relu` and so on.
pub fn unary(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = float_input(node, inputs, 0, "X")?;
    let ty = x.ty();
    let x = builder.operand(x);
    let name = format!("graph.{}", node.op_type().to_ascii_lowercase());
    Ok(vec![builder.emit(node, &name, &[&x], &[], ty)])
}

/// `And`, `Or`, `Xor`, `Not` on booleans, as selections: `a and b` is `b` where `a` holds, else
/// false; `a or b` is true where `a` holds, else `b`; `not a` selects false where `a` holds; `a xor
/// b` selects `not b` where `a` holds, else `b`.
pub fn logical(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let count = if node.op_type() == "Not" { 1 } else { 2 };
    let mut operands = Vec::with_capacity(count);
    for index in 0..count {
        let operand = builder.operand(inputs.required(index, "A")?);
        if operand.ty.element != ElementType::Bool {
            return Err(node.invalid(format!(
                "input {index} is {}, not a boolean",
                operand.ty.element
            )));
        }
        operands.push(operand);
    }
    let mut compose = Compose::new(builder, node);
    let a = &operands[0];
    let result = match node.op_type() {
        "Not" => {
            let (no, yes) = (compose.boolean(false), compose.boolean(true));
            compose.select(a, &no, &yes)?
        }
        "And" => {
            let no = compose.boolean(false);
            compose.select(a, &operands[1], &no)?
        }
        "Or" => {
            let yes = compose.boolean(true);
            compose.select(a, &yes, &operands[1])?
        }
        // The dispatcher sends only these operators here.
        _ => {
            let b = &operands[1];
            let (no, yes) = (compose.boolean(false), compose.boolean(true));
            let not_b = compose.select(b, &no, &yes)?;
            compose.select(a, &not_b, b)?
        }
    };
    Ok(vec![Value::Dynamic(result)])
}

/// `IsNaN` (`x` differs from itself) and `IsInf` (`x` equals +inf or -inf, as `detect_positive`
/// and `detect_negative` say), as comparisons and selections.
pub fn special_values(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let x = builder.operand(float_input(node, inputs, 0, "X")?);
    let mut compose = Compose::new(builder, node);
    let result = if node.op_type() == "IsNaN" {
        compose.compare("ne", &x, &x)?
    } else {
        let infinity = |compose: &mut Compose, value: f32, wanted: bool| {
            if !wanted {
                return Ok(None);
            }
            let bound = compose.scalar(x.ty.element, value);
            compose.compare("eq", &x, &bound).map(Some)
        };
        let positive = infinity(
            &mut compose,
            f32::INFINITY,
            node.int("detect_positive", 1)? != 0,
        )?;
        let negative = infinity(
            &mut compose,
            f32::NEG_INFINITY,
            node.int("detect_negative", 1)? != 0,
        )?;
        match (positive, negative) {
            (Some(positive), Some(negative)) => {
                let yes = compose.boolean(true);
                compose.select(&positive, &yes, &negative)?
            }
            (Some(found), None) | (None, Some(found)) => found,
            (None, None) => {
                let no = compose.boolean(false);
                let shaped = compose.compare("eq", &x, &x)?;
                compose.select(&shaped, &no, &no)?
            }
        }
    };
    Ok(vec![Value::Dynamic(result)])
}
