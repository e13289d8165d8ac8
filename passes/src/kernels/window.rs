//! A pooling layer: output tiles of `[1, Ct, OHt, OW]`, the input rows of the window loaded with
//! the padding resolved per row class as for convolutions, one vector-core pooling instruction.

use super::{
    emit::divisors_descending,
    epilogue::Epilogue,
    error::LoweringError,
    kernel::{Kernel, Store},
    layers::{Layer, Scope},
    row_classes::{dispatch_classes, Rows},
};
use turbine_dialects::attributes::dsa::PoolKind;

/// Lowers a max or average pooling layer.
pub fn lower_pool(
    scope: &Scope,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let is_max = node.name == "graph.max_pool2d";
    let input = scope.tensor(node.operands[0]).clone();
    let [batch, channels, height, width] = [
        input.view.shape[0],
        input.view.shape[1],
        input.view.shape[2],
        input.view.shape[3],
    ];
    let out = layer.output.view.shape.clone();
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
                    "ceil_mode average pooling that counts padding is not supported by the vector core's pooling instruction",
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
    let rows = Rows {
        height,
        output: out[2],
        stride: strides[0] as usize,
        top: pads[0] as usize,
        extent: window[0] as usize,
    };
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
    let Some((_, [tile_channels, tile_rows])) = best else {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' does not fit the local buffer of target '{}' ({} bytes): rows of {} elements would have to be split, which is not supported",
                node.name, scope.machine.name, scope.machine.lb_bytes, width
            ),
        ));
    };
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
    let count_include_pad = node.flag("count_include_pad");
    dispatch_classes(body, row, &classes, &mut |body, class| {
        let loaded_rows = input_rows - class.pad_top - class.pad_bottom;
        let scaled = body.scaled(row, tile_rows * rows.stride);
        let first_row = body.shifted(scaled, class.pad_top as i64 - rows.top as i64);
        let (source, _) = body.subview(
            input_arg,
            &input.view,
            &[n, channel, first_row, zero],
            &[1, tile_channels, loaded_rows, width],
            None,
        );
        let (input_tile, _) = body.subview(
            input_lb,
            &input_lb_view,
            &[zero, zero, zero, zero],
            &[1, tile_channels, loaded_rows, width],
            None,
        );
        let loaded = body.dma(source, input_tile, &[]);
        let kind = if is_max { PoolKind::Max } else { PoolKind::Avg };
        let pads = [
            class.pad_top,
            pads[1] as usize,
            class.pad_bottom,
            pads[3] as usize,
        ];
        let window = [window[0] as usize, window[1] as usize];
        let strides = [strides[0] as usize, strides[1] as usize];
        let token = body.pool(
            kind,
            input_tile,
            accumulator,
            window,
            strides,
            pads,
            count_include_pad,
            &[loaded],
        );
        body.wait(&[token]);
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
