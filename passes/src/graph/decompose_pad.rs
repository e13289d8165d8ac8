//! `graph-decompose-pad`: the lowerings copy a pad's input into an output buffer that starts
//! zeroed, so they compile a `graph.pad` that fills with +0.0 and crops nothing. Every other f32
//! pad is data movement that they do compile: along each padded dimension, the input joined by
//! `graph.concat` with what the mode puts before and after it — a constant splat of the fill
//! value, the edge element broadcast (`edge`), or the mirrored elements one slice each
//! (`reflect`, whose pads the verifier keeps smaller than the dimension) — then one
//! `graph.slice` for the negative pads, which crop the padded tensor as in ONNX's reference.
//! Dimension by dimension, the corners are filled as numpy's `pad` fills them.

use super::copies::Copies;
use super::rewrite_each::rewrite_each;
use crate::{
    graph_view::{ElementType, FunctionView, Node},
    ir::{i64_array, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use turbine_dialects::attributes::graph::PadMode;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct DecomposePad {
    explain: bool,
}

impl Pass for DecomposePad {
    const ARGUMENT: &'static str = "graph-decompose-pad";
    const SUMMARY: &'static str =
        "Rewrite a pad that fills with other than zeros, or crops, into concats and slices";
    const DESCRIPTION: &'static str = "\
The lowerings compile a `graph.pad` that fills with +0.0 and crops nothing (the output buffer \
starts zeroed). Every other pad of an f32 tensor becomes, along each padded dimension in turn, \
the input joined by `graph.concat` with what the mode puts before and after it: a constant \
splat of the fill value (`constant`, a fill of -0.0 or NaN included), the edge element \
broadcast (`edge`), the mirrored elements one `graph.slice` each (`reflect`); negative pads then \
crop the padded tensor with one `graph.slice`, as in ONNX's reference (reflections are smaller \
than their dimension: the verifier's rule). A pad of an empty dimension by its edge, which has \
no element to repeat, is left alone. With `explain`, a remark on each pad rewritten or left \
alone, and why.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit a remark on each pad rewritten or left alone, and why",
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
            let input = view.type_of(node.operands[0]);
            if input.element_type != ElementType::F32 {
                return Err("it pads a tensor of another element type than f32".to_owned());
            }
            decomposable(node, &input.shape)?;
            let remark = format!(
                "{} padding by concats and slices",
                mode_name(node.pad_mode())
            );
            Ok((input.shape.clone(), remark))
        };
        let apply = |node: &Node, input: Vec<usize>| rewrite(node, &input);
        rewrite_each(operation, graph::Kind::Pad, self.explain, plan, apply)
    }
}

fn mode_name(mode: PadMode) -> &'static str {
    match mode {
        PadMode::Constant => "constant",
        PadMode::Reflect => "reflect",
        PadMode::Edge => "edge",
    }
}

/// Whether the pad `node` of an input of shape `input` is rewritten: everything but a zero fill
/// without crops (which the lowerings compile) and edges of empty dimensions.
fn decomposable(node: &Node, input: &[usize]) -> Result<(), String> {
    let pads = node.ints("pads");
    let rank = input.len();
    let zero_fill = node.pad_mode() == PadMode::Constant && node.float("value").to_bits() == 0;
    if zero_fill && pads.iter().all(|&pad| pad >= 0) {
        return Err("the lowerings compile a zero fill".to_owned());
    }
    for d in 0..rank {
        let (before, after) = (pads[d].max(0), pads[rank + d].max(0));
        if (before > 0 || after > 0) && input[d] == 0 && node.pad_mode() != PadMode::Constant {
            return Err(format!(
                "dimension {d} is empty and has no element to repeat"
            ));
        }
    }
    Ok(())
}

/// Replaces the pad `node` (of an input of shape `input`) by concats and slices.
fn rewrite(node: &Node, input: &[usize]) {
    let copies = Copies::before(node.op);
    let pads = node.ints("pads");
    let rank = input.len();
    let (mut value, mut shape) = (node.op.operand(0), input.to_vec());
    for d in 0..rank {
        let (before, after) = (pads[d].max(0) as usize, pads[rank + d].max(0) as usize);
        if before == 0 && after == 0 {
            continue;
        }
        let mut pieces = Vec::new();
        if before > 0 {
            pieces.push(fill(&copies, node, value, &shape, d, before, true));
        }
        pieces.push(value);
        if after > 0 {
            pieces.push(fill(&copies, node, value, &shape, d, after, false));
        }
        shape[d] += before + after;
        value = copies.concat(&pieces, &shape, d);
    }
    if pads.iter().any(|&pad| pad < 0) {
        let starts: Vec<i64> = pads[..rank].iter().map(|&pad| (-pad).max(0)).collect();
        let cropped: Vec<usize> = (0..rank)
            .map(|d| shape[d] - (-pads[d]).max(0) as usize - (-pads[rank + d]).max(0) as usize)
            .collect();
        let starts = ("starts", i64_array(node.op.context(), &starts));
        value = copies.op(graph::Kind::Slice, &[value], &cropped, &[starts]);
    }
    node.op.result(0).replace_all_uses_with(value);
    // SAFETY: the pad's uses read the decomposition now, it holds no region, and the view's
    // handles to it are not used after this.
    unsafe { node.op.erase() };
}

/// What the pad `node` puts on one side of `value` (of `shape`) along `dimension`: `count`
/// elements before it (`leading`) or after it.
fn fill(
    copies: &Copies,
    node: &Node,
    value: Val,
    shape: &[usize],
    dimension: usize,
    count: usize,
    leading: bool,
) -> Val {
    let mut sized = shape.to_vec();
    sized[dimension] = count;
    let last = shape[dimension] as i64 - 1;
    match node.pad_mode() {
        PadMode::Constant => copies.constant(value, &[node.float("value")], &sized),
        PadMode::Edge => {
            let edge = if leading { 0 } else { last };
            copies.repeat(value, shape, dimension, edge, count)
        }
        PadMode::Reflect => {
            // Before: elements count, ..., 1; after: last - 1, ..., last - count.
            let mirrored: Vec<Val> = (1..=count as i64)
                .map(|distance| {
                    if leading {
                        count as i64 + 1 - distance
                    } else {
                        last - distance
                    }
                })
                .map(|index| copies.slice(value, shape, dimension, index, 1, 1))
                .collect();
            copies.concat(&mirrored, &sized, dimension)
        }
    }
}
