//! An op's view: the struct over an `OperationRef`, its constants, `cast`, and accessors of its
//! operands, attributes, results and regions, and the view's trait impls.

use super::attributes::{describe, presence, read, value_type, Presence};
use super::names::{constant, doc, escape, ident, parenthesised, sentence};
use crate::ods::{Argument, Arity, AttributeDecl, AttributeKind, Dialect, Op, Operand, Segments};
use std::fmt::Write;

/// Writes the view of `op`: its documentation, its struct, and the start of its inherent `impl`
/// with the constants, `cast`, `operation` and the accessors. The caller ends the `impl`, after
/// the members it adds (the builder function).
pub(super) fn view(
    out: &mut String,
    dialect: &Dialect,
    op: &Op,
    operands: &[&Operand],
    results: &[&Operand],
) {
    let class = &op.class;
    let title = sentence(&op.summary, "");
    match title.strip_suffix('.') {
        Some(title) => doc(out, "", &format!("{title} (`{}`).", op.name)),
        None => doc(out, "", &format!("`{}`.", op.name)),
    }
    if !op.description.is_empty() {
        writeln!(out, "///").unwrap();
        doc(out, "", &escape(&op.description));
    }
    writeln!(out, "#[derive(Clone, Copy, Debug, PartialEq, Eq)]").unwrap();
    writeln!(out, "pub struct {class}<'c, 'a> {{").unwrap();
    writeln!(out, "    op: OperationRef<'c, 'a>,").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "impl<'c, 'a> {class}<'c, 'a> {{").unwrap();
    constants(out, dialect, op);
    cast(out, op);
    value_accessors(out, op, operands, false);
    for argument in &op.arguments {
        if let Argument::Attribute(attribute) = argument {
            attribute_accessor(out, attribute);
        }
    }
    value_accessors(out, op, results, true);
    region_accessors(out, op);
}

/// Writes `NAME` and one constant for each trait the dialect declares.
fn constants(out: &mut String, dialect: &Dialect, op: &Op) {
    doc(out, "    ", &format!("The op's name, `{}`.", op.name));
    writeln!(out, "    pub const NAME: &'static str = \"{}\";", op.name).unwrap();
    writeln!(out).unwrap();
    for r#trait in &dialect.traits {
        doc(
            out,
            "    ",
            &format!(
                "Whether the op has the {} dialect's `{trait}` trait.",
                dialect.name
            ),
        );
        writeln!(
            out,
            "    pub const {}: bool = {};",
            constant(r#trait),
            op.traits.contains(r#trait)
        )
        .unwrap();
        writeln!(out).unwrap();
    }
}

/// Writes `cast` and `operation`.
fn cast(out: &mut String, op: &Op) {
    doc(
        out,
        "    ",
        &format!("The view of `op` if it is a `{}` op.", op.name),
    );
    writeln!(
        out,
        "    pub fn cast(op: OperationRef<'c, 'a>) -> Option<Self> {{"
    )
    .unwrap();
    writeln!(
        out,
        "        (support::name(op) == Self::NAME).then_some(Self {{ op }})"
    )
    .unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
    doc(out, "    ", "The viewed operation.");
    writeln!(
        out,
        "    pub fn operation(&self) -> OperationRef<'c, 'a> {{"
    )
    .unwrap();
    writeln!(out, "        self.op").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
}

fn arity_path(arity: Arity) -> &'static str {
    match arity {
        Arity::Single => "Arity::Single",
        Arity::Optional => "Arity::Optional",
        Arity::Variadic => "Arity::Variadic",
    }
}

fn segments_path(segments: Segments, attribute: &str) -> String {
    match segments {
        Segments::Fixed => "Segments::Fixed".into(),
        Segments::SameSize => "Segments::SameSize".into(),
        Segments::Attribute => format!("Segments::Attribute(\"{attribute}\")"),
    }
}

/// Writes `const NAME: &'static [Arity] = &[...];` in an impl, broken as rustfmt would.
fn arity_list(out: &mut String, name: &str, arities: &[&str]) {
    let one_line = format!(
        "    const {name}: &'static [Arity] = &[{}];",
        arities.join(", ")
    );
    if one_line.len() <= 100 {
        writeln!(out, "{one_line}").unwrap();
    } else if 8 + 3 + arities.join(", ").len() <= 100 {
        writeln!(out, "    const {name}: &'static [Arity] =").unwrap();
        writeln!(out, "        &[{}];", arities.join(", ")).unwrap();
    } else {
        writeln!(out, "    const {name}: &'static [Arity] = &[").unwrap();
        for arity in arities {
            writeln!(out, "        {arity},").unwrap();
        }
        writeln!(out, "    ];").unwrap();
    }
}

