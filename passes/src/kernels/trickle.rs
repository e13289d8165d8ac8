//! Copies spread over the iterations of a layer's tile loop (GraphTurbo §4.4: the weights of
//! layer k + 1 promoted while layer k computes, interleaved with its instructions).
//!
//! A prefetch issued as one DMA per core before layer k's tiles reserves its port for the whole
//! copy: the runtime gives a transfer the earliest interval free for all of its time (the machine
//! serves one transfer at a time), so layer k's own loads from that port would wait behind it
//! and its cores idle as long as the copy takes, even where layer k leaves the port idle for
//! part of its run. Cut into pieces, one issued at every few tiles of each core, the copy takes
//! the port between layer k's own loads. Where a core has fewer tiles than pieces (a layer cut
//! along its channels computes a tile or two per core), the pieces go between the chunks of its
//! tiles instead: issued after the tile loop, they would move while the cores wait at the
//! layer's barrier.

use super::{
    emit::{reshaped, Body, Compare, Tensor},
    kernel::Kernel,
};
use crate::ir::{Op, Val};
use crate::kernels::emit::IndexOp;
use crate::kernels::emit::Logic;
use mlir_sys::*;
use turbine_dialects::ops::upstream;

/// Bytes of one piece: the order of a tile's own loads, so that a piece delays them by about one
/// load.
const PIECE_BYTES: usize = 16 * 1024;

