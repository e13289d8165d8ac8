//! `turbine-opt`: MLIR's `mlir-opt` driver (`MlirOptMain`) with Turbine's dialects and passes.
//! Every mlir-opt flag behaves as upstream: `--split-input-file`, `--verify-diagnostics`,
//! `--mlir-print-ir-after-all`, `--mlir-timing`, `--pass-pipeline`, crash reproducers.
//!
//! The input is read here rather than by MLIR, within [`turbine_files::MODEL`], refusing folders
//! and devices, and checked by [`turbine_dialects::source::check`] for what MLIR's parser cannot
//! survive.

use std::ffi::{c_char, c_int, c_void, CString};
use std::io::IsTerminal;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::Path;
use std::process::ExitCode;

use melior::ir::OperationRef;
use mlir_sys::{MlirOperation, MlirStringCallback, MlirStringRef};
use turbine_dialects::pass_abi::{turbineOptParseCommandLine, turbineOptRun};
use turbine_tools::input::{recognise, ModelFormat};

fn main() -> ExitCode {
    turbine_tools::cli::main("turbine-opt", run)
}

fn run() -> Result<(), String> {
    turbine_passes::register_all_passes();
    turbine_tools::rule_check::install_rule_checker();
    let arguments: Vec<CString> = std::env::args_os()
        .map(|argument| {
            CString::new(argument.into_vec())
                .map_err(|_| "an argument contains a NUL byte".to_string())
        })
        .collect::<Result<_, _>>()?;
    let mut argv: Vec<*mut c_char> = arguments
        .iter()
        .map(|argument| argument.as_ptr().cast_mut())
        .collect();
    argv.push(std::ptr::null_mut());
    let argc = arguments.len() as c_int;
    let mut files: Vec<String> = Vec::new();
    // SAFETY: argv holds argc valid NUL-terminated strings (plus a terminating null), alive for
    // the call, and `files` is the vector `collect_name` expects.
    unsafe {
        turbineOptParseCommandLine(
            argc,
            argv.as_mut_ptr(),
            Some(collect_name),
            (&mut files as *mut Vec<String>).cast(),
        )
    };
    let [input, output] = <[String; 2]>::try_from(files)
        .map_err(|_| "the command line gave no input and output file names".to_string())?;
    let source = read_input(&input)?;
    if let Err(error) = turbine_dialects::source::check(&source) {
        return Err(format!("{input}:{error}"));
    }
    let reference = |text: &[u8]| MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    };
    // SAFETY: as above; the texts are alive for the call and MLIR copies what it keeps.
    let status = unsafe {
        turbineOptRun(
            argc,
            argv.as_mut_ptr(),
            reference(&source),
            reference(input.as_bytes()),
            reference(output.as_bytes()),
            view_schedule,
        )
    };
    if status == 0 {
        Ok(())
    } else {
        // MLIR has printed the diagnostics; the exit code is all that is left to give.
        std::process::exit(status)
    }
}

/// Draws the schedule of `module` for `--view-schedule` (see [`turbine_tools::schedule_view`]);
/// a note (Graphviz missing) goes to stderr, an error to `on_error`.
unsafe extern "C" fn view_schedule(
    module: MlirOperation,
    path: MlirStringRef,
    on_error: MlirStringCallback,
    user_data: *mut c_void,
) -> bool {
    // SAFETY: MLIR passes a live module and a path valid for the call.
    let (module, path) = unsafe {
        (
            OperationRef::from_raw(module),
            std::slice::from_raw_parts(path.data.cast::<u8>(), path.length),
        )
    };
    let path = Path::new(std::ffi::OsStr::from_bytes(path));
    match turbine_tools::schedule_view::write(module, path) {
        Ok(note) => {
            if let Some(note) = note {
                eprintln!("turbine-opt: {note}");
            }
            true
        }
        Err(message) => {
            if let Some(on_error) = on_error {
                // SAFETY: the callback takes the message for the call's duration.
                unsafe {
                    on_error(
                        MlirStringRef {
                            data: message.as_ptr().cast(),
                            length: message.len(),
                        },
                        user_data,
                    )
                };
            }
            false
        }
    }
}

/// Appends the string MLIR reports to the `Vec<String>` behind `user_data`.
unsafe extern "C" fn collect_name(name: MlirStringRef, user_data: *mut c_void) {
    // SAFETY: user_data is the vector `run` passed, and `name` is valid for the call.
    let (names, bytes) = unsafe {
        (
            &mut *user_data.cast::<Vec<String>>(),
            std::slice::from_raw_parts(name.data.cast::<u8>(), name.length),
        )
    };
    names.push(String::from_utf8_lossy(bytes).into_owned());
}

/// The input's text: the file `name`, or standard input for `-` (as in mlir-opt).
fn read_input(name: &str) -> Result<Vec<u8>, String> {
    let source = if name == "-" {
        let stdin = std::io::stdin();
        if stdin.is_terminal() {
            eprintln!("(processing input from stdin now, hit ctrl-c/ctrl-d to interrupt)");
        }
        turbine_files::read_from(stdin.lock(), turbine_files::MODEL).map_err(
            |error| match error {
                turbine_files::ReadError::TooLarge => format!(
                    "standard input: larger than the limit for a model ({} bytes)",
                    turbine_files::MODEL.bytes
                ),
                turbine_files::ReadError::Io(error) => format!("standard input: {error}"),
            },
        )?
    } else {
        turbine_files::read(Path::new(name), turbine_files::MODEL)
            .map_err(|error| error.to_string())?
    };
    if recognise(&source) == ModelFormat::Onnx {
        return Err(format!(
            "{name}: the input looks like {}, not MLIR text: import it with \
             `turbine-translate --import-onnx` first",
            ModelFormat::Onnx.describe()
        ));
    }
    Ok(source)
}
