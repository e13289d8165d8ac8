//! How a split of an op's output dimension reaches each operand (GraphTurbo §3.1): which operand
//! dimension it splits and how many of its elements a slice reads (the same extent, a window of a
//! convolution or pool, a resampled range), or that the operand must be read whole.

use crate::graph_view::Node;
use turbine_dialects::ops::graph;

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
        graph::Kind::ReduceSum
        | graph::Kind::ReduceMean
        | graph::Kind::ReduceMax
        | graph::Kind::ReduceProd => reduce_reach(node, dim, operand.len()),
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
