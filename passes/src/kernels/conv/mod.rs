//! A convolution layer: output tiles of `[Nt, OCt, OHt, OW]` (whole rows), input channels in
//! chunks accumulated on the matrix engine, the epilogue on the tile, one store.
//!
//! Padding is resolved per tile: a tile whose input window starts above the image or ends below
//! it loads only the rows inside and gives the conv instruction the padding it needs, so tiles
//! fall into a few classes (first, middle, last) with static shapes, selected by `scf.if` on the
//! tile's row index.

mod absorbed;
mod cost;
mod geometry;
mod pipeline;
mod pointwise;

use super::{
    emit::{divisors_descending, Body},
    emit::{reshaped, Space, Tensor, View},
    epilogue::without_preloaded_addend,
    epilogue::Epilogue,
    error::LoweringError,
    kernel::{guarded_load, Kernel, Store},
    layers::{self, Elementwise, Operand, Step},
    layers::{Layer, Scope, Viewed},
    ports::{Candidates, Estimate},
    row_classes::{dispatch_classes, Rows},
};
use crate::{
    graph_view::{Node, ValueId},
    ir::Val,
};
use absorbed::{without_sum, Absorbed, AbsorbedTiles};
use geometry::{Geometry, Tiling};
use pipeline::Pipeline;
use turbine_dialects::attributes::dsa::BinaryKind;

/// A conv layer's geometry, epilogue and tiling: what the lowering emits, decided without
/// emitting anything, so that a caller can also ask for its estimated cycles.
struct Plan {
    geometry: Geometry,
    steps: Vec<Step>,
    tiling: Tiling,
    /// The tiling's estimated cycles.
    cost: Estimate,
    /// Greater than 1 when the layer reads its input through a view of every `row_step`-th row
    /// (see [`skipped_rows_step`]); the geometry is that of the view.
    row_step: usize,
    /// For a pointwise conv, the pixel-row width its images are seen with, when not their own
    /// rows' ([`pointwise`]); the geometry is that of the view.
    pixel_row: Option<usize>,
    /// The residual each tile's accumulator starts from ([`without_preloaded_addend`]); its addition
    /// is not among `steps`.
    preload: Option<ValueId>,
}

/// The stride along H of a conv whose kernel is one row high (a 1×1 projection with stride 2),
/// when the rows between its windows can be skipped by the loads: the rows it never reads are
/// left out of a strided view of the input, so every tile loads and keeps in LB only the rows
/// it uses (half the bytes of a stride-2 projection) and the instruction sees stride 1 along H.
/// Whole rows are the contiguous runs of every load anyway, so the view costs the DMAs nothing
/// a dense window of the same rows would not; columns are not skipped, since a run of single
/// elements is what a real DMA engine moves at a fraction of its bandwidth. 1 (no view) when
/// the kernel is taller, there is no stride, or an output row reads padding.
fn skipped_rows_step(
    kernel_rows: usize,
    stride: usize,
    pads: [usize; 4],
    height: usize,
    out_rows: usize,
) -> usize {
    let last_row_inside = out_rows > 0 && (out_rows - 1) * stride < height;
    if kernel_rows == 1 && stride > 1 && pads[0] == 0 && last_row_inside {
        stride
    } else {
        1
    }
}

