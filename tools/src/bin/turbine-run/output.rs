//! How `turbine-run` writes its results: to stdout, quietly ending on a closed pipe.

use std::io::Write;

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
