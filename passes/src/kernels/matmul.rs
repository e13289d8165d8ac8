//! A matrix-product layer (`matmul`, `batch_matmul`, `gemm`): output tiles of `[Mt, Nt]` per
//! batch index, the K dimension in chunks accumulated on the matrix engine, the epilogue on the
//! tile, one store. Transposed operands (`gemm`'s `trans_a`/`trans_b`) are strided views: the DMA
//! gathers them, no transpose kernel runs.

use super::{
    emit::{divisors_descending, Body},
    emit::{Space, Tensor, View},
    epilogue::without_preloaded_addend,
    epilogue::Epilogue,
    error::LoweringError,
    kernel::Kernel,
    layers::{Elementwise, Operand, Step},
    layers::{Layer, Scope, Viewed},
    ports::{load_cycles, Candidates, Estimate, PortCycles, SpaceElements},
};
use crate::target::Machine;
use crate::tuning::Decision;
use crate::{
    graph_view::{Node, ValueId},
    ir::Val,
};
use std::collections::BTreeMap;
use turbine_dialects::attributes::dsa::{BinaryKind, UnaryKind};
use turbine_dialects::ops::graph;

/// A matrix-product layer's epilogue and tile `[Mt, Nt, Kt]`, decided without emitting anything.
struct Plan {
    steps: Vec<Step>,
    tile: [usize; 3],
    /// Whether the K chunks run as a software pipeline through double buffers.
    pipelined: bool,
    /// The product's `[M, N, K]`.
    dims: [usize; 3],
    /// The tile's estimated cycles.
    cost: Estimate,
    /// The residual each tile's accumulator starts from ([`without_preloaded_addend`]); its
    /// addition is not among `steps`.
    preload: Option<ValueId>,
    /// How the tiling was chosen.
    decision: Decision,
}

/// The shape of operand `position` of `node` as the product reads it (`gemm`'s transposes).
pub(crate) fn operand_shape<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    position: usize,
) -> Vec<usize> {
    let mut shape = scope.view(node.operands[position]).shape.clone();
    let flag = if position == 0 { "trans_a" } else { "trans_b" };
    if node.is(graph::Kind::Gemm) && node.flag(flag) {
        shape.swap(0, 1);
    }
    shape
}

/// Chooses the tile of the product `node` with the fused elementwise `fused` after it, writing
/// a value of shape `out` (`index`: the anchor's position, for errors).
fn plan<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    index: usize,
) -> Result<Plan, LoweringError> {
    let lhs_shape = operand_shape(scope, node, 0);
    let rank = out.len();
    let (m, n) = (out[rank - 2], out[rank - 1]);
    let k = lhs_shape[lhs_shape.len() - 1];
    let batch: Vec<usize> = out[..rank - 2].to_vec();
    let batch_count: usize = batch.iter().product();
    if k == 0 {
        return Err(LoweringError::at(
            index,
            format!(
                "a '{}' over an empty reduction (K = 0: every product is 0) is not supported",
                node.name
            ),
        ));
    }
    let mut steps = gemm_steps(node);
    steps.extend(fused.iter().cloned());
    let shapes = scope.external_shapes(&steps);
    // Without the residual the accumulator starts from, as the conv's tiles do.
    let (tile_steps, preload) = without_preloaded_addend(&steps, &shapes, out);
    // Where each operand lives: the epilogue's operands each where it is (as the conv's
    // estimate prices them), the output where it is written (where the lhs lives when that is
    // not known).
    let [lhs_space, rhs_space] = [0, 1].map(|p| scope.view(node.operands[p]).space);
    let out_space = out_space.unwrap_or(lhs_space);
    let search = Search {
        scope,
        steps: &steps,
        tile_steps: &tile_steps,
        shapes: &shapes,
        dims: [m, n, k],
        rank,
        batch_count,
        spaces: [lhs_space, rhs_space, out_space],
    };
    match search
        .candidates()
        .pick(&scope.machine.tuning, || search.key())
    {
        Some((cost, (tile, pipelined), decision)) => Ok(Plan {
            steps: tile_steps,
            tile,
            pipelined,
            dims: [m, n, k],
            cost,
            preload,
            decision,
        }),
        None => Err(LoweringError::at(
            index,
            format!(
                "'{}' does not fit the local buffer of target '{}' ({} bytes) with any tile",
                node.name, scope.machine.name, scope.machine.lb_bytes
            ),
        )),
    }
}

