//! How `turbine-run` writes: results to stdout, quietly ending on a closed pipe, and progress
//! to a terminal only.

use std::io::{IsTerminal, Write};

/// Writes to stdout; a closed pipe (`turbine-run ... | head`) ends the program quietly, as it
/// ends other Unix tools, rather than with a panic.
pub(crate) fn emit(arguments: std::fmt::Arguments) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_fmt(arguments) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("turbine-run: error: cannot write the output: {error}");
        std::process::exit(1);
    }
}

/// Shows what a step that may take seconds is doing, on a terminal only (erased by
/// [`progress_done`]); nothing goes into a pipe or a file.
pub(crate) fn progress(what: &str) {
    let mut stderr = std::io::stderr();
    if stderr.is_terminal() {
        let _ = write!(stderr, "{what}…");
        let _ = stderr.flush();
    }
}

/// Erases what [`progress`] showed.
pub(crate) fn progress_done() {
    let mut stderr = std::io::stderr();
    if stderr.is_terminal() {
        let _ = write!(stderr, "\r\x1b[K");
        let _ = stderr.flush();
    }
}
