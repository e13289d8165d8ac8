//! `turbine-run`: compiles a model (graph-dialect `.mlir` or `.onnx`) for a target and runs it on
//! the software DSA, printing its results and the runtime's report; or, with `--interpret`,
//! evaluates it with the graph dialect's reference interpreter, the ground truth that compiled
//! pipelines are compared with (`--check` does both and compares).

use clap::Parser;
use std::{
    io::{IsTerminal, Write},
    path::{Path, PathBuf},
    process::ExitCode,
    time::Instant,
};
use turbine_codegen::OptLevel;
use turbine_interpreter::{interpret, npy, Data, ElementType, Program, Tensor, Weights};
use turbine_tools::{
    driver::{self, CompileOptions, Device, ReportFormat},
    random::SplitMix,
};

#[derive(Parser, Debug)]
#[command(
    name = "turbine-run",
    about = "Compile a model for a DSA target and run it on the software DSA, or interpret it"
)]
struct Arguments {
    /// The model: .mlir in the graph dialect, or .onnx.
    #[arg(required_unless_present = "builtin")]
    model: Option<PathBuf>,
    /// A built-in model instead of a file (seeded weights): resnet50, resnet18, densenet121.
    #[arg(long, conflicts_with = "model")]
    builtin: Option<String>,
    /// Batch size of the built-in model.
    #[arg(long, default_value_t = 1, requires = "builtin")]
    batch: usize,
    /// Evaluate with the graph-level reference interpreter instead of compiling.
    #[arg(long)]
    interpret: bool,
    /// Compile (through JIT code generation) and print the compile time per phase, without
    /// running: what a compile-time measurement needs, with no simulation to wait for.
    #[arg(
        long,
        conflicts_with_all = [
            "interpret", "check", "baseline", "trace", "report_json", "outputs", "top"
        ]
    )]
    compile_only: bool,
    /// Compile and run, also interpret, and fail unless every output matches within the
    /// tolerance (|a - b| <= atol + rtol * |b|).
    #[arg(long)]
    check: bool,
    /// Relative tolerance of --check.
    #[arg(long, default_value_t = 1e-4)]
    rtol: f64,
    /// Absolute tolerance of --check.
    #[arg(long, default_value_t = 1e-4)]
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
    /// Print the report's detail too: every layer of the model, and every compute unit, DMA
    /// channel and port that ran something (the summary gives the costliest layers and
    /// min/mean/max per kind of unit; the JSON has everything).
    #[arg(long)]
    report_detail: bool,
    /// Write the runtime's report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    report_json: Option<PathBuf>,
    /// Write a Chrome/Perfetto trace of the run to this file.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
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
}

/// Writes to stdout; a closed pipe (`turbine-run ... | head`) ends the program quietly, as it
/// ends other Unix tools, rather than with a panic.
fn emit(arguments: std::fmt::Arguments) {
    let mut stdout = std::io::stdout().lock();
    if let Err(error) = stdout.write_fmt(arguments) {
        if error.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("turbine-run: error: cannot write the output: {error}");
        std::process::exit(1);
    }
}

/// Shows what a step that may take seconds is doing, on a terminal only (erased by
/// [`progress_done`]); nothing goes into a pipe or a file.
fn progress(what: &str) {
    let mut stderr = std::io::stderr();
    if stderr.is_terminal() {
        let _ = write!(stderr, "{what}…");
        let _ = stderr.flush();
    }
}

fn progress_done() {
    let mut stderr = std::io::stderr();
    if stderr.is_terminal() {
        let _ = write!(stderr, "\r\x1b[K");
        let _ = stderr.flush();
    }
}

macro_rules! out {
    ($($argument:tt)*) => { emit(format_args!($($argument)*)) };
}

macro_rules! outln {
    ($($argument:tt)*) => { emit(format_args!("{}\n", format_args!($($argument)*))) };
}

fn random_input(shape: &[usize], element_type: ElementType, random: &mut SplitMix) -> Tensor {
    let count = shape.iter().product();
    let data = match element_type {
        ElementType::F32 => Data::F32((0..count).map(|_| random.unit()).collect()),
        ElementType::I64 | ElementType::I32 => {
            Data::I64((0..count).map(|_| (random.next_u64() % 2) as i64).collect())
        }
        ElementType::Bool => Data::Bool((0..count).map(|_| random.next_u64() % 2 == 1).collect()),
    };
    Tensor {
        shape: shape.to_vec(),
        element_type,
        data,
    }
}

