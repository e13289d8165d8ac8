//! Where a layer's tiles go: the stores of a tile into the output and the places the layer
//! writes it too, and the loads fenced under a condition.

use crate::ir::Val;
use crate::kernels::emit::IndexOp;
use crate::kernels::emit::{Body, View};

/// A tensor a layer's tiles are stored into: its kernel argument and view, and the step at which
/// a tile's rows and columns (the last two dimensions) are picked: 1 for the output itself (and a
/// copy of it kept in the GB), above for a stepped slice of it that the layer stores too (a
/// strided 1×1 projection's input, picked in the LB, which costs no port its skipped elements).
#[derive(Clone, Copy)]
pub struct Store<'v> {
    pub target: Val,
    pub view: &'v View,
    pub steps: [usize; 2],
}

impl<'v> Store<'v> {
    /// A store of whole tiles into `target`.
    pub fn whole(target: Val, view: &'v View) -> Self {
        Self {
            target,
            view,
            steps: [1, 1],
        }
    }
}

/// Stores the tile `accumulator` (of `sizes` at `offsets`, its `keep` dimensions) into the box of
/// each of `stores`, after `done`; returns the stores' tokens. A stepped store takes every
/// step-th row and column of the tile, whose offsets along them are multiples of the steps.
pub fn store_box(
    body: &mut Body,
    accumulator: (Val, &View),
    stores: &[Store],
    offsets: &[Val],
    sizes: &[usize],
    keep: &[usize],
    done: &[Val],
) -> Vec<Val> {
    stores
        .iter()
        .map(|store| {
            if store.steps == [1, 1] {
                let (target, _) =
                    body.subview(store.target, store.view, offsets, sizes, Some(keep));
                return body.dma(accumulator.0, target, done);
            }
            let rank = sizes.len();
            let mut steps = vec![1; rank];
            steps[rank - 2..].copy_from_slice(&store.steps);
            let picked: Vec<usize> = sizes
                .iter()
                .zip(&steps)
                .map(|(size, step)| size.div_ceil(*step))
                .collect();
            let zero = body.index(0);
            let (source, _) = body.subview_strided(
                accumulator.0,
                accumulator.1,
                &vec![zero; rank],
                &picked,
                &steps,
            );
            let at: Vec<Val> = offsets
                .iter()
                .zip(&steps)
                .map(|(&offset, &step)| {
                    if step == 1 {
                        return offset;
                    }
                    let step = body.index(step);
                    body.arith(IndexOp::DivU, offset, step)
                })
                .collect();
            let (target, _) = body.subview(store.target, store.view, &at, &picked, Some(keep));
            body.dma(source, target, done)
        })
        .collect()
}

/// Emits `load` under `scf.if condition` and fences it there, so later instructions find its
/// data whichever way the condition went.
pub fn guarded_load(body: &mut Body, condition: Val, load: &mut dyn FnMut(&mut Body) -> Val) {
    body.open_if(condition);
    let token = load(body);
    body.wait(&[token]);
    body.close();
}
