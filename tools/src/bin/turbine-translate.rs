//! `turbine-translate`: translations between other formats and Turbine's dialects:
//! `--import-onnx`, which imports an ONNX model into the graph dialect, and `--compile`, which
//! compiles a graph-dialect model ahead of time into an object file with its loader, a C header
//! and the weights the loader reads (and, with `--emit-llvm`, the optimised LLVM IR) for a
//! target. `--list-rules` lists (and with
//! `--verify-rules` checks) the substitution rules of `graph-substitute`.
//!
//! The importer (crate `turbine-onnx`) writes MLIR text without linking MLIR; this tool parses that
//! text with the Turbine dialects loaded and runs the verifiers, so that a wrong result type or
//! attribute is reported at the ONNX node that produced it rather than written out. Only a verified
//! module is written, with its weights file beside it.

use std::cell::RefCell;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::rc::Rc;

use clap::{ArgGroup, Parser};
use melior::ir::operation::{OperationLike, OperationPrintingFlags};
use turbine_dialects::ParseError;
use turbine_onnx::{import, ImportOptions, ImportedModel};
use turbine_tools::input::{read_model_as, ModelFormat};

#[derive(Parser, Debug)]
#[command(
    name = "turbine-translate",
    about = "Translate models into Turbine's dialects",
    group(
        ArgGroup::new("translation")
            .required(true)
            .args(["import_onnx", "compile", "list_rules"])
    )
)]
struct Arguments {
    /// Import an ONNX model (ai.onnx opsets 13 to 22) into the graph dialect.
    #[arg(long)]
    import_onnx: bool,
    /// Compile a graph-dialect model (.mlir) for `--target` into an object file (`-o`, required),
    /// a C header beside it (same name, `.h`) and the weights its loader reads (`--weights`);
    /// the object calls the software DSA's C ABI and carries a loader: `model_create`,
    /// `model_run`, `model_destroy`, `model_error_message`.
    #[arg(long)]
    compile: bool,
    /// With --compile, the prefix of the loader functions (`NAME_create`, ...).
    #[arg(long, default_value = "model", value_parser = c_identifier)]
    name: String,
    /// List graph-substitute's rules (the built-in ones, then those of --rules): name, where the
    /// rule is written, what it does.
    #[arg(long)]
    list_rules: bool,
    /// With --list-rules, also the rules of this file; repeatable.
    #[arg(long = "rules", value_name = "FILE")]
    rule_files: Vec<PathBuf>,
    /// With --list-rules, leave out the built-in rules.
    #[arg(long)]
    no_builtin_rules: bool,
    /// With --list-rules, check each rule through the reference interpreter at its example shapes
    /// and at N random ones; exit non-zero if one is unsound.
    #[arg(long, value_name = "N")]
    verify_rules: Option<usize>,
    /// Target of --compile: a built-in name or a target description file.
    #[arg(long, default_value = "stcp920")]
    target: String,
    /// With --compile, also write the optimised LLVM IR to this file.
    #[arg(long, value_name = "FILE")]
    emit_llvm: Option<PathBuf>,
    /// The model to translate (not with --list-rules).
    #[arg(required_unless_present = "list_rules")]
    input: Option<PathBuf>,
    /// Where to write the MLIR; `-` (the default) is standard output.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    /// Where to write the weights (safetensors); by default beside the output, with its name and
    /// the extension `.safetensors`. With --compile, written only for a model with weights.
    #[arg(long, value_name = "FILE")]
    weights: Option<PathBuf>,
    /// The static shape of a graph input whose declared shape is symbolic, unknown or to be
    /// changed, as NAME=D0xD1x...; repeatable.
    #[arg(
        long = "input-shape",
        value_name = "NAME=DIMS",
        value_parser = turbine_tools::parse_input_shape
    )]
    input_shapes: Vec<(String, Vec<usize>)>,
    /// Print each operation's location: the ONNX node it comes from.
    #[arg(long = "mlir-print-debuginfo")]
    print_debuginfo: bool,
}

fn main() -> ExitCode {
    let arguments = Arguments::parse();
    turbine_tools::cli::main("turbine-translate", move || run(&arguments))
}

fn run(arguments: &Arguments) -> Result<(), String> {
    if arguments.list_rules {
        return list_rules(arguments);
    }
    let input = arguments
        .input
        .as_deref()
        .expect("clap requires an input without --list-rules");
    if arguments.compile {
        return compile(arguments, input);
    }
    let bytes = read_model_as(
        input,
        ModelFormat::Onnx,
        "it is compiled by `--compile` or run by `turbine-run`",
    )?;
    let to_stdout = arguments.output == Path::new("-");
    let weights_path = arguments
        .weights
        .clone()
        .or_else(|| (!to_stdout).then(|| arguments.output.with_extension("safetensors")));
    let options = ImportOptions {
        input_shapes: arguments.input_shapes.clone(),
        weights_file: weights_path
            .as_deref()
            .map(|path| recorded_path(path, &arguments.output))
            .unwrap_or_default(),
        external_data_folder: Some(turbine_tools::input::model_folder(input)),
    };
    let model = import(&bytes, &options).map_err(|error| error.to_string())?;
    let weights_path = match weights_path {
        Some(path) => path,
        None if model.weights.is_empty() => PathBuf::new(),
        None => {
            return Err(format!(
                "the model has {} weights: name their file with --weights FILE, \
                 or write the MLIR with -o FILE",
                model.weights.len()
            ))
        }
    };
    let text = verified(&model, arguments.print_debuginfo)?;
    if to_stdout {
        std::io::stdout()
            .write_all(text.as_bytes())
            .map_err(|error| format!("cannot write the output: {error}"))?;
    } else {
        std::fs::write(&arguments.output, text)
            .map_err(|error| format!("cannot write {}: {error}", arguments.output.display()))?;
    }
    if !model.weights.is_empty() {
        model
            .weights
            .write(&weights_path)
            .map_err(|error| error.to_string())?;
    }
    Ok(())
}

