//! Data-movement layers: transpose, concat, slice, split, pad, broadcast and plain copies. Each
//! is a set of DDR-to-DDR copies between views (a permuted view for transpose, windows of the
//! output for concat and pad, strided windows of the input for slice and split, a view with
//! stride 0 along repeated dimensions for broadcast) done by DMA, no compute unit involved, split
//! over the cores; a slice stepping through its last dimension goes through the LB
//! ([`stepped_columns`]).

use super::{
    elementwise::row_major_tile,
    emit::Tensor,
    emit::{reshaped, restrided},
    emit::{Body, View},
    error::LoweringError,
    kernel::Kernel,
    layers,
    layers::{Layer, Scope},
};
use crate::ir::Val;
use crate::target::Machine;
use turbine_dialects::attributes::graph::PadMode;
use turbine_dialects::ops::graph;

mod merge;

pub use merge::merged_pairs;
pub(crate) use merge::MAX_RANK;

/// A copy kernel moving each `(source, target)` pair (equal shapes) with DMA; pairs of no
/// elements (a concatenation's empty piece) move nothing.
pub fn copy_pairs(machine: &Machine, pairs: &[(Tensor, Tensor)], kernel: Kernel) -> Kernel {
    copy_pairs_fenced(machine, pairs, kernel, true)
}

/// [`copy_pairs`] without waiting for the copies: the core goes on while they move, and
/// whatever reads their targets must come after a barrier (a prefetch, GraphTurbo §4.4).
pub fn copy_pairs_ahead(machine: &Machine, pairs: &[(Tensor, Tensor)], kernel: Kernel) -> Kernel {
    copy_pairs_fenced(machine, pairs, kernel, false)
}

fn copy_pairs_fenced(
    machine: &Machine,
    pairs: &[(Tensor, Tensor)],
    mut kernel: Kernel,
    fenced: bool,
) -> Kernel {
    let pairs: Vec<&(Tensor, Tensor)> = pairs
        .iter()
        .filter(|(source, _)| source.view.elements() > 0)
        .collect();
    let tilings: Vec<(Vec<usize>, usize)> = pairs
        .iter()
        .map(|(source, _)| {
            let shape = &source.view.shape;
            let total: usize = shape.iter().product();
            let share = total.div_ceil(machine.cores).max(1);
            let tile = row_major_tile(shape, |tile| tile.iter().product::<usize>() <= share)
                .unwrap_or_else(|| vec![1; shape.len()]);
            let count = shape
                .iter()
                .zip(&tile)
                .map(|(dim, size)| dim / size)
                .product();
            (tile, count)
        })
        .collect();
    let cores = tilings
        .iter()
        .map(|(_, count)| *count)
        .max()
        .unwrap_or(1)
        .clamp(1, machine.cores);
    kernel.cores = cores;
    for ((source, target), (tile, count)) in pairs.into_iter().zip(tilings) {
        let source_arg = kernel.argument(source.host, &source.view);
        let target_arg = kernel.argument(target.host, &target.view);
        let counts: Vec<usize> = source
            .view
            .shape
            .iter()
            .zip(&tile)
            .map(|(dim, size)| dim / size)
            .collect();
        let index = kernel.begin_tiles_over(count, cores);
        let offsets = kernel.tile_offsets(index, &counts, &tile);
        let body = &mut kernel.body;
        // Beyond the 4 dimensions of a DMA view, the tile's dimensions of size 1 are dropped.
        let kept: Vec<usize> = if tile.len() > MAX_RANK {
            let long: Vec<usize> = (0..tile.len()).filter(|&d| tile[d] > 1).collect();
            if long.is_empty() {
                vec![tile.len() - 1]
            } else {
                long
            }
        } else {
            (0..tile.len()).collect()
        };
        let (from, _) = body.subview(source_arg, &source.view, &offsets, &tile, Some(&kept));
        let (to, _) = body.subview(target_arg, &target.view, &offsets, &tile, Some(&kept));
        let moved = body.dma(from, to, &[]);
        if fenced {
            kernel.end_tiles(&[moved]);
        } else {
            kernel.close_tiles();
        }
    }
    kernel
}

