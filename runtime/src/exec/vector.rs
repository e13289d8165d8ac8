//! Element-wise work of the vector units: gather the inputs (broadcast to the output's shape)
//! into dense scratch, compute, scatter. Gathering first gives memmove semantics when the
//! output overlaps an input (an in-place `relu` is the common case).

use super::{read, with_scratch, write};
use crate::ids::BufferId;
use crate::instr::{BinaryOp, UnaryOp};
use crate::memory::Buffer;
use crate::view::View;

/// `out = a op b` with broadcasting.
pub(super) fn binary<'a>(
    op: BinaryOp,
    a: &View,
    b: &View,
    out: &View,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    with_scratch(|x| {
        with_scratch(|y| {
            a.broadcast_to(&out.shape)
                .gather_into(&read(get(a.buffer)), x);
            b.broadcast_to(&out.shape)
                .gather_into(&read(get(b.buffer)), y);
            // One loop per operation, so that each compiles to vector code.
            let zip = x.iter_mut().zip(y.iter());
            match op {
                BinaryOp::Add => zip.for_each(|(x, &y)| *x += y),
                BinaryOp::Sub => zip.for_each(|(x, &y)| *x -= y),
                BinaryOp::Mul => zip.for_each(|(x, &y)| *x *= y),
                BinaryOp::Div => zip.for_each(|(x, &y)| *x /= y),
                _ => zip.for_each(|(x, &y)| *x = binary_scalar(op, *x, y)),
            }
            out.scatter(&mut write(get(out.buffer)), x);
        })
    });
}

/// `out = op(input)`.
pub(super) fn unary<'a>(
    op: UnaryOp,
    input: &View,
    out: &View,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    with_scratch(|v| {
        input.gather_into(&read(get(input.buffer)), v);
        match op {
            // As unary_scalar: NaN stays NaN.
            UnaryOp::Relu => v
                .iter_mut()
                .for_each(|x| *x = if *x < 0.0 { 0.0 } else { *x }),
            UnaryOp::Affine { scale, shift } => v.iter_mut().for_each(|x| *x = scale * *x + shift),
            _ => v.iter_mut().for_each(|x| *x = unary_scalar(op, *x)),
        }
        out.scatter(&mut write(get(out.buffer)), v);
    });
}

/// One element of a binary operation.
pub(crate) fn binary_scalar(op: BinaryOp, x: f32, y: f32) -> f32 {
    match op {
        BinaryOp::Add => x + y,
        BinaryOp::Sub => x - y,
        BinaryOp::Mul => x * y,
        BinaryOp::Div => x / y,
        BinaryOp::Max => nan_max(x, y),
        BinaryOp::Min => nan_min(x, y),
        BinaryOp::Pow => x.powf(y),
        BinaryOp::Fmod => x % y,
        BinaryOp::Mod => {
            let r = x % y;
            if r != 0.0 && (r < 0.0) != (y < 0.0) {
                r + y
            } else {
                r
            }
        }
    }
}

/// One element of a unary operation.
pub(crate) fn unary_scalar(op: UnaryOp, x: f32) -> f32 {
    match op {
        // Not x.max(0.0), which would turn NaN into 0; -0.0 stays -0.0, as in onnxruntime.
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        UnaryOp::Sigmoid => sigmoid(x),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Erf => libm::erff(x),
        UnaryOp::Gelu => 0.5 * x * (1.0 + libm::erff(x * std::f32::consts::FRAC_1_SQRT_2)),
        UnaryOp::GeluTanh => {
            let inner = (2.0f32 / std::f32::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
            0.5 * x * (1.0 + inner.tanh())
        }
        UnaryOp::Silu => x * sigmoid(x),
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Reciprocal => 1.0 / x,
        // Comparisons rather than f32::clamp: NaN and -0.0 pass through, a NaN bound clips
        // nothing (clamp would panic on it).
        UnaryOp::Clip { min, max } => {
            if x < min {
                min
            } else if x > max {
                max
            } else {
                x
            }
        }
        UnaryOp::Affine { scale, shift } => scale * x + shift,
    }
}

fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// The larger of two values, NaN if either is NaN (numpy's `maximum`).
pub(crate) fn nan_max(x: f32, y: f32) -> f32 {
    if x > y || x.is_nan() {
        x
    } else {
        y
    }
}

/// The smaller of two values, NaN if either is NaN (numpy's `minimum`).
pub(crate) fn nan_min(x: f32, y: f32) -> f32 {
    if x < y || x.is_nan() {
        x
    } else {
        y
    }
}
