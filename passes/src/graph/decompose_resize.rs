//! `graph-decompose-resize`: a `graph.resize` by a whole factor along each dimension it changes
//! (upsampling by `f`, or downsampling by `1/f`) is, along that dimension, a few weighted sums of
//! shifted copies of its input, because its taps repeat with the factor: output `o = P·k + r`
//! (phase `r` of `P = f` phases when upsampling, one phase when downsampling) reads input
//! elements `step·k + c` (`step` 1 or `f`), the same offsets `c` for every `k`, with weights
//! that are equal too but near the edges under `exclude_outside` (then a constant vector
//! multiplies instead of a scalar); elements past the input's edge read the edge (ONNX's
//! reference). The pass rewrites such a
//! resize into those copies (`graph.slice`, strided when downsampling, with the edge element
//! broadcast where taps fall outside), scalar products and sums, and the phases interleaved by a
//! concat on a new axis and a reshape: data movement and elementwise arithmetic that both
//! schedules compile.
//!
//! Every output element is the sum of the same products as in the definition (a weight of 1 is
//! a copy, so nearest resizes are bit-exact), so infinities and NaN stay where the definition
//! puts them: a product by an interpolation matrix would spread them over whole rows (0 · inf).
//! The taps' periodicity is checked element by element from the taps the definition gives.
//! Along a dimension without it (fractional scales, align_corners, whose positions do not
//! repeat) each tap is a `graph.gather` by constant indices (clamped to the input) instead of a
//! slice, weighted by a constant vector: the same sums, but that an output reading fewer taps
//! than the others reads its first element again with weight 0 (NaN where that element is
//! infinite). A resize with an empty dimension, or the identity, is left alone.

use super::copies::Copies;
use super::rewrite_each::rewrite_each;
use crate::{
    graph_view::{Attr, FunctionView, Node},
    ir::{Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use turbine_dialects::attributes::graph::{NearestRounding, ResizeCoordinates, ResizeMode};
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct DecomposeResize {
    explain: bool,
}

impl Pass for DecomposeResize {
    const ARGUMENT: &'static str = "graph-decompose-resize";
    const SUMMARY: &'static str =
        "Rewrite a resize by whole factors into weighted sums of shifted and strided copies";
    const DESCRIPTION: &'static str = "\
A `graph.resize` that scales each dimension it changes by a whole factor `f` or by `1/f` has taps \
that repeat with the factor: output `o = P·k + r` (P = f phases when upsampling, one when \
downsampling) reads input elements `step·k + c` with the same offsets for every k (checked \
element by element from ONNX's definition: linear, cubic with cubic_coeff_a and \
exclude_outside, nearest with every rounding, under the op's coordinate mode). Along such a \
dimension the pass rewrites the resize into, per phase, the sum of its taps' copies of the input \
(`graph.slice`, strided when downsampling, the edge element broadcast where taps fall outside \
the input) each multiplied by its weight (a scalar, or a constant vector along the dimension \
where the weights vary near the edges), the phases interleaved by `graph.concat` on a new axis \
and `graph.reshape`. Each output is the definition's sum of products, so infinities and NaN \
stay where it puts them; a weight of 1 is a plain copy. Along a dimension whose taps do not \
repeat (fractional scales, align_corners) each tap is a `graph.gather` of the input by constant \
indices (clamped to it) times a constant vector of weights, an output that reads fewer taps \
than the others reading its first element again with weight 0. A resize with an empty \
dimension is left alone. Run after graph-resize-to-broadcast, \
which turns nearest upsampling into a single broadcast. With `explain`, a remark on each resize \
rewritten or left alone, and why.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit a remark on each resize rewritten or left alone, and why",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        let plan = |view: &FunctionView, node: &Node| {
            let input = view.type_of(node.operands[0]).shape.clone();
            let plans = plans(node, &input)?;
            let described: Vec<String> = plans.iter().map(Plan::describe).collect();
            let remark = format!("weighted sums of copies: {}", described.join("; "));
            Ok(((input, plans), remark))
        };
        let apply =
            |node: &Node, (input, plans): (Vec<usize>, Vec<Plan>)| rewrite(node.op, &input, &plans);
        rewrite_each(operation, graph::Kind::Resize, self.explain, plan, apply)
    }
}

