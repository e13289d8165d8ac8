//! Writes the Rust of one dialect's ops (see `src/ops/mod.rs` for the API) from the model that
//! `ods.rs` reads.

use crate::ods::{
    Argument, Arity, AttributeDecl, AttributeKind, Dialect, Op, Operand, Segments, Signedness,
};
use std::fmt::Write;

/// Names the generated views and builders define themselves; an ODS name equal to one of these
/// gets a trailing `_`.
const RESERVED: &[&str] = &["cast", "operation", "builder", "build", "location", "op"];

/// Rust keywords that an ODS name could be.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try",
    "typeof", "unsized", "virtual", "yield",
];

/// `operandSegmentSizes` -> `operand_segment_sizes`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `round_prefer_floor` -> `RoundPreferFloor`.
fn camel(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map(|c| c.to_ascii_uppercase().to_string() + chars.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The Rust identifier for an ODS name (`index` names an unnamed one).
fn ident(name: &str, index: usize, what: &str) -> String {
    let name = if name.is_empty() {
        format!("{what}_{index}")
    } else {
        snake(name)
    };
    if RESERVED.contains(&name.as_str()) {
        format!("{name}_")
    } else if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// `Elementwise` -> `ELEMENTWISE`.
pub(crate) fn constant(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

/// Escapes the square brackets of ODS prose outside code (`shape[:axis]` would be read as an
/// intra-doc link).
fn escape(text: &str) -> String {
    let mut out = String::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.push('\n');
        }
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            out.push_str(line);
            continue;
        }
        if fenced {
            out.push_str(line);
            continue;
        }
        let mut code = false;
        for c in line.chars() {
            match c {
                '`' => code = !code,
                '[' | ']' if !code => out.push('\\'),
                _ => {}
            }
            out.push(c);
        }
    }
    out
}

/// Writes `text` as `///` lines at `indent`.
pub(crate) fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            writeln!(out, "{indent}///").unwrap();
        } else {
            writeln!(out, "{indent}/// {line}").unwrap();
        }
    }
}

/// A sentence for the documentation: the summary with a capital and a full stop, or `fallback`.
pub(crate) fn sentence(summary: &str, fallback: &str) -> String {
    let summary = escape(summary.trim());
    let summary = summary.as_str();
    if summary.is_empty() {
        return fallback.to_string();
    }
    let mut chars = summary.chars();
    let first = chars.next().unwrap().to_uppercase().to_string();
    let mut text = first + chars.as_str();
    if !text.ends_with('.') {
        text.push('.');
    }
    text
}

/// The Rust type an attribute reads as.
fn value_type(kind: &AttributeKind) -> String {
    match kind {
        AttributeKind::DenseArray(element) => format!("Vec<{element}>"),
        AttributeKind::Integer { .. } => "i64".into(),
        AttributeKind::Float { .. } => "f64".into(),
        AttributeKind::Bool | AttributeKind::Unit => "bool".into(),
        AttributeKind::String | AttributeKind::SymbolRef => "String".into(),
        AttributeKind::Type => "Type<'c>".into(),
        AttributeKind::Array(Some(element)) => format!("Vec<{}>", value_type(element)),
        AttributeKind::Array(None) => "Vec<Attribute<'c>>".into(),
        AttributeKind::Enum { path, .. } | AttributeKind::Mirrored { path } => short(path).into(),
        AttributeKind::Raw(_) => "Attribute<'c>".into(),
    }
}

/// The last segment of a path (the generated file imports every mirror it uses).
fn short(path: &str) -> &str {
    path.rsplit("::").next().unwrap()
}

/// The (Copy) Rust type a builder takes for an attribute.
fn parameter_type(kind: &AttributeKind) -> String {
    match kind {
        AttributeKind::DenseArray(element) => format!("&[{element}]"),
        AttributeKind::Integer { .. } => "i64".into(),
        AttributeKind::Float { .. } => "f64".into(),
        AttributeKind::Bool | AttributeKind::Unit => "bool".into(),
        AttributeKind::String | AttributeKind::SymbolRef => "&str".into(),
        AttributeKind::Type => "Type<'c>".into(),
        AttributeKind::Array(Some(element)) => match element.as_ref() {
            AttributeKind::Mirrored { path } => format!("&[{}]", short(path)),
            element => format!("&[{}]", parameter_type(element)),
        },
        AttributeKind::Array(None) => "&[Attribute<'c>]".into(),
        AttributeKind::Enum { path, .. } => short(path).into(),
        AttributeKind::Mirrored { path } => format!("&{}", short(path)),
        AttributeKind::Raw(_) => "Attribute<'c>".into(),
    }
}

