//! The plan of a conv layer, decided without emitting anything: its geometry (seen through a view
//! of the rows it reads, or as rows of fewer pixels), its epilogue, and the cheapest tiling by the
//! estimate among those that fit the LB.

use super::absorbed::{without_sum, Absorbed};
use super::bias::{biases, is_bias_view, leading_steps};
use super::chained::Chained;
use super::geometry::{Geometry, Tiling};
use super::key::tuning_key;
use super::pointwise;
use super::request::Request;
use crate::graph_view::ValueId;
use crate::kernels::{
    emit::{divisors_descending, Space, View},
    epilogue::{without_preloaded_addend, Epilogue},
    error::LoweringError,
    layers::{Scope, Step, Viewed},
    ports::{Candidates, Estimate},
    row_classes::Rows,
};
use crate::tuning::Decision;
use std::collections::BTreeMap;

/// A conv layer's geometry, epilogue and tiling: what the lowering emits, decided without
/// emitting anything, so that a caller can also ask for its estimated cycles.
pub(super) struct Plan {
    pub(super) geometry: Geometry,
    pub(super) steps: Vec<Step>,
    pub(super) tiling: Tiling,
    /// The tiling's estimated cycles.
    pub(super) cost: Estimate,
    /// Greater than 1 when the layer reads its input through a view of every `row_step`-th row
    /// (see [`skipped_rows_step`]); the geometry is that of the view.
    pub(super) row_step: usize,
    /// For a pointwise conv, the pixel-row width its images are seen with, when not their own
    /// rows' ([`pointwise`]); the geometry is that of the view.
    pub(super) pixel_row: Option<usize>,
    /// The residual each tile's accumulator starts from ([`without_preloaded_addend`]); its
    /// addition is not among `steps`.
    pub(super) preload: Option<ValueId>,
    /// How the tiling was chosen.
    pub(super) decision: Decision,
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

/// Chooses the tiling of the conv layer `request` with its operands where `scope` says.
pub(super) fn plan<T: Viewed>(scope: &Scope<T>, request: &Request) -> Result<Plan, LoweringError> {
    let (geometry, row_step) = layer_geometry(scope, request);
    let epilogue = epilogue_steps(scope, request, geometry.out_channels);
    if geometry.rows.height == 0 || geometry.width == 0 || geometry.channels == 0 {
        return Err(LoweringError::at(
            request.index,
            "a 'graph.conv2d' of an empty input whose padding gives it a non-empty output \
             (every output is the bias) is not supported",
        ));
    }
    let mut variants = variants(scope, request, &geometry, &epilogue.shapes);
    let search = Search {
        scope,
        epilogue: &epilogue,
        input_space: scope.view(request.node.operands[0]).space,
        rows_by: request.rows_by,
        budget: scope.machine.lb_elements(),
    };
    let key = || {
        tuning_key(
            scope,
            request,
            (&epilogue.steps, &epilogue.shapes),
            row_step,
        )
    };
    match search
        .candidates(&variants)
        .pick(&scope.machine.tuning, key)
    {
        Some((cost, (variant, tiling), decision)) => {
            let (geometry, _, pixel_row) = variants.swap_remove(variant);
            Ok(Plan {
                geometry,
                steps: epilogue.tile_steps,
                tiling,
                cost,
                row_step,
                pixel_row,
                preload: epilogue.preload,
                decision,
            })
        }
        None => Err(no_tiling(scope, request.index, &geometry)),
    }
}

/// The geometry of the conv layer `request`, and the step of the view of its input rows it reads
/// through ([`skipped_rows_step`]; 1 for none): with a step above 1, the geometry is that of the
/// view, with no stride or padding left along H.
fn layer_geometry<T: Viewed>(scope: &Scope<T>, request: &Request) -> (Geometry, usize) {
    let (node, out) = (request.node, request.out);
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
        spaces: [
            input.space,
            filter.space,
            request.out_space.unwrap_or(input.space),
        ],
        absorbed: request.absorbed.map(|node| Absorbed::of(scope, node)),
        chained: request.chained.map(|chained| {
            let out_space = request.out_space.unwrap_or(input.space);
            Chained::of(scope, chained, input.space, out_space)
        }),
    };
    (geometry, row_step)
}

