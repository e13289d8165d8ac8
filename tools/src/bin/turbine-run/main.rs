//! `turbine-run`: compiles a model (graph-dialect `.mlir` or `.onnx`) for a target and runs it on
//! the software DSA, printing its results and the runtime's report; or, with `--interpret`,
//! evaluates it with the graph dialect's reference interpreter, the ground truth that compiled
//! pipelines are compared with (`--check` does both and compares).

use clap::Parser;
use std::{path::PathBuf, process::ExitCode, time::Instant};
use turbine_codegen::OptLevel;
use turbine_interpreter::{interpret, npy, Program, Tensor, Weights};
use turbine_tools::driver::{self, CompileOptions, Device, ReportFormat, TraceFormat};

/// `print!` to stdout through [`output::emit`].
macro_rules! out {
    ($($argument:tt)*) => { $crate::output::emit(format_args!($($argument)*)) };
}

/// `println!` to stdout through [`output::emit`].
macro_rules! outln {
    ($($argument:tt)*) => {
        $crate::output::emit(format_args!("{}\n", format_args!($($argument)*)))
    };
}

mod model;
mod output;
mod results;
mod tune;

use model::{check_interface, inputs, load};
use results::{compare, summary, top_k};
use turbine_tools::comparison::worst_error;
use turbine_tools::progress::Progress;

