//! The shared transfer resources of a cluster, its [`Port`]s, each one timeline of exclusive
//! reservations shared by the DMAs of all its cores. A transfer takes the earliest free
//! interval at or after the time it is ready, filling gaps left by earlier reservations, so a
//! port is never oversubscribed and its total throughput equals its bandwidth.

use serde::Serialize;
use std::collections::BTreeMap;
use turbine_targets::MemLevel;

/// A transfer resource shared by the cores of a cluster. The DDR port and the on-chip GB bus are
/// separate (DESIGN.md §8): a DDR prefetch does not hold back GB↔LB traffic, and the reverse.
/// LB↔LB copies go over the cluster crossbar, a dedicated path per pair of cores, and share
/// nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Port {
    /// The cluster's DDR port: every transfer with DDR at one end (DDR↔LB, DDR↔GB, DDR↔DDR).
    Ddr,
    /// The bus between the cluster's GB and its cores' LBs: GB↔LB and GB↔GB.
    GbBus,
}

impl Port {
    /// Every port, in report order.
    pub const ALL: [Port; 2] = [Port::Ddr, Port::GbBus];

    /// The port a DMA between these levels holds, None for LB↔LB.
    pub fn of(src: MemLevel, dst: MemLevel) -> Option<Port> {
        use MemLevel::*;
        match (src, dst) {
            (Ddr, _) | (_, Ddr) => Some(Port::Ddr),
            (Gb, _) | (_, Gb) => Some(Port::GbBus),
            (Lb, Lb) => None,
        }
    }

    /// Its name in reports and traces.
    pub fn name(self) -> &'static str {
        match self {
            Port::Ddr => "ddr port",
            Port::GbBus => "gb bus",
        }
    }

    /// Its index among [`Port::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Busy intervals of one link, sorted, disjoint and non-adjacent (adjacent ones are merged).
#[derive(Debug, Default, Clone)]
pub(crate) struct LinkTimeline {
    busy: BTreeMap<u64, u64>,
}

impl LinkTimeline {
    /// Reserves `duration` cycles starting at the earliest free time not before `earliest`;
    /// returns that start.
    pub fn reserve(&mut self, earliest: u64, duration: u64) -> u64 {
        let mut t = earliest;
        if let Some((_, &end)) = self.busy.range(..=t).next_back() {
            t = t.max(end);
        }
        for (&start, &end) in self.busy.range(t..) {
            if start >= t.saturating_add(duration) {
                break;
            }
            t = t.max(end);
        }
        let mut start = t;
        let mut end = t.saturating_add(duration);
        if let Some((&s, &e)) = self.busy.range(..=start).next_back() {
            if e == start {
                start = s;
                self.busy.remove(&s);
            }
        }
        if let Some(e) = self.busy.remove(&end) {
            end = e;
        }
        self.busy.insert(start, end);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::{LinkTimeline, Port};
    use turbine_targets::MemLevel::*;

    #[test]
    fn ddr_and_the_gb_bus_are_separate_ports() {
        assert_eq!(Port::of(Ddr, Lb), Some(Port::Ddr));
        assert_eq!(Port::of(Gb, Ddr), Some(Port::Ddr));
        assert_eq!(Port::of(Ddr, Ddr), Some(Port::Ddr));
        assert_eq!(Port::of(Gb, Lb), Some(Port::GbBus));
        assert_eq!(Port::of(Gb, Gb), Some(Port::GbBus));
        assert_eq!(Port::of(Lb, Lb), None);
    }

    #[test]
    fn reservations_queue_and_fill_gaps() {
        let mut link = LinkTimeline::default();
        assert_eq!(link.reserve(0, 10), 0);
        assert_eq!(link.reserve(5, 10), 10);
        assert_eq!(link.reserve(40, 10), 40);
        // Fits in the gap [20, 40).
        assert_eq!(link.reserve(0, 20), 20);
        // No gap left before 50.
        assert_eq!(link.reserve(0, 1), 50);
        assert_eq!(link.busy.len(), 1);
    }
}
