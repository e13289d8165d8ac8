//! What the lowering decided, reported as remarks by the pass.

use std::collections::BTreeMap;

/// What the lowering decided, for remarks.
#[derive(Debug, Default)]
pub struct Summary {
    /// Kernels launched.
    pub kernels: usize,
    /// Clusters each kernel runs on.
    pub clusters: usize,
    /// Largest GB bytes of one cluster that instance outputs take at a kernel.
    pub gb_peak: usize,
    /// Largest GB bytes of one cluster that a kernel's intermediates take.
    pub arena_peak: usize,
    /// Tensors placed in DDR because the GB was full.
    pub spilled: usize,
    /// Intermediates of instances placed in DDR because their kernel's GB arena was full.
    pub spilled_intermediates: usize,
    /// On-chip tensors planned.
    pub planned: usize,
    /// Layers that copied weights (or a convolution its input from DDR) to the GB first, and
    /// layers that read weights.
    pub promotions: [usize; 2],
    /// LB instances computed per core (GraphTurbo's LB scope), and the reasons others of scope
    /// LB were lowered as GB instances, with their counts.
    pub per_core: usize,
    pub lowered_in_gb: BTreeMap<&'static str, usize>,
    /// Intermediates of per-core instances spilled from the LB to the GB.
    pub lb_spills: usize,
    /// Segments whose first kernel continued the last kernel of the segment before.
    pub joined: usize,
}

impl Summary {
    /// Adds what the lowering of one more segment decided.
    pub(super) fn add(&mut self, other: Summary) {
        self.kernels += other.kernels;
        self.clusters = self.clusters.max(other.clusters);
        self.gb_peak = self.gb_peak.max(other.gb_peak);
        self.arena_peak = self.arena_peak.max(other.arena_peak);
        self.spilled += other.spilled;
        self.spilled_intermediates += other.spilled_intermediates;
        self.planned += other.planned;
        self.promotions[0] += other.promotions[0];
        self.promotions[1] += other.promotions[1];
        self.per_core += other.per_core;
        for (why, count) in other.lowered_in_gb {
            *self.lowered_in_gb.entry(why).or_default() += count;
        }
        self.lb_spills += other.lb_spills;
        self.joined += other.joined;
    }
}
