//! A conv layer whose filter stays in LB over the tiles (one chunk of input channels), run as a
//! software pipeline over each core's tiles.

use super::geometry::{Geometry, Tiling};
use crate::ir::Val;
use crate::kernels::emit::IndexOp;
use crate::kernels::{
    emit::{Body, View},
    epilogue::Epilogue,
    kernel::{store_box, Kernel, Store},
    row_classes::{dispatch_classes, RowClass},
};
use crate::target::Machine;

/// A software-pipelined conv layer (GraphTurbo §4.4 within a layer): each core's tiles run in
/// order, the input of tile `i + 1` loading into one half of a double buffer while tile `i`
/// computes from the other half, runs its epilogue and stores. The filter of the tile's channel
/// block stays in LB (reloaded when the block changes). Every wait sits inside the row-class
/// branch where its tokens are defined: the end of tile `i` waits for its store and for the
/// load of tile `i + 1`, so tile `i + 2`'s load, into the half tile `i` read, comes after.
pub(super) struct Pipeline<'a> {
    pub(super) geometry: &'a Geometry,
    pub(super) tiling: &'a Tiling,
    pub(super) input: (Val, &'a View),
    pub(super) buffers: [Val; 2],
    pub(super) buffer_view: &'a View,
    pub(super) filter: (Val, &'a View, Val),
    pub(super) accumulator: (Val, &'a View),
    /// Where each tile is stored: the output, and where the layer writes it too.
    pub(super) stores: &'a [Store<'a>],
    pub(super) epilogue: &'a Epilogue,
    /// The residual each tile's accumulator starts from (loaded after the tile before is stored).
    pub(super) preload: Option<(Val, &'a View)>,
}

/// The running tile of a pipeline and the next one.
struct Running {
    /// The tile's coordinates (image block, channel block, row block), and the next tile's.
    coordinates: Vec<Val>,
    next_coordinates: Vec<Val>,
    /// The half of the input buffer the tile computes from, and the half the next one loads.
    current: Val,
    next: Val,
    /// Whether the core's share has a next tile.
    has_next: Val,
    /// The tile's offsets in the output.
    offsets: [Val; 4],
    zero: Val,
}

impl Pipeline<'_> {
    /// Emits the layer's tile loop into `kernel` (on `machine`'s cores) and closes it.
    pub(super) fn emit(&self, kernel: &mut Kernel, machine: &Machine) {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let counts = [
            geometry.batch / tiling.images,
            geometry.out_channels / tiling.out_channels,
            geometry.rows.output / tiling.out_rows,
        ];
        let index = kernel.begin_tiles(counts.iter().product(), machine);
        let coordinates = kernel.decode(index, &counts);
        let [current, next] = kernel.alternate(index, self.buffers);
        let (next_index, has_next) = kernel.next_tile(index);
        let next_coordinates = kernel.decode(next_index, &counts);
        let first = kernel.is_first(index);
        let (filter_arg, filter_view, filter_lb) = self.filter;
        let filter_shape = geometry.filter_tile(tiling);
        let zero = kernel.body.index(0);
        let out_channel = kernel.body.scaled(coordinates[1], tiling.out_channels);
        // The filter of the channel block stays in LB over the block's row tiles.
        kernel.load_when_changed(index, &counts, &coordinates, &[1], &mut |body| {
            let (weights, _) = body.subview(
                filter_arg,
                filter_view,
                &[out_channel, zero, zero, zero],
                &filter_shape,
                None,
            );
            body.dma(weights, filter_lb, &[])
        });
        let classes = geometry.rows.classes(tiling.out_rows);
        let body = &mut kernel.body;
        // The core's first tile loads its own input; every later one was loaded by the tile
        // before it.
        body.open_if(first);
        dispatch_classes(body, coordinates[2], &classes, &mut |body, class| {
            let token = self.load(body, &coordinates, class, current);
            body.wait(&[token]);
        });
        body.close();
        let n = body.scaled(coordinates[0], tiling.images);
        let out_row = body.scaled(coordinates[2], tiling.out_rows);
        let running = Running {
            coordinates,
            next_coordinates,
            current,
            next,
            has_next,
            offsets: [n, out_channel, out_row, zero],
            zero,
        };
        dispatch_classes(
            body,
            running.coordinates[2],
            &classes,
            &mut |body, class| self.emit_class(body, &running, &classes, class),
        );
        kernel.close_tiles();
    }

    /// Emits the running tile of `class` (of the layer's `classes`): its conv from the current
    /// half, epilogue and store, then the next tile's load into the other half; the tile ends
    /// waiting for both.
    fn emit_class(
        &self,
        body: &mut Body,
        running: &Running,
        classes: &[RowClass],
        class: &RowClass,
    ) {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let (offsets, zero) = (&running.offsets, running.zero);
        let tile = [
            tiling.images,
            tiling.out_channels,
            tiling.out_rows,
            geometry.out_width,
        ];
        let keep = [0, 1, 2, 3];
        let (accumulator, accumulator_view) = self.accumulator;
        let (input_tile, _) = body.subview(
            running.current,
            self.buffer_view,
            &[zero; 4],
            &self.tile_shape(class),
            None,
        );
        let pads = [
            class.pad_top,
            geometry.pads[1],
            class.pad_bottom,
            geometry.pads[3],
        ];
        let preloaded: Vec<Val> = self
            .preload
            .iter()
            .map(|&(argument, view)| {
                let (source, _) = body.subview(argument, view, offsets, &tile, None);
                body.dma(source, accumulator, &[])
            })
            .collect();
        let conv = body.conv2d(
            input_tile,
            self.filter.2,
            accumulator,
            geometry.strides,
            pads,
            geometry.dilations,
            geometry.tile_groups(tiling),
            !preloaded.is_empty(),
            &preloaded,
        );
        let done = self.epilogue.emit(
            body,
            (accumulator, accumulator_view),
            offsets,
            &tile,
            &keep,
            vec![conv],
        );
        let stored = store_box(
            body,
            (accumulator, accumulator_view),
            self.stores,
            offsets,
            &tile,
            &keep,
            &done,
        );
        body.open_if(running.has_next);
        dispatch_classes(
            body,
            running.next_coordinates[2],
            classes,
            &mut |body, next_class| {
                let loaded = self.load(body, &running.next_coordinates, next_class, running.next);
                body.wait(&[stored.as_slice(), &[loaded]].concat());
            },
        );
        body.reopen();
        body.wait(&stored);
        body.close();
    }

    /// The input rows a tile of `class` loads.
    fn tile_shape(&self, class: &RowClass) -> [usize; 4] {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let rows = geometry.rows.window(tiling.out_rows) - class.pad_top - class.pad_bottom;
        [
            tiling.images,
            geometry.input_channels(tiling),
            rows,
            geometry.width,
        ]
    }

    /// Loads the input of the tile at `coordinates` (image block, channel block, row block) of
    /// `class` into `buffer`; returns the DMA's token.
    fn load(&self, body: &mut Body, coordinates: &[Val], class: &RowClass, buffer: Val) -> Val {
        let (geometry, tiling) = (self.geometry, self.tiling);
        let n = body.scaled(coordinates[0], tiling.images);
        // One chunk: every input channel of the tile's groups (all of them for a plain conv).
        let in_channel = if geometry.groups > 1 {
            let out_channel = body.scaled(coordinates[1], tiling.out_channels);
            let group = body.index(geometry.out_per_group());
            let first_group = body.arith(IndexOp::DivU, out_channel, group);
            body.scaled(first_group, geometry.in_per_group())
        } else {
            body.index(0)
        };
        let scaled = body.scaled(coordinates[2], tiling.out_rows * geometry.strides[0]);
        let first_row = body.shifted(scaled, class.pad_top as i64 - geometry.pads[0] as i64);
        let zero = body.index(0);
        let shape = self.tile_shape(class);
        let (source, _) = body.subview(
            self.input.0,
            self.input.1,
            &[n, in_channel, first_row, zero],
            &shape,
            None,
        );
        let (target, _) = body.subview(buffer, self.buffer_view, &[zero; 4], &shape, None);
        body.dma(source, target, &[])
    }
}