/// The interpolation attributes of a resize.
#[derive(Debug, Clone, Copy)]
struct Interpolation {
    mode: ResizeMode,
    coordinates: ResizeCoordinates,
    rounding: NearestRounding,
    cubic_coeff_a: f64,
    exclude_outside: bool,
}

/// One tap of a phase: input elements (clamped to the input) times `weights[k]` (equal but near
/// the edges of a cubic resize with `exclude_outside`).
#[derive(Debug, Clone, PartialEq)]
struct Tap {
    reads: Reads,
    weights: Vec<f32>,
}

/// Which input elements a tap reads, output `k` of its phase reading element `k` of them.
#[derive(Debug, Clone, PartialEq)]
enum Reads {
    /// Elements `step·k + offset` (the plan's step): a slice.
    Strided { offset: i64 },
    /// These elements: a gather by constant indices.
    Listed(Vec<i64>),
}

/// How one dimension of a resize decomposes.
#[derive(Debug, Clone, PartialEq)]
struct Plan {
    dimension: usize,
    /// The distance in the input between neighbouring outputs of one phase (0 for taps that
    /// list what they read).
    step: i64,
    /// Outputs per phase.
    length: usize,
    /// The taps of each phase; output `phases.len()·k + r` is phase `r`'s `k`-th.
    phases: Vec<Vec<Tap>>,
}

impl Plan {
    fn describe(&self) -> String {
        let taps: usize = self.phases.iter().map(Vec::len).sum();
        if self.step == 0 {
            return format!("dimension {} gathered ({taps} gathers)", self.dimension);
        }
        format!(
            "dimension {} in {} phases of step {} ({} copies)",
            self.dimension,
            self.phases.len(),
            self.step,
            taps
        )
    }
}

/// The plan of each dimension the resize `node` of an input of shape `input` changes, or why
/// it is left alone.
fn plans(node: &Node, input: &[usize]) -> Result<Vec<Plan>, String> {
    let output = &node.results[0].1.shape;
    if input.contains(&0) || output.contains(&0) {
        return Err("it has an empty dimension".to_owned());
    }
    let Some(Attr::Floats(scales)) = node.attributes.get("scales") else {
        return Err("it has no scales".to_owned());
    };
    let interpolation = interpolation_of(node);
    let mut plans = Vec::new();
    for (d, (&length, &out_length)) in input.iter().zip(output).enumerate() {
        let scale = f64::from(scales[d]);
        let source = |o: usize| {
            taps(
                &interpolation,
                position(&interpolation, o, scale, length),
                length,
            )
        };
        let identity = length == out_length && (0..length).all(|o| source(o) == [(o as i64, 1.0)]);
        if identity {
            continue;
        }
        let factor = if out_length % length == 0 && scale == (out_length / length) as f64 {
            Some((out_length / length, 1, length))
        } else if length % out_length == 0 && scales[d] == (out_length as f32 / length as f32) {
            Some((1, (length / out_length) as i64, out_length))
        } else {
            None
        };
        let periodic = factor.and_then(|(phases, step, per_phase)| {
            let plan = phases_of(phases, step, per_phase, source)?;
            Some((step, per_phase, plan))
        });
        let (step, per_phase, phases) =
            periodic.unwrap_or_else(|| (0, out_length, vec![gathered(out_length, source)]));
        plans.push(Plan {
            dimension: d,
            step,
            length: per_phase,
            phases,
        });
    }
    if plans.is_empty() {
        return Err("it is the identity".to_owned());
    }
    Ok(plans)
}

