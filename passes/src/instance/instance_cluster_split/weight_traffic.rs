//! What a cut costs in weight traffic. The clusters share nothing but DDR, so each reads from it
//! every weight its share of the program reads, whole when the cut leaves the weights whole (the
//! batch cut of GraphTurbo §5.1: every cluster reads every filter for its images). Set against
//! the cluster's matrix work, layer by layer, this bounds any schedule of the share from below:
//! a layer can go no faster than the larger of its MACs on the cluster's matrix engines and its
//! weights over the cluster's DDR port, even with perfect overlap inside it.

use super::partition::Partition;
use crate::{
    graph_view::FunctionView, instance::split_info::work, slicing::regions::sizes, target::Machine,
};
use turbine_dialects::ops::graph;

/// The weight traffic of one cluster's share and the bound it sets, in cycles.
pub(super) struct WeightTraffic {
    /// Bytes of weights one cluster reads from DDR.
    pub bytes: usize,
    /// Those bytes over the cluster's DDR port.
    pub port_cycles: f64,
    /// The share's matrix work (convolutions and products) on the cluster's matrix engines.
    pub compute_cycles: f64,
    /// Over the convolutions and products, the sum of the larger of the two.
    pub bound: f64,
}

impl WeightTraffic {
    pub(super) fn of(view: &FunctionView, partition: &Partition, machine: &Machine) -> Self {
        let mut traffic = WeightTraffic {
            bytes: 0,
            port_cycles: 0.0,
            compute_cycles: 0.0,
            bound: 0.0,
        };
        let flops_per_cycle = machine.matrix_flops
            * (machine.matrix_engines_per_core * machine.cores_per_cluster) as f64;
        for node in &view.ops {
            if !node.graph_kind().is_some_and(graph::Kind::is_contraction) {
                continue;
            }
            let Some((result, r#type)) = node.results.first() else {
                continue;
            };
            // The share of the op's result a cluster computes (none when it needs no part).
            let Some(region) = &partition.computed[*result] else {
                continue;
            };
            let whole: usize = r#type.shape.iter().product();
            let share = if whole == 0 {
                0.0
            } else {
                sizes(region).iter().product::<usize>() as f64 / whole as f64
            };
            let shape_of_operand = |index: usize| {
                node.operands
                    .get(index)
                    .map(|&value| view.type_of(value).shape.as_slice())
            };
            let compute = 2.0 * work(node, &shape_of_operand) * share / flops_per_cycle;
            let weights: usize = node
                .operands
                .iter()
                .filter(|&&value| {
                    view.producer(value).is_some_and(|index| {
                        matches!(
                            view.ops[index].graph_kind(),
                            Some(graph::Kind::Weight | graph::Kind::Constant)
                        )
                    })
                })
                .map(|&value| view.type_of(value).bytes())
                .sum();
            let port = weights as f64 / machine.ddr_bandwidth;
            traffic.bytes += weights;
            traffic.port_cycles += port;
            traffic.compute_cycles += compute;
            traffic.bound += compute.max(port);
        }
        traffic
    }
}
