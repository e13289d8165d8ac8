//! The segments of a scheduled function (its cluster programs, see `instance-cluster-split`) as
//! the lowering sees them: their ops in the function's view, where the values they hand each
//! other live ([`handover`]), and the segment after which each of those is read no more.

use super::clusters::Clusters;
use super::handover::{self, Handover};
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::kernels::emit::Tensor;
use std::collections::BTreeMap;

/// The function's segments and what the lowering planned across them.
pub(super) struct Segments<'f> {
    /// The function's view, and its cluster programs in order.
    pub(super) outer: &'f FunctionView,
    pub(super) clusters: &'f [Clusters],
    /// Each segment's op in `outer`.
    pub(super) nodes: Vec<usize>,
    /// Where the values handed from one segment to a later one live.
    pub(super) handover: Handover,
    /// The buffers of the function's results (the host function's outputs), by value.
    pub(super) result_buffers: BTreeMap<ValueId, Tensor>,
    /// The segment after which each intermediate is read no more.
    pub(super) last_reader: BTreeMap<ValueId, usize>,
    /// The segment after which each mirrored value is read from its GB copy no more.
    pub(super) last_mirror_reader: BTreeMap<ValueId, usize>,
}

impl<'f> Segments<'f> {
    /// The segments `clusters` of the function viewed as `outer`, whose results go to
    /// `result_buffers`, on clusters of `gb_bytes` of GB.
    pub(super) fn new(
        outer: &'f FunctionView,
        clusters: &'f [Clusters],
        result_buffers: BTreeMap<ValueId, Tensor>,
        gb_bytes: usize,
    ) -> Self {
        let nodes: Vec<usize> = clusters
            .iter()
            .map(|segment| {
                outer
                    .ops
                    .iter()
                    .position(|node| node.op.raw().ptr == segment.op.raw().ptr)
                    .expect("the view has every op")
            })
            .collect();
        let mut last_reader: BTreeMap<ValueId, usize> = BTreeMap::new();
        for (index, &node) in nodes.iter().enumerate() {
            for operand in &outer.ops[node].operands {
                last_reader.insert(*operand, index);
            }
        }
        let handover = handover::plan(
            outer,
            clusters,
            &nodes,
            &result_buffers.keys().copied().collect(),
            gb_bytes,
        );
        let mut last_mirror_reader: BTreeMap<ValueId, usize> = BTreeMap::new();
        for (index, &node) in nodes.iter().enumerate() {
            for (position, operand) in outer.ops[node].operands.iter().enumerate() {
                if handover.reads_mirror(operand, &clusters[index], position) {
                    last_mirror_reader.insert(*operand, index);
                }
            }
        }
        Segments {
            outer,
            clusters,
            nodes,
            handover,
            result_buffers,
            last_reader,
            last_mirror_reader,
        }
    }

    /// The segment `index`'s cluster program and its op in the function's view.
    pub(super) fn segment(&self, index: usize) -> (&'f Clusters, &'f Node) {
        (&self.clusters[index], &self.outer.ops[self.nodes[index]])
    }
}