/// The taps of one phase of `length` outputs listing what output `o` reads from `source`
/// (unclamped index, weight): tap `c` reads output `o`'s `c`-th pair, or, for an output that
/// reads fewer, its first element with weight 0 (so an infinite input there gives NaN where the
/// definition reads it once: the one difference from the definition's sums).
fn gathered(length: usize, source: impl Fn(usize) -> Vec<(i64, f32)>) -> Vec<Tap> {
    let reads: Vec<Vec<(i64, f32)>> = (0..length).map(source).collect();
    let count = reads.iter().map(Vec::len).max().unwrap_or(0);
    (0..count)
        .map(|c| {
            let (indices, weights) = reads
                .iter()
                .map(|read| read.get(c).copied().unwrap_or((read[0].0, 0.0)))
                .unzip();
            Tap {
                reads: Reads::Listed(indices),
                weights,
            }
        })
        .collect()
}

/// The taps of each of `phases` phases of `length` outputs, output `phases·k + r` reading
/// `source` (unclamped index, weight) pairs; None unless every output of a phase reads as many
/// taps at `step·k` past its first output's indices.
fn phases_of(
    phases: usize,
    step: i64,
    length: usize,
    source: impl Fn(usize) -> Vec<(i64, f32)>,
) -> Option<Vec<Vec<Tap>>> {
    (0..phases)
        .map(|r| {
            let mut taps: Vec<Tap> = source(r)
                .into_iter()
                .map(|(offset, weight)| Tap {
                    reads: Reads::Strided { offset },
                    weights: vec![weight],
                })
                .collect();
            for k in 1..length {
                let read = source(phases * k + r);
                if read.len() != taps.len() {
                    return None;
                }
                for ((index, weight), tap) in read.into_iter().zip(&mut taps) {
                    if tap.reads
                        != (Reads::Strided {
                            offset: index - step * k as i64,
                        })
                    {
                        return None;
                    }
                    tap.weights.push(weight);
                }
            }
            Some(taps)
        })
        .collect()
}

/// The interpolation attributes of the resize `node`, with the dialect's defaults.
fn interpolation_of(node: &Node) -> Interpolation {
    let mut interpolation = Interpolation {
        mode: ResizeMode::Nearest,
        coordinates: ResizeCoordinates::HalfPixel,
        rounding: NearestRounding::RoundPreferFloor,
        cubic_coeff_a: -0.75,
        exclude_outside: false,
    };
    if let Some(Attr::ResizeMode(mode)) = node.attributes.get("mode") {
        interpolation.mode = *mode;
    }
    if let Some(Attr::ResizeCoordinates(coordinates)) = node.attributes.get("coordinates") {
        interpolation.coordinates = *coordinates;
    }
    if let Some(Attr::NearestRounding(rounding)) = node.attributes.get("nearest") {
        interpolation.rounding = *rounding;
    }
    if let Some(Attr::Float(a)) = node.attributes.get("cubic_coeff_a") {
        interpolation.cubic_coeff_a = *a;
    }
    if let Some(Attr::Bool(exclude)) = node.attributes.get("exclude_outside") {
        interpolation.exclude_outside = *exclude;
    }
    interpolation
}

/// The input coordinate output coordinate `x` maps to; the resized length in these formulas is
/// `length · scale` before rounding, as in ONNX's reference.
fn position(interpolation: &Interpolation, x: usize, scale: f64, length: usize) -> f64 {
    let x = x as f64;
    let resized = length as f64 * scale;
    match interpolation.coordinates {
        ResizeCoordinates::HalfPixel => (x + 0.5) / scale - 0.5,
        ResizeCoordinates::PytorchHalfPixel if resized != 1.0 => (x + 0.5) / scale - 0.5,
        ResizeCoordinates::AlignCorners if resized != 1.0 => {
            x * (length as f64 - 1.0) / (resized - 1.0)
        }
        ResizeCoordinates::PytorchHalfPixel | ResizeCoordinates::AlignCorners => 0.0,
        ResizeCoordinates::Asymmetric => x / scale,
    }
}

