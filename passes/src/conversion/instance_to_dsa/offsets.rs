//! Where an instance's intermediates go in the kernel's GB arena, planned over the whole
//! instance before its layers are lowered (GraphTurbo §4.3, buffers reused as tensors die).
//!
//! Placed one by one as the layers produce them (first fit), a bottleneck block's output lands
//! above a smaller tensor still live beside it, and the next block's output, as large, finds no
//! gap once its residual and its inputs are placed: ResNet-50's stage-1 blocks (3.2 MB each of
//! an 8 MB GB) then spilled one output in two to DDR when the projection absorbed the block's
//! last convolution. Planned knowing every live range, the outputs alternate between two
//! places. The plan takes the largest first, each at the lowest offset clear of those already
//! placed whose lives overlap its own (greedy by size, as static allocators of inference
//! runtimes do); the emission takes a planned offset when the arena has it free, else first fit.

use super::operands::{read_as_conv_inputs, unit_steps};
use crate::graph_view::{FunctionView, ValueId};
use crate::kernels::fusion;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// Whether `value` of an instance's `body` is never stored: a convolution's result or an
/// epilogue step's but the last (`epilogues`, the ops fused after convolutions), or the result of
/// a convolution a later layer absorbs (`absorbed_into`).
pub(super) fn transient(
    body: &FunctionView,
    epilogues: &BTreeSet<usize>,
    absorbed_into: &BTreeMap<usize, usize>,
    value: ValueId,
) -> bool {
    let producer = body.producer(value);
    producer.is_some_and(|p| absorbed_into.contains_key(&p))
        || (producer.is_some_and(|p| epilogues.contains(&p) || body.ops[p].is(graph::Kind::Conv2d))
            && matches!(body.readers(value), [reader] if epilogues.contains(reader)))
}

/// [`planned`] for an instance's `body` lowered in the GB: reshapes and the windows convolutions
/// read in place are views; a convolution's result and its epilogue's steps but the last
/// (`epilogues`, the ops fused after convolutions) are never stored, nor are the results of the
/// convolutions a later layer absorbs (`absorbed_into`), whose reads happen at that layer.
pub(super) fn instance_offsets(
    body: &FunctionView,
    capacity: usize,
    epilogues: &BTreeSet<usize>,
    absorbed_into: &BTreeMap<usize, usize>,
) -> BTreeMap<ValueId, usize> {
    let views = |index: usize| {
        let op = &body.ops[index];
        matches!(
            op.graph_kind(),
            Some(graph::Kind::Reshape | graph::Kind::Flatten)
        ) || (op.is(graph::Kind::Slice)
            && unit_steps(op)
            && read_as_conv_inputs(body, op.results[0].0))
    };
    let transient = |value: ValueId| transient(body, epilogues, absorbed_into, value);
    let read_at = |reader: usize| fusion::read_at(absorbed_into, reader);
    planned(body, capacity, &views, &transient, &read_at)
}

/// An intermediate to place: its elements and the ops (inclusive) it lives over.
#[derive(Debug, Clone, Copy)]
struct Live {
    elements: usize,
    first: usize,
    last: usize,
}

/// The planned offset (in elements, 16-aligned) of each intermediate of `body` that fits in
/// `capacity` elements. An intermediate is a result of an op that is not yielded, not a view of
/// another (reshapes and `views`, which share their source's buffer and extend its life) and not
/// `transient` (a step of a fused epilogue, an absorbed convolution's product: never stored).
/// Its life ends at its last reader, `read_at` mapping a reader to the op where the read happens.
fn planned(
    body: &FunctionView,
    capacity: usize,
    views: &dyn Fn(usize) -> bool,
    transient: &dyn Fn(ValueId) -> bool,
    read_at: &dyn Fn(usize) -> usize,
) -> BTreeMap<ValueId, usize> {
    let yielded = body.returned();
    // The last op reading a value or a view of it.
    let last_read = |value: ValueId| -> usize {
        let mut last = 0;
        let mut frontier = vec![value];
        while let Some(current) = frontier.pop() {
            for &reader in body.readers(current).iter() {
                if views(reader) {
                    frontier.extend(body.ops[reader].results.iter().map(|(result, _)| *result));
                } else {
                    last = last.max(read_at(reader));
                }
            }
        }
        last
    };
    let mut lives: Vec<(ValueId, Live)> = Vec::new();
    for (index, op) in body.ops.iter().enumerate() {
        if op.is_terminator() || views(index) {
            continue;
        }
        for (value, r#type) in &op.results {
            if yielded.contains(value) || body.readers(*value).is_empty() || transient(*value) {
                continue;
            }
            let elements = r#type.shape.iter().product::<usize>().next_multiple_of(16);
            lives.push((
                *value,
                Live {
                    elements,
                    first: index,
                    last: last_read(*value).max(index),
                },
            ));
        }
    }
    let offsets = place(
        &lives.iter().map(|(_, live)| *live).collect::<Vec<_>>(),
        capacity,
    );
    lives
        .iter()
        .zip(offsets)
        .filter_map(|((value, _), offset)| Some((*value, offset?)))
        .collect()
}