/// What an attribute kind is, for the documentation.
fn describe(kind: &AttributeKind) -> String {
    match kind {
        AttributeKind::DenseArray(element) => format!("`array<{element}: ...>`"),
        AttributeKind::Integer { width, signedness } => {
            let prefix = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            format!("`{prefix}{width}` integer")
        }
        AttributeKind::Float { width } => format!("`f{width}` float"),
        AttributeKind::Bool => "bool".into(),
        AttributeKind::Unit => "unit (present or not)".into(),
        AttributeKind::String => "string".into(),
        AttributeKind::SymbolRef => "flat symbol reference".into(),
        AttributeKind::Type => "type".into(),
        AttributeKind::Array(Some(element)) => format!("array of {}", describe(element)),
        AttributeKind::Array(None) => "array".into(),
        AttributeKind::Enum { path, .. } | AttributeKind::Mirrored { path } => {
            format!("[`{}`]", short(path))
        }
        AttributeKind::Raw(storage) => format!("`{storage}`, unmapped"),
    }
}

/// An expression reading `value` (an `Attribute<'c>`) as the attribute's Rust type.
fn read(kind: &AttributeKind, name: &str, value: &str) -> String {
    let args = format!("Self::NAME, \"{name}\", {value}");
    match kind {
        AttributeKind::DenseArray(element) => format!("support::dense_{element}_array({args})"),
        AttributeKind::Integer { .. } => format!("support::integer({args})"),
        AttributeKind::Float { .. } => format!("support::float({args})"),
        AttributeKind::Bool => format!("support::boolean({args})"),
        AttributeKind::Unit => "true".into(),
        AttributeKind::String => format!("support::string({args})"),
        AttributeKind::SymbolRef => format!("support::symbol({args})"),
        AttributeKind::Type => format!("support::type_value({args})"),
        AttributeKind::Array(Some(element)) => {
            format!(
                "support::array({args}).into_iter().map(|element| {}).collect()",
                read(element, name, "element")
            )
        }
        AttributeKind::Array(None) => format!("support::array({args})"),
        AttributeKind::Enum { .. } => format!("support::enumeration({args})"),
        AttributeKind::Mirrored { path } => {
            format!("support::mirrored({args}, {}::from_attribute)", short(path))
        }
        AttributeKind::Raw(_) => value.to_string(),
    }
}

/// An expression making the `Attribute<'c>` of `value` (of the builder's parameter type, or a
/// reference to it for an array's element) in the context of `location`.
fn write(kind: &AttributeKind, name: &str, value: &str, location: &str) -> String {
    match kind {
        AttributeKind::DenseArray(element) => {
            format!("support::dense_{element}_array_attribute({location}, {value})")
        }
        AttributeKind::Integer { width, signedness } => {
            let signedness = match signedness {
                Signedness::Signed => -1,
                Signedness::Signless => 0,
                Signedness::Unsigned => 1,
            };
            format!("support::integer_attribute({location}, {width}, {signedness}, {value})")
        }
        AttributeKind::Float { width } => {
            format!("support::float_attribute({location}, {width}, {value})")
        }
        AttributeKind::Bool => format!("support::bool_attribute({location}, {value})"),
        AttributeKind::Unit => format!("support::unit_attribute({location})"),
        AttributeKind::String => format!("support::string_attribute({location}, {value})"),
        AttributeKind::SymbolRef => format!("support::symbol_attribute({location}, {value})"),
        AttributeKind::Type => format!("support::type_attribute({location}, {value})"),
        AttributeKind::Array(Some(element)) => {
            // Mirrors are taken by reference, everything else is Copy.
            let pattern = if matches!(element.as_ref(), AttributeKind::Mirrored { .. }) {
                "element"
            } else {
                "&element"
            };
            let element = write(element, name, "element", location);
            format!(
                "support::array_attribute({location}, \
                 &{value}.iter().map(|{pattern}| {element}).collect::<Vec<_>>())"
            )
        }
        AttributeKind::Array(None) => format!("support::array_attribute({location}, {value})"),
        AttributeKind::Enum { .. } => format!("support::enum_attribute({location}, {value})"),
        AttributeKind::Mirrored { .. } => {
            format!("support::checked(\"{name}\", {value}.attribute({location}))")
        }
        AttributeKind::Raw(_) => value.to_string(),
    }
}

