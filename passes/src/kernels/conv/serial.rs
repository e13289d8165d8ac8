//! A conv layer's tiles run one after another: each tile accumulates its chunks of input
//! channels (a software pipeline over double buffers when the plan says so), runs the epilogue
//! and stores, the row classes of its window selected by `scf.if` on the tile's row index.

use super::absorbed::AbsorbedTiles;
use super::chained::ChainedTiles;
use super::geometry::{Geometry, Tiling};
use crate::ir::Val;
use crate::kernels::emit::IndexOp;
use crate::kernels::{
    emit::{Body, View},
    epilogue::Epilogue,
    kernel::{guarded_load, Kernel, Store},
    row_classes::{dispatch_classes, RowClass},
};
use crate::target::Machine;

/// A conv layer whose tiles run one after another, with its kernel arguments and LB buffers.
pub(super) struct Serial<'a> {
    pub(super) geometry: &'a Geometry,
    pub(super) tiling: &'a Tiling,
    /// The input's kernel argument and view.
    pub(super) input: (Val, &'a View),
    /// The filter's kernel argument and view.
    pub(super) filter: (Val, &'a View),
    /// The input and filter buffers of a chunk.
    pub(super) buffers: [Val; 2],
    /// Their second halves, when the chunks are pipelined.
    pub(super) second: Option<[Val; 2]>,
    /// The view of the input buffers.
    pub(super) buffer_view: &'a View,
    pub(super) filter_shape: [usize; 4],
    pub(super) accumulator: (Val, &'a View),
    /// Input-channel chunks accumulated per tile.
    pub(super) chunks: usize,
    /// Where each tile is stored: the output, and where the layer writes it too.
    pub(super) stores: &'a [Store<'a>],
    pub(super) epilogue: &'a Epilogue,
    /// The residual each tile's accumulator starts from (loaded with the first chunk).
    pub(super) preload: Option<(Val, &'a View)>,
    /// The absorbed convolution whose product each tile starts from.
    pub(super) absorbed: Option<&'a AbsorbedTiles>,
    /// The chained convolution each tile feeds in place of its store.
    pub(super) chained: Option<&'a ChainedTiles>,
}

/// Where the running tile is, and what it reloads.
struct At {
    /// The tile's row block.
    row: Val,
    /// Its first image, output channel and output row.
    n: Val,
    out_channel: Val,
    out_row: Val,
    zero: Val,
    /// The first input channel of the tile's group (grouped convs).
    group_in_channel: Option<Val>,
    /// When the input rows stay in LB over the output-channel blocks: whether this tile loads
    /// them.
    input_changed: Option<Val>,
    /// Whether the filter tile stays in LB over a run of row tiles.
    resident: bool,
}

/// What a tile of one row class loads and convolves.
struct ClassTile {
    /// The first input row it loads.
    first_row: Val,
    /// The input rows it loads: `[images, channels, rows, width]`.
    shape: [usize; 4],
    /// The padding its conv instruction gets.
    pads: [usize; 4],
    /// The load of the residual its accumulator starts from.
    preloaded: Option<Val>,
    /// Whether the accumulator holds something before the first chunk (a residual or an
    /// absorbed product).
    started: bool,
}

impl Serial<'_> {
    /// Emits the tile loop of the layer into `kernel` (on `machine`'s cores) and closes it.
    pub(super) fn emit(&self, kernel: &mut Kernel, machine: &Machine) {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let counts = self.counts();
        let index = kernel.begin_tiles(counts.iter().product(), machine);
        let coordinates = kernel.decode(index, &counts);
        let (channel_position, row_position) = if tiling.input_stationary {
            (2, 1)
        } else {
            (1, 2)
        };
        // The input rows stay in LB while only the output-channel block changes.
        let input_changed = tiling
            .input_stationary
            .then(|| kernel.changed(index, &counts, &coordinates, &[0, row_position]));
        let at = self.at(
            &mut kernel.body,
            [
                coordinates[0],
                coordinates[channel_position],
                coordinates[row_position],
            ],
            input_changed,
        );
        if at.resident {
            let (filter_arg, filter_view) = self.filter;
            let (out_channel, zero) = (at.out_channel, at.zero);
            kernel.load_when_changed(
                index,
                &counts,
                &coordinates,
                &[channel_position],
                &mut |body| {
                    let (weights, _) = body.subview(
                        filter_arg,
                        filter_view,
                        &[out_channel, zero, zero, zero],
                        &self.filter_shape,
                        None,
                    );
                    body.dma(weights, self.buffers[1], &[])
                },
            );
        }
        if let Some(chained) = self.chained.filter(|chained| chained.resident()) {
            kernel.load_when_changed(index, &counts, &coordinates, &[], &mut |body| {
                chained.load_filter(body)
            });
        }
        let classes = geometry.rows.classes(tiling.out_rows);
        dispatch_classes(&mut kernel.body, at.row, &classes, &mut |body, class| {
            self.emit_class(body, &at, class)
        });
        let offsets = [at.n, at.out_channel, at.out_row, at.zero];
        if let Some(chained) = self.chained {
            let body = &mut kernel.body;
            let tile = geometry.tile(tiling);
            let done = self.epilogue.emit(
                body,
                self.accumulator,
                &offsets,
                &tile,
                &[0, 1, 2, 3],
                Vec::new(),
            );
            body.wait(&done);
            chained.emit(body, self.accumulator.0, [at.n, at.out_row]);
            // Every block of the chained convolution waited for its store.
            kernel.close_tiles();
            return;
        }
        kernel.store_tile(
            self.epilogue,
            self.accumulator,
            self.stores,
            &offsets,
            &geometry.tile(tiling),
            &[0, 1, 2, 3],
        );
    }

    /// The tile numbering's counts: image blocks, then output-channel blocks and row blocks
    /// (row blocks first when the input rows stay in LB).
    fn counts(&self) -> [usize; 3] {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let (channel_blocks, row_blocks) = (
            geometry.out_channels / tiling.out_channels,
            geometry.rows.output / tiling.out_rows,
        );
        let image_blocks = geometry.batch / tiling.images;
        if tiling.input_stationary {
            [image_blocks, row_blocks, channel_blocks]
        } else {
            [image_blocks, channel_blocks, row_blocks]
        }
    }

    /// Where the tile of `[image block, channel block, row block]` is, and what it reloads.
    fn at(&self, body: &mut Body, blocks: [Val; 3], input_changed: Option<Val>) -> At {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let [image_block, channel_block, row] = blocks;
        let n = body.scaled(image_block, tiling.images);
        let out_channel = body.scaled(channel_block, tiling.out_channels);
        let out_row = body.scaled(row, tiling.out_rows);
        let zero = body.index(0);
        // The first input channel of the tile's group (grouped convs).
        let group_in_channel = if geometry.groups > 1 {
            let group = body.index(geometry.out_per_group());
            let first_group = body.arith(IndexOp::DivU, out_channel, group);
            Some(body.scaled(first_group, geometry.in_per_group()))
        } else {
            None
        };
        At {
            row,
            n,
            out_channel,
            out_row,
            zero,
            group_in_channel,
            input_changed,
            // With every input channel in one chunk, the filter tile depends only on the
            // output-channel block, which stays the same over a run of row tiles: keep it in LB
            // for the run.
            resident: self.chunks == 1 && !tiling.input_stationary,
        }
    }

    /// Emits a tile of `class` at `at`: its residual's load or absorbed product, then its
    /// chunks, each loaded and convolved into the accumulator.
    fn emit_class(&self, body: &mut Body, at: &At, class: &RowClass) {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let window = geometry.rows.window(tiling.out_rows);
        let rows = window - class.pad_top - class.pad_bottom;
        // First input row: r * OHt * stride - top + pad_top (never negative in this class).
        let scaled = body.scaled(at.row, tiling.out_rows * geometry.strides[0]);
        let first_row = body.shifted(scaled, class.pad_top as i64 - geometry.pads[0] as i64);
        let shape = [
            tiling.images,
            geometry.input_channels(tiling),
            rows,
            geometry.width,
        ];
        let pads = [
            class.pad_top,
            geometry.pads[1],
            class.pad_bottom,
            geometry.pads[3],
        ];
        // The residual the first chunk accumulates onto loads with the first chunk's operands;
        // an absorbed product is computed before them.
        let tile = geometry.tile(tiling);
        let accumulator = self.accumulator.0;
        let preloaded = self.preload.map(|(argument, view)| {
            let (source, _) = body.subview(
                argument,
                view,
                &[at.n, at.out_channel, at.out_row, at.zero],
                &tile,
                None,
            );
            body.dma(source, accumulator, &[])
        });
        if let Some(absorbed) = self.absorbed {
            absorbed.emit(body, tile, [at.n, at.out_channel, at.out_row], accumulator);
        }
        let class_tile = ClassTile {
            first_row,
            shape,
            pads,
            preloaded,
            started: preloaded.is_some() || self.absorbed.is_some(),
        };
        let chunks = self.chunks;
        match self.second {
            None => body.chunks(chunks, &mut |body, chunk, accumulate| {
                let waits = self.load_chunk(body, at, &class_tile, chunk, self.buffers);
                let token = self.conv(body, at, &class_tile, self.buffers, accumulate, &waits);
                body.wait(&[token]);
            }),
            Some(second) => body.pipelined_chunks(
                chunks,
                [self.buffers, second],
                &mut |body, chunk, half| self.load_chunk(body, at, &class_tile, chunk, half),
                &mut |body, half, accumulate, waits| {
                    self.conv(body, at, &class_tile, half, accumulate, waits)
                },
            ),
        }
    }

    /// The input rows of `tile` in the input buffer `buffer`.
    fn input_tile(&self, body: &mut Body, at: &At, tile: &ClassTile, buffer: Val) -> Val {
        body.subview(buffer, self.buffer_view, &[at.zero; 4], &tile.shape, None)
            .0
    }

    /// Loads chunk `chunk`'s input rows and filter slice into `buffers`; returns the tokens a
    /// conv waits on (none for a load that is fenced, or a filter that stays in LB).
    fn load_chunk(
        &self,
        body: &mut Body,
        at: &At,
        tile: &ClassTile,
        chunk: Val,
        [input_buffer, filter_buffer]: [Val; 2],
    ) -> Vec<Val> {
        let zero = at.zero;
        // The chunk's first channel within the group (or the input), and in the input.
        let filter_channel = body.scaled(chunk, self.tiling.channel_chunk);
        let in_channel = match at.group_in_channel {
            Some(base) => body.arith(IndexOp::Add, base, filter_channel),
            None => filter_channel,
        };
        let (source, _) = body.subview(
            self.input.0,
            self.input.1,
            &[at.n, in_channel, tile.first_row, zero],
            &tile.shape,
            None,
        );
        let target = self.input_tile(body, at, tile, input_buffer);
        let mut waits = Vec::new();
        match at.input_changed {
            Some(condition) => {
                guarded_load(body, condition, &mut |body| body.dma(source, target, &[]))
            }
            None => waits.push(body.dma(source, target, &[])),
        }
        if !at.resident {
            // The filter slice of this chunk (of this output-channel block when the input
            // rows are the ones staying in LB).
            let (weights, _) = body.subview(
                self.filter.0,
                self.filter.1,
                &[at.out_channel, filter_channel, zero, zero],
                &self.filter_shape,
                None,
            );
            waits.push(body.dma(weights, filter_buffer, &[]));
        }
        waits
    }

    /// Convolves the chunk in `buffers` into the accumulator (accumulating onto the chunks
    /// before it, or onto what the tile started from), after `waits` and, for the first chunk,
    /// the residual's load; returns its token.
    fn conv(
        &self,
        body: &mut Body,
        at: &At,
        tile: &ClassTile,
        [input_buffer, filter_buffer]: [Val; 2],
        accumulate: bool,
        waits: &[Val],
    ) -> Val {
        let input = self.input_tile(body, at, tile, input_buffer);
        let geometry = self.geometry;
        let (strides, dilations, groups) = (
            geometry.strides,
            geometry.dilations,
            geometry.tile_groups(self.tiling),
        );
        let mut waits = waits.to_vec();
        if !accumulate {
            waits.extend(tile.preloaded);
        }
        body.conv2d(
            input,
            filter_buffer,
            self.accumulator.0,
            strides,
            tile.pads,
            dilations,
            groups,
            accumulate || tile.started,
            &waits,
        )
    }
}
