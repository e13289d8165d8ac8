//! The kernel of a fused chain (see the module above): one tile loop over row blocks; per block,
//! the first product's K0 chunks into a `Mt × N0` accumulator, the first epilogue on it, then a
//! loop over the second product's column blocks reading that accumulator as its lhs.

use super::plan::{Layers, Plan};
use crate::ir::Val;
use crate::kernels::{
    emit::{Body, Tensor, View},
    epilogue::Epilogue,
    error::LoweringError,
    kernel::{store_box, Kernel, Store},
    layers::Scope,
    matmul::host_operand,
};
use crate::target::Machine;

/// Lowers the chain `layers` tiled by `plan` into `kernel`, its result going to `output`; `index`
/// (the first product's position) names it in errors.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    (layers, plan): (&Layers, &Plan),
    output: &Tensor,
    index: usize,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let (first, second) = (layers.first.0, layers.second.0);
    kernel.tuned(&plan.decision, first, &scope.machine.tuning);
    let [mt, kt, nt] = plan.tile;
    let n0 = plan.dims.n0;
    let rank = plan.dims.batch.len() + 2;
    let keep = [rank - 2, rank - 1];
    let tile_of = |columns: usize| {
        let mut tile = vec![1; rank];
        tile[rank - 2] = mt;
        tile[rank - 1] = columns;
        tile
    };
    let (first_tile, second_tile) = (tile_of(n0), tile_of(nt));
    kernel.body.set_location(first.op.location());
    let lhs = host_operand(scope, host, first, 0);
    let w0 = host_operand(scope, host, first, 1);
    let w1 = host_operand(scope, host, second, 1);
    let operands = Operands {
        lhs: (kernel.argument(lhs.host, &lhs.view), lhs.view.clone()),
        w0: (kernel.argument(w0.host, &w0.view), w0.view.clone()),
        w1: (kernel.argument(w1.host, &w1.view), w1.view.clone()),
        output: (
            kernel.argument(output.host, &output.view),
            output.view.clone(),
        ),
    };
    let epilogues = [
        kernel.epilogue(&plan.steps[0], scope.tensors, &first_tile, &keep),
        kernel.epilogue(&plan.steps[1], scope.tensors, &second_tile, &keep),
    ];
    let doubled = 1 + usize::from(plan.pipelined);
    let streamed: Vec<[Val; 2]> = (0..doubled)
        .map(|_| [kernel.alloc_lb(&[mt, kt]).0, kernel.alloc_lb(&[kt, n0]).0])
        .collect();
    let block = kernel.alloc_lb(&[mt, n0]);
    let w1_tile = kernel.alloc_lb(&[n0, nt]).0;
    let accumulator = kernel.alloc_lb(&[mt, nt]);
    if kernel.lb_elements > scope.machine.lb_elements() {
        return Err(LoweringError::at(
            index,
            format!(
                "the chain of '{}' and '{}' does not fit the local buffer of target '{}'",
                first.name, second.name, scope.machine.name
            ),
        ));
    }
    let buffers = Buffers {
        streamed,
        block,
        w1_tile,
        accumulator,
    };
    let blocks = Blocks {
        plan,
        operands: &operands,
        buffers: &buffers,
        epilogues: &epilogues,
        keep: &keep,
        tiles: [first_tile, second_tile],
    };
    blocks.emit(&mut kernel, scope.machine, layers);
    Ok(kernel)
}

/// The kernel arguments of the chain's operands, with their views.
struct Operands {
    lhs: (Val, View),
    w0: (Val, View),
    w1: (Val, View),
    output: (Val, View),
}

/// The chain's LB buffers: the first product's lhs and W0 chunks (two pairs when pipelined), the
/// resident row block of D0, the W1 tile and the second product's accumulator.
struct Buffers {
    streamed: Vec<[Val; 2]>,
    block: (Val, View),
    w1_tile: Val,
    accumulator: (Val, View),
}

/// The tile loop of a chain over its row blocks.
struct Blocks<'a> {
    plan: &'a Plan,
    operands: &'a Operands,
    buffers: &'a Buffers,
    epilogues: &'a [Epilogue; 2],
    keep: &'a [usize],
    /// The output tiles of the two epilogues: `Mt × N0` and `Mt × Nt`.
    tiles: [Vec<usize>; 2],
}

