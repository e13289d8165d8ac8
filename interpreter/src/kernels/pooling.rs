//! Pooling over NCHW tensors.

use super::elementwise::maximum;
use super::Window;

/// Max or average over each window; padding never wins a max, and a NaN in the window makes the
/// max NaN (ONNX's maximum is numpy's). For the average, `count_include_pad`
/// divides by the whole kernel size, even for a window that ceil mode lets run past the padding
/// (as ONNX's reference evaluator and onnxruntime do), otherwise by the positions inside the input.
pub fn pool2d(
    input: &[f32],
    shape: [usize; 4],
    window: Window,
    output_shape: [usize; 4],
    max: bool,
    count_include_pad: bool,
) -> Vec<f32> {
    let [batch, channels, height, width] = shape;
    let [_, _, out_height, out_width] = output_shape;
    let mut output = Vec::with_capacity(batch * channels * out_height * out_width);
    // Planes by index: an empty plane (a zero-size height or width) still has its padded outputs.
    for plane in (0..batch * channels).map(|p| &input[p * height * width..(p + 1) * height * width])
    {
        for y in 0..out_height {
            for x in 0..out_width {
                let mut accumulator = if max { f32::NEG_INFINITY } else { 0.0 };
                let mut count = 0usize;
                for i in 0..window.kernel[0] {
                    for j in 0..window.kernel[1] {
                        if let (Some(row), Some(column)) = (
                            window.source(0, y, i, height),
                            window.source(1, x, j, width),
                        ) {
                            let value = plane[row * width + column];
                            accumulator = if max {
                                maximum(accumulator, value)
                            } else {
                                accumulator + value
                            };
                            count += 1;
                        }
                    }
                }
                let divisor = if count_include_pad {
                    window.kernel[0] * window.kernel[1]
                } else {
                    count.max(1)
                };
                output.push(if max {
                    accumulator
                } else {
                    accumulator / divisor as f32
                });
            }
        }
    }
    output
}

/// Mean over all spatial positions of each of the `planes` (n, c) planes (NaN for an empty plane,
/// as a mean over nothing is).
pub fn global_avg_pool(input: &[f32], planes: usize, spatial: usize) -> Vec<f32> {
    (0..planes)
        .map(|p| input[p * spatial..(p + 1) * spatial].iter().sum::<f32>() / spatial as f32)
        .collect()
}
