//! Normalisation operators.

use super::elementwise::maximum;

/// `(x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c]` over dimension 1 of an N×C×... tensor.
pub fn batch_norm(
    input: &[f32],
    shape: &[usize],
    scale: &[f32],
    bias: &[f32],
    mean: &[f32],
    variance: &[f32],
    epsilon: f32,
) -> Vec<f32> {
    let channels = shape[1];
    let inner: usize = shape[2..].iter().product();
    input
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let c = (i / inner) % channels;
            (x - mean[c]) / (variance[c] + epsilon).sqrt() * scale[c] + bias[c]
        })
        .collect()
}

/// ONNX LayerNormalization over the trailing `normalized` elements of each row.
pub fn layer_norm(
    input: &[f32],
    normalized: usize,
    scale: &[f32],
    bias: Option<&[f32]>,
    epsilon: f32,
) -> Vec<f32> {
    let mut out = Vec::with_capacity(input.len());
    // No normalized elements: the tensor is empty (chunks of 0 would panic).
    if normalized == 0 {
        return out;
    }
    for row in input.chunks(normalized) {
        let mean = row.iter().sum::<f32>() / normalized as f32;
        let variance =
            row.iter().map(|&x| (x - mean) * (x - mean)).sum::<f32>() / normalized as f32;
        let deviation = (variance + epsilon).sqrt();
        for (i, &x) in row.iter().enumerate() {
            out.push((x - mean) / deviation * scale[i] + bias.map_or(0.0, |bias| bias[i]));
        }
    }
    out
}

/// Softmax along `axis` of a tensor of `shape`: `exp(x - max) / sum`, so a NaN or +inf anywhere
/// along the axis makes the whole slice NaN, as in ONNX's definition.
pub fn softmax(input: &[f32], shape: &[usize], axis: usize) -> Vec<f32> {
    let size = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![0.0f32; input.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * size + k) * inner + i;
            let max = (0..size)
                .map(|k| input[at(k)])
                .fold(f32::NEG_INFINITY, maximum);
            let sum: f32 = (0..size).map(|k| (input[at(k)] - max).exp()).sum();
            for k in 0..size {
                out[at(k)] = (input[at(k)] - max).exp() / sum;
            }
        }
    }
    out
}

/// ONNX LRN on NCHW: `x / (bias + alpha / size * sum of x^2 over channels
/// [c - floor((size-1)/2), c + ceil((size-1)/2)])^beta`.
pub fn lrn(
    input: &[f32],
    shape: &[usize],
    size: usize,
    alpha: f32,
    beta: f32,
    bias: f32,
) -> Vec<f32> {
    let channels = shape[1];
    let inner: usize = shape[2..].iter().product();
    let below = (size - 1) / 2;
    let above = size - 1 - below;
    input
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let c = (i / inner) % channels;
            let base = i - c * inner;
            let first = c.saturating_sub(below);
            let last = (c + above).min(channels - 1);
            let square_sum: f32 = (first..=last)
                .map(|k| input[base + k * inner].powi(2))
                .sum();
            x / (bias + alpha / size as f32 * square_sum).powf(beta)
        })
        .collect()
}
