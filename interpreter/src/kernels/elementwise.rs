//! Elementwise operators with numpy broadcasting, and type conversion.

use crate::tensor::{strides, Data, ElementType, Tensor};

/// For each element of `out_shape` (row-major), the flat index of the element of an `in_shape`
/// tensor that numpy broadcasting reads: dimensions align from the right and size 1 repeats.
pub fn broadcast_map(in_shape: &[usize], out_shape: &[usize]) -> Vec<usize> {
    let offset = out_shape.len() - in_shape.len();
    let in_strides = strides(in_shape);
    let count: usize = out_shape.iter().product();
    let mut map = Vec::with_capacity(count);
    let mut index = vec![0usize; out_shape.len()];
    for _ in 0..count {
        let mut flat = 0;
        for d in 0..in_shape.len() {
            if in_shape[d] != 1 {
                flat += index[offset + d] * in_strides[d];
            }
        }
        map.push(flat);
        for d in (0..out_shape.len()).rev() {
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    map
}

/// A binary arithmetic operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Binary {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b` (integers truncate toward zero)
    Div,
    /// `a ^ b`
    Pow,
    /// The larger of `a` and `b`, NaN if either is NaN ([`maximum`]).
    Max,
    /// The smaller of `a` and `b`, NaN if either is NaN ([`minimum`]).
    Min,
    /// Remainder; `fmod` takes the dividend's sign, otherwise the divisor's (ONNX Mod).
    Mod {
        /// C semantics rather than Python's.
        fmod: bool,
    },
}

/// The larger of `a` and `b`, NaN if either is NaN: ONNX's `Max` is numpy's `maximum`, and so are
/// the maxima of `MaxPool`, `ReduceMax` and `Relu` (`Max(X, 0)`). Rust's `f32::max` returns the
/// other operand of a NaN instead. Of two equal values (`-0.0` and `+0.0`) it returns `b`, as
/// numpy does; onnxruntime's choice there depends on how the operands broadcast, so the sign of
/// that zero is not part of the semantics.
pub fn maximum(a: f32, b: f32) -> f32 {
    if a.is_nan() || a > b {
        a
    } else {
        b
    }
}

/// The smaller of `a` and `b`, NaN if either is NaN (numpy's `minimum`; see [`maximum`]).
pub fn minimum(a: f32, b: f32) -> f32 {
    if a.is_nan() || a < b {
        a
    } else {
        b
    }
}

fn float_binary(op: Binary, a: f32, b: f32) -> f32 {
    match op {
        Binary::Add => a + b,
        Binary::Sub => a - b,
        Binary::Mul => a * b,
        Binary::Div => a / b,
        Binary::Pow => a.powf(b),
        Binary::Max => maximum(a, b),
        Binary::Min => minimum(a, b),
        Binary::Mod { fmod: true } => a % b,
        Binary::Mod { fmod: false } => {
            let r = a % b;
            if r != 0.0 && (r < 0.0) != (b < 0.0) {
                r + b
            } else {
                r
            }
        }
    }
}

fn integer_binary(op: Binary, a: i64, b: i64) -> Result<i64, String> {
    let zero = || format!("integer division by zero ({a} by {b})");
    Ok(match op {
        Binary::Add => a.wrapping_add(b),
        Binary::Sub => a.wrapping_sub(b),
        Binary::Mul => a.wrapping_mul(b),
        Binary::Div => a.checked_div(b).ok_or_else(zero)?,
        Binary::Pow => (a as f64).powf(b as f64) as i64,
        Binary::Max => a.max(b),
        Binary::Min => a.min(b),
        Binary::Mod { fmod: true } => a.checked_rem(b).ok_or_else(zero)?,
        Binary::Mod { fmod: false } => {
            let r = a.checked_rem(b).ok_or_else(zero)?;
            if r != 0 && (r < 0) != (b < 0) {
                r + b
            } else {
                r
            }
        }
    })
}

/// `op` applied to broadcast operands, giving a tensor of `out_shape`.
pub fn binary(op: Binary, lhs: &Tensor, rhs: &Tensor, out_shape: &[usize]) -> Result<Data, String> {
    let left = broadcast_map(&lhs.shape, out_shape);
    let right = broadcast_map(&rhs.shape, out_shape);
    match (&lhs.data, &rhs.data) {
        (Data::F32(a), Data::F32(b)) => Ok(Data::F32(
            left.iter()
                .zip(&right)
                .map(|(&i, &j)| float_binary(op, a[i], b[j]))
                .collect(),
        )),
        (Data::I64(a), Data::I64(b)) => Ok(Data::I64(
            left.iter()
                .zip(&right)
                .map(|(&i, &j)| integer_binary(op, a[i], b[j]))
                .collect::<Result<_, _>>()?,
        )),
        _ => Err(format!("{op:?} is not defined on these element types")),
    }
}

/// A comparison predicate (`graph.compare`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Predicate {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

fn holds<T: PartialOrd>(predicate: Predicate, a: T, b: T) -> bool {
    match predicate {
        Predicate::Eq => a == b,
        Predicate::Ne => a != b,
        Predicate::Lt => a < b,
        Predicate::Le => a <= b,
        Predicate::Gt => a > b,
        Predicate::Ge => a >= b,
    }
}

/// Elementwise comparison of broadcast operands.
pub fn compare(predicate: Predicate, lhs: &Tensor, rhs: &Tensor, out_shape: &[usize]) -> Data {
    let left = broadcast_map(&lhs.shape, out_shape);
    let right = broadcast_map(&rhs.shape, out_shape);
    let pairs = left.iter().zip(&right);
    Data::Bool(match (&lhs.data, &rhs.data) {
        (Data::F32(a), Data::F32(b)) => {
            pairs.map(|(&i, &j)| holds(predicate, a[i], b[j])).collect()
        }
        (Data::I64(a), Data::I64(b)) => {
            pairs.map(|(&i, &j)| holds(predicate, a[i], b[j])).collect()
        }
        (Data::Bool(a), Data::Bool(b)) => {
            pairs.map(|(&i, &j)| holds(predicate, a[i], b[j])).collect()
        }
        _ => unreachable!("the verifier ensures both sides share an element type"),
    })
}

/// `condition ? lhs : rhs` with broadcasting.
pub fn select(condition: &Tensor, lhs: &Tensor, rhs: &Tensor, out_shape: &[usize]) -> Data {
    let Data::Bool(flags) = &condition.data else {
        unreachable!("the verifier ensures an i1 condition")
    };
    let c = broadcast_map(&condition.shape, out_shape);
    let chosen: Vec<(bool, usize)> = c
        .iter()
        .zip(
            broadcast_map(&lhs.shape, out_shape)
                .into_iter()
                .zip(broadcast_map(&rhs.shape, out_shape)),
        )
        .map(|(&ci, (li, ri))| if flags[ci] { (true, li) } else { (false, ri) })
        .collect();
    match (&lhs.data, &rhs.data) {
        (Data::F32(a), Data::F32(b)) => Data::F32(
            chosen
                .iter()
                .map(|&(left, i)| if left { a[i] } else { b[i] })
                .collect(),
        ),
        (Data::I64(a), Data::I64(b)) => Data::I64(
            chosen
                .iter()
                .map(|&(left, i)| if left { a[i] } else { b[i] })
                .collect(),
        ),
        (Data::Bool(a), Data::Bool(b)) => Data::Bool(
            chosen
                .iter()
                .map(|&(left, i)| if left { a[i] } else { b[i] })
                .collect(),
        ),
        _ => unreachable!("the verifier ensures both choices share an element type"),
    }
}

/// `value` truncated toward zero to 32 bits as x86's `cvttss2si` does: NaN and values outside
/// i32's range give `i32::MIN`, the "integer indefinite" value. onnxruntime's and numpy's casts
/// of floats to i8 and ui8 go through it, so 300.0 is 44 and NaN is 0.
fn truncate_i32(value: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&value) {
        value as i32
    } else {
        i32::MIN
    }
}

