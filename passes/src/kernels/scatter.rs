//! Scatter layers (ONNX `ScatterElements`): a copy of the data into the output, then a DMA
//! scatter of the updates into it where the indices say, both on DMA channels and in DDR. The
//! updates are split over the cores in tiles that hold whole lines along the axis, so that two
//! updates landing on one element are always one core's, in the order the operator defines; each
//! core copies the window of the data its tile's updates can land on before it scatters into it.
//! An index outside the data fails the run with the runtime's error naming the layer.

use super::{
    elementwise::row_major_tile,
    emit::Tensor,
    error::LoweringError,
    kernel::Kernel,
    layers::{self, Layer, Scope},
    movement::MAX_RANK,
};
use turbine_dialects::attributes::{dsa::BinaryKind, graph::ScatterReduction};

/// Emits the scatter `layer` into `kernel`, writing `result`.
pub fn lower(
    scope: &Scope,
    layer: &Layer,
    result: &Tensor,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let (data, indices, updates) = (
        scope.tensor(node.operands[0]),
        scope.tensor(node.operands[1]),
        scope.tensor(node.operands[2]),
    );
    let shape = indices.view.shape.clone();
    if shape.len() > MAX_RANK {
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
    let spans = (0..shape.len()).all(|d| d == axis || shape[d] == data.view.shape[d]);
    let tile = if spans {
        tile(&shape, axis, scope.machine.cores)
    } else {
        shape.clone()
    };
    let counts: Vec<usize> = shape.iter().zip(&tile).map(|(size, t)| size / t).collect();
    let data_argument = kernel.argument(data.host, &data.view);
    let indices_argument = kernel.argument(indices.host, &indices.view);
    let updates_argument = kernel.argument(updates.host, &updates.view);
    let output_argument = kernel.argument(result.host, &result.view);
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let offsets = kernel.tile_offsets(index, &counts, &tile);
    let body = &mut kernel.body;
    // The part of the output the tile's updates can land on: the tile, whole along the axis.
    let mut window_offsets = offsets.clone();
    let mut window = tile.clone();
    window_offsets[axis] = body.index(0);
    window[axis] = data.view.shape[axis];
    let (target, _) = body.subview(
        output_argument,
        &result.view,
        &window_offsets,
        &window,
        None,
    );
    // What the tile copies first: that window when the windows partition the output, else (one
    // tile) all of the data.
    let copied = if spans {
        let (source, _) = body.subview(data_argument, &data.view, &window_offsets, &window, None);
        body.dma(source, target, &[])
    } else {
        let zeros = vec![body.index(0); shape.len()];
        let whole = &data.view.shape;
        let (source, _) = body.subview(data_argument, &data.view, &zeros, whole, None);
        let (output, _) = body.subview(output_argument, &result.view, &zeros, whole, None);
        body.dma(source, output, &[])
    };
    let (picked, _) = body.subview(indices_argument, &indices.view, &offsets, &tile, None);
    let (values, _) = body.subview(updates_argument, &updates.view, &offsets, &tile, None);
    let reduction = reduction(node.scatter_reduction());
    let scattered = body.scatter_elements((values, picked, target), axis, reduction, &[copied]);
    kernel.end_tiles(&[scattered]);
    Ok(kernel)
}

/// The tile of indices (of `shape`, spanning the data along every axis but `axis`) each core
/// scatters: whole along `axis`, the largest row-major one within a core's share of the
/// elements, else one line.
fn tile(shape: &[usize], axis: usize, cores: usize) -> Vec<usize> {
    let share = shape.iter().product::<usize>().div_ceil(cores).max(1);
    row_major_tile(shape, |tile| {
        tile[axis] == shape[axis] && tile.iter().product::<usize>() <= share
    })
    .unwrap_or_else(|| {
        let mut line = vec![1; shape.len()];
        line[axis] = shape[axis];
        line
    })
}

/// The dsa dialect's reduction of a graph scatter; none replaces.
fn reduction(reduction: ScatterReduction) -> Option<BinaryKind> {
    match reduction {
        ScatterReduction::None => None,
        ScatterReduction::Add => Some(BinaryKind::Add),
        ScatterReduction::Mul => Some(BinaryKind::Mul),
        ScatterReduction::Max => Some(BinaryKind::Max),
        ScatterReduction::Min => Some(BinaryKind::Min),
    }
}
