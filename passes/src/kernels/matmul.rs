//! A matrix-product layer (`matmul`, `batch_matmul`, `gemm`): output tiles of `[Mt, Nt]` per
//! batch index, the K dimension in chunks accumulated on the matrix engine, the epilogue on the
//! tile, one store. Transposed operands (`gemm`'s `trans_a`/`trans_b`) are strided views: the DMA
//! gathers them, no transpose kernel runs.

use super::{
    emit::{divisors_descending, Body},
    emit::{Space, Tensor},
    epilogue::without_preloaded_addend,
    epilogue::Epilogue,
    error::LoweringError,
    kernel::Kernel,
    layers::{Elementwise, Operand, Step},
    layers::{Layer, Scope, Viewed},
    ports::{load_cycles, Candidates, Estimate, PortCycles},
};
use crate::{
    graph_view::{Node, ValueId},
    ir::Val,
};
use turbine_dialects::attributes::dsa::{BinaryKind, UnaryKind};

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
    /// The residual each tile's accumulator starts from ([`without_preloaded_addend`]); its addition
    /// is not among `steps`.
    preload: Option<ValueId>,
}

/// The shape of operand `position` of `node` as the product reads it (`gemm`'s transposes).
fn operand_shape<T: Viewed>(scope: &Scope<T>, node: &Node, position: usize) -> Vec<usize> {
    let mut shape = scope.view(node.operands[position]).shape.clone();
    let flag = if position == 0 { "trans_a" } else { "trans_b" };
    if node.name == "graph.gemm" && node.flag(flag) {
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
    let is_gemm = node.name == "graph.gemm";
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

    let mut steps = Vec::new();
    if is_gemm {
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
    }
    steps.extend(fused.iter().cloned());
    let shapes = scope.external_shapes(&steps);
    // Without the residual the accumulator starts from, as the conv's tiles do.
    let (tile_steps, preload) = without_preloaded_addend(&steps, &shapes, out);

    let budget = scope.machine.lb_elements();
    // Where each operand lives: the epilogue's operands each where it is (as the conv's
    // estimate prices them), the output where it is written (where the lhs lives when that is
    // not known).
    let [lhs_space, rhs_space] = [0, 1].map(|p| scope.view(node.operands[p]).space);
    let out_space = out_space.unwrap_or(lhs_space);
    let [lhs_rate, rhs_rate, out_rate] =
        [lhs_space, rhs_space, out_space].map(|space| space.link_bandwidth(scope.machine));
    // The cheapest tile by the estimate ([`Candidates::best`]).
    let mut candidates = Candidates::new();
    for mt in divisors_descending(m) {
        for nt in divisors_descending(n) {
            let mut tile = vec![1; rank];
            tile[rank - 2] = mt;
            tile[rank - 1] = nt;
            let epilogue = Epilogue::elements_by_space(&steps, &shapes, &tile, |value| {
                scope.view(value).space
            });
            let epilogue_lb = Epilogue::lb_elements(&tile_steps, &shapes, &tile);
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
                let tiles = batch_count * (m / mt) * (n / nt);
                // With K whole, the rhs tile stays in LB over the run of row tiles of its
                // column block (tiles are numbered column-block-major for that).
                let per_core_tiles = tiles.div_ceil(scope.machine.cores) as f64;
                let rhs_loads = if k == kt {
                    1.0 / ((m / mt) as f64).min(per_core_tiles)
                } else {
                    1.0
                };
                let (lhs_bytes, rhs_bytes) = ((mt * kt * 4) as f64, (kt * nt * 4) as f64);
                let compute = scope.machine.compute_setup
                    + scope.machine.matrix_cycles((2 * mt * nt * kt) as f64);
                let stored = (mt * nt * 4) as f64;
                let store = (1 + shapes.len()) as f64 * scope.machine.dma_setup
                    + stored / out_rate
                    + load_cycles(&epilogue, scope.machine);
                let latency = if pipelined {
                    // Chunk c + 1 loads while chunk c multiplies; the first load is exposed.
                    let load =
                        2.0 * scope.machine.dma_setup + lhs_bytes / lhs_rate + rhs_bytes / rhs_rate;
                    load + (chunks - 1) as f64 * load.max(compute) + compute + store
                } else {
                    let per_chunk = (1.0 + rhs_loads) * scope.machine.dma_setup
                        + lhs_bytes / lhs_rate
                        + rhs_loads * rhs_bytes / rhs_rate
                        + compute;
                    chunks as f64 * per_chunk + store
                };
                let mut ports = PortCycles::default();
                ports.add(lhs_space, chunks as f64 * lhs_bytes, scope.machine);
                ports.add_by_space(&epilogue, scope.machine);
                ports.add(out_space, stored, scope.machine);
                ports.add(
                    rhs_space,
                    chunks as f64 * rhs_loads * rhs_bytes,
                    scope.machine,
                );
                // A chunk's product and loads, the store and the epilogue's operand loads.
                let instructions = chunks as f64 * (2.0 + rhs_loads) + 1.0 + shapes.len() as f64;
                candidates.push(
                    ports.bound(per_core_tiles, latency, instructions),
                    ([mt, nt, kt], pipelined),
                );
            }
        }
    }
    match candidates.best() {
        Some((cost, (tile, pipelined))) => Ok(Plan {
            steps: tile_steps,
            tile,
            pipelined,
            dims: [m, n, k],
            cost,
            preload,
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
    let Plan {
        steps,
        tile: [mt, nt, kt],
        dims: [m, n, k],
        pipelined,
        preload,
        ..
    } = plan(
        scope,
        node,
        &layer.steps,
        &out,
        Some(layer.output.view.space),
        layer.index,
    )?;
    let is_gemm = node.name == "graph.gemm";
    let mut lhs = scope.tensor(node.operands[0]).clone();
    let mut rhs = scope.tensor(node.operands[1]).clone();
    if is_gemm && node.flag("trans_a") {
        lhs = transposed(host, &lhs);
    }
    if is_gemm && node.flag("trans_b") {
        rhs = transposed(host, &rhs);
    }
    let rank = out.len();
    let batch: Vec<usize> = out[..rank - 2].to_vec();

    let mut tile = vec![1; rank];
    tile[rank - 2] = mt;
    tile[rank - 1] = nt;
    let keep = [rank - 2, rank - 1];
    let epilogue = kernel.epilogue(&steps, scope.tensors, &tile, &keep);
    let residual = preload.map(|value| {
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
    let (lhs_lb, _) = kernel.alloc_lb(&[mt, kt]);
    let (rhs_lb, _) = kernel.alloc_lb(&[kt, nt]);
    let (accumulator, accumulator_view) = kernel.alloc_lb(&[mt, nt]);
    let second_halves =
        pipelined.then(|| [kernel.alloc_lb(&[mt, kt]).0, kernel.alloc_lb(&[kt, nt]).0]);

    // Tiles are numbered batch, then column block, then row block: consecutive tiles of a core
    // share the rhs (weight) tile.
    let mut counts = batch.clone();
    counts.push(n / nt);
    counts.push(m / mt);
    let index = kernel.begin_tiles(counts.iter().product(), scope.machine);
    let coordinates = kernel.decode(index, &counts);
    let body = &mut kernel.body;
    let row = body.scaled(coordinates[rank - 1], mt);
    let column = body.scaled(coordinates[rank - 2], nt);
    let zero = body.index(0);
    let batch_offsets = |operand: &Tensor| -> Vec<Val> {
        let operand_batch = operand.view.shape.len() - 2;
        let lead = batch.len() - operand_batch;
        (0..operand_batch)
            .map(|d| {
                if operand.view.shape[d] == 1 {
                    zero
                } else {
                    coordinates[d + lead]
                }
            })
            .collect()
    };
    let lhs_batch = batch_offsets(&lhs);
    let rhs_batch = batch_offsets(&rhs);
    let load = |body: &mut Body,
                operand: &Tensor,
                argument: Val,
                prefix: &[Val],
                offsets: [Val; 2],
                sizes: [usize; 2],
                target: Val| {
        let rank = operand.view.shape.len();
        let mut all_offsets = prefix.to_vec();
        all_offsets.extend(offsets);
        let mut all_sizes = vec![1; rank - 2];
        all_sizes.extend(sizes);
        let (source, _) = body.subview(
            argument,
            &operand.view,
            &all_offsets,
            &all_sizes,
            Some(&[rank - 2, rank - 1]),
        );
        body.dma(source, target, &[])
    };
    let resident = k == kt;
    if resident {
        // The rhs tile depends on the column block and the batch indices the rhs does not
        // broadcast over.
        let rhs_rank = rhs.view.shape.len();
        let lead = batch.len() - (rhs_rank - 2);
        let mut watched: Vec<usize> = (0..rhs_rank - 2)
            .filter(|&d| rhs.view.shape[d] != 1)
            .map(|d| d + lead)
            .collect();
        watched.push(rank - 2);
        let zero_depth = zero;
        kernel.load_when_changed(index, &counts, &coordinates, &watched, &mut |body| {
            load(
                body,
                &rhs,
                rhs_arg,
                &rhs_batch,
                [zero_depth, column],
                [kt, nt],
                rhs_lb,
            )
        });
    }
    let body = &mut kernel.body;
    let mut offsets: Vec<Val> = coordinates[..rank - 2].to_vec();
    offsets.push(row);
    offsets.push(column);
    // The residual the first chunk accumulates onto loads with the first chunk's operands.
    let preloaded = residual.as_ref().map(|(argument, view)| {
        let (source, _) = body.subview(*argument, view, &offsets, &tile, Some(&keep));
        body.dma(source, accumulator, &[])
    });
    let load_chunk = |body: &mut Body, chunk: Val, [lhs_buffer, rhs_buffer]: [Val; 2]| {
        let depth = body.scaled(chunk, kt);
        let mut waits = vec![load(
            body,
            &lhs,
            lhs_arg,
            &lhs_batch,
            [row, depth],
            [mt, kt],
            lhs_buffer,
        )];
        if !resident {
            waits.push(load(
                body,
                &rhs,
                rhs_arg,
                &rhs_batch,
                [depth, column],
                [kt, nt],
                rhs_buffer,
            ));
        }
        waits
    };
    let multiply =
        |body: &mut Body, [lhs_buffer, rhs_buffer]: [Val; 2], accumulate: bool, waits: &[Val]| {
            let mut waits = waits.to_vec();
            if !accumulate {
                waits.extend(preloaded);
            }
            body.matmul(
                lhs_buffer,
                rhs_buffer,
                accumulator,
                accumulate || preloaded.is_some(),
                &waits,
            )
        };
    match second_halves {
        None => body.chunks(k / kt, &mut |body, chunk, accumulate| {
            let waits = load_chunk(body, chunk, [lhs_lb, rhs_lb]);
            let token = multiply(body, [lhs_lb, rhs_lb], accumulate, &waits);
            body.wait(&[token]);
        }),
        Some(second) => body.pipelined_chunks(
            k / kt,
            [[lhs_lb, rhs_lb], second],
            &mut |body, chunk, half| load_chunk(body, chunk, half),
            &mut |body, half, accumulate, waits| multiply(body, half, accumulate, waits),
        ),
    }
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

/// The host-side transposed view of a 2-D tensor (strides swapped, no copy).
fn transposed(host: &mut Body, tensor: &Tensor) -> Tensor {
    let view = tensor.view.permuted(&[1, 0]);
    let host_value = host.transpose(tensor.host, &view, &[1, 0]);
    Tensor {
        host: host_value,
        view,
    }
}
