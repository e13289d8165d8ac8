//! A matrix-product layer (`matmul`, `batch_matmul`, `gemm`): output tiles of `[Mt, Nt]` per
//! batch index, the K dimension in chunks accumulated on the matrix engine, the epilogue on the
//! tile, one store. Transposed operands (`gemm`'s `trans_a`/`trans_b`) are strided views: the DMA
//! gathers them, no transpose kernel runs.

mod tiles;

use super::{
    emit::{divisors_descending, Body},
    emit::{Space, Tensor},
    epilogue::without_preloaded_addend,
    epilogue::Epilogue,
    error::LoweringError,
    kernel::Kernel,
    layers::{Elementwise, Operand, Step},
    layers::{Layer, Scope, Viewed},
    ports::{load_cycles, Candidates, Estimate, PortCycles, SpaceElements},
};
use crate::graph_view::{Node, ValueId};
use crate::tuning::Decision;
use std::collections::BTreeMap;
use tiles::Tiles;
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
    let [lhs, rhs] = [0, 1].map(|position| host_operand(scope, host, node, position));
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
        tile: plan.tile,
        dims: plan.dims,
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

/// The host-side transposed view of a 2-D tensor (strides swapped, no copy).
fn transposed(host: &mut Body, tensor: &Tensor) -> Tensor {
    let view = tensor.view.permuted(&[1, 0]);
    let host_value = host.transpose(tensor.host, &view, &[1, 0]);
    Tensor {
        host: host_value,
        view,
    }
}
