//! The shared-port bound of the tiling estimates. A tile's transfers run at the rate of a port
//! they have to themselves (the runtime gives a transfer the whole DDR port or GB bus while it
//! holds it), but the eight cores of a cluster take turns on it: however well a core overlaps
//! its loads with its compute, its tiles cannot go faster than its share of each port carries
//! their bytes. An estimate is the larger of the two, a roofline; and a layer's tilings are
//! picked by it, within a tie band that the fewer instructions decide ([`Candidates::pick`]).

use super::emit::Space;
use crate::target::Machine;
use crate::tuning::{self, Decision, Select, Tuning};
use std::collections::BTreeMap;
use std::fmt::Debug;

/// Elements an epilogue loads per tile, by the space each operand lives in
/// ([`Epilogue::elements_by_space`](super::epilogue::Epilogue::elements_by_space)).
pub type SpaceElements = BTreeMap<Space, usize>;

/// The cycles a tile's epilogue operands take to load (f32), each at the rate of its own port,
/// one after the other.
pub fn load_cycles(elements: &SpaceElements, machine: &Machine) -> f64 {
    elements
        .iter()
        .map(|(&space, &count)| (count * 4) as f64 / space.link_bandwidth(machine))
        .sum()
}

/// The most runs of `run` consecutive tiles (out of `tiles`) that one core's share touches, the
/// tiles split over at most `cores` cores as the tile loops split them (core `c` of `n` takes
/// tiles `c·tiles/n` up to `(c+1)·tiles/n`): how often the busiest core loads what a run keeps
/// in LB.
pub fn runs_per_core(tiles: usize, cores: usize, run: usize) -> usize {
    let cores = cores.clamp(1, tiles.max(1));
    let run = run.max(1);
    (0..cores)
        .map(|core| {
            let (first, end) = (core * tiles / cores, (core + 1) * tiles / cores);
            if end > first {
                (end - 1) / run - first / run + 1
            } else {
                0
            }
        })
        .max()
        .unwrap_or(1)
        .max(1)
}

/// Cycles of each shared port (DDR, GB bus) one core's tile takes at its share of the port.
#[derive(Debug, Default, Clone, Copy)]
pub struct PortCycles([f64; 2]);

impl PortCycles {
    /// Counts `bytes` moved between the core's LB and `space` (nothing for LB↔LB, which shares
    /// no port).
    pub fn add(&mut self, space: Space, bytes: f64, machine: &Machine) {
        if let Some(port) = space.port() {
            self.0[port] += bytes / space.core_bandwidth(machine);
        }
    }

    /// Counts the epilogue operands' loads (f32), each on its own space's port.
    pub fn add_by_space(&mut self, elements: &SpaceElements, machine: &Machine) {
        for (&space, &count) in elements {
            self.add(space, (count * 4) as f64, machine);
        }
    }

    /// The estimate of `tiles` tiles on a core, each taking `latency` unless a port it shares
    /// takes longer, and issuing `instructions`.
    pub fn bound(self, tiles: f64, latency: f64, instructions: f64) -> Estimate {
        Estimate {
            cycles: tiles * self.0.into_iter().fold(latency, f64::max),
            latency: tiles * latency,
            instructions: tiles * instructions,
            ddr: tiles * self.0[0],
            tiles,
        }
    }
}

/// A tiling's estimated cycles, their latency part and the instructions a core issues.
#[derive(Debug, Clone, Copy)]
pub struct Estimate {
    /// The estimate proper: the busiest core's cycles.
    pub cycles: f64,
    latency: f64,
    instructions: f64,
    /// The cycles the busiest core's tiles hold its share of the cluster's DDR port.
    ddr: f64,
    /// The busiest core's tiles.
    tiles: f64,
}

impl Estimate {
    /// The cycles of the estimate that leave the cluster's DDR port idle: what a copy issued
    /// under the layer (the next layer's weights, GraphTurbo §4.4) takes of the port without
    /// delaying the layer's own transfers.
    pub fn ddr_idle(&self) -> f64 {
        (self.cycles - self.ddr).max(0.0)
    }

    /// The busiest core's tiles.
    pub fn tiles(&self) -> usize {
        self.tiles as usize
    }
}

/// Estimates closer than this fraction of the best are a tie: the estimate does not model the
/// queueing of eight cores' transfers on a port closely enough to tell such tilings apart.
const TIE: f64 = 0.02;

/// The tilings of a layer, collected as the search finds them.
pub struct Candidates<T>(Vec<(Estimate, T)>);

impl<T> Candidates<T> {
    pub fn new() -> Self {
        Self(Vec::new())
    }

    pub fn push(&mut self, estimate: Estimate, tiling: T) {
        self.0.push((estimate, tiling));
    }

    /// The position of the estimate's pick: among the tilings within [`TIE`] of the lowest
    /// estimate, the one issuing the fewest instructions (a simpler program, and less to record
    /// on the host), then the one with the lowest latency (with the same bytes on a saturated
    /// port, the one that overlaps more still waits less wherever the port is not saturated
    /// after all); the first found on a full tie.
    fn best_position(&self) -> Option<usize> {
        let lowest = self
            .0
            .iter()
            .map(|(estimate, _)| estimate.cycles)
            .fold(f64::INFINITY, f64::min);
        let mut best: Option<(usize, &Estimate)> = None;
        for (position, (estimate, _)) in self.0.iter().enumerate() {
            if estimate.cycles > lowest * (1.0 + TIE) {
                continue;
            }
            let key = (estimate.instructions, estimate.latency);
            if best.is_none_or(|(_, chosen)| key < (chosen.instructions, chosen.latency)) {
                best = Some((position, estimate));
            }
        }
        best.map(|(position, _)| position)
    }

    /// The tilings ranked: the estimate's pick, then the others by increasing estimate (in the
    /// order found on ties).
    fn ranking(self) -> Vec<(Estimate, T)> {
        let Some(first) = self.best_position() else {
            return Vec::new();
        };
        let mut rest: Vec<(usize, (Estimate, T))> = self.0.into_iter().enumerate().collect();
        let best = rest.remove(first).1;
        rest.sort_by(|(a, (x, _)), (b, (y, _))| x.cycles.total_cmp(&y.cycles).then(a.cmp(b)));
        std::iter::once(best)
            .chain(rest.into_iter().map(|(_, candidate)| candidate))
            .collect()
    }

    /// The tiling `tuning` takes for the layer named by `key` ([`tuning::pick`]), with its
    /// estimate and the decision the kernel records. Without tuning the estimate's pick, with no
    /// ranking made and no key: the cost models ask for thousands of estimates.
    pub fn pick(
        self,
        tuning: &Tuning,
        key: impl FnOnce() -> String,
    ) -> Option<(Estimate, T, Decision)>
    where
        T: Debug,
    {
        let select = tuning.tilings();
        if let Select::Estimate = select {
            let position = self.best_position()?;
            let (estimate, tiling) = self.0.into_iter().nth(position)?;
            let decision = Decision::estimated(format!("{tiling:?}"), estimate.cycles);
            return Some((estimate, tiling, decision));
        }
        let cycles = |estimate: &Estimate| estimate.cycles;
        tuning::pick(self.ranking(), (cycles, tuning::PRUNE), select, key())
    }
}
