//! Where the values one cluster program hands to a later one live. A value cut the same way by
//! the segment computing it and by every segment reading it (the batch segments around a layer
//! cut along its channels) stays in each cluster's GB across the kernels in between, as the
//! buffers of one program do (GraphTurbo §4.2); any other — read whole by a channel-cut layer,
//! or cut along the channels by one — goes through DDR, the only memory the clusters share.
//! A value that some readers take whole and others by the same cut (a channel-cut block's
//! output: the next block's first layer reads it whole, its residual addition the cluster's
//! share) goes through DDR and is mirrored: its producer also stores its share in its GB, where
//! the same-cut readers find it without a DDR read.

use super::clusters::Clusters;
use crate::graph_view::{ElementType, FunctionView, ValueId};
use std::collections::{BTreeMap, BTreeSet};

/// The share of the GB that handed-over values may take, the rest left to the programs' own.
const RESIDENT_SHARE: usize = 2;

/// The values kept in the GBs between segments and what they hold of it.
pub(super) struct Handover {
    /// Per value kept in the GB only, its bytes per cluster.
    pub resident: BTreeMap<ValueId, usize>,
    /// Per value handed over through DDR whose producer also keeps its share in the GB, its
    /// bytes per cluster, and the dimension of the cut and the clusters it is cut over.
    pub mirrored: BTreeMap<ValueId, (usize, i64, usize)>,
    /// Per segment, the GB bytes of a cluster that values kept across it take.
    pub held: Vec<usize>,
}

impl Handover {
    /// The GB bytes of a cluster that the results of the segment at `node` (in the function's
    /// view) kept in the GB take.
    pub fn kept_by(&self, outer: &FunctionView, node: usize) -> usize {
        outer.ops[node]
            .results
            .iter()
            .map(|(value, _)| {
                self.resident
                    .get(value)
                    .copied()
                    .or(self.mirrored.get(value).map(|&(bytes, _, _)| bytes))
                    .unwrap_or(0)
            })
            .sum()
    }

    /// Whether segment `reader` (`clusters`) reads `value` at operand `position` from its GB
    /// mirror: the same cut as its producer's.
    pub fn reads_mirror(&self, value: &ValueId, clusters: &Clusters, position: usize) -> bool {
        self.mirrored.get(value).is_some_and(|&(_, dim, count)| {
            clusters.count == count && clusters.input_dims.get(position) == Some(&dim)
        })
    }
}

/// Plans the handover of the values between `segments` (in order, `nodes` their ops in the
/// function's view) on clusters of `gb_bytes` of GB; `returned` values go to the results.
pub(super) fn plan(
    outer: &FunctionView,
    segments: &[Clusters],
    nodes: &[usize],
    returned: &BTreeSet<ValueId>,
    gb_bytes: usize,
) -> Handover {
    let mut handover = Handover {
        resident: BTreeMap::new(),
        mirrored: BTreeMap::new(),
        held: vec![0; segments.len()],
    };
    for (producer, clusters) in segments.iter().enumerate() {
        let node = &outer.ops[nodes[producer]];
        for (position, (value, r#type)) in node.results.iter().enumerate() {
            // The GB holds f32 (its shares are carved out of f32 arenas): other element types
            // are handed over through DDR.
            if r#type.element_type != ElementType::F32 {
                continue;
            }
            let dim = clusters.result_dims.get(position).copied().unwrap_or(-1);
            let mut readers = Vec::new();
            for (reader, other) in segments.iter().enumerate().skip(producer + 1) {
                for (operand_position, operand) in
                    outer.ops[nodes[reader]].operands.iter().enumerate()
                {
                    if operand == value {
                        readers.push((
                            reader,
                            other.count == clusters.count
                                && other.input_dims.get(operand_position) == Some(&dim),
                        ));
                    }
                }
            }
            let Some(last) = readers
                .iter()
                .filter(|(_, same_cut)| *same_cut)
                .map(|(reader, _)| *reader)
                .max()
            else {
                continue;
            };
            if returned.contains(value) {
                continue;
            }
            // A share of a cut value only: a value every cluster computes whole is written by
            // the first cluster alone when it goes through DDR.
            let mirrored = readers.iter().any(|(_, same_cut)| !same_cut);
            if mirrored && (dim < 0 || clusters.count == 1) {
                continue;
            }
            let bytes = r#type.bytes() / if dim >= 0 { clusters.count } else { 1 };
            if (producer..=last)
                .all(|segment| handover.held[segment] + bytes <= gb_bytes / RESIDENT_SHARE)
            {
                for held in &mut handover.held[producer..=last] {
                    *held += bytes;
                }
                if mirrored {
                    handover
                        .mirrored
                        .insert(*value, (bytes, dim, clusters.count));
                } else {
                    handover.resident.insert(*value, bytes);
                }
            }
        }
    }
    handover
}
