//! Errors of the interpreter: each names where it happened (an op's location) or the file at fault.

use std::fmt;

/// Why interpretation failed.
#[derive(Debug, Clone, PartialEq)]
pub enum InterpretError {
    /// The IR uses something the interpreter does not evaluate.
    Unsupported {
        /// The op's location, as MLIR prints it.
        location: String,
        /// What is unsupported.
        message: String,
    },
    /// Evaluating an op failed on the values it was given (an index out of range, a missing
    /// weight, a shape that disagrees with a weights file).
    Runtime {
        /// The op's location.
        location: String,
        /// What went wrong.
        message: String,
    },
    /// An input, output or weights file could not be read or written, or holds the wrong thing.
    File {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// The inputs do not match the function's arguments.
    Inputs(String),
}

impl fmt::Display for InterpretError {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Unsupported { location, message } => {
                write!(
                    formatter,
                    "{location}: unsupported by the interpreter: {message}"
                )
            }
            Self::Runtime { location, message } => write!(formatter, "{location}: {message}"),
            Self::File { path, message } => write!(formatter, "{path}: {message}"),
            Self::Inputs(message) => write!(formatter, "inputs: {message}"),
        }
    }
}

impl std::error::Error for InterpretError {}
