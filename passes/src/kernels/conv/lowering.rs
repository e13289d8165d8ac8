//! The lowering of a conv layer: its plan, the host-side views of its operands, the kernel's
//! arguments and LB buffers, then its tiles as a pipeline over the tiles ([`Pipeline`]) or one
//! after another ([`Serial`]).

use super::absorbed::AbsorbedTiles;
use super::bias::{biases, chained_bias};
use super::chained::ChainedTiles;
use super::pipeline::Pipeline;
use super::plan::{plan, Plan};
use super::pointwise;
use super::request::Request;
use super::serial::Serial;
use crate::graph_view::{ElementType, ValueId};
use crate::ir::Val;
use crate::kernels::{
    emit::{reshaped, Body, Tensor, View},
    error::LoweringError,
    kernel::{Kernel, Store},
    layers::{Layer, Scope},
    view::buffer_shape,
};
use std::collections::BTreeMap;

/// Lowers a conv2d layer.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    // A layer feeding a chained convolution writes that convolution's result; its own never
    // leaves the LB.
    let out = match layer.chained {
        Some(_) => buffer_shape(&layer.node.results[0].1.shape),
        None => layer.output.view.shape.clone(),
    };
    let plan = plan(scope, &request(layer, &out))?;
    kernel.tuned(&plan.decision, layer.node, &scope.machine.tuning);
    let operands = host_operands(scope, host, layer, &plan);
    let (geometry, tiling) = (&plan.geometry, &plan.tiling);
    let tensors = &operands.tensors;
    let tile = [
        tiling.images,
        tiling.out_channels,
        tiling.out_rows,
        geometry.out_width,
    ];
    let keep = [0, 1, 2, 3];
    let epilogue = kernel.epilogue(&plan.steps, tensors, &tile, &keep);
    let residual = plan.preload.map(|value| {
        let tensor = &tensors[&value];
        (
            kernel.argument(tensor.host, &tensor.view),
            tensor.view.clone(),
        )
    });
    let (input, filter) = (&operands.input, &operands.filter);
    let input_arg = kernel.argument(input.host, &input.view);
    let filter_arg = kernel.argument(filter.host, &filter.view);
    let stores = match layer.chained {
        Some(_) => Vec::new(),
        None => stores(&mut kernel, layer, &operands),
    };
    let elements = (input.view.element, filter.view.element);
    let buffers = Buffers::new(&mut kernel, &plan, (layer, elements), tensors);
    let chained = match (&layer.chained, &geometry.chained) {
        (Some((node, _)), Some(chained)) => Some(ChainedTiles::new(
            &mut kernel,
            (chained, node),
            tensors,
            (geometry.tile(tiling), tiling.chained_channels),
            &layer.output,
        )),
        _ => None,
    };
    let preload = residual.as_ref().map(|(argument, view)| (*argument, view));
    if tiling.pipelined && buffers.chunks == 1 {
        let second_input = kernel.alloc_lb_tile(&buffers.input_shape, elements.0).0;
        let pipeline = Pipeline {
            geometry,
            tiling,
            input: (input_arg, &input.view),
            buffers: [buffers.input.0, second_input],
            buffer_view: &buffers.input.1,
            filter: (filter_arg, &filter.view, buffers.filter),
            accumulator: (buffers.accumulator.0, &buffers.accumulator.1),
            stores: &stores,
            epilogue: &epilogue,
            preload,
        };
        pipeline.emit(&mut kernel, scope.machine);
        return Ok(kernel);
    }
    let serial = Serial {
        geometry,
        tiling,
        input: (input_arg, &input.view),
        filter: (filter_arg, &filter.view),
        buffers: [buffers.input.0, buffers.filter],
        second: buffers.second,
        buffer_view: &buffers.input.1,
        filter_shape: buffers.filter_shape,
        accumulator: (buffers.accumulator.0, &buffers.accumulator.1),
        chunks: buffers.chunks,
        stores: &stores,
        epilogue: &epilogue,
        preload,
        absorbed: buffers.absorbed.as_ref(),
        chained: chained.as_ref(),
    };
    serial.emit(&mut kernel, scope.machine);
    Ok(kernel)
}

/// The plan request of the conv layer `layer` writing a value of shape `out`: its tiles store a
/// stepped slice of the output too when it has one, covering rows by multiples of its step.
fn request<'a>(layer: &'a Layer, out: &'a [usize]) -> Request<'a> {
    Request {
        node: layer.node,
        fused: &layer.steps,
        out,
        out_space: Some(layer.output.view.space),
        index: layer.index,
        pixel_rows: pointwise::pixels_contiguous(&layer.output.view),
        absorbed: layer.absorbed,
        rows_by: layer.stepped.as_ref().map_or(1, |(_, [rows, _])| *rows),
        chained: layer
            .chained
            .as_ref()
            .map(|(node, steps)| (*node, steps.as_slice())),
    }
}

/// The host-side views of a conv layer's operands, as its plan sees them.
struct HostOperands {
    input: Tensor,
    filter: Tensor,
    output: Tensor,
    mirror: Option<Tensor>,
    /// The scope's tensors, with the biases' `[1, C, 1, 1]` views and, for a pointwise conv
    /// seen as rows of fewer pixels, the epilogue's operands seen so.
    tensors: BTreeMap<ValueId, Tensor>,
}

