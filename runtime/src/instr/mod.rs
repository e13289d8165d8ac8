//! The instruction set of the software DSA, mirroring the compiler's `dsa` dialect: what
//! each instruction means, which engine runs it, which operands it reads and writes, and how
//! much work it is for the timing model. The shape rules it must satisfy are in
//! `shape_rules.rs`.
//!
//! Which unit runs what (the reasons are in `docs/Runtime.md`):
//! - matrix engine: [`Instr::Matmul`], [`Instr::Conv2d`];
//! - vector engine: every [`Instr::Binary`], and the unary activations and affine maps
//!   (relu, sigmoid, tanh, erf, gelu, silu, neg, clip, affine) — streaming element-wise work
//!   that follows a matmul as its epilogue;
//! - vector core: [`Instr::Pool2d`], [`Instr::Reduce`], and the math pieces of softmax and
//!   layer norm (exp, log, sqrt, rsqrt, reciprocal) — windowed or cross-element work;
//! - a DMA channel: [`Instr::Dma`];
//! - no unit: [`Instr::Wait`] and [`Instr::Barrier`], which only order.

mod kinds;

pub use crate::operands::{Access, Operands};
pub use crate::shape_rules::broadcast_shape;
use crate::view::View;
pub use kinds::{
    BinaryOp, ComparePredicate, Conv2dParams, Pool2dParams, PoolKind, ReduceKind, UnaryOp,
};
use turbine_targets::UnitKind;

