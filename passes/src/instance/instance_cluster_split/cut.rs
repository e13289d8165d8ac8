//! The cut of a function (or of a segment of one) over the clusters: the dimension of its first
//! result that separates it over the most clusters, and why each other dimension was refused.

use super::partition::{partition, Partition};
use super::weight_traffic::WeightTraffic;
use crate::graph_view::FunctionView;
use crate::target::Machine;

/// The function's cut: the dimension of its first result and the partition along it, and why
/// each other dimension tried was refused.
pub(super) struct Cut {
    /// The dimension and its partition; None when no dimension separates.
    pub chosen: Option<(usize, Partition)>,
    /// Per dimension refused, the reason and what it would have recomputed, for the remark.
    pub refused: Vec<String>,
}

impl Cut {
    /// Tries each dimension of the first result of `view`, outermost first, with the largest
    /// number of the `clusters` that divides it; keeps the one that separates over the most
    /// clusters, the outer one on a tie.
    pub fn choose(view: &FunctionView, clusters: usize) -> Self {
        let shape = &view.type_of(view.returned()[0]).shape;
        let mut chosen: Option<(usize, Partition)> = None;
        let mut refused = Vec::new();
        for (dim, &size) in shape.iter().enumerate() {
            let Some(count) = (2..=clusters.min(size))
                .rev()
                .find(|count| size % count == 0)
            else {
                continue;
            };
            if chosen.as_ref().is_some_and(|(_, best)| best.count >= count) {
                continue;
            }
            match partition(view, dim, count) {
                Ok(partition) => chosen = Some((dim, partition)),
                Err(refusal) => refused.push(format!(
                    "dimension {dim} into {count}: {} (the clusters would compute {:.0}% more)",
                    refusal.reason,
                    refusal.recomputed * 100.0
                )),
            }
        }
        Self { chosen, refused }
    }

    /// How many clusters the cut uses (1: the function runs on one).
    pub fn count(&self) -> usize {
        self.chosen
            .as_ref()
            .map_or(1, |(_, partition)| partition.count)
    }

    /// The `explain` remark's text after the function's name: the choice, with the weight
    /// traffic of the chosen cut, and the dimensions refused.
    pub fn explained(&self, view: &FunctionView, machine: &Machine) -> String {
        let shape = &view.type_of(view.returned()[0]).shape;
        let count = self.count();
        let choice = match &self.chosen {
            None => format!(
                "runs on one cluster of {}: no dimension of the result {shape:?} separates over \
                 the clusters",
                machine.clusters
            ),
            Some((dim, partition)) => {
                let traffic = WeightTraffic::of(view, partition, machine);
                format!(
                    "spread over {count} of {} clusters along dimension {dim} of the result \
                     {shape:?}, {} per cluster; each cluster reads {} bytes of weights from DDR \
                     ({:.0} cycles of its port) for {:.0} cycles of matrix work, and layer by \
                     layer the larger of the two sums to {:.0} cycles",
                    machine.clusters,
                    shape[*dim] / count,
                    traffic.bytes,
                    traffic.port_cycles,
                    traffic.compute_cycles,
                    traffic.bound,
                )
            }
        };
        let refused = if self.refused.is_empty() {
            String::new()
        } else {
            format!("; refused: {}", self.refused.join("; "))
        };
        format!("{choice}{refused}")
    }
}