/// `--compile`: graph-dialect model to object file, C header and optionally LLVM IR.
/// `--list-rules`: the rules, one per line, checked with `--verify-rules`.
fn list_rules(arguments: &Arguments) -> Result<(), String> {
    let files: Vec<&Path> = arguments.rule_files.iter().map(PathBuf::as_path).collect();
    let listing = turbine_tools::rule_check::list_rules(
        !arguments.no_builtin_rules,
        &files,
        arguments.verify_rules,
    )?;
    print!("{listing}");
    Ok(())
}

fn compile(arguments: &Arguments, input: &Path) -> Result<(), String> {
    if arguments.output == Path::new("-") {
        return Err("--compile writes an object file: name it with -o FILE.o".into());
    }
    let text = read_model_as(
        input,
        ModelFormat::MlirText,
        "import it with `--import-onnx` first, or run it with `turbine-run`",
    )?;
    let context = turbine_dialects::create_context();
    let name = input.display().to_string();
    let module =
        turbine_dialects::parse_source(&context, &text, &name).map_err(|error| match error {
            ParseError::Refused(error) => format!("{name}:{error}"),
            ParseError::Invalid => format!("{name}: cannot parse or verify the model"),
        })?;
    let (weights, origin) = match turbine_tools::driver::side_file(&module, input) {
        Some(path) => (
            turbine_tools::input::read_weights(&path)?,
            path.display().to_string(),
        ),
        None => (
            turbine_interpreter::Weights::empty(),
            "the weights: the module names no weights file (graph.weights)".to_owned(),
        ),
    };
    let options = turbine_tools::driver::CompileOptions {
        target: arguments.target.clone(),
        ..Default::default()
    };
    let progress = turbine_tools::progress::Progress::start(format!(
        "compiling {name} for {}",
        arguments.target
    ));
    let code = turbine_tools::driver::compile_to_object(
        &context,
        module,
        &options,
        arguments.emit_llvm.is_some(),
        &arguments.name,
    );
    drop(progress);
    let code = code?;
    let weights = turbine_tools::driver::weights_file(&code, &weights, &origin)?;
    let write = |path: &Path, bytes: &[u8]| {
        std::fs::write(path, bytes)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))
    };
    write(&arguments.output, &code.object)?;
    write(
        &arguments.output.with_extension("h"),
        code.header.as_bytes(),
    )?;
    if let Some(weights) = weights {
        let path = arguments
            .weights
            .clone()
            .unwrap_or_else(|| arguments.output.with_extension("safetensors"));
        write(&path, &weights)?;
    }
    if let (Some(path), Some(text)) = (&arguments.emit_llvm, &code.llvm_ir) {
        write(path, text.as_bytes())?;
    }
    Ok(())
}

/// A C identifier (the loader functions' prefix).
fn c_identifier(text: &str) -> Result<String, String> {
    let mut characters = text.chars();
    let starts = characters
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_');
    if starts && characters.all(|c| c.is_ascii_alphanumeric() || c == '_') {
        Ok(text.to_owned())
    } else {
        Err(format!("'{text}' is not a C identifier"))
    }
}

/// The path that `graph.weights` records for the weights file `weights`: its file name when it
/// sits beside the output (the usual case, which keeps the pair movable), otherwise its absolute
/// path. Readers resolve a relative name against the folder of the `.mlir` file.
fn recorded_path(weights: &Path, output: &Path) -> String {
    let folder = |path: &Path| {
        path.parent()
            .filter(|parent| !parent.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_owned()
    };
    let beside = output != Path::new("-") && folder(weights) == folder(output);
    match (beside, weights.file_name()) {
        (true, Some(name)) => name.to_string_lossy().into_owned(),
        _ => std::path::absolute(weights)
            .unwrap_or_else(|_| weights.to_owned())
            .to_string_lossy()
            .into_owned(),
    }
}

/// Builds and verifies the imported module, returning it in MLIR's custom form.
fn verified(model: &ImportedModel, print_debuginfo: bool) -> Result<String, String> {
    let context = turbine_dialects::create_context();
    let diagnostics = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&diagnostics);
    context.attach_diagnostic_handler(move |diagnostic| {
        let location = turbine_tools::diagnostics::describe(diagnostic.location());
        let mut message = format!("at {location}: {diagnostic}");
        for index in 0..diagnostic.note_count() {
            if let Ok(note) = diagnostic.note(index) {
                message.push_str(&format!("\n  note: {note}"));
            }
        }
        sink.borrow_mut().push(message);
        true
    });
    let report = |what: &str| {
        format!(
            "{what} (an importer bug):\n{}",
            diagnostics.borrow().join("\n")
        )
    };
    let module = turbine_tools::graph_module::build(&context, &model.module)
        .map_err(|error| report(&format!("the imported IR is invalid: {error}")))?;
    let text = if print_debuginfo {
        let flags = OperationPrintingFlags::new()
            .enable_debug_info(true, false)
            .use_local_scope();
        module
            .as_operation()
            .to_string_with_flags(flags)
            .map_err(|error| format!("cannot print the module: {error}"))?
    } else {
        module.as_operation().to_string()
    };
    Ok(text + "\n")
}
