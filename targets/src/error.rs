//! Errors of loading and validating a target description.

use std::fmt;
use std::path::PathBuf;

/// Why a target description could not be had. Every variant names what was wrong: the
/// built-in name, the file, or the field (as a dotted TOML path such as `bandwidth.gb_lb`).
#[derive(Debug, Clone, PartialEq)]
pub enum TargetError {
    /// No built-in target has this name (and, for [`crate::Target::load`], no file either).
    UnknownBuiltin {
        /// The name asked for.
        name: String,
        /// The built-in names, to show what is available.
        known: Vec<&'static str>,
    },
    /// The file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why: the operating system's message, or the file is not a readable description
        /// (a folder, a device, too large, not UTF-8).
        message: String,
    },
    /// The text is not valid TOML or does not have the shape of a target description
    /// (missing or unknown field, wrong type). The message comes from the TOML parser and
    /// shows the line, the column and the key.
    Parse {
        /// Where the text came from: a file path or `builtin:<name>`.
        origin: String,
        /// The parser's message.
        message: String,
    },
    /// The description parsed but a value is out of its allowed range.
    Invalid {
        /// The target's `name` field.
        target: String,
        /// Dotted path of the offending field, e.g. `throughput.matrix_engine.f32`.
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for TargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TargetError::UnknownBuiltin { name, known } => write!(
                f,
                "unknown target '{name}': no built-in target has this name (built-ins: {})",
                known.join(", ")
            ),
            TargetError::Io { path, message } => {
                write!(f, "cannot read target file '{}': {message}", path.display())
            }
            TargetError::Parse { origin, message } => {
                write!(f, "invalid target description {origin}: {message}")
            }
            TargetError::Invalid {
                target,
                field,
                message,
            } => write!(f, "target '{target}': field `{field}` {message}"),
        }
    }
}

impl std::error::Error for TargetError {}