/// One instruction of a core's stream.
#[derive(Debug, Clone, PartialEq)]
pub enum Instr {
    /// Copies `src` to `dst` element by element in row-major order; the shapes are equal.
    /// Sources and destinations may be in any level the issuing core reaches; the copy has
    /// memmove semantics when they overlap.
    Dma {
        /// Source.
        src: View,
        /// Destination.
        dst: View,
    },
    /// `c = a · b` (or `c += a · b` when `accumulate`) with `a: [M,K]`, `b: [K,N]`,
    /// `c: [M,N]`, all in the issuing core's LB; `c` must not overlap `a` or `b`.
    Matmul {
        /// Left operand.
        a: View,
        /// Right operand.
        b: View,
        /// Result.
        c: View,
        /// Add to `c` instead of overwriting it (for tiling along K).
        accumulate: bool,
    },
    /// A convolution tile: `input: [N,C,H,W]`, `filter: [O,C/groups,KH,KW]`,
    /// `output: [N,O,OH,OW]`, all in the issuing core's LB; the output must not overlap the
    /// inputs.
    Conv2d {
        /// Input activations (NCHW).
        input: View,
        /// Weights (OIHW).
        filter: View,
        /// Output (NCHW).
        output: View,
        /// Strides, pads, dilations, groups.
        params: Conv2dParams,
        /// Add to `output` instead of overwriting it (for tiling along C).
        accumulate: bool,
    },
    /// `out = a op b`, with `a` and `b` broadcast to `out`'s shape.
    Binary {
        /// The operation.
        op: BinaryOp,
        /// Left input.
        a: View,
        /// Right input.
        b: View,
        /// Output, whose shape is the broadcast of the inputs' shapes.
        out: View,
    },
    /// `out = op(input)`, same shapes.
    Unary {
        /// The operation.
        op: UnaryOp,
        /// Input.
        input: View,
        /// Output.
        out: View,
    },
    /// 2-D pooling of `input: [N,C,H,W]` into `out: [N,C,OH,OW]`.
    Pool2d {
        /// Max or average.
        kind: PoolKind,
        /// Input.
        input: View,
        /// Output.
        out: View,
        /// Window, stride, padding.
        params: Pool2dParams,
    },
    /// Reduction of `input` along `axis` into `out`, which has `input`'s shape with extent 1
    /// at `axis` (keepdims).
    Reduce {
        /// The reduction.
        kind: ReduceKind,
        /// Axis reduced.
        axis: usize,
        /// Input.
        input: View,
        /// Output.
        out: View,
    },
    /// `out = input` converted element by element to `out`'s element type (ONNX `Cast`):
    /// floats to integers truncate toward zero (NaN becomes 0, out-of-range values saturate),
    /// integers wrap to narrower integers, anything non-zero becomes boolean true, and booleans
    /// become 0 or 1. Same shapes; any element types.
    Convert {
        /// Input.
        input: View,
        /// Output.
        out: View,
    },
    /// `out = a predicate b` element by element: `a` and `b` of one element type (any), `out`
    /// boolean; same shapes.
    Compare {
        /// The comparison.
        predicate: ComparePredicate,
        /// Left input.
        a: View,
        /// Right input.
        b: View,
        /// Output.
        out: View,
    },
    /// `out = cond ? a : b` element by element: `cond` boolean, `a`, `b` and `out` of one element
    /// type (any); same shapes.
    Select {
        /// The condition.
        cond: View,
        /// Where the condition holds.
        a: View,
        /// Where it does not.
        b: View,
        /// Output.
        out: View,
    },
    /// A DMA gather along `axis` (ONNX `Gather`, an embedding lookup): `out` has `table`'s
    /// shape with the extent at `axis` replaced by the number of `indices`, and the slice `k`
    /// of `out` along `axis` is the slice `indices[k]` of `table` (row-major order of the
    /// indices; a negative index counts from the end). An index outside the table is an error
    /// of the launch. `table` and `out` have one element type and may share a buffer if they do
    /// not overlap; the indices are i64 or i32.
    Gather {
        /// Axis of `table` the indices select along.
        axis: usize,
        /// The table.
        table: View,
        /// The indices.
        indices: View,
        /// Output.
        out: View,
    },
    /// A DMA gather of single elements along `axis` (ONNX `GatherElements`): `indices` and
    /// `out` have one shape, `data` has it too but along `axis`, and `out[c]` is `data[c]` with
    /// coordinate `axis` replaced by `indices[c]` (a negative index counts from the end). An
    /// index outside `data` is an error of the launch. `data` and `out` have one element type
    /// and may share a buffer if they do not overlap; the indices are i64 or i32.
    GatherElements {
        /// Axis of `data` the indices select along.
        axis: usize,
        /// The data.
        data: View,
        /// The indices.
        indices: View,
        /// Output.
        out: View,
    },
    /// A DMA scatter of single elements along `axis` (ONNX `ScatterElements`) into `out`, which
    /// already holds the data: `indices` and `updates` have one shape, `out` has it too but
    /// along `axis`, and `updates[c]` lands on `out[c]` with coordinate `axis` replaced by
    /// `indices[c]` (a negative index counts from the end), in row-major order of `c` (the last
    /// of duplicates wins); with a `reduction` (add, mul, max, min: the engine's reduce-on-write)
    /// it is combined with the element there instead. An index outside `out` is an error of the
    /// launch. `updates` and `out` have one element type (f32, i64 or i32 with a reduction) and
    /// must not overlap; the indices are i64 or i32.
    ScatterElements {
        /// Axis of `out` the indices select along.
        axis: usize,
        /// How an update meets the element it lands on; `None` replaces it.
        reduction: Option<BinaryOp>,
        /// The indices.
        indices: View,
        /// The updates.
        updates: View,
        /// Output, holding the data.
        out: View,
    },
    /// The index along `axis` of each line's largest (or smallest) element of `input` (f32)
    /// into `out` (i64), which has `input`'s shape with extent 1 at `axis`: the first such index,
    /// or the last with `last`; a NaN is the extreme and the first NaN wins (numpy's rule).
    ArgReduce {
        /// The largest element's index, else the smallest's.
        largest: bool,
        /// The last of equal extremes rather than the first.
        last: bool,
        /// Axis reduced.
        axis: usize,
        /// Input.
        input: View,
        /// Output.
        out: View,
    },
    /// The `k` largest (or smallest) elements of each line of `input` (f32) along `axis`, in
    /// order, into `values` (f32) and their indices into `indices` (i64); both have `input`'s
    /// shape with extent `k` at `axis`. Equal elements keep the lower index first; NaNs are the
    /// extremes, before every number in either order (as `ArgReduce` has it).
    TopK {
        /// The largest elements, else the smallest.
        largest: bool,
        /// Axis the lines run along.
        axis: usize,
        /// Input.
        input: View,
        /// The elements picked.
        values: View,
        /// Their indices along `axis`.
        indices: View,
    },
    /// Later instructions of the core start only after the awaited tokens are ready.
    Wait,
    /// Every core of the launch finishes all earlier instructions before any starts a later
    /// one. Each core of the launch records it.
    Barrier,
}

