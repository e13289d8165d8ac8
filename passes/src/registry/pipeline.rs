//! Named pipelines: a sequence of registered passes (Turbine's and upstream ones) with their
//! options, registered in MLIR's pipeline registry so that `--<name>="option=value"` and
//! `<name>{option=value}` in pipeline text run the whole sequence, and documented from the same
//! definition.
//!
//! The C++ side builds a pipeline by looking each pass up by its argument when the pipeline is
//! used, as pipeline text does: a pass keeps its own option parsing and validation, and a
//! pipeline cannot name a pass that does not exist without failing the first time it is built.

use super::options::{leak_c_string, raw_options, OptionInfo};
use std::fmt::Write;
use turbine_dialects::ops::OpKind;
use turbine_dialects::pass_abi::{self, RawPipelineDefinition, RawPipelineStep, RawStepOption};

/// What MLIR and the documentation know about a pipeline. A pipeline runs on `builtin.module`.
#[derive(Debug)]
pub struct PipelineInfo {
    /// The flag (`turbine-layerwise`).
    pub argument: &'static str,
    /// One line, shown by `--help`.
    pub summary: &'static str,
    /// Paragraphs for docs/Passes.md: what the pipeline is for.
    pub description: &'static str,
    /// Typed options, which the steps hand to their passes.
    pub options: &'static [OptionInfo],
    /// The passes, in order.
    pub steps: &'static [Step],
}

/// One pass of a pipeline.
#[derive(Debug)]
pub struct Step {
    /// The op the pass is nested on inside the module (`func.func`), or None for the module: the
    /// pass's anchor, for a Turbine pass.
    pub nest: Option<OpKind>,
    /// The pass's registered argument.
    pub pass: &'static str,
    /// Pass options set by the pipeline, by name; the others keep their defaults.
    pub options: &'static [(&'static str, StepValue)],
}

/// Where a pass option in a pipeline gets its value.
#[derive(Debug)]
pub enum StepValue {
    /// The pipeline's option of this name.
    Option(&'static str),
    /// This value, whatever the pipeline's options.
    Fixed(&'static str),
}

impl Step {
    /// The step as pipeline text inside the module (`func.func(graph-fold-reshapes)`), the value
    /// of each pass option that comes from the pipeline's option `name` written as
    /// `pipeline_value(name)`.
    fn text(&self, pipeline_value: impl Fn(&str) -> String) -> String {
        let mut text = self.pass.to_owned();
        if !self.options.is_empty() {
            let options: Vec<String> = self
                .options
                .iter()
                .map(|(name, value)| match value {
                    StepValue::Option(option) => format!("{name}={}", pipeline_value(option)),
                    StepValue::Fixed(fixed) => format!("{name}={}", option_value(fixed)),
                })
                .collect();
            write!(text, "{{{}}}", options.join(" ")).unwrap();
        }
        match self.nest {
            Some(op) => format!("{op}({text})"),
            None => text,
        }
    }
}

impl PipelineInfo {
    /// The passes as pipeline text inside the module, one per line
    /// (`func.func(graph-fold-reshapes)`, `dsa-set-target{target=<target>}`, with `<name>` for
    /// a value taken from the pipeline's option `name`), for the documentation.
    pub fn pass_lines(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|step| step.text(|option| format!("<{option}>")))
            .collect()
    }

    /// Each step's pass argument and the step as pipeline text inside the module, with the
    /// pipeline's options set to `values` (name, value) and the others at their defaults: what
    /// running the pipeline with those options runs, so that a tool can run a subset of its
    /// steps. An error names an option the pipeline does not declare.
    pub fn step_texts(
        &self,
        values: &[(String, String)],
    ) -> Result<Vec<(&'static str, String)>, String> {
        if let Some((unknown, _)) = values
            .iter()
            .find(|(name, _)| self.options.iter().all(|option| option.name != name))
        {
            return Err(format!(
                "pipeline '{}' has no option '{unknown}'",
                self.argument
            ));
        }
        let value_of = |option: &str| {
            let value = values
                .iter()
                .rev()
                .find(|(name, _)| name == option)
                .map(|(_, value)| value.as_str())
                .or_else(|| {
                    let declared = self.options.iter().find(|o| o.name == option)?;
                    Some(declared.default)
                })
                .unwrap_or_default();
            option_value(value)
        };
        Ok(self
            .steps
            .iter()
            .map(|step| (step.pass, step.text(value_of)))
            .collect())
    }
}

/// A value in a pass's option text: in braces when it is empty or would otherwise end the value
/// early (MLIR's option parser takes quotes and braces as delimiters), as the C++ side writes it.
fn option_value(value: &str) -> String {
    if value.is_empty() || value.contains([' ', '\t', '"', '\'', '{', '}']) {
        format!("{{{value}}}")
    } else {
        value.to_owned()
    }
}

/// Hands `info` to MLIR's pipeline registry.
///
/// # Panics
/// When a step takes its value from an option the pipeline does not declare (a definition bug,
/// caught the first time the tools start).
pub fn register(info: &'static PipelineInfo) {
    let steps: Vec<RawPipelineStep> = info
        .steps
        .iter()
        .map(|step| {
            let options: Vec<RawStepOption> = step
                .options
                .iter()
                .map(|(name, value)| {
                    let (pipeline_option, value) = match value {
                        StepValue::Option(option) => {
                            let index = info
                                .options
                                .iter()
                                .position(|declared| declared.name == *option);
                            let index = index.unwrap_or_else(|| {
                                panic!(
                                    "pipeline '{}' has no option '{option}' for {}",
                                    info.argument, step.pass
                                )
                            });
                            (index as i64, std::ptr::null())
                        }
                        StepValue::Fixed(fixed) => (-1, leak_c_string(fixed)),
                    };
                    RawStepOption {
                        name: leak_c_string(name),
                        pipeline_option,
                        value,
                    }
                })
                .collect();
            let options = Box::leak(options.into_boxed_slice());
            RawPipelineStep {
                nest: step
                    .nest
                    .map_or(std::ptr::null(), |op| leak_c_string(op.name())),
                pass: leak_c_string(step.pass),
                options: options.as_ptr(),
                num_options: options.len(),
            }
        })
        .collect();
    let steps = Box::leak(steps.into_boxed_slice());
    let options = raw_options(info.options);
    let definition = Box::leak(Box::new(RawPipelineDefinition {
        argument: leak_c_string(info.argument),
        summary: leak_c_string(info.summary),
        options: options.as_ptr(),
        num_options: options.len(),
        steps: steps.as_ptr(),
        num_steps: steps.len(),
    }));
    // SAFETY: the definition and everything it points to are leaked, so they outlive MLIR's use.
    unsafe { pass_abi::turbineRegisterPipeline(definition) };
}
