//! Copies as one DMA takes them: views of at most [`MAX_RANK`] dimensions. The dimensions a copy's
//! two views step through alike merge, and a copy still of a higher rank is cut into copies of
//! that rank.

use crate::ir::Val;
use crate::kernels::emit::{restrided, Body, Tensor, View};

/// Views of rank above 4 are beyond what one DMA describes.
pub(crate) const MAX_RANK: usize = 4;

/// `pairs` as copies the DMA takes: the dimensions each pair's views step through alike merged
/// (see [`merge_dimensions`]), and a pair still above rank 4 cut into copies of rank 4, one per
/// index of its leading dimensions (a transpose of a rank-6 tensor whose permutation keeps no two
/// dimensions together); an error when that would take more than [`MAX_PIECES`] copies.
pub fn merged_pairs(
    host: &mut Body,
    pairs: &[(Tensor, Tensor)],
) -> Result<Vec<(Tensor, Tensor)>, String> {
    let mut merged = Vec::new();
    for pair in pairs.iter().cloned() {
        let (source, target) = merge_dimensions(host, pair);
        let shape = source.view.shape.clone();
        if shape.len() <= MAX_RANK {
            merged.push((source, target));
            continue;
        }
        let lead = shape.len() - MAX_RANK;
        let pieces: usize = shape[..lead].iter().product();
        if pieces > MAX_PIECES {
            return Err(format!(
                "a copy of rank {} (after merging dimensions) would be {pieces} copies of rank \
                 {MAX_RANK}; more than {MAX_PIECES} are not supported",
                shape.len()
            ));
        }
        let keep: Vec<usize> = (lead..shape.len()).collect();
        let sizes: Vec<usize> = shape
            .iter()
            .enumerate()
            .map(|(d, &size)| if d < lead { 1 } else { size })
            .collect();
        for piece in 0..pieces {
            let mut rest = piece;
            let mut index = vec![0; shape.len()];
            for d in (0..lead).rev() {
                index[d] = rest % shape[d];
                rest /= shape[d];
            }
            let offsets: Vec<Val> = index.iter().map(|&i| host.index(i)).collect();
            let (from, from_view) =
                host.subview(source.host, &source.view, &offsets, &sizes, Some(&keep));
            let (to, to_view) =
                host.subview(target.host, &target.view, &offsets, &sizes, Some(&keep));
            merged.push((
                Tensor {
                    host: from,
                    view: from_view,
                },
                Tensor {
                    host: to,
                    view: to_view,
                },
            ));
        }
    }
    Ok(merged)
}

/// The most rank-4 copies one copy of a higher rank is cut into (each is a tile loop of its own
/// in the kernel).
const MAX_PIECES: usize = 64;

/// A copy between views of rank above 4 seen with fewer dimensions: dimensions of size 1 go, and
/// adjacent dimensions that both views step through as one run (the outer stride is the inner
/// stride times the inner size, in each view) merge — a concatenation's or a pad's window of a
/// rank-6 tensor is a copy of 2 or 3 dimensions.
fn merge_dimensions(host: &mut Body, (source, target): (Tensor, Tensor)) -> (Tensor, Tensor) {
    let shape = source.view.shape.clone();
    if shape.len() <= MAX_RANK || source.view.elements() == 0 {
        return (source, target);
    }
    // (size, source stride, target stride) per merged dimension.
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    for (d, &size) in shape.iter().enumerate() {
        if size == 1 {
            continue;
        }
        let (from, to) = (source.view.strides[d], target.view.strides[d]);
        match runs.last_mut() {
            Some((run, outer_from, outer_to))
                if *outer_from == from * size && *outer_to == to * size =>
            {
                *run *= size;
                (*outer_from, *outer_to) = (from, to);
            }
            _ => runs.push((size, from, to)),
        }
    }
    if runs.is_empty() {
        runs.push((1, 1, 1));
    }
    let sizes: Vec<usize> = runs.iter().map(|run| run.0).collect();
    let seen = |host: &mut Body, tensor: &Tensor, strides: Vec<usize>| {
        let view = View {
            shape: sizes.clone(),
            strides,
            dynamic_offset: tensor.view.dynamic_offset,
            space: tensor.view.space,
            element: tensor.view.element,
        };
        restrided(host, tensor, &view)
    };
    let source = seen(host, &source, runs.iter().map(|run| run.1).collect());
    let target = seen(host, &target, runs.iter().map(|run| run.2).collect());
    (source, target)
}
