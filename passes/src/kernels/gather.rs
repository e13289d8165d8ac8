//! Gather layers with indices known at run time (ONNX `Gather`, an embedding lookup, and
//! `GatherElements`): DMA
//! gathers from the table where it lives (DDR), no compute unit involved. The indices are split
//! over the cores; each core's DMA channel reads its share of them and moves the selected slices
//! of the table into its share of the output, so a lookup costs the bytes of the rows it picks,
//! never a product with a one-hot matrix. An index outside the table fails the run with the
//! runtime's error naming the layer.

use super::{
    elementwise::row_major_tile,
    emit::{reshaped, Body, Tensor},
    error::LoweringError,
    kernel::Kernel,
    layers::{self, Layer, Scope},
    movement::MAX_RANK,
};
use crate::ir::Val;

/// Emits the gather `layer` into `kernel`, writing `result`.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    result: &Tensor,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let (table, indices) = (
        scope.tensor(node.operands[0]),
        scope.tensor(node.operands[1]),
    );
    layer.require_contiguous(&[("table", table), ("indices", indices), ("result", result)])?;
    let shape = &table.view.shape;
    let axis = layers::axis(node.int("axis"), shape.len());
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let count = indices.view.elements();
    // Rank 3 whatever the table's rank: the runtime's views have at most 4 dimensions.
    let table = reshaped(host, table, &[outer, shape[axis], inner]);
    let indices = reshaped(host, indices, &[count]);
    let output = reshaped(host, result, &[outer, count, inner]);
    let share = count.div_ceil(scope.machine.cores).max(1);
    let chunk = row_major_tile(&[count], |tile| tile[0] <= share).map_or(1, |tile| tile[0]);
    let table_argument = kernel.argument(table.host, &table.view);
    let indices_argument = kernel.argument(indices.host, &indices.view);
    let output_argument = kernel.argument(output.host, &output.view);
    let index = kernel.begin_tiles(count / chunk, scope.machine);
    let body = &mut kernel.body;
    let start = body.scaled(index, chunk);
    let zero = body.index(0);
    let (picked, _) = body.subview(indices_argument, &indices.view, &[start], &[chunk], None);
    let offsets: [Val; 3] = [zero, start, zero];
    let (rows, _) = body.subview(
        output_argument,
        &output.view,
        &offsets,
        &[outer, chunk, inner],
        None,
    );
    let moved = body.gather(table_argument, picked, rows, 1, &[]);
    kernel.end_tiles(&[moved]);
    Ok(kernel)
}

/// Emits the gather of elements `layer` (ONNX `GatherElements`) into `kernel`, writing
/// `result`: the output is tiled over the cores, and each tile is one DMA gather of its elements
/// from the window of the data its tile spans, whole along the axis.
pub fn lower_elements(
    scope: &Scope,
    layer: &Layer,
    result: &Tensor,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let (data, indices) = (
        scope.tensor(node.operands[0]),
        scope.tensor(node.operands[1]),
    );
    let shape = result.view.shape.clone();
    if shape.len() > MAX_RANK || data.view.shape.len() != shape.len() {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' of rank {} is not supported (DMA views have at most {MAX_RANK} dimensions)",
                node.name,
                shape.len()
            ),
        ));
    }
    let axis = layers::axis(node.int("axis"), shape.len());
    let share = result.view.elements().div_ceil(scope.machine.cores).max(1);
    let tile = row_major_tile(&shape, |tile| tile.iter().product::<usize>() <= share)
        .unwrap_or_else(|| vec![1; shape.len()]);
    let counts: Vec<usize> = shape.iter().zip(&tile).map(|(size, t)| size / t).collect();
    let data_argument = kernel.argument(data.host, &data.view);
    let indices_argument = kernel.argument(indices.host, &indices.view);
    let output_argument = kernel.argument(result.host, &result.view);
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let offsets = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    let mut window_offsets = offsets.clone();
    window_offsets[axis] = body.index(0);
    let mut window = tile.clone();
    window[axis] = data.view.shape[axis];
    let (source, _) = body.subview(data_argument, &data.view, &window_offsets, &window, None);
    let (picked, _) = body.subview(indices_argument, &indices.view, &offsets, &tile, None);
    let (target, _) = body.subview(output_argument, &result.view, &offsets, &tile, None);
    let moved = body.gather_elements((source, picked, target), axis, &[]);
    kernel.end_tiles(&[moved]);
    Ok(kernel)
}
