//! A convolution's geometry and one tiling of it, with what a tiling costs in LB.

use super::absorbed::Absorbed;
use super::chained::Chained;
use crate::kernels::{emit::Space, row_classes::Rows};

/// A conv's shape parameters.
#[derive(Clone)]
pub(super) struct Geometry {
    pub(super) batch: usize,
    pub(super) channels: usize,
    pub(super) width: usize,
    pub(super) out_channels: usize,
    pub(super) out_width: usize,
    pub(super) kernel: [usize; 2],
    pub(super) strides: [usize; 2],
    pub(super) pads: [usize; 4],
    pub(super) dilations: [usize; 2],
    pub(super) groups: usize,
    pub(super) rows: Rows,
    /// Where the input, the filter and the output live, for the estimate.
    pub(super) spaces: [Space; 3],
    /// The 1×1 convolution whose product each tile accumulates first, if the layer absorbs one.
    pub(super) absorbed: Option<Absorbed>,
    /// The 1×1 convolution each tile feeds, if the layer heads a chain.
    pub(super) chained: Option<Chained>,
}

/// One tiling of a conv.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tiling {
    /// Images per tile: more than one when the filter is worth reading once for several
    /// images (the deep layers, whose weights outweigh their activations).
    pub(super) images: usize,
    pub(super) out_channels: usize,
    pub(super) out_rows: usize,
    pub(super) channel_chunk: usize,
    /// With every input channel in one chunk: number the tiles row-block-major so that the
    /// input rows stay in LB over the output-channel blocks (and the filter is streamed), rather
    /// than output-channel-block-major with the filter staying (and the rows streamed).
    pub(super) input_stationary: bool,
    /// Software-pipelined (GraphTurbo §4.4, within a layer): the input of the next tile is
    /// loaded into the other half of a double buffer while this tile computes and stores. Only
    /// with the filter staying in LB over the tiles (one chunk, not input-stationary), and only
    /// when the LB holds the second input buffer.
    pub(super) pipelined: bool,
    /// Input channels per chunk of the absorbed convolution (0 when there is none), and whether
    /// its chunks are double-buffered.
    pub(super) absorbed_chunk: (usize, bool),
    /// Whether the absorbed convolution's chunks load into the layer's own chunk buffers (they
    /// are computed first, and every chunk is waited for), taking no LB of their own.
    pub(super) absorbed_shares: bool,
    /// Output channels per block of the chained convolution (0 when there is none, or before
    /// the search picks them).
    pub(super) chained_channels: usize,
}

impl Geometry {
    pub(super) fn out_per_group(&self) -> usize {
        self.out_channels / self.groups
    }

    pub(super) fn in_per_group(&self) -> usize {
        self.channels / self.groups
    }

    /// Whether a grouped conv's output-channel tile covers whole groups (each tile convolves
    /// several groups at once) rather than part of one group (a plain conv over that group's
    /// input channels).
    pub(super) fn whole_groups(&self, tiling: &Tiling) -> bool {
        self.groups > 1 && tiling.out_channels.is_multiple_of(self.out_per_group())
    }

    /// Input-channel chunks accumulated per tile.
    pub(super) fn chunks(&self, tiling: &Tiling) -> usize {
        if self.whole_groups(tiling) {
            1
        } else if self.groups == 1 {
            self.channels / tiling.channel_chunk
        } else {
            self.in_per_group() / tiling.channel_chunk
        }
    }

    /// Input channels one output-channel tile reads per chunk.
    pub(super) fn input_channels(&self, tiling: &Tiling) -> usize {
        if self.whole_groups(tiling) {
            tiling.out_channels / self.out_per_group() * self.in_per_group()
        } else {
            tiling.channel_chunk
        }
    }

    /// The `groups` of one tile's conv instruction.
    pub(super) fn tile_groups(&self, tiling: &Tiling) -> usize {
        if self.whole_groups(tiling) {
            tiling.out_channels / self.out_per_group()
        } else {
            1
        }
    }

    pub(super) fn filter_tile(&self, tiling: &Tiling) -> [usize; 4] {
        let per_filter = if self.whole_groups(tiling) {
            self.in_per_group()
        } else {
            tiling.channel_chunk
        };
        [
            tiling.out_channels,
            per_filter,
            self.kernel[0],
            self.kernel[1],
        ]
    }

    pub(super) fn lb_elements(&self, tiling: &Tiling, epilogue: usize) -> usize {
        let input = tiling.images
            * self.input_channels(tiling)
            * self.rows.window(tiling.out_rows)
            * self.width;
        let filter: usize = self.filter_tile(tiling).iter().product();
        let output = tiling.images * tiling.out_channels * tiling.out_rows * self.out_width;
        // A pipeline doubles what it streams: the input (one chunk), or input and filter chunks.
        let doubled = match (tiling.pipelined, self.chunks(tiling)) {
            (false, _) => 0,
            (true, 1) => input,
            (true, _) => input + filter,
        };
        let (absorbed_chunk, absorbed_doubled) = tiling.absorbed_chunk;
        let absorbed = self.absorbed.as_ref().map_or(0, |absorbed| {
            absorbed.lb_elements(self.tile(tiling), absorbed_chunk, absorbed_doubled)
        });
        let chained = match &self.chained {
            Some(chained) if tiling.chained_channels > 0 => {
                chained.lb_elements(self.tile(tiling), tiling.chained_channels)
            }
            _ => 0,
        };
        input
            + filter
            + output
            + epilogue
            + doubled
            + chained
            + if tiling.absorbed_shares { 0 } else { absorbed }
    }

    /// The output tile `[images, channels, rows, width]`.
    pub(super) fn tile(&self, tiling: &Tiling) -> [usize; 4] {
        [
            tiling.images,
            tiling.out_channels,
            tiling.out_rows,
            self.out_width,
        ]
    }

    pub(super) fn tiles(&self, tiling: &Tiling) -> usize {
        self.batch / tiling.images
            * (self.out_channels / tiling.out_channels)
            * (self.rows.output / tiling.out_rows)
    }

    /// Whether the absorbed convolution can load its chunks into the layer's own chunk buffers:
    /// the layer reads its input in several chunks (nothing stays in LB from one tile to the
    /// next) of a size that divides the absorbed input channels, and is 1×1 too, so that the
    /// absorbed chunk's input rows (the output's) fit the layer's input rows and both filter
    /// slices have one shape.
    pub(super) fn shares_chunks(&self, tiling: &Tiling) -> bool {
        self.absorbed.as_ref().is_some_and(|absorbed| {
            self.kernel == [1, 1]
                && self.groups == 1
                && self.chunks(tiling) > 1
                && absorbed.channels.is_multiple_of(tiling.channel_chunk)
                && self.out_width <= self.width
                && tiling.out_rows <= self.rows.window(tiling.out_rows)
        })
    }
}
