//! Top-k (ONNX `TopK`): each line's k largest or smallest elements along an axis and their
//! indices, on the vector core. The input is seen as `[outer, axis, inner]`; tiles of whole lines
//! (several outer and inner positions) go through the LB, an f32 tile in and two tiles out, the
//! values (f32) and the indices (i64).

use super::{
    arg_reduce::{line_tile, lines_along},
    emit::{reshaped, Body, Tensor},
    error::LoweringError,
    kernel::Kernel,
    layers::{Layer, Scope},
};
use crate::graph_view::ElementType;

/// Emits the top-k `layer` into `kernel`, writing `results` (the values, then the indices).
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    results: &[Tensor],
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let refuse = |why: &str| {
        LoweringError::at(
            layer.index,
            format!("'{}' {why} is not supported", node.name),
        )
    };
    let input = scope.tensor(node.operands[0]);
    let [values, indices] = results else {
        unreachable!("the dialect gives a top-k two results")
    };
    if [input, values, indices]
        .iter()
        .any(|tensor| !tensor.view.is_contiguous())
    {
        return Err(refuse("of a strided view"));
    }
    let [outer, size, inner] = lines_along(&input.view.shape, node.int("axis"));
    let k = lines_along(&values.view.shape, node.int("axis"))[1];
    let input = reshaped(host, input, &[outer, size, inner]);
    let values = reshaped(host, values, &[outer, k, inner]);
    let indices = reshaped(host, indices, &[outer, k, inner]);
    let machine = scope.machine;
    let line_bytes = (size + k) * ElementType::F32.bytes() + k * ElementType::I64.bytes();
    let tile = line_tile(machine, [outer, inner], line_bytes)
        .ok_or_else(|| refuse("with lines longer than the local buffer holds"))?;
    let (lines_in, lines_out) = ([tile[0], size, tile[1]], [tile[0], k, tile[1]]);
    let source = kernel.argument(input.host, &input.view);
    let value_target = kernel.argument(values.host, &values.view);
    let index_target = kernel.argument(indices.host, &indices.view);
    let per_cluster = || refuse("in a per-cluster kernel with an f32 LB arena");
    let mut alloc = |shape: &[usize], element| {
        kernel
            .alloc_lb_of(shape, element)
            .map(|(buffer, _)| buffer)
            .ok_or_else(per_cluster)
    };
    let loaded = alloc(&lines_in, ElementType::F32)?;
    let best = alloc(&lines_out, ElementType::F32)?;
    let positions = alloc(&lines_out, ElementType::I64)?;
    let counts = [outer / tile[0], inner / tile[1]];
    let index = kernel.begin_tiles(counts[0] * counts[1], machine);
    let lines = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    let offsets = [lines[0], body.index(0), lines[1]];
    let (from, _) = body.subview(source, &input.view, &offsets, &lines_in, None);
    let load = body.dma(from, loaded, &[]);
    // `largest` is true by default: the printed IR leaves it out then.
    let largest = !node.attributes.contains_key("largest") || node.flag("largest");
    let picked = body.top_k(largest, (loaded, best, positions), 1, &[load]);
    let (to, _) = body.subview(value_target, &values.view, &offsets, &lines_out, None);
    let store_values = body.dma(best, to, &[picked]);
    let (to, _) = body.subview(index_target, &indices.view, &offsets, &lines_out, None);
    let store_indices = body.dma(positions, to, &[picked]);
    kernel.end_tiles(&[store_values, store_indices]);
    Ok(kernel)
}