/// The epilogue steps a `gemm` adds before the fused ones: `alpha` scaling the product, and
/// `beta` scaling the addend `C` added to it; none for another product.
pub(crate) fn gemm_steps(node: &Node) -> Vec<Step> {
    let mut steps = Vec::new();
    if !node.is(graph::Kind::Gemm) {
        return steps;
    }
    let alpha = node.float("alpha");
    if alpha != 1.0 {
        steps.push(Step::chained(
            Elementwise::Unary {
                kind: UnaryKind::Affine,
                bounds: None,
                affine: Some((alpha, 0.0)),
            },
            vec![Operand::Chain],
            node.op.location(),
        ));
    }
    if let Some(&c) = node.operands.get(2) {
        let beta = node.float("beta");
        if beta != 1.0 {
            let term = Operand::External(c);
            steps.push(Step {
                op: Elementwise::Unary {
                    kind: UnaryKind::Affine,
                    bounds: None,
                    affine: Some((beta, 0.0)),
                },
                operands: vec![term],
                target: term,
                location: node.op.location(),
            });
        }
        steps.push(Step::chained(
            Elementwise::Binary {
                kind: BinaryKind::Add,
            },
            vec![Operand::Chain, Operand::External(c)],
            node.op.location(),
        ));
    }
    steps
}

/// What the tile search of a product reads: its epilogue, its dimensions and where its operands
/// live.
struct Search<'s, T> {
    scope: &'s Scope<'s, T>,
    /// The epilogue's steps, and those the tiles run (without a preloaded residual's addition).
    steps: &'s [Step],
    tile_steps: &'s [Step],
    /// The shapes of the epilogue's external operands.
    shapes: &'s BTreeMap<ValueId, Vec<usize>>,
    /// The product's `[M, N, K]`.
    dims: [usize; 3],
    /// The output's rank.
    rank: usize,
    /// Products in the batch.
    batch_count: usize,
    /// Where the lhs, the rhs and the output live.
    spaces: [Space; 3],
}

