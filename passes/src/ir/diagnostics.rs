//! Diagnostics at a location: errors and remarks, which `--verify-diagnostics` checks like any
//! other.

use super::strings::string_ref;
use melior::ir::Location;
use mlir_sys::mlirEmitError;
use std::ffi::CString;

/// Emits an error diagnostic at `location` (it reaches `--verify-diagnostics` like any other).
pub fn emit_error(location: Location, message: &str) {
    let message = CString::new(message.replace('\0', " ")).expect("NULs were replaced");
    // SAFETY: the location is valid and MLIR copies the message.
    unsafe { mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// Emits a remark at `location`: a note about a decision, shown with its location and checked by
/// `expected-remark` under `--verify-diagnostics` (the C API has no function for it).
pub fn emit_remark(location: Location, message: &str) {
    // SAFETY: the location is valid and MLIR copies the message.
    unsafe { turbine_dialects::pass_abi::turbineEmitRemark(location.to_raw(), string_ref(message)) }
}

/// Emits a warning at `location`: something the pass ignored and went on without, checked by
/// `expected-warning` under `--verify-diagnostics`.
pub fn emit_warning(location: Location, message: &str) {
    // SAFETY: the location is valid and MLIR copies the message.
    unsafe {
        turbine_dialects::pass_abi::turbineEmitWarning(location.to_raw(), string_ref(message))
    }
}