/// A conv layer's epilogue, as the estimate prices it and as its tiles run it.
struct EpilogueSteps {
    /// Every step after the conv: the biases, the activation, then the fused ops.
    steps: Vec<Step>,
    /// The shapes of the steps' external operands (a bias's as `[1, C, 1, 1]`).
    shapes: BTreeMap<ValueId, Vec<usize>>,
    /// `steps` as the tiles run them: without the addition of a residual the accumulator
    /// starts from.
    tile_steps: Vec<Step>,
    /// That residual ([`without_preloaded_addend`]).
    preload: Option<ValueId>,
}

/// The epilogue of the conv layer `request` of `out_channels` output channels: bias and fused
/// activation become the first epilogue steps, then an absorbed convolution's bias in place of
/// the addition of its result.
fn epilogue_steps<T: Viewed>(
    scope: &Scope<T>,
    request: &Request,
    out_channels: usize,
) -> EpilogueSteps {
    let (node, absorbed) = (request.node, request.absorbed);
    let fused = match absorbed {
        Some(absorbed) => without_sum(request.fused, absorbed.results[0].0),
        None => request.fused.to_vec(),
    };
    let mut shapes = scope.external_shapes(&fused);
    let biases = biases(node, absorbed).map(|(view, anchor, _)| (view, anchor));
    let mut steps = leading_steps(node, biases, out_channels, &mut shapes);
    steps.extend(fused.iter().cloned());
    // The epilogue as the tiles run it: without the addition of a residual the accumulator
    // starts from. Its load is priced as the epilogue's was (one DMA of the tile's size before
    // the tile is done), but it takes no LB of its own. An absorbed convolution's product is
    // what the accumulator starts from instead.
    let (tile_steps, preload) = if absorbed.is_some() {
        (steps.clone(), None)
    } else {
        without_preloaded_addend(&steps, &shapes, request.out)
    };
    EpilogueSteps {
        steps,
        shapes,
        tile_steps,
        preload,
    }
}

/// One way of seeing a conv layer: its geometry, the shapes of its epilogue's operands, and the
/// pixel-row width its images are seen with (None: their own rows).
type Variant = (Geometry, BTreeMap<ValueId, Vec<usize>>, Option<usize>);

/// The ways of seeing the conv layer `request` of geometry `geometry` whose epilogue reads
/// operands of `shapes`: its own rows first, then for a pointwise conv rows of other widths
/// ([`pointwise`]).
fn variants<T: Viewed>(
    scope: &Scope<T>,
    request: &Request,
    geometry: &Geometry,
    shapes: &BTreeMap<ValueId, Vec<usize>>,
) -> Vec<Variant> {
    let input = scope.view(request.node.operands[0]);
    // The image's own rows, and for a pointwise conv rows of other widths (`pointwise`).
    let externals: Vec<&View> = shapes
        .keys()
        .filter(|value| !is_bias_view(**value))
        .map(|value| scope.view(*value))
        .collect();
    // The absorbed convolution's rows are the output's: no other pixel-row width.
    // The chained convolution reads the tiles as the layer's own rows.
    let widths = if request.pixel_rows
        && request.absorbed.is_none()
        && request.chained.is_none()
        && request.rows_by == 1
    {
        pointwise::widths(geometry, input, externals.into_iter())
    } else {
        Vec::new()
    };
    let mut variants = vec![(geometry.clone(), shapes.clone(), None)];
    for k in widths {
        let shapes = shapes
            .iter()
            .map(|(value, shape)| (*value, pointwise::shape(shape, k)))
            .collect();
        variants.push((pointwise::geometry(geometry, k), shapes, Some(k)));
    }
    variants
}

/// Whether some tile of `out_rows` output rows of `rows` would have a window lying wholly in the
/// padding (a pad as large as the window) and load no input row: only tilings where every tile
/// reads one are lowered.
fn reads_only_padding(rows: Rows, out_rows: usize) -> bool {
    rows.classes(out_rows)
        .iter()
        .any(|class| class.pad_top + class.pad_bottom >= rows.window(out_rows))
}

