//! SplitInfo of a subgraph (GraphTurbo §3.1, Algorithm 1) and its best split (Eq. 1), with the
//! footprint model they rest on (docs/Grouping.md).
//!
//! A subgraph is a set of graph ops (in topological order) with one output that matters for
//! splitting: the sink, the last op's result. Splitting the sink along one of its dimensions into
//! `f` slices splits every op whose output dimension maps to it (through elementwise ops, the batch
//! and spatial dimensions of convolutions and pools, the rows and columns of matrix products, ...),
//! each into `f` slices; an op the split does not reach must be computed whole by every slice.

mod reach;

use crate::graph_view::{Node, TensorType, ValueId};
pub use reach::{reach, Reach, Span};
use std::collections::HashMap;
use turbine_dialects::ops::graph;

/// One SplitInfo tuple `(split_d, n_d, f_d, d)`; `split_d` is implied (only splittable
/// dimensions are recorded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// `d`: the dimension of the sink (0 outermost).
    pub dim: usize,
    /// `f_d`: the number of slices.
    pub factor: usize,
    /// `n_d`: how many ops of the subgraph the split reaches.
    pub ops: usize,
}

impl Split {
    /// The tuple as the dialect's `#instance.split` holds it.
    pub fn tuple(&self) -> turbine_dialects::attributes::instance::Split {
        turbine_dialects::attributes::instance::Split {
            dim: self.dim as i64,
            factor: self.factor as i64,
            ops: self.ops as i64,
        }
    }
}

/// What the footprint model needs of the target.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Bytes an instance may keep live: the memory it runs in (hw-group's `scope`).
    pub capacity: usize,
    /// Largest tolerated extra work from slices recomputing what neighbouring slices also compute
    /// (halos of windows, ops the split does not reach), as a fraction of the subgraph's work.
    pub max_recompute: f64,
}

/// The subgraph as the analysis sees it: its ops in topological order, and which values are
/// weights (staged separately, not part of the footprint).
pub struct Subgraph<'p> {
    /// Ops in topological order; the last one's first result is the sink.
    pub ops: Vec<&'p Node>,
    /// Values that are weights or constants.
    pub weights: &'p dyn Fn(ValueId) -> bool,
    /// Values read after the subgraph (they stay live to its end).
    pub escapes: &'p dyn Fn(ValueId) -> bool,
    /// The type of every value the ops read.
    pub types: &'p dyn Fn(ValueId) -> Option<&'p TensorType>,
    /// The position of the op making each value made in the subgraph.
    produced_at: HashMap<ValueId, usize>,
    /// The position of the last op reading each value the ops read.
    last_read: HashMap<ValueId, usize>,
}

/// Work of an op (multiply-adds for convolutions and matrix products, one per output element
/// otherwise), for the recomputation estimate and the cluster split's bound.
pub(crate) fn work<'s>(
    node: &Node,
    shape_of_operand: &dyn Fn(usize) -> Option<&'s [usize]>,
) -> f64 {
    let Some((_, output)) = node.results.first() else {
        return 0.0;
    };
    let elements: usize = output.shape.iter().product();
    let per_element = match node.graph_kind() {
        Some(graph::Kind::Conv2d) => shape_of_operand(1)
            .map(|filter| filter[1..].iter().product::<usize>())
            .unwrap_or(1),
        Some(graph::Kind::Matmul | graph::Kind::BatchMatmul | graph::Kind::Gemm) => {
            shape_of_operand(0)
                .map(|lhs| *lhs.last().unwrap_or(&1))
                .unwrap_or(1)
        }
        _ => 1,
    };
    (elements * per_element) as f64
}

impl<'p> Subgraph<'p> {
    /// The subgraph of `ops` (in topological order), with what the analysis asks of the values
    /// they read and make.
    pub fn new(
        ops: Vec<&'p Node>,
        weights: &'p dyn Fn(ValueId) -> bool,
        escapes: &'p dyn Fn(ValueId) -> bool,
        types: &'p dyn Fn(ValueId) -> Option<&'p TensorType>,
    ) -> Self {
        // Sized for every operand and result, so that the maps never grow.
        let reads = ops.iter().map(|node| node.operands.len()).sum();
        let made = ops.iter().map(|node| node.results.len()).sum();
        let mut produced_at = HashMap::with_capacity(made);
        let mut last_read = HashMap::with_capacity(reads);
        for (position, node) in ops.iter().enumerate() {
            for &operand in &node.operands {
                last_read.insert(operand, position);
            }
            for (value, _) in &node.results {
                produced_at.entry(*value).or_insert(position);
            }
        }
        Self {
            ops,
            weights,
            escapes,
            types,
            produced_at,
            last_read,
        }
    }

    fn shape(&self, value: ValueId) -> Option<&'p [usize]> {
        (self.types)(value).map(|r#type| r#type.shape.as_slice())
    }

    fn producer(&self, value: ValueId) -> Option<usize> {
        self.produced_at.get(&value).copied()
    }

