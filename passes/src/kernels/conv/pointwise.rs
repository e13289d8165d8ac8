//! A pointwise convolution (1×1 kernel, no stride, padding or groups) seen as a product over
//! pixels: its input and output images viewed as rows of `k` pixels for a divisor `k` of the
//! image's width, so that an output tile can hold part of an image row.
//!
//! Tiles are whole rows, and where the LB holds few long image rows next to the other dimensions
//! of the product, a tile of whole rows takes small output-channel blocks and reads its input
//! once per block, which the GB bus bounds; part of a row with more channels reads it fewer
//! times. A tile of rows of `k` pixels covers one run of the image's pixels per channel, so the
//! loads stay one contiguous run per channel.

use super::geometry::Geometry;
use crate::kernels::{
    emit::{Body, Tensor, View},
    row_classes::Rows,
};

/// Pixel-row widths shorter than this are not tried: their loads' runs would be short, and the
/// image row's own width is tried anyway.
const NARROWEST: usize = 8;

/// Whether `view` (`[N, C, H, W]`) has its pixels in one run per channel, so that it can be
/// seen as rows of fewer pixels.
pub(super) fn pixels_contiguous(view: &View) -> bool {
    let (shape, strides) = (&view.shape, &view.strides);
    shape.len() == 4
        && (shape[3] == 1 || strides[3] == 1)
        && (shape[2] == 1 || strides[2] == shape[3])
}

/// The pixel-row widths worth trying for a convolution of geometry `geometry` whose input view is
/// `input` and whose epilogue reads operands of `externals` shapes (each with its view), or none
/// when it is not pointwise or an operand cannot be seen as pixel rows.
pub(super) fn widths<'v>(
    geometry: &Geometry,
    input: &View,
    externals: impl Iterator<Item = &'v View>,
) -> Vec<usize> {
    let pointwise = geometry.kernel == [1, 1]
        && geometry.strides == [1, 1]
        && geometry.pads == [0; 4]
        && geometry.groups == 1
        && geometry.rows.height == geometry.rows.output
        && geometry.width == geometry.out_width;
    let (height, width) = (geometry.rows.output, geometry.out_width);
    // An epilogue operand either has the output's pixels in one run per channel, or is the
    // same for every pixel (a per-channel bias or scale).
    let operands_fit = || {
        externals.into_iter().all(|view| {
            let pixels = &view.shape[view.shape.len().saturating_sub(2)..];
            view.shape.len() == 4
                && (pixels == [1, 1] || (pixels == [height, width] && pixels_contiguous(view)))
        })
    };
    if !pointwise || !pixels_contiguous(input) || !operands_fit() {
        return Vec::new();
    }
    // Parts of an image row only: longer runs of pixels (divisors of H·W that straddle rows)
    // would double the tilings to estimate.
    (NARROWEST..width).filter(|&k| width % k == 0).collect()
}

/// `geometry` seen as rows of `k` pixels.
pub(super) fn geometry(base: &Geometry, k: usize) -> Geometry {
    let rows = base.rows.output * base.out_width / k;
    Geometry {
        width: k,
        out_width: k,
        rows: Rows {
            height: rows,
            output: rows,
            stride: 1,
            top: 0,
            extent: 1,
        },
        ..base.clone()
    }
}

/// `shape` (`[N, C, H, W]`, or `[.., 1, 1]`) as rows of `k` pixels.
pub(super) fn shape(shape: &[usize], k: usize) -> Vec<usize> {
    if shape[2] * shape[3] == 1 {
        return shape.to_vec();
    }
    vec![shape[0], shape[1], shape[2] * shape[3] / k, k]
}

/// A host-side view of `tensor` (pixels in one run per channel, see [`pixels_contiguous`]) as
/// rows of `k` pixels: the same elements at the same offset.
pub(super) fn rows_of(host: &mut Body, tensor: &Tensor, k: usize) -> Tensor {
    let view = &tensor.view;
    if view.shape[2] * view.shape[3] == 1 {
        return tensor.clone();
    }
    let result = View {
        shape: shape(&view.shape, k),
        strides: vec![view.strides[0], view.strides[1], k, 1],
        dynamic_offset: view.dynamic_offset,
        space: view.space,
        element: view.element,
    };
    if view.dynamic_offset {
        let (value, result) = host.reshape_window(tensor.host, view, &result);
        return Tensor {
            host: value,
            view: result,
        };
    }
    Tensor {
        host: host.reinterpret(tensor.host, &result),
        view: result,
    }
}