/// The Rust expression of an ODS default value (a C++ expression), None when the generator does
/// not understand it (the accessor then returns an Option).
fn default_value(kind: &AttributeKind, default: &str) -> Option<String> {
    let default = default.trim();
    let float = |text: &str, width: u32| -> Option<String> {
        let text = text.trim().trim_end_matches(['f', 'F']);
        if width == 32 {
            let value: f32 = text.parse().ok()?;
            Some(format!("{value:?}_f32"))
        } else {
            let value: f64 = text.parse().ok()?;
            Some(format!("{value:?}_f64"))
        }
    };
    match kind {
        AttributeKind::DenseArray(element) => {
            let inner = default.strip_prefix('{')?.strip_suffix('}')?.trim();
            if inner.is_empty() {
                return Some("Vec::new()".into());
            }
            let elements = inner
                .split(',')
                .map(|text| match *element {
                    "f32" => float(text, 32),
                    "f64" => float(text, 64),
                    _ => text
                        .trim()
                        .parse::<i64>()
                        .ok()
                        .map(|value| value.to_string()),
                })
                .collect::<Option<Vec<_>>>()?;
            Some(format!("vec![{}]", elements.join(", ")))
        }
        AttributeKind::Integer { .. } => default.parse::<i64>().ok().map(|value| value.to_string()),
        AttributeKind::Float { width } => {
            let literal = float(default, *width)?;
            Some(if *width == 32 {
                format!("f64::from({literal})")
            } else {
                literal
            })
        }
        AttributeKind::Bool => matches!(default, "true" | "false").then(|| default.to_string()),
        AttributeKind::String | AttributeKind::SymbolRef => {
            let inner = default.strip_prefix('"')?.strip_suffix('"')?;
            (!inner.contains('\\')).then(|| format!("String::from(\"{inner}\")"))
        }
        AttributeKind::Enum { path, cases } => {
            let case = default.rsplit("::").next()?;
            cases
                .iter()
                .any(|c| c == case)
                .then(|| format!("{}::{}", short(path), camel(case)))
        }
        _ => None,
    }
}

/// How an attribute appears in the API.
enum Presence {
    /// The op always has it: the accessor returns the value, the builder requires it.
    Required,
    /// Absent means the default: the accessor returns the value, the builder has a setter.
    Defaulted(String),
    /// It may be absent: the accessor returns an Option, the builder has a setter.
    Optional,
    /// A unit attribute: the accessor returns whether it is there, the builder has a setter.
    Unit,
}

