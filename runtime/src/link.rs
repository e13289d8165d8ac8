//! The off-core link of a cluster: one timeline of exclusive reservations shared by the DMAs of
//! all its cores (traffic between DDR or GB and anything). A transfer takes the earliest free
//! interval at or after the time it is ready, filling gaps left by earlier reservations, so
//! the link is never oversubscribed and its total throughput equals its bandwidth.

use std::collections::BTreeMap;

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
            if start >= t + duration {
                break;
            }
            t = t.max(end);
        }
        let mut start = t;
        let mut end = t + duration;
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
    use super::LinkTimeline;

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
