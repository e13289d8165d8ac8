//! Naming and documentation text for the generated Rust: Rust identifiers and constants for ODS
//! names, `///` lines from ODS prose, and the `AnyOp` variant of an op.

use crate::ods::Op;
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
pub(super) fn camel(name: &str) -> String {
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
pub(super) fn ident(name: &str, index: usize, what: &str) -> String {
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
pub(super) fn constant(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

/// Escapes the square brackets of ODS prose outside code (`shape[:axis]` would be read as an
/// intra-doc link).
pub(super) fn escape(text: &str) -> String {
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
pub(super) fn doc(out: &mut String, indent: &str, text: &str) {
    for line in text.lines() {
        if line.is_empty() {
            writeln!(out, "{indent}///").unwrap();
        } else {
            writeln!(out, "{indent}/// {line}").unwrap();
        }
    }
}

/// A sentence for the documentation: the summary with a capital and a full stop, or `fallback`.
pub(super) fn sentence(summary: &str, fallback: &str) -> String {
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

/// A summary for the documentation, in parentheses: without its full stop.
pub(super) fn parenthesised(summary: &str) -> String {
    let summary = escape(summary.trim().trim_end_matches('.'));
    if summary.is_empty() {
        String::new()
    } else {
        format!(" ({summary})")
    }
}

/// The `AnyOp` variant of an op: its class without the `Op` suffix.
pub(super) fn variant(op: &Op) -> String {
    let name = op.class.strip_suffix("Op").unwrap_or(&op.class);
    if name.is_empty() {
        op.class.clone()
    } else {
        name.to_string()
    }
}