    /// The peak footprint: executing the ops in order, the largest sum of the activation tensors
    /// live at one op — the subgraph's inputs from their first to their last reader in it, every
    /// result from the op that makes it until its last reader (or the end, when a consumer outside
    /// reads it), and the op's own operands and result. An elementwise op writes its result over an
    /// operand of the same size that dies with it (in place, as the kernel generator reuses
    /// buffers, §4.3). Weights are staged layer by layer in a fixed buffer and not counted.
    pub fn peak(&self) -> usize {
        let last_read = |value: ValueId| self.last_read.get(&value).copied();
        // Every activation tensor by value: (bytes, first step live, last step live).
        let mut tensors: HashMap<ValueId, (usize, usize, usize)> =
            HashMap::with_capacity(self.produced_at.len() + self.last_read.len());
        let end = self.ops.len();
        for (step, node) in self.ops.iter().enumerate() {
            for &operand in &node.operands {
                if (self.weights)(operand)
                    || self.producer(operand).is_some()
                    || tensors.contains_key(&operand)
                {
                    continue;
                }
                // An input is loaded for its first reader and kept until its last.
                let last = last_read(operand).unwrap_or(step);
                let bytes = (self.types)(operand).map(TensorType::bytes).unwrap_or(0);
                tensors.insert(operand, (bytes, step, last));
            }
            for (value, r#type) in &node.results {
                let last = if (self.escapes)(*value) {
                    end
                } else {
                    last_read(*value).unwrap_or(step)
                };
                tensors.insert(*value, (r#type.bytes(), step, last));
            }
        }
        // The bytes live at each step, summed over the steps as tensors start and end.
        let mut starting = vec![0usize; end + 1];
        let mut ending = vec![0usize; end + 2];
        for &(bytes, first, last) in tensors.values().filter(|t| t.1 <= t.2) {
            starting[first] += bytes;
            ending[last + 1] += bytes;
        }
        let mut peak = 0;
        let mut running = 0usize;
        for (step, node) in self.ops.iter().enumerate() {
            running = running + starting[step] - ending[step];
            let mut live = running;
            if node.elementwise {
                let output = node.results.first().map(|(_, t)| t.bytes()).unwrap_or(0);
                let dying = node.operands.iter().any(|operand| {
                    tensors
                        .get(operand)
                        .is_some_and(|t| t.2 == step && t.0 == output)
                });
                if dying {
                    live -= output;
                }
            }
            peak = peak.max(live);
        }
        peak
    }

    /// For splitting the sink along `dim`: per op (by position), the dimension of its output the
    /// split reaches and the per-slice extent along it for `factor` slices; None for ops it does
    /// not reach.
    fn propagate(&self, dim: usize, factor: usize) -> Vec<Option<(usize, usize)>> {
        let count = self.ops.len();
        let mut reached: Vec<Option<(usize, usize)>> = vec![None; count];
        let mut conflict = vec![false; count];
        let Some(sink) = self.ops.last() else {
            return reached;
        };
        let sink_size = sink.results[0].1.shape[dim];
        reached[count - 1] = Some((dim, sink_size / factor));
        for position in (0..count).rev() {
            let node = self.ops[position];
            let Some((out_dim, extent)) = reached[position] else {
                continue;
            };
            if conflict[position] {
                reached[position] = None;
                continue;
            }
            for (index, &operand) in node.operands.iter().enumerate() {
                let Some(producer) = self.producer(operand) else {
                    continue;
                };
                let Some(operand_shape) = self.shape(operand) else {
                    continue;
                };
                let mapped = reach(node, out_dim, index, operand_shape).and_then(|reach| {
                    let size = operand_shape[reach.dim];
                    let extent = match reach.span {
                        Span::Same => extent,
                        Span::Window {
                            stride,
                            extent: window,
                        } => {
                            let window = if node.is(graph::Kind::Conv2d) {
                                let filter = self.shape(node.operands[1])?;
                                (filter[reach.dim] - 1) * window + 1
                            } else {
                                window
                            };
                            ((extent - 1) * stride + window).min(size)
                        }
                        Span::Resample { input, output } => {
                            ((extent * input).div_ceil(output) + 1).min(size)
                        }
                    };
                    (size % factor == 0 || reach.span != Span::Same).then_some((reach.dim, extent))
                });
                match (mapped, reached[producer]) {
                    (Some(found), None) if !conflict[producer] => reached[producer] = Some(found),
                    (Some((d, e)), Some((known, k))) if d == known => {
                        reached[producer] = Some((d, e.max(k)))
                    }
                    _ => {
                        conflict[producer] = true;
                        reached[producer] = None;
                    }
                }
            }
        }
        reached
    }

    /// Extra work of a split into `factor` slices that reaches the ops as `reached` says
    /// ([`Subgraph::propagate`]), as a fraction of the subgraph's work: halo rows that
    /// neighbouring slices both compute, and ops the split does not reach, which every slice
    /// computes whole.
    fn recompute(&self, reached: &[Option<(usize, usize)>], factor: usize) -> f64 {
        let mut total = 0.0;
        let mut split = 0.0;
        for (node, reach) in self.ops.iter().zip(reached) {
            let operand_shape = |index: usize| {
                node.operands
                    .get(index)
                    .and_then(|&value| self.shape(value))
            };
            let work = work(node, &operand_shape);
            total += work;
            split += match reach {
                Some((out_dim, extent)) => {
                    let size = node.results[0].1.shape[*out_dim] as f64;
                    work * (factor * extent) as f64 / size
                }
                None => work * factor as f64,
            };
        }
        if total == 0.0 {
            0.0
        } else {
            split / total - 1.0
        }
    }

    /// Algorithm 1: for each dimension of the sink, outermost first, the smallest factor among
    /// 1 (when the whole subgraph fits), 2, 4, 8 and the larger divisors of the dimension whose
    /// slice footprint `ceil(peak / v)` fits the budget; then `n_d`, the ops the split reaches
    /// with a dimension the factor divides.
    /// A dimension whose split would recompute more than the budget allows is not recorded.
    pub fn split_info(&self, budget: &Budget) -> Vec<Split> {
        let Some(sink) = self.ops.last() else {
            return Vec::new();
        };
        let Some((_, sink_type)) = sink.results.first() else {
            return Vec::new();
        };
        let peak = self.peak();
        // The fewest slices whose footprint `ceil(peak / v)` fits; none when nothing fits.
        let needed = match budget.capacity {
            0 => (peak == 0).then_some(1),
            capacity => Some(peak.div_ceil(capacity)),
        };
        let mut info = Vec::new();
        for (dim, &size) in sink_type.shape.iter().enumerate() {
            // A subgraph that fits whole needs one instance (GraphTurbo Fig. 3b's last stage).
            let Some(factor) = needed.and_then(|needed| smallest_factor(size, needed)) else {
                continue;
            };
            let reached = self.propagate(dim, factor);
            if self.recompute(&reached, factor) > budget.max_recompute {
                continue;
            }
            let ops = self
                .ops
                .iter()
                .zip(&reached)
                .filter(|(node, reach)| {
                    reach.is_some_and(|(d, _)| node.results[0].1.shape[d] % factor == 0)
                })
                .count();
            info.push(Split { dim, factor, ops });
        }
        info
    }
}

/// The smallest of 1, 2, 4, 8 and the divisors of `size` above 8 that divide `size` and are at
/// least `needed`: the factors Algorithm 1 tries, in its order. Divisors come in pairs around the
/// square root, so the search takes at most `sqrt(size)` steps, whatever the dimension's size
/// (an empty tensor's other dimensions may be any size).
fn smallest_factor(size: usize, needed: usize) -> Option<usize> {
    let divides = |v: usize| size.is_multiple_of(v);
    if let Some(small) = [1, 2, 4, 8]
        .into_iter()
        .find(|&v| v >= needed && divides(v))
    {
        return Some(small);
    }
    // A divisor `v` of `size` above 8 is either at most `sqrt(size)` or `size / w` for a divisor
    // `w` at most `sqrt(size)`; the smallest one at least `needed` is the first found below the
    // root, else the cofactor of the largest divisor whose cofactor still qualifies.
    let threshold = needed.max(9);
    let mut below = None;
    let mut above = None;
    let mut w = 1;
    while w <= size / w {
        if divides(w) {
            if w >= threshold && below.is_none() {
                below = Some(w);
            }
            let cofactor = size / w;
            if cofactor >= threshold {
                above = Some(cofactor);
            }
        }
        w += 1;
    }
    below.or(above)
}

/// Eq. 1: the split with lexmax(n_d, -f_d, -d).
pub fn best_split(info: &[Split]) -> Option<Split> {
    info.iter().copied().max_by_key(|split| {
        (
            split.ops,
            std::cmp::Reverse(split.factor),
            std::cmp::Reverse(split.dim),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::smallest_factor;

    /// Algorithm 1's order, tried one by one.
    fn tried(size: usize, needed: usize) -> Option<usize> {
        let mut candidates: Vec<usize> = [1, 2, 4, 8]
            .into_iter()
            .filter(|v| size.is_multiple_of(*v))
            .collect();
        candidates.extend((9..=size).filter(|v| size.is_multiple_of(*v)));
        candidates.into_iter().find(|&v| v >= needed)
    }

    #[test]
    fn smallest_factor_takes_algorithm_one_order() {
        for size in 0..300 {
            for needed in 0..40 {
                assert_eq!(
                    smallest_factor(size, needed),
                    tried(size, needed),
                    "{size} {needed}"
                );
            }
        }
        // An empty tensor's other dimension: one slice fits whatever its size.
        assert_eq!(smallest_factor(1 << 40, 0), Some(1));
    }
}