/// The error when no tiling of the conv layer at `index` of geometry `geometry` fits: its output
/// rows cannot be tiled without a tile reading only padding, or its rows are too long for the LB.
fn no_tiling<T: Viewed>(scope: &Scope<T>, index: usize, geometry: &Geometry) -> LoweringError {
    let output = geometry.rows.output;
    let untileable = (1..=output).all(|out_rows| {
        !output.is_multiple_of(out_rows) || reads_only_padding(geometry.rows, out_rows)
    });
    if untileable {
        return LoweringError::at(
            index,
            "a 'graph.conv2d' whose output rows cannot be tiled without a tile reading only \
             padding (its value would be the bias alone) is not supported",
        );
    }
    let smallest = Tiling {
        images: 1,
        out_channels: 1,
        out_rows: 1,
        channel_chunk: 1,
        input_stationary: false,
        pipelined: false,
        absorbed_chunk: (0, false),
        absorbed_shares: false,
        chained_channels: 0,
    };
    LoweringError::at(
        index,
        format!(
            "'graph.conv2d' does not fit the local buffer of target '{}' ({} bytes): even a tile \
             of one output row needs {} bytes (rows of {} elements would have to be split, which \
             is not supported)",
            scope.machine.name,
            scope.machine.lb_bytes,
            geometry.lb_elements(&smallest, 0) * 4,
            geometry.width
        ),
    )
}

/// What the tiling search reads besides the variants: the layer's epilogue and the LB budget.
struct Search<'s, T> {
    scope: &'s Scope<'s, T>,
    epilogue: &'s EpilogueSteps,
    /// Where the input lives: where a bias view is read from.
    input_space: Space,
    /// Tiles cover the output rows by multiples of it.
    rows_by: usize,
    /// LB elements.
    budget: usize,
}

impl<T: Viewed> Search<'_, T> {
    /// Every tiling of every variant that fits the LB, with its estimate and the variant's
    /// position, in the order the search meets them (which [`Candidates::pick`] breaks full
    /// ties by). A pipeline's smaller tiles re-read more, which the estimate's port bound prices.
    fn candidates(&self, variants: &[Variant]) -> Candidates<(usize, Tiling)> {
        let mut candidates = Candidates::new();
        for (variant, (geometry, shapes, _)) in variants.iter().enumerate() {
            for (images, out_channels) in
                divisors_descending(geometry.batch)
                    .into_iter()
                    .flat_map(|images| {
                        divisors_descending(geometry.out_channels)
                            .into_iter()
                            .map(move |o| (images, o))
                    })
            {
                // A grouped conv's tile covers whole groups or part of one.
                let out_per_group = geometry.out_per_group();
                if geometry.groups > 1
                    && out_channels % out_per_group != 0
                    && out_per_group % out_channels != 0
                {
                    continue;
                }
                // A tile feeding a chained convolution holds all the channels it reads.
                if geometry.chained.is_some() && out_channels != geometry.out_channels {
                    continue;
                }
                for out_rows in divisors_descending(geometry.rows.output)
                    .into_iter()
                    .filter(|rows| rows % self.rows_by == 0)
                {
                    if reads_only_padding(geometry.rows, out_rows) {
                        continue;
                    }
                    let tile = [images, out_channels, out_rows, geometry.out_width];
                    for (cost, tiling) in self.tilings(geometry, shapes, tile) {
                        candidates.push(cost, (variant, tiling));
                    }
                }
            }
        }
        candidates
    }

    /// The tilings of output tiles of `tile` (`[images, channels, rows, width]`) of the variant
    /// `geometry` whose epilogue reads operands of `shapes` that fit the LB, with their estimates:
    /// per chunk of input channels, plain, pipelined, then input-stationary, and for each the
    /// absorbed convolution's options.
    fn tilings(
        &self,
        geometry: &Geometry,
        shapes: &BTreeMap<ValueId, Vec<usize>>,
        tile: [usize; 4],
    ) -> Vec<(Estimate, Tiling)> {
        let (scope, epilogue) = (self.scope, self.epilogue);
        let epilogue_lb = Epilogue::lb_elements(&epilogue.tile_steps, shapes, &tile);
        // A bias view is made by the lowering; it is read from where the input is.
        let elements = Epilogue::elements_by_space(&epilogue.steps, shapes, &tile, |value| {
            if is_bias_view(value) {
                self.input_space
            } else {
                scope.view(value).space
            }
        });
        let mut tilings = Vec::new();
        for tiling in schedules(geometry, tile, scope.machine.pipeline) {
            let own = geometry.lb_elements(&tiling, epilogue_lb);
            if own > self.budget {
                continue;
            }
            let room = self.budget - own;
            for tiling in absorbed_options(geometry, tiling, room)
                .into_iter()
                .flat_map(|tiling| chained_options(geometry, tiling, room))
            {
                let externals = shapes.len();
                let cost = geometry.cost(&tiling, scope.machine, externals, &elements);
                tilings.push((cost, tiling));
            }
        }
        tilings
    }
}