/// Converts `data` to `to` as ONNX `Cast` does, in the wide form the interpreter holds values
/// in (the evaluator then rounds f16 and bf16 to nearest even and wraps narrow integers): floats
/// truncate toward zero into integers, saturating into i32 and i64 (NaN to 0) and through 32
/// bits into i8 and ui8 (see [`truncate_i32`]); integers convert to floats through f32;
/// non-zero is true.
pub fn cast(data: &Data, to: ElementType) -> Data {
    match (data, to) {
        (Data::F32(values), ElementType::F32 | ElementType::F16 | ElementType::Bf16) => {
            Data::F32(values.clone())
        }
        (Data::F32(values), ElementType::I64) => {
            Data::I64(values.iter().map(|&v| v as i64).collect())
        }
        (Data::F32(values), ElementType::I32) => {
            Data::I64(values.iter().map(|&v| i64::from(v as i32)).collect())
        }
        (Data::F32(values), ElementType::I8 | ElementType::U8) => {
            Data::I64(values.iter().map(|&v| i64::from(truncate_i32(v))).collect())
        }
        (Data::F32(values), ElementType::Bool) => {
            Data::Bool(values.iter().map(|&v| v != 0.0).collect())
        }
        (Data::I64(values), to) if to.is_float() => {
            Data::F32(values.iter().map(|&v| v as f32).collect())
        }
        (Data::I64(values), ElementType::Bool) => {
            Data::Bool(values.iter().map(|&v| v != 0).collect())
        }
        (Data::I64(values), _) => Data::I64(values.clone()),
        (Data::Bool(values), to) if to.is_float() => {
            Data::F32(values.iter().map(|&v| if v { 1.0 } else { 0.0 }).collect())
        }
        (Data::Bool(values), ElementType::Bool) => Data::Bool(values.clone()),
        (Data::Bool(values), _) => Data::I64(values.iter().map(|&v| v as i64).collect()),
    }
}

