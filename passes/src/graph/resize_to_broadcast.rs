//! `graph-resize-to-broadcast`: a nearest-neighbour `graph.resize` by whole factors whose every
//! output element `o` reads input element `o / factor` repeats each input element `factor` times
//! along each dimension. That is a broadcast: `reshape` to `[.., n, 1, ..]`, `graph.broadcast` to
//! `[.., n, factor, ..]`, `reshape` to `[.., n·factor, ..]` — data movement that every schedule
//! lowers as one strided copy, where the resize itself has no kernel.
//!
//! Whether the resize reads `o / factor` depends on its coordinate mode and rounding (the
//! upsampling of U-Nets and FPNs, `nn.Upsample(mode="nearest")`, does with ONNX's defaults and
//! with PyTorch's asymmetric floor); the pass checks the mapping element by element with the same
//! rule the instance slicing uses, so no case analysis can drift from it.

use super::rewrite_each::rewrite_each;
use crate::{
    graph_view::{Attr, FunctionView, Node},
    ir::{create, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    slicing::{demand::nearest_source, sliced_body::tensor_like},
};
use melior::ir::OperationRef;
use turbine_dialects::attributes::graph::{NearestRounding, ResizeCoordinates, ResizeMode};
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ResizeToBroadcast {
    explain: bool,
}

impl Pass for ResizeToBroadcast {
    const ARGUMENT: &'static str = "graph-resize-to-broadcast";
    const SUMMARY: &'static str =
        "Rewrite a nearest resize by whole factors into reshapes around a broadcast";
    const DESCRIPTION: &'static str = "\
A `graph.resize` in `nearest` mode whose scales are whole numbers, whose result is the input times \
them, and whose coordinate mode and rounding make output element `o` read input element \
`o / scale` along every dimension (checked element by element: ONNX's default half_pixel with \
round_prefer_floor, PyTorch's asymmetric floor) repeats each element: it becomes `graph.reshape` \
to a unit dimension after each scaled one, `graph.broadcast` of those to the scales, and \
`graph.reshape` to the result, which every schedule lowers as a strided copy. Other resizes \
(linear, align_corners, fractional scales) are left alone. With `explain`, a remark on each \
resize rewritten or left alone, and why.";
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
            let factors = factors(node, &input)?;
            let remark = format!("repeats each element by {factors:?}");
            Ok(((input, factors), remark))
        };
        let apply = |node: &Node, (input, factors): (Vec<usize>, Vec<usize>)| {
            rewrite(node.op, &input, &factors)
        };
        rewrite_each(operation, graph::Kind::Resize, self.explain, plan, apply)
    }
}

/// The whole factor of each dimension of the resize `node` of an input of shape `input`, or why
/// it is not a repetition.
fn factors(node: &Node, input: &[usize]) -> Result<Vec<usize>, String> {
    if !matches!(
        node.attributes.get("mode"),
        None | Some(Attr::ResizeMode(ResizeMode::Nearest))
    ) {
        return Err("it interpolates".to_owned());
    }
    let coordinates = match node.attributes.get("coordinates") {
        Some(Attr::ResizeCoordinates(coordinates)) => *coordinates,
        _ => ResizeCoordinates::HalfPixel,
    };
    let rounding = match node.attributes.get("nearest") {
        Some(Attr::NearestRounding(rounding)) => *rounding,
        _ => NearestRounding::RoundPreferFloor,
    };
    let Some(Attr::Floats(scales)) = node.attributes.get("scales") else {
        return Err("it has no scales".to_owned());
    };
    let output = &node.results[0].1.shape;
    let mut factors = Vec::with_capacity(input.len());
    for (d, (&size, &out)) in input.iter().zip(output).enumerate() {
        let scale = f64::from(scales[d]);
        let factor = scale as usize;
        if scale != factor as f64 || factor == 0 || size * factor != out {
            return Err(format!("dimension {d} is not scaled by a whole factor"));
        }
        let repeats = (0..out)
            .all(|o| nearest_source(coordinates, rounding, o, scale, size, out) == o / factor);
        if !repeats {
            return Err(format!(
                "its coordinates and rounding do not repeat the elements of dimension {d}"
            ));
        }
        factors.push(factor);
    }
    Ok(factors)
}

/// Replaces `resize` (of an input of shape `input`) by reshapes around a broadcast by `factors`.
fn rewrite(resize: Op, input: &[usize], factors: &[usize]) {
    let (mut spread, mut repeated) = (Vec::new(), Vec::new());
    for (&size, &factor) in input.iter().zip(factors) {
        spread.push(size);
        repeated.push(size);
        if factor > 1 {
            spread.push(1);
            repeated.push(factor);
        }
    }
    let (at, location) = (InsertionPoint::Before(resize), resize.location());
    let step = |kind: graph::Kind, value: Val, shape: &[usize]| -> Val {
        let ty = tensor_like(value, shape);
        create(at, location, kind, &[value], &[ty], &[], Vec::new()).result(0)
    };
    let output: Vec<usize> = input.iter().zip(factors).map(|(s, f)| s * f).collect();
    let spread = step(graph::Kind::Reshape, resize.operand(0), &spread);
    let repeated = step(graph::Kind::Broadcast, spread, &repeated);
    let result = step(graph::Kind::Reshape, repeated, &output);
    resize.result(0).replace_all_uses_with(result);
    // SAFETY: the resize's uses read the broadcast's reshape now, it holds no region, and the
    // view's handles to it are not used after this.
    unsafe { resize.erase() };
}
