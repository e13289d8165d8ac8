//! SplitInfo of a subgraph (GraphTurbo §3.1, Algorithm 1) and its best split (Eq. 1), with the
//! footprint model they rest on (docs/Grouping.md).
//!
//! A subgraph is a set of graph ops (in topological order) with one output that matters for
//! splitting: the sink, the last op's result. Splitting the sink along one of its dimensions into
//! `f` slices splits every op whose output dimension maps to it (through elementwise ops, the batch
//! and spatial dimensions of convolutions and pools, the rows and columns of matrix products, ...),
//! each into `f` slices; an op the split does not reach must be computed whole by every slice.

use crate::graph_view::{Node, TensorType, ValueId};
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

fn sizes(node: &Node, name: &str) -> Vec<usize> {
    node.ints(name).iter().map(|&v| v as usize).collect()
}

/// How an output dimension of `node` reaches one operand: the operand's dimension and how many
/// of its elements a slice of the output reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reach {
    /// The operand's dimension.
    pub dim: usize,
    /// The operand elements a slice reads.
    pub span: Span,
}

/// How many operand elements a slice of `e` output elements reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Span {
    /// `e`: elementwise ops, batch dimensions, the rows of a matrix product.
    Same,
    /// A sliding window: `(e - 1) * stride + extent`.
    Window {
        /// Output-to-input step.
        stride: usize,
        /// The window's extent; for a convolution, the dilation (the window is the filter's,
        /// whose size `propagate` reads from the filter operand).
        extent: usize,
    },
    /// Resampling (`graph.resize`): `ceil(e * input / output)`, plus the neighbour that
    /// interpolation and rounding may read.
    Resample {
        /// The operand dimension's size.
        input: usize,
        /// The output dimension's size.
        output: usize,
    },
}

/// The operand dimension that output dimension `dim` of `node` maps to, for operand `index`
/// of shape `operand`, or None when the output dimension does not reach it (a reduced or mixed
/// dimension, a broadcast one, a weight).
pub fn reach(node: &Node, dim: usize, index: usize, operand: &[usize]) -> Option<Reach> {
    let output = node.results.first()?.1.shape.as_slice();
    if node.elementwise {
        return if node.is(graph::Kind::BatchNorm) && index > 0 {
            None
        } else {
            aligned(output, operand, dim)
        };
    }
    match node.graph_kind()? {
        graph::Kind::Conv2d => conv_reach(node, dim, index),
        graph::Kind::MaxPool2d | graph::Kind::AvgPool2d => pool_reach(node, dim),
        graph::Kind::Resize => {
            let span = if operand[dim] == output[dim] {
                Span::Same
            } else {
                Span::Resample {
                    input: operand[dim],
                    output: output[dim],
                }
            };
            Some(Reach { dim, span })
        }
        graph::Kind::GlobalAvgPool => same_if(dim < 2, dim),
        // The channel window of a local response normalisation mixes channels.
        graph::Kind::Lrn => same_if(dim != 1, dim),
        graph::Kind::Matmul | graph::Kind::Gemm | graph::Kind::BatchMatmul => {
            product_reach(node, dim, index, operand, output)
        }
        graph::Kind::Softmax | graph::Kind::Concat | graph::Kind::Split => {
            same_if(dim != normalized_axis(node.int("axis"), output.len()), dim)
        }
        graph::Kind::LayerNorm => {
            if index != 0 {
                return None;
            }
            same_if(dim < normalized_axis(node.int("axis"), output.len()), dim)
        }
        graph::Kind::Reshape | graph::Kind::Flatten => {
            // A leading dimension survives a reshape when everything up to it is unchanged.
            same_if(
                dim < operand.len() && output[..=dim] == operand[..=dim],
                dim,
            )
        }
        graph::Kind::Transpose => {
            let permutation = sizes(node, "permutation");
            permutation.get(dim).map(|&d| Reach {
                dim: d,
                span: Span::Same,
            })
        }
        graph::Kind::Slice | graph::Kind::Pad => {
            same_if(operand.get(dim) == Some(&output[dim]), dim)
        }
        graph::Kind::ReduceSum | graph::Kind::ReduceMean | graph::Kind::ReduceMax => {
            reduce_reach(node, dim, operand.len())
        }
        // Constants, weights, gathers, broadcasts and control flow: the split reaches none of
        // their operands (elementwise ops are answered above).
        _ => None,
    }
}

/// The whole operand dimension `dim`, element for element.
fn same(dim: usize) -> Option<Reach> {
    Some(Reach {
        dim,
        span: Span::Same,
    })
}

/// The whole operand dimension `dim` when `reaches` holds, else None.
fn same_if(reaches: bool, dim: usize) -> Option<Reach> {
    reaches.then_some(Reach {
        dim,
        span: Span::Same,
    })
}