/// Writes the accessors of a list of operands or results.
fn value_accessors(out: &mut String, op: &Op, values: &[&Operand], results: bool) {
    let (what, list_const, segment_attribute, segments) = if results {
        (
            "result",
            "RESULTS",
            "resultSegmentSizes",
            op.result_segments,
        )
    } else {
        (
            "operand",
            "OPERANDS",
            "operandSegmentSizes",
            op.operand_segments,
        )
    };
    let (single_type, iterator) = if results {
        ("OperationResult<'c, 'a>", "Results<'c, 'a>")
    } else {
        ("Value<'c, 'a>", "Operands<'c, 'a>")
    };
    // Values before the first non-single one sit at their ODS position (unless an attribute
    // gives the segments).
    let first_dynamic = match segments {
        Segments::Attribute => 0,
        _ => values
            .iter()
            .position(|value| value.arity != Arity::Single)
            .unwrap_or(values.len()),
    };
    if first_dynamic < values.len() {
        let arities: Vec<&str> = values.iter().map(|value| arity_path(value.arity)).collect();
        arity_list(out, list_const, &arities);
        writeln!(out).unwrap();
    }
    for (index, value) in values.iter().enumerate() {
        let name = ident(&value.name, index, what);
        let summary = if value.summary.is_empty() {
            String::new()
        } else {
            format!(": {}", escape(&value.summary))
        };
        let range = format!(
            "support::{what}_segment(self.op, Self::{list_const}, {}, {index})",
            segments_path(segments, segment_attribute)
        );
        let (adjective, r#type, body) = match value.arity {
            Arity::Single if index < first_dynamic => (
                "",
                single_type.to_string(),
                format!("support::{what}(self.op, {index})"),
            ),
            Arity::Single => (
                "",
                single_type.to_string(),
                format!("support::{what}(self.op, range.start)"),
            ),
            Arity::Optional => (
                "optional ",
                format!("Option<{single_type}>"),
                format!("support::optional_{what}(self.op, range)"),
            ),
            Arity::Variadic => (
                "variadic ",
                iterator.to_string(),
                format!("support::{what}s(self.op, range)"),
            ),
        };
        let ods = if value.name.is_empty() {
            format!("#{index}")
        } else {
            format!("`{}`", value.name)
        };
        doc(
            out,
            "    ",
            &format!("The {adjective}{what} {ods}{summary}."),
        );
        writeln!(out, "    pub fn {name}(&self) -> {type} {{").unwrap();
        if !(value.arity == Arity::Single && index < first_dynamic) {
            writeln!(out, "        let range = {range};").unwrap();
        }
        writeln!(out, "        {body}").unwrap();
        writeln!(out, "    }}").unwrap();
        writeln!(out).unwrap();
    }
}