/// A unary floating-point operator.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Unary {
    /// `x` when not below 0, else 0: ONNX's `Max(X, 0)`, so NaN stays NaN; `-0.0` stays
    /// `-0.0` (onnxruntime's answer; ONNX leaves the sign of that tie open).
    Relu,
    /// `1 / (1 + exp(-x))`
    Sigmoid,
    /// `tanh(x)`
    Tanh,
    /// `x * sigmoid(x)`
    Silu,
    /// `0.5 x (1 + erf(x / sqrt 2))`, or its tanh approximation.
    Gelu {
        /// Use `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
        approximate: bool,
    },
    /// The Gauss error function.
    Erf,
    /// Square root.
    Sqrt,
    /// `e^x`
    Exp,
    /// Natural logarithm.
    Log,
    /// `-x`
    Neg,
    /// `|x|`
    Abs,
    /// `1 / x`
    Reciprocal,
    /// `min` for `x` below `min`, `max` for `x` above `max`, else `x` (ONNX: "under which element
    /// is replaced by min"): NaN and `-0.0` pass through, and a NaN bound replaces nothing.
    Clip {
        /// Lower bound.
        min: f32,
        /// Upper bound.
        max: f32,
    },
}

/// `op` at one value.
pub fn unary_scalar(op: Unary, x: f32) -> f32 {
    match op {
        Unary::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        Unary::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        Unary::Tanh => x.tanh(),
        Unary::Silu => x / (1.0 + (-x).exp()),
        Unary::Gelu { approximate: false } => {
            0.5 * x * (1.0 + libm::erff(x / std::f32::consts::SQRT_2))
        }
        Unary::Gelu { approximate: true } => {
            let inner = (2.0f32 / std::f32::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
            0.5 * x * (1.0 + inner.tanh())
        }
        Unary::Erf => libm::erff(x),
        Unary::Sqrt => x.sqrt(),
        Unary::Exp => x.exp(),
        Unary::Log => x.ln(),
        Unary::Neg => -x,
        Unary::Abs => x.abs(),
        Unary::Reciprocal => 1.0 / x,
        Unary::Clip { min, max } => {
            if x < min {
                min
            } else if x > max {
                max
            } else {
                x
            }
        }
    }
}

/// `op` at every value.
pub fn unary(op: Unary, values: &[f32]) -> Vec<f32> {
    values.iter().map(|&x| unary_scalar(op, x)).collect()
}
