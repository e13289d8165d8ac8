//! Row-wise layers: reductions (and global average pooling), softmax and layer norm. The tensor
//! is viewed as rows — `[A, L, B]` with the reduced or softmax extent `L` in the middle (a
//! reduction over separate axes: `[A, L1, K, L2]`, reduced one run at a time), or `[R, L]` with the
//! normalised extent last — and whole rows are tiled, since every output element needs its whole
//! row.

use super::{
    emit::reshaped,
    emit::Tensor,
    emit::{divisors_descending, Body},
    error::LoweringError,
    kernel::Kernel,
    layers,
    layers::{Layer, Scope},
};
use crate::graph_view::Node;
use crate::ir::Val;
use crate::kernels::reduction_view::{reduction_view, ReductionView, MAX_VIEW_RANK};
use turbine_dialects::attributes::dsa::{BinaryKind, PoolKind, ReduceKind, UnaryKind};
use turbine_dialects::ops::graph;

fn too_long(scope: &Scope, layer: &Layer, row: usize) -> LoweringError {
    LoweringError::at(
        layer.index,
        format!(
            "'{}' does not fit the local buffer of target '{}' ({} bytes): its rows of {} \
             elements would have to be split, which is not supported",
            layer.node.name, scope.machine.name, scope.machine.lb_bytes, row
        ),
    )
}

/// The largest divisor of `rows` whose tile of `per_row` elements (plus `fixed`) fits.
fn row_tile(scope: &Scope, rows: usize, per_row: usize, fixed: usize) -> Option<usize> {
    let budget = scope.machine.lb_elements();
    let spread = rows.div_ceil(scope.machine.cores).max(1);
    divisors_descending(rows)
        .into_iter()
        .find(|&tile| tile <= spread && tile * per_row + fixed <= budget)
        .or_else(|| {
            divisors_descending(rows)
                .into_iter()
                .find(|&tile| tile * per_row + fixed <= budget)
        })
}

/// The kind of the reduction `layer` (of an input of rank `rank`) and the axes it reduces,
/// sorted and without repeats (`global_avg_pool`: a mean over H and W).
fn reduction(layer: &Layer, rank: usize) -> (ReduceKind, Vec<usize>) {
    let node = layer.node;
    let (kind, mut axes) = match node.graph_kind() {
        Some(graph::Kind::GlobalAvgPool) => (ReduceKind::Mean, (2..rank).collect()),
        Some(graph::Kind::ReduceSum) => (ReduceKind::Sum, attribute_axes(node, rank)),
        Some(graph::Kind::ReduceMean) => (ReduceKind::Mean, attribute_axes(node, rank)),
        Some(graph::Kind::ReduceMax) => (ReduceKind::Max, attribute_axes(node, rank)),
        Some(graph::Kind::ReduceProd) => (ReduceKind::Prod, attribute_axes(node, rank)),
        _ => unreachable!("{} is not a reduction the vector units run", node.name),
    };
    axes.sort_unstable();
    axes.dedup();
    (kind, axes)
}

/// The axes a reduce op `node` of an input of rank `rank` names (none: all of them), counted
/// from the front.
fn attribute_axes(node: &Node, rank: usize) -> Vec<usize> {
    let axes = node.ints("axes");
    if axes.is_empty() {
        (0..rank).collect()
    } else {
        axes.iter().map(|&a| layers::axis(a, rank)).collect()
    }
}