/// A slice stepping through its last dimension, staged through each core's LB. A DMA moves runs
/// of contiguous elements; on a real memory, skipping every other element of a run does not spare
/// the source's port the bytes in between (it reads whole bursts), while the runtime prices a
/// DMA by the bytes it delivers whatever its strides. So the tiles load the whole span of their
/// rows (the other dimensions stepped, which skips whole runs), and the DMA out of the LB, a
/// core's private memory, picks the columns: the source's port carries the span and the
/// target's only the result, as on the chip. Tiles split the leading dimensions over the cores
/// (a row whose span outgrows half the LB is cut along its columns).
fn stepped_columns(
    machine: &Machine,
    host: &mut Body,
    input: &Tensor,
    starts: &[usize],
    steps: &[usize],
    result: &Tensor,
    mut kernel: Kernel,
) -> Kernel {
    let last = steps.len() - 1;
    let step = steps[last];
    let shape = result.view.shape.clone();
    let spanned = |tile: &[usize]| {
        let mut span = tile.to_vec();
        span[last] = (tile[last] - 1) * step + 1;
        span
    };
    let mut span_steps = steps.to_vec();
    span_steps[last] = 1;
    let span = window(host, input, starts, &spanned(&shape), &span_steps);
    let share = shape
        .iter()
        .product::<usize>()
        .div_ceil(machine.cores)
        .max(1);
    let budget = machine.lb_elements() / 2;
    let tile = row_major_tile(&shape, |tile| {
        tile.iter().product::<usize>() <= share && spanned(tile).iter().product::<usize>() <= budget
    })
    .unwrap_or_else(|| vec![1; shape.len()]);
    let counts: Vec<usize> = shape
        .iter()
        .zip(&tile)
        .map(|(dim, size)| dim / size)
        .collect();
    let source = kernel.argument(span.host, &span.view);
    let target = kernel.argument(result.host, &result.view);
    let span_tile = spanned(&tile);
    let (staged, staged_view) = kernel.alloc_lb(&span_tile);
    let index = kernel.begin_tiles(counts.iter().product(), machine);
    let offsets = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    let mut span_offsets = offsets.clone();
    span_offsets[last] = body.scaled(offsets[last], step);
    let (from, _) = body.subview(source, &span.view, &span_offsets, &span_tile, None);
    let loaded = body.dma(from, staged, &[]);
    let zero = body.index(0);
    let mut picks = vec![1; tile.len()];
    picks[last] = step;
    let (picked, _) =
        body.subview_strided(staged, &staged_view, &vec![zero; tile.len()], &tile, &picks);
    let (to, _) = body.subview(target, &result.view, &offsets, &tile, None);
    let stored = body.dma(picked, to, &[loaded]);
    kernel.end_tiles(&[stored]);
    kernel
}

/// A copy of `source` into `target` (same shape).
pub fn copy(machine: &Machine, source: &Tensor, target: &Tensor, kernel: Kernel) -> Kernel {
    copy_pairs(machine, &[(source.clone(), target.clone())], kernel)
}

/// Merges the runs of input dimensions that a permutation keeps adjacent and in order: returns
/// the merged input shape, the merged output shape and the permutation between them.
fn merge_transposed(
    shape: &[usize],
    permutation: &[usize],
) -> (Vec<usize>, Vec<usize>, Vec<usize>) {
    // Runs of output positions whose input dimensions are consecutive.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &dimension in permutation {
        match runs.last_mut() {
            Some(run) if *run.last().expect("runs are never empty") + 1 == dimension => {
                run.push(dimension)
            }
            _ => runs.push(vec![dimension]),
        }
    }
    let mut by_input: Vec<usize> = (0..runs.len()).collect();
    by_input.sort_by_key(|&run| runs[run][0]);
    let size = |run: &Vec<usize>| run.iter().map(|&d| shape[d]).product::<usize>();
    let input_shape = by_input.iter().map(|&run| size(&runs[run])).collect();
    let output_shape = runs.iter().map(size).collect();
    let merged = (0..runs.len())
        .map(|run| {
            by_input
                .iter()
                .position(|&r| r == run)
                .expect("every run is placed")
        })
        .collect();
    (input_shape, output_shape, merged)
}

/// A host-side window of `tensor` at static `offsets` with `sizes` and `steps`.
pub(crate) fn window(
    host: &mut Body,
    tensor: &Tensor,
    offsets: &[usize],
    sizes: &[usize],
    steps: &[usize],
) -> Tensor {
    let offsets: Vec<Val> = offsets.iter().map(|&offset| host.index(offset)).collect();
    let (host, view) = host.subview_strided(tensor.host, &tensor.view, &offsets, sizes, steps);
    Tensor { host, view }
}

