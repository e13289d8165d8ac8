//! `explain`: why each merge was accepted or refused, as a remark at the first op of the subgraph
//! merged into, so that `--verify-diagnostics` tests can pin every decision to a line of the input
//! and a reader of a large model sees them next to the ops they concern.

use super::grouping::Grouping;
use crate::instance::split_info::Split;

/// A subgraph's best split as the remarks show it.
pub(super) fn describe(best: Option<Split>) -> String {
    match best {
        Some(split) => format!(
            "f={} on dim {} reaching {} ops",
            split.factor, split.dim, split.ops
        ),
        None => "no split fits".into(),
    }
}

/// A split factor as the remarks show it (`none` when no split fits).
pub(super) fn factor_text(best: Option<Split>) -> String {
    best.map_or("none".to_owned(), |split| split.factor.to_string())
}

impl Grouping<'_> {
    /// The ops of `group`, each by its short name and source line (or its index when the op has
    /// no file location): `{conv2d@6, batch_norm@11}`.
    pub(super) fn label(&self, group: usize) -> String {
        let ops: Vec<String> = self.groups[&group]
            .ops
            .iter()
            .map(|&index| {
                let node = self.node(index);
                match node.line() {
                    Some(line) => format!("{}@{line}", node.name.trim_start_matches("graph.")),
                    None => format!("{}#{index}", node.name.trim_start_matches("graph.")),
                }
            })
            .collect();
        format!("{{{}}}", ops.join(", "))
    }

    /// With `explain`, emits `text` as a remark at the first op of `group`. The text is only made
    /// when it is emitted.
    pub(super) fn remark(&self, group: usize, text: impl FnOnce() -> String) {
        if self.explain {
            let first = self.groups[&group].ops[0];
            self.node(first).op.emit_remark(&text());
        }
    }
}