/// Lowers a reduction over contiguous axes (and `global_avg_pool`, a mean over H and W).
pub fn lower_reduce(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let shape = input.view.shape.clone();
    let (kind, axes) = reduction(layer, shape.len());
    // The tensor seen as [outer, runs..., inner] (graph-split-reductions' view): each reduced
    // run is reduced in turn, last first, in LB: a mean of equal-sized means is the mean, so
    // every kind reduces run by run. Dimension 0 is what the tiles split; an outer of 1 is left
    // out when the view needs its place, and then one tile holds everything.
    let ReductionView {
        dims,
        runs,
        lead,
        outer,
    } = reduction_view(&shape, &axes);
    if dims.len() > MAX_VIEW_RANK {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' over axes {axes:?} needs a {}-dimensional view (DMA views have at most \
                 {MAX_VIEW_RANK}): run graph-split-reductions first",
                node.name,
                dims.len()
            ),
        ));
    }
    let shapes = step_shapes(&dims, &runs, lead);
    let per_row: usize = shapes
        .iter()
        .map(|shape| shape[lead..].iter().product::<usize>())
        .sum();
    let tile = row_tile(scope, outer, per_row, 0).ok_or_else(|| too_long(scope, layer, per_row))?;
    let tiled = |shape: &[usize]| {
        let mut shape = shape.to_vec();
        if lead == 1 {
            shape[0] = tile;
        }
        shape
    };
    let source = reshaped(host, &input, &dims);
    let result_dims = shapes.last().expect("a reduced run").clone();
    let target = reshaped(host, &layer.output, &result_dims);
    let source_arg = kernel.argument(source.host, &source.view);
    let target_arg = kernel.argument(target.host, &target.view);
    let buffers: Vec<Val> = shapes
        .iter()
        .map(|shape| kernel.alloc_lb(&tiled(shape)).0)
        .collect();
    let index = kernel.begin_tiles(outer / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(index, tile);
    let zero = body.index(0);
    let offsets: Vec<Val> = (0..dims.len())
        .map(|d| if d == 0 && lead == 1 { row } else { zero })
        .collect();
    let (from, _) = body.subview(source_arg, &source.view, &offsets, &tiled(&dims), None);
    let loaded = body.dma(from, buffers[0], &[]);
    let token = reduce_runs(body, kind, &buffers, (&runs, lead), loaded);
    let (to, _) = body.subview(
        target_arg,
        &target.view,
        &offsets,
        &tiled(&result_dims),
        None,
    );
    let stored = body.dma(*buffers.last().expect("the result"), to, &[token]);
    kernel.end_tiles(&[stored]);
    Ok(kernel)
}

/// The shapes of a reduction's buffers over its view `dims` (the `runs` after `lead`): the input
/// tile, then one per reduced run, last first, that run now 1.
fn step_shapes(dims: &[usize], runs: &[(usize, bool)], lead: usize) -> Vec<Vec<usize>> {
    let mut shapes = vec![dims.to_vec()];
    for (position, &(_, reduced)) in runs.iter().enumerate().rev() {
        if reduced {
            let mut next = shapes.last().expect("the input tile").clone();
            next[lead + position] = 1;
            shapes.push(next);
        }
    }
    shapes
}

/// Reduces the reduced runs of `runs` (the view's dimensions after `lead`), last first, each
/// from one of `buffers` into the next, the first after `token`; returns the last one's token.
fn reduce_runs(
    body: &mut Body,
    kind: ReduceKind,
    buffers: &[Val],
    (runs, lead): (&[(usize, bool)], usize),
    mut token: Val,
) -> Val {
    let reduced_positions = runs
        .iter()
        .enumerate()
        .rev()
        .filter(|(_, &(_, reduced))| reduced)
        .map(|(position, _)| position);
    for (step, position) in reduced_positions.enumerate() {
        token = body.reduce(
            kind,
            buffers[step],
            buffers[step + 1],
            (lead + position) as i64,
            &[token],
        );
    }
    token
}

/// The `[R, L]` view of a tensor normalised over its dimensions from `axis` on.
fn as_rows(host: &mut Body, tensor: &Tensor, axis: usize) -> (Tensor, usize, usize) {
    let rows: usize = tensor.view.shape[..axis].iter().product();
    let length: usize = tensor.view.shape[axis..].iter().product();
    (reshaped(host, tensor, &[rows, length]), rows, length)
}

