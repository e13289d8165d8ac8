//! The operators, written as their definitions. Shapes have been checked by the IR verifiers, so
//! kernels take them as given; every kernel returns a freshly allocated result.

pub mod conv;
pub mod elementwise;
pub mod matmul;
pub mod movement;
pub mod normalization;
pub mod pooling;
pub mod quantize;
pub mod reduction;
pub mod resize;

/// Parameters of a 2-D sliding window (convolution or pooling), in ONNX order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// Kernel height and width.
    pub kernel: [usize; 2],
    /// Strides along height and width.
    pub strides: [usize; 2],
    /// Padding: top, left, bottom, right.
    pub pads: [usize; 4],
    /// Dilations along height and width.
    pub dilations: [usize; 2],
}

impl Window {
    /// The input row (or column, for `axis` 1) that output position `out` reads at kernel offset
    /// `k`, or None when it falls into the padding.
    pub fn source(&self, axis: usize, out: usize, k: usize, extent: usize) -> Option<usize> {
        let position = (out * self.strides[axis] + k * self.dilations[axis]) as isize
            - self.pads[axis] as isize;
        (position >= 0 && (position as usize) < extent).then_some(position as usize)
    }
}
