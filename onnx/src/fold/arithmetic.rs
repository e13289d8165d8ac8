//! Folding arithmetic: broadcasting elementwise operators, comparisons, selection and unary
//! functions. f16 and bf16 operands are computed in `f32`, i8 and ui8 in `i64`, and each result
//! is then rounded or wrapped to the operands' type: one rounding per operation, as an
//! operation of that type gives.

use super::movement::broadcast_map;
use super::{budget, tensor, Failure, Folded};
use crate::infer;
use crate::node::Node;
use crate::tensor::{Data, Tensor};
use crate::types::ElementType;
use crate::value::Inputs;

/// `data` in the type folding computes it in: `f32` for every float type, `i64` for i8 and ui8.
fn widened(data: Data) -> Data {
    match data.element() {
        ElementType::F16 | ElementType::Bf16 => data.convert(ElementType::F32),
        ElementType::I8 | ElementType::U8 => data.convert(ElementType::I64),
        _ => data,
    }
}

/// A computed `data` rounded or wrapped to `element`, the type of the operation's result.
fn narrowed(data: Data, element: ElementType) -> Data {
    if data.element() == element {
        data
    } else {
        data.convert(element)
    }
}

/// The one element type of `operands`, or why folding leaves them to the lowering (whose
/// verifier reports the mismatch).
fn common_element(op: &str, operands: &[Data]) -> Result<ElementType, Failure> {
    let element = operands.first().map_or(ElementType::F32, Data::element);
    match operands.iter().find(|operand| operand.element() != element) {
        Some(other) => Err(Failure::Skip(format!(
            "{op} of {element} and {} is not folded",
            other.element()
        ))),
        None => Ok(element),
    }
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

pub(super) fn select(node: &Node, inputs: &Inputs) -> Folded {
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
    both.append(rhs);
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
    /// ONNX `Max` of two elements: numpy's `maximum`, NaN when either is NaN.
    fn maximum(self, other: Self) -> Self;
    /// ONNX `Min` of two elements: numpy's `minimum`, NaN when either is NaN.
    fn minimum(self, other: Self) -> Self;
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
    // Not f32::max and f32::min, which return the other operand of a NaN.
    fn maximum(self, other: Self) -> Self {
        if self.is_nan() || self > other {
            self
        } else {
            other
        }
    }
    fn minimum(self, other: Self) -> Self {
        if self.is_nan() || self < other {
            self
        } else {
            other
        }
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
            fn maximum(self, other: Self) -> Self {
                Ord::max(self, other)
            }
            fn minimum(self, other: Self) -> Self {
                Ord::min(self, other)
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
                "Max" => Some(a.maximum(b)),
                _ => Some(a.minimum(b)),
            };
            value.ok_or_else(|| {
                format!(
                    "{op} is undefined on its integer operands \
                     (a division by zero or a negative exponent)"
                )
            })
        })
        .collect()
}

pub(super) fn arithmetic(node: &Node, inputs: &Inputs) -> Folded {
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
        operands[1] = operands[1].convert(operands[0].element());
    }
    let element = common_element(op, &operands)?;
    let mut operands = operands.into_iter().map(widened);
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
    Ok(vec![Tensor::new(shape, narrowed(result, element))])
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

pub(super) fn comparison(node: &Node, inputs: &Inputs) -> Folded {
    let op = node.op_type();
    let (shape, operands) = broadcast_operands(node, inputs)?;
    if operands.len() == 2 && operands[0].element() != operands[1].element() {
        return Err(node.invalid("operands have different element types").into());
    }
    let operands: Vec<Data> = operands.into_iter().map(widened).collect();
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

pub(super) fn unary(node: &Node, inputs: &Inputs) -> Folded {
    let op = node.op_type();
    let input = tensor(inputs, 0, "X")?;
    let element = input.data.element();
    let data = match &widened(input.data.clone()) {
        Data::F32(values) => {
            let function: fn(f32) -> f32 = match op {
                "Neg" => |x| -x,
                "Abs" => f32::abs,
                "Sqrt" => f32::sqrt,
                "Exp" => f32::exp,
                "Log" => f32::ln,
                "Reciprocal" => |x| 1.0 / x,
                // Max(X, 0): NaN and -0.0 stay, as in the interpreter.
                "Relu" => |x| if x < 0.0 { 0.0 } else { x },
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
        _ => unreachable!("widened data is f32, i32, i64 or bool"),
    };
    Ok(vec![Tensor::new(
        input.shape.clone(),
        narrowed(data, element),
    )])
}
