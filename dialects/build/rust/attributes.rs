//! How each ODS attribute kind appears in Rust: the type an accessor returns and a builder takes,
//! the expressions that read and make the attribute, its description, and whether the op must
//! have it.

use super::names::camel;
use crate::ods::{AttributeDecl, AttributeKind, Signedness};

/// The Rust type an attribute reads as.
pub(super) fn value_type(kind: &AttributeKind) -> String {
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
pub(super) fn short(path: &str) -> &str {
    path.rsplit("::").next().unwrap()
}

/// The (Copy) Rust type a builder takes for an attribute.
pub(super) fn parameter_type(kind: &AttributeKind) -> String {
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
pub(super) fn describe(kind: &AttributeKind) -> String {
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
pub(super) fn read(kind: &AttributeKind, name: &str, value: &str) -> String {
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
pub(super) fn write(kind: &AttributeKind, name: &str, value: &str, location: &str) -> String {
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
pub(super) enum Presence {
    /// The op always has it: the accessor returns the value, the builder requires it.
    Required,
    /// Absent means the default: the accessor returns the value, the builder has a setter.
    Defaulted(String),
    /// It may be absent: the accessor returns an Option, the builder has a setter.
    Optional,
    /// A unit attribute: the accessor returns whether it is there, the builder has a setter.
    Unit,
}

/// How `attribute` appears in the API.
pub(super) fn presence(attribute: &AttributeDecl) -> Presence {
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