/// Output dimension `dim` against an operand broadcast to the output's shape (aligned at the
/// innermost dimension): the operand's dimension, or None when the operand lacks it or
/// broadcasts it.
fn aligned(output: &[usize], operand: &[usize], dim: usize) -> Option<Reach> {
    let lead = output.len().checked_sub(operand.len())?;
    let d = dim.checked_sub(lead)?;
    same_if(operand[d] == output[dim], d)
}

/// A possibly negative `axis` attribute as a dimension of a tensor of `rank` dimensions.
fn normalized_axis(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as i64) as usize
    } else {
        axis as usize
    }
}

/// `graph.conv2d`: the batch and the spatial dimensions reach the input (operand 0); the
/// channels mix, and the filter and bias are weights.
fn conv_reach(node: &Node, dim: usize, index: usize) -> Option<Reach> {
    if index != 0 {
        return None;
    }
    let strides = sizes(node, "strides");
    let dilations = sizes(node, "dilations");
    match dim {
        0 => same(0),
        // The window is the filter's: `propagate` reads its size from the filter operand;
        // here the stride and the dilation.
        2 | 3 => Some(Reach {
            dim,
            span: Span::Window {
                stride: strides[dim - 2],
                extent: dilations[dim - 2],
            },
        }),
        _ => None,
    }
}

/// `graph.max_pool2d` and `graph.avg_pool2d`: the batch and channels reach the input whole,
/// the spatial dimensions through the pooling window.
fn pool_reach(node: &Node, dim: usize) -> Option<Reach> {
    let strides = sizes(node, "strides");
    let kernel = sizes(node, "kernel");
    // Average pooling has no dilations (ONNX AveragePool before opset 19).
    let dilations = node
        .ints_opt("dilations")
        .map_or(vec![1, 1], |d| d.iter().map(|&v| v as usize).collect());
    match dim {
        0 | 1 => same(dim),
        _ => {
            let axis = dim - 2;
            Some(Reach {
                dim,
                span: Span::Window {
                    stride: strides[axis],
                    extent: (kernel[axis] - 1) * dilations[axis] + 1,
                },
            })
        }
    }
}

/// Matrix products (`graph.matmul`, `graph.gemm`, `graph.batch_matmul`): the rows reach the
/// left operand, the columns the right one, batch dimensions both; the contracted dimension
/// reaches neither.
fn product_reach(
    node: &Node,
    dim: usize,
    index: usize,
    operand: &[usize],
    output: &[usize],
) -> Option<Reach> {
    match node.graph_kind() {
        Some(graph::Kind::Matmul) => match (index, dim) {
            (0, 0) => same(0),
            (1, 1) => same(1),
            _ => None,
        },
        Some(graph::Kind::Gemm) => match (index, dim) {
            (0, 0) => same(if node.flag("trans_a") { 1 } else { 0 }),
            (1, 1) => same(if node.flag("trans_b") { 0 } else { 1 }),
            (2, _) => aligned(output, operand, dim),
            _ => None,
        },
        _ => {
            let rank = output.len();
            if dim + 2 < rank {
                let lead = rank - operand.len();
                let d = dim.checked_sub(lead)?;
                return same_if(operand[d] == output[dim], d);
            }
            match (index, rank - dim) {
                (0, 2) => same(operand.len() - 2),
                (1, 1) => same(operand.len() - 1),
                _ => None,
            }
        }
    }
}

/// Reductions over `axes` of an operand of `rank` dimensions: a kept dimension reaches the
/// operand's matching one, a reduced one none.
fn reduce_reach(node: &Node, dim: usize, rank: usize) -> Option<Reach> {
    let axes: Vec<usize> = match node.ints("axes") {
        [] => (0..rank).collect(),
        axes => axes.iter().map(|&a| normalized_axis(a, rank)).collect(),
    };
    let keep = node.flag("keepdims");
    let d = if keep {
        dim
    } else {
        (0..rank).filter(|d| !axes.contains(d)).nth(dim)?
    };
    same_if(!axes.contains(&d), d)
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
        let mut produced_at = HashMap::new();
        let mut last_read = HashMap::new();
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
        let mut tensors: HashMap<ValueId, (usize, usize, usize)> = HashMap::new();
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

    /// Extra work of splitting along `dim` into `factor` slices, as a fraction of the
    /// subgraph's work: halo rows that neighbouring slices both compute, and ops the split does
    /// not reach, which every slice computes whole.
    pub fn recompute(&self, dim: usize, factor: usize) -> f64 {
        let reached = self.propagate(dim, factor);
        let mut total = 0.0;
        let mut split = 0.0;
        for (node, reach) in self.ops.iter().zip(&reached) {
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
            if self.recompute(dim, factor) > budget.max_recompute {
                continue;
            }
            let reached = self.propagate(dim, factor);
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