#[derive(Parser, Debug)]
#[command(
    name = "turbine-run",
    about = "Compile a model for a DSA target and run it on the software DSA, or interpret it"
)]
/// The command line.
struct Arguments {
    /// The model: an ONNX file, or MLIR text in the graph dialect (told apart by their content,
    /// whatever the extension).
    #[arg(required_unless_present = "builtin")]
    model: Option<PathBuf>,
    /// A built-in model instead of a file (seeded weights): resnet50, resnet18, densenet121.
    #[arg(long, conflicts_with = "model")]
    builtin: Option<String>,
    /// Batch size of the built-in model (at least 1).
    #[arg(
        long,
        default_value_t = 1,
        requires = "builtin",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    batch: u32,
    /// Evaluate with the graph-level reference interpreter instead of compiling.
    #[arg(long)]
    interpret: bool,
    /// Compute the model in this reduced float type (f16, bf16), keeping its numerically
    /// sensitive ops in f32: the `graph-reduce-precision` pass, run before everything else, its
    /// f32 inputs and outputs taking the reduced type too (f32 .npy inputs are converted on
    /// reading; the interpreter of --check evaluates the reduced model).
    #[arg(long, value_parser = ["f16", "bf16"])]
    precision: Option<String>,
    /// Compile (through JIT code generation) and print the compile time per phase, without
    /// running: what a compile-time measurement needs, with no simulation to wait for.
    #[arg(
        long,
        conflicts_with_all = [
            "interpret", "check", "bisect", "baseline", "trace", "timeline", "report_json",
            "outputs",
            "top"
        ]
    )]
    compile_only: bool,
    /// Compile and run, also interpret, and fail unless every output matches within the
    /// tolerance (|a - b| <= atol + rtol * |b|).
    #[arg(long)]
    check: bool,
    /// With --check: when a result differs, find the first graph op whose compiled value
    /// diverges (by compiling prefixes of the model), where the schedule put it, and the first
    /// pass whose presence makes it diverge (by compiling with each pass turned off). Implies
    /// --check.
    #[arg(long)]
    bisect: bool,
    /// Check every launch for races before it runs (instructions that may touch the same
    /// elements at overlapping times, a write involved). Off by default: it costs host time,
    /// and the compiler's output is checked with it in the test suite. On with --check and
    /// --bisect.
    #[arg(long)]
    race_check: bool,
    /// The device's watchdog: a compiled loop whose condition still holds at this iteration
    /// stops with an error (the interpreter has a bound of its own, `MAX_LOOP_ITERATIONS`).
    #[arg(long, default_value_t = turbine_runtime::DEFAULT_LOOP_LIMIT,
          value_parser = clap::value_parser!(u64).range(1..))]
    loop_limit: u64,
    /// Relative tolerance of --check.
    #[arg(long, default_value_t = 1e-4, value_parser = tolerance)]
    rtol: f64,
    /// Absolute tolerance of --check.
    #[arg(long, default_value_t = 1e-4, value_parser = tolerance)]
    atol: f64,
    /// Target: a built-in name (stcp920, mini, solo) or a target description file.
    #[arg(long, default_value = "stcp920")]
    target: String,
    /// Kernel schedule of the lowering: layerwise, or graphturbo (options of its pipeline in
    /// braces: 'graphturbo{scope=lb spill=largest}').
    #[arg(long, default_value = "layerwise")]
    schedule: String,
    /// Also compile and run with this schedule and print both side by side (cycles, kernels,
    /// bytes per memory level, matrix-engine utilisation, the speedup) with their outputs compared.
    #[arg(long, value_name = "SCHEDULE")]
    baseline: Option<String>,
    /// LLVM optimisation level of the host code (0-3).
    // 0 by default: the host code only records instructions, so optimising it lengthens the
    // compilation by more than it shortens the run.
    #[arg(long = "opt", default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=3))]
    opt: u8,
    /// Host threads of the software DSA (0: all).
    #[arg(long, default_value_t = 0)]
    threads: u32,
    /// Run the loaded model this many times and print the median host time, as an inference
    /// runtime's steady state is timed (the first run also pays for warming the host's memory).
    /// The outputs and the report are the last run's (the first run's report also counts the
    /// weights' upload); a trace or timeline shows every run.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Print the report's detail too: every layer of the model, and every compute unit, DMA
    /// channel and port that ran something (the summary gives the costliest layers and
    /// min/mean/max per kind of unit; the JSON has everything).
    #[arg(long)]
    report_detail: bool,
    /// Write the runtime's report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write a Chrome/Perfetto trace of the run to this file: one event per run of a layer's
    /// instructions on a unit, DMA channel or port (with its instruction count, busy cycles and
    /// bytes or work).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Make --trace's file hold one event per instruction (large: hundreds of MB for a
    /// ResNet-50).
    #[arg(long, requires = "trace")]
    trace_detail: bool,
    /// Draw the run as an SVG timeline to this file: a lane per compute unit, DMA channel and
    /// port of every core and cluster, boxes coloured by layer, the launches above them.
    #[arg(long, value_name = "FILE")]
    timeline: Option<PathBuf>,
    /// Print the model in the graph dialect (after ONNX import, or the built-in model) and exit.
    #[arg(long)]
    print_model: bool,
    /// Static shape of an ONNX input (NAME=D0xD1x...), for inputs with symbolic dimensions.
    #[arg(
        long = "input-shape",
        value_name = "NAME=DIMS",
        value_parser = turbine_tools::parse_input_shape
    )]
    input_shapes: Vec<(String, Vec<usize>)>,
    /// Print the K largest entries of each row of 2-D outputs (classes per image).
    #[arg(long, value_name = "K")]
    top: Option<usize>,
    /// Input .npy files, one per argument of the function, in order.
    #[arg(long = "input", value_name = "FILE")]
    inputs: Vec<PathBuf>,
    /// Where to write the outputs (.npy), one per result, in order.
    #[arg(long = "output", value_name = "FILE")]
    outputs: Vec<PathBuf>,
    /// The weights file (safetensors); by default the module's `graph.weights`, relative to the
    /// model's folder.
    #[arg(long)]
    weights: Option<PathBuf>,
    /// The function to run; by default `main`, or the module's only function.
    #[arg(long)]
    function: Option<String>,
    /// Seed of the random inputs used when no --input is given (f32 uniform in [-1, 1)).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Tune first (BOLT §3.2): compile and run the model once per rank of the candidate tilings,
    /// and once with every chain's fusion decision flipped (layer-wise schedule), time every
    /// kernel, and write the fastest candidate of each decision to the --tuning-cache file; then
    /// compile with it and run.
    #[arg(long, requires = "tuning_cache")]
    tune: bool,
    /// A tuning cache: each layer and chain it names takes the candidate measured fastest
    /// (written by --tune); one made by another compiler or for another target is refused.
    #[arg(long, value_name = "FILE")]
    tuning_cache: Option<String>,
    /// With --tune, the candidate tilings measured per layer at most (one compile and run per
    /// rank).
    #[arg(long, default_value_t = 4, requires = "tune",
          value_parser = clap::value_parser!(u32).range(1..))]
    tune_candidates: u32,
}

