//! The demand of one op: the box of each operand it reads to compute a box of its result, and
//! the attributes of the op that computes just that box (per-slice `pads` of windows, `starts`
//! of slices, `groups` of grouped convolutions). An op without a rule for the box asked of it
//! has none here; [`super::regions::sweep`] then computes its whole result.

use super::boxes::{full, Region};
use super::reshape_box::reshape_box;
use crate::graph_view::{Attr, Node};
use std::ops::Range;
use turbine_dialects::attributes::graph::{NearestRounding, ResizeCoordinates, ResizeMode};
use turbine_dialects::ops::graph;

/// A changed attribute of the op that computes a box.
#[derive(Debug, Clone, PartialEq)]
pub enum Changed {
    /// An `array<i64>` attribute.
    Ints(Vec<i64>),
    /// An `i64` attribute.
    Int(i64),
}

/// What computing a box of an op's result takes.
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    /// Per operand, the box it reads.
    pub operands: Vec<Region>,
    /// Attributes that differ from the op's own.
    pub attributes: Vec<(&'static str, Changed)>,
}

/// What `node` reads to compute `region` of its (first) result, from operands of `shapes`; None
/// when it has no rule for that box.
pub fn demand(node: &Node, region: &Region, shapes: &[&[usize]]) -> Option<Demand> {
    let output = &node.results.first()?.1.shape;
    if *region == full(output) {
        return Some(Demand {
            operands: shapes.iter().map(|shape| full(shape)).collect(),
            attributes: Vec::new(),
        });
    }
    if node.results.len() != 1 || node.has_regions {
        return None;
    }
    let kind = node.graph_kind()?;
    match kind {
        graph::Kind::BatchNorm => {
            // Per-channel scale, bias, mean and variance follow the channel range.
            let mut operands = vec![aligned(region, shapes[0])];
            operands.extend(shapes[1..].iter().map(|_| vec![region[1].clone()]));
            plain(operands)
        }
        _ if node.elementwise || kind == graph::Kind::Broadcast => {
            plain(shapes.iter().map(|shape| aligned(region, shape)).collect())
        }
        graph::Kind::Conv2d => conv(node, region, shapes),
        graph::Kind::MaxPool2d | graph::Kind::AvgPool2d => pool(node, region, shapes[0]),
        graph::Kind::GlobalAvgPool => plain(vec![[
            region[0].clone(),
            region[1].clone(),
            0..shapes[0][2],
            0..shapes[0][3],
        ]
        .to_vec()]),
        graph::Kind::Lrn | graph::Kind::Softmax | graph::Kind::LayerNorm => {
            normalization(node, region, shapes, output)
        }
        graph::Kind::Matmul | graph::Kind::BatchMatmul => matmul(region, shapes),
        graph::Kind::Gemm => gemm(node, region, shapes),
        graph::Kind::Reshape | graph::Kind::Flatten => reshape(region, shapes[0], output),
        graph::Kind::Transpose => transpose(node, region, shapes[0]),
        graph::Kind::Concat => concat(node, region, shapes, output),
        graph::Kind::Slice => slice(node, region),
        graph::Kind::Gather => gather(node, region, shapes),
        graph::Kind::ReduceSum
        | graph::Kind::ReduceMean
        | graph::Kind::ReduceMax
        | graph::Kind::ReduceProd => reduce(node, region, shapes[0]),
        graph::Kind::Resize => resize(node, region, shapes[0], output),
        _ => None,
    }
}

/// A demand reading the boxes `operands` with the op's own attributes.
fn plain(operands: Vec<Region>) -> Option<Demand> {
    Some(Demand {
        operands,
        attributes: Vec::new(),
    })
}

/// Normalisations over a window of channels (`graph.lrn`) or the trailing dimensions from an
/// axis (`graph.softmax`, `graph.layer_norm`): the box when it holds those whole, the
/// normalisation's scale and bias whole; None otherwise.
fn normalization(
    node: &Node,
    region: &Region,
    shapes: &[&[usize]],
    output: &[usize],
) -> Option<Demand> {
    match node.graph_kind() {
        Some(graph::Kind::Lrn) => (region[1] == (0..output[1])).then(|| Demand {
            operands: vec![region.clone()],
            attributes: Vec::new(),
        }),
        Some(graph::Kind::Softmax) => {
            let axis = normalize(node.int("axis"), output.len());
            (region[axis] == (0..output[axis])).then(|| Demand {
                operands: vec![region.clone()],
                attributes: Vec::new(),
            })
        }
        _ => {
            let axis = normalize(node.int("axis"), output.len());
            let whole_rows = (axis..output.len()).all(|d| region[d] == (0..output[d]));
            let mut operands = vec![region.clone()];
            operands.extend(shapes[1..].iter().map(|shape| full(shape)));
            whole_rows.then_some(Demand {
                operands,
                attributes: Vec::new(),
            })
        }
    }
}