/// The input elements (unclamped: outside the input they read its edge) the coordinate
/// `position` reads and their weights, as ONNX defines them: a linear tap of weight 0 is not
/// read, the four cubic taps always are (with `exclude_outside`, those outside weigh 0 and the
/// others are renormalised).
fn taps(interpolation: &Interpolation, position: f64, length: usize) -> Vec<(i64, f32)> {
    match interpolation.mode {
        ResizeMode::Nearest => {
            let half = position.fract() == 0.5;
            let rounded = match interpolation.rounding {
                NearestRounding::RoundPreferFloor if half => position.floor(),
                NearestRounding::RoundPreferCeil if half => position.ceil(),
                NearestRounding::RoundPreferFloor | NearestRounding::RoundPreferCeil => {
                    position.round()
                }
                NearestRounding::Floor => position.floor(),
                NearestRounding::Ceil => position.ceil(),
            };
            vec![(rounded as i64, 1.0)]
        }
        ResizeMode::Linear => {
            let low = position.floor();
            let ratio = (position - low) as f32;
            if ratio == 0.0 {
                vec![(low as i64, 1.0)]
            } else {
                vec![(low as i64, 1.0 - ratio), (low as i64 + 1, ratio)]
            }
        }
        ResizeMode::Cubic => cubic_taps(interpolation, position, length),
    }
}

/// The four taps of cubic interpolation at `position` (Keys' convolution, ONNX's formula).
fn cubic_taps(interpolation: &Interpolation, position: f64, length: usize) -> Vec<(i64, f32)> {
    let low = position.floor();
    let a = interpolation.cubic_coeff_a;
    let far = |t: f64| ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
    let near = |t: f64| ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    let ratio = position - low;
    let mut weights = [
        far(ratio + 1.0),
        near(ratio),
        near(1.0 - ratio),
        far(2.0 - ratio),
    ];
    let neighbours = [low - 1.0, low, low + 1.0, low + 2.0];
    if interpolation.exclude_outside {
        for (weight, &neighbour) in weights.iter_mut().zip(&neighbours) {
            if neighbour < 0.0 || neighbour >= length as f64 {
                *weight = 0.0;
            }
        }
        let total: f64 = weights.iter().sum();
        weights.iter_mut().for_each(|weight| *weight /= total);
    }
    neighbours
        .iter()
        .zip(weights)
        .map(|(&neighbour, weight)| (neighbour as i64, weight as f32))
        .collect()
}

/// Replaces `resize` (of an input of shape `input`) by the copies and sums of `plans`.
fn rewrite(resize: Op, input: &[usize], plans: &[Plan]) {
    let builder = Copies::before(resize);
    let (mut value, mut shape) = (resize.operand(0), input.to_vec());
    for plan in plans {
        let phases: Vec<Val> = plan
            .phases
            .iter()
            .map(|taps| phase(&builder, value, &shape, plan, taps))
            .collect();
        let mut phase_shape = shape.clone();
        phase_shape[plan.dimension] = plan.length;
        (value, shape) = interleave(&builder, &phases, &phase_shape, plan.dimension);
    }
    resize.result(0).replace_all_uses_with(value);
    // SAFETY: the resize's uses read the decomposition now, it holds no region, and the view's
    // handles to it are not used after this.
    unsafe { resize.erase() };
}

/// One phase of `plan` on `value` of `shape`: the sum of its taps' weighted copies.
fn phase(builder: &Copies, value: Val, shape: &[usize], plan: &Plan, taps: &[Tap]) -> Val {
    let mut out_shape = shape.to_vec();
    out_shape[plan.dimension] = plan.length;
    let mut sum: Option<Val> = None;
    for tap in taps {
        let copy = match &tap.reads {
            Reads::Strided { offset } => copy(builder, value, shape, plan, *offset),
            Reads::Listed(indices) => gather(builder, value, shape, plan.dimension, indices),
        };
        let term = if tap.weights.iter().all(|&weight| weight == 1.0) {
            copy
        } else {
            let weights = weights(builder, copy, &tap.weights, plan.dimension, shape.len());
            builder.op(graph::Kind::Mul, &[copy, weights], &out_shape, &[])
        };
        sum = Some(match sum {
            None => term,
            Some(sum) => builder.op(graph::Kind::Add, &[sum, term], &out_shape, &[]),
        });
    }
    sum.expect("every output reads at least one tap")
}

