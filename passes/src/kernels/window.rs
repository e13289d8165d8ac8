//! A pooling layer: output tiles of `[1, Ct, OHt, OW]`, the input rows of the window loaded with
//! the padding resolved per row class as for convolutions, one vector-core pooling instruction.

use super::{
    emit::{divisors_descending, Body, Tensor, View},
    epilogue::Epilogue,
    error::LoweringError,
    kernel::{Kernel, Store},
    layers::{Layer, Scope},
    row_classes::{dispatch_classes, RowClass, Rows},
};
use crate::ir::Val;
use turbine_dialects::attributes::dsa::PoolKind;
use turbine_dialects::ops::graph;

/// A pooling layer's window: sizes, strides and pads as its attributes give them, the pads
/// below and right extended for `ceil_mode`.
struct Window {
    kernel: Vec<i64>,
    strides: Vec<i64>,
    pads: Vec<i64>,
}

/// Lowers a max or average pooling layer.
pub fn lower_pool(
    scope: &Scope,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let is_max = node.is(graph::Kind::MaxPool2d);
    let input = scope.tensor(node.operands[0]).clone();
    let [batch, channels, height, width] = [
        input.view.shape[0],
        input.view.shape[1],
        input.view.shape[2],
        input.view.shape[3],
    ];
    let out = layer.output.view.shape.clone();
    let window = pool_window(layer, [height, width], &out)?;
    let rows = Rows {
        height,
        output: out[2],
        stride: window.strides[0] as usize,
        top: window.pads[0] as usize,
        extent: window.kernel[0] as usize,
    };
    let [tile_channels, tile_rows] = pool_tile(scope, layer, &input, &rows, &out)?;
    let tile = [1, tile_channels, tile_rows, out[3]];
    let keep = [0, 1, 2, 3];
    let epilogue = kernel.epilogue(&layer.steps, scope.tensors, &tile, &keep);
    let input_arg = kernel.argument(input.host, &input.view);
    let output_arg = kernel.argument(layer.output.host, &layer.output.view);
    let input_rows = rows.window(tile_rows);
    let (input_lb, input_lb_view) = kernel.alloc_lb(&[1, tile_channels, input_rows, width]);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&tile);
    let counts = [batch, channels / tile_channels, out[2] / tile_rows];
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let coordinates = kernel.decode(index, &counts);
    let body = &mut kernel.body;
    let (n, row) = (coordinates[0], coordinates[2]);
    let channel = body.scaled(coordinates[1], tile_channels);
    let out_row = body.scaled(row, tile_rows);
    let zero = body.index(0);
    let classes = rows.classes(tile_rows);
    let tiles = PoolTiles {
        kind: if is_max { PoolKind::Max } else { PoolKind::Avg },
        window: &window,
        rows,
        input: (input_arg, &input.view),
        buffer: (input_lb, &input_lb_view),
        accumulator,
        tile: [tile_channels, tile_rows],
        width,
        count_include_pad: node.flag("count_include_pad"),
    };
    dispatch_classes(body, row, &classes, &mut |body, class| {
        tiles.emit_class(body, [n, channel, row, zero], class)
    });
    let offsets = [n, channel, out_row, zero];
    kernel.store_tile(
        &epilogue,
        (accumulator, &accumulator_view),
        &[Store::whole(output_arg, &layer.output.view)],
        &offsets,
        &tile,
        &keep,
    );
    Ok(kernel)
}

/// A pooling layer's tiles: the kernel arguments and LB buffers they read and write.
struct PoolTiles<'a> {
    kind: PoolKind,
    window: &'a Window,
    rows: Rows,
    /// The input's kernel argument and view.
    input: (Val, &'a View),
    /// The LB buffer of a tile's input rows, and its view.
    buffer: (Val, &'a View),
    accumulator: Val,
    /// A tile's channels and output rows.
    tile: [usize; 2],
    /// The input's width.
    width: usize,
    count_include_pad: bool,
}

impl PoolTiles<'_> {
    /// Emits the tile of row class `class` at `[n, channel, row, zero]` (its image, first
    /// channel and row block, and the index 0): the load of its input rows and the pooling
    /// instruction, waited for.
    fn emit_class(&self, body: &mut Body, [n, channel, row, zero]: [Val; 4], class: &RowClass) {
        let ([tile_channels, tile_rows], width, rows) = (self.tile, self.width, self.rows);
        let input_rows = rows.window(tile_rows);
        let loaded_rows = input_rows - class.pad_top - class.pad_bottom;
        let scaled = body.scaled(row, tile_rows * rows.stride);
        let first_row = body.shifted(scaled, class.pad_top as i64 - rows.top as i64);
        let (source, _) = body.subview(
            self.input.0,
            self.input.1,
            &[n, channel, first_row, zero],
            &[1, tile_channels, loaded_rows, width],
            None,
        );
        let (input_tile, _) = body.subview(
            self.buffer.0,
            self.buffer.1,
            &[zero, zero, zero, zero],
            &[1, tile_channels, loaded_rows, width],
            None,
        );
        let loaded = body.dma(source, input_tile, &[]);
        let Window {
            kernel: window,
            strides,
            pads,
        } = self.window;
        let pads = [
            class.pad_top,
            pads[1] as usize,
            class.pad_bottom,
            pads[3] as usize,
        ];
        let window = [window[0] as usize, window[1] as usize];
        let strides = [strides[0] as usize, strides[1] as usize];
        let token = body.pool(
            self.kind,
            input_tile,
            self.accumulator,
            window,
            strides,
            pads,
            self.count_include_pad,
            &[loaded],
        );
        body.wait(&[token]);
    }
}

