//! The call a region of an outlined `graph.if` or `graph.loop` holds (see
//! `graph-outline-control-flow`): its callee, and for each operand whether it is an argument of
//! the region's block or a value of the function around the op.

use crate::graph_view::{Node, ValueId};
use crate::ir::{block_arguments, block_ops};
use crate::kernels::error::LoweringError;
use std::collections::BTreeMap;
use turbine_dialects::ops::upstream;

/// What a call in a region passes: an argument of the region's block, or a value of the
/// function around it.
#[derive(Debug, Clone, Copy)]
pub(super) enum Passed {
    Argument(usize),
    Outer(ValueId),
}

/// The call a region holds: its callee and what it passes.
#[derive(Debug, Clone)]
pub(super) struct RegionCall {
    pub(super) callee: String,
    pub(super) passed: Vec<Passed>,
}

/// The call in region `region` of `node` (a control op outlined by
/// `graph-outline-control-flow`).
pub(super) fn region_call(
    node: &Node,
    index: usize,
    region: usize,
) -> Result<RegionCall, LoweringError> {
    let outer: BTreeMap<usize, ValueId> = node
        .op
        .captured_values()
        .into_iter()
        .map(|value| value.raw().ptr as usize)
        .zip(node.captures.iter().copied())
        .collect();
    let block = node.op.blocks()[region];
    let ops = block_ops(block);
    let call = match ops.as_slice() {
        [call, yield_op]
            if call.is(upstream::Kind::FuncCall) && yield_op.operands() == call.results() =>
        {
            *call
        }
        _ => {
            return Err(LoweringError::at(
                index,
                format!(
                    "the regions of '{}' must each be a call and a yield of its results: run \
                     graph-outline-control-flow first",
                    node.name
                ),
            ))
        }
    };
    let arguments = block_arguments(block);
    let passed = call
        .operands()
        .into_iter()
        .map(|value| match arguments.iter().position(|a| *a == value) {
            Some(position) => Passed::Argument(position),
            None => Passed::Outer(outer[&(value.raw().ptr as usize)]),
        })
        .collect();
    Ok(RegionCall {
        callee: call
            .symbol_reference("callee")
            .expect("a call names its callee"),
        passed,
    })
}