fn presence(attribute: &AttributeDecl) -> Presence {
    if matches!(attribute.kind, AttributeKind::Unit) {
        return Presence::Unit;
    }
    if let Some(default) = &attribute.default {
        return match default_value(&attribute.kind, default) {
            Some(value) => Presence::Defaulted(value),
            None => Presence::Optional,
        };
    }
    if attribute.optional {
        Presence::Optional
    } else {
        Presence::Required
    }
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

/// A summary for the documentation, in parentheses: without its full stop.
fn parenthesised(summary: &str) -> String {
    let summary = escape(summary.trim().trim_end_matches('.'));
    if summary.is_empty() {
        String::new()
    } else {
        format!(" ({summary})")
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

/// One op: its view, the view's trait impls, and its builder.
fn op(out: &mut String, dialect: &Dialect, op: &Op) {
    let class = &op.class;
    let builder = format!("{class}Builder");
    let operands: Vec<&Operand> = op
        .arguments
        .iter()
        .filter_map(|a| {
            if let Argument::Operand(o) = a {
                Some(o)
            } else {
                None
            }
        })
        .collect();
    let attributes: Vec<&AttributeDecl> = op
        .arguments
        .iter()
        .filter_map(|a| {
            if let Argument::Attribute(a) = a {
                Some(a)
            } else {
                None
            }
        })
        .collect();
    let results: Vec<&Operand> = op.results.iter().collect();

    // The view.
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
    value_accessors(out, op, &operands, false);
    for attribute in &attributes {
        attribute_accessor(out, attribute);
    }
    value_accessors(out, op, &results, true);
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
    builder_function(out, op, &builder, &operands, &results);
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();

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

    builder_struct(out, op, &builder, &operands, &results);
}

/// Whether the builder carries values (and so the values' lifetime `'b`).
fn builder_lifetimes(op: &Op, operands: &[&Operand]) -> &'static str {
    if operands.is_empty() && op.successors == 0 {
        "'c"
    } else {
        "'c, 'b"
    }
}

fn builder_function(
    out: &mut String,
    op: &Op,
    builder: &str,
    operands: &[&Operand],
    results: &[&Operand],
) {
    let lifetimes = builder_lifetimes(op, operands);
    let generics = if lifetimes == "'c" {
        String::new()
    } else {
        "<'b>".to_string()
    };
    // Parameters and the fields they initialise.
    let mut parameters = vec!["location: Location<'c>".to_string()];
    let mut fields = vec!["location".to_string()];
    for (index, result) in results.iter().enumerate() {
        let name = ident(&result.name, index, "result");
        match result.arity {
            Arity::Single => {
                parameters.push(format!("{name}: Type<'c>"));
                fields.push(name);
            }
            Arity::Optional => fields.push(format!("{name}: None")),
            Arity::Variadic => {
                parameters.push(format!("{name}: &[Type<'c>]"));
                fields.push(format!("{name}: {name}.to_vec()"));
            }
        }
    }
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                match operand.arity {
                    Arity::Single => {
                        parameters.push(format!("{name}: impl Into<Value<'c, 'b>>"));
                        fields.push(format!("{name}: {name}.into()"));
                    }
                    Arity::Optional => fields.push(format!("{name}: None")),
                    Arity::Variadic => {
                        parameters.push(format!(
                            "{name}: impl IntoIterator<Item = impl Into<Value<'c, 'b>>>"
                        ));
                        fields.push(format!(
                            "{name}: {name}.into_iter().map(Into::into).collect()"
                        ));
                    }
                }
            }
            Argument::Attribute(attribute) => {
                let name = ident(&attribute.name, 0, "attribute");
                match presence(attribute) {
                    Presence::Required => {
                        parameters.push(format!("{name}: {}", parameter_type(&attribute.kind)));
                        let value = write(&attribute.kind, &attribute.name, &name, "location");
                        fields.push(if value == name {
                            name
                        } else {
                            format!("{name}: {value}")
                        });
                    }
                    _ => fields.push(format!("{name}: None")),
                }
            }
        }
    }
    for (index, region) in op.regions.iter().enumerate() {
        let name = ident(&region.name, index, "region");
        if region.variadic {
            parameters.push(format!("{name}: Vec<Region<'c>>"));
        } else {
            parameters.push(format!("{name}: Region<'c>"));
        }
        fields.push(name);
    }
    if op.successors > 0 {
        parameters.push("successors: &[&'b melior::ir::Block<'c>]".into());
        fields.push("successors: successors.to_vec()".into());
    }

    let setters: Vec<String> = op
        .arguments
        .iter()
        .filter_map(|argument| match argument {
            Argument::Operand(operand) if operand.arity == Arity::Optional => {
                Some(format!("`{}`", operand.name))
            }
            Argument::Attribute(attribute)
                if !matches!(presence(attribute), Presence::Required) =>
            {
                Some(format!("`{}`", attribute.name))
            }
            _ => None,
        })
        .chain(
            results
                .iter()
                .filter(|r| r.arity == Arity::Optional)
                .map(|r| format!("`{}`", r.name)),
        )
        .collect();
    let mut text = format!(
        "Starts a `{}` at `location` with its result types, operands, required attributes and \
         regions, in ODS order",
        op.name
    );
    if setters.is_empty() {
        text.push('.');
    } else {
        write!(text, "; the builder's setters add {}.", setters.join(", ")).unwrap();
    }
    doc(out, "    ", &text);
    if parameters.len() > 7 {
        writeln!(out, "    #[allow(").unwrap();
        writeln!(out, "        clippy::too_many_arguments,").unwrap();
        writeln!(
            out,
            "        reason = \"one parameter per ODS operand and attribute\""
        )
        .unwrap();
        writeln!(out, "    )]").unwrap();
    }
    let one_line = format!(
        "    pub fn builder{generics}({}) -> {builder}<{lifetimes}> {{",
        parameters.join(", ")
    );
    if one_line.len() <= 100 {
        writeln!(out, "{one_line}").unwrap();
    } else {
        writeln!(out, "    pub fn builder{generics}(").unwrap();
        for parameter in &parameters {
            writeln!(out, "        {parameter},").unwrap();
        }
        writeln!(out, "    ) -> {builder}<{lifetimes}> {{").unwrap();
    }
    if fields.join(", ").len() <= 18 {
        writeln!(out, "        {builder} {{ {} }}", fields.join(", ")).unwrap();
    } else {
        writeln!(out, "        {builder} {{").unwrap();
        for field in &fields {
            writeln!(out, "            {field},").unwrap();
        }
        writeln!(out, "        }}").unwrap();
    }
    writeln!(out, "    }}").unwrap();
}

