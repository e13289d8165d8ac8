//! The C ABI of `lib/TurbinePass.h`: how a pass or a pipeline written in Rust is described to
//! MLIR's pass registry, remarks, and the two steps of `turbine-opt` around `MlirOptMain`.
//!
//! MLIR's own `ExternalPass` cannot carry options or an anchor op, and LLVM 22's C API can
//! register neither a pass nor a pipeline, so the C++ side (`lib/TurbinePass.cpp`) defines a pass
//! class that holds typed options and calls back into Rust with their values as text, and a
//! pipeline builder that adds registered passes by their argument.

use mlir_sys::{MlirLocation, MlirOperation, MlirStringCallback, MlirStringRef};
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
    /// The op the pass runs on; the pass manager refuses any other.
    pub anchor: *const c_char,
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

/// One option of a pass in a pipeline step (`TurbineStepOption`).
#[repr(C)]
pub struct RawStepOption {
    /// The pass option's name.
    pub name: *const c_char,
    /// Index of the pipeline option whose value the pass option takes, or -1 for `value`.
    pub pipeline_option: i64,
    /// The fixed value when `pipeline_option` is -1 (else null).
    pub value: *const c_char,
}

/// One pass of a pipeline (`TurbinePipelineStep`).
#[repr(C)]
pub struct RawPipelineStep {
    /// The op the pass is nested on (`func.func`), or null for the pipeline's own op.
    pub nest: *const c_char,
    /// The pass's registered argument.
    pub pass: *const c_char,
    /// Its options, `num_options` of them.
    pub options: *const RawStepOption,
    /// Number of options.
    pub num_options: usize,
}

/// A named pipeline as the C++ registry sees it (`TurbinePipelineDefinition`).
#[repr(C)]
pub struct RawPipelineDefinition {
    /// The pipeline's flag.
    pub argument: *const c_char,
    /// One line for `--help`.
    pub summary: *const c_char,
    /// The pipeline's options, `num_options` of them.
    pub options: *const RawPassOption,
    /// Number of options.
    pub num_options: usize,
    /// Its passes, in order, `num_steps` of them.
    pub steps: *const RawPipelineStep,
    /// Number of passes.
    pub num_steps: usize,
}

// SAFETY: as for RawPassDefinition.
unsafe impl Sync for RawPipelineDefinition {}
unsafe impl Send for RawPipelineDefinition {}

/// Draws the schedule of a module for a file (`--view-schedule`); on failure, hands the message
/// to the callback and returns false.
pub type ScheduleViewer = unsafe extern "C" fn(
    module: MlirOperation,
    path: MlirStringRef,
    on_error: MlirStringCallback,
    user_data: *mut c_void,
) -> bool;

unsafe extern "C" {
    /// Registers a pass with MLIR's global pass registry. The definition must live for the rest of
    /// the process.
    pub fn turbineRegisterPass(definition: *const RawPassDefinition);
    /// Registers a named pipeline with MLIR's global pass registry. The definition must live for
    /// the rest of the process.
    pub fn turbineRegisterPipeline(definition: *const RawPipelineDefinition);
    /// Emits a remark at `location`; MLIR copies the message.
    pub fn turbineEmitRemark(location: MlirLocation, message: MlirStringRef);
    /// Emits a warning at `location`; MLIR copies the message.
    pub fn turbineEmitWarning(location: MlirLocation, message: MlirStringRef);
    /// Parses `turbine-opt`'s command line as `mlir-opt` does, with every upstream dialect,
    /// extension and pass plus Turbine's dialects and the passes registered so far (exiting on
    /// `--help` or a bad flag), and calls `callback` with the input file's name, then the
    /// output's.
    pub fn turbineOptParseCommandLine(
        argc: c_int,
        argv: *mut *mut c_char,
        callback: MlirStringCallback,
        user_data: *mut c_void,
    );
    /// Runs `mlir-opt` on `source`, the input's text named `input_name` in diagnostics, writing
    /// to the file `output_name` (`-`: stdout), after [`turbineOptParseCommandLine`]; with
    /// `--view-schedule=FILE`, calls `draw` once with the module and FILE (just before
    /// `convert-instance-to-dsa` when the pipeline runs it, else after the pipeline). Returns the
    /// exit code.
    pub fn turbineOptRun(
        argc: c_int,
        argv: *mut *mut c_char,
        source: MlirStringRef,
        input_name: MlirStringRef,
        output_name: MlirStringRef,
        draw: ScheduleViewer,
    ) -> c_int;
}