/// The hardware that executes an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// A compute unit of this kind.
    Unit(UnitKind),
    /// A DMA channel.
    Dma,
    /// No hardware: an ordering instruction.
    Sync,
}

impl Instr {
    /// Short name for reports, traces and messages (`dma`, `matmul`, `relu`, `reduce_sum`...).
    pub fn name(&self) -> &'static str {
        match self {
            Instr::Dma { .. } => "dma",
            Instr::Matmul { .. } => "matmul",
            Instr::Conv2d { .. } => "conv2d",
            Instr::Binary { op, .. } => op.name(),
            Instr::Unary { op, .. } => op.name(),
            Instr::Pool2d {
                kind: PoolKind::Max,
                ..
            } => "max_pool2d",
            Instr::Pool2d {
                kind: PoolKind::Avg,
                ..
            } => "avg_pool2d",
            Instr::Convert { .. } => "convert",
            Instr::Compare { predicate, .. } => predicate.name(),
            Instr::Select { .. } => "select",
            Instr::Gather { .. } => "gather",
            Instr::ArgReduce { largest: true, .. } => "argmax",
            Instr::ArgReduce { largest: false, .. } => "argmin",
            Instr::TopK { .. } => "top_k",
            Instr::GatherElements { .. } => "gather_elements",
            Instr::ScatterElements { .. } => "scatter_elements",
            Instr::Reduce { kind, .. } => match kind {
                ReduceKind::Sum => "reduce_sum",
                ReduceKind::Mean => "reduce_mean",
                ReduceKind::Max => "reduce_max",
                ReduceKind::Min => "reduce_min",
                ReduceKind::Prod => "reduce_prod",
            },
            Instr::Wait => "wait",
            Instr::Barrier => "barrier",
        }
    }

    /// The hardware that runs it.
    pub fn engine(&self) -> Engine {
        match self {
            Instr::Dma { .. }
            | Instr::Gather { .. }
            | Instr::GatherElements { .. }
            | Instr::ScatterElements { .. } => Engine::Dma,
            Instr::Convert { .. } | Instr::Compare { .. } | Instr::Select { .. } => {
                Engine::Unit(UnitKind::VectorEngine)
            }
            Instr::Matmul { .. } | Instr::Conv2d { .. } => Engine::Unit(UnitKind::MatrixEngine),
            Instr::Binary { .. } => Engine::Unit(UnitKind::VectorEngine),
            Instr::Unary { op, .. } => Engine::Unit(op.unit()),
            Instr::Pool2d { .. }
            | Instr::Reduce { .. }
            | Instr::ArgReduce { .. }
            | Instr::TopK { .. } => Engine::Unit(UnitKind::VectorCore),
            Instr::Wait | Instr::Barrier => Engine::Sync,
        }
    }

    /// Every operand with its name and access, inputs first.
    pub fn operands(&self) -> Operands<'_> {
        use Access::*;
        match self {
            Instr::Dma { src, dst } => Operands::of(&[("src", src, Read), ("dst", dst, Write)]),
            Instr::Matmul { a, b, c, .. } => {
                Operands::of(&[("a", a, Read), ("b", b, Read), ("c", c, Write)])
            }
            Instr::Conv2d {
                input,
                filter,
                output,
                ..
            } => Operands::of(&[
                ("input", input, Read),
                ("filter", filter, Read),
                ("output", output, Write),
            ]),
            Instr::Binary { a, b, out, .. } => {
                Operands::of(&[("a", a, Read), ("b", b, Read), ("out", out, Write)])
            }
            Instr::Compare { a, b, out, .. } => {
                Operands::of(&[("a", a, Read), ("b", b, Read), ("out", out, Write)])
            }
            Instr::Select { cond, a, b, out } => Operands::of(&[
                ("cond", cond, Read),
                ("a", a, Read),
                ("b", b, Read),
                ("out", out, Write),
            ]),
            Instr::Gather {
                table,
                indices,
                out,
                ..
            } => Operands::of(&[
                ("table", table, Read),
                ("indices", indices, Read),
                ("out", out, Write),
            ]),
            Instr::GatherElements {
                data, indices, out, ..
            } => Operands::of(&[
                ("data", data, Read),
                ("indices", indices, Read),
                ("out", out, Write),
            ]),
            Instr::ScatterElements {
                indices,
                updates,
                out,
                ..
            } => Operands::of(&[
                ("indices", indices, Read),
                ("updates", updates, Read),
                ("out", out, Write),
            ]),
            Instr::TopK {
                input,
                values,
                indices,
                ..
            } => Operands::of(&[
                ("input", input, Read),
                ("values", values, Write),
                ("indices", indices, Write),
            ]),
            Instr::Unary { input, out, .. }
            | Instr::ArgReduce { input, out, .. }
            | Instr::Convert { input, out }
            | Instr::Pool2d { input, out, .. }
            | Instr::Reduce { input, out, .. } => {
                Operands::of(&[("input", input, Read), ("out", out, Write)])
            }
            Instr::Wait | Instr::Barrier => Operands::of(&[]),
        }
    }

    /// Work for the timing model: flops on the matrix engine, element operations on the
    /// vector units (special functions weighted by `special`), elements moved for a DMA or a
    /// gather (its indices included; the device weighs them by their element sizes), 0 for
    /// ordering instructions. Formulas in `docs/Runtime.md`.
    pub fn work(&self, special: f64) -> f64 {
        let weight = |s: bool| if s { special } else { 1.0 };
        match self {
            Instr::Dma { src, .. } => src.len() as f64,
            Instr::Gather { out, .. } | Instr::GatherElements { out, .. } => out.len() as f64,
            Instr::ScatterElements { updates, .. } => updates.len() as f64,
            Instr::ArgReduce { input, .. } => input.len() as f64,
            // A bounded heap of the k best: one comparison with its root per element, and up to
            // log2(k) more to sift an element in.
            Instr::TopK {
                axis,
                input,
                values,
                ..
            } => {
                let k = values.shape.get(*axis).copied().unwrap_or(1).max(1);
                input.len() as f64 * (1.0 + (k as f64).log2())
            }
            Instr::Convert { out, .. } | Instr::Compare { out, .. } | Instr::Select { out, .. } => {
                out.len() as f64
            }
            Instr::Matmul { a, b, .. } => {
                2.0 * a.shape[0] as f64 * a.shape[1] as f64 * b.shape[1] as f64
            }
            Instr::Conv2d { filter, output, .. } => {
                let taps = filter.shape[1..].iter().map(|&e| e as f64).product::<f64>();
                2.0 * output.len() as f64 * taps
            }
            Instr::Binary { op, out, .. } => out.len() as f64 * weight(op.is_special()),
            Instr::Unary { op, out, .. } => out.len() as f64 * weight(op.is_special()),
            Instr::Pool2d {
                kind, out, params, ..
            } => {
                let window = params.kernel[0] as f64 * params.kernel[1] as f64;
                let divide = if *kind == PoolKind::Avg { 1.0 } else { 0.0 };
                out.len() as f64 * (window + divide)
            }
            Instr::Reduce {
                kind, input, out, ..
            } => {
                let divide = if *kind == ReduceKind::Mean {
                    out.len() as f64
                } else {
                    0.0
                };
                input.len() as f64 + divide
            }
            Instr::Wait | Instr::Barrier => 0.0,
        }
    }
}
