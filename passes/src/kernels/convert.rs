//! Cast layers (ONNX `Cast`): element type conversion on the vector engine. The elements are
//! split over the cores in tiles that go through the LB, one buffer of each element type: a DMA
//! in, a `dsa.convert`, a DMA out.

use super::{
    elementwise::row_major_tile,
    emit::{reshaped, Body, Tensor},
    error::LoweringError,
    kernel::Kernel,
    layers::{Layer, Scope},
};

/// Emits the cast `layer` into `kernel`, writing `result`.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    result: &Tensor,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let input = scope.tensor(node.operands[0]);
    layer.require_contiguous(&[("input", input), ("result", result)])?;
    let machine = scope.machine;
    let count = input.view.elements();
    let (from_type, to_type) = (input.view.element, result.view.element);
    let input = reshaped(host, input, &[count]);
    let output = reshaped(host, result, &[count]);
    let share = count.div_ceil(machine.cores).max(1);
    let bytes_per_element = from_type.bytes() + to_type.bytes();
    let Some(tile) = row_major_tile(&[count], |tile| {
        tile[0] <= share && tile[0] * bytes_per_element <= machine.lb_bytes
    }) else {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' is not supported: one element does not fit the local buffer",
                node.name
            ),
        ));
    };
    let tile = tile[0];
    let source = kernel.argument(input.host, &input.view);
    let target = kernel.argument(output.host, &output.view);
    let Some((loaded, _)) = kernel.alloc_lb_of(&[tile], from_type) else {
        return Err(per_cluster_refusal(layer));
    };
    let Some((converted, _)) = kernel.alloc_lb_of(&[tile], to_type) else {
        return Err(per_cluster_refusal(layer));
    };
    let index = kernel.begin_tiles(count / tile, machine);
    let body = &mut kernel.body;
    let offset = body.scaled(index, tile);
    let (from, _) = body.subview(source, &input.view, &[offset], &[tile], None);
    let load = body.dma(from, loaded, &[]);
    let convert = body.convert(loaded, converted, &[load]);
    let (to, _) = body.subview(target, &output.view, &[offset], &[tile], None);
    let store = body.dma(converted, to, &[convert]);
    kernel.end_tiles(&[store]);
    Ok(kernel)
}

/// The error of a cast in a kernel whose LB is one f32 arena (GraphTurbo's), which cannot hold
/// tiles of another element type.
fn per_cluster_refusal(layer: &Layer) -> LoweringError {
    LoweringError::at(
        layer.index,
        format!(
            "'{}' is not supported in a per-cluster kernel: it converts between element types, \
             and the kernel's LB arena holds f32",
            layer.node.name
        ),
    )
}
