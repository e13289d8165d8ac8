//! What every tool's `main` does around its work: a crash report instead of a silent death, a
//! stack deep enough for the nesting the tools accept, and `TOOL: error: MESSAGE` with a non-zero
//! exit for an error.

use std::process::ExitCode;

/// The stack of the thread a tool's work runs on. MLIR's parser, its verifier and the passes
/// recurse once per level of nesting, which [`turbine_dialects::source::MAX_NESTING`] bounds;
/// this leaves a wide margin over what that depth needs (the main thread's 8 MiB are not enough
/// for the parser alone at a few thousand levels). Only the pages a run touches are committed.
pub const STACK_BYTES: usize = 512 << 20;

/// Runs `work` as the body of the tool `tool`: on a thread with [`STACK_BYTES`] of stack, with
/// a crash report for fatal signals and a panic hook that both name the tool and the command
/// line and say how to report the bug. An error is printed as `TOOL: error: MESSAGE` and exits
/// with 1; a panic exits with 70 (`EX_SOFTWARE`).
pub fn main(
    tool: &'static str,
    work: impl FnOnce() -> Result<(), String> + Send + 'static,
) -> ExitCode {
    let report = how_to_report();
    turbine_dialects::install_crash_report(&format!(
        "{tool}: internal error: the process crashed. {report}\n"
    ));
    std::panic::set_hook(Box::new(move |panic| {
        eprintln!("{tool}: internal error: {panic}\n{report}");
    }));
    let worker = std::thread::Builder::new()
        .name(tool.into())
        .stack_size(STACK_BYTES)
        .spawn(work);
    let outcome = match worker {
        Ok(worker) => worker.join(),
        Err(error) => Ok(Err(format!("cannot start the work thread: {error}"))),
    };
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(message)) => {
            eprintln!("{tool}: error: {message}");
            ExitCode::FAILURE
        }
        Err(_) => ExitCode::from(70),
    }
}

/// What the tools print after a crash or a panic: a bug of Turbine, whatever the input.
fn how_to_report() -> String {
    let command: Vec<String> = std::env::args().collect();
    format!(
        "This is a bug of Turbine, not of the input: please report it with the command line \
         ({}), the files it names and the messages around this one.",
        command.join(" ")
    )
}
