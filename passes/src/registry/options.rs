//! Pass options as Rust declares them, and as the C ABI hands them to MLIR's registry.

use std::ffi::CString;
use turbine_dialects::pass_abi::{OptionKind, RawPassOption};

/// One typed option of a pass.
#[derive(Debug)]
pub struct OptionInfo {
    /// The name used in `--pass="name=value"`.
    pub name: &'static str,
    /// One line for `--help`.
    pub description: &'static str,
    /// The option's type.
    pub kind: OptionKind,
    /// Its default, written as it would be on the command line.
    pub default: &'static str,
}

/// A C string that lives for the rest of the process, for definitions handed to MLIR's registry.
pub(crate) fn leak_c_string(text: &str) -> *const std::ffi::c_char {
    CString::new(text)
        .expect("pass metadata contains no NUL")
        .into_raw()
}

/// `options` as the C ABI describes them, leaked for the rest of the process.
pub(crate) fn raw_options(options: &[OptionInfo]) -> &'static [RawPassOption] {
    let options: Vec<RawPassOption> = options
        .iter()
        .map(|option| RawPassOption {
            name: leak_c_string(option.name),
            description: leak_c_string(option.description),
            kind: option.kind,
            default_value: leak_c_string(option.default),
        })
        .collect();
    Box::leak(options.into_boxed_slice())
}