/// `graph.gemm`: the box's rows of the (possibly transposed) left operand, its columns of the
/// right one, and the bias broadcast to the box.
fn gemm(node: &Node, region: &Region, shapes: &[&[usize]]) -> Option<Demand> {
    let rows = region[0].clone();
    let columns = region[1].clone();
    let a = if node.flag("trans_a") {
        vec![0..shapes[0][0], rows]
    } else {
        vec![rows, 0..shapes[0][1]]
    };
    let b = if node.flag("trans_b") {
        vec![columns, 0..shapes[1][1]]
    } else {
        vec![0..shapes[1][0], columns]
    };
    let mut operands = vec![a, b];
    operands.extend(shapes[2..].iter().map(|shape| aligned(region, shape)));
    plain(operands)
}

/// `graph.reshape` and `graph.flatten` of `input` to `output`: the box of the input holding the
/// box's elements ([`reshape_box`]); None when they are no box of it.
fn reshape(region: &Region, input: &[usize], output: &[usize]) -> Option<Demand> {
    reshape_box(region, input, output).map(|box_| Demand {
        operands: vec![box_],
        attributes: Vec::new(),
    })
}

/// `graph.transpose` of an operand of `shape`: the box with its dimensions permuted back.
fn transpose(node: &Node, region: &Region, shape: &[usize]) -> Option<Demand> {
    let permutation = node.ints("permutation");
    let mut box_ = full(shape);
    for (out_dim, &in_dim) in permutation.iter().enumerate() {
        box_[in_dim as usize] = region[out_dim].clone();
    }
    plain(vec![box_])
}

/// `graph.concat`: every operand whole along the axis and the box elsewhere; None unless the
/// box holds the axis whole.
fn concat(node: &Node, region: &Region, shapes: &[&[usize]], output: &[usize]) -> Option<Demand> {
    let axis = normalize(node.int("axis"), output.len());
    (region[axis] == (0..output[axis])).then(|| Demand {
        operands: shapes
            .iter()
            .map(|shape| {
                let mut box_ = region.clone();
                box_[axis] = 0..shape[axis];
                box_
            })
            .collect(),
        attributes: Vec::new(),
    })
}

/// `graph.slice` with non-negative starts and positive steps: the input rows the box's
/// elements pick, with the starts moved to 0 (the box begins at the first row read).
fn slice(node: &Node, region: &Region) -> Option<Demand> {
    let starts = node.ints("starts");
    let steps = node
        .ints_opt("steps")
        .map_or_else(|| vec![1; starts.len()], <[i64]>::to_vec);
    // A reversing slice has no rule (its boxes run backwards; the importer makes starts
    // non-negative, steps never 0, but the op may be written by hand).
    if steps.iter().chain(starts.iter()).any(|&value| value < 0) || steps.contains(&0) {
        return None;
    }
    let box_: Region = region
        .iter()
        .zip(starts.iter().zip(&steps))
        .map(|(range, (&start, &step))| {
            let (start, step) = (start as usize, step as usize);
            match range.is_empty() {
                true => start..start,
                false => start + range.start * step..start + (range.end - 1) * step + 1,
            }
        })
        .collect();
    Some(Demand {
        operands: vec![box_],
        attributes: vec![("starts", Changed::Ints(vec![0; starts.len()]))],
    })
}

/// `graph.gather`: the result is data[:axis] + indices + data[axis + 1:]; the box of the
/// indices is the box's middle, the data is read whole along the axis (any row may be picked).
fn gather(node: &Node, region: &Region, shapes: &[&[usize]]) -> Option<Demand> {
    let data = shapes[0];
    let axis = normalize(node.int("axis"), data.len());
    let rank = shapes[1].len();
    let mut data_box = region[..axis].to_vec();
    data_box.push(0..data[axis]);
    data_box.extend(region[axis + rank..].iter().cloned());
    plain(vec![data_box, region[axis..axis + rank].to_vec()])
}

/// A possibly negative `axis` attribute as a dimension of a tensor of `rank` dimensions.
fn normalize(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as i64) as usize
    } else {
        axis as usize
    }
}

/// The box of an operand broadcast (right-aligned, numpy rules) to the result.
fn aligned(region: &Region, shape: &[usize]) -> Region {
    let lead = region.len() - shape.len();
    shape
        .iter()
        .enumerate()
        .map(|(d, &size)| {
            if size == 1 {
                0..1
            } else {
                region[lead + d].clone()
            }
        })
        .collect()
}