fn builder_struct(
    out: &mut String,
    op: &Op,
    builder: &str,
    operands: &[&Operand],
    results: &[&Operand],
) {
    let class = &op.class;
    let lifetimes = builder_lifetimes(op, operands);
    doc(
        out,
        "",
        &format!(
            "Builds a [`{class}`] (`{}`): see [`{class}::builder`].",
            op.name
        ),
    );
    writeln!(out, "pub struct {builder}<{lifetimes}> {{").unwrap();
    writeln!(out, "    location: Location<'c>,").unwrap();
    for (index, result) in results.iter().enumerate() {
        let name = ident(&result.name, index, "result");
        let r#type = match result.arity {
            Arity::Single => "Type<'c>",
            Arity::Optional => "Option<Type<'c>>",
            Arity::Variadic => "Vec<Type<'c>>",
        };
        writeln!(out, "    {name}: {type},").unwrap();
    }
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                let r#type = match operand.arity {
                    Arity::Single => "Value<'c, 'b>",
                    Arity::Optional => "Option<Value<'c, 'b>>",
                    Arity::Variadic => "Vec<Value<'c, 'b>>",
                };
                writeln!(out, "    {name}: {type},").unwrap();
            }
            Argument::Attribute(attribute) => {
                let name = ident(&attribute.name, 0, "attribute");
                let r#type = match presence(attribute) {
                    Presence::Required => "Attribute<'c>",
                    _ => "Option<Attribute<'c>>",
                };
                writeln!(out, "    {name}: {type},").unwrap();
            }
        }
    }
    for (index, region) in op.regions.iter().enumerate() {
        let name = ident(&region.name, index, "region");
        let r#type = if region.variadic {
            "Vec<Region<'c>>"
        } else {
            "Region<'c>"
        };
        writeln!(out, "    {name}: {type},").unwrap();
    }
    if op.successors > 0 {
        writeln!(out, "    successors: Vec<&'b melior::ir::Block<'c>>,").unwrap();
    }
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();

    writeln!(out, "impl<{lifetimes}> {builder}<{lifetimes}> {{").unwrap();
    // Setters.
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                if operand.arity == Arity::Optional {
                    doc(
                        out,
                        "    ",
                        &format!("Sets the optional operand `{}`.", operand.name),
                    );
                    writeln!(
                        out,
                        "    pub fn {name}(mut self, {name}: impl Into<Value<'c, 'b>>) -> Self {{"
                    )
                    .unwrap();
                    writeln!(out, "        self.{name} = Some({name}.into());").unwrap();
                    writeln!(out, "        self").unwrap();
                    writeln!(out, "    }}").unwrap();
                    writeln!(out).unwrap();
                }
            }
            Argument::Attribute(attribute) => {
                let name = ident(&attribute.name, 0, "attribute");
                let ods = &attribute.name;
                match presence(attribute) {
                    Presence::Required => {}
                    Presence::Unit => {
                        doc(
                            out,
                            "    ",
                            &format!("Sets (`true`) or leaves out the unit attribute `{ods}`."),
                        );
                        writeln!(out, "    pub fn {name}(mut self, {name}: bool) -> Self {{")
                            .unwrap();
                        writeln!(
                            out,
                            "        self.{name} = \
                             {name}.then(|| support::unit_attribute(self.location));"
                        )
                        .unwrap();
                        writeln!(out, "        self").unwrap();
                        writeln!(out, "    }}").unwrap();
                        writeln!(out).unwrap();
                    }
                    Presence::Defaulted(_) | Presence::Optional => {
                        let default = match &attribute.default {
                            Some(default) => format!(" (`{}` when not set)", default.trim()),
                            None => String::new(),
                        };
                        doc(
                            out,
                            "    ",
                            &format!("Sets the attribute `{ods}`{default}."),
                        );
                        let parameter = parameter_type(&attribute.kind);
                        writeln!(
                            out,
                            "    pub fn {name}(mut self, {name}: {parameter}) -> Self {{"
                        )
                        .unwrap();
                        let value = write(&attribute.kind, ods, &name, "self.location");
                        writeln!(out, "        self.{name} = Some({value});").unwrap();
                        writeln!(out, "        self").unwrap();
                        writeln!(out, "    }}").unwrap();
                        writeln!(out).unwrap();
                    }
                }
            }
        }
    }
    for (index, result) in results.iter().enumerate() {
        if result.arity == Arity::Optional {
            let name = ident(&result.name, index, "result");
            doc(
                out,
                "    ",
                &format!(
                    "Gives the op the optional result `{}`, of type `{name}`.",
                    result.name
                ),
            );
            writeln!(
                out,
                "    pub fn {name}(mut self, {name}: Type<'c>) -> Self {{"
            )
            .unwrap();
            writeln!(out, "        self.{name} = Some({name});").unwrap();
            writeln!(out, "        self").unwrap();
            writeln!(out, "    }}").unwrap();
            writeln!(out).unwrap();
        }
    }

    // build().
    doc(
        out,
        "    ",
        &format!("Creates the `{}` (not inserted in any block).", op.name),
    );
    writeln!(out, "    pub fn build(self) -> Operation<'c> {{").unwrap();
    // Results.
    let items = results
        .iter()
        .enumerate()
        .map(|(index, result)| {
            let name = ident(&result.name, index, "result");
            match result.arity {
                Arity::Single => Item::Single(format!("self.{name}")),
                // Copied, not moved: segment sizes may read the lists later.
                Arity::Optional => Item::Statements(vec![format!("results.extend(self.{name});")]),
                Arity::Variadic => Item::Statements(vec![format!(
                    "results.extend(self.{name}.iter().copied());"
                )]),
            }
        })
        .collect();
    let result_list = list(out, "results", items, false);
    // Operands.
    let operand_names: Vec<(String, Arity)> = operands
        .iter()
        .enumerate()
        .map(|(i, o)| (ident(&o.name, i, "operand"), o.arity))
        .collect();
    let items = operand_names
        .iter()
        .map(|(name, arity)| match arity {
            Arity::Single => Item::Single(format!("self.{name}")),
            Arity::Optional => Item::Statements(vec![format!("operands.extend(self.{name});")]),
            Arity::Variadic => Item::Statements(vec![format!(
                "operands.extend(self.{name}.iter().copied());"
            )]),
        })
        .collect();
    let operand_list = list(out, "operands", items, false);
    // Attributes.
    let segment_sizes = |values: &[(String, Arity)]| -> String {
        let sizes: Vec<String> = values
            .iter()
            .map(|(name, arity)| match arity {
                Arity::Single => "1".to_string(),
                Arity::Optional => format!("i32::from(self.{name}.is_some())"),
                Arity::Variadic => format!("support::segment_size(self.{name}.len())"),
            })
            .collect();
        format!("&[{}]", sizes.join(", "))
    };
    let mut items: Vec<Item> = op
        .arguments
        .iter()
        .filter_map(|argument| {
            if let Argument::Attribute(a) = argument {
                Some(a)
            } else {
                None
            }
        })
        .map(|attribute| {
            let name = ident(&attribute.name, 0, "attribute");
            match presence(attribute) {
                Presence::Required => {
                    Item::Single(format!("(\"{}\", self.{name})", attribute.name))
                }
                _ => Item::Statements(vec![
                    format!("if let Some(value) = self.{name} {{"),
                    format!("    attributes.push((\"{}\", value));", attribute.name),
                    "}".to_string(),
                ]),
            }
        })
        .collect();
    if op.operand_segments == Segments::Attribute {
        let sizes = segment_sizes(&operand_names);
        items.push(Item::Statements(vec![
            format!("let sizes = support::dense_i32_array_attribute(self.location, {sizes});"),
            "attributes.push((\"operandSegmentSizes\", sizes));".to_string(),
        ]));
    }
    if op.result_segments == Segments::Attribute {
        let result_names: Vec<(String, Arity)> = results
            .iter()
            .enumerate()
            .map(|(i, r)| (ident(&r.name, i, "result"), r.arity))
            .collect();
        let sizes = segment_sizes(&result_names);
        items.push(Item::Statements(vec![
            format!("let sizes = support::dense_i32_array_attribute(self.location, {sizes});"),
            "attributes.push((\"resultSegmentSizes\", sizes));".to_string(),
        ]));
    }
    let attribute_list = list(out, "attributes", items, false);
    // Regions.
    let items = op
        .regions
        .iter()
        .enumerate()
        .map(|(index, region)| {
            let name = ident(&region.name, index, "region");
            if region.variadic {
                Item::Statements(vec![format!("regions.extend(self.{name});")])
            } else {
                Item::Single(format!("self.{name}"))
            }
        })
        .collect();
    let region_list = list(out, "regions", items, true);
    let successor_list = if op.successors > 0 {
        "&self.successors"
    } else {
        "&[]"
    };
    writeln!(out, "        support::create(").unwrap();
    writeln!(out, "            {class}::NAME,").unwrap();
    writeln!(out, "            self.location,").unwrap();
    writeln!(out, "            {result_list},").unwrap();
    writeln!(out, "            {operand_list},").unwrap();
    writeln!(out, "            {attribute_list},").unwrap();
    writeln!(out, "            {region_list},").unwrap();
    writeln!(out, "            {successor_list},").unwrap();
    writeln!(out, "        )").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
}

