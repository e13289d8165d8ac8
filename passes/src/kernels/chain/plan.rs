//! The tiling of a product chain: the row block kept in the LB, the first product's K0 chunk and
//! the second's column block, the best that fits the LB by the estimate (the residency
//! condition of BOLT §3.1 is the LB's capacity).

use crate::graph_view::{Node, ValueId};
use crate::kernels::{
    emit::{divisors_descending, Space},
    epilogue::Epilogue,
    layers::{Scope, Step, Viewed},
    matmul::{gemm_steps, operand_shape},
    ports::{load_cycles, Candidates, Estimate, PortCycles, SpaceElements},
};
use crate::tuning::Decision;
use std::collections::BTreeMap;

/// A chain's dimensions: the batch dimensions of both outputs, M (rows per batch index), K0 (the
/// first product's reduction), N0 (D0's columns, the second's reduction) and N1.
#[derive(Debug, Clone, PartialEq)]
pub struct Dims {
    pub batch: Vec<usize>,
    pub m: usize,
    pub k0: usize,
    pub n0: usize,
    pub n1: usize,
}

/// A chain's tiling: `Mt` rows per block, the first product's K0 chunk and the second's column
/// block, whether the first's chunks run as a software pipeline, and the estimate.
#[derive(Debug, Clone)]
pub struct Plan {
    pub dims: Dims,
    /// `[Mt, Kt, Nt]`.
    pub tile: [usize; 3],
    pub pipelined: bool,
    pub cost: Estimate,
    /// Each product's epilogue steps, a `gemm`'s own (alpha, beta and C) first.
    pub steps: [Vec<Step>; 2],
    /// How the tiling was chosen.
    pub decision: Decision,
}

/// The two layers of a chain as the planner reads them: each product with the elementwise
/// steps fused after it.
pub struct Layers<'a> {
    pub first: (&'a Node, &'a [Step]),
    pub second: (&'a Node, &'a [Step]),
}

/// The best tiling of the chain `layers` whose result goes to `out_space`, with its operands
/// where `scope` says: the one of lowest estimate among those whose buffers fit the LB together
/// (the residency condition of BOLT §3.1); None when none does.
pub fn plan<T: Viewed>(scope: &Scope<T>, layers: &Layers, out_space: Space) -> Option<Plan> {
    let (first, second) = (layers.first.0, layers.second.0);
    let lhs = operand_shape(scope, first, 0);
    let [w0, w1] = [first, second].map(|node| operand_shape(scope, node, 1));
    let rank = lhs.len();
    let dims = Dims {
        batch: lhs[..rank - 2].to_vec(),
        m: lhs[rank - 2],
        k0: lhs[rank - 1],
        n0: w0[1],
        n1: w1[1],
    };
    if dims.k0 == 0 || dims.n0 == 0 || w1[0] != dims.n0 {
        return None;
    }
    let steps = [layers.first, layers.second].map(|(node, fused)| {
        let mut steps = gemm_steps(node);
        steps.extend(fused.iter().cloned());
        steps
    });
    let search = Search {
        scope,
        shapes: [&steps[0], &steps[1]].map(|steps| scope.external_shapes(steps)),
        steps: &steps,
        rank,
        spaces: [
            scope.view(first.operands[0]).space,
            scope.view(first.operands[1]).space,
            scope.view(second.operands[1]).space,
            out_space,
        ],
        dims: &dims,
    };
    let (cost, (tile, pipelined), decision) = search
        .candidates()
        .pick(&scope.machine.tuning, || search.key())?;
    Some(Plan {
        dims,
        tile,
        pipelined,
        cost,
        steps,
        decision,
    })
}

/// What the tile search of a chain reads.
struct Search<'s, T> {
    scope: &'s Scope<'s, T>,
    steps: &'s [Vec<Step>; 2],
    /// The shapes of each epilogue's external operands.
    shapes: [BTreeMap<ValueId, Vec<usize>>; 2],
    /// The outputs' rank.
    rank: usize,
    /// Where A, W0, W1 and D1 live.
    spaces: [Space; 4],
    dims: &'s Dims,
}