impl<T: Viewed> Search<'_, T> {
    /// The layer's tuning key: what the search reads.
    fn key(&self) -> String {
        format!(
            "product mnk={:?} batch={} rank={} spaces={:?} epilogue={} pipeline={}",
            self.dims,
            self.batch_count,
            self.rank,
            self.spaces,
            Epilogue::key(self.steps, self.shapes, |value| self
                .scope
                .view(value)
                .space),
            self.scope.machine.pipeline
        )
    }

    /// Every tile `[Mt, Nt, Kt]` that fits the LB, and whether its chunks are pipelined, with
    /// its estimate, in the order the search meets them (which [`Candidates::pick`] breaks full
    /// ties by).
    fn candidates(&self) -> Candidates<([usize; 3], bool)> {
        let [m, n, k] = self.dims;
        let (scope, rank) = (self.scope, self.rank);
        let budget = scope.machine.lb_elements();
        let mut candidates = Candidates::new();
        for mt in divisors_descending(m) {
            for nt in divisors_descending(n) {
                let mut tile = vec![1; rank];
                tile[rank - 2] = mt;
                tile[rank - 1] = nt;
                let epilogue =
                    Epilogue::elements_by_space(self.steps, self.shapes, &tile, |value| {
                        scope.view(value).space
                    });
                let epilogue_lb = Epilogue::lb_elements(self.tile_steps, self.shapes, &tile);
                for (kt, pipelined) in divisors_descending(k)
                    .into_iter()
                    .flat_map(|kt| [(kt, false), (kt, true)])
                {
                    let chunks = k / kt;
                    let pipelined = pipelined && chunks > 1;
                    if pipelined && !scope.machine.pipeline {
                        continue;
                    }
                    let streamed = (mt * kt + kt * nt) * (1 + usize::from(pipelined));
                    if streamed + mt * nt + epilogue_lb > budget {
                        continue;
                    }
                    candidates.push(
                        self.estimate([mt, nt, kt], pipelined, &epilogue),
                        ([mt, nt, kt], pipelined),
                    );
                }
            }
        }
        candidates
    }

    /// The estimate of tiles `[mt, nt, kt]` (their chunks `pipelined` or not) whose epilogue
    /// loads `epilogue` elements per space: each tile's latency bounded by the bytes the tiles
    /// move over the shared ports ([`PortCycles`]).
    fn estimate(
        &self,
        [mt, nt, kt]: [usize; 3],
        pipelined: bool,
        epilogue: &SpaceElements,
    ) -> Estimate {
        let [m, n, k] = self.dims;
        let machine = self.scope.machine;
        let [lhs_space, rhs_space, out_space] = self.spaces;
        let [lhs_rate, rhs_rate, out_rate] = self.spaces.map(|space| space.link_bandwidth(machine));
        let chunks = k / kt;
        let tiles = self.batch_count * (m / mt) * (n / nt);
        // With K whole, the rhs tile stays in LB over the run of row tiles of its
        // column block (tiles are numbered column-block-major for that).
        let per_core_tiles = tiles.div_ceil(machine.cores) as f64;
        let rhs_loads = if k == kt {
            1.0 / ((m / mt) as f64).min(per_core_tiles)
        } else {
            1.0
        };
        let (lhs_bytes, rhs_bytes) = ((mt * kt * 4) as f64, (kt * nt * 4) as f64);
        let compute = machine.compute_setup + machine.matrix_cycles((2 * mt * nt * kt) as f64);
        let stored = (mt * nt * 4) as f64;
        let store = (1 + self.shapes.len()) as f64 * machine.dma_setup
            + stored / out_rate
            + load_cycles(epilogue, machine);
        let latency = if pipelined {
            // Chunk c + 1 loads while chunk c multiplies; the first load is exposed.
            let load = 2.0 * machine.dma_setup + lhs_bytes / lhs_rate + rhs_bytes / rhs_rate;
            load + (chunks - 1) as f64 * load.max(compute) + compute + store
        } else {
            let per_chunk = (1.0 + rhs_loads) * machine.dma_setup
                + lhs_bytes / lhs_rate
                + rhs_loads * rhs_bytes / rhs_rate
                + compute;
            chunks as f64 * per_chunk + store
        };
        let mut ports = PortCycles::default();
        ports.add(lhs_space, chunks as f64 * lhs_bytes, machine);
        ports.add_by_space(epilogue, machine);
        ports.add(out_space, stored, machine);
        ports.add(rhs_space, chunks as f64 * rhs_loads * rhs_bytes, machine);
        // A chunk's product and loads, the store and the epilogue's operand loads.
        let instructions = chunks as f64 * (2.0 + rhs_loads) + 1.0 + self.shapes.len() as f64;
        ports.bound(per_core_tiles, latency, instructions)
    }
}

/// The estimated cycles of the product `node` (fused with `fused`, writing `out`) with its
/// operands where `scope` says, if it fits the LB: what tells whether a copy of a weight closer
/// to the cores pays for itself.
pub fn estimate<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
) -> Option<Estimate> {
    plan(scope, node, fused, out, out_space, 0)
        .ok()
        .map(|plan| plan.cost)
}

