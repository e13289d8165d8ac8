//! The parametric activations, composed from the graph dialect's elementwise operations so that
//! they compile wherever those do (they fuse into the preceding kernel's epilogue):
//!
//! - `LeakyRelu`, `PRelu`: `relu(x) + alpha * min(x, 0)`;
//! - `Elu`, `Selu`, `Celu`: `relu(x) + alpha * (exp(min(x, 0) / s) - 1)`, scaled by `gamma` for
//!   `Selu` (`s` is `alpha` for `Celu`, 1 otherwise): `exp` only ever sees non-positive values;
//! - `Softplus`: `relu(x) + log(1 + exp(-|x|))`, which equals `log(1 + exp(x))` without its
//!   overflow to infinity for large `x`; `Mish`: `x * tanh(softplus(x))`;
//! - `Softsign`: `x / (1 + |x|)`; `HardSigmoid`: `clip(alpha * x + beta, 0, 1)`; `HardSwish`:
//!   `x * hardsigmoid(x)` with `alpha = 1/6`, `beta = 1/2`;
//! - `ThresholdedRelu`, `Shrink`, `Sign`: comparisons and `graph.where`;
//! - `Mean`: the sum of the operands divided by their count.

use super::compose::Compose;
use super::{float_input, Builder};
use crate::emit::Operand;
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::value::{Inputs, Value};

/// Every operator this module composes.
pub const OPERATORS: &[&str] = &[
    "LeakyRelu",
    "PRelu",
    "Elu",
    "Selu",
    "Celu",
    "Softplus",
    "Mish",
    "Softsign",
    "HardSigmoid",
    "HardSwish",
    "ThresholdedRelu",
    "Shrink",
    "Sign",
    "Mean",
];

/// Selu's defaults (the ONNX specification's, to the digits it gives).
const SELU_ALPHA: f32 = 1.673_263_2;
const SELU_GAMMA: f32 = 1.050_701;

/// One of [`OPERATORS`].
pub fn activation(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    if node.op_type() == "Mean" {
        return mean(builder, node, inputs);
    }
    let x = builder.operand(float_input(node, inputs, 0, "X")?);
    let mut compose = Compose::new(builder, node);
    let result = match node.op_type() {
        "LeakyRelu" => {
            let alpha = node.float("alpha", 0.01)?;
            let negative = negative_part(&mut compose, &x)?;
            let slope = compose.scaled(&negative, alpha)?;
            let positive = compose.unary("graph.relu", &x);
            compose.binary("graph.add", &positive, &slope)?
        }
        "PRelu" => prelu(&mut compose, node, inputs, &x)?,
        "Elu" => elu(&mut compose, &x, node.float("alpha", 1.0)?, 1.0)?,
        "Selu" => {
            let alpha = node.float("alpha", SELU_ALPHA)?;
            let elu = elu(&mut compose, &x, alpha, 1.0)?;
            compose.scaled(&elu, node.float("gamma", SELU_GAMMA)?)?
        }
        "Celu" => {
            let alpha = node.float("alpha", 1.0)?;
            if alpha == 0.0 {
                return Err(node.invalid("alpha must not be 0"));
            }
            elu(&mut compose, &x, alpha, alpha)?
        }
        "Softplus" => softplus(&mut compose, &x)?,
        "Mish" => {
            let softplus = softplus(&mut compose, &x)?;
            let tanh = compose.unary("graph.tanh", &softplus);
            compose.binary("graph.mul", &x, &tanh)?
        }
        "Softsign" => {
            let magnitude = compose.unary("graph.abs", &x);
            let denominator = compose.shifted(&magnitude, 1.0)?;
            compose.binary("graph.div", &x, &denominator)?
        }
        "HardSigmoid" => {
            let (alpha, beta) = (node.float("alpha", 0.2)?, node.float("beta", 0.5)?);
            hard_sigmoid(&mut compose, &x, alpha, beta)?
        }
        "HardSwish" => {
            let gate = hard_sigmoid(&mut compose, &x, 1.0 / 6.0, 0.5)?;
            compose.binary("graph.mul", &x, &gate)?
        }
        "ThresholdedRelu" => {
            let alpha = compose.scalar(x.ty.element, node.float("alpha", 1.0)?);
            let above = compose.compare("gt", &x, &alpha)?;
            let zero = compose.scalar(x.ty.element, 0.0);
            compose.select(&above, &x, &zero)?
        }
        "Shrink" => shrink(&mut compose, node, &x)?,
        // The dispatcher sends only these operators here.
        _ => sign(&mut compose, &x)?,
    };
    Ok(vec![Value::Dynamic(result)])
}

/// `min(x, 0)`.
fn negative_part(compose: &mut Compose, x: &Operand) -> Result<Operand, ImportError> {
    let zero = compose.scalar(x.ty.element, 0.0);
    compose.binary("graph.min", x, &zero)
}

