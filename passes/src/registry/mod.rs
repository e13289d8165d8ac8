//! How a Rust pass describes itself (flag, summary, description, anchor op, typed options) and how
//! it is handed to MLIR's pass registry through the C ABI of `turbine_dialects::pass_abi`; named
//! pipelines of registered passes ([`pipeline`]); the reference documentation of both ([`docs`]).
//!
//! MLIR owns option parsing: it parses `--pass="name=value"` and pipeline text with the option's
//! type, and hands the values to Rust as text, which [`PassOptions`] reads back. A pass is built
//! from its options for every run, so a pass is a plain value with no state between runs. MLIR
//! also owns scheduling: a pass runs only on its anchor op, as an `OperationPass<OpT>` does, so
//! a pass need not check what it was given.

pub mod docs;
mod options;
pub mod pipeline;

pub use options::OptionInfo;
pub use pipeline::{PipelineInfo, Step, StepValue};

use options::{leak_c_string, raw_options};

use melior::ir::{operation::OperationLike, OperationRef};
use mlir_sys::{MlirOperation, MlirStringCallback, MlirStringRef};
use std::{
    any::TypeId,
    collections::HashMap,
    ffi::c_void,
    fmt,
    panic::{catch_unwind, AssertUnwindSafe},
    sync::{Mutex, OnceLock},
};
use turbine_dialects::ops::OpKind;
use turbine_dialects::pass_abi::{self, RawPassDefinition};

/// What MLIR and the documentation know about a pass.
#[derive(Debug)]
pub struct PassInfo {
    /// The flag (`graph-fold-reshapes`).
    pub argument: &'static str,
    /// One line, shown by `--help`.
    pub summary: &'static str,
    /// Paragraphs for docs/Passes.md: what the pass does and why.
    pub description: &'static str,
    /// The op the pass runs on.
    pub anchor: OpKind,
    /// Typed options.
    pub options: &'static [OptionInfo],
    run: fn(&PassOptions, OperationRef) -> Result<(), PassFailure>,
    validate: fn(&PassOptions) -> Result<(), String>,
}

/// A pass failed; its diagnostics are already attached to the IR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassFailure;

/// A pass written in Rust.
pub trait Pass: Sized + 'static {
    /// The flag.
    const ARGUMENT: &'static str;
    /// One line for `--help`.
    const SUMMARY: &'static str;
    /// Paragraphs for the documentation.
    const DESCRIPTION: &'static str;
    /// The op the pass runs on (`builtin.module`, `func.func`): the smallest op that holds all
    /// the pass reads and writes, so that MLIR can run it on several such ops in parallel and
    /// refuses to run it on any other.
    const ANCHOR: OpKind;
    /// Typed options.
    const OPTIONS: &'static [OptionInfo] = &[];

    /// Builds the pass from its option values, or says which value is wrong.
    fn from_options(options: &PassOptions) -> Result<Self, String>;

    /// Runs the pass on `operation`, an [`Pass::ANCHOR`] op. On failure, emit an error on the
    /// offending op first.
    fn run(&self, operation: OperationRef) -> Result<(), PassFailure>;
}

/// The registry entry for `P`, created once per pass type.
pub fn info_of<P: Pass>() -> &'static PassInfo {
    static INFOS: OnceLock<Mutex<HashMap<TypeId, &'static PassInfo>>> = OnceLock::new();
    let mut infos = INFOS.get_or_init(Default::default).lock().unwrap();
    infos.entry(TypeId::of::<P>()).or_insert_with(|| {
        Box::leak(Box::new(PassInfo {
            argument: P::ARGUMENT,
            summary: P::SUMMARY,
            description: P::DESCRIPTION,
            anchor: P::ANCHOR,
            options: P::OPTIONS,
            run: |options, operation| {
                P::from_options(options)
                    .map_err(|_| PassFailure)?
                    .run(operation)
            },
            validate: |options| P::from_options(options).map(drop),
        }))
    })
}

/// Option values of one pass instance, as MLIR parsed them.
#[derive(Debug)]
pub struct PassOptions {
    values: Vec<(&'static OptionInfo, String)>,
}

/// An option value that does not parse as its declared type.
#[derive(Debug)]
pub struct OptionError(String);

impl fmt::Display for OptionError {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl PassOptions {
    /// Options with their defaults, for running a pass from Rust.
    pub fn defaults(options: &'static [OptionInfo]) -> Self {
        Self {
            values: options
                .iter()
                .map(|option| (option, option.default.to_owned()))
                .collect(),
        }
    }

    /// Sets one option from text, as `--pass="name=value"` would.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), String> {
        let slot = self
            .values
            .iter_mut()
            .find(|(option, _)| option.name == name)
            .ok_or_else(|| format!("unknown option '{name}'"))?;
        slot.1 = value.to_owned();
        Ok(())
    }