/// The first `scf.for` after `start` in its block: the tile loop of the layer that begins there
/// (a layer whose tiles are inside another region has none there).
pub fn tile_loop_after(start: Op) -> Option<Op> {
    // SAFETY: `start` is alive in its block; the walk only reads handles, each to a live op of
    // that block.
    unsafe {
        let mut op = mlirOperationGetNextInBlock(start.raw());
        while !op.ptr.is_null() {
            let next = Op::from_raw(op);
            if next.is(upstream::Kind::ScfFor) {
                return Some(next);
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    None
}

/// Bytes of a copy that [`trickle_pairs`] spreads over the layer starting at `start` whose
/// busiest core runs `tiles` tiles, a piece per step of every core: the rest is issued after the
/// layer's tiles, while its cores wait at its barrier (a layer of few tiles a core whose chunks
/// are unrolled has few steps for many pieces).
pub fn spread_bytes(start: Op, tiles: usize, cores: usize) -> usize {
    let Some(tile_loop) = tile_loop_after(start) else {
        return 0;
    };
    let steps = tiles * chunk_loop(tile_loop).map_or(1, |(_, per_tile)| per_tile);
    steps * cores * PIECE_BYTES
}

/// Whether `pairs` can be trickled: each a contiguous source and target (a weight and its GB
/// copy), which pieces cut as runs of elements, of a size with a divisor near [`PIECE_BYTES`].
pub fn can_trickle(pairs: &[(Tensor, Tensor)]) -> bool {
    pairs.iter().all(|(source, target)| {
        source.view.is_contiguous()
            && target.view.is_contiguous()
            && source.view.elements() > 0
            && piece_elements(source.view.elements()).is_some()
    })
}

/// The loop over the chunks of a tile (a convolution's input channels, a product's reduction)
/// and its trip count: the first `scf.for` directly in `tile_loop`'s body with constant bounds,
/// which every tile runs alike. A layer whose share is a tile or two per core (a deep layer cut
/// along its channels) has its steps there.
fn chunk_loop(tile_loop: Op) -> Option<(Op, usize)> {
    tile_loop.body_ops().into_iter().find_map(|op| {
        let bounds = op.is(upstream::Kind::ScfFor).then(|| {
            (
                op.operand(0).integer_constant(),
                op.operand(1).integer_constant(),
            )
        });
        match bounds {
            Some((Some(low), Some(high))) => Some((op, high.saturating_sub(low).max(0) as usize)),
            _ => None,
        }
    })
}

/// Issues the copies `pairs` in pieces inside `tile_loop` (of `kernel`, whose values defined
/// before `start` the loop sees), not waited for: piece `q` of a copy goes to core `q mod cores`
/// of each cluster (`core` is the running core's index in it, [`Kernel::core_in_cluster`]),
/// which issues its pieces at evenly spaced steps of its share: its tiles, or each tile's chunks
/// when the tile loop has a [`chunk_loop`]; a core with fewer steps than pieces issues the rest
/// after the loop. The barrier ending the layer orders them before their readers.
pub fn trickle_pairs(
    host: &mut Body,
    pairs: &[(Tensor, Tensor)],
    mut kernel: Kernel,
    (core, cores): (Val, usize),
    start: Op,
    tile_loop: Op,
) -> Kernel {
    let location = kernel.body.location();
    let chunks = chunk_loop(tile_loop);
    let steps = Steps {
        low: tile_loop.operand(0),
        high: tile_loop.operand(1),
        induction: tile_loop.entry_argument(0),
        chunks: chunks
            .map(|(chunks, per_tile)| (chunks.operand(0), per_tile, chunks.entry_argument(0))),
        core,
        cores,
    };
    // SAFETY: the loops are live `scf.for`s (one block, ending in its yield); the tile loop is
    // followed by the layer's barrier at least. Both handles are to live ops of those blocks.
    let (first, after) = unsafe {
        let body = chunks.map_or(tile_loop, |(chunks, _)| chunks);
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(body.raw(), 0));
        (
            Op::from_raw(mlirBlockGetFirstOperation(block)),
            Op::from_raw(mlirOperationGetNextInBlock(tile_loop.raw())),
        )
    };
    for (source, target) in pairs {
        let elements = source.view.elements();
        let piece = piece_elements(elements).expect("checked by can_trickle");
        let pieces = elements / piece;
        let per_core = pieces.div_ceil(cores);
        let (source, target) = (
            reshaped(host, source, &[elements]),
            reshaped(host, target, &[elements]),
        );
        // Arguments (and views rebuilt in the kernel) go before the layer, where the loop sees
        // them.
        let here = std::mem::replace(&mut kernel.body, Body::before(start, location));
        let from = kernel.argument(source.host, &source.view);
        let to = kernel.argument(target.host, &target.view);
        let (core, piece_count, per_core) =
            (core, kernel.body.index(pieces), kernel.body.index(per_core));
        kernel.body = here;
        let copy = Piece {
            from: (from, &source),
            to: (to, &target),
            piece,
            core,
            cores,
            count: piece_count,
        };
        steps.issue_in_loop(&mut Body::before(first, location), &copy, per_core);
        steps.issue_after(&mut Body::before(after, location), &copy, per_core);
    }
    kernel
}

/// The steps of a core's share of a layer's tile loop, at which it issues its pieces: its
/// tiles, or each tile's chunks when the tile loop has a [`chunk_loop`].
#[derive(Clone, Copy)]
struct Steps {
    /// The tile loop's bounds (the core's share) and induction variable.
    low: Val,
    high: Val,
    induction: Val,
    /// The chunk loop's lower bound, trip count and induction variable.
    chunks: Option<(Val, usize, Val)>,
    /// The running core's index in its cluster, and the cores the pieces are dealt to.
    core: Val,
    cores: usize,
}

impl Steps {
    /// How many steps the share has: its tiles, times each tile's chunks when it has a chunk
    /// loop.
    fn count(&self, body: &mut Body) -> Val {
        let tiles = body.arith(IndexOp::Sub, self.high, self.low);
        match self.chunks {
            Some((_, per_tile, _)) => {
                let per_tile = body.index(per_tile);
                body.arith(IndexOp::Mul, tiles, per_tile)
            }
            None => tiles,
        }
    }

    /// The share's steps, the stride between a core's pieces and the step of its first piece,
    /// for `per_core` pieces a core.
    fn schedule(&self, body: &mut Body, per_core: Val) -> (Val, Val, Val) {
        let count = self.count(body);
        let stride = body.arith(IndexOp::DivU, count, per_core);
        let one = body.index(1);
        let stride = body.arith(IndexOp::MaxU, stride, one);
        let turns = body.arith(IndexOp::Mul, self.core, stride);
        let all = body.index(self.cores);
        let shift = body.arith(IndexOp::DivU, turns, all);
        (count, stride, shift)
    }

    /// Issues the piece of `copy` due at the running step, in the loop (`body` inserts at the
    /// start of the innermost loop's body).
    fn issue_in_loop(&self, body: &mut Body, copy: &Piece, per_core: Val) {
        // Step s of the share issues piece k = (s - shift) / stride when s - shift is a
        // multiple of stride = max(1, steps / per_core), from shift = core * stride / cores on:
        // the cores take turns instead of each issuing a piece at the same steps, which would
        // put a piece of every core on the port at once, ahead of the layer's own loads.
        let tile = body.arith(IndexOp::Sub, self.induction, self.low);
        // Step (tile - low) * chunks + (chunk - chunk low) with a chunk loop, else the tile's.
        let step = match self.chunks {
            Some((chunk_low, per_tile, chunk)) => {
                let per_tile = body.index(per_tile);
                let before = body.arith(IndexOp::Mul, tile, per_tile);
                let within = body.arith(IndexOp::Sub, chunk, chunk_low);
                body.arith(IndexOp::Add, before, within)
            }
            None => tile,
        };
        let (_, stride, shift) = self.schedule(body, per_core);
        let started = body.compare(Compare::Uge, step, shift);
        let since = body.arith(IndexOp::Sub, step, shift);
        let phase = body.arith(IndexOp::RemU, since, stride);
        let zero = body.index(0);
        let on_phase = body.compare(Compare::Eq, phase, zero);
        let due = body.logic(Logic::And, started, on_phase);
        let k = body.arith(IndexOp::DivU, since, stride);
        copy.emit(body, k, Some(due));
    }

    /// Issues, after the loop (`body` inserts there), the pieces of `copy` a short share had no
    /// step for, from the first the loop did not reach: ceil((steps - shift) / stride) when
    /// steps > shift.
    fn issue_after(&self, body: &mut Body, copy: &Piece, per_core: Val) {
        let (count, stride, shift) = self.schedule(body, per_core);
        let left = body.arith(IndexOp::Sub, count, shift);
        let reached = body.compare(Compare::Ult, shift, count);
        let zero = body.index(0);
        let left = body.select(reached, left, zero);
        let one = body.index(1);
        let rounded = body.arith(IndexOp::Add, left, stride);
        let rounded = body.arith(IndexOp::Sub, rounded, one);
        let issued = body.arith(IndexOp::DivU, rounded, stride);
        let k = body.open_for(issued, per_core, one);
        copy.emit(body, k, None);
        body.close();
    }
}

/// One copy cut into pieces of `piece` elements, `count` of them, dealt to `cores` cores.
struct Piece<'t> {
    from: (Val, &'t Tensor),
    to: (Val, &'t Tensor),
    piece: usize,
    core: Val,
    cores: usize,
    count: Val,
}

impl Piece<'_> {
    /// The running core's `k`-th piece, if the copy has it (and `due` holds).
    fn emit(&self, body: &mut Body, k: Val, due: Option<Val>) {
        let cores = body.index(self.cores);
        let q = body.arith(IndexOp::Mul, k, cores);
        let q = body.arith(IndexOp::Add, q, self.core);
        let mut condition = body.compare(Compare::Ult, q, self.count);
        if let Some(due) = due {
            condition = body.logic(Logic::And, condition, due);
        }
        body.open_if(condition);
        let size = body.index(self.piece);
        let offset = body.arith(IndexOp::Mul, q, size);
        let (from, _) = body.subview(
            self.from.0,
            &self.from.1.view,
            &[offset],
            &[self.piece],
            None,
        );
        let (to, _) = body.subview(self.to.0, &self.to.1.view, &[offset], &[self.piece], None);
        body.dma(from, to, &[]);
        body.close();
    }
}

/// The largest divisor of `elements` whose bytes are at most [`PIECE_BYTES`] (f32); none when it
/// is under a quarter of that for a larger copy, whose pieces would be too many to issue (a
/// copy of a prime number of elements would take one DMA per element).
fn piece_elements(elements: usize) -> Option<usize> {
    let most = PIECE_BYTES / 4;
    let piece = (1..=most.min(elements))
        .rev()
        .find(|size| elements.is_multiple_of(*size))?;
    (piece == elements || piece >= most / 4).then_some(piece)
}

#[cfg(test)]
mod tests {
    use super::piece_elements;

    #[test]
    fn pieces_divide_the_copy_or_refuse_it() {
        assert_eq!(piece_elements(2304), Some(2304));
        assert_eq!(piece_elements(512 * 512 * 9 / 4), Some(4096));
        assert_eq!(piece_elements(3 * 224 * 224), Some(3584));
        assert_eq!(piece_elements(1_000_003), None);
    }
}