/// The target, `schedule` and optimisation level the arguments ask for.
fn compile_options(arguments: &Arguments, schedule: &str) -> CompileOptions {
    CompileOptions {
        target: arguments.target.clone(),
        schedule: schedule.to_owned(),
        opt: [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3][arguments.opt as usize],
    }
}

/// Compiles `module` with `schedule`, printing the time of each phase.
fn compile(
    context: &melior::Context,
    module: melior::ir::Module,
    entry: &str,
    arguments: &Arguments,
    schedule: &str,
) -> Result<driver::Compiled, String> {
    let options = compile_options(arguments, schedule);
    let progress = Progress::start(format!(
        "compiling @{entry} for {} ({schedule})",
        arguments.target
    ));
    let compiled = driver::compile(context, module, Some(entry), &options);
    drop(progress);
    let compiled = compiled?;
    let backend = compiled.backend_times();
    outln!(
        "compiled @{} for {} ({schedule}) in {:.3} s: graph passes {:.3} s, \
         lowering to LLVM {:.3} s, translation {:.3} s, LLVM optimisation {:.3} s, \
         JIT {:.3} s; {} kernels",
        compiled.entry,
        arguments.target,
        (compiled.graph_passes + backend.total()).as_secs_f64(),
        compiled.graph_passes.as_secs_f64(),
        backend.lowering.as_secs_f64(),
        backend.translation.as_secs_f64(),
        backend.optimisation.as_secs_f64(),
        backend.codegen.as_secs_f64(),
        compiled.kernel_count
    );
    Ok(compiled)
}

/// Loads the model, then interprets it, compiles and runs it, or both, as asked; prints and
/// writes the results and checks them against the interpreter's.
/// The model and its weights, with the precision `--precision` asks for: the
/// `graph-reduce-precision` pass, its inputs and results reduced too (the host converts its
/// data).
fn load_reduced<'c>(
    context: &'c melior::Context,
    arguments: &Arguments,
) -> Result<(melior::ir::Module<'c>, Weights), String> {
    let (mut module, weights) = load(context, arguments)?;
    if let Some(precision) = &arguments.precision {
        let pipeline = format!(
            "builtin.module(func.func(graph-reduce-precision{{precision={precision} \
             keep-io-types=false}}))"
        );
        turbine_tools::driver::run_pipeline(context, &mut module, &pipeline)?;
    }
    Ok((module, weights))
}

fn run(arguments: &Arguments) -> Result<(), String> {
    let context = turbine_dialects::create_context();
    let (module, weights) = load_reduced(&context, arguments)?;
    if arguments.print_model {
        outln!("{}", module.as_operation());
        return Ok(());
    }
    // SAFETY: the module is verified and outlives the program read from it.
    let program = unsafe {
        Program::from_module(
            module.as_operation().to_raw(),
            arguments.function.as_deref(),
        )
    }
    .map_err(|error| error.to_string())?;
    let inputs = inputs(arguments, &program)?;
    check_interface(arguments, &program, &inputs)?;
    let checking = arguments.check || arguments.bisect;
    let expected = if arguments.interpret || checking {
        let progress = Progress::start("interpreting");
        let interpreted = interpret(&program, inputs.clone(), &weights);
        drop(progress);
        Some(interpreted.map_err(|error| error.to_string())?)
    } else {
        None
    };
    let results = if arguments.interpret {
        expected.clone().unwrap_or_default()
    } else {
        let run = Run {
            context: &context,
            arguments,
            entry: &program.name,
            inputs: &inputs,
            weights: &weights,
        };
        match run.compile_and_run(module)? {
            Some(results) => results,
            None => return Ok(()),
        }
    };
    write_results(arguments, &results)?;
    if let (Some(expected), false) = (&expected, arguments.interpret) {
        let checked = check_results(arguments, &results, expected);
        if checked.is_err() && arguments.bisect {
            bisect(&context, arguments, &program.name, &inputs, &weights)?;
        }
        checked?;
    }
    Ok(())
}

