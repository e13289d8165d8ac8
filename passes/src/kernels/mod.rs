//! The kernel-emission library: everything that turns a layer of a graph function into `dsa`
//! instructions inside a kernel, and everything that prices such a layer before it is built.
//! Every lowering is a thin client of it — the layer-wise schedule
//! (`conversion::graph_to_dsa`), GraphTurbo's instance kernels (`conversion::instance_to_dsa`)
//! — and so is the substitution cost model (`substitute::cost`). Nothing here imports a client.
//!
//! Modules depend in one direction, each only on those listed before it:
//!
//! - [`error`]: what cannot be lowered, and where.
//! - [`view`]: buffer types (shapes, strides, memory spaces) as the `dsa` dialect spells them.
//! - [`emit`]: typed builders for the ops a kernel or host function holds; every op carries the
//!   location of the graph op it computes.
//! - [`fusion`]: which ops a layer takes (an anchor and the elementwise ops that refine it).
//! - [`layers`]: what a layer is — its anchor, fused steps, operands and where they live.
//! - [`epilogue`] and [`kernel`]: a kernel's skeleton, its tile loops and fused epilogues.
//! - [`ports`]: which transfers share a memory port, the estimate of a layer's cycles, and the
//!   candidates a planner picks from.
//! - [`reduction_view`]: how a reduction is viewed as rows.
//! - [`row_classes`], [`trickle`]: row-wise tiling classes; weight copies spread over a layer.
//! - The per-op emitters with their tiling estimates: [`conv`], [`matmul`], [`window`],
//!   [`rows`], [`elementwise`], [`movement`], [`convert`], [`gather`], [`scatter`],
//!   [`selection`], [`arg_reduce`], [`top_k`].
//! - [`chain`]: two products fused into one kernel, the first's row block kept in the LB; which
//!   ops form a chain (a convolution's chain is the conv emitter's).
//! - [`dispatch`]: which emitter and which estimate a layer takes.
//! - [`host_function`]: the host function that launches kernels.
//! - [`estimate`]: a whole function's layer-wise cycles, the substitution cost model's measure.

pub mod arg_reduce;
pub mod chain;
pub mod conv;
pub mod convert;
pub mod dispatch;
pub mod elementwise;
pub mod emit;
pub mod epilogue;
pub mod error;
pub mod estimate;
pub mod fusion;
pub mod gather;
pub mod host_function;
pub mod kernel;
pub mod layers;
pub mod matmul;
pub mod movement;
pub mod ports;
pub mod reduction_view;
pub mod row_classes;
pub mod rows;
pub mod scatter;
pub mod selection;
pub mod top_k;
pub mod trickle;
pub mod view;
pub mod window;