/// `graph.broadcast` (ONNX Expand) as a copy from the input seen with the output's shape: the
/// dimensions it repeats (size 1 in the input, or missing on the left) get stride 0. Runs of
/// adjacent dimensions that are all repeated, or all kept, merge, so that any rank whose runs fit
/// a DMA view is lowered.
fn broadcast(
    host: &mut Body,
    layer: &Layer,
    input: &Tensor,
    output: &Tensor,
) -> Result<(Tensor, Tensor), LoweringError> {
    if !input.view.is_contiguous() {
        return Err(LoweringError::at(
            layer.index,
            "'graph.broadcast' of a strided view is not supported",
        ));
    }
    let out = &output.view.shape;
    let lead = out.len() - input.view.shape.len();
    // Per output dimension: its size and whether the input repeats along it; size-1 dimensions
    // belong to no run.
    let mut runs: Vec<(usize, bool)> = Vec::new();
    for (d, &size) in out.iter().enumerate() {
        if size == 1 {
            continue;
        }
        let repeated = d < lead || input.view.shape[d - lead] == 1;
        match runs.last_mut() {
            Some((run, kind)) if *kind == repeated => *run *= size,
            _ => runs.push((size, repeated)),
        }
    }
    if runs.is_empty() {
        runs.push((1, false));
    }
    if runs.len() > MAX_RANK {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'graph.broadcast' to {out:?} is not supported: its repeated and kept dimensions \
                 alternate in {} runs (DMA views have at most {MAX_RANK} dimensions)",
                runs.len()
            ),
        ));
    }
    // Strides of the runs in the input: 0 for repeated ones, else the elements of the kept runs
    // inside it.
    let mut strides = vec![0; runs.len()];
    let mut inside = 1;
    for (position, &(size, repeated)) in runs.iter().enumerate().rev() {
        if !repeated {
            strides[position] = inside;
            inside *= size;
        }
    }
    let shape: Vec<usize> = runs.iter().map(|&(size, _)| size).collect();
    let view = View {
        shape: shape.clone(),
        strides,
        dynamic_offset: false,
        space: input.view.space,
        element: input.view.element,
    };
    let source = restrided(host, input, &view);
    Ok((source, reshaped(host, output, &shape)))
}

/// Lowers a data-movement layer writing `results`.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    results: &[Tensor],
    kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]).clone();
    if node.is(graph::Kind::Broadcast) {
        let pair = broadcast(host, layer, &input, &results[0])?;
        return Ok(copy_pairs(scope.machine, &[pair], kernel));
    }
    // A scalar's buffer is one element of rank 1 (`buffer_shape`), and a window of it (a slice
    // or a pad, with no starts, steps or pads) is that element.
    if (node.is(graph::Kind::Slice) || node.is(graph::Kind::Pad))
        && node.results[0].1.shape.is_empty()
    {
        return Ok(copy_pairs(
            scope.machine,
            &[(input, results[0].clone())],
            kernel,
        ));
    }
    let rank = input.view.shape.len();
    let pairs: Vec<(Tensor, Tensor)> = match node.graph_kind() {
        Some(graph::Kind::Transpose) => vec![transpose_pair(host, layer, &input, &results[0])],
        Some(graph::Kind::Concat) => concat_pairs(scope, host, layer, &results[0]),
        Some(graph::Kind::Split) => split_pairs(host, layer, &input, results),
        Some(graph::Kind::Slice) => {
            let (starts, steps) = slice_steps(layer, rank)?;
            if rank <= MAX_RANK && steps.last().is_some_and(|&step| step > 1) {
                return Ok(stepped_columns(
                    scope.machine,
                    host,
                    &input,
                    &starts,
                    &steps,
                    &results[0],
                    kernel,
                ));
            }
            vec![(
                window(host, &input, &starts, &results[0].view.shape, &steps),
                results[0].clone(),
            )]
        }
        Some(graph::Kind::Pad) => vec![pad_pair(host, layer, &input, &results[0])?],
        _ => unreachable!("{} is not a data-movement op", node.name),
    };
    let merged = merged_pairs(host, &pairs)
        .map_err(|message| LoweringError::at(layer.index, format!("'{}': {message}", node.name)))?;
    Ok(copy_pairs(scope.machine, &merged, kernel))
}

