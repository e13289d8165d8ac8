//! Pooling over NCHW tensors.

use super::Window;

/// Max or average over each window; padding never wins a max. For the average, `count_include_pad`
/// counts the window positions inside the explicitly padded input, otherwise only those inside the
/// input (ONNX AveragePool).
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
    let padded = |axis: usize, out: usize, k: usize, extent: usize| {
        let position = (out * window.strides[axis] + k * window.dilations[axis]) as isize;
        position < (extent + window.pads[axis] + window.pads[axis + 2]) as isize
    };
    let mut output = Vec::with_capacity(batch * channels * out_height * out_width);
    for plane in input.chunks(height * width).take(batch * channels) {
        for y in 0..out_height {
            for x in 0..out_width {
                let mut accumulator = if max { f32::NEG_INFINITY } else { 0.0 };
                let mut count = 0usize;
                for i in 0..window.kernel[0] {
                    for j in 0..window.kernel[1] {
                        match (window.source(0, y, i, height), window.source(1, x, j, width)) {
                            (Some(row), Some(column)) => {
                                let value = plane[row * width + column];
                                accumulator = if max { accumulator.max(value) } else { accumulator + value };
                                count += 1;
                            }
                            _ if count_include_pad && padded(0, y, i, height) && padded(1, x, j, width) => {
                                count += 1
                            }
                            _ => {}
                        }
                    }
                }
                output.push(if max { accumulator } else { accumulator / count.max(1) as f32 });
            }
        }
    }
    output
}

/// Mean over all spatial positions of each (n, c) plane.
pub fn global_avg_pool(input: &[f32], spatial: usize) -> Vec<f32> {
    input.chunks(spatial).map(|plane| plane.iter().sum::<f32>() / spatial as f32).collect()
}