/// The offset of each of `lives` (in their order), largest first, each at the lowest offset
/// clear of those placed before it whose lives overlap its own; none for those that would end
/// beyond `capacity`.
fn place(lives: &[Live], capacity: usize) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..lives.len()).collect();
    // Largest first; among equals, the earliest.
    order.sort_by_key(|&i| (std::cmp::Reverse(lives[i].elements), lives[i].first));
    let mut offsets = vec![None; lives.len()];
    let span = lives.iter().map(|live| live.last + 1).max().unwrap_or(0);
    let mut placed = Placed::new(span);
    for i in order {
        let live = lives[i];
        let mut taken: Vec<(usize, usize)> = placed
            .overlapping(live.first, live.last)
            .into_iter()
            .map(|other| {
                let offset = offsets[other].expect("placed lives have offsets");
                (offset, offset + lives[other].elements)
            })
            .collect();
        taken.sort_unstable();
        let mut offset = 0;
        for (start, end) in taken {
            if offset + live.elements <= start {
                break;
            }
            offset = offset.max(end);
        }
        if offset + live.elements <= capacity {
            placed.insert(i, live.first, live.last);
            offsets[i] = Some(offset);
        }
    }
    offsets
}

/// The lives placed so far, found by overlap in time in time proportional to how many overlap:
/// those alive at a query's first op through a segment tree over the ops (each life kept at the
/// nodes that cover its span), the others, which start inside the query, by their first op.
struct Placed {
    /// Leaves (ops) of the segment tree: a power of two at least the ops' count.
    leaves: usize,
    /// The lives covering each node's whole range of ops, by node (the root is node 1).
    covering: Vec<Vec<usize>>,
    /// The lives by their first op.
    by_first: BTreeMap<usize, Vec<usize>>,
}

impl Placed {
    fn new(span: usize) -> Self {
        let leaves = span.max(1).next_power_of_two();
        Self {
            leaves,
            covering: vec![Vec::new(); 2 * leaves],
            by_first: BTreeMap::new(),
        }
    }

    /// Records life `id`, alive from op `first` to op `last` inclusive.
    fn insert(&mut self, id: usize, first: usize, last: usize) {
        self.by_first.entry(first).or_default().push(id);
        let mut stack = vec![(1, 0, self.leaves - 1)];
        while let Some((node, low, high)) = stack.pop() {
            if last < low || high < first {
                continue;
            }
            if first <= low && high <= last {
                self.covering[node].push(id);
                continue;
            }
            let middle = (low + high) / 2;
            stack.push((2 * node, low, middle));
            stack.push((2 * node + 1, middle + 1, high));
        }
    }

    /// The lives recorded whose span overlaps ops `first` to `last`, each once.
    fn overlapping(&self, first: usize, last: usize) -> Vec<usize> {
        let mut found = Vec::new();
        // Alive at `first`: kept at the nodes on the way from the root to its leaf.
        let (mut node, mut low, mut high) = (1, 0, self.leaves - 1);
        loop {
            found.extend_from_slice(&self.covering[node]);
            if low == high {
                break;
            }
            let middle = (low + high) / 2;
            if first <= middle {
                (node, high) = (2 * node, middle);
            } else {
                (node, low) = (2 * node + 1, middle + 1);
            }
        }
        // Starting after `first`, up to `last`.
        for ids in self.by_first.range(first + 1..=last).map(|(_, ids)| ids) {
            found.extend_from_slice(ids);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn live(elements: usize, first: usize, last: usize) -> Live {
        Live {
            elements,
            first,
            last,
        }
    }

    /// ResNet's stage-1 residual chain: each block's output (4 units) lives from its block to
    /// the next block's end, beside 1-unit intermediates, in an arena of 10 units: the outputs
    /// alternate between two places, the small ones fill what is left.
    #[test]
    fn block_outputs_alternate() {
        let lives = [
            live(4, 0, 5),
            live(1, 1, 3),
            live(1, 3, 5),
            live(4, 5, 10),
            live(1, 6, 8),
            live(1, 8, 10),
            live(4, 10, 15),
        ];
        assert_eq!(
            place(&lives, 10),
            [
                Some(0),
                Some(4),
                Some(8),
                Some(4),
                Some(0),
                Some(8),
                Some(0)
            ]
        );
    }

    /// What does not fit is left to first fit.
    #[test]
    fn beyond_capacity_is_unplanned() {
        let lives = [live(6, 0, 2), live(6, 1, 3), live(2, 0, 3)];
        assert_eq!(place(&lives, 10), [Some(0), None, Some(6)]);
    }
}