/// Chooses the tiling of the conv `node` with the fused elementwise `fused` after it, writing a
/// value of shape `out` (`index`: the anchor's position, for errors).
/// `absorbed`: the 1×1 convolution whose product each tile starts from ([`absorbed`]).
/// `rows_by`: tiles cover the output rows by multiples of it (for a stepped slice of the output
/// the tiles store too, which also keeps the output's pixels in their rows).
#[allow(clippy::too_many_arguments)]
fn plan<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    index: usize,
    pixel_rows: bool,
    absorbed: Option<&Node>,
    rows_by: usize,
) -> Result<Plan, LoweringError> {
    let input = scope.view(node.operands[0]);
    let filter = scope.view(node.operands[1]);
    let (batch, channels, height, width) = dims4(&input.shape);
    let [kh, kw] = [filter.shape[2], filter.shape[3]];
    let strides = node.ints("strides").to_vec();
    let pads = node.ints("pads").to_vec();
    let dilations = node.ints("dilations").to_vec();
    let groups = node.int("groups") as usize;
    let mut strides = [strides[0] as usize, strides[1] as usize];
    let mut pads = [
        pads[0] as usize,
        pads[1] as usize,
        pads[2] as usize,
        pads[3] as usize,
    ];
    let row_step = skipped_rows_step(kh, strides[0], pads, height, out[2]);
    let height = if row_step > 1 {
        // The input is seen through a view of the rows the kernel reads: one per output row,
        // with no stride or padding left along H.
        strides[0] = 1;
        (pads[0], pads[2]) = (0, 0);
        out[2]
    } else {
        height
    };
    let geometry = Geometry {
        batch,
        channels,
        width,
        out_channels: out[1],
        out_width: out[3],
        kernel: [kh, kw],
        strides,
        pads,
        dilations: [dilations[0] as usize, dilations[1] as usize],
        groups,
        rows: Rows {
            height,
            output: out[2],
            stride: strides[0],
            top: pads[0],
            extent: (kh - 1) * dilations[0] as usize + 1,
        },
        spaces: [input.space, filter.space, out_space.unwrap_or(input.space)],
        absorbed: absorbed.map(|node| Absorbed::of(scope, node)),
    };

    // Bias and fused activation become the first epilogue steps, then an absorbed
    // convolution's bias in place of the addition of its result.
    let fused = match absorbed {
        Some(absorbed) => without_sum(fused, absorbed.results[0].0),
        None => fused.to_vec(),
    };
    let mut steps = Vec::new();
    let mut shapes = scope.external_shapes(&fused);
    for (view, anchor, _) in biases(node, absorbed) {
        shapes.insert(view, vec![1, geometry.out_channels, 1, 1]);
        steps.push(Step::chained(
            Elementwise::Binary {
                kind: BinaryKind::Add,
            },
            vec![Operand::Chain, Operand::External(view)],
            anchor.op.location(),
        ));
    }
    if let Some(activation) = node.activation() {
        steps.push(Step::chained(
            layers::activation_step(activation),
            vec![Operand::Chain],
            node.op.location(),
        ));
    }
    steps.extend(fused.iter().cloned());
    // The epilogue as the tiles run it: without the addition of a residual the accumulator
    // starts from. Its load is priced as the epilogue's was (one DMA of the tile's size before
    // the tile is done), but it takes no LB of its own. An absorbed convolution's product is
    // what the accumulator starts from instead.
    let (tile_steps, preload) = if absorbed.is_some() {
        (steps.clone(), None)
    } else {
        without_preloaded_addend(&steps, &shapes, out)
    };

    if geometry.rows.height == 0 || width == 0 || channels == 0 {
        return Err(LoweringError::at(
            index,
            "a 'graph.conv2d' of an empty input whose padding gives it a non-empty output (every output is the bias) is not supported",
        ));
    }
    let budget = scope.machine.lb_elements();
    // The image's own rows, and for a pointwise conv rows of other widths (`pointwise`).
    let externals: Vec<&View> = shapes
        .keys()
        .filter(|value| ![BIAS_VIEW, ABSORBED_BIAS_VIEW].contains(*value))
        .map(|value| scope.view(*value))
        .collect();
    // The absorbed convolution's rows are the output's: no other pixel-row width.
    let widths = if pixel_rows && absorbed.is_none() && rows_by == 1 {
        pointwise::widths(&geometry, input, externals.into_iter())
    } else {
        Vec::new()
    };
    let mut variants = vec![(geometry.clone(), shapes.clone(), None)];
    for k in widths {
        let shapes = shapes
            .iter()
            .map(|(value, shape)| (*value, pointwise::shape(shape, k)))
            .collect();
        variants.push((pointwise::geometry(&geometry, k), shapes, Some(k)));
    }
    // The cheapest tiling by the estimate ([`Candidates::best`]); a pipeline's smaller tiles
    // re-read more, which the estimate's port bound prices.
    let mut candidates = Candidates::new();
    for (variant, (geometry, shapes, _)) in variants.iter().enumerate() {
        for (images, out_channels) in divisors_descending(batch).into_iter().flat_map(|images| {
            divisors_descending(geometry.out_channels)
                .into_iter()
                .map(move |o| (images, o))
        }) {
            // A grouped conv's tile covers whole groups or part of one.
            let (out_per_group, in_per_group) = (geometry.out_per_group(), geometry.in_per_group());
            if groups > 1 && out_channels % out_per_group != 0 && out_per_group % out_channels != 0
            {
                continue;
            }
            for out_rows in divisors_descending(geometry.rows.output)
                .into_iter()
                .filter(|rows| rows % rows_by == 0)
            {
                // A tile whose window lies wholly in the padding (a pad as large as the window) would
                // load no input row: only tilings where every tile reads one are lowered.
                let rows = geometry.rows;
                if rows
                    .classes(out_rows)
                    .iter()
                    .any(|class| class.pad_top + class.pad_bottom >= rows.window(out_rows))
                {
                    continue;
                }
                let tile = [images, out_channels, out_rows, geometry.out_width];
                let epilogue_lb = Epilogue::lb_elements(&tile_steps, shapes, &tile);
                // A bias view is made by the lowering; it is read from where the input is.
                let epilogue = Epilogue::elements_by_space(&steps, shapes, &tile, |value| {
                    if [BIAS_VIEW, ABSORBED_BIAS_VIEW].contains(&value) {
                        input.space
                    } else {
                        scope.view(value).space
                    }
                });
                let chunks = if groups == 1 {
                    divisors_descending(channels)
                } else if out_channels % out_per_group == 0 {
                    vec![in_per_group]
                } else {
                    divisors_descending(in_per_group)
                };
                let schedules = chunks.into_iter().flat_map(|chunk| {
                    [
                        (chunk, false, false),
                        (chunk, false, true),
                        (chunk, true, false),
                    ]
                });
                for (channel_chunk, input_stationary, pipelined) in schedules {
                    // Grouped convolutions read other input channels for each output-channel block.
                    if input_stationary && (groups > 1 || channel_chunk != channels) {
                        continue;
                    }
                    let tiling = Tiling {
                        images,
                        out_channels,
                        out_rows,
                        channel_chunk,
                        input_stationary,
                        pipelined,
                        absorbed_chunk: (0, false),
                        absorbed_shares: false,
                    };
                    // An input-stationary tiling keeps its input, not a stream to overlap; a
                    // tile that starts from an absorbed product pipelines its chunks only.
                    if pipelined
                        && (input_stationary
                            || !scope.machine.pipeline
                            || (geometry.absorbed.is_some() && geometry.chunks(&tiling) == 1))
                    {
                        continue;
                    }
                    let own = geometry.lb_elements(&tiling, epilogue_lb);
                    if own > budget {
                        continue;
                    }
                    // An absorbed convolution's chunks in buffers of their own, or in the layer's.
                    let absorbed_options = match &geometry.absorbed {
                        None => vec![tiling],
                        Some(absorbed) => {
                            let own_buffers = absorbed
                                .chunk(geometry.tile(&tiling), budget - own)
                                .map(|chunk| Tiling {
                                    absorbed_chunk: chunk,
                                    ..tiling
                                });
                            let shared = geometry.shares_chunks(&tiling).then_some(Tiling {
                                absorbed_chunk: (
                                    channel_chunk,
                                    pipelined && absorbed.channels > channel_chunk,
                                ),
                                absorbed_shares: true,
                                ..tiling
                            });
                            own_buffers.into_iter().chain(shared).collect()
                        }
                    };
                    for tiling in absorbed_options {
                        let externals = shapes.len();
                        let cost = geometry.cost(&tiling, scope.machine, externals, &epilogue);
                        candidates.push(cost, (variant, tiling));
                    }
                }
            }
        }
    }
    match candidates.best() {
        Some((cost, (variant, tiling))) => {
            let (geometry, _, pixel_row) = variants.swap_remove(variant);
            Ok(Plan { geometry, steps: tile_steps, tiling, cost, row_step, pixel_row, preload })
        }
        None if (1..=geometry.rows.output).all(|out_rows| {
            let rows = geometry.rows;
            !geometry.rows.output.is_multiple_of(out_rows)
                || rows.classes(out_rows).iter().any(|class| class.pad_top + class.pad_bottom >= rows.window(out_rows))
        }) =>
        {
            Err(LoweringError::at(
                index,
                "a 'graph.conv2d' whose output rows cannot be tiled without a tile reading only padding (its value would be the bias alone) is not supported",
            ))
        }
        None => {
            let smallest = Tiling { images: 1, out_channels: 1, out_rows: 1, channel_chunk: 1, input_stationary: false, pipelined: false, absorbed_chunk: (0, false), absorbed_shares: false };
            Err(LoweringError::at(
                index,
                format!(
                    "'graph.conv2d' does not fit the local buffer of target '{}' ({} bytes): even a tile of one output row needs {} bytes (rows of {} elements would have to be split, which is not supported)",
                    scope.machine.name,
                    scope.machine.lb_bytes,
                    geometry.lb_elements(&smallest, 0) * 4,
                    width
                ),
            ))
        }
    }
}