/// Finds and prints the first op and pass that make the compiled model diverge.
fn bisect(
    context: &melior::Context,
    arguments: &Arguments,
    entry: &str,
    inputs: &[Tensor],
    weights: &Weights,
) -> Result<(), String> {
    let (module, _) = load_reduced(context, arguments)?;
    let options = compile_options(arguments, &arguments.schedule);
    let progress = Progress::start("bisecting");
    let bisection = turbine_tools::bisect::Bisection {
        context,
        module: &module,
        entry,
        inputs,
        weights,
        options: &options,
        threads: arguments.threads,
        rtol: arguments.rtol,
        atol: arguments.atol,
        progress: Some(&progress),
    };
    let finding = bisection.run();
    outln!("bisect: {}", finding?);
    Ok(())
}

/// What compiling and running a model on the software DSA needs.
struct Run<'a, 'c> {
    context: &'c melior::Context,
    arguments: &'a Arguments,
    entry: &'a str,
    inputs: &'a [Tensor],
    weights: &'a Weights,
}

impl Run<'_, '_> {
    /// Compiles `module` with the chosen schedule and runs it, printing and writing the
    /// report and the trace as asked, then the baseline schedule if one is given; `None` when
    /// only compiling.
    fn compile_and_run(&self, module: melior::ir::Module) -> Result<Option<Vec<Tensor>>, String> {
        let arguments = self.arguments;
        let schedule = match &arguments.tuning_cache {
            Some(path) => {
                if arguments.tune {
                    self.tune(path)?;
                }
                driver::with_option(&arguments.schedule, &format!("tuning-cache={path}"))
            }
            None => arguments.schedule.clone(),
        };
        let compiled = compile(self.context, module, self.entry, arguments, &schedule)?;
        if arguments.compile_only {
            return Ok(None);
        }
        let device = new_device(arguments)?;
        if arguments.trace.is_some() || arguments.timeline.is_some() {
            device.enable_trace()?;
        }
        let start = Instant::now();
        let progress = Progress::start("loading the weights into the software DSA");
        let loaded = driver::load(&compiled, &device, self.weights);
        drop(progress);
        let loaded = loaded?;
        let loading = start.elapsed();
        let progress = Progress::start("running on the software DSA");
        let mut times = Vec::new();
        let mut results = Vec::new();
        for repeat in 0..arguments.repeat {
            if repeat > 0 {
                device.reset_report()?;
            }
            let start = Instant::now();
            results = loaded.run(self.inputs)?;
            times.push(start.elapsed().as_secs_f64());
        }
        drop(progress);
        let first = times[0];
        times.sort_by(f64::total_cmp);
        let repeats = match times.len() {
            1 => String::new(),
            n => format!(", the median of {n} runs (the first: {first:.3} s)"),
        };
        outln!(
            "ran on the software DSA in {:.3} s of host time{repeats} (loading the weights: \
             {:.3} s)",
            times[times.len() / 2],
            loading.as_secs_f64()
        );
        drop(loaded);
        write_report(arguments, &device)?;
        if let Some(baseline) = &arguments.baseline {
            self.run_baseline(baseline, &device, &results)?;
        }
        Ok(Some(results))
    }