impl<T: Viewed> Search<'_, T> {
    /// The chain's tuning key: what the search reads.
    fn key(&self) -> String {
        let space_of = |value: ValueId| self.scope.view(value).space;
        format!(
            "chain dims={:?} spaces={:?} epilogues={} {} pipeline={}",
            self.dims,
            self.spaces,
            Epilogue::key(&self.steps[0], &self.shapes[0], space_of),
            Epilogue::key(&self.steps[1], &self.shapes[1], space_of),
            self.scope.machine.pipeline
        )
    }

    /// The output tile of `[rows, columns]` with 1 along the batch dimensions.
    fn tile(&self, rows: usize, columns: usize) -> Vec<usize> {
        let mut tile = vec![1; self.rank];
        tile[self.rank - 2] = rows;
        tile[self.rank - 1] = columns;
        tile
    }

    /// Every tiling `[Mt, Kt, Nt]` (and whether the K0 chunks are pipelined) whose buffers fit
    /// the LB, with its estimate.
    fn candidates(&self) -> Candidates<([usize; 3], bool)> {
        let Dims { m, k0, n0, n1, .. } = *self.dims;
        let machine = self.scope.machine;
        let budget = machine.lb_elements();
        let mut candidates = Candidates::new();
        for mt in divisors_descending(m) {
            let first_tile = self.tile(mt, n0);
            let first_lb =
                mt * n0 + Epilogue::lb_elements(&self.steps[0], &self.shapes[0], &first_tile);
            if first_lb > budget {
                continue;
            }
            let first_loads = self.epilogue_loads(0, &first_tile);
            for nt in divisors_descending(n1) {
                let second_tile = self.tile(mt, nt);
                let second_lb = n0 * nt
                    + mt * nt
                    + Epilogue::lb_elements(&self.steps[1], &self.shapes[1], &second_tile);
                let second_loads = self.epilogue_loads(1, &second_tile);
                for (kt, pipelined) in divisors_descending(k0)
                    .into_iter()
                    .flat_map(|kt| [(kt, false), (kt, true)])
                {
                    let pipelined = pipelined && kt < k0;
                    if pipelined && !machine.pipeline {
                        continue;
                    }
                    let streamed = (mt * kt + kt * n0) * (1 + usize::from(pipelined));
                    if streamed + first_lb + second_lb > budget {
                        continue;
                    }
                    let estimate =
                        self.estimate([mt, kt, nt], pipelined, [&first_loads, &second_loads]);
                    candidates.push(estimate, ([mt, kt, nt], pipelined));
                }
            }
        }
        candidates
    }

    /// The elements epilogue `which` loads per output tile of `tile`, by space.
    fn epilogue_loads(&self, which: usize, tile: &[usize]) -> SpaceElements {
        Epilogue::elements_by_space(&self.steps[which], &self.shapes[which], tile, |value| {
            self.scope.view(value).space
        })
    }

    /// The estimate of the tiling `[mt, kt, nt]`: per row block, the first product's K0 chunks
    /// (their loads overlapped with the products when `pipelined`), its epilogue, then for each
    /// column block of the second the load of its W1 tile, its product, its epilogue and its
    /// store, one after the other; bounded by the bytes the blocks move over the shared ports.
    fn estimate(
        &self,
        [mt, kt, nt]: [usize; 3],
        pipelined: bool,
        loads: [&SpaceElements; 2],
    ) -> Estimate {
        let Dims { m, k0, n0, n1, .. } = *self.dims;
        let machine = self.scope.machine;
        let [a_space, w0_space, w1_space, out_space] = self.spaces;
        let rate = |space: Space| space.link_bandwidth(machine);
        let blocks = self.dims.batch.iter().product::<usize>() * (m / mt);
        let per_core = blocks.div_ceil(machine.cores) as f64;
        // A weight loaded whole stays in the LB over the core's row blocks.
        let w0_loads = if kt == k0 { 1.0 / per_core } else { 1.0 };
        let w1_loads = if nt == n1 { 1.0 / per_core } else { 1.0 };
        let chunks = (k0 / kt) as f64;
        let columns = (n1 / nt) as f64;
        let (a_bytes, w0_bytes) = ((mt * kt * 4) as f64, w0_loads * (kt * n0 * 4) as f64);
        let compute0 = machine.compute_setup + machine.matrix_cycles((2 * mt * n0 * kt) as f64);
        let load0 = (1.0 + w0_loads) * machine.dma_setup
            + a_bytes / rate(a_space)
            + w0_bytes / rate(w0_space);
        let first = if pipelined {
            load0 + (chunks - 1.0) * load0.max(compute0) + compute0
        } else {
            chunks * (load0 + compute0)
        };
        let externals = self.shapes.each_ref().map(|shapes| shapes.len() as f64);
        let epilogue0 = externals[0] * machine.dma_setup + load_cycles(loads[0], machine);
        let w1_bytes = w1_loads * (n0 * nt * 4) as f64;
        let stored = (mt * nt * 4) as f64;
        let compute1 = machine.compute_setup + machine.matrix_cycles((2 * mt * nt * n0) as f64);
        let column = (1.0 + externals[1] + w1_loads) * machine.dma_setup
            + w1_bytes / rate(w1_space)
            + compute1
            + stored / rate(out_space)
            + load_cycles(loads[1], machine);
        let latency = first + epilogue0 + columns * column;
        let mut ports = PortCycles::default();
        ports.add(a_space, chunks * a_bytes, machine);
        ports.add(w0_space, chunks * w0_bytes, machine);
        ports.add_by_space(loads[0], machine);
        ports.add(w1_space, columns * w1_bytes, machine);
        ports.add(out_space, columns * stored, machine);
        for (&space, &count) in loads[1] {
            ports.add(space, columns * (count * 4) as f64, machine);
        }
        let steps = self.steps.each_ref().map(|steps| steps.len() as f64);
        let instructions = chunks * (2.0 + w0_loads)
            + externals[0]
            + steps[0]
            + columns * (3.0 + w1_loads + externals[1] + steps[1]);
        ports.bound(per_core, latency, instructions)
    }
}
