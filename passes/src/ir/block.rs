//! Blocks: their ops, their arguments and the op holding them. A block is a C-API value, alive
//! while its region is (see the module doc).

use super::handle::{Op, Val};
use mlir_sys::*;

/// The ops of `block` (an alive block), in order.
pub fn block_ops(block: MlirBlock) -> Vec<Op> {
    let mut ops = Vec::new();
    // SAFETY: the block is alive; the walk stops at the null op past the last, and each op is
    // one of the block's, alive with it.
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(Op::from_raw(op));
            op = mlirOperationGetNextInBlock(op);
        }
    }
    ops
}

/// The arguments of `block` (an alive block), in order.
pub fn block_arguments(block: MlirBlock) -> Vec<Val> {
    // SAFETY: the block is alive; indices stay below the argument count, and the arguments are
    // the block's, alive with it.
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|index| Val::from_raw(mlirBlockGetArgument(block, index)))
            .collect()
    }
}

/// The op whose region holds `block` (an alive block), None for a detached block.
pub fn block_parent(block: MlirBlock) -> Option<Op> {
    // SAFETY: the block is alive.
    let parent = unsafe { mlirBlockGetParentOperation(block) };
    // SAFETY: the op holding a live block is alive.
    (!parent.ptr.is_null()).then(|| unsafe { Op::from_raw(parent) })
}
