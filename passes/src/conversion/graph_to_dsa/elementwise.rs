//! A layer of elementwise ops alone (no anchor): the output is tiled row-major, every operand's
//! tile is loaded, the steps run on the vector units, the tile is stored.

use super::{
    host::{Layer, Scope},
    kernel::{Epilogue, Kernel},
    text::divisors_descending,
    LoweringError,
};

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

/// Lowers an elementwise layer.
pub fn lower(scope: &Scope, layer: &Layer, mut kernel: Kernel) -> Result<Kernel, LoweringError> {
    let shape = layer.output.view.shape.clone();
    let shapes = scope.external_shapes(&layer.steps);
    let budget = scope.machine.lb_elements();
    let tile = row_major_tile(&shape, |tile| {
        tile.iter().product::<usize>() + Epilogue::lb_elements(&layer.steps, &shapes, tile) <= budget
    })
    .ok_or_else(|| {
        LoweringError::at(
            layer.index,
            format!(
                "'{}' does not fit the local buffer of target '{}' ({} bytes) even one element at a time",
                layer.node.name, scope.machine.name, scope.machine.lb_bytes
            ),
        )
    })?;
    let keep: Vec<usize> = (0..shape.len()).collect();
    let epilogue = Epilogue::new(&mut kernel, &layer.steps, scope.tensors, &tile, &keep);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&tile);
    let output = kernel.argument(&layer.output.host, &layer.output.view);
    let counts: Vec<usize> = shape
        .iter()
        .zip(&tile)
        .map(|(dim, size)| dim / size)
        .collect();
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let coordinates = kernel.decode(&index, &counts);
    let body = &mut kernel.body;
    let offsets: Vec<String> = coordinates
        .iter()
        .zip(&tile)
        .map(|(c, &size)| body.scaled(c, size))
        .collect();
    let done = epilogue.emit(
        body,
        (&accumulator, &accumulator_view),
        &offsets,
        &tile,
        &keep,
        Vec::new(),
    );
    let (target, target_view) = body.subview(&output, &layer.output.view, &offsets, &tile, None);
    let stored = body.dma(
        (&accumulator, &accumulator_view),
        (&target, &target_view),
        &done,
    );
    kernel.end_tiles(&stored);
    Ok(kernel)
}
