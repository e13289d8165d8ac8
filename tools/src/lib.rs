//! What Turbine's tools share: compiling a model down to the software DSA and running it
//! ([`driver`]), comparing its results with the interpreter's ([`comparison`]) and finding the
//! first op and pass that make them differ ([`bisect`]), building graph-dialect modules from
//! operation records ([`graph_module`]), the built-in models of the main job and the benchmark
//! ([`models`]), how diagnostics name their locations ([`diagnostics`]), the fuzzing harnesses
//! ([`fuzzing`]), the interpreter check of substitution rules ([`rule_check`]), reading model
//! files ([`input`]), what every tool's `main` does ([`cli`]), progress on a terminal
//! ([`progress`]), the picture of a schedule ([`schedule_view`]), and command-line parsing helpers.
#![warn(missing_docs)]

pub mod bisect;
pub mod cli;
pub mod comparison;
pub mod diagnostics;
pub mod driver;
pub mod fuzzing;
pub mod graph_module;
pub mod input;
pub mod models;
pub mod progress;
pub mod random;
pub mod rule_check;
pub mod schedule_view;

/// Parses `NAME=D0xD1x...` (`--input-shape`): the static shape to give an ONNX input.
pub fn parse_input_shape(text: &str) -> Result<(String, Vec<usize>), String> {
    let (name, dims) = text
        .rsplit_once('=')
        .ok_or("expected NAME=D0xD1x... such as input=1x3x224x224")?;
    let dims = if dims.is_empty() {
        Vec::new()
    } else {
        dims.split('x')
            .map(|dim| {
                dim.parse::<usize>()
                    .map_err(|_| format!("'{dim}' is not a dimension size"))
            })
            .collect::<Result<Vec<_>, _>>()?
    };
    Ok((name.to_owned(), dims))
}