/// One element of a list that `build()` hands to `support::create`.
enum Item {
    /// An expression always in the list.
    Single(String),
    /// Statements that add zero or more elements to the list's variable.
    Statements(Vec<String>),
}

/// Writes `[a, b]` or, when it is long, one element a line at `indent` (as rustfmt does).
fn elements(items: &[String], indent: &str) -> String {
    if items.join(", ").len() <= 60 {
        format!("[{}]", items.join(", "))
    } else {
        let lines: Vec<String> = items
            .iter()
            .map(|item| format!("{indent}    {item},\n"))
            .collect();
        format!("[\n{}{indent}]", lines.concat())
    }
}

/// Writes the statements that make list `variable` in `build()` and returns the expression that
/// passes it: a slice, or a `Vec` when `owned`. A list of single elements is written in place.
fn list(out: &mut String, variable: &str, items: Vec<Item>, owned: bool) -> String {
    let leading = items
        .iter()
        .position(|item| matches!(item, Item::Statements(_)))
        .unwrap_or(items.len());
    let head: Vec<String> = items[..leading]
        .iter()
        .map(|item| match item {
            Item::Single(expression) => expression.clone(),
            Item::Statements(_) => unreachable!("the head is single elements"),
        })
        .collect();
    if leading == items.len() {
        if head.is_empty() {
            return if owned {
                "Vec::new()".into()
            } else {
                "&[]".into()
            };
        }
        let list = elements(&head, "            ");
        return if owned {
            format!("vec!{list}")
        } else {
            format!("&{list}")
        };
    }
    if head.is_empty() {
        writeln!(out, "        let mut {variable} = Vec::new();").unwrap();
    } else {
        writeln!(
            out,
            "        let mut {variable} = vec!{};",
            elements(&head, "        ")
        )
        .unwrap();
    }
    for item in &items[leading..] {
        match item {
            Item::Single(expression) => {
                writeln!(out, "        {variable}.push({expression});").unwrap()
            }
            Item::Statements(statements) => {
                for statement in statements {
                    writeln!(out, "        {statement}").unwrap();
                }
            }
        }
    }
    if owned {
        variable.to_string()
    } else {
        format!("&{variable}")
    }
}

