//! Chain fusion of two matrix products (BOLT §3.1, "persistent kernels"): a product whose layer
//! writes D0 = epilogue0(A·W0) and a second product reading it as its lhs, D1 = epilogue1(D0·W1),
//! with the same M, run as one kernel. Each core takes row blocks of `Mt` rows; for a block it
//! accumulates all N0 columns of D0 in its LB, K0 chunk by K0 chunk, runs the first epilogue on
//! them there, and feeds them to the second product's column blocks as the lhs with K1 = N0
//! whole: D0 is never stored, to the GB or to DDR.
//!
//! BOLT keeps the block in the registers or the shared memory of one thread block and requires
//! `ThreadBlock_N = GEMM_N`; the analogue here is a core's LB, and the residency condition is its
//! capacity: a row block of D0 (`Mt × N0`), the chunks streamed into it, a tile of W1
//! (`N0 × Nt`), the second accumulator and both epilogues' operand tiles must fit the LB
//! together ([`plan`]). A weight that fits whole (`Kt = K0`, `Nt = N1`) is loaded once per core
//! and stays for all of its row blocks, as the weights of BOLT's RF-resident fusion stay in a
//! warp; otherwise each row block streams both weights again, which is what the estimate weighs
//! against the store and reloads of D0 that the fusion saves.
//!
//! A convolution followed by a 1×1 convolution (stride 1, no padding: each output pixel of the
//! second reads the same pixel of the first, all its channels) is the same chain with pixels as
//! the rows; the convolution emitter runs it, each tile of the first holding all its channels and
//! feeding the second in the LB (`conv::chained`). [`second_op`] finds both kinds.
//!
//! Only f32 chains fuse: a narrower D0 is rounded when the graph stores it, and the block in the
//! LB would keep it exact.

mod emit;

pub use emit::lower;

use super::{
    emit::{divisors_descending, Space},
    epilogue::Epilogue,
    layers::{Scope, Step, Viewed},
    matmul::{gemm_steps, operand_shape},
    ports::{load_cycles, Candidates, Estimate, PortCycles, SpaceElements},
};
use crate::graph_view::{ElementType, FunctionView, Node, ValueId};
use std::collections::BTreeMap;
use turbine_dialects::ops::graph;

/// Whether `node` is a product a chain links: a matrix product or a `gemm`.
fn is_product(node: &Node) -> bool {
    matches!(
        node.graph_kind(),
        Some(graph::Kind::Matmul | graph::Kind::BatchMatmul | graph::Kind::Gemm)
    )
}

/// What a chain links.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linked {
    /// Two matrix products ([`plan`] and [`lower`]).
    Products,
    /// A convolution and a 1×1 convolution (the convolution emitter's chained tiles).
    Convolutions,
}

/// The op that continues a chain from the product or convolution at op `first`, whose layer
/// writes `written` (the last value of its epilogue), and what the chain links: the one op
/// reading `written`, taking it as its first operand and nothing else, with every other operand
/// `available` (lowered before the first), `written` an f32 value not returned; after a product,
/// a product not transposing it ([`products_chain`]); after a convolution, a 1×1 convolution
/// ([`convolutions_chain`]). None when any of it fails.
pub fn second_op(
    program: &FunctionView,
    first: usize,
    written: ValueId,
    available: impl Fn(ValueId) -> bool,
) -> Option<(usize, Linked)> {
    if program.returned().contains(&written)
        || program.type_of(written).element_type != ElementType::F32
    {
        return None;
    }
    let &[second] = program.readers(written) else {
        return None;
    };
    let next = &program.ops[second];
    let reads_it_first = second > first
        && next.operands.first() == Some(&written)
        && !next.operands[1..].contains(&written)
        && next.operands[1..].iter().all(|&value| available(value));
    if !reads_it_first {
        return None;
    }
    let (node, next) = (&program.ops[first], &program.ops[second]);
    if products_chain(program, node, next) {
        Some((second, Linked::Products))
    } else if convolutions_chain(program, node, next) {
        Some((second, Linked::Convolutions))
    } else {
        None
    }
}

/// Whether the products `node` and `next` (reading `node`'s layer's value as its lhs) form a
/// chain: `next` does not transpose it, both rhs are 2-D (weights, shared by every row), and the
/// first's lhs has the output's rank.
fn products_chain(program: &FunctionView, node: &Node, next: &Node) -> bool {
    if !is_product(node) || !is_product(next) {
        return false;
    }
    let two_dimensional = |value: ValueId| program.type_of(value).shape.len() == 2;
    let rank = program.type_of(node.results[0].0).shape.len();
    !(next.is(graph::Kind::Gemm) && next.flag("trans_a"))
        && rank >= 2
        && program.type_of(node.operands[0]).shape.len() == rank
        && two_dimensional(node.operands[1])
        && two_dimensional(next.operands[1])
}

/// Whether the convolutions `node` and `next` (reading `node`'s layer's value as its input) form
/// a chain: `next` is 1×1 with stride 1, no padding, no dilation and one group (BOLT §3.1), so
/// that each of its output pixels reads the same pixel of `node`'s output, all its channels.
fn convolutions_chain(program: &FunctionView, node: &Node, next: &Node) -> bool {
    if !node.is(graph::Kind::Conv2d) || !next.is(graph::Kind::Conv2d) {
        return false;
    }
    let ones = |name: &str| {
        next.ints_opt(name)
            .is_none_or(|values| values.iter().all(|&v| v == 1))
    };
    let unpadded = next
        .ints_opt("pads")
        .is_none_or(|pads| pads.iter().all(|&p| p == 0));
    let filter = program.type_of(next.operands[1]);
    ones("strides")
        && ones("dilations")
        && unpadded
        && next.int_opt("groups").unwrap_or(1) == 1
        && filter.shape.get(2..) == Some(&[1, 1][..])
}

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
    let (cost, (tile, pipelined)) = search.candidates().best()?;
    Some(Plan {
        dims,
        tile,
        pipelined,
        cost,
        steps,
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
