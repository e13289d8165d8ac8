//! The straight and branch patterns of Algorithm 2 (the diamond's are in [`super::diamonds`]), the
//! fork pattern that completes them, and the rules that decide them: rule (i), mirrored across
//! upsampling edges (§3.6), for straight, branch and fork merges, and the cost check that refuses
//! a merged subgraph no split of which fits.

use super::{
    explain::{describe, factor_text},
    grouping::{factor, Group, Grouping},
};
use crate::instance::split_info::Split;

impl Grouping<'_> {
    /// Rule (i) for `first -> second`; returns the merged group when it accepts.
    fn rule_one(&mut self, pattern: &str, first: usize, second: usize) -> Option<Group> {
        let attempt = self.attempt(1, &[first, second]);
        if self.refused.contains(&attempt) {
            return None;
        }
        let (a, b) = (&self.groups[&first], &self.groups[&second]);
        let merged = self.analysed(a.ops.iter().chain(&b.ops).copied().collect());
        // GraphTurbo §3.6: rule (i) is written for downsampling (SG2's tensors no larger than
        // SG1's); across an upsampling edge it is mirrored, so that SG2's larger factor does not
        // spread back to SG1 either.
        let upsampling = self.spatial_extent(second) > self.spatial_extent(first);
        let verdict = if !upsampling && factor(b.best) < factor(a.best) {
            Err(format!(
                "refused by rule (i): SG2's factor {} is smaller than SG1's {}",
                factor_text(b.best),
                factor_text(a.best)
            ))
        } else if upsampling && factor(a.best) < factor(b.best) {
            Err(format!(
                "refused by rule (i) mirrored for upsampling (§3.6): SG1's factor {} is smaller \
                 than SG2's {}",
                factor_text(a.best),
                factor_text(b.best)
            ))
        } else if merged.best.is_none() {
            Err(NO_SPLIT_FITS.to_owned())
        } else if factor(merged.best)
            > factor(b.best).min(if upsampling {
                factor(a.best)
            } else {
                usize::MAX
            })
        {
            Err(format!(
                "refused by rule (i): the merged factor {} exceeds SG2's {}",
                factor_text(merged.best),
                factor_text(b.best)
            ))
        } else {
            Ok(())
        };
        self.remark(second, || {
            format!(
                "{pattern} merge SG1 {} ({}) + SG2 {} ({}) -> {}: {}",
                self.label(first),
                describe(a.best),
                self.label(second),
                describe(b.best),
                describe(merged.best),
                match &verdict {
                    Ok(()) => "accepted by rule (i)".to_owned(),
                    Err(reason) => reason.clone(),
                }
            )
        });
        if verdict.is_err() {
            self.refused.insert(attempt);
        }
        verdict.ok().map(|()| merged)
    }

    /// Straight merges: SG1 is SG2's only producer and SG2 is SG1's only consumer.
    pub(super) fn straight_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for first in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&first) {
                    continue;
                }
                let (consumers, returned) = self.consumers(first);
                let [second] = consumers.iter().copied().collect::<Vec<_>>()[..] else {
                    continue;
                };
                if returned {
                    continue;
                }
                let (producers, reads_arguments) = self.producers(second);
                if reads_arguments || producers.len() != 1 {
                    continue;
                }
                if let Some(merged) = self.rule_one("straight", first, second) {
                    self.merge(&[first, second], merged);
                    changed = true;
                    progress = true;
                }
            }
        }
        changed
    }

    /// Branch merges: an exit with several producers absorbs a producer whose only consumer it is.
    pub(super) fn branch_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for exit in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&exit) {
                    continue;
                }
                let (producers, reads_arguments) = self.producers(exit);
                if producers.len() + usize::from(reads_arguments) < 2 {
                    continue;
                }
                for branch in producers.iter().rev().copied() {
                    let (consumers, returned) = self.consumers(branch);
                    if returned || consumers.len() != 1 {
                        continue;
                    }
                    if let Some(merged) = self.rule_one("branch", branch, exit) {
                        self.merge(&[branch, exit], merged);
                        changed = true;
                        progress = true;
                        break;
                    }
                }
            }
        }
        changed
    }

    /// Fork merges: an entry whose several consumers read nothing else and end the function
    /// (their results are only returned) merges with all of them, each pair under rule (i). It
    /// completes Algorithm 2 for a program with several results computed from one value, where
    /// no exit joins the paths: the segment before a layer cut along its channels that reads
    /// a subsampled copy of a value the segment goes on computing from (ResNet-50's stage-4
    /// projection), which would otherwise leave the value's producer and each branch in kernels
    /// of their own.
    pub(super) fn fork_merge(&mut self) -> bool {
        let mut changed = false;
        for entry in self.groups.keys().copied().collect::<Vec<_>>() {
            if !self.groups.contains_key(&entry) {
                continue;
            }
            let (consumers, returned) = self.consumers(entry);
            if returned || consumers.len() < 2 {
                continue;
            }
            let sinks = consumers.iter().all(|&consumer| {
                let (producers, arguments) = self.producers(consumer);
                let (readers, returned) = self.consumers(consumer);
                !arguments && producers.len() == 1 && readers.is_empty() && returned
            });
            if !sinks {
                continue;
            }
            let mut members = vec![entry];
            members.extend(consumers.iter().copied());
            let attempt = self.attempt(3, &members);
            if self.refused.contains(&attempt) {
                continue;
            }
            let merged = self.analysed_union(&members);
            let smallest = consumers
                .iter()
                .map(|group| factor(self.groups[group].best))
                .min()
                .unwrap_or(usize::MAX);
            let verdict = self.fork_verdict(entry, smallest, merged.best);
            self.remark(*consumers.iter().next().expect("consumers"), || {
                let parts: Vec<String> = consumers
                    .iter()
                    .map(|g| format!("{} ({})", self.label(*g), describe(self.groups[g].best)))
                    .collect();
                format!(
                    "fork merge of entry {} ({}) with {} -> {}: {}",
                    self.label(entry),
                    describe(self.groups[&entry].best),
                    parts.join(" + "),
                    describe(merged.best),
                    match &verdict {
                        Ok(()) => "accepted by rule (i)".to_owned(),
                        Err(reason) => reason.clone(),
                    }
                )
            });
            match verdict {
                Ok(()) => {
                    self.merge(&members, merged);
                    changed = true;
                }
                Err(_) => {
                    self.refused.insert(attempt);
                }
            }
        }
        changed
    }

    /// Rule (i) and the cost check for the fork from `entry` whose branches' smallest factor is
    /// `smallest` and whose merged split is `merged`: Ok when they accept, else the refusal.
    fn fork_verdict(
        &self,
        entry: usize,
        smallest: usize,
        merged: Option<Split>,
    ) -> Result<(), String> {
        let entry_factor = factor(self.groups[&entry].best);
        if smallest < entry_factor {
            Err(format!(
                "refused by rule (i): a branch's factor {smallest} is smaller than the \
                 entry's {}",
                factor_text(self.groups[&entry].best)
            ))
        } else if merged.is_none() {
            Err(NO_SPLIT_FITS.to_owned())
        } else if factor(merged) > smallest {
            Err(format!(
                "refused by rule (i): the merged factor {} exceeds the smallest branch's {}",
                factor_text(merged),
                smallest
            ))
        } else {
            Ok(())
        }
    }
}

/// The cost check's refusal.
pub(super) const NO_SPLIT_FITS: &str = "refused by the cost check: no split of the merged \
                                        subgraph fits without recomputing too much";