/// The schedules of output tiles of `tile` of `geometry` worth pricing, in the order the search
/// tries them: per chunk of input channels (largest first), plain, pipelined (when `pipeline`
/// allows it), then input-stationary.
fn schedules(geometry: &Geometry, tile: [usize; 4], pipeline: bool) -> Vec<Tiling> {
    let [images, out_channels, out_rows, _] = tile;
    let (channels, groups) = (geometry.channels, geometry.groups);
    let (out_per_group, in_per_group) = (geometry.out_per_group(), geometry.in_per_group());
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
    let mut tilings = Vec::new();
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
            chained_channels: 0,
        };
        // An input-stationary tiling keeps its input, not a stream to overlap; a
        // tile that starts from an absorbed product or feeds a chained convolution pipelines
        // its chunks only.
        let started_or_feeding = geometry.absorbed.is_some() || geometry.chained.is_some();
        if pipelined
            && (input_stationary
                || !pipeline
                || (started_or_feeding && geometry.chunks(&tiling) == 1))
        {
            continue;
        }
        tilings.push(tiling);
    }
    tilings
}

/// `tiling` with the places of an absorbed convolution's chunks (with `room` LB elements left):
/// buffers of their own, or the layer's; `tiling` itself when the layer absorbs none.
fn absorbed_options(geometry: &Geometry, tiling: Tiling, room: usize) -> Vec<Tiling> {
    let Some(absorbed) = &geometry.absorbed else {
        return vec![tiling];
    };
    let own_buffers = absorbed
        .chunk(geometry.tile(&tiling), room)
        .map(|chunk| Tiling {
            absorbed_chunk: chunk,
            ..tiling
        });
    let shared = geometry.shares_chunks(&tiling).then_some(Tiling {
        absorbed_chunk: (
            tiling.channel_chunk,
            tiling.pipelined && absorbed.channels > tiling.channel_chunk,
        ),
        absorbed_shares: true,
        ..tiling
    });
    own_buffers.into_iter().chain(shared).collect()
}

/// `tiling` with each block size of the chained convolution whose buffers fit `room` LB elements
/// beside the layer's own; `tiling` itself when the layer feeds none.
fn chained_options(geometry: &Geometry, tiling: Tiling, room: usize) -> Vec<Tiling> {
    let Some(chained) = &geometry.chained else {
        return vec![tiling];
    };
    let room = room.saturating_sub(match &geometry.absorbed {
        Some(absorbed) if !tiling.absorbed_shares => {
            let (chunk, doubled) = tiling.absorbed_chunk;
            absorbed.lb_elements(geometry.tile(&tiling), chunk, doubled)
        }
        _ => 0,
    });
    chained
        .options(geometry.tile(&tiling), room)
        .into_iter()
        .map(|chained_channels| Tiling {
            chained_channels,
            ..tiling
        })
        .collect()
}

fn dims4(shape: &[usize]) -> (usize, usize, usize, usize) {
    (shape[0], shape[1], shape[2], shape[3])
}
