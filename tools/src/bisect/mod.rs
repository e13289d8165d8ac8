//! Numeric bisection (`turbine-run --bisect`): when a compiled model's results differ from the
//! reference interpreter's, finds the first graph op whose compiled value diverges, where the
//! schedule put it, and the first pass whose presence makes it diverge.
//!
//! - **The op.** The function is cut after one of its ops ([`prefix`]); the cut function
//!   returns every value live at the cut, which the comparison then sees. Cuts are searched by
//!   bisection over the ops in order, from a cut with nothing computed (agrees) to the last
//!   (diverges), in about log2(ops) compiles, to two neighbouring cuts of which the first agrees
//!   and the second diverges: the op between them is the first whose compiled value diverges
//!   when divergence persists once it appears (and an op whose inputs compiled right and whose
//!   value did not, in any case).
//! - **Where it landed.** Every op the lowerings generate carries its model op's location, so
//!   the instances (GraphTurbo's group, slice, binding, scope) and the kernels holding ops at
//!   that location are found in the diverging prefix compiled ([`landing`]).
//! - **The pass.** The diverging prefix is compiled again with each pass of the schedule's
//!   pipeline turned off in turn, in pipeline order: the first pass without which it agrees is
//!   the one whose presence makes it diverge. A pass without which it does not compile is one
//!   the lowering needs; when no single pass's removal helps, those are named.

mod landing;
mod prefix;

use crate::comparison::worst_error;
use crate::diagnostics::describe;
use crate::driver::{self, CompileOptions, Device};
use crate::progress::Progress;
use melior::ir::Module;
use melior::Context;
use prefix::{prefix_module, Body};
use std::fmt;
use turbine_interpreter::{interpret, Program, Tensor, Weights};
use turbine_passes::conversion::instance_to_dsa::ConvertInstanceToDsa;
use turbine_passes::registry::Pass;

/// A model, its inputs and how to compile it: what a bisection needs.
pub struct Bisection<'a, 'c> {
    /// The MLIR context of `module`.
    pub context: &'c Context,
    /// The model in the graph dialect.
    pub module: &'a Module<'c>,
    /// The function to run.
    pub entry: &'a str,
    /// Its inputs.
    pub inputs: &'a [Tensor],
    /// Its weights.
    pub weights: &'a Weights,
    /// Target, schedule (with its options) and optimisation level.
    pub options: &'a CompileOptions,
    /// Host threads of the software DSA.
    pub threads: u32,
    /// Relative tolerance of the comparison.
    pub rtol: f64,
    /// Absolute tolerance of the comparison.
    pub atol: f64,
    /// Where to show each step (a terminal's progress line), if anywhere.
    pub progress: Option<&'a Progress>,
}

/// The worst compiled value of a prefix against the interpreter's.
#[derive(Debug, Clone)]
pub struct Divergence {
    /// Which value: "result 0 of graph.relu at \"relu_7\"".
    pub value: String,
    /// Its largest error over the tolerance (above 1: diverges).
    pub tolerances: f64,
    /// Its largest absolute error.
    pub error: f64,
}

/// How one compiled prefix compares with the interpreter.
enum Outcome {
    Agrees,
    Diverges(Divergence),
    /// It does not compile or run; the message says why.
    Fails(String),
}

/// Which pass makes the op diverge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Culprit {
    /// Without this pass the compiled prefix agrees.
    Pass(String),
    /// It diverges without each pass that can be turned off; these passes cannot be (the
    /// lowering needs them), so the fault is in one of them or below the passes.
    Required(Vec<String>),
}