/// The copy of a `graph.transpose` layer from `input` to `output`: from the input's permuted
/// view, both seen with the dimensions the permutation keeps together merged.
fn transpose_pair(
    host: &mut Body,
    layer: &Layer,
    input: &Tensor,
    output: &Tensor,
) -> (Tensor, Tensor) {
    let permutation: Vec<usize> = layer
        .node
        .ints("permutation")
        .iter()
        .map(|&d| d as usize)
        .collect();
    // Input dimensions that stay adjacent and in order move as one: merging them keeps
    // the copy within the 4 dimensions of a DMA view (a channel shuffle's
    // [N, g, C/g, H, W] -> [N, C/g, g, H, W] is [N, g, C/g, H*W] -> [N, C/g, g, H*W]).
    // Above 4 dimensions after that, the copy is cut into rank-4 copies (merged_pairs).
    let (input_shape, output_shape, permutation) =
        merge_transposed(&input.view.shape, &permutation);
    let input = if input_shape != input.view.shape {
        reshaped(host, input, &input_shape)
    } else {
        input.clone()
    };
    let output = if output_shape != output.view.shape {
        reshaped(host, output, &output_shape)
    } else {
        output.clone()
    };
    let view = input.view.permuted(&permutation);
    let transposed = host.transpose(input.host, &view, &permutation);
    (
        Tensor {
            host: transposed,
            view,
        },
        output,
    )
}

/// The copies of a `graph.concat` layer: each operand into its window of `output`, one after
/// another along the axis.
fn concat_pairs(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    output: &Tensor,
) -> Vec<(Tensor, Tensor)> {
    let node = layer.node;
    let rank = scope.tensor(node.operands[0]).view.shape.len();
    let ones = vec![1; rank];
    let axis = layers::axis(node.int("axis"), rank);
    let mut start = 0;
    let mut pairs = Vec::new();
    for &operand in &node.operands {
        let piece = scope.tensor(operand).clone();
        let mut offsets = vec![0; rank];
        offsets[axis] = start;
        start += piece.view.shape[axis];
        let target = window(host, output, &offsets, &piece.view.shape, &ones);
        pairs.push((piece, target));
    }
    pairs
}

/// The copies of a `graph.split` layer: each window of `input`, one after another along the
/// axis, into its result.
fn split_pairs(
    host: &mut Body,
    layer: &Layer,
    input: &Tensor,
    results: &[Tensor],
) -> Vec<(Tensor, Tensor)> {
    let rank = input.view.shape.len();
    let ones = vec![1; rank];
    let axis = layers::axis(layer.node.int("axis"), rank);
    let mut start = 0;
    let mut pairs = Vec::new();
    for result in results {
        let mut offsets = vec![0; rank];
        offsets[axis] = start;
        start += result.view.shape[axis];
        pairs.push((
            window(host, input, &offsets, &result.view.shape, &ones),
            result.clone(),
        ));
    }
    pairs
}

/// The starts and steps of a `graph.slice` layer of rank `rank` (steps 1 when it has none); an
/// error for a negative step.
fn slice_steps(layer: &Layer, rank: usize) -> Result<(Vec<usize>, Vec<usize>), LoweringError> {
    let node = layer.node;
    let starts: Vec<usize> = node.ints("starts").iter().map(|&s| s as usize).collect();
    let steps = node
        .ints_opt("steps")
        .map_or_else(|| vec![1; rank], <[i64]>::to_vec);
    if steps.iter().any(|&step| step < 1) {
        return Err(LoweringError::at(
            layer.index,
            "slices with negative steps are not supported",
        ));
    }
    let steps: Vec<usize> = steps.iter().map(|&s| s as usize).collect();
    Ok((starts, steps))
}

/// The copy of a `graph.pad` layer: `input` into its window of `output` (which starts zeroed
/// with +0.0); an error for padding other than with +0.0 (a -0.0 fill included), or negative
/// padding.
fn pad_pair(
    host: &mut Body,
    layer: &Layer,
    input: &Tensor,
    output: &Tensor,
) -> Result<(Tensor, Tensor), LoweringError> {
    let node = layer.node;
    let rank = input.view.shape.len();
    let ones = vec![1; rank];
    let pads = node.ints("pads").to_vec();
    if node.pad_mode() != PadMode::Constant || node.float("value").to_bits() != 0 {
        return Err(LoweringError::at(
            layer.index,
            "padding other than with zeros is not supported (the output buffer starts \
             zeroed)",
        ));
    }
    if pads.iter().any(|&pad| pad < 0) {
        return Err(LoweringError::at(
            layer.index,
            "negative padding (cropping) is not supported",
        ));
    }
    let offsets: Vec<usize> = pads[..rank].iter().map(|&pad| pad as usize).collect();
    Ok((
        input.clone(),
        window(host, output, &offsets, &input.view.shape, &ones),
    ))
}
