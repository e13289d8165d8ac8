//! Writes a dialect's `Kind`: an enum of its ops without a handle to one, for analyses that read
//! an op once and then `match` on what it is.

use super::names::{constant, doc, sentence, variant};
use crate::ods::Dialect;
use std::fmt::Write;

/// The `Kind` enum of `dialect`, its `impl` and the `AnyOp::kind` accessor.
pub(super) fn generate(dialect: &Dialect) -> String {
    let mut out = String::new();
    doc(
        &mut out,
        "",
        &format!(
            "The kind of a {} op: which op it is, without a handle to one (`AnyOp` is the view).",
            dialect.name
        ),
    );
    writeln!(
        out,
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]"
    )
    .unwrap();
    writeln!(out, "pub enum Kind {{").unwrap();
    for op in &dialect.ops {
        let summary = sentence(&op.summary, "");
        doc(&mut out, "    ", &format!("`{}`. {summary}", op.name));
        writeln!(out, "    {},", variant(op)).unwrap();
    }
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "impl Kind {{").unwrap();
    all(&mut out, dialect);
    name(&mut out, dialect);
    from_name(&mut out, dialect);
    traits(&mut out, dialect);
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "impl std::fmt::Display for Kind {{").unwrap();
    writeln!(
        out,
        "    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {{"
    )
    .unwrap();
    writeln!(out, "        formatter.write_str(self.name())").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    any_op_kind(&mut out, dialect);
    out
}

fn all(out: &mut String, dialect: &Dialect) {
    doc(out, "    ", "Every kind, in the order of the `.td`.");
    writeln!(out, "    pub const ALL: &'static [Kind] = &[").unwrap();
    for op in &dialect.ops {
        writeln!(out, "        Self::{},", variant(op)).unwrap();
    }
    writeln!(out, "    ];").unwrap();
    writeln!(out).unwrap();
}

fn name(out: &mut String, dialect: &Dialect) {
    doc(out, "    ", "The op's full name, such as `graph.conv2d`.");
    writeln!(out, "    pub const fn name(self) -> &'static str {{").unwrap();
    writeln!(out, "        match self {{").unwrap();
    for op in &dialect.ops {
        writeln!(
            out,
            "            Self::{} => {}::NAME,",
            variant(op),
            op.class
        )
        .unwrap();
    }
    writeln!(out, "        }}").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
}

fn from_name(out: &mut String, dialect: &Dialect) {
    doc(
        out,
        "    ",
        &format!(
            "The kind named `name`, if it is an op of the {} dialect.",
            dialect.name
        ),
    );
    writeln!(out, "    pub fn from_name(name: &str) -> Option<Self> {{").unwrap();
    writeln!(out, "        Some(match name {{").unwrap();
    for op in &dialect.ops {
        writeln!(
            out,
            "            {}::NAME => Self::{},",
            op.class,
            variant(op)
        )
        .unwrap();
    }
    writeln!(out, "            _ => return None,").unwrap();
    writeln!(out, "        }})").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
}

/// One predicate a trait the dialect declares, true of the kinds whose ops have it.
fn traits(out: &mut String, dialect: &Dialect) {
    for r#trait in &dialect.traits {
        doc(
            out,
            "    ",
            &format!("Whether ops of this kind have the dialect's `{trait}` trait."),
        );
        writeln!(
            out,
            "    pub const fn is_{}(self) -> bool {{",
            constant(r#trait).to_ascii_lowercase()
        )
        .unwrap();
        let kinds: Vec<String> = dialect
            .ops
            .iter()
            .filter(|op| op.traits.contains(r#trait))
            .map(|op| format!("Self::{}", variant(op)))
            .collect();
        if kinds.is_empty() {
            writeln!(out, "        false").unwrap();
        } else {
            writeln!(out, "        matches!(self, {})", kinds.join(" | ")).unwrap();
        }
        writeln!(out, "    }}").unwrap();
        writeln!(out).unwrap();
    }
}

fn any_op_kind(out: &mut String, dialect: &Dialect) {
    writeln!(out, "impl AnyOp<'_, '_> {{").unwrap();
    doc(out, "    ", "The kind of the viewed op.");
    writeln!(out, "    pub fn kind(&self) -> Kind {{").unwrap();
    writeln!(out, "        match self {{").unwrap();
    for op in &dialect.ops {
        writeln!(out, "            Self::{0}(_) => Kind::{0},", variant(op)).unwrap();
    }
    writeln!(out, "        }}").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
}
