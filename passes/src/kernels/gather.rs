//! Gather layers with indices known at run time (ONNX `Gather`, an embedding lookup): DMA
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
    for (what, tensor) in [("table", table), ("indices", indices), ("result", result)] {
        if !tensor.view.is_contiguous() {
            return Err(LoweringError::at(
                layer.index,
                format!(
                    "'{}' of a {what} that is not a contiguous buffer is not supported",
                    node.name
                ),
            ));
        }
    }
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
