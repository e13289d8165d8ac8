//! Reductions over a set of axes, and the orderings along one axis (arg extremes, top-k).

use super::elementwise::maximum;
use std::cmp::Ordering;

/// How values combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reduction {
    /// Sum.
    Sum,
    /// Arithmetic mean.
    Mean,
    /// Maximum, NaN when any value is NaN.
    Max,
    /// Product.
    Prod,
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
        match kind {
            Reduction::Max => f32::NEG_INFINITY,
            Reduction::Prod => 1.0,
            Reduction::Sum | Reduction::Mean => 0.0,
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
            Reduction::Prod => out[target] * value,
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

/// Which extreme an index reduction looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extreme {
    /// The largest element.
    Max,
    /// The smallest element.
    Min,
}

/// The index along `axis` of the extreme element of each line of `input` (of `shape`, with a
/// non-empty `axis`): the first one, or the last with `last`. A NaN is the extreme (numpy's rule),
/// and the first NaN wins.
pub fn arg_extreme(
    input: &[f32],
    shape: &[usize],
    axis: usize,
    extreme: Extreme,
    last: bool,
) -> Vec<i64> {
    let outer: usize = shape[..axis].iter().product();
    let size = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let better = |candidate: f32, best: f32| -> bool {
        if best.is_nan() {
            return false;
        }
        if candidate.is_nan() {
            return true;
        }
        match (extreme, last) {
            (Extreme::Max, false) => candidate > best,
            (Extreme::Max, true) => candidate >= best,
            (Extreme::Min, false) => candidate < best,
            (Extreme::Min, true) => candidate <= best,
        }
    };
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| input[(o * size + k) * inner + i];
            let mut best = 0;
            for k in 1..size {
                if better(at(k), at(best)) {
                    best = k;
                }
            }
            out.push(best as i64);
        }
    }
    out
}

/// The `k` first elements of each line of `input` (of `shape`) along `axis`, in order, and their
/// indices: the largest first (the smallest with `largest` false), equal elements by index, NaNs
/// (the extremes either way, as in [`arg_extreme`]) before every number.
pub fn top_k(
    input: &[f32],
    shape: &[usize],
    axis: usize,
    k: usize,
    largest: bool,
) -> (Vec<f32>, Vec<i64>) {
    let outer: usize = shape[..axis].iter().product();
    let size = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let order = |&(a, i): &(f32, usize), &(b, j): &(f32, usize)| {
        let by_value = match (a.is_nan(), b.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ if largest => b.partial_cmp(&a).expect("neither is NaN"),
            _ => a.partial_cmp(&b).expect("neither is NaN"),
        };
        by_value.then(i.cmp(&j))
    };
    let (mut values, mut indices) = (vec![0.0; outer * k * inner], vec![0; outer * k * inner]);
    for o in 0..outer {
        for i in 0..inner {
            let mut line: Vec<(f32, usize)> = (0..size)
                .map(|at| (input[(o * size + at) * inner + i], at))
                .collect();
            line.sort_by(order);
            for (rank, &(value, at)) in line[..k].iter().enumerate() {
                values[(o * k + rank) * inner + i] = value;
                indices[(o * k + rank) * inner + i] = at as i64;
            }
        }
    }
    (values, indices)
}
