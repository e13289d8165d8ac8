//! Which kernels a scheduled cluster program becomes, and where its tensors live (GraphTurbo
//! §4.3): liveness over the kernels in instance order, and when a cluster's GB cannot hold
//! every live tensor, the tensor chosen by the spill policy goes to DDR for its whole life.

use std::collections::BTreeMap;

/// Which tensor leaves the GB first when it overflows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spill {
    /// The one whose last use is furthest away (GraphTurbo §4.3).
    Longest,
    /// The largest, as usual allocators do (for comparison).
    Largest,
}

impl Spill {
    /// Parses the `spill` option.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "longest" => Ok(Spill::Longest),
            "largest" => Ok(Spill::Largest),
            other => Err(format!(
                "option 'spill': unknown policy '{other}' (available: longest, largest)"
            )),
        }
    }
}

/// A tensor the planner places: its bytes per cluster and the kernels it lives over.
#[derive(Debug, Clone)]
pub struct Tensor {
    pub bytes: usize,
    /// First and last kernel (inclusive) it must be allocated for.
    pub first: usize,
    pub last: usize,
    /// Already decided to be in DDR (a result written straight into the output).
    pub ddr: bool,
}

/// Decides which tensors spill to DDR so that at every kernel the GB-resident ones fit
/// `capacity` bytes less what the kernel's own intermediates need (`reserved`, per kernel);
/// returns, per tensor (by key), true when it is in DDR.
pub fn place<K: Ord + Clone>(
    tensors: &BTreeMap<K, Tensor>,
    reserved: &[usize],
    capacity: usize,
    policy: Spill,
) -> BTreeMap<K, bool> {
    let mut in_ddr: BTreeMap<K, bool> = tensors
        .iter()
        .map(|(key, tensor)| (key.clone(), tensor.ddr))
        .collect();
    for (kernel, &own) in reserved.iter().enumerate() {
        loop {
            let live: Vec<(&K, &Tensor)> = tensors
                .iter()
                .filter(|(key, t)| !in_ddr[*key] && t.first <= kernel && kernel <= t.last)
                .collect();
            let used: usize = live.iter().map(|(_, t)| t.bytes).sum();
            if used <= capacity.saturating_sub(own) || live.is_empty() {
                break;
            }
            let victim = match policy {
                Spill::Longest => live.iter().max_by_key(|(_, t)| (t.last, t.bytes)),
                Spill::Largest => live.iter().max_by_key(|(_, t)| (t.bytes, t.last)),
            };
            let (key, _) = victim.expect("an overfull GB holds something");
            in_ddr.insert((*key).clone(), true);
        }
    }
    in_ddr
}

/// GB bytes live at each kernel after placement, for reports.
pub fn peak<K: Ord>(
    tensors: &BTreeMap<K, Tensor>,
    in_ddr: &BTreeMap<K, bool>,
    kernels: usize,
) -> usize {
    (0..kernels)
        .map(|kernel| {
            tensors
                .iter()
                .filter(|(key, t)| !in_ddr[*key] && t.first <= kernel && kernel <= t.last)
                .map(|(_, t)| t.bytes)
                .sum()
        })
        .max()
        .unwrap_or(0)
}

/// Placement in an arena of elements (GraphTurbo §4.3: offsets reused as tensors die): first
/// fit from the bottom, and from the top for short-lived blocks ([`FirstFit::take_high`]).
#[derive(Debug)]
pub struct FirstFit {
    /// Free intervals (offset, length), sorted, coalesced.
    free: Vec<(usize, usize)>,
    /// The most elements taken at once (for reports: where they were taken does not count).
    pub peak: usize,
    /// Elements taken now.
    used: usize,
}

impl FirstFit {
    pub fn new(length: usize) -> Self {
        Self {
            free: if length > 0 {
                vec![(0, length)]
            } else {
                Vec::new()
            },
            peak: 0,
            used: 0,
        }
    }

    /// An offset for `length` elements (rounded to 16, 64 bytes) at the start of the lowest gap
    /// that holds them, None when no gap does.
    pub fn take(&mut self, length: usize) -> Option<usize> {
        let length = length.next_multiple_of(16);
        let slot = self.free.iter().position(|&(_, free)| free >= length)?;
        Some(self.take_from(slot, length, false))
    }

    /// An offset for `length` elements at the end of the highest gap that holds them: for
    /// short-lived blocks (a layer's weight copies), which then stay out of the low end where
    /// first fit lays the activations, so that an instance's activations land where the same
    /// instance before put them instead of around a copy prefetched at its boundary.
    pub fn take_high(&mut self, length: usize) -> Option<usize> {
        let length = length.next_multiple_of(16);
        let slot = self.free.iter().rposition(|&(_, free)| free >= length)?;
        Some(self.take_from(slot, length, true))
    }

