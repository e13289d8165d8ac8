//! ONNX Resize (`graph.resize`): nearest, linear and cubic interpolation, separable over
//! dimensions.
//! Follows the operator's definition, including its reference implementation's handling of
//! coordinates outside the input (they read the edge).

use crate::tensor::strides;

/// How an output coordinate maps to an input coordinate (ONNX `coordinate_transformation_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coordinates {
    /// `(x + 0.5) / scale - 0.5`.
    HalfPixel,
    /// As half_pixel, but 0 when the output has length 1.
    PytorchHalfPixel,
    /// `x * (in - 1) / (out - 1)`.
    AlignCorners,
    /// `x / scale`.
    Asymmetric,
}

/// How nearest-neighbour resizing rounds (ONNX `nearest_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rounding {
    /// To the nearest, halves down.
    RoundPreferFloor,
    /// To the nearest, halves up.
    RoundPreferCeil,
    /// Down.
    Floor,
    /// Up.
    Ceil,
}

/// The interpolation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Interpolation {
    /// The nearest input element, rounded as given.
    Nearest(Rounding),
    /// Linear between the two neighbours in every dimension.
    Linear,
    /// Keys' cubic convolution over the four neighbours in every dimension, with coefficient
    /// `a`; with `exclude_outside`, neighbours outside the input weigh 0 and the others are
    /// renormalised.
    Cubic {
        /// The coefficient (ONNX `cubic_coeff_a`, -0.75 by default).
        a: f32,
        /// ONNX `exclude_outside`.
        exclude_outside: bool,
    },
}

/// The weights of the four neighbours `floor(x) - 1 ..= floor(x) + 2` of a coordinate whose
/// distance past `floor(x)` is `ratio` (ONNX's reference formula).
fn cubic_weights(ratio: f64, a: f64) -> [f64; 4] {
    let far = |t: f64| ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
    let near = |t: f64| ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    [
        far(ratio + 1.0),
        near(ratio),
        near(1.0 - ratio),
        far(2.0 - ratio),
    ]
}

/// The input coordinate output coordinate `x` of a dimension maps to. As in ONNX's reference,
/// the resized length in these formulas is `input * scale` before rounding.
fn source(x: usize, scale: f32, input: usize, coordinates: Coordinates) -> f64 {
    let (x, scale) = (x as f64, scale as f64);
    let resized = input as f64 * scale;
    match coordinates {
        Coordinates::HalfPixel => (x + 0.5) / scale - 0.5,
        Coordinates::PytorchHalfPixel if resized != 1.0 => (x + 0.5) / scale - 0.5,
        Coordinates::PytorchHalfPixel => 0.0,
        Coordinates::AlignCorners if resized != 1.0 => x * (input as f64 - 1.0) / (resized - 1.0),
        Coordinates::AlignCorners => 0.0,
        Coordinates::Asymmetric => x / scale,
    }
}

/// Per output coordinate of one dimension, the input elements it reads and their weights.
fn taps(
    scale: f32,
    input: usize,
    output: usize,
    coordinates: Coordinates,
    interpolation: Interpolation,
) -> Vec<Vec<(usize, f32)>> {
    let clamp = |i: f64| i.clamp(0.0, input as f64 - 1.0) as usize;
    (0..output)
        .map(|x| {
            let position = source(x, scale, input, coordinates);
            match interpolation {
                Interpolation::Nearest(rounding) => {
                    let rounded = match rounding {
                        Rounding::RoundPreferFloor if position.fract() == 0.5 => position.floor(),
                        Rounding::RoundPreferCeil if position.fract() == 0.5 => position.ceil(),
                        Rounding::RoundPreferFloor | Rounding::RoundPreferCeil => position.round(),
                        Rounding::Floor => position.floor(),
                        Rounding::Ceil => position.ceil(),
                    };
                    vec![(clamp(rounded), 1.0)]
                }
                Interpolation::Linear => {
                    let low = position.floor();
                    let ratio = (position - low) as f32;
                    if ratio == 0.0 {
                        vec![(clamp(low), 1.0)]
                    } else {
                        vec![(clamp(low), 1.0 - ratio), (clamp(low + 1.0), ratio)]
                    }
                }
                Interpolation::Cubic { a, exclude_outside } => {
                    cubic_taps(position, input, f64::from(a), exclude_outside)
                }
            }
        })
        .collect()
}

/// The four taps of cubic interpolation at `position` of an input of `input` elements: outside
/// neighbours read the edge, or weigh 0 with `exclude_outside` (the others then sum to 1).
fn cubic_taps(position: f64, input: usize, a: f64, exclude_outside: bool) -> Vec<(usize, f32)> {
    let low = position.floor();
    let mut weights = cubic_weights(position - low, a);
    let neighbours: Vec<f64> = (-1..=2).map(|offset| low + f64::from(offset)).collect();
    if exclude_outside {
        for (weight, &neighbour) in weights.iter_mut().zip(&neighbours) {
            if neighbour < 0.0 || neighbour >= input as f64 {
                *weight = 0.0;
            }
        }
        let total: f64 = weights.iter().sum();
        weights.iter_mut().for_each(|weight| *weight /= total);
    }
    neighbours
        .iter()
        .zip(weights)
        .map(|(&neighbour, weight)| {
            let index = neighbour.clamp(0.0, input as f64 - 1.0) as usize;
            (index, weight as f32)
        })
        .collect()
}

/// Resizes `data` of `shape` to `out_shape` with one scale per dimension.
pub fn resize(
    data: &[f32],
    shape: &[usize],
    out_shape: &[usize],
    scales: &[f32],
    coordinates: Coordinates,
    interpolation: Interpolation,
) -> Vec<f32> {
    let rank = shape.len();
    let taps: Vec<Vec<Vec<(usize, f32)>>> = (0..rank)
        .map(|d| {
            taps(
                scales[d],
                shape[d],
                out_shape[d],
                coordinates,
                interpolation,
            )
        })
        .collect();
    let in_strides = strides(shape);
    let count: usize = out_shape.iter().product();
    let mut result = Vec::with_capacity(count);
    let mut index = vec![0usize; rank];
    for _ in 0..count {
        // Sum over the product of every dimension's taps: (offset, weight) pairs, expanded
        // dimension by dimension.
        let mut terms: Vec<(usize, f32)> = vec![(0, 1.0)];
        for d in 0..rank {
            let (dimension, stride) = (&taps[d][index[d]], in_strides[d]);
            terms = terms
                .iter()
                .flat_map(|&(offset, weight)| {
                    dimension
                        .iter()
                        .map(move |&(i, w)| (offset + i * stride, weight * w))
                })
                .collect();
        }
        result.push(
            terms
                .iter()
                .map(|&(offset, weight)| weight * data[offset])
                .sum(),
        );
        for d in (0..rank).rev() {
            index[d] += 1;
            if index[d] < out_shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    result
}
