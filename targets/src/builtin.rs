//! The built-in targets, embedded in the binary so that the compiler and the runtime find
//! them without a file system path (`--target=stcp920`).

use crate::description::Target;
use crate::error::TargetError;

/// Name and TOML text of every built-in target, in the order [`builtin_names`] lists them.
const BUILTINS: [(&str, &str); 3] = [
    ("stcp920", include_str!("../descriptions/stcp920.toml")),
    ("mini", include_str!("../descriptions/mini.toml")),
    ("solo", include_str!("../descriptions/solo.toml")),
];

/// Names of the built-in targets: `stcp920` (the paper's platform) first, then the small
/// targets meant for tests.
pub fn builtin_names() -> Vec<&'static str> {
    BUILTINS.iter().map(|(name, _)| *name).collect()
}

/// The built-in target `name`, parsed, or `None` when there is no such built-in.
pub(crate) fn lookup(name: &str) -> Option<Result<Target, TargetError>> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| Target::from_toml_str(text, &format!("builtin:{n}")))
}

impl Target {
    /// The built-in target `name` (see [`builtin_names`]).
    pub fn builtin(name: &str) -> Result<Target, TargetError> {
        lookup(name).unwrap_or_else(|| {
            Err(TargetError::UnknownBuiltin {
                name: name.to_string(),
                known: builtin_names(),
            })
        })
    }
}