fn summary(tensor: &Tensor) -> String {
    let values: Vec<f64> = match &tensor.data {
        Data::F32(values) => values.iter().map(|&v| v as f64).collect(),
        Data::I64(values) => values.iter().map(|&v| v as f64).collect(),
        Data::Bool(values) => values.iter().map(|&v| v as u8 as f64).collect(),
    };
    if values.is_empty() {
        return format!("{:?} {:?}: empty", tensor.element_type, tensor.shape);
    }
    let head: Vec<String> = values.iter().take(6).map(|v| format!("{v:.6}")).collect();
    // Statistics of the numbers; NaNs (a mean over nothing) are counted, not folded in.
    let numbers: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let nans = values.len() - numbers.len();
    let statistics = if numbers.is_empty() {
        "all NaN".to_owned()
    } else {
        let (min, max) = numbers
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
        let nans = if nans > 0 {
            format!(", {nans} NaN")
        } else {
            String::new()
        };
        format!("min {min:.6}, max {max:.6}, mean {mean:.6}{nans}")
    };
    format!(
        "{:?} {:?}: {statistics}, first [{}{}]",
        tensor.element_type,
        tensor.shape,
        head.join(", "),
        if values.len() > head.len() {
            ", ..."
        } else {
            ""
        }
    )
}

/// The model as a graph-dialect module and its weights.
fn load<'c>(
    context: &'c melior::Context,
    arguments: &Arguments,
) -> Result<(melior::ir::Module<'c>, Weights), String> {
    if let Some(name) = &arguments.builtin {
        let model = turbine_tools::models::builtin(name, arguments.batch).ok_or_else(|| {
            format!(
                "no built-in model '{name}' (available: {})",
                turbine_tools::models::MODELS.join(", ")
            )
        })?;
        let module = turbine_tools::graph_module::build(context, &model.module)
            .map_err(|error| format!("the built-in model '{name}' is invalid (a bug): {error}"))?;
        return Ok((module, model.weights));
    }
    let path = arguments
        .model
        .as_ref()
        .expect("clap requires a model or --builtin");
    let is_onnx = path
        .extension()
        .is_some_and(|extension| extension == "onnx");
    if is_onnx {
        let bytes = std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
        // The weights stay in memory: the module names a side file, as `turbine-translate`
        // writes one, but nothing reads it here (writing a large model's weights and reading
        // them back would take a sizeable share of the command's time).
        let options = turbine_onnx::ImportOptions {
            input_shapes: arguments.input_shapes.clone(),
            weights_file: "weights.safetensors".into(),
        };
        let model = turbine_onnx::import(&bytes, &options)
            .map_err(|error| format!("{}: {error}", path.display()))?;
        let module =
            turbine_tools::graph_module::build(context, &model.module).map_err(|error| {
                format!(
                    "{}: the imported IR is invalid (an importer bug): {error}",
                    path.display()
                )
            })?;
        let weights = if model.weights.is_empty() {
            Weights::empty()
        } else {
            let serialized = model.weights.serialize().map_err(|error| {
                format!("{}: cannot serialize the weights: {error}", path.display())
            })?;
            Weights::parse(&serialized, &path.display().to_string())
                .map_err(|error| error.to_string())?
        };
        return Ok((module, weights));
    }
    let module = turbine_dialects::parse_file(context, path)
        .ok_or_else(|| format!("{}: cannot parse or verify the model", path.display()))?;
    // SAFETY: the module was just parsed and verified.
    let program = unsafe {
        Program::from_module(
            module.as_operation().to_raw(),
            arguments.function.as_deref(),
        )
    }
    .map_err(|error| error.to_string())?;
    let weights_path = arguments.weights.clone().or_else(|| {
        program
            .weights_file
            .as_ref()
            .map(|file| path.parent().unwrap_or(Path::new(".")).join(file))
    });
    let weights = match weights_path {
        Some(path) => Weights::load(&path).map_err(|error| error.to_string())?,
        None => Weights::empty(),
    };
    Ok((module, weights))
}

fn inputs(arguments: &Arguments, program: &Program) -> Result<Vec<Tensor>, String> {
    if arguments.inputs.is_empty() {
        let mut random = SplitMix(arguments.seed);
        return Ok(program
            .body
            .arguments
            .iter()
            .map(|(_, r#type)| random_input(&r#type.shape, r#type.element_type, &mut random))
            .collect());
    }
    arguments
        .inputs
        .iter()
        .map(|path| {
            let bytes =
                std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()))?;
            npy::parse(&bytes).map_err(|error| format!("{}: {error}", path.display()))
        })
        .collect()
}

