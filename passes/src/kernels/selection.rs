//! Comparison, selection and integer arithmetic layers (ONNX `Equal`, `Less`, ..., `Where`, the
//! `And`, `Or`, `Not` the importer builds from selections, and `Add` ... `Pow` on i64 or i32):
//! elementwise on the vector engine with operands of any element type, booleans among them, one
//! op per layer. The output is tiled over the cores; each operand's tile
//! is loaded into an LB buffer of its element type through a view that repeats it along the
//! dimensions it is broadcast on (stride 0), so that the instruction sees tiles of one shape.
//! Dimensions along which every operand is either kept or repeated alike are merged, so that any
//! rank fits the 4 dimensions of a DMA view unless the operands alternate more often.

use super::{
    elementwise::row_major_tile,
    emit::{reshaped, restrided, Body, Tensor, View},
    error::LoweringError,
    kernel::Kernel,
    layers::{integer_binary, Layer, Scope},
    movement::MAX_RANK,
};
use crate::ir::Val;
use turbine_dialects::attributes::dsa::ComparePredicate;
use turbine_dialects::attributes::graph::ComparePredicate as GraphPredicate;
use turbine_dialects::ops::graph;

/// Emits the comparison or selection `layer` into `kernel`, writing `result`.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    result: &Tensor,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let refuse = |why: String| {
        LoweringError::at(
            layer.index,
            format!("'{}' {why} is not supported", node.name),
        )
    };
    let operands: Vec<&Tensor> = node
        .operands
        .iter()
        .map(|&value| scope.tensor(value))
        .collect();
    if let Some(position) = operands
        .iter()
        .position(|tensor| !tensor.view.is_contiguous())
    {
        return Err(refuse(format!(
            "reading a strided view as operand #{position}"
        )));
    }
    let out: &[usize] = &result.view.shape;
    let runs = merged_runs(out, &operands);
    if runs.len() > MAX_RANK {
        return Err(refuse(format!(
            "broadcasting to {out:?} in {} runs of kept and repeated dimensions (DMA views have \
             at most {MAX_RANK})",
            runs.len()
        )));
    }
    let shape: Vec<usize> = runs.iter().map(|(size, _)| *size).collect();
    let inputs: Vec<Tensor> = operands
        .iter()
        .enumerate()
        .map(|(position, tensor)| {
            let kept: Vec<bool> = runs.iter().map(|(_, kept)| kept[position]).collect();
            restrided(host, tensor, &broadcast_view(&shape, &kept, &tensor.view))
        })
        .collect();
    let output = reshaped(host, result, &shape);
    let machine = scope.machine;
    let share = output.view.elements().div_ceil(machine.cores).max(1);
    let bytes: usize = inputs
        .iter()
        .chain([&output])
        .map(|tensor| tensor.view.element.bytes())
        .sum();
    let tile = row_major_tile(&shape, |tile| {
        let elements: usize = tile.iter().product();
        elements <= share && elements * bytes <= machine.lb_bytes
    })
    .ok_or_else(|| refuse("with one element beyond the local buffer".into()))?;
    let per_cluster = || refuse("in a per-cluster kernel with an f32 LB arena".into());
    let arguments: Vec<(Val, &View)> = inputs
        .iter()
        .map(|tensor| (kernel.argument(tensor.host, &tensor.view), &tensor.view))
        .collect();
    let target = kernel.argument(output.host, &output.view);
    let mut tiles = Vec::new();
    for tensor in inputs.iter().chain([&output]) {
        let (buffer, _) = kernel
            .alloc_lb_of(&tile, tensor.view.element)
            .ok_or_else(per_cluster)?;
        tiles.push(buffer);
    }
    let counts: Vec<usize> = shape.iter().zip(&tile).map(|(size, t)| size / t).collect();
    let index = kernel.begin_tiles(counts.iter().product(), machine);
    let offsets = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    let loads: Vec<Val> = arguments
        .iter()
        .zip(&tiles)
        .map(|(&(argument, view), &buffer)| {
            let (from, _) = body.subview(argument, view, &offsets, &tile, None);
            body.dma(from, buffer, &[])
        })
        .collect();
    let computed = if let Some(kind) = integer_binary(node) {
        body.binary(kind, tiles[0], tiles[1], tiles[2], &loads)
    } else if node.is(graph::Kind::Compare) {
        let predicate = predicate(node.compare_predicate());
        body.compare_elements(predicate, (tiles[0], tiles[1], tiles[2]), &loads)
    } else {
        body.select_elements((tiles[0], tiles[1], tiles[2], tiles[3]), &loads)
    };
    let (to, _) = body.subview(target, &output.view, &offsets, &tile, None);
    let store = body.dma(tiles[tiles.len() - 1], to, &[computed]);
    kernel.end_tiles(&[store]);
    Ok(kernel)
}

/// The output's dimensions merged into runs (size, per operand whether it is kept there rather
/// than repeated): dimensions of size 1 join any run, and neighbours merge when every operand
/// keeps or repeats both. Operands are aligned to the output's last dimensions (numpy).
fn merged_runs(out: &[usize], operands: &[&Tensor]) -> Vec<(usize, Vec<bool>)> {
    let mut runs: Vec<(usize, Vec<bool>)> = Vec::new();
    for (d, &size) in out.iter().enumerate() {
        if size == 1 {
            continue;
        }
        let kept: Vec<bool> = operands
            .iter()
            .map(|tensor| {
                let shape = &tensor.view.shape;
                let lead = out.len().saturating_sub(shape.len());
                d >= lead && shape[d - lead] == size
            })
            .collect();
        match runs.last_mut() {
            Some((run, last)) if *last == kept => *run *= size,
            _ => runs.push((size, kept)),
        }
    }
    if runs.is_empty() {
        runs.push((1, vec![true; operands.len()]));
    }
    runs
}

/// The view of a contiguous operand (`view`) seen with the merged `shape`: stride 0 along the
/// runs it repeats, its own row-major strides along those it keeps.
fn broadcast_view(shape: &[usize], kept: &[bool], view: &View) -> View {
    let mut strides = vec![0; shape.len()];
    let mut inside = 1;
    for (position, &size) in shape.iter().enumerate().rev() {
        if kept[position] {
            strides[position] = inside;
            inside *= size;
        }
    }
    View {
        shape: shape.to_vec(),
        strides,
        ..view.clone()
    }
}

/// The dsa dialect's predicate of a graph comparison.
fn predicate(predicate: GraphPredicate) -> ComparePredicate {
    match predicate {
        GraphPredicate::Eq => ComparePredicate::Eq,
        GraphPredicate::Ne => ComparePredicate::Ne,
        GraphPredicate::Lt => ComparePredicate::Lt,
        GraphPredicate::Le => ComparePredicate::Le,
        GraphPredicate::Gt => ComparePredicate::Gt,
        GraphPredicate::Ge => ComparePredicate::Ge,
    }
}