/// The Rust of one dialect's ops: the items of `crate::ops::<dialect>`.
pub fn generate(dialect: &Dialect) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "// Generated by dialects/build/rust_ops.rs from the {} dialect's ODS; do not edit.",
        dialect.name
    )
    .unwrap();
    writeln!(out).unwrap();
    let mut mirrors = vec!["crate::ops::prelude::*".to_string()];
    for op in &dialect.ops {
        for argument in &op.arguments {
            if let Argument::Attribute(attribute) = argument {
                collect_mirrors(&attribute.kind, &mut mirrors);
            }
        }
    }
    mirrors.sort();
    mirrors.dedup();
    for (index, path) in mirrors.iter().enumerate() {
        assert!(
            path.ends_with('*')
                || mirrors[..index]
                    .iter()
                    .all(|other| short(other) != short(path)),
            "two mirrored attributes named {}",
            short(path)
        );
        writeln!(out, "use {path};").unwrap();
    }
    writeln!(out).unwrap();

    doc(
        &mut out,
        "",
        &format!(
            "Every op name of the {} dialect, in the order of its `.td`.",
            dialect.name
        ),
    );
    writeln!(out, "pub const OPERATION_NAMES: &[&str] = &[").unwrap();
    for op in &dialect.ops {
        writeln!(out, "    {}::NAME,", op.class).unwrap();
    }
    writeln!(out, "];").unwrap();
    writeln!(out).unwrap();
    for r#trait in &dialect.traits {
        doc(
            &mut out,
            "",
            &format!(
                "The ops with the {} dialect's `{trait}` trait.",
                dialect.name
            ),
        );
        writeln!(out, "pub const {}_OPS: &[&str] = &[", constant(r#trait)).unwrap();
        for op in dialect.ops.iter().filter(|op| op.traits.contains(r#trait)) {
            writeln!(out, "    {}::NAME,", op.class).unwrap();
        }
        writeln!(out, "];").unwrap();
        writeln!(out).unwrap();
    }

    doc(
        &mut out,
        "",
        &format!(
            "Any op of the {} dialect ({}), as the view of its kind: `match` on it to dispatch \
             on the kind of an op.",
            dialect.name,
            sentence(&dialect.summary, "")
                .trim_end_matches('.')
                .to_lowercase()
        ),
    );
    writeln!(out, "#[derive(Clone, Copy, Debug, PartialEq, Eq)]").unwrap();
    writeln!(out, "pub enum AnyOp<'c, 'a> {{").unwrap();
    for op in &dialect.ops {
        doc(&mut out, "    ", &format!("`{}`.", op.name));
        writeln!(out, "    {}({}<'c, 'a>),", variant(op), op.class).unwrap();
    }
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
    writeln!(out, "impl<'c, 'a> AnyOp<'c, 'a> {{").unwrap();
    doc(
        &mut out,
        "    ",
        &format!(
            "The view of `op` when it is an op of the {} dialect.",
            dialect.name
        ),
    );
    writeln!(
        out,
        "    pub fn cast(op: OperationRef<'c, 'a>) -> Option<Self> {{"
    )
    .unwrap();
    writeln!(out, "        Some(match support::name(op) {{").unwrap();
    for op in &dialect.ops {
        writeln!(
            out,
            "            {}::NAME => Self::{}({} {{ op }}),",
            op.class,
            variant(op),
            op.class
        )
        .unwrap();
    }
    writeln!(out, "            _ => return None,").unwrap();
    writeln!(out, "        }})").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out).unwrap();
    doc(&mut out, "    ", "The viewed operation.");
    writeln!(
        out,
        "    pub fn operation(&self) -> OperationRef<'c, 'a> {{"
    )
    .unwrap();
    writeln!(out, "        match self {{").unwrap();
    for op in &dialect.ops {
        writeln!(out, "            Self::{}(view) => view.op,", variant(op)).unwrap();
    }
    writeln!(out, "        }}").unwrap();
    writeln!(out, "    }}").unwrap();
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();

    for one in &dialect.ops {
        op(&mut out, dialect, one);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The Rust mirrors an attribute kind names.
fn collect_mirrors(kind: &AttributeKind, out: &mut Vec<String>) {
    match kind {
        AttributeKind::Enum { path, .. } | AttributeKind::Mirrored { path } => {
            out.push(path.clone())
        }
        AttributeKind::Array(Some(element)) => collect_mirrors(element, out),
        _ => {}
    }
}

/// The `AnyOp` variant of an op: its class without the `Op` suffix.
pub(crate) fn variant(op: &Op) -> String {
    let name = op.class.strip_suffix("Op").unwrap_or(&op.class);
    if name.is_empty() {
        op.class.clone()
    } else {
        name.to_string()
    }
}
