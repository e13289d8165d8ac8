//! The shared-port bound of the tiling estimates. A tile's transfers run at the rate of a port
//! they have to themselves (the runtime gives a transfer the whole DDR port or GB bus while it
//! holds it), but the eight cores of a cluster take turns on it: however well a core overlaps
//! its loads with its compute, its tiles cannot go faster than its share of each port carries
//! their bytes. An estimate is the larger of the two, a roofline.

use super::{emit::Space, Machine};

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

    /// The estimate of `tiles` tiles on a core, each taking `latency` unless a port it shares
    /// takes longer.
    pub fn bound(self, tiles: f64, latency: f64) -> Estimate {
        Estimate { cycles: tiles * self.0.into_iter().fold(latency, f64::max), latency: tiles * latency }
    }
}

/// A tiling's estimated cycles, and their latency part, which decides between tilings that a
/// port bounds alike: with the same bytes on a saturated port, the one that overlaps more
/// still waits less whenever the port is not saturated after all.
#[derive(Debug, Clone, Copy)]
pub struct Estimate {
    pub cycles: f64,
    latency: f64,
}

impl Estimate {
    /// Whether this tiling is to be preferred to `other`.
    pub fn beats(&self, other: &Estimate) -> bool {
        (self.cycles, self.latency) < (other.cycles, other.latency)
    }
}