/// Refuses, before anything is compiled, inputs that do not match the function's arguments in
/// count, shape or element type, and outputs that cannot be written.
fn check_interface(
    arguments: &Arguments,
    program: &Program,
    inputs: &[Tensor],
) -> Result<(), String> {
    let parameters = &program.body.arguments;
    if inputs.len() != parameters.len() {
        return Err(format!(
            "@{} takes {} inputs but {} were given",
            program.name,
            parameters.len(),
            inputs.len()
        ));
    }
    for (index, (input, (_, parameter))) in inputs.iter().zip(parameters).enumerate() {
        let what = arguments
            .inputs
            .get(index)
            .map(|path| path.display().to_string())
            .unwrap_or_else(|| format!("input #{index}"));
        if input.shape != parameter.shape || input.element_type != parameter.element_type {
            return Err(format!(
                "{what}: {:?} {:?}, but argument #{index} of @{} is {:?} {:?}",
                input.element_type,
                input.shape,
                program.name,
                parameter.element_type,
                parameter.shape
            ));
        }
    }
    let results = program
        .body
        .ops
        .last()
        .map_or(0, |terminator| terminator.operands.len());
    if !arguments.outputs.is_empty() && arguments.outputs.len() != results {
        return Err(format!(
            "@{} has {results} results but {} --output files were given",
            program.name,
            arguments.outputs.len()
        ));
    }
    for path in arguments
        .outputs
        .iter()
        .chain(&arguments.report_json)
        .chain(&arguments.trace)
    {
        let folder = path
            .parent()
            .filter(|folder| !folder.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(format!(
                "{}: the folder {} does not exist",
                path.display(),
                folder.display()
            ));
        }
        if path.is_dir() {
            return Err(format!("{}: is a folder, not a file", path.display()));
        }
        if std::fs::metadata(path).is_ok_and(|metadata| metadata.permissions().readonly()) {
            return Err(format!("{}: the file is read-only", path.display()));
        }
    }
    Ok(())
}

/// The largest `k` entries of each row, as "index (value)".
fn top_k(tensor: &Tensor, k: usize) -> Vec<String> {
    let (Some(values), [rows, columns]) = (tensor.as_f32(), tensor.shape.as_slice()) else {
        return Vec::new();
    };
    (0..*rows)
        .map(|row| {
            let slice = &values[row * columns..(row + 1) * columns];
            let mut order: Vec<usize> = (0..*columns).collect();
            order.sort_by(|&a, &b| slice[b].total_cmp(&slice[a]).then(a.cmp(&b)));
            let best: Vec<String> = order
                .iter()
                .take(k)
                .map(|&i| format!("{i} ({:.4})", slice[i]))
                .collect();
            format!("  #{row}: {}", best.join(", "))
        })
        .collect()
}

/// Largest error of `actual` against `expected` relative to the tolerance (<= 1 passes).
fn worst_error(
    actual: &Tensor,
    expected: &Tensor,
    rtol: f64,
    atol: f64,
) -> Result<(f64, f64), String> {
    let (Some(a), Some(b)) = (actual.as_f32(), expected.as_f32()) else {
        return Err("non-f32 outputs cannot be compared".into());
    };
    if a.len() != b.len() {
        return Err(format!("{} elements against {}", a.len(), b.len()));
    }
    let mut worst = (0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        // NaN where the interpreter has NaN, and the same infinity, agree (numpy's equal_nan):
        // ONNX defines both, for a mean or a maximum over nothing.
        if x == y || (x.is_nan() && y.is_nan()) {
            continue;
        }
        let error = (x as f64 - y as f64).abs();
        let ratio = if error.is_nan() || (x.is_nan() != y.is_nan()) {
            f64::INFINITY
        } else {
            error / (atol + rtol * (y as f64).abs())
        };
        if ratio > worst.0 || ratio.is_nan() {
            worst = (ratio, error);
        }
    }
    Ok(worst)
}

