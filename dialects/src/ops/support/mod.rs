//! What the generated code calls: reading operands and attributes of an op, making attributes
//! and ops. Every function that reads an attribute takes the op's and the attribute's names for
//! the panic message of an unverified op.

mod make;
mod positions;
mod read;

pub use make::*;
pub use positions::*;
pub use read::*;

use melior::ir::OperationRef;
use mlir_sys::MlirStringRef;

/// The op's name as bytes; non-UTF-8 names (MLIR never makes them) read as empty.
pub fn name<'c>(op: OperationRef<'c, '_>) -> &'c str {
    // SAFETY: the op is alive; its name is an identifier owned by the context ('c).
    let reference =
        unsafe { mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw())) };
    std::str::from_utf8(bytes(reference)).unwrap_or_default()
}

fn bytes<'s>(reference: MlirStringRef) -> &'s [u8] {
    if reference.data.is_null() {
        return &[];
    }
    // SAFETY: MLIR string refs point at `length` valid bytes owned by the context.
    unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) }
}

/// An owned copy of a string reference, invalid UTF-8 replaced.
pub fn lossy(reference: MlirStringRef) -> String {
    String::from_utf8_lossy(bytes(reference)).into_owned()
}
