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
mod plan;

pub use emit::lower;
pub use plan::{plan, Layers, Plan};

use crate::graph_view::{ElementType, FunctionView, Node, ValueId};
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
