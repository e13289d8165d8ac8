//! Reductions over a set of axes.

use super::elementwise::maximum;

/// How values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// Sum.
    Sum,
    /// Arithmetic mean.
    Mean,
    /// Maximum, NaN when any value is NaN.
    Max,
}

/// Reduces `input` of `shape` over `axes` (normalised, distinct); the result is in row-major order
/// of the kept dimensions, which is the same whether or not reduced dimensions are kept as 1.
pub fn reduce(input: &[f32], shape: &[usize], axes: &[usize], kind: Reduction) -> Vec<f32> {
    let kept: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(d, &s)| if axes.contains(&d) { 1 } else { s })
        .collect();
    let out_count: usize = kept.iter().product();
    let reduced_count: usize = axes.iter().map(|&d| shape[d]).product();
    let mut out = vec![
        if kind == Reduction::Max {
            f32::NEG_INFINITY
        } else {
            0.0
        };
        out_count
    ];
    let out_strides = crate::tensor::strides(&kept);
    let mut index = vec![0usize; shape.len()];
    for &value in input {
        let target: usize = (0..shape.len())
            .map(|d| {
                if axes.contains(&d) {
                    0
                } else {
                    index[d] * out_strides[d]
                }
            })
            .sum();
        out[target] = match kind {
            Reduction::Max => maximum(out[target], value),
            Reduction::Sum | Reduction::Mean => out[target] + value,
        };
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    if kind == Reduction::Mean {
        out.iter_mut()
            .for_each(|value| *value /= reduced_count as f32);
    }
    out
}