/// Rows `range` of a window's output: the input rows it reads (clipped to the input) and the
/// padding it keeps before and after. `window` is the dilated extent.
fn window(
    range: &Range<usize>,
    stride: usize,
    window: usize,
    pad_before: usize,
    input: usize,
) -> (Range<usize>, i64, i64) {
    if range.is_empty() {
        return (0..0, 0, 0);
    }
    let first = (range.start * stride) as i64 - pad_before as i64;
    let end = ((range.end - 1) * stride + window) as i64 - pad_before as i64;
    let low = first.max(0);
    // Rows wholly in the padding read no input row: an empty range, not a negative one.
    let high = end.min(input as i64).max(low);
    (low as usize..high as usize, low - first, end - high)
}

/// Spatial boxes and per-slice pads of a 2-D window over `[N, C, H, W]`.
fn windows(
    region: &Region,
    input: &[usize],
    strides: &[i64],
    extents: [usize; 2],
    pads: &[i64],
) -> Option<(Region, Vec<i64>)> {
    let mut box_ = vec![region[0].clone(), region[1].clone(), 0..0, 0..0];
    let mut before = [0; 2];
    let mut after = [0; 2];
    for axis in 0..2 {
        let (rows, pad_before, pad_after) = window(
            &region[2 + axis],
            strides[axis] as usize,
            extents[axis],
            pads[axis] as usize,
            input[2 + axis],
        );
        if rows.is_empty() {
            return None;
        }
        box_[2 + axis] = rows;
        before[axis] = pad_before;
        after[axis] = pad_after;
    }
    Some((box_, vec![before[0], before[1], after[0], after[1]]))
}

/// `graph.conv2d`: the input rows the box's window reads with the slice's own pads, all input
/// channels (or the whole groups the box's output channels read), the box's filters and biases.
fn conv(node: &Node, region: &Region, shapes: &[&[usize]]) -> Option<Demand> {
    let (input, filter) = (shapes[0], shapes[1]);
    let dilations = node.ints("dilations");
    let extents = [
        (filter[2] - 1) * dilations[0] as usize + 1,
        (filter[3] - 1) * dilations[1] as usize + 1,
    ];
    let (mut box_, pads) = windows(
        region,
        input,
        node.ints("strides"),
        extents,
        node.ints("pads"),
    )?;
    let groups = node.int("groups") as usize;
    let mut attributes = vec![("pads", Changed::Ints(pads))];
    let channels = region[1].clone();
    if groups == 1 {
        box_[1] = 0..input[1];
    } else {
        // Output channels read whole groups of input channels.
        let per_group = filter[0] / groups;
        if !channels.start.is_multiple_of(per_group) || !channels.end.is_multiple_of(per_group) {
            return None;
        }
        let (first, last) = (channels.start / per_group, channels.end / per_group);
        box_[1] = first * filter[1]..last * filter[1];
        if last - first != groups {
            attributes.push(("groups", Changed::Int((last - first) as i64)));
        }
    }
    let mut operands = vec![
        box_,
        vec![channels.clone(), 0..filter[1], 0..filter[2], 0..filter[3]],
    ];
    operands.extend(shapes[2..].iter().map(|_| vec![channels.clone()]));
    Some(Demand {
        operands,
        attributes,
    })
}

/// Pooling: the input rows the box's window reads, with the slice's own pads; None for
/// average pooling that counts padding in ceil mode.
fn pool(node: &Node, region: &Region, input: &[usize]) -> Option<Demand> {
    let kernel = node.ints("kernel");
    let dilations = node.ints_opt("dilations").unwrap_or(&[1, 1]);
    // Average pooling that counts padding would count the rows a ceil-mode window adds past the
    // padding once they become padding of the slice.
    if node.is(graph::Kind::AvgPool2d) && node.flag("ceil_mode") && node.flag("count_include_pad") {
        return None;
    }
    let extents = [
        ((kernel[0] - 1) * dilations[0] + 1) as usize,
        ((kernel[1] - 1) * dilations[1] + 1) as usize,
    ];
    let (box_, pads) = windows(
        region,
        input,
        node.ints("strides"),
        extents,
        node.ints("pads"),
    )?;
    Some(Demand {
        operands: vec![box_],
        attributes: vec![("pads", Changed::Ints(pads))],
    })
}

/// `graph.matmul` and `graph.batch_matmul`: the box's batch and rows of the left operand, its
/// batch and columns of the right one, each whole along the contracted dimension.
fn matmul(region: &Region, shapes: &[&[usize]]) -> Option<Demand> {
    let rank = region.len();
    if rank < 2 || shapes.iter().any(|shape| shape.len() < 2) {
        return None;
    }
    let batch = &region[..rank - 2];
    let operand = |shape: &[usize], last_two: [Range<usize>; 2]| {
        let mut box_ = aligned(&batch.to_vec(), &shape[..shape.len() - 2]);
        box_.extend(last_two);
        box_
    };
    let (a, b) = (shapes[0], shapes[1]);
    let rows = region[rank - 2].clone();
    let columns = region[rank - 1].clone();
    let operands = vec![
        operand(a, [rows, 0..a[a.len() - 1]]),
        operand(b, [0..b[b.len() - 2], columns]),
    ];
    Some(Demand {
        operands,
        attributes: Vec::new(),
    })
}

