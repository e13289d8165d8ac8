//! The tile loop of a product layer: each tile's K chunks loaded and multiplied into its
//! accumulator, one after another or as a software pipeline, the rhs tile kept over a run of
//! row tiles when K is whole.

use crate::ir::Val;
use crate::kernels::{
    emit::{Body, Tensor, View},
    kernel::Kernel,
};
use crate::target::Machine;

/// The tile loop of a product layer: its operands (host tensor and kernel argument), LB buffers
/// and the residual its tiles start from.
pub(super) struct Tiles<'a> {
    /// The tile `[Mt, Nt, Kt]` and the product's `[M, N, K]`.
    pub(super) tile: [usize; 3],
    pub(super) dims: [usize; 3],
    /// The output's batch dimensions.
    pub(super) batch: &'a [usize],
    pub(super) lhs: (&'a Tensor, Val),
    pub(super) rhs: (&'a Tensor, Val),
    /// The lhs and rhs buffers of a chunk, and their second halves when pipelined.
    pub(super) buffers: [Val; 2],
    pub(super) second_halves: Option<[Val; 2]>,
    pub(super) accumulator: Val,
    pub(super) preload: Option<(Val, &'a View)>,
}

/// One operand of a product as a tile reads it: its view, kernel argument, and the running
/// tile's offsets along its batch dimensions.
struct Side<'a> {
    view: &'a View,
    argument: Val,
    batch: Vec<Val>,
}

impl Side<'_> {
    /// Loads the box of `sizes` at `offsets` of the operand's last two dimensions (at the
    /// running tile's batch offsets) into `target`; returns the DMA's token.
    fn load(&self, body: &mut Body, offsets: [Val; 2], sizes: [usize; 2], target: Val) -> Val {
        let rank = self.view.shape.len();
        let mut all_offsets = self.batch.clone();
        all_offsets.extend(offsets);
        let mut all_sizes = vec![1; rank - 2];
        all_sizes.extend(sizes);
        let (source, _) = body.subview(
            self.argument,
            self.view,
            &all_offsets,
            &all_sizes,
            Some(&[rank - 2, rank - 1]),
        );
        body.dma(source, target, &[])
    }
}

impl Tiles<'_> {
    /// Opens the tile loop in `kernel` (on `machine`'s cores) and emits each tile's chunks into
    /// the accumulator, a tile of `tile` keeping the output's `keep` dimensions; returns the
    /// tile's offsets in the output, where the caller stores it.
    pub(super) fn emit(
        &self,
        kernel: &mut Kernel,
        machine: &Machine,
        tile: &[usize],
        keep: &[usize],
    ) -> Vec<Val> {
        let ([mt, nt, kt], [_, _, k]) = (self.tile, self.dims);
        let rank = self.batch.len() + 2;
        // Tiles are numbered batch, then column block, then row block: consecutive tiles of a
        // core share the rhs (weight) tile.
        let mut counts = self.batch.to_vec();
        counts.push(self.dims[1] / nt);
        counts.push(self.dims[0] / mt);
        let index = kernel.begin_tiles(counts.iter().product(), machine);
        let coordinates = kernel.decode(index, &counts);
        let body = &mut kernel.body;
        let row = body.scaled(coordinates[rank - 1], mt);
        let column = body.scaled(coordinates[rank - 2], nt);
        let zero = body.index(0);
        let [lhs, rhs] = [self.lhs, self.rhs].map(|(tensor, argument)| Side {
            view: &tensor.view,
            argument,
            batch: self.batch_offsets(&tensor.view, &coordinates, zero),
        });
        let resident = k == kt;
        if resident {
            // The rhs tile depends on the column block and the batch indices the rhs does not
            // broadcast over.
            let rhs_rank = rhs.view.shape.len();
            let lead = self.batch.len() - (rhs_rank - 2);
            let mut watched: Vec<usize> = (0..rhs_rank - 2)
                .filter(|&d| rhs.view.shape[d] != 1)
                .map(|d| d + lead)
                .collect();
            watched.push(rank - 2);
            let rhs_lb = self.buffers[1];
            kernel.load_when_changed(index, &counts, &coordinates, &watched, &mut |body| {
                rhs.load(body, [zero, column], [kt, nt], rhs_lb)
            });
        }
        let body = &mut kernel.body;
        let mut offsets: Vec<Val> = coordinates[..rank - 2].to_vec();
        offsets.push(row);
        offsets.push(column);
        // The residual the first chunk accumulates onto loads with the first chunk's operands.
        let preloaded = self.preload.map(|(argument, view)| {
            let (source, _) = body.subview(argument, view, &offsets, tile, Some(keep));
            body.dma(source, self.accumulator, &[])
        });
        let chunk = Chunk {
            tiles: self,
            sides: [lhs, rhs],
            at: [row, column],
            resident,
            preloaded,
        };
        chunk.emit_all(body, k / kt);
        offsets
    }

    /// The offsets along the batch dimensions of an operand of view `view` for the tile at
    /// `coordinates`: 0 along those it broadcasts over.
    fn batch_offsets(&self, view: &View, coordinates: &[Val], zero: Val) -> Vec<Val> {
        let operand_batch = view.shape.len() - 2;
        let lead = self.batch.len() - operand_batch;
        (0..operand_batch)
            .map(|d| {
                if view.shape[d] == 1 {
                    zero
                } else {
                    coordinates[d + lead]
                }
            })
            .collect()
    }
}