/// The window of the pooling `layer` over an input of `[height, width]` writing a value of shape
/// `out`; an error for a window the vector core's pooling instruction does not take.
fn pool_window(
    layer: &Layer,
    [height, width]: [usize; 2],
    out: &[usize],
) -> Result<Window, LoweringError> {
    let node = layer.node;
    let is_max = node.is(graph::Kind::MaxPool2d);
    let window = node.ints("kernel").to_vec();
    let strides = node.ints("strides").to_vec();
    let pads = node.ints("pads").to_vec();
    if node.ints_opt("dilations").is_some_and(|d| d != [1, 1]) {
        return Err(LoweringError::at(
            layer.index,
            "dilated pooling is not supported by the vector core's pooling instruction",
        ));
    }
    // ceil_mode adds a last window that starts inside the padded input and runs past it: extend
    // the padding below and right so that floor rounding gives the same windows. Padding never
    // wins a max and is not counted by an average that excludes it; an average that counts
    // padding would count the extension too, so that case is refused.
    let mut pads = pads;
    for (axis, size) in [(0usize, height), (1, width)] {
        let reach = (out[2 + axis] - 1) * strides[axis] as usize + window[axis] as usize;
        let padded = size + (pads[axis] + pads[axis + 2]) as usize;
        if reach > padded {
            if !is_max && node.flag("count_include_pad") {
                return Err(LoweringError::at(
                    layer.index,
                    "ceil_mode average pooling that counts padding is not supported by the \
                     vector core's pooling instruction",
                ));
            }
            pads[axis + 2] += (reach - padded) as i64;
            if pads[axis + 2] >= window[axis] {
                return Err(LoweringError::at(
                    layer.index,
                    "ceil_mode pooling whose last window lies in the padding is not supported",
                ));
            }
        }
    }
    Ok(Window {
        kernel: window,
        strides,
        pads,
    })
}

/// The tile `[channels, output rows]` of the pooling `layer` over `input` (its rows `rows`,
/// writing a value of shape `out`) that fits the LB with the least estimated time: its tiles'
/// DMA setups and bytes at the input's bandwidth, spread over the cores.
fn pool_tile(
    scope: &Scope,
    layer: &Layer,
    input: &Tensor,
    rows: &Rows,
    out: &[usize],
) -> Result<[usize; 2], LoweringError> {
    let [batch, channels, _, width] = [
        input.view.shape[0],
        input.view.shape[1],
        input.view.shape[2],
        input.view.shape[3],
    ];
    let shapes = scope.external_shapes(&layer.steps);
    let budget = scope.machine.lb_elements();
    let bandwidth = input.view.space.core_bandwidth(scope.machine);
    let mut best: Option<(f64, [usize; 2])> = None;
    for tile_channels in divisors_descending(channels) {
        for tile_rows in divisors_descending(out[2]) {
            let tile = [1, tile_channels, tile_rows, out[3]];
            let epilogue = Epilogue::lb_elements(&layer.steps, &shapes, &tile);
            let input_elements = tile_channels * rows.window(tile_rows) * width;
            let output_elements: usize = tile.iter().product();
            if input_elements + output_elements + epilogue > budget {
                continue;
            }
            let tiles = batch * (channels / tile_channels) * (out[2] / tile_rows);
            let per_tile = (2 + shapes.len()) as f64 * scope.machine.dma_setup
                + ((input_elements + output_elements + epilogue) * 4) as f64 / bandwidth;
            let cost = tiles.div_ceil(scope.machine.cores) as f64 * per_tile;
            if best.is_none_or(|(best_cost, _)| cost < best_cost) {
                best = Some((cost, [tile_channels, tile_rows]));
            }
        }
    }
    let Some((_, tile)) = best else {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' does not fit the local buffer of target '{}' ({} bytes): rows of {} \
                 elements would have to be split, which is not supported",
                layer.node.name, scope.machine.name, scope.machine.lb_bytes, width
            ),
        ));
    };
    Ok(tile)
}
