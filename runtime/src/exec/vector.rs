//! Element-wise work of the vector units: gather the inputs (broadcast to the output's shape)
//! into dense scratch, compute, scatter. Gathering first gives memmove semantics when the
//! output overlaps an input (an in-place `relu` is the common case).
//!
//! Tiles are usually dense, so the common case computes in place instead: a dense output, a
//! dense first input that is in another buffer or is exactly the output's elements, and a
//! second input (binary) in another buffer, read run by run (a bias broadcast along a
//! dimension is a run of stride 0). Each element is then read before it is written, which is
//! what gathering first guarantees, so the results are the same.

use super::locks::Locked;
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
    if binary_in_place(op, a, b, out, get) {
        return;
    }
    with_scratch(|x| {
        with_scratch(|y| {
            a.broadcast_to(&out.shape)
                .gather_into(&read(get(a.buffer)), x);
            b.broadcast_to(&out.shape)
                .gather_into(&read(get(b.buffer)), y);
            combine(op, x, y);
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
    if let (Some(range), Some(source)) = (out.dense_range(), input.dense_range()) {
        if input.buffer == out.buffer && source == range {
            apply(op, &mut write(get(out.buffer))[range]);
            return;
        }
        if input.buffer != out.buffer {
            let mut locked = Locked::new(&[input.buffer], out.buffer, get);
            let (read, written) = locked.read_and_written(input.buffer);
            let target = &mut written.f32_mut()[range];
            target.copy_from_slice(&read.f32()[source]);
            apply(op, target);
            return;
        }
    }
    with_scratch(|v| {
        input.gather_into(&read(get(input.buffer)), v);
        apply(op, v);
        out.scatter(&mut write(get(out.buffer)), v);
    });
}

/// `values = op(values)`, one loop per common operation so that each compiles to vector code.
fn apply(op: UnaryOp, values: &mut [f32]) {
    match op {
        // As unary_scalar: NaN stays NaN.
        UnaryOp::Relu => values
            .iter_mut()
            .for_each(|x| *x = if *x < 0.0 { 0.0 } else { *x }),
        UnaryOp::Affine { scale, shift } => values.iter_mut().for_each(|x| *x = scale * *x + shift),
        _ => values.iter_mut().for_each(|x| *x = unary_scalar(op, *x)),
    }
}

/// `x = x op y` element by element, one loop per common operation (vector code).
fn combine(op: BinaryOp, x: &mut [f32], y: &[f32]) {
    let zip = x.iter_mut().zip(y.iter());
    match op {
        BinaryOp::Add => zip.for_each(|(x, &y)| *x += y),
        BinaryOp::Sub => zip.for_each(|(x, &y)| *x -= y),
        BinaryOp::Mul => zip.for_each(|(x, &y)| *x *= y),
        BinaryOp::Div => zip.for_each(|(x, &y)| *x /= y),
        _ => zip.for_each(|(x, &y)| *x = binary_scalar(op, *x, y)),
    }
}

/// `x = x op y` for every element of `x` (vector code for the common operations).
fn combine_scalar(op: BinaryOp, x: &mut [f32], y: f32) {
    match op {
        BinaryOp::Add => x.iter_mut().for_each(|x| *x += y),
        BinaryOp::Sub => x.iter_mut().for_each(|x| *x -= y),
        BinaryOp::Mul => x.iter_mut().for_each(|x| *x *= y),
        BinaryOp::Div => x.iter_mut().for_each(|x| *x /= y),
        _ => x.iter_mut().for_each(|x| *x = binary_scalar(op, *x, y)),
    }
}

/// `out = a op b` computed in the output's memory when the views allow it (see the module's
/// documentation); false, having done nothing, when they do not.
fn binary_in_place<'a>(
    op: BinaryOp,
    a: &View,
    b: &View,
    out: &View,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> bool {
    let a = a.broadcast_to(&out.shape);
    let (Some(range), Some(first)) = (out.dense_range(), a.dense_range()) else {
        return false;
    };
    if (a.buffer == out.buffer && first != range) || b.buffer == out.buffer {
        return false;
    }
    let b = b.broadcast_to(&out.shape);
    let mut locked = Locked::new(&[a.buffer, b.buffer], out.buffer, get);
    if a.buffer != out.buffer {
        let (read, written) = locked.read_and_written(a.buffer);
        written.f32_mut()[range.clone()].copy_from_slice(&read.f32()[first]);
    }
    let (second, written) = locked.read_and_written(b.buffer);
    let (second, target) = (second.f32(), &mut written.f32_mut()[range]);
    let mut next = 0;
    b.for_each_run(|start, count, stride| {
        let x = &mut target[next..next + count];
        match stride {
            0 => combine_scalar(op, x, second[start]),
            1 => combine(op, x, &second[start..start + count]),
            _ => x
                .iter_mut()
                .enumerate()
                .for_each(|(i, x)| *x = binary_scalar(op, *x, second[start + i * stride])),
        }
        next += count;
    });
    true
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