/// `PRelu`: the slope broadcasts to `x` (unidirectionally, as ONNX requires).
fn prelu(
    compose: &mut Compose,
    node: &Node,
    inputs: &Inputs,
    x: &Operand,
) -> Result<Operand, ImportError> {
    let slope = float_input(node, inputs, 1, "slope")?;
    let slope_shape = slope.ty().shape;
    if shape::broadcast(&x.ty.shape, &slope_shape).ok().as_ref() != Some(&x.ty.shape) {
        return Err(node.invalid(format!(
            "slope shape {slope_shape:?} does not broadcast to the input's {:?}",
            x.ty.shape
        )));
    }
    let slope = compose.builder().operand(slope);
    let negative = negative_part(compose, x)?;
    let sloped = compose.binary("graph.mul", &negative, &slope)?;
    let positive = compose.unary("graph.relu", x);
    compose.binary("graph.add", &positive, &sloped)
}

/// `relu(x) + alpha * (exp(min(x, 0) / divisor) - 1)`.
fn elu(
    compose: &mut Compose,
    x: &Operand,
    alpha: f32,
    divisor: f32,
) -> Result<Operand, ImportError> {
    let mut negative = negative_part(compose, x)?;
    if divisor != 1.0 {
        let divisor = compose.scalar(x.ty.element, divisor);
        negative = compose.binary("graph.div", &negative, &divisor)?;
    }
    let exp = compose.unary("graph.exp", &negative);
    let below = compose.shifted(&exp, -1.0)?;
    let below = compose.scaled(&below, alpha)?;
    let positive = compose.unary("graph.relu", x);
    compose.binary("graph.add", &positive, &below)
}

/// `relu(x) + log(1 + exp(-|x|))`.
fn softplus(compose: &mut Compose, x: &Operand) -> Result<Operand, ImportError> {
    let magnitude = compose.unary("graph.abs", x);
    let negated = compose.unary("graph.neg", &magnitude);
    let exp = compose.unary("graph.exp", &negated);
    let shifted = compose.shifted(&exp, 1.0)?;
    let log = compose.unary("graph.log", &shifted);
    let positive = compose.unary("graph.relu", x);
    compose.binary("graph.add", &positive, &log)
}

/// `clip(alpha * x + beta, 0, 1)`.
fn hard_sigmoid(
    compose: &mut Compose,
    x: &Operand,
    alpha: f32,
    beta: f32,
) -> Result<Operand, ImportError> {
    let scaled = compose.scaled(x, alpha)?;
    let shifted = compose.shifted(&scaled, beta)?;
    Ok(compose.clip(&shifted, 0.0, 1.0))
}

/// `Shrink`: `x + bias` below `-lambd`, `x - bias` above `lambd`, 0 between.
fn shrink(compose: &mut Compose, node: &Node, x: &Operand) -> Result<Operand, ImportError> {
    let (bias, lambd) = (node.float("bias", 0.0)?, node.float("lambd", 0.5)?);
    let lower = compose.scalar(x.ty.element, -lambd);
    let upper = compose.scalar(x.ty.element, lambd);
    let below = compose.compare("lt", x, &lower)?;
    let above = compose.compare("gt", x, &upper)?;
    let raised = compose.shifted(x, bias)?;
    let lowered = compose.shifted(x, -bias)?;
    let zero = compose.scalar(x.ty.element, 0.0);
    let upper_part = compose.select(&above, &lowered, &zero)?;
    compose.select(&below, &raised, &upper_part)
}

/// `Sign`: 1 above 0, -1 below, the input itself otherwise (0, -0 and NaN stay).
fn sign(compose: &mut Compose, x: &Operand) -> Result<Operand, ImportError> {
    let element = x.ty.element;
    let zero = compose.scalar(element, 0.0);
    let (one, minus_one) = (compose.scalar(element, 1.0), compose.scalar(element, -1.0));
    let positive = compose.compare("gt", x, &zero)?;
    let negative = compose.compare("lt", x, &zero)?;
    let rest = compose.select(&negative, &minus_one, x)?;
    compose.select(&positive, &one, &rest)
}

/// `Mean` of any number of operands, broadcast together.
fn mean(builder: &mut Builder, node: &Node, inputs: &Inputs) -> Result<Vec<Value>, ImportError> {
    let count = inputs.present().count();
    let mut operands = Vec::with_capacity(count);
    for index in 0..count {
        operands.push(builder.operand(float_input(node, inputs, index, "data")?));
    }
    let Some((first, rest)) = operands.split_first() else {
        return Err(node.invalid("expects at least one operand"));
    };
    let mut compose = Compose::new(builder, node);
    let mut sum = first.clone();
    for operand in rest {
        sum = compose.binary("graph.add", &sum, operand)?;
    }
    if count > 1 {
        let divisor = compose.scalar(sum.ty.element, count as f32);
        sum = compose.binary("graph.div", &sum, &divisor)?;
    }
    Ok(vec![Value::Dynamic(sum)])
}