/// The chunks of the running tile of a product.
struct Chunk<'a> {
    tiles: &'a Tiles<'a>,
    /// The lhs and the rhs as the tile reads them.
    sides: [Side<'a>; 2],
    /// The tile's first row and column.
    at: [Val; 2],
    /// Whether the rhs tile stays in LB over the tiles (K whole).
    resident: bool,
    /// The load of the residual the accumulator starts from.
    preloaded: Option<Val>,
}

impl Chunk<'_> {
    /// Emits the tile's `count` chunks: one after another, or pipelined through the second
    /// halves of the buffers.
    fn emit_all(&self, body: &mut Body, count: usize) {
        let buffers = self.tiles.buffers;
        match self.tiles.second_halves {
            None => body.chunks(count, &mut |body, chunk, accumulate| {
                let waits = self.load(body, chunk, buffers);
                let token = self.multiply(body, buffers, accumulate, &waits);
                body.wait(&[token]);
            }),
            Some(second) => body.pipelined_chunks(
                count,
                [buffers, second],
                &mut |body, chunk, half| self.load(body, chunk, half),
                &mut |body, half, accumulate, waits| self.multiply(body, half, accumulate, waits),
            ),
        }
    }

    /// Loads chunk `chunk`'s lhs and rhs slices into `buffers`; returns the tokens the product
    /// waits on (no rhs load when it stays in LB).
    fn load(&self, body: &mut Body, chunk: Val, [lhs_buffer, rhs_buffer]: [Val; 2]) -> Vec<Val> {
        let [mt, nt, kt] = self.tiles.tile;
        let [row, column] = self.at;
        let [lhs, rhs] = &self.sides;
        let depth = body.scaled(chunk, kt);
        let mut waits = vec![lhs.load(body, [row, depth], [mt, kt], lhs_buffer)];
        if !self.resident {
            waits.push(rhs.load(body, [depth, column], [kt, nt], rhs_buffer));
        }
        waits
    }

    /// Multiplies the chunk in `buffers` into the accumulator (accumulating onto the chunks
    /// before it, or onto the residual), after `waits` and, for the first chunk, the
    /// residual's load; returns its token.
    fn multiply(
        &self,
        body: &mut Body,
        [lhs_buffer, rhs_buffer]: [Val; 2],
        accumulate: bool,
        waits: &[Val],
    ) -> Val {
        let mut waits = waits.to_vec();
        if !accumulate {
            waits.extend(self.preloaded);
        }
        body.matmul(
            lhs_buffer,
            rhs_buffer,
            self.tiles.accumulator,
            accumulate || self.preloaded.is_some(),
            &waits,
        )
    }
}