/// Reductions: the input whole along the reduced axes and the box along the kept ones.
fn reduce(node: &Node, region: &Region, input: &[usize]) -> Option<Demand> {
    let rank = input.len();
    let axes: Vec<usize> = match node.ints("axes") {
        [] => (0..rank).collect(),
        axes => axes.iter().map(|&axis| normalize(axis, rank)).collect(),
    };
    let keep = node.flag("keepdims");
    let mut kept = region.iter();
    let mut box_ = Vec::with_capacity(rank);
    for (d, &size) in input.iter().enumerate() {
        if axes.contains(&d) {
            if keep {
                kept.next();
            }
            box_.push(0..size);
        } else {
            box_.push(kept.next()?.clone());
        }
    }
    Some(Demand {
        operands: vec![box_],
        attributes: Vec::new(),
    })
}

/// Nearest-neighbour resampling by integer scales (the upsampling of §3.6): a box of the output
/// reads the input rows its elements map to, and the op on those rows maps the same way when the
/// box starts on a whole input row. Checked element by element against the whole op's mapping;
/// anything else (linear interpolation, `align_corners`, fractional scales) computes whole.
fn resize(node: &Node, region: &Region, input: &[usize], output: &[usize]) -> Option<Demand> {
    if !matches!(
        node.attributes.get("mode"),
        Some(Attr::ResizeMode(ResizeMode::Nearest))
    ) {
        return None;
    }
    let coordinates = match node.attributes.get("coordinates") {
        Some(Attr::ResizeCoordinates(
            mode @ (ResizeCoordinates::HalfPixel
            | ResizeCoordinates::Asymmetric
            | ResizeCoordinates::PytorchHalfPixel),
        )) => *mode,
        _ => return None,
    };
    let rounding = match node.attributes.get("nearest") {
        Some(Attr::NearestRounding(rounding)) => *rounding,
        _ => return None,
    };
    let scales = match node.attributes.get("scales") {
        Some(Attr::Floats(scales)) => scales.clone(),
        _ => return None,
    };
    let source = |o: usize, scale: f64, length: usize, out_length: usize| -> usize {
        nearest_source(coordinates, rounding, o, scale, length, out_length)
    };
    let mut box_ = Vec::with_capacity(input.len());
    for (d, range) in region.iter().enumerate() {
        if input[d] == 0 || range.is_empty() {
            return None;
        }
        let scale = f64::from(*scales.get(d)?);
        if scale != scale.round() || scale < 1.0 {
            return None;
        }
        let rows: Vec<usize> = range
            .clone()
            .map(|o| source(o, scale, input[d], output[d]))
            .collect();
        let low = *rows.iter().min()?;
        let high = *rows.iter().max()? + 1;
        let length = high - low;
        // The op on rows [low, high) has (high - low) * scale outputs, which must be the box.
        if (length as f64 * scale) as usize != range.len() {
            return None;
        }
        let same = rows
            .iter()
            .enumerate()
            .all(|(o, &row)| row == low + source(o, scale, length, range.len()));
        if !same {
            return None;
        }
        box_.push(low..high);
    }
    Some(Demand {
        operands: vec![box_],
        attributes: Vec::new(),
    })
}

/// The input row that output element `o` of a nearest-neighbour resize by `scale` reads, from
/// an input of `length` rows to an output of `out_length`, with `coordinates` mapping the
/// element to an input coordinate and `rounding` picking the row (clamped to the input).
pub(crate) fn nearest_source(
    coordinates: ResizeCoordinates,
    rounding: NearestRounding,
    o: usize,
    scale: f64,
    length: usize,
    out_length: usize,
) -> usize {
    let x = o as f64;
    let coordinate = match coordinates {
        ResizeCoordinates::Asymmetric => x / scale,
        ResizeCoordinates::PytorchHalfPixel if out_length <= 1 => 0.0,
        _ => (x + 0.5) / scale - 0.5,
    };
    let rounded = match rounding {
        NearestRounding::RoundPreferFloor if coordinate.fract().abs() == 0.5 => coordinate.floor(),
        NearestRounding::RoundPreferCeil if coordinate.fract().abs() == 0.5 => coordinate.ceil(),
        NearestRounding::RoundPreferFloor | NearestRounding::RoundPreferCeil => coordinate.round(),
        NearestRounding::Floor => coordinate.floor(),
        NearestRounding::Ceil => coordinate.ceil(),
    };
    rounded.clamp(0.0, (length - 1) as f64) as usize
}
