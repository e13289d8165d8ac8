//! What a conv layer's planner is asked: the convolution, its epilogue, its output and where it
//! goes, and what the layer adds to a plain convolution.

use crate::graph_view::Node;
use crate::kernels::{emit::Space, layers::Step};

/// The conv layer to plan: the conv `node` with the fused elementwise `fused` after it, writing a
/// value of shape `out`.
pub(super) struct Request<'a> {
    pub(super) node: &'a Node,
    pub(super) fused: &'a [Step],
    pub(super) out: &'a [usize],
    /// Where the output is written (where the input lives when that is not known).
    pub(super) out_space: Option<Space>,
    /// The anchor's position, for errors.
    pub(super) index: usize,
    /// Whether the output has its pixels in one run per channel, so that a pointwise conv may
    /// be seen as rows of fewer pixels ([`super::pointwise`]).
    pub(super) pixel_rows: bool,
    /// The 1×1 convolution whose product each tile starts from ([`super::absorbed`]).
    pub(super) absorbed: Option<&'a Node>,
    /// Tiles cover the output rows by multiples of it (for a stepped slice of the output the
    /// tiles store too, which also keeps the output's pixels in their rows).
    pub(super) rows_by: usize,
    /// The 1×1 convolution the tiles feed, with its fused steps ([`super::chained`]); `out_space`
    /// is then where its result goes.
    pub(super) chained: Option<(&'a Node, &'a [Step])>,
}