/// The estimated cycles of the conv `node` (fused with `fused`, writing `out`) with its
/// operands where `scope` says, if it fits the LB: what tells whether a copy of its filter
/// closer to the cores pays for itself.
pub fn estimate<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    absorbed: Option<&Node>,
) -> Option<Estimate> {
    plan(scope, node, fused, out, out_space, 0, true, absorbed, 1)
        .ok()
        .map(|plan| plan.cost)
}

/// [`estimate`] among the tilings covering the output rows by multiples of `rows`.
pub fn estimate_rows_by<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    rows: usize,
    absorbed: Option<&Node>,
) -> Option<f64> {
    plan(scope, node, fused, out, out_space, 0, false, absorbed, rows)
        .ok()
        .map(|plan| plan.cost.cycles)
}

/// Lowers a conv2d layer.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let out = layer.output.view.shape.clone();
    let pixel_rows = pointwise::pixels_contiguous(&layer.output.view);
    let rows_by = layer.stepped.as_ref().map_or(1, |(_, [rows, _])| *rows);
    let Plan {
        geometry,
        steps,
        tiling,
        row_step,
        pixel_row,
        preload,
        ..
    } = plan(
        scope,
        node,
        &layer.steps,
        &out,
        Some(layer.output.view.space),
        layer.index,
        pixel_rows,
        layer.absorbed,
        rows_by,
    )?;
    let mut input = scope.tensor(node.operands[0]).clone();
    if row_step > 1 {
        let zero = host.index(0);
        let sizes = [
            geometry.batch,
            geometry.channels,
            geometry.rows.height,
            geometry.width,
        ];
        let (rows, view) = host.subview_strided(
            input.host,
            &input.view,
            &[zero; 4],
            &sizes,
            &[1, 1, row_step, 1],
        );
        input = Tensor { host: rows, view };
    }
    let filter = scope.tensor(node.operands[1]).clone();
    let (batch, groups, width) = (geometry.batch, geometry.groups, geometry.width);
    let mut tensors = scope.tensors.clone();
    for (view, _, bias) in biases(node, layer.absorbed) {
        tensors.insert(
            view,
            reshaped(host, scope.tensor(bias), &[1, geometry.out_channels, 1, 1]),
        );
    }
    let mut output = layer.output.clone();
    let mut mirror = layer.mirror.clone();
    if let Some(k) = pixel_row {
        input = pointwise::rows_of(host, &input, k);
        output = pointwise::rows_of(host, &output, k);
        mirror = mirror.map(|mirror| pointwise::rows_of(host, &mirror, k));
        for value in scope.external_shapes(&layer.steps).into_keys() {
            let tensor = tensors[&value].clone();
            tensors.insert(value, pointwise::rows_of(host, &tensor, k));
        }
    }
    let scope = Scope {
        machine: scope.machine,
        tensors: &tensors,
    };

    let tile = [
        tiling.images,
        tiling.out_channels,
        tiling.out_rows,
        geometry.out_width,
    ];
    let keep = [0, 1, 2, 3];
    let epilogue = kernel.epilogue(&steps, &tensors, &tile, &keep);
    let residual = preload.map(|value| {
        let tensor = &tensors[&value];
        (
            kernel.argument(tensor.host, &tensor.view),
            tensor.view.clone(),
        )
    });
    let input_arg = kernel.argument(input.host, &input.view);
    let filter_arg = kernel.argument(filter.host, &filter.view);
    let output_arg = kernel.argument(output.host, &output.view);
    let mut stores = kernel.output_stores((output_arg, &output.view), mirror.as_ref());
    stores.extend(layer.stepped.as_ref().map(|(slice, steps)| Store {
        target: kernel.argument(slice.host, &slice.view),
        view: &slice.view,
        steps: *steps,
    }));
    let in_channels = geometry.input_channels(&tiling);
    let window = geometry.rows.window(tiling.out_rows);
    let (input_lb, input_lb_view) = kernel.alloc_lb(&[tiling.images, in_channels, window, width]);
    let filter_shape = geometry.filter_tile(&tiling);
    let (filter_lb, _) = kernel.alloc_lb(&filter_shape);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&tile);
    let chunks = geometry.chunks(&tiling);
    let second_buffers = (tiling.pipelined && chunks > 1).then(|| {
        (
            kernel
                .alloc_lb(&[tiling.images, in_channels, window, width])
                .0,
            kernel.alloc_lb(&filter_shape).0,
        )
    });
    let absorbed = layer.absorbed.map(|absorbed| {
        let halves = std::iter::once((input_lb, filter_lb))
            .chain(second_buffers)
            .map(|(input, filter)| [input, filter])
            .collect();
        let shared = tiling.absorbed_shares.then_some((halves, &input_lb_view));
        AbsorbedTiles::new(
            &mut kernel,
            &tensors,
            absorbed,
            tile,
            tiling.absorbed_chunk,
            shared,
        )
    });
    if tiling.pipelined && chunks == 1 {
        let second_input = kernel
            .alloc_lb(&[tiling.images, in_channels, window, width])
            .0;
        let pipeline = Pipeline {
            geometry: &geometry,
            tiling: &tiling,
            input: (input_arg, &input.view),
            buffers: [input_lb, second_input],
            buffer_view: &input_lb_view,
            filter: (filter_arg, &filter.view, filter_lb),
            accumulator: (accumulator, &accumulator_view),
            stores: &stores,
            epilogue: &epilogue,
            preload: residual.as_ref().map(|(argument, view)| (*argument, view)),
        };
        pipeline.emit(&mut kernel, scope.machine);
        return Ok(kernel);
    }

    let (channel_blocks, row_blocks) = (
        geometry.out_channels / tiling.out_channels,
        geometry.rows.output / tiling.out_rows,
    );
    let image_blocks = batch / tiling.images;
    let counts = if tiling.input_stationary {
        [image_blocks, row_blocks, channel_blocks]
    } else {
        [image_blocks, channel_blocks, row_blocks]
    };
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
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
    let body = &mut kernel.body;
    let (image_block, channel_block, row) = (
        coordinates[0],
        coordinates[channel_position],
        coordinates[row_position],
    );
    let n = body.scaled(image_block, tiling.images);
    let out_channel = body.scaled(channel_block, tiling.out_channels);
    let out_row = body.scaled(row, tiling.out_rows);
    let zero = body.index(0);
    let classes = geometry.rows.classes(tiling.out_rows);
    // The first input channel of the tile's group (grouped convs).
    let group_in_channel = if groups > 1 {
        let group = body.index(geometry.out_per_group());
        let first_group = body.arith("divui", out_channel, group);
        Some(body.scaled(first_group, geometry.in_per_group()))
    } else {
        None
    };
    // With every input channel in one chunk, the filter tile depends only on the output-channel
    // block, which stays the same over a run of row tiles: keep it in LB for the run.
    let resident = chunks == 1 && !tiling.input_stationary;
    if resident {
        let filter_view = filter.view.clone();
        kernel.load_when_changed(
            index,
            &counts,
            &coordinates,
            &[channel_position],
            &mut |body| {
                let (weights, _) = body.subview(
                    filter_arg,
                    &filter_view,
                    &[out_channel, zero, zero, zero],
                    &filter_shape,
                    None,
                );
                body.dma(weights, filter_lb, &[])
            },
        );
    }
    let body = &mut kernel.body;
    dispatch_classes(body, row, &classes, &mut |body, class| {
        let rows = window - class.pad_top - class.pad_bottom;
        // First input row: r * OHt * stride - top + pad_top (never negative in this class).
        let scaled = body.scaled(row, tiling.out_rows * geometry.strides[0]);
        let first_row = body.shifted(scaled, class.pad_top as i64 - geometry.pads[0] as i64);
        let tile_shape = [tiling.images, in_channels, rows, width];
        let input_tile = |body: &mut Body, buffer: Val| {
            body.subview(buffer, &input_lb_view, &[zero; 4], &tile_shape, None)
                .0
        };
        // Loads chunk `chunk`'s input rows and filter slice into `buffers`; returns the tokens a
        // conv waits on (none for a load that is fenced, or a filter that stays in LB).
        let load_chunk =
            |body: &mut Body, chunk: Val, [input_buffer, filter_buffer]: [Val; 2]| -> Vec<Val> {
                // The chunk's first channel within the group (or the input), and in the input.
                let filter_channel = body.scaled(chunk, tiling.channel_chunk);
                let in_channel = match &group_in_channel {
                    Some(base) => body.arith("addi", base, filter_channel),
                    None => filter_channel,
                };
                let (source, _) = body.subview(
                    input_arg,
                    &input.view,
                    &[n, in_channel, first_row, zero],
                    &tile_shape,
                    None,
                );
                let target = input_tile(body, input_buffer);
                let mut waits = Vec::new();
                match &input_changed {
                    Some(condition) => {
                        guarded_load(body, *condition, &mut |body| body.dma(source, target, &[]))
                    }
                    None => waits.push(body.dma(source, target, &[])),
                }
                if !resident {
                    // The filter slice of this chunk (of this output-channel block when the input
                    // rows are the ones staying in LB).
                    let (weights, _) = body.subview(
                        filter_arg,
                        &filter.view,
                        &[out_channel, filter_channel, zero, zero],
                        &filter_shape,
                        None,
                    );
                    waits.push(body.dma(weights, filter_buffer, &[]));
                }
                waits
            };
        let pads = [
            class.pad_top,
            geometry.pads[1],
            class.pad_bottom,
            geometry.pads[3],
        ];
        // The residual the first chunk accumulates onto loads with the first chunk's operands;
        // an absorbed product is computed before them.
        let preloaded = residual.as_ref().map(|(argument, view)| {
            let (source, _) = body.subview(
                *argument,
                view,
                &[n, out_channel, out_row, zero],
                &tile,
                None,
            );
            body.dma(source, accumulator, &[])
        });
        if let Some(absorbed) = &absorbed {
            absorbed.emit(body, tile, [n, out_channel, out_row], accumulator);
        }
        let started = preloaded.is_some() || absorbed.is_some();
        let conv = |body: &mut Body,
                    [input_buffer, filter_buffer]: [Val; 2],
                    accumulate: bool,
                    waits: &[Val]| {
            let input = input_tile(body, input_buffer);
            let (strides, dilations, groups) = (
                geometry.strides,
                geometry.dilations,
                geometry.tile_groups(&tiling),
            );
            let mut waits = waits.to_vec();
            if !accumulate {
                waits.extend(preloaded);
            }
            body.conv2d(
                input,
                filter_buffer,
                accumulator,
                strides,
                pads,
                dilations,
                groups,
                accumulate || started,
                &waits,
            )
        };
        match second_buffers {
            None => body.chunks(chunks, &mut |body, chunk, accumulate| {
                let waits = load_chunk(body, chunk, [input_lb, filter_lb]);
                let token = conv(body, [input_lb, filter_lb], accumulate, &waits);
                body.wait(&[token]);
            }),
            Some((second_input, second_filter)) => body.pipelined_chunks(
                chunks,
                [[input_lb, filter_lb], [second_input, second_filter]],
                &mut |body, chunk, half| load_chunk(body, chunk, half),
                &mut |body, half, accumulate, waits| conv(body, half, accumulate, waits),
            ),
        }
    });
    let offsets = [n, out_channel, out_row, zero];
    kernel.store_tile(
        &epilogue,
        (accumulator, &accumulator_view),
        &stores,
        &offsets,
        &tile,
        &keep,
    );
    Ok(kernel)
}

/// The value id under which a conv's bias, viewed as `[1, C, 1, 1]`, joins its epilogue: far
/// above the program's ids and the lowering's other synthetic ones.
const BIAS_VIEW: usize = usize::MAX - 1;

/// The same for the bias of the convolution a layer absorbs.
const ABSORBED_BIAS_VIEW: usize = usize::MAX - 2;

/// The biases the epilogue of the conv `node` adds, with the view id each joins it under and the
/// op it comes from: its own, then that of the convolution it absorbs.
fn biases<'n>(
    node: &'n Node,
    absorbed: Option<&'n Node>,
) -> impl Iterator<Item = (ValueId, &'n Node, ValueId)> {
    [(BIAS_VIEW, Some(node)), (ABSORBED_BIAS_VIEW, absorbed)]
        .into_iter()
        .filter_map(|(view, anchor)| Some((view, anchor?, *anchor?.operands.get(2)?)))
}

fn dims4(shape: &[usize]) -> (usize, usize, usize, usize) {
    (shape[0], shape[1], shape[2], shape[3])
}