/// Makes the host-side views of `layer`'s operands that `plan` reads: the input through a view
/// of every `row_step`-th row, the biases as `[1, C, 1, 1]`, and every image seen as the plan's
/// pixel rows.
fn host_operands(scope: &Scope, host: &mut Body, layer: &Layer, plan: &Plan) -> HostOperands {
    let (node, geometry) = (layer.node, &plan.geometry);
    let mut input = scope.tensor(node.operands[0]).clone();
    if plan.row_step > 1 {
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
            &[1, 1, plan.row_step, 1],
        );
        input = Tensor { host: rows, view };
    }
    let filter = scope.tensor(node.operands[1]).clone();
    let mut tensors = scope.tensors.clone();
    for (view, _, bias) in biases(node, layer.absorbed) {
        tensors.insert(
            view,
            reshaped(host, scope.tensor(bias), &[1, geometry.out_channels, 1, 1]),
        );
    }
    if let Some((view, bias)) = layer
        .chained
        .as_ref()
        .and_then(|(node, _)| chained_bias(node))
    {
        let channels = scope.view(bias).elements();
        tensors.insert(
            view,
            reshaped(host, scope.tensor(bias), &[1, channels, 1, 1]),
        );
    }
    let mut output = layer.output.clone();
    let mut mirror = layer.mirror.clone();
    if let Some(k) = plan.pixel_row {
        input = pointwise::rows_of(host, &input, k);
        output = pointwise::rows_of(host, &output, k);
        mirror = mirror.map(|mirror| pointwise::rows_of(host, &mirror, k));
        for value in scope.external_shapes(&layer.steps).into_keys() {
            let tensor = tensors[&value].clone();
            tensors.insert(value, pointwise::rows_of(host, &tensor, k));
        }
    }
    HostOperands {
        input,
        filter,
        output,
        mirror,
        tensors,
    }
}

/// The stores of `layer`'s tiles: into its output, the output's mirror, and the stepped slice
/// of it the layer writes too.
fn stores<'v>(kernel: &mut Kernel, layer: &'v Layer, operands: &'v HostOperands) -> Vec<Store<'v>> {
    let output = &operands.output;
    let output_arg = kernel.argument(output.host, &output.view);
    let mut stores = kernel.output_stores((output_arg, &output.view), operands.mirror.as_ref());
    stores.extend(layer.stepped.as_ref().map(|(slice, steps)| Store {
        target: kernel.argument(slice.host, &slice.view),
        view: &slice.view,
        steps: *steps,
    }));
    stores
}

/// A conv layer's LB buffers.
struct Buffers {
    /// The input rows of a chunk, with their view.
    input: (Val, View),
    /// The shape of `input`.
    input_shape: [usize; 4],
    /// The filter slice of a chunk.
    filter: Val,
    filter_shape: [usize; 4],
    /// The output tile.
    accumulator: (Val, View),
    /// Input-channel chunks accumulated per tile.
    chunks: usize,
    /// Second input and filter buffers, when the chunks are pipelined.
    second: Option<[Val; 2]>,
    /// The absorbed convolution's operands and buffers.
    absorbed: Option<AbsorbedTiles>,
}

impl Buffers {
    /// Allocates the LB buffers of `plan`'s tiles in `kernel`: the input rows and the filter
    /// slice of a chunk, the output tile, the second halves of pipelined chunks, and those of
    /// the convolution `layer` absorbs (its operands from `tensors`). The input and filter
    /// tiles keep the float types of the input and filter (`elements`); the output tile is
    /// f32.
    fn new(
        kernel: &mut Kernel,
        plan: &Plan,
        (layer, elements): (&Layer, (ElementType, ElementType)),
        tensors: &BTreeMap<ValueId, Tensor>,
    ) -> Self {
        let (geometry, tiling) = (&plan.geometry, &plan.tiling);
        let tile = geometry.tile(tiling);
        let in_channels = geometry.input_channels(tiling);
        let window = geometry.rows.window(tiling.out_rows);
        let input_shape = [tiling.images, in_channels, window, geometry.width];
        let (input_lb, input_lb_view) = kernel.alloc_lb_tile(&input_shape, elements.0);
        let filter_shape = geometry.filter_tile(tiling);
        let (filter_lb, _) = kernel.alloc_lb_tile(&filter_shape, elements.1);
        let accumulator = kernel.alloc_lb(&tile);
        let chunks = geometry.chunks(tiling);
        let second = (tiling.pipelined && chunks > 1).then(|| {
            [
                kernel.alloc_lb_tile(&input_shape, elements.0).0,
                kernel.alloc_lb_tile(&filter_shape, elements.1).0,
            ]
        });
        let absorbed = layer.absorbed.map(|absorbed| {
            let halves = std::iter::once([input_lb, filter_lb])
                .chain(second)
                .collect();
            let shared = tiling.absorbed_shares.then_some((halves, &input_lb_view));
            AbsorbedTiles::new(
                kernel,
                tensors,
                absorbed,
                tile,
                tiling.absorbed_chunk,
                shared,
            )
        });
        Buffers {
            input: (input_lb, input_lb_view),
            input_shape,
            filter: filter_lb,
            filter_shape,
            accumulator,
            chunks,
            second,
            absorbed,
        }
    }
}
