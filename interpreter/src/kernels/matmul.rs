//! Matrix products.

use super::elementwise::broadcast_map;
use std::ops::{AddAssign, Mul};

/// `C[i][j] = sum over p of A[i][p] * B[p][j]` for row-major `A` (m×k) and `B` (k×n): in f32
/// for floats, exactly in i64 for the integer products (`graph.matmul_integer`).
pub fn matmul<T: Copy + Default + AddAssign + Mul<Output = T>>(
    a: &[T],
    b: &[T],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<T> {
    let mut c = vec![T::default(); m * n];
    for i in 0..m {
        for p in 0..k {
            let left = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += left * b[p * n + j];
            }
        }
    }
    c
}

/// ONNX MatMul on operands of rank >= 2: the last two dimensions multiply, the leading ones
/// broadcast to `out_shape[..rank-2]`.
pub fn batch_matmul<T: Copy + Default + AddAssign + Mul<Output = T>>(
    a: &[T],
    a_shape: &[usize],
    b: &[T],
    b_shape: &[usize],
    out_shape: &[usize],
) -> Vec<T> {
    let (m, k) = (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]);
    let n = b_shape[b_shape.len() - 1];
    let batch_shape = &out_shape[..out_shape.len() - 2];
    let a_batches = broadcast_map(&a_shape[..a_shape.len() - 2], batch_shape);
    let b_batches = broadcast_map(&b_shape[..b_shape.len() - 2], batch_shape);
    let mut out = Vec::with_capacity(out_shape.iter().product());
    for (&ia, &ib) in a_batches.iter().zip(&b_batches) {
        out.extend(matmul(
            &a[ia * m * k..][..m * k],
            &b[ib * k * n..][..k * n],
            m,
            k,
            n,
        ));
    }
    out
}

/// ONNX Gemm: `alpha * op(A) * op(B) + beta * C`, `op` transposing when asked, `C` broadcast to
/// m×n. With `beta` 0, `C` is not read (an infinite or NaN `C` does not make NaN), as in BLAS,
/// ONNX's reference implementation and onnxruntime.
#[allow(clippy::too_many_arguments)]
pub fn gemm(
    a: &[f32],
    a_shape: [usize; 2],
    b: &[f32],
    b_shape: [usize; 2],
    c: Option<(&[f32], &[usize])>,
    alpha: f32,
    beta: f32,
    trans_a: bool,
    trans_b: bool,
) -> Vec<f32> {
    let (m, k) = if trans_a {
        (a_shape[1], a_shape[0])
    } else {
        (a_shape[0], a_shape[1])
    };
    let n = if trans_b { b_shape[0] } else { b_shape[1] };
    let a_at = |i: usize, p: usize| if trans_a { a[p * m + i] } else { a[i * k + p] };
    let b_at = |p: usize, j: usize| if trans_b { b[j * k + p] } else { b[p * n + j] };
    let c = c.filter(|_| beta != 0.0);
    let c_map = c.map(|(_, shape)| broadcast_map(shape, &[m, n]));
    let mut out = vec![0.0f32; m * n];
    for i in 0..m {
        for j in 0..n {
            let mut sum = 0.0f32;
            for p in 0..k {
                sum += a_at(i, p) * b_at(p, j);
            }
            let bias = match (&c, &c_map) {
                (Some((values, _)), Some(map)) => beta * values[map[i * n + j]],
                _ => 0.0,
            };
            out[i * n + j] = alpha * sum + bias;
        }
    }
    out
}
