//! The symbols of the module being lowered.

use crate::ir::Op;
use std::collections::HashSet;

/// The symbols a module defines, read once and kept up to date by the lowering as it adds
/// globals and declarations: asking MLIR instead builds a symbol table of the whole module per
/// question, and the lowering asks once per layer and launch.
pub(super) struct Symbols(HashSet<String>);

impl Symbols {
    /// The symbols `module`'s body defines.
    pub(super) fn of(module: Op) -> Self {
        Self(
            module
                .body_ops()
                .into_iter()
                .filter_map(|op| op.string_value("sym_name"))
                .collect(),
        )
    }

    /// Records `name` as defined; false when it already was.
    pub(super) fn define(&mut self, name: &str) -> bool {
        self.0.insert(name.to_owned())
    }
}
