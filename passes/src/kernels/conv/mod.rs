//! A convolution layer: output tiles of `[Nt, OCt, OHt, OW]` (whole rows), input channels in
//! chunks accumulated on the matrix engine, the epilogue on the tile, one store.
//!
//! Padding is resolved per tile: a tile whose input window starts above the image or ends below
//! it loads only the rows inside and gives the conv instruction the padding it needs, so tiles
//! fall into a few classes (first, middle, last) with static shapes, selected by `scf.if` on the
//! tile's row index.
//!
//! Modules depend in one direction: [`geometry`] (a conv's shape and one tiling of it) and
//! [`cost`] (what a tiling costs), [`absorbed`], [`chained`], [`pointwise`] and [`bias`] (what a
//! layer adds to a plain conv), [`request`] (what the planner is asked) and [`key`] (what names
//! a layer for the tuner), [`plan`] (the tiling chosen), [`pipeline`] and [`serial`] (the tile
//! loops), then [`lowering`].

mod absorbed;
mod bias;
mod chained;
mod cost;
mod geometry;
mod key;
mod lowering;
mod pipeline;
mod plan;
mod pointwise;
mod request;
mod serial;

pub use lowering::lower;

use super::{
    emit::Space,
    layers::{Scope, Step, Viewed},
    ports::Estimate,
};
use crate::graph_view::Node;
use crate::tuning::Decision;
use plan::plan;
use request::Request;

/// The estimated cycles of the conv `node` (fused with `fused`, writing `out`) with its
/// operands where `scope` says, if it fits the LB: what tells whether a copy of its filter
/// closer to the cores pays for itself.
pub fn estimate<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    absorbed: Option<&Node>,
) -> Option<Estimate> {
    let request = Request {
        node,
        fused,
        out,
        out_space,
        index: 0,
        pixel_rows: true,
        absorbed,
        rows_by: 1,
        chained: None,
    };
    plan(scope, &request).ok().map(|plan| plan.cost)
}

/// The estimate of the conv `node` (fused with `fused`, its result of shape `out`) whose tiles
/// feed the 1×1 convolution `chained` (with its fused steps), whose result goes to `out_space`,
/// and how its tiling was chosen; None when no tiling fits the LB.
pub fn estimate_chained<T: Viewed>(
    scope: &Scope<T>,
    (node, fused): (&Node, &[Step]),
    out: &[usize],
    chained: (&Node, &[Step]),
    out_space: Space,
) -> Option<(Estimate, Decision)> {
    let request = Request {
        node,
        fused,
        out,
        out_space: Some(out_space),
        index: 0,
        pixel_rows: false,
        absorbed: None,
        rows_by: 1,
        chained: Some(chained),
    };
    plan(scope, &request)
        .ok()
        .map(|plan| (plan.cost, plan.decision))
}

/// [`estimate`] among the tilings covering the output rows by multiples of `rows`.
pub fn estimate_rows_by<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    fused: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    rows: usize,
    absorbed: Option<&Node>,
) -> Option<f64> {
    let request = Request {
        node,
        fused,
        out,
        out_space,
        index: 0,
        pixel_rows: false,
        absorbed,
        rows_by: rows,
        chained: None,
    };
    plan(scope, &request).ok().map(|plan| plan.cost.cycles)
}
