//! Small IR helpers over the MLIR C API for rewriting in place, which melior's borrow-based
//! handles make awkward (an op cannot be erased while a walk or another handle borrows it).
//!
//! # The handle contract
//!
//! [`Op`] and [`Val`] are `Copy` wrappers of C-API handles with no lifetime, so the compiler
//! cannot see when the IR they point into goes away; soundness rests on this contract instead:
//!
//! - From a raw C-API value, a handle is made only by the `unsafe` [`Op::from_raw`] and
//!   [`Val::from_raw`] (the fields are private). The caller promises that the op (or the value's
//!   owner) is alive, and that it, the IR it is in and the context stay alive for as long as the
//!   handle, its copies and everything reached from them are used. A pass makes the promise for
//!   its anchor op, which is alive for the run; code that creates or clones an op makes it for
//!   the op MLIR just made, which it keeps or inserts.
//! - Every other handle is derived from a live one by a safe method (an operand, a result, a
//!   parent, a walk, the new op of [`create`]), and so lies in the same IR under the same promise.
//! - IR is destroyed or moved only by `unsafe` functions: [`Op::erase`] requires that the op is
//!   its block's or the caller's to destroy, that its results have no uses left, and that no
//!   handle to the op, its results, its blocks or the ops nested in it is used afterwards;
//!   [`Op::move_to_end`] requires the same ownership, and a live block of the same IR outside
//!   the op to land in.
//!
//! So, given live handles, every safe function keeps them live: it reads the IR, creates ops,
//! sets operands, attributes and types, or replaces uses, and none of that frees an op, value or
//! block. Where MLIR would read out of bounds or through null (an operand past the last, a region
//! the op lacks, the block of a detached op, a lookup in an op that is no symbol table), these
//! functions check and panic or return None. Whether the IR still verifies (an operand of the
//! type its op expects, a value that dominates its uses) is the caller's concern and the
//! verifier's, not memory safety's.
//!
//! # C-API values
//!
//! The functions also take and return plain C-API values: the `MlirContext`; `MlirType`,
//! `MlirAttribute` and `MlirLocation`, which the context uniques and keeps alive as long as it
//! lives; and `MlirBlock` and `MlirRegion`, which their owner keeps alive. Those given to these
//! functions must be ones MLIR handed out in the same live context as the handles they are used
//! with; a block must be alive (in a live op, or in a region not yet destroyed), and a region
//! given to [`create`] must be a detached one the caller owns, such as [`region_with_block`]
//! returns, which `create` takes over and destroys, so it is not used again.

mod block;
mod build;
mod diagnostics;
mod handle;
mod op;
mod strings;
mod value;

pub use block::{block_arguments, block_ops, block_parent};
pub use build::{
    array, create, create_inferring, create_named, dictionary, f64_attribute, function_type,
    i64_array, i64_attribute, region_with_block, string_attribute, InsertionPoint, NamedAttribute,
};
pub use diagnostics::{emit_error, emit_remark};
pub use handle::{Op, Val};
pub(crate) use strings::{string_ref, to_string};