    /// The `length` elements at `offset` (planned: [`offsets`](super::offsets)), if they are free.
    pub fn take_at(&mut self, offset: usize, length: usize) -> Option<usize> {
        let length = length.next_multiple_of(16);
        let slot = self
            .free
            .iter()
            .position(|&(start, free)| start <= offset && offset + length <= start + free)?;
        let (start, free) = self.free[slot];
        self.free[slot] = (start, offset - start);
        let after = (offset + length, start + free - offset - length);
        self.free.insert(slot + 1, after);
        self.free.retain(|&(_, free)| free > 0);
        self.used += length;
        self.peak = self.peak.max(self.used);
        Some(offset)
    }

    /// Takes `length` elements from the start (or the end, `high`) of free gap `slot`.
    fn take_from(&mut self, slot: usize, length: usize, high: bool) -> usize {
        let (offset, free) = self.free[slot];
        if free == length {
            self.free.remove(slot);
        } else if high {
            self.free[slot] = (offset, free - length);
        } else {
            self.free[slot] = (offset + length, free - length);
        }
        self.used += length;
        self.peak = self.peak.max(self.used);
        if high {
            offset + free - length
        } else {
            offset
        }
    }

    /// Returns the `length` elements at `offset`.
    pub fn give(&mut self, offset: usize, length: usize) {
        let length = length.next_multiple_of(16);
        self.used -= length;
        let slot = self.free.partition_point(|&(start, _)| start < offset);
        self.free.insert(slot, (offset, length));
        // Coalesce with the neighbours.
        if slot + 1 < self.free.len()
            && self.free[slot].0 + self.free[slot].1 == self.free[slot + 1].0
        {
            self.free[slot].1 += self.free[slot + 1].1;
            self.free.remove(slot + 1);
        }
        if slot > 0 && self.free[slot - 1].0 + self.free[slot - 1].1 == self.free[slot].0 {
            self.free[slot - 1].1 += self.free[slot].1;
            self.free.remove(slot);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(bytes: usize, first: usize, last: usize) -> Tensor {
        Tensor {
            bytes,
            first,
            last,
            ddr: false,
        }
    }

    #[test]
    fn the_longest_lived_or_the_largest_tensor_spills() {
        // Kernel 1 holds a (4, until kernel 3), b (6, until 1) and c (3, until 2): 13 > 10.
        let tensors: BTreeMap<&str, Tensor> = [
            ("a", tensor(4, 0, 3)),
            ("b", tensor(6, 1, 1)),
            ("c", tensor(3, 1, 2)),
        ]
        .into_iter()
        .collect();
        let longest = place(&tensors, &[0; 4], 10, Spill::Longest);
        assert_eq!(
            (longest["a"], longest["b"], longest["c"]),
            (true, false, false)
        );
        let largest = place(&tensors, &[0; 4], 10, Spill::Largest);
        assert_eq!(
            (largest["a"], largest["b"], largest["c"]),
            (false, true, false)
        );
        assert_eq!(peak(&tensors, &longest, 4), 9);
        assert_eq!(peak(&tensors, &largest, 4), 7);
    }

    #[test]
    fn first_fit_reuses_freed_offsets_and_coalesces() {
        let mut arena = FirstFit::new(64);
        let (a, b, c) = (
            arena.take(16).unwrap(),
            arena.take(16).unwrap(),
            arena.take(16).unwrap(),
        );
        assert_eq!((a, b, c), (0, 16, 32));
        assert_eq!(arena.take(32), None, "16 elements are left");
        arena.give(b, 16);
        arena.give(a, 16);
        assert_eq!(arena.take(32), Some(0), "the two freed neighbours merged");
        assert_eq!(arena.take(5), Some(48), "sizes round up to 16 elements");
        assert_eq!(arena.peak, 64);
    }

    #[test]
    fn high_takes_come_from_the_top_and_coalesce_with_low_ones() {
        let mut arena = FirstFit::new(64);
        assert_eq!(arena.take_high(16), Some(48));
        assert_eq!(
            arena.take(16),
            Some(0),
            "low takes still start at the bottom"
        );
        assert_eq!(
            arena.take_high(8),
            Some(32),
            "rounded to 16 elements, below the first"
        );
        assert_eq!(
            arena.take_high(32),
            None,
            "16 elements are left, between 16 and 32"
        );
        arena.give(48, 16);
        arena.give(32, 16);
        assert_eq!(
            arena.take_high(48),
            Some(16),
            "the freed top merged with the middle gap"
        );
        assert_eq!(arena.peak, 64);
    }

    #[test]
    fn what_fits_stays_on_chip() {
        let tensors: BTreeMap<u32, Tensor> = [(0, tensor(5, 0, 1)), (1, tensor(5, 1, 2))]
            .into_iter()
            .collect();
        assert!(place(&tensors, &[0; 3], 10, Spill::Longest)
            .values()
            .all(|ddr| !ddr));
        // Kernel 1's intermediates need 4 bytes: one of its two live tensors must go.
        let placed = place(&tensors, &[0, 4, 0], 10, Spill::Longest);
        assert_eq!((placed[&0], placed[&1]), (false, true));
    }
}