impl Blocks<'_> {
    /// Opens the loop over the row blocks (batch indices, then blocks of rows) on `machine`'s
    /// cores and emits each block.
    fn emit(&self, kernel: &mut Kernel, machine: &Machine, layers: &Layers) {
        let [mt, kt, nt] = self.plan.tile;
        let dims = &self.plan.dims;
        let mut counts = dims.batch.clone();
        counts.push(dims.m / mt);
        let index = kernel.begin_tiles(counts.iter().product(), machine);
        let coordinates = kernel.decode(index, &counts);
        let rank = counts.len() + 1;
        let zero = kernel.body.index(0);
        let row = kernel.body.scaled(coordinates[rank - 2], mt);
        let mut at: Vec<Val> = coordinates[..rank - 2].to_vec();
        at.push(row);
        // A weight loaded whole stays in the LB over the core's row blocks: loaded at its first.
        if kt == dims.k0 {
            let (w0, _) = self.operands.w0;
            let target = self.buffers.streamed[0][1];
            kernel.load_when_changed(index, &counts, &coordinates, &[], &mut |body| {
                body.dma(w0, target, &[])
            });
        }
        if nt == dims.n1 {
            let (w1, _) = self.operands.w1;
            let target = self.buffers.w1_tile;
            kernel.load_when_changed(index, &counts, &coordinates, &[], &mut |body| {
                body.dma(w1, target, &[])
            });
        }
        let body = &mut kernel.body;
        body.set_location(layers.first.0.op.location());
        self.first_product(body, &at, zero);
        let mut offsets = at.clone();
        offsets.push(zero);
        let (block, block_view) = &self.buffers.block;
        let done = self.epilogues[0].emit(
            body,
            (*block, block_view),
            &offsets,
            &self.tiles[0],
            self.keep,
            Vec::new(),
        );
        body.wait(&done);
        body.set_location(layers.second.0.op.location());
        self.second_product(body, &at);
        // Every column block waited for its store.
        kernel.close_tiles();
    }

    /// The first product's K0 chunks of the block at row offsets `at` into the block buffer.
    fn first_product(&self, body: &mut Body, at: &[Val], zero: Val) {
        let [mt, kt, _] = self.plan.tile;
        let (dims, buffers) = (&self.plan.dims, self.buffers);
        let resident = kt == dims.k0;
        let mut load = |body: &mut Body, chunk: Val, [lhs_buffer, w0_buffer]: [Val; 2]| {
            let depth = body.scaled(chunk, kt);
            let (lhs, lhs_view) = &self.operands.lhs;
            let mut offsets = at.to_vec();
            offsets.push(depth);
            let mut sizes = vec![1; at.len() - 1];
            sizes.extend([mt, kt]);
            let rank = sizes.len();
            let (source, _) = body.subview(
                *lhs,
                lhs_view,
                &offsets,
                &sizes,
                Some(&[rank - 2, rank - 1]),
            );
            let mut tokens = vec![body.dma(source, lhs_buffer, &[])];
            if !resident {
                let (w0, w0_view) = &self.operands.w0;
                let (rows, _) = body.subview(*w0, w0_view, &[depth, zero], &[kt, dims.n0], None);
                tokens.push(body.dma(rows, w0_buffer, &[]));
            }
            tokens
        };
        let block = buffers.block.0;
        let mut multiply =
            |body: &mut Body, [lhs, w0]: [Val; 2], accumulate: bool, waits: &[Val]| {
                body.matmul(lhs, w0, block, accumulate, waits)
            };
        let chunks = dims.k0 / kt;
        if self.plan.pipelined {
            let halves = [buffers.streamed[0], buffers.streamed[1]];
            body.pipelined_chunks(chunks, halves, &mut load, &mut multiply);
        } else {
            body.chunks(chunks, &mut |body, chunk, accumulate| {
                let waits = load(body, chunk, buffers.streamed[0]);
                let token = multiply(body, buffers.streamed[0], accumulate, &waits);
                body.wait(&[token]);
            });
        }
    }

    /// The second product's column blocks of the block at row offsets `at`: each loads its W1
    /// tile (unless W1 stays whole), multiplies the block by it, runs the second epilogue and
    /// stores its tile.
    fn second_product(&self, body: &mut Body, at: &[Val]) {
        let [_, _, nt] = self.plan.tile;
        let dims = &self.plan.dims;
        let buffers = self.buffers;
        let resident = nt == dims.n1;
        let (accumulator, accumulator_view) = &buffers.accumulator;
        body.chunks(dims.n1 / nt, &mut |body, column_block, _| {
            let column = body.scaled(column_block, nt);
            let mut waits = Vec::new();
            if !resident {
                let (w1, w1_view) = &self.operands.w1;
                let zero = body.index(0);
                let (columns, _) =
                    body.subview(*w1, w1_view, &[zero, column], &[dims.n0, nt], None);
                waits.push(body.dma(columns, buffers.w1_tile, &[]));
            }
            let product = body.matmul(
                buffers.block.0,
                buffers.w1_tile,
                *accumulator,
                false,
                &waits,
            );
            let mut offsets = at.to_vec();
            offsets.push(column);
            let done = self.epilogues[1].emit(
                body,
                (*accumulator, accumulator_view),
                &offsets,
                &self.tiles[1],
                self.keep,
                vec![product],
            );
            let (output, output_view) = &self.operands.output;
            let stored = store_box(
                body,
                (*accumulator, accumulator_view),
                &[Store::whole(*output, output_view)],
                &offsets,
                &self.tiles[1],
                self.keep,
                &done,
            );
            body.wait(&stored);
        });
    }
}
