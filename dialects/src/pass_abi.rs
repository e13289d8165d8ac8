//! The C ABI of `lib/TurbinePass.h`: how a pass written in Rust is described to MLIR's pass
//! registry, and the `MlirOptMain` entry point.
//!
//! MLIR's own `ExternalPass` cannot carry options, and LLVM 22's C API cannot register a pass, so
//! the C++ side (`lib/OptMain.cpp`) defines a pass class that holds typed options and calls back
//! into Rust with their values as text.

use mlir_sys::{MlirOperation, MlirStringCallback, MlirStringRef};
use std::ffi::{c_char, c_int, c_void};

/// How MLIR parses and documents an option (`TurbineOptionKind`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// Free text.
    String = 0,
    /// A signed 64-bit integer.
    Int = 1,
    /// `true` or `false`.
    Bool = 2,
    /// A double.
    Float = 3,
}

/// One option of a pass (`TurbinePassOption`).
#[repr(C)]
pub struct RawPassOption {
    /// The option's name in `--pass="name=value"`.
    pub name: *const c_char,
    /// One line for `--help`.
    pub description: *const c_char,
    /// Its type.
    pub kind: OptionKind,
    /// Its default value, as text.
    pub default_value: *const c_char,
}

/// Checks option values; see `TurbinePassDefinition::validate`.
pub type ValidateCallback = unsafe extern "C" fn(
    user_data: *const c_void,
    values: *const MlirStringRef,
    count: usize,
    on_error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool;

/// Runs a pass; see `TurbinePassDefinition::run`.
pub type RunCallback = unsafe extern "C" fn(
    user_data: *const c_void,
    values: *const MlirStringRef,
    count: usize,
    operation: MlirOperation,
) -> bool;

/// A pass as the C++ registry sees it (`TurbinePassDefinition`).
#[repr(C)]
pub struct RawPassDefinition {
    /// The pass flag.
    pub argument: *const c_char,
    /// One line for `--help`.
    pub summary: *const c_char,
    /// The options, `num_options` of them.
    pub options: *const RawPassOption,
    /// Number of options.
    pub num_options: usize,
    /// Passed back to the callbacks.
    pub user_data: *const c_void,
    /// Option validation.
    pub validate: ValidateCallback,
    /// The pass itself.
    pub run: RunCallback,
}

// SAFETY: a definition is immutable once registered and only read by MLIR.
unsafe impl Sync for RawPassDefinition {}
unsafe impl Send for RawPassDefinition {}

unsafe extern "C" {
    /// Registers a pass with MLIR's global pass registry. The definition must live for the rest of
    /// the process.
    pub fn turbineRegisterPass(definition: *const RawPassDefinition);
    /// Runs MLIR's `MlirOptMain` with every upstream dialect, extension and pass plus Turbine's
    /// dialects and the passes registered so far.
    pub fn turbineOptMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}