/// Lowers a softmax along any axis: the tensor seen as `[outer, length, inner]` (the axis in the
/// middle; `[outer, length]` when nothing follows it), tiles of whole `outer` rows in LB, the
/// maximum and the sum reduced along the middle dimension and broadcast back over it.
pub fn lower_softmax(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let shape = input.view.shape.clone();
    let axis = layers::axis(node.int("axis"), shape.len());
    let outer: usize = shape[..axis].iter().product();
    let length = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let with_inner = |rows: usize, length: usize| {
        if inner == 1 {
            vec![rows, length]
        } else {
            vec![rows, length, inner]
        }
    };
    let source = reshaped(host, &input, &with_inner(outer, length));
    let target = reshaped(host, &layer.output, &with_inner(outer, length));
    let tile = row_tile(scope, outer, (length + 1) * inner, 0)
        .ok_or_else(|| too_long(scope, layer, length * inner))?;
    let source_arg = kernel.argument(source.host, &source.view);
    let target_arg = kernel.argument(target.host, &target.view);
    let (x, _) = kernel.alloc_lb(&with_inner(tile, length));
    let (s, _) = kernel.alloc_lb(&with_inner(tile, 1));
    let index = kernel.begin_tiles(outer / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(index, tile);
    let zero = body.index(0);
    let offsets = if inner == 1 {
        vec![row, zero]
    } else {
        vec![row, zero, zero]
    };
    let (from, _) = body.subview(
        source_arg,
        &source.view,
        &offsets,
        &with_inner(tile, length),
        None,
    );
    let loaded = body.dma(from, x, &[]);
    let maximum = body.reduce(ReduceKind::Max, x, s, 1, &[loaded]);
    let shifted = body.binary(BinaryKind::Sub, x, s, x, &[maximum]);
    let exponent = body.unary(UnaryKind::Exp, x, x, &[], &[shifted]);
    let sum = body.reduce(ReduceKind::Sum, x, s, 1, &[exponent]);
    let normalised = body.binary(BinaryKind::Div, x, s, x, &[sum]);
    let (to, _) = body.subview(
        target_arg,
        &target.view,
        &offsets,
        &with_inner(tile, length),
        None,
    );
    let stored = body.dma(x, to, &[normalised]);
    kernel.end_tiles(&[stored]);
    Ok(kernel)
}

/// Lowers a layer norm over the dimensions from `axis` on; scale and bias are loaded once per
/// core.
pub fn lower_layer_norm(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let rank = input.view.shape.len();
    let axis = layers::axis(node.int("axis"), rank);
    let epsilon = node.float("epsilon");
    let (source, rows, length) = as_rows(host, &input, axis);
    let (target, _, _) = as_rows(host, &layer.output, axis);
    let scale = reshaped(host, scope.tensor(node.operands[1]), &[1, length]);
    let bias = node
        .operands
        .get(2)
        .map(|&bias| reshaped(host, scope.tensor(bias), &[1, length]));
    let parameters = length * (1 + bias.is_some() as usize);
    let tile = row_tile(scope, rows, 2 * length + 2, parameters)
        .ok_or_else(|| too_long(scope, layer, length))?;
    let source_arg = kernel.argument(source.host, &source.view);
    let target_arg = kernel.argument(target.host, &target.view);
    let scale_arg = kernel.argument(scale.host, &scale.view);
    let bias_arg = bias
        .as_ref()
        .map(|bias| kernel.argument(bias.host, &bias.view));
    let (x, _) = kernel.alloc_lb(&[tile, length]);
    let (t, _) = kernel.alloc_lb(&[tile, length]);
    let (mean, _) = kernel.alloc_lb(&[tile, 1]);
    let (variance, _) = kernel.alloc_lb(&[tile, 1]);
    let (gamma, _) = kernel.alloc_lb(&[1, length]);
    let beta = bias.as_ref().map(|_| kernel.alloc_lb(&[1, length]).0);
    let body = &mut kernel.body;
    let gamma_loaded = body.dma(scale_arg, gamma, &[]);
    let mut parameters_loaded = vec![gamma_loaded];
    if let (Some(bias_arg), Some(beta)) = (bias_arg, beta) {
        parameters_loaded.push(body.dma(bias_arg, beta, &[]));
    }
    body.wait(&parameters_loaded);
    let index = kernel.begin_tiles(rows / tile, scope.machine);
    let body = &mut kernel.body;
    let row = body.scaled(index, tile);
    let zero = body.index(0);
    let offsets = [row, zero];
    let (from, _) = body.subview(source_arg, &source.view, &offsets, &[tile, length], None);
    let loaded = body.dma(from, x, &[]);
    let averaged = body.reduce(ReduceKind::Mean, x, mean, 1, &[loaded]);
    let centred = body.binary(BinaryKind::Sub, x, mean, x, &[averaged]);
    let squared = body.binary(BinaryKind::Mul, x, x, t, &[centred]);
    let var = body.reduce(ReduceKind::Mean, t, variance, 1, &[squared]);
    let shifted = body.unary(
        UnaryKind::Affine,
        variance,
        variance,
        &[("scale", 1.0), ("shift", epsilon)],
        &[var],
    );
    let inverse = body.unary(UnaryKind::Rsqrt, variance, variance, &[], &[shifted]);
    let normalised = body.binary(BinaryKind::Mul, x, variance, x, &[inverse, centred]);
    let mut last = body.binary(BinaryKind::Mul, x, gamma, x, &[normalised]);
    if let Some(beta) = beta {
        last = body.binary(BinaryKind::Add, x, beta, x, &[last]);
    }
    let (to, _) = body.subview(target_arg, &target.view, &offsets, &[tile, length], None);
    let stored = body.dma(x, to, &[last]);
    kernel.end_tiles(&[stored]);
    Ok(kernel)
}

/// Lowers a local response normalisation: the sum of squares over the channel window is an
/// average pooling of `x * x` viewed as `[1, 1, C, positions]` with a `size x 1` window padded
/// by the window's halves and counting the padding (so the divisor is always `size`), and the
/// power is `exp(-beta * log(bias + alpha * mean))`. Tiles take every channel and a divisor of
/// the spatial positions.
pub fn lower_lrn(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    let shape = input.view.shape.clone();
    if shape.len() < 3 {
        return Err(LoweringError::at(
            layer.index,
            "lrn needs a tensor with channels and positions (rank 3 or more)",
        ));
    }
    let (batch, channels) = (shape[0], shape[1]);
    let positions: usize = shape[2..].iter().product();
    let size = node.int("size") as usize;
    let (alpha, beta, bias) = (node.float("alpha"), node.float("beta"), node.float("bias"));
    let below = (size - 1) / 2;
    let above = size - 1 - below;
    let source = reshaped(host, &input, &[batch, 1, channels, positions]);
    let target = reshaped(host, &layer.output, &[batch, 1, channels, positions]);
    let budget = scope.machine.lb_elements();
    let tile = divisors_descending(positions)
        .into_iter()
        .find(|&tile| 3 * channels * tile <= budget)
        .ok_or_else(|| too_long(scope, layer, channels))?;
    let source_arg = kernel.argument(source.host, &source.view);
    let target_arg = kernel.argument(target.host, &target.view);
    let tile_shape = [1, 1, channels, tile];
    let (x, _) = kernel.alloc_lb(&tile_shape);
    let (squares, _) = kernel.alloc_lb(&tile_shape);
    let (scale, _) = kernel.alloc_lb(&tile_shape);
    let counts = [batch, positions / tile];
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let coordinates = kernel.decode(index, &counts);
    let body = &mut kernel.body;
    let position = body.scaled(coordinates[1], tile);
    let zero = body.index(0);
    let offsets = [coordinates[0], zero, zero, position];
    let (from, _) = body.subview(source_arg, &source.view, &offsets, &tile_shape, None);
    let loaded = body.dma(from, x, &[]);
    let squared = body.binary(BinaryKind::Mul, x, x, squares, &[loaded]);
    let window = [size, 1];
    let pads = [below, 0, above, 0];
    let mean = body.pool(
        PoolKind::Avg,
        squares,
        scale,
        window,
        [1, 1],
        pads,
        true,
        &[squared],
    );
    let base = body.unary(
        UnaryKind::Affine,
        scale,
        scale,
        &[("scale", alpha), ("shift", bias)],
        &[mean],
    );
    let logarithm = body.unary(UnaryKind::Log, scale, scale, &[], &[base]);
    let scaled = body.unary(
        UnaryKind::Affine,
        scale,
        scale,
        &[("scale", -beta), ("shift", 0.0)],
        &[logarithm],
    );
    let power = body.unary(UnaryKind::Exp, scale, scale, &[], &[scaled]);
    let normalised = body.binary(BinaryKind::Mul, x, scale, x, &[power]);
    let (to, _) = body.subview(target_arg, &target.view, &offsets, &tile_shape, None);
    let stored = body.dma(x, to, &[normalised]);
    kernel.end_tiles(&[stored]);
    Ok(kernel)
}
