//! Sets of element indices touched by an access, as sorted disjoint half-open intervals. The
//! race check compares footprints exactly (not by bounding box), so cores that write
//! interleaved column blocks of one buffer are not mistaken for racing.

/// A set of element indices, stored as sorted, disjoint, non-adjacent `[start, end)` runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Footprint {
    runs: Vec<(u64, u64)>,
}

impl Footprint {
    /// The empty set.
    pub fn empty() -> Footprint {
        Footprint { runs: Vec::new() }
    }

    /// The set covering the given runs (in any order, possibly overlapping or empty).
    pub fn from_runs(mut runs: Vec<(u64, u64)>) -> Footprint {
        runs.retain(|&(s, e)| s < e);
        runs.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(runs.len());
        for (s, e) in runs {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Footprint { runs: merged }
    }

    /// True when no index is in the set.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The runs, sorted.
    pub fn runs(&self) -> &[(u64, u64)] {
        &self.runs
    }

    /// The union of two sets.
    pub fn union(&self, other: &Footprint) -> Footprint {
        // Most accesses only read or only write a buffer: nothing to merge then.
        if other.is_empty() {
            return self.clone();
        }
        if self.is_empty() {
            return other.clone();
        }
        let mut runs = Vec::with_capacity(self.runs.len() + other.runs.len());
        runs.extend_from_slice(&self.runs);
        runs.extend_from_slice(&other.runs);
        Footprint::from_runs(runs)
    }

    /// The smallest index both sets contain, if any.
    pub fn first_common(&self, other: &Footprint) -> Option<u64> {
        let (a, b) = (&self.runs, &other.runs);
        if a.is_empty() || b.is_empty() || a[a.len() - 1].1 <= b[0].0 || b[b.len() - 1].1 <= a[0].0
        {
            return None;
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() && j < b.len() {
            let start = a[i].0.max(b[j].0);
            let end = a[i].1.min(b[j].1);
            if start < end {
                return Some(start);
            }
            if a[i].1 <= b[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        None
    }

    /// True when every index of `other` is in `self`.
    pub fn contains(&self, other: &Footprint) -> bool {
        let (Some(&(first, _)), Some(&(_, last))) = (other.runs.first(), other.runs.last()) else {
            return true;
        };
        // The race check asks this of every live access against each new one, most of them
        // elsewhere in the buffer: reject those by their bounds, and find runs by bisection,
        // not by walking a tile's thousands of row runs.
        match (self.runs.first(), self.runs.last()) {
            (Some(&(start, _)), Some(&(_, end))) if start <= first && last <= end => {}
            _ => return false,
        }
        let mut i = 0;
        for &(s, e) in &other.runs {
            i += self.runs[i..].partition_point(|&(_, end)| end <= s);
            match self.runs.get(i) {
                Some(&(rs, re)) if rs <= s && e <= re => {}
                _ => return false,
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::Footprint;

    #[test]
    fn runs_are_merged_and_sorted() {
        let f = Footprint::from_runs(vec![(5, 7), (0, 2), (2, 3), (6, 9), (4, 4)]);
        assert_eq!(f.runs(), &[(0, 3), (5, 9)]);
    }

    #[test]
    fn intersection_and_containment() {
        let a = Footprint::from_runs(vec![(0, 4), (8, 12)]);
        let b = Footprint::from_runs(vec![(4, 8)]);
        let c = Footprint::from_runs(vec![(3, 5)]);
        assert_eq!(a.first_common(&b), None);
        assert_eq!(a.first_common(&c), Some(3));
        assert!(a.union(&b).contains(&c));
        assert!(!a.contains(&c));
        assert!(a.contains(&Footprint::from_runs(vec![(9, 11), (1, 2)])));
        assert!(a.contains(&Footprint::empty()));
    }
}