/// What a bisection found.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The op's name (`graph.conv2d`).
    pub op: String,
    /// Its location (the ONNX node's name).
    pub location: String,
    /// Its position among the function's computing ops, from 1, and their count.
    pub position: (usize, usize),
    /// The schedule it was compiled with.
    pub schedule: String,
    /// The worst value of the diverging prefix.
    pub divergence: Divergence,
    /// The instances that compute it (GraphTurbo's schedule).
    pub instances: Vec<String>,
    /// The kernels that compute it.
    pub kernels: Vec<String>,
    /// The pass.
    pub culprit: Culprit,
    /// Prefixes compiled to find the op, and to find the pass.
    pub compiles: (usize, usize),
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "first diverging op: {} at {} (op {} of {}), schedule {}",
            self.op, self.location, self.position.0, self.position.1, self.schedule
        )?;
        let worst = &self.divergence;
        writeln!(
            f,
            "  largest difference {:.3e} ({:.3e} times the tolerance) in {}",
            worst.error, worst.tolerances, worst.value
        )?;
        for instance in &self.instances {
            writeln!(f, "  landed in {instance}")?;
        }
        let kernels = if self.kernels.is_empty() {
            "none found".to_owned()
        } else {
            self.kernels.join(", ")
        };
        writeln!(f, "  kernels: {kernels}")?;
        match &self.culprit {
            Culprit::Pass(pass) => writeln!(
                f,
                "first pass whose presence makes it diverge: {pass} (without it the op agrees)"
            )?,
            Culprit::Required(passes) => writeln!(
                f,
                "no single pass's removal makes it agree; the passes the lowering needs: {}",
                passes.join(", ")
            )?,
        }
        write!(
            f,
            "  {} compiles to find the op, {} to find the pass",
            self.compiles.0, self.compiles.1
        )
    }
}

impl Bisection<'_, '_> {
    /// Finds the first diverging op, where it landed and the pass; an error when the compiled
    /// model agrees with the interpreter or the bisection cannot proceed.
    pub fn run(&self) -> Result<Finding, String> {
        let body = Body::of(self.module, self.entry)
            .ok_or_else(|| format!("no function @{} in the module", self.entry))?;
        let cuts = body.computing_ops();
        let steps = driver::graph_to_dsa_steps(self.options)?;
        // The last cut diverges (else there is nothing to bisect); cuts before `first` agree.
        let mut last = cuts
            .len()
            .checked_sub(1)
            .ok_or("the function computes nothing")?;
        let mut divergence = match self.outcome(&body, cuts[last], &steps)? {
            Outcome::Diverges(divergence) => divergence,
            Outcome::Fails(message) => return Err(message),
            Outcome::Agrees => {
                return Err("every value the compiled model computes agrees with the \
                            interpreter: nothing to bisect"
                    .into())
            }
        };
        let (mut first, mut compiles) = (0, 1);
        while first < last {
            let middle = (first + last) / 2;
            compiles += 1;
            self.note(format!(
                "bisecting: the ops up to {} of {} ({compiles} compiles)",
                middle + 1,
                cuts.len()
            ));
            match self.outcome(&body, cuts[middle], &steps)? {
                Outcome::Agrees => first = middle + 1,
                Outcome::Diverges(found) => (last, divergence) = (middle, found),
                Outcome::Fails(message) => (last, divergence) = (middle, failed(message)),
            }
        }
        let cut = cuts[last];
        let (instances, kernels) = self.landing(&body, cut, &steps)?;
        let (culprit, pass_compiles) = self.culprit(&body, cut, &steps)?;
        Ok(Finding {
            op: body.op_name(cut),
            location: describe(body.location(cut)),
            position: (last + 1, cuts.len()),
            schedule: self.options.schedule.clone(),
            divergence,
            instances,
            kernels,
            culprit,
            compiles: (compiles, pass_compiles),
        })
    }

    /// Shows `message` as the bisection's progress.
    fn note(&self, message: String) {
        if let Some(progress) = self.progress {
            progress.set_message(message);
        }
    }

