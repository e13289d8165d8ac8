//! A layer of elementwise ops alone (no anchor): the output is tiled row-major, every operand's
//! tile is loaded, the steps run on the vector units, the tile is stored.

use super::{
    emit::reshaped,
    emit::{divisors_descending, Body, Tensor},
    epilogue::Epilogue,
    error::LoweringError,
    kernel::{Kernel, Store},
    layers::{Layer, Scope},
    layers::{Operand, Step},
};
use crate::graph_view::ValueId;
use std::collections::BTreeMap;

/// Merges adjacent dimensions on which every operand either spans the output or broadcasts
/// (size 1) on both: the same elements with fewer, longer dimensions. Returns, for the output and
/// each operand, the merged shape. Fewer dimensions mean longer DMA rows, fewer tile loops, and
/// tensors of rank above 4 (beyond one DMA view) become expressible.
pub fn coalesce(output: &[usize], operands: &[Vec<usize>]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let rank = output.len();
    let aligned: Vec<Vec<usize>> = operands
        .iter()
        .map(|shape| {
            let mut padded = vec![1; rank - shape.len()];
            padded.extend(shape);
            padded
        })
        .collect();
    // Groups of output dimensions, innermost group last.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for d in 0..rank {
        let joins = groups.last().is_some_and(|group: &Vec<usize>| {
            // A dimension of size 1 merges with anything; otherwise it is compared with the
            // group's last dimension of another size (on a size-1 dimension an operand is both
            // full and broadcast, which would let a broadcast and a full dimension merge).
            if output[d] == 1 {
                return true;
            }
            let Some(&previous) = group.iter().rev().find(|&&p| output[p] != 1) else {
                return true;
            };
            aligned.iter().all(|shape| {
                let full = |dim: usize| shape[dim] == output[dim];
                let broadcast = |dim: usize| shape[dim] == 1;
                (full(previous) && full(d)) || (broadcast(previous) && broadcast(d))
            })
        });
        if joins {
            groups.last_mut().expect("checked").push(d);
        } else {
            groups.push(vec![d]);
        }
    }
    let merge = |shape: &[usize]| -> Vec<usize> {
        groups
            .iter()
            .map(|group| group.iter().map(|&d| shape[d]).product())
            .collect()
    };
    (
        merge(output),
        aligned.iter().map(|shape| merge(shape)).collect(),
    )
}

/// The tile of `shape` whose dimensions before `k` are 1, dimension `k` a divisor, and the rest
/// whole, largest first, for which `fits` holds.
pub fn row_major_tile(shape: &[usize], fits: impl Fn(&[usize]) -> bool) -> Option<Vec<usize>> {
    for k in 0..shape.len() {
        for size in divisors_descending(shape[k]) {
            let mut tile = vec![1; shape.len()];
            tile[k] = size;
            tile[k + 1..].copy_from_slice(&shape[k + 1..]);
            if fits(&tile) {
                return Some(tile);
            }
        }
    }
    None
}

/// The external operands of `steps` (read or written), each once, in the order the steps meet
/// them.
fn external_values(steps: &[Step]) -> Vec<usize> {
    let mut externals: Vec<usize> = Vec::new();
    for step in steps {
        for operand in step.operands.iter().chain([&step.target]) {
            if let Operand::External(value) = operand {
                if !externals.contains(value) {
                    externals.push(*value);
                }
            }
        }
    }
    externals
}

/// The shape `layer` is computed with, its dimensions that every operand steps through alike
/// merged ([`coalesce`]), with the scope's tensors and the layer's output seen so (host-side
/// views).
fn merged_operands(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
) -> (Vec<usize>, BTreeMap<ValueId, Tensor>, Tensor) {
    let externals = external_values(&layer.steps);
    let shapes: Vec<Vec<usize>> = externals
        .iter()
        .map(|value| scope.tensor(*value).view.shape.clone())
        .collect();
    let (shape, merged) = coalesce(&layer.output.view.shape, &shapes);
    let mut tensors = scope.tensors.clone();
    for (value, merged_shape) in externals.iter().zip(&merged) {
        if *merged_shape != tensors[value].view.shape {
            let view = reshaped(host, &tensors[value], merged_shape);
            tensors.insert(*value, view);
        }
    }
    let output = if shape != layer.output.view.shape {
        reshaped(host, &layer.output, &shape)
    } else {
        layer.output.clone()
    };
    (shape, tensors, output)
}

/// Lowers an elementwise layer.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let (shape, tensors, output) = merged_operands(scope, host, layer);
    if shape.len() > 4 {
        return Err(LoweringError::at(
            layer.index,
            format!(
                "'{}' on rank-{} tensors that do not merge to rank 4 is not supported (DMA views \
                 have at most 4 dimensions)",
                layer.node.name,
                shape.len()
            ),
        ));
    }
    let scope = Scope {
        machine: scope.machine,
        tensors: &tensors,
    };
    let shapes = scope.external_shapes(&layer.steps);
    let budget = scope.machine.lb_elements();
    let tile = row_major_tile(&shape, |tile| {
        let epilogue = Epilogue::lb_elements(&layer.steps, &shapes, tile);
        tile.iter().product::<usize>() + epilogue <= budget
    })
    .ok_or_else(|| {
        LoweringError::at(
            layer.index,
            format!(
                "'{}' does not fit the local buffer of target '{}' ({} bytes) even one element \
                 at a time",
                layer.node.name, scope.machine.name, scope.machine.lb_bytes
            ),
        )
    })?;
    let keep: Vec<usize> = (0..shape.len()).collect();
    let epilogue = kernel.epilogue(&layer.steps, scope.tensors, &tile, &keep);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&tile);
    let output_view = output.view.clone();
    let output = kernel.argument(output.host, &output.view);
    let counts: Vec<usize> = shape
        .iter()
        .zip(&tile)
        .map(|(dim, size)| dim / size)
        .collect();
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let offsets = kernel.tile_offsets(index, &counts, &tile);
    kernel.store_tile(
        &epilogue,
        (accumulator, &accumulator_view),
        &[Store::whole(output, &output_view)],
        &offsets,
        &tile,
        &keep,
    );
    Ok(kernel)
}
