//! `turbine-opt`: MLIR's `mlir-opt` driver (`MlirOptMain`) with Turbine's dialects and passes.
//! Every mlir-opt flag behaves as upstream: `--split-input-file`, `--verify-diagnostics`,
//! `--mlir-print-ir-after-all`, `--mlir-timing`, `--pass-pipeline`, crash reproducers.

use std::ffi::{c_char, c_int, CString};
use std::os::unix::ffi::OsStringExt;

fn main() {
    turbine_passes::register_all_passes();
    turbine_tools::rule_check::install_rule_checker();
    let arguments: Vec<CString> = std::env::args_os()
        .map(|argument| {
            CString::new(argument.into_vec()).unwrap_or_else(|_| {
                eprintln!("turbine-opt: an argument contains a NUL byte");
                std::process::exit(1)
            })
        })
        .collect();
    let mut argv: Vec<*mut c_char> = arguments
        .iter()
        .map(|argument| argument.as_ptr().cast_mut())
        .collect();
    argv.push(std::ptr::null_mut());
    // SAFETY: argv holds argc valid NUL-terminated strings (plus a terminating null), alive for the
    // call; MlirOptMain does not keep them.
    let status = unsafe {
        turbine_dialects::pass_abi::turbineOptMain(arguments.len() as c_int, argv.as_mut_ptr())
    };
    std::process::exit(status)
}
