//! Arg reductions (ONNX `ArgMax`, `ArgMin`, and `Hardmax` which the importer builds on them): the
//! index of each line's extreme along an axis, on the vector core. The input is seen as
//! `[outer, axis, inner]`; tiles of whole lines (several outer and inner positions) go through
//! the LB, an f32 tile in and an i64 tile out.

use super::{
    elementwise::row_major_tile,
    emit::{reshaped, Body, Tensor},
    error::LoweringError,
    kernel::Kernel,
    layers::{self, Layer, Scope},
};
use crate::graph_view::ElementType;
use crate::target::Machine;
use turbine_dialects::ops::graph;

/// Emits the arg reduction `layer` into `kernel`, writing `result`.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    result: &Tensor,
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
    if !input.view.is_contiguous() || !result.view.is_contiguous() {
        return Err(refuse("of a strided view"));
    }
    let [outer, size, inner] = lines_along(&input.view.shape, node.int("axis"));
    let input = reshaped(host, input, &[outer, size, inner]);
    let output = reshaped(host, result, &[outer, 1, inner]);
    let machine = scope.machine;
    let line_bytes = size * ElementType::F32.bytes() + ElementType::I64.bytes();
    let tile = line_tile(machine, [outer, inner], line_bytes)
        .ok_or_else(|| refuse("with lines longer than the local buffer holds"))?;
    let (lines_in, lines_out) = ([tile[0], size, tile[1]], [tile[0], 1, tile[1]]);
    let source = kernel.argument(input.host, &input.view);
    let target = kernel.argument(output.host, &output.view);
    let per_cluster = || refuse("in a per-cluster kernel with an f32 LB arena");
    let (loaded, _) = kernel
        .alloc_lb_of(&lines_in, ElementType::F32)
        .ok_or_else(per_cluster)?;
    let (picked, _) = kernel
        .alloc_lb_of(&lines_out, ElementType::I64)
        .ok_or_else(per_cluster)?;
    let counts = [outer / tile[0], inner / tile[1]];
    let index = kernel.begin_tiles(counts[0] * counts[1], machine);
    let lines = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    let offsets = [lines[0], body.index(0), lines[1]];
    let (from, _) = body.subview(source, &input.view, &offsets, &lines_in, None);
    let load = body.dma(from, loaded, &[]);
    let largest = node.is(graph::Kind::ArgMax);
    let last = node.flag("select_last_index");
    let reduced = body.arg_reduce((largest, last), (loaded, picked), 1, &[load]);
    let (to, _) = body.subview(target, &output.view, &offsets, &lines_out, None);
    let store = body.dma(picked, to, &[reduced]);
    kernel.end_tiles(&[store]);
    Ok(kernel)
}

/// A tensor of `shape` seen as `[outer, size, inner]` lines along `axis` (negative from the end).
pub(super) fn lines_along(shape: &[usize], axis: i64) -> [usize; 3] {
    let axis = layers::axis(axis, shape.len());
    [
        shape[..axis].iter().product(),
        shape[axis],
        shape[axis + 1..].iter().product(),
    ]
}

/// The `[outer, inner]` tile of lines a core takes at a time: a core's share of the
/// `outer × inner` lines at most, each of `line_bytes` in the LB; None when one line overflows it.
pub(super) fn line_tile(
    machine: &Machine,
    [outer, inner]: [usize; 2],
    line_bytes: usize,
) -> Option<Vec<usize>> {
    let share = (outer * inner).div_ceil(machine.cores).max(1);
    row_major_tile(&[outer, inner], |tile| {
        let lines = tile[0] * tile[1];
        lines <= share && lines * line_bytes <= machine.lb_bytes
    })
}