/// Compiles `module` with `schedule`, printing the time of each phase.
fn compile(
    context: &melior::Context,
    module: melior::ir::Module,
    entry: &str,
    arguments: &Arguments,
    schedule: &str,
) -> Result<driver::Compiled, String> {
    let options = CompileOptions {
        target: arguments.target.clone(),
        schedule: schedule.to_owned(),
        opt: [OptLevel::O0, OptLevel::O1, OptLevel::O2, OptLevel::O3][arguments.opt as usize],
    };
    progress(&format!(
        "compiling @{entry} for {} ({schedule})",
        arguments.target
    ));
    let compiled = driver::compile(context, module, Some(entry), &options);
    progress_done();
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

/// Prints two schedules' figures side by side; their outputs must agree.
fn compare(
    ours: &str,
    figures: &driver::Figures,
    results: &[Tensor],
    baseline: &str,
    theirs: &driver::Figures,
    baseline_results: &[Tensor],
) -> Result<(), String> {
    outln!("\nschedules side by side (same inputs, same target)");
    outln!(
        "  {:<22} {:>14} {:>9} {:>16} {:>16} {:>12}",
        "schedule",
        "cycles",
        "kernels",
        "DDR bytes",
        "GB<->LB bytes",
        "matrix util"
    );
    for (name, f) in [(baseline, theirs), (ours, figures)] {
        outln!(
            "  {:<22} {:>14} {:>9} {:>16} {:>16} {:>11.1}%",
            name,
            f.cycles,
            f.launches,
            f.ddr_bytes,
            f.gb_bytes,
            100.0 * f.matrix_utilisation
        );
    }
    let mut largest = 0f64;
    for (index, (a, b)) in results.iter().zip(baseline_results).enumerate() {
        let (Some(a), Some(b)) = (a.as_f32(), b.as_f32()) else {
            return Err(format!("result #{index} is not f32"));
        };
        largest = a
            .iter()
            .zip(b)
            .fold(largest, |m, (x, y)| m.max((x - y).abs() as f64));
    }
    outln!(
        "  speedup of {ours} over {baseline}: {:.2}x; DDR traffic {:.2}x less; \
         outputs differ by at most {largest:.3e}",
        theirs.cycles as f64 / figures.cycles.max(1) as f64,
        theirs.ddr_bytes as f64 / figures.ddr_bytes.max(1) as f64
    );
    Ok(())
}

fn run(arguments: &Arguments) -> Result<(), String> {
    let context = turbine_dialects::create_context();
    let (module, weights) = load(&context, arguments)?;
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
    let expected = if arguments.interpret || arguments.check {
        progress("interpreting");
        let interpreted = interpret(&program, inputs.clone(), &weights);
        progress_done();
        Some(interpreted.map_err(|error| error.to_string())?)
    } else {
        None
    };
    let results = if arguments.interpret {
        expected.clone().unwrap_or_default()
    } else {
        let compiled = compile(
            &context,
            module,
            &program.name,
            arguments,
            &arguments.schedule,
        )?;
        if arguments.compile_only {
            return Ok(());
        }
        let device = Device::new(&arguments.target)?;
        device.set_threads(arguments.threads)?;
        if arguments.trace.is_some() {
            device.enable_trace()?;
        }
        let start = Instant::now();
        progress("running on the software DSA");
        let results = driver::run(&compiled, &device, &inputs, &weights);
        progress_done();
        let results = results?;
        outln!(
            "ran on the software DSA in {:.3} s of host time",
            start.elapsed().as_secs_f64()
        );
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
            device.write_trace(path)?;
        }
        if let Some(baseline) = &arguments.baseline {
            let ours = driver::figures(&device.report(ReportFormat::Json)?)?;
            let (module, _) = load(&context, arguments)?;
            let compiled = compile(&context, module, &program.name, arguments, baseline)?;
            let other = Device::new(&arguments.target)?;
            other.set_threads(arguments.threads)?;
            progress(&format!(
                "running the {baseline} schedule on the software DSA"
            ));
            let theirs_results = driver::run(&compiled, &other, &inputs, &weights);
            progress_done();
            let theirs_results = theirs_results?;
            let theirs = driver::figures(&other.report(ReportFormat::Json)?)?;
            compare(
                &arguments.schedule,
                &ours,
                &results,
                baseline,
                &theirs,
                &theirs_results,
            )?;
        }
        results
    };
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
    if let (Some(expected), false) = (&expected, arguments.interpret) {
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
    }
    Ok(())
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    match run(&arguments) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("turbine-run: error: {message}");
            ExitCode::FAILURE
        }
    }
}