    /// Compiles the prefix ending at `cut` with `steps` and compares its values with the
    /// interpreter's.
    fn outcome(
        &self,
        body: &Body,
        cut: usize,
        steps: &[(&'static str, String)],
    ) -> Result<Outcome, String> {
        let live = body.live_after(cut);
        let prefix = prefix_module(self.module, self.entry, cut, &live);
        let expected = {
            // SAFETY: the prefix is alive for the interpretation and outlives the program.
            let program =
                unsafe { Program::from_module(prefix.as_operation().to_raw(), Some(self.entry)) }
                    .map_err(|error| error.to_string())?;
            interpret(&program, self.inputs.to_vec(), self.weights)
                .map_err(|error| error.to_string())?
        };
        let pipeline = driver::pipeline_of_steps(steps);
        let compiled = match driver::compile_with_pipeline(
            self.context,
            prefix,
            Some(self.entry),
            &pipeline,
            self.options.opt,
        ) {
            Ok(compiled) => compiled,
            Err(message) => return Ok(Outcome::Fails(message)),
        };
        let device = Device::new(&self.options.target)?;
        device.set_threads(self.threads)?;
        device.set_race_check(true)?;
        let results = match driver::run(&compiled, &device, self.inputs, self.weights) {
            Ok(results) => results,
            Err(message) => return Ok(Outcome::Fails(message)),
        };
        let mut worst: Option<Divergence> = None;
        for ((actual, reference), &(op, result)) in results.iter().zip(&expected).zip(&live) {
            let (tolerances, error) = worst_error(actual, reference, self.rtol, self.atol)?;
            let diverges = tolerances > 1.0 || tolerances.is_nan();
            if diverges && worst.as_ref().is_none_or(|w| tolerances > w.tolerances) {
                let name = body.op_name(op);
                worst = Some(Divergence {
                    value: format!(
                        "result {result} of {name} at {}",
                        describe(body.location(op))
                    ),
                    tolerances,
                    error,
                });
            }
        }
        Ok(worst.map_or(Outcome::Agrees, Outcome::Diverges))
    }

    /// The instances and kernels of the prefix ending at `cut`, compiled with every step, that
    /// compute the op at `cut`.
    fn landing(
        &self,
        body: &Body,
        cut: usize,
        steps: &[(&'static str, String)],
    ) -> Result<(Vec<String>, Vec<String>), String> {
        let location = body.location(cut);
        let live = body.live_after(cut);
        let conversion = steps
            .iter()
            .position(|(pass, _)| *pass == ConvertInstanceToDsa::ARGUMENT);
        let mut instances = Vec::new();
        if let Some(conversion) = conversion {
            let mut module = prefix_module(self.module, self.entry, cut, &live);
            let pipeline = driver::pipeline_of_steps(&steps[..conversion]);
            driver::run_pipeline(self.context, &mut module, &pipeline)?;
            instances = landing::instances(module.as_operation().to_raw(), location);
        }
        let mut module = prefix_module(self.module, self.entry, cut, &live);
        driver::run_pipeline(self.context, &mut module, &driver::pipeline_of_steps(steps))?;
        let kernels = landing::kernels(module.as_operation().to_raw(), location);
        Ok((instances, kernels))
    }

    /// The first step of `steps` without which the prefix ending at `cut` agrees, and the
    /// number of compiles it took.
    fn culprit(
        &self,
        body: &Body,
        cut: usize,
        steps: &[(&'static str, String)],
    ) -> Result<(Culprit, usize), String> {
        let mut required = Vec::new();
        for (index, (pass, _)) in steps.iter().enumerate() {
            self.note(format!("bisecting: the diverging ops without {pass}"));
            let without: Vec<(&'static str, String)> = steps
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != index)
                .map(|(_, step)| step.clone())
                .collect();
            match self.outcome(body, cut, &without)? {
                Outcome::Agrees => return Ok((Culprit::Pass((*pass).to_owned()), index + 1)),
                Outcome::Fails(_) => required.push((*pass).to_owned()),
                Outcome::Diverges(_) => {}
            }
        }
        required.dedup();
        Ok((Culprit::Required(required), steps.len()))
    }
}

/// A prefix that fails to compile or run, as a divergence.
fn failed(message: String) -> Divergence {
    Divergence {
        value: format!("the whole prefix, which fails: {message}"),
        tolerances: f64::INFINITY,
        error: f64::INFINITY,
    }
}
