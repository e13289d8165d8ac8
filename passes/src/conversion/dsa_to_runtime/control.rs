//! Control flow between launches: `dsa.read_scalar`, `dsa.write_scalar` and `dsa.loop_check`
//! become `td_read_scalar`, `td_write_scalar` and `td_loop_check`, and a `dsa.persistent`
//! region is inlined between `td_persistent_begin` and `td_persistent_end`, which make the
//! runtime time its launches as the steps of one persistent kernel and its reads as the cores'.
//!
//! The host code around them (`scf.if`, `scf.while`) stays host code: as with a kernel's loops
//! over tiles, the runtime is told which side decides, and times it so.

use super::abi::{FunctionState, TOKEN_WORD};
use super::builder::Builder;
use super::types::{i1_type, i32_type, i64_type, index_type, integer_attribute};
use super::views::root_and_offset;
use crate::ir::{block_ops, Op, Val};
use mlir_sys::*;
use turbine_dialects::ops::{dsa, upstream};

/// The runtime handle and element offset (both `i64`) of the one-element `buffer`.
fn handle_and_offset(builder: &Builder, buffer: Val) -> (Val, Val) {
    let (root, offset) = root_and_offset(builder, buffer);
    let (index, i64) = (index_type(builder.context), i64_type(builder.context));
    let pointer = builder.cast(
        upstream::Kind::MemrefExtractAlignedPointerAsIndex,
        root,
        index,
    );
    (
        builder.cast(upstream::Kind::ArithIndexCast, pointer, i64),
        builder.cast(upstream::Kind::ArithIndexCast, offset, i64),
    )
}

/// Lowers `op`, a `dsa.read_scalar`: the value `td_read_scalar` writes to the scratch's token
/// word. The word is zeroed first, so a failed read (kept for `td_device_take_error`) reads 0:
/// a false condition, which ends a loop instead of running it on an old value.
pub(super) fn lower_read_scalar(op: Op, builder: &Builder, state: FunctionState) {
    let (handle, offset) = handle_and_offset(builder, op.operand(0));
    let slot = builder.word(
        state.scratch.expect("reading functions have scratch"),
        TOKEN_WORD,
    );
    builder.store(builder.constant_i64(0), slot);
    builder.call_runtime("td_read_scalar", &[state.device, handle, offset, slot]);
    op.result(0).replace_all_uses_with(builder.load_i64(slot));
}

/// Lowers `op`, a `dsa.write_scalar`: `td_write_scalar`.
pub(super) fn lower_write_scalar(op: Op, builder: &Builder, state: FunctionState) {
    let (handle, offset) = handle_and_offset(builder, op.operand(1));
    builder.call_runtime(
        "td_write_scalar",
        &[state.device, handle, offset, op.operand(0)],
    );
}

/// `arith.cmpi`'s predicate `eq`.
const EQUAL: i64 = 0;

/// Lowers `op`, a `dsa.loop_check` or `dsa.frame_push` of the loop or call whose layer id is
/// `layer` (the runtime's error names it): whether `callee` (`td_loop_check` on `arguments`, or
/// `td_frame_push`) returned success (0).
pub(super) fn lower_allowed(
    op: Op,
    builder: &Builder,
    callee: &str,
    arguments: &[Val],
    state: FunctionState,
    layer: i64,
) {
    let context = builder.context;
    let mut operands = vec![state.device];
    operands.extend_from_slice(arguments);
    operands.push(builder.constant_i32(layer));
    let call = builder.call(callee, &operands, &[i32_type(context)]);
    let allowed = builder.value(
        upstream::Kind::ArithCmpi,
        &[call.result(0), builder.constant_i32(0)],
        i1_type(context),
        &[("predicate", integer_attribute(i64_type(context), EQUAL))],
    );
    op.result(0).replace_all_uses_with(allowed);
}

/// Inlines every `dsa.persistent` of `function` (whose leading argument is the device) where it
/// stands, between `td_persistent_begin` and `td_persistent_end`; its results become the values
/// its region yielded.
pub(super) fn inline_persistent_regions(function: Op) {
    let device = function.entry_argument(0);
    let regions: Vec<Op> = function
        .collect_pre_order()
        .into_iter()
        .filter(|op| op.is(dsa::Kind::Persistent))
        .collect();
    for persistent in regions {
        let builder = Builder::before(persistent);
        builder.call_runtime("td_persistent_begin", &[device]);
        let block = persistent
            .entry_block()
            .expect("a persistent region has its block");
        let ops = block_ops(block);
        let (terminator, body) = ops.split_last().expect("the region ends in dsa.yield");
        for &op in body {
            // SAFETY: both ops are alive; the moved op leaves the region for the block holding
            // it, before the region's op, where every value it uses is still defined.
            unsafe { mlirOperationMoveBefore(op.raw(), persistent.raw()) };
        }
        for (result, value) in persistent.results().into_iter().zip(terminator.operands()) {
            result.replace_all_uses_with(value);
        }
        builder.call_runtime("td_persistent_end", &[device]);
        // SAFETY: the op's results have no uses left, its region holds only the yield, and
        // neither is used again.
        unsafe { persistent.erase() };
    }
}
