//! 2-D convolution, NCHW input, OIHW filter, grouped.

use super::Window;
use std::ops::{AddAssign, Mul};

/// `output[n][o][y][x] = bias[o] + sum over the group's channels c and the window (i, j) of
/// input[n][c][y*s + i*d - pad][x*s + j*d - pad] * filter[o][c - group_start][i][j]`, padding
/// reading as zero. The padding is multiplied like any input, since ONNX pads the input with
/// zeros: an infinite or NaN weight over the padding gives NaN. The input and the filter come
/// with their shapes. Floats compute in f32; the integer convolutions (`graph.conv_integer`) in
/// i64, exactly.
pub fn conv2d<T: Copy + Default + AddAssign + Mul<Output = T>>(
    (input, input_shape): (&[T], [usize; 4]),
    (filter, filter_shape): (&[T], [usize; 4]),
    bias: Option<&[T]>,
    window: Window,
    groups: usize,
    output_shape: [usize; 4],
) -> Vec<T> {
    let [batch, channels, height, width] = input_shape;
    let [out_channels, group_channels, kh, kw] = filter_shape;
    let [_, _, out_height, out_width] = output_shape;
    let outs_per_group = out_channels / groups;
    let mut output = vec![T::default(); batch * out_channels * out_height * out_width];
    for n in 0..batch {
        for o in 0..out_channels {
            let plane = &mut output[((n * out_channels + o) * out_height * out_width)..]
                [..out_height * out_width];
            plane.fill(bias.map_or(T::default(), |bias| bias[o]));
            let group = o / outs_per_group;
            for c in 0..group_channels {
                let input_channel = group * group_channels + c;
                debug_assert!(input_channel < channels);
                let source =
                    &input[((n * channels + input_channel) * height * width)..][..height * width];
                for i in 0..kh {
                    for j in 0..kw {
                        let weight = filter[((o * group_channels + c) * kh + i) * kw + j];
                        for y in 0..out_height {
                            let row = window.source(0, y, i, height);
                            for x in 0..out_width {
                                let value = match (row, window.source(1, x, j, width)) {
                                    (Some(row), Some(column)) => source[row * width + column],
                                    _ => T::default(),
                                };
                                plane[y * out_width + x] += weight * value;
                            }
                        }
                    }
                }
            }
        }
    }
    output
}