/// Elements `step·k + offset` (k < plan.length) of `value` along the plan's dimension, those
/// outside the input reading its edge: a slice, with the edge elements broadcast before and
/// after it.
fn copy(builder: &Copies, value: Val, shape: &[usize], plan: &Plan, offset: i64) -> Val {
    let (d, length) = (plan.dimension, shape[plan.dimension] as i64);
    let indices: Vec<i64> = (0..plan.length as i64)
        .map(|k| plan.step * k + offset)
        .collect();
    let before = indices.iter().filter(|&&index| index < 0).count();
    let after = indices.iter().filter(|&&index| index >= length).count();
    let inside = plan.length - before - after;
    if inside == shape[d] && plan.step == 1 && before == 0 && after == 0 {
        return value;
    }
    // The low edge, the inside, the high edge, in index order.
    let mut values = Vec::new();
    if before > 0 {
        values.push(builder.repeat(value, shape, d, 0, before));
    }
    if inside > 0 {
        let start = indices[before];
        values.push(builder.slice(value, shape, d, start, plan.step, inside));
    }
    if after > 0 {
        values.push(builder.repeat(value, shape, d, length - 1, after));
    }
    let mut sized = shape.to_vec();
    sized[d] = plan.length;
    builder.concat(&values, &sized, d)
}

/// Elements `indices` of `value` (of `shape`) along `dimension`, those outside the input
/// reading its edge: a gather by constant indices.
fn gather(builder: &Copies, value: Val, shape: &[usize], dimension: usize, indices: &[i64]) -> Val {
    let last = shape[dimension] as i64 - 1;
    let clamped: Vec<i64> = indices.iter().map(|&index| index.clamp(0, last)).collect();
    let indices = builder.index_constant(&clamped);
    let mut sized = shape.to_vec();
    sized[dimension] = clamped.len();
    let axis = builder.axis(dimension);
    builder.op(graph::Kind::Gather, &[value, indices], &sized, &[axis])
}

/// The f32 constant of `weights`: a scalar when they are equal, else a tensor of rank `rank`
/// holding them along `dimension` (1 elsewhere), which broadcasts over the rest.
fn weights(builder: &Copies, like: Val, weights: &[f32], dimension: usize, rank: usize) -> Val {
    if weights.iter().all(|&weight| weight == weights[0]) {
        return builder.constant(like, &weights[..1], &[]);
    }
    let mut shape = vec![1; rank];
    shape[dimension] = weights.len();
    builder.constant(like, weights, &shape)
}

/// The phases (each of `shape`) interleaved along `dimension`: phase `r`'s element `k` at
/// `phases.len()·k + r`; returns the value and its shape.
fn interleave(
    builder: &Copies,
    phases: &[Val],
    shape: &[usize],
    dimension: usize,
) -> (Val, Vec<usize>) {
    if let [single] = phases {
        return (*single, shape.to_vec());
    }
    let mut spread = shape.to_vec();
    spread.insert(dimension + 1, 1);
    let spread: Vec<Val> = phases
        .iter()
        .map(|&phase| builder.op(graph::Kind::Reshape, &[phase], &spread, &[]))
        .collect();
    let mut stacked = shape.to_vec();
    stacked.insert(dimension + 1, phases.len());
    let stacked_value = builder.concat(&spread, &stacked, dimension + 1);
    let mut result = shape.to_vec();
    result[dimension] *= phases.len();
    let value = builder.op(graph::Kind::Reshape, &[stacked_value], &result, &[]);
    (value, result)
}