    /// Compiles and runs the model again with the `baseline` schedule on a device of its own,
    /// and prints the two runs side by side.
    fn run_baseline(
        &self,
        baseline: &str,
        device: &Device,
        results: &[Tensor],
    ) -> Result<(), String> {
        let arguments = self.arguments;
        let ours = driver::figures(&device.report(ReportFormat::Json)?)?;
        let (module, _) = load_reduced(self.context, arguments)?;
        let compiled = compile(self.context, module, self.entry, arguments, baseline)?;
        let other = new_device(arguments)?;
        let progress = Progress::start(format!(
            "running the {baseline} schedule on the software DSA"
        ));
        let theirs_results = driver::run(&compiled, &other, self.inputs, self.weights);
        drop(progress);
        let theirs_results = theirs_results?;
        let theirs = driver::figures(&other.report(ReportFormat::Json)?)?;
        compare(
            &arguments.schedule,
            &ours,
            results,
            baseline,
            &theirs,
            &theirs_results,
        )
    }
}

/// A software DSA of the target, with the host threads and the race check asked for.
fn new_device(arguments: &Arguments) -> Result<Device, String> {
    let device = Device::new(&arguments.target)?;
    device.set_threads(arguments.threads)?;
    device.set_race_check(arguments.race_check || arguments.check || arguments.bisect)?;
    device.set_loop_limit(arguments.loop_limit)?;
    Ok(device)
}

/// Prints the runtime's report, and writes its JSON form, the trace and the timeline where asked.
fn write_report(arguments: &Arguments, device: &Device) -> Result<(), String> {
    out!(
        "{}",
        device.report(if arguments.report_detail {
            ReportFormat::Detail
        } else {
            ReportFormat::Summary
        })?
    );
    if let Some(path) = &arguments.report_json {
        std::fs::write(path, device.report(ReportFormat::Json)?)
            .map_err(|error| format!("{}: {error}", path.display()))?;
    }
    if let Some(path) = &arguments.trace {
        let format = if arguments.trace_detail {
            TraceFormat::Instructions
        } else {
            TraceFormat::Layers
        };
        device.write_trace(path, format)?;
    }
    if let Some(path) = &arguments.timeline {
        device.write_trace(path, TraceFormat::TimelineSvg)?;
    }
    Ok(())
}

/// Prints a summary of each result (and its top entries if asked) and writes the `--output`
/// files.
fn write_results(arguments: &Arguments, results: &[Tensor]) -> Result<(), String> {
    for (index, result) in results.iter().enumerate() {
        outln!("result #{index}: {}", summary(result));
        if let Some(k) = arguments.top {
            for line in top_k(result, k) {
                outln!("{line}");
            }
        }
        if let Some(path) = arguments.outputs.get(index) {
            std::fs::write(path, npy::serialize(result))
                .map_err(|error| format!("{}: {error}", path.display()))?;
        }
    }
    Ok(())
}

/// Prints how far each result is from the interpreter's and fails if any is beyond the
/// tolerance.
fn check_results(
    arguments: &Arguments,
    results: &[Tensor],
    expected: &[Tensor],
) -> Result<(), String> {
    let mut failed = Vec::new();
    for (index, (actual, reference)) in results.iter().zip(expected).enumerate() {
        let (ratio, error) = worst_error(actual, reference, arguments.rtol, arguments.atol)
            .map_err(|error| format!("result #{index}: {error}"))?;
        outln!(
            "check result #{index}: max |error| {error:.3e}, {:.3} of the tolerance \
             (rtol {}, atol {}) against the interpreter",
            ratio,
            arguments.rtol,
            arguments.atol
        );
        if ratio > 1.0 || ratio.is_nan() {
            failed.push(index);
        }
    }
    if !failed.is_empty() {
        return Err(format!(
            "results {failed:?} differ from the reference interpreter beyond the tolerance"
        ));
    }
    Ok(())
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    turbine_tools::cli::main("turbine-run", move || run(&arguments))
}

/// Parses a tolerance of `--check`: a finite number, at least 0.
fn tolerance(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(value) if value.is_finite() && value >= 0.0 => Ok(value),
        _ => Err(format!("'{text}' is not a finite tolerance of at least 0")),
    }
}
