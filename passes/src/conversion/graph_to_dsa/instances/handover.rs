//! Where the values one cluster program hands to a later one live. A value cut the same way by
//! the segment computing it and by every segment reading it (the batch segments around a layer
//! cut along its channels) stays in each cluster's GB across the kernels in between, as the
//! buffers of one program do (GraphTurbo §4.2); any other — read whole by a channel-cut layer,
//! or cut along the channels by one — goes through DDR, the only memory the clusters share.

use super::Clusters;
use crate::graph_view::{FunctionView, ValueId};
use std::collections::{BTreeMap, BTreeSet};

/// The share of the GB that handed-over values may take, the rest left to the programs' own.
const RESIDENT_SHARE: usize = 2;

/// The values kept in the GBs between segments and what they hold of it.
pub(super) struct Handover {
    /// Per value kept in the GB, its bytes per cluster.
    pub resident: BTreeMap<ValueId, usize>,
    /// Per segment, the GB bytes of a cluster that values kept across it take.
    pub held: Vec<usize>,
}

/// Plans the handover of the values between `segments` (in order, `nodes` their ops in the
/// function's view) on clusters of `gb_bytes` of GB; `returned` values go to the results.
pub(super) fn plan(outer: &FunctionView, segments: &[Clusters], nodes: &[usize], returned: &BTreeSet<ValueId>, gb_bytes: usize) -> Handover {
    let mut handover = Handover { resident: BTreeMap::new(), held: vec![0; segments.len()] };
    for (producer, clusters) in segments.iter().enumerate() {
        let node = &outer.ops[nodes[producer]];
        for (position, (value, r#type)) in node.results.iter().enumerate() {
            let dim = clusters.result_dims.get(position).copied().unwrap_or(-1);
            let mut readers = Vec::new();
            for (reader, other) in segments.iter().enumerate().skip(producer + 1) {
                for (operand_position, operand) in outer.ops[nodes[reader]].operands.iter().enumerate() {
                    if operand == value {
                        readers.push((reader, other.count == clusters.count && other.input_dims.get(operand_position) == Some(&dim)));
                    }
                }
            }
            if returned.contains(value) || readers.is_empty() || readers.iter().any(|(_, same_cut)| !same_cut) {
                continue;
            }
            let bytes = r#type.bytes() / if dim >= 0 { clusters.count } else { 1 };
            let last = readers.iter().map(|(reader, _)| *reader).max().expect("read");
            if (producer..=last).all(|segment| handover.held[segment] + bytes <= gb_bytes / RESIDENT_SHARE) {
                for held in &mut handover.held[producer..=last] {
                    *held += bytes;
                }
                handover.resident.insert(*value, bytes);
            }
        }
    }
    handover
}