/// Writes the accessor of one attribute.
fn attribute_accessor(out: &mut String, attribute: &AttributeDecl) {
    let name = ident(&attribute.name, 0, "attribute");
    let ods = &attribute.name;
    let kind = describe(&attribute.kind);
    let summary = parenthesised(&attribute.summary);
    let r#type = value_type(&attribute.kind);
    match presence(attribute) {
        Presence::Required => {
            doc(
                out,
                "    ",
                &format!("The attribute `{ods}`, {kind}{summary}."),
            );
            writeln!(out, "    pub fn {name}(&self) -> {type} {{").unwrap();
            let required = format!("support::required(self.op, Self::NAME, \"{ods}\")");
            if matches!(attribute.kind, AttributeKind::Raw(_)) {
                writeln!(out, "        {required}").unwrap();
            } else {
                writeln!(out, "        let value = {required};").unwrap();
                writeln!(out, "        {}", read(&attribute.kind, ods, "value")).unwrap();
            }
        }
        Presence::Defaulted(default) => {
            let ods_default = attribute.default.as_deref().unwrap_or_default().trim();
            doc(
                out,
                "    ",
                &format!("The attribute `{ods}`, {kind}{summary}; `{ods_default}` when absent."),
            );
            writeln!(out, "    pub fn {name}(&self) -> {type} {{").unwrap();
            writeln!(
                out,
                "        match support::attribute(self.op, \"{ods}\") {{"
            )
            .unwrap();
            writeln!(
                out,
                "            Some(value) => {},",
                read(&attribute.kind, ods, "value")
            )
            .unwrap();
            writeln!(out, "            None => {default},").unwrap();
            writeln!(out, "        }}").unwrap();
        }
        Presence::Optional => {
            let absent = match &attribute.default {
                Some(default) => format!(
                    "; None when absent, which ODS reads as `{}`",
                    default.trim()
                ),
                None => String::new(),
            };
            doc(
                out,
                "    ",
                &format!("The optional attribute `{ods}`, {kind}{summary}{absent}."),
            );
            writeln!(out, "    pub fn {name}(&self) -> Option<{type}> {{").unwrap();
            writeln!(
                out,
                "        let value = support::attribute(self.op, \"{ods}\")?;"
            )
            .unwrap();
            writeln!(out, "        Some({})", read(&attribute.kind, ods, "value")).unwrap();
        }
        Presence::Unit => {
            doc(
                out,
                "    ",
                &format!("Whether the op has the unit attribute `{ods}`{summary}."),
            );
            writeln!(out, "    pub fn {name}(&self) -> bool {{").unwrap();
            writeln!(
                out,
                "        support::attribute(self.op, \"{ods}\").is_some()"
            )
            .unwrap();
        }
    }
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
}

/// Writes the accessors of the op's regions.
fn region_accessors(out: &mut String, op: &Op) {
    for (index, region) in op.regions.iter().enumerate() {
        let name = ident(&region.name, index, "region");
        let summary = parenthesised(&region.summary);
        if region.variadic {
            doc(
                out,
                "    ",
                &format!("The variadic region `{}`{summary}.", region.name),
            );
            writeln!(out, "    pub fn {name}(&self) -> Vec<RegionRef<'c, 'a>> {{").unwrap();
            writeln!(out, "        support::regions_from(self.op, {index})").unwrap();
        } else {
            doc(
                out,
                "    ",
                &format!("The region `{}`{summary}.", region.name),
            );
            writeln!(out, "    pub fn {name}(&self) -> RegionRef<'c, 'a> {{").unwrap();
            writeln!(out, "        support::region(self.op, {index})").unwrap();
        }
        writeln!(out, "    }}").unwrap();
        writeln!(out).unwrap();
    }
}

/// Writes the view's impls of `OpView`, `TryFrom<OperationRef>`, `From<view> for OperationRef`
/// and `Display`.
pub(super) fn trait_impls(out: &mut String, class: &str) {
    writeln!(
        out,
        "impl<'c, 'a> crate::ops::OpView<'c, 'a> for {class}<'c, 'a> {{"
    )
    .unwrap();
    writeln!(out, "    const NAME: &'static str = {class}::NAME;").unwrap();
    writeln!(out).unwrap();
    writeln!(
        out,
        "    fn cast(op: OperationRef<'c, 'a>) -> Option<Self> {{"
    )
    .unwrap();
    writeln!(out, "        {class}::cast(op)").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "    fn operation(&self) -> OperationRef<'c, 'a> {{").unwrap();
    writeln!(out, "        self.op").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(
        out,
        "impl<'c, 'a> TryFrom<OperationRef<'c, 'a>> for {class}<'c, 'a> {{"
    )
    .unwrap();
    writeln!(out, "    type Error = WrongOp;").unwrap();
    writeln!(out).unwrap();
    writeln!(
        out,
        "    fn try_from(op: OperationRef<'c, 'a>) -> Result<Self, WrongOp> {{"
    )
    .unwrap();
    writeln!(
        out,
        "        Self::cast(op).ok_or_else(|| WrongOp::new(Self::NAME, op))"
    )
    .unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(
        out,
        "impl<'c, 'a> From<{class}<'c, 'a>> for OperationRef<'c, 'a> {{"
    )
    .unwrap();
    writeln!(out, "    fn from(view: {class}<'c, 'a>) -> Self {{").unwrap();
    writeln!(out, "        view.op").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "impl std::fmt::Display for {class}<'_, '_> {{").unwrap();
    writeln!(
        out,
        "    fn fmt(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {{"
    )
    .unwrap();
    writeln!(out, "        std::fmt::Display::fmt(&self.op, formatter)").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
}