/// Lowers a matrix-product layer.
pub fn lower(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let node = layer.node;
    let out = layer.output.view.shape.clone();
    let plan = plan(
        scope,
        node,
        &layer.steps,
        &out,
        Some(layer.output.view.space),
        layer.index,
    )?;
    kernel.tuned(&plan.decision, node, &scope.machine.tuning);
    let [mt, nt, kt] = plan.tile;
    let (lhs, rhs) = host_operands(scope, host, node);
    let rank = out.len();
    let mut tile = vec![1; rank];
    tile[rank - 2] = mt;
    tile[rank - 1] = nt;
    let keep = [rank - 2, rank - 1];
    let epilogue = kernel.epilogue(&plan.steps, scope.tensors, &tile, &keep);
    let residual = plan.preload.map(|value| {
        let tensor = &scope.tensors[&value];
        (
            kernel.argument(tensor.host, &tensor.view),
            tensor.view.clone(),
        )
    });
    let lhs_arg = kernel.argument(lhs.host, &lhs.view);
    let rhs_arg = kernel.argument(rhs.host, &rhs.view);
    let output_arg = kernel.argument(layer.output.host, &layer.output.view);
    let stores = kernel.output_stores((output_arg, &layer.output.view), layer.mirror.as_ref());
    // The operand tiles keep the operands' float type; the accumulator is f32.
    let (lhs_type, rhs_type) = (lhs.view.element, rhs.view.element);
    let (lhs_lb, _) = kernel.alloc_lb_tile(&[mt, kt], lhs_type);
    let (rhs_lb, _) = kernel.alloc_lb_tile(&[kt, nt], rhs_type);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&[mt, nt]);
    let second_halves = plan.pipelined.then(|| {
        [
            kernel.alloc_lb_tile(&[mt, kt], lhs_type).0,
            kernel.alloc_lb_tile(&[kt, nt], rhs_type).0,
        ]
    });
    let tiles = Tiles {
        plan: &plan,
        batch: &out[..rank - 2],
        lhs: (&lhs, lhs_arg),
        rhs: (&rhs, rhs_arg),
        buffers: [lhs_lb, rhs_lb],
        second_halves,
        accumulator,
        preload: residual.as_ref().map(|(argument, view)| (*argument, view)),
    };
    let offsets = tiles.emit(&mut kernel, scope.machine, &tile, &keep);
    kernel.store_tile(
        &epilogue,
        (accumulator, &accumulator_view),
        &stores,
        &offsets,
        &tile,
        &keep,
    );
    Ok(kernel)
}

/// The host-side views of the product `node`'s lhs and rhs as it reads them: `gemm`'s
/// transposed operands are transposed views.
fn host_operands(scope: &Scope, host: &mut Body, node: &Node) -> (Tensor, Tensor) {
    (
        host_operand(scope, host, node, 0),
        host_operand(scope, host, node, 1),
    )
}

/// The host-side view of operand `position` (0: lhs, 1: rhs) of the product `node` as it reads
/// it: a transposed view of a `gemm`'s transposed operand.
pub(crate) fn host_operand(scope: &Scope, host: &mut Body, node: &Node, position: usize) -> Tensor {
    let tensor = scope.tensor(node.operands[position]).clone();
    let flag = if position == 0 { "trans_a" } else { "trans_b" };
    if node.is(graph::Kind::Gemm) && node.flag(flag) {
        transposed(host, &tensor)
    } else {
        tensor
    }
}

/// The tile loop of a product layer: its operands (host tensor and kernel argument), LB buffers
/// and the residual its tiles start from.
struct Tiles<'a> {
    plan: &'a Plan,
    /// The output's batch dimensions.
    batch: &'a [usize],
    lhs: (&'a Tensor, Val),
    rhs: (&'a Tensor, Val),
    /// The lhs and rhs buffers of a chunk, and their second halves when pipelined.
    buffers: [Val; 2],
    second_halves: Option<[Val; 2]>,
    accumulator: Val,
    preload: Option<(Val, &'a View)>,
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
    fn emit(
        &self,
        kernel: &mut Kernel,
        machine: &Machine,
        tile: &[usize],
        keep: &[usize],
    ) -> Vec<Val> {
        let ([mt, nt, kt], [_, _, k]) = (self.plan.tile, self.plan.dims);
        let rank = self.batch.len() + 2;
        // Tiles are numbered batch, then column block, then row block: consecutive tiles of a
        // core share the rhs (weight) tile.
        let mut counts = self.batch.to_vec();
        counts.push(self.plan.dims[1] / nt);
        counts.push(self.plan.dims[0] / mt);
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
        let [mt, nt, kt] = self.tiles.plan.tile;
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

/// The host-side transposed view of a 2-D tensor (strides swapped, no copy).
fn transposed(host: &mut Body, tensor: &Tensor) -> Tensor {
    let view = tensor.view.permuted(&[1, 0]);
    let host_value = host.transpose(tensor.host, &view, &[1, 0]);
    Tensor {
        host: host_value,
        view,
    }
}