    fn text(&self, name: &str) -> &str {
        self.values
            .iter()
            .find(|(option, _)| option.name == name)
            .map(|(_, value)| value.as_str())
            .unwrap_or_else(|| panic!("pass reads undeclared option '{name}'"))
    }

    /// A string option.
    pub fn string(&self, name: &str) -> String {
        self.text(name).to_owned()
    }

    /// An integer option.
    pub fn int(&self, name: &str) -> Result<i64, String> {
        self.text(name)
            .parse()
            .map_err(|_| format!("option '{name}' expects an integer"))
    }

    /// A boolean option.
    pub fn bool(&self, name: &str) -> Result<bool, String> {
        match self.text(name) {
            "true" | "1" => Ok(true),
            "false" | "0" => Ok(false),
            other => Err(format!(
                "option '{name}' expects true or false, got '{other}'"
            )),
        }
    }

    /// A floating-point option.
    pub fn float(&self, name: &str) -> Result<f64, String> {
        self.text(name)
            .parse()
            .map_err(|_| format!("option '{name}' expects a number"))
    }
}

impl PassInfo {
    /// Runs the pass with `options` on `operation`, outside any pass manager (for tests and tools).
    /// Like the pass manager, refuses an op other than the pass's anchor, with an error at it.
    pub fn run(&self, options: &PassOptions, operation: OperationRef) -> Result<(), PassFailure> {
        let name = operation.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        if OpKind::from_name(name) != Some(self.anchor) {
            crate::ir::emit_error(
                operation.location(),
                &format!(
                    "can't run '{}' pass on '{name}' op (it runs on '{}')",
                    self.argument, self.anchor
                ),
            );
            return Err(PassFailure);
        }
        (self.run)(options, operation)
    }

    fn options_from_raw(&'static self, values: *const MlirStringRef, count: usize) -> PassOptions {
        let values = if count == 0 {
            &[][..]
        } else {
            // SAFETY: the C++ side passes one string per declared option, alive for this call.
            unsafe { std::slice::from_raw_parts(values, count) }
        };
        PassOptions {
            values: self
                .options
                .iter()
                .zip(values)
                .map(|(option, value)| {
                    // SAFETY: MlirStringRef points at `length` valid bytes.
                    let bytes = unsafe {
                        std::slice::from_raw_parts(value.data.cast::<u8>(), value.length)
                    };
                    (option, String::from_utf8_lossy(bytes).into_owned())
                })
                .collect(),
        }
    }
}

unsafe extern "C" fn validate_callback(
    user_data: *const c_void,
    values: *const MlirStringRef,
    count: usize,
    on_error: MlirStringCallback,
    error_user_data: *mut c_void,
) -> bool {
    // SAFETY: user_data is the leaked &'static PassInfo given at registration.
    let info: &'static PassInfo = unsafe { &*user_data.cast::<PassInfo>() };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        (info.validate)(&info.options_from_raw(values, count))
    }))
    .unwrap_or_else(|_| Err("internal error while reading the options".into()));
    match outcome {
        Ok(()) => true,
        Err(message) => {
            if let Some(callback) = on_error {
                let reference = MlirStringRef {
                    data: message.as_ptr().cast(),
                    length: message.len(),
                };
                // SAFETY: the callback copies the string before returning.
                unsafe { callback(reference, error_user_data) };
            }
            false
        }
    }
}

unsafe extern "C" fn run_callback(
    user_data: *const c_void,
    values: *const MlirStringRef,
    count: usize,
    operation: MlirOperation,
) -> bool {
    // SAFETY: as in validate_callback; the operation is the one the pass manager runs us on.
    let info: &'static PassInfo = unsafe { &*user_data.cast::<PassInfo>() };
    let operation = unsafe { OperationRef::from_raw(operation) };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        (info.run)(&info.options_from_raw(values, count), operation)
    }));
    match outcome {
        Ok(result) => result.is_ok(),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            crate::ir::emit_error(
                operation.location(),
                &format!("internal error in pass '{}': {detail}", info.argument),
            );
            false
        }
    }
}

/// Hands `info` to MLIR's pass registry.
pub fn register(info: &'static PassInfo) {
    let options = raw_options(info.options);
    let definition = Box::leak(Box::new(RawPassDefinition {
        argument: leak_c_string(info.argument),
        summary: leak_c_string(info.summary),
        anchor: leak_c_string(info.anchor.name()),
        options: options.as_ptr(),
        num_options: options.len(),
        user_data: (info as *const PassInfo).cast(),
        validate: validate_callback,
        run: run_callback,
    }));
    // SAFETY: the definition and everything it points to are leaked, so they outlive MLIR's use.
    unsafe { pass_abi::turbineRegisterPass(definition) };
}
