//! The reference documentation of the passes and pipelines, generated from their registry
//! entries so that it cannot drift from what `--help` shows: docs/Passes.md, and the list of the
//! pipelines' passes in docs/Lowering.md.

use super::{OptionInfo, PassInfo, PipelineInfo};
use std::fmt::Write;
use turbine_dialects::pass_abi::OptionKind;

/// Where docs/Lowering.md's generated part starts and ends.
pub const LOWERING_BEGIN: &str =
    "<!-- Generated from the pipeline registry (turbine-passes): begin -->";
/// See [`LOWERING_BEGIN`].
pub const LOWERING_END: &str = "<!-- Generated from the pipeline registry: end -->";

/// Markdown reference of `passes` and `pipelines` (docs/Passes.md): flag, summary, anchor,
/// description and options; a pipeline's passes.
pub fn markdown(passes: &[&PassInfo], pipelines: &[&PipelineInfo]) -> String {
    let mut text = String::from(
        "<!-- Generated from the pass registry (turbine-passes); do not edit. \
         Regenerate with\n     \
         TURBINE_BLESS=1 cargo test -p turbine-tools --test integration pass_docs. -->\n\n\
         # Turbine passes\n\n\
         Every pass runs on one kind of op, its anchor: from its own flag\n\
         (`turbine-opt --<flag>=\"option=value\"`, which nests it on its anchor), and from\n\
         `--pass-pipeline` text nested on its anchor \
         (`builtin.module(func.func(<flag>{option=value}))`\n\
         for a pass on `func.func`, `builtin.module(<flag>{option=value})` for one on\n\
         `builtin.module`). MLIR refuses to add a pass to a pipeline on another op. The\n\
         [pipelines](#pipelines) run several passes from one flag.\n\n## Passes\n",
    );
    for info in passes {
        write!(
            text,
            "\n### `-{}`\n\n_{}_\n\nAnchor: `{}`\n\n{}\n",
            info.argument, info.summary, info.anchor, info.description
        )
        .unwrap();
        options_table(&mut text, info.options);
    }
    text.push_str(
        "\n## Pipelines\n\nA pipeline runs on `builtin.module`, from its flag \
         (`turbine-opt --<flag>=\"option=value\"`) or in `--pass-pipeline` text\n\
         (`builtin.module(<flag>{option=value})`); `<name>` below is the value of the \
         pipeline's option `name`.\n",
    );
    for info in pipelines {
        write!(
            text,
            "\n### `-{}`\n\n_{}_\n\n{}\n\n{}",
            info.argument,
            info.summary,
            info.description,
            pass_list(info)
        )
        .unwrap();
        options_table(&mut text, info.options);
    }
    text
}

/// The pipelines' passes for docs/Lowering.md, between [`LOWERING_BEGIN`] and [`LOWERING_END`].
pub fn lowering_section(pipelines: &[&PipelineInfo]) -> String {
    let mut text = format!("{LOWERING_BEGIN}\n");
    for info in pipelines {
        write!(
            text,
            "\n`{}`: {}\n\n{}",
            info.argument,
            info.summary,
            pass_list(info)
        )
        .unwrap();
    }
    write!(text, "\n{LOWERING_END}").unwrap();
    text
}

/// A pipeline's passes as a code block of pipeline text, one pass per line.
fn pass_list(info: &PipelineInfo) -> String {
    format!(
        "```\nbuiltin.module(\n  {}\n)\n```\n",
        info.pass_lines().join(",\n  ")
    )
}

fn options_table(text: &mut String, options: &[OptionInfo]) {
    if options.is_empty() {
        return;
    }
    text.push_str("\n| Option | Type | Default | Description |\n|---|---|---|---|\n");
    for option in options {
        let kind = match option.kind {
            OptionKind::String => "string",
            OptionKind::Int => "integer",
            OptionKind::Bool => "boolean",
            OptionKind::Float => "float",
        };
        writeln!(
            text,
            "| `{}` | {kind} | `{}` | {} |",
            option.name, option.default, option.description
        )
        .unwrap();
    }
}
