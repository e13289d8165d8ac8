//! Compiling a graph-dialect model for a target and running it on the software DSA: the path
//! `turbine-run`, the benchmark and the end-to-end tests share.
//!
//! Compilation is the registered pipeline of the kernel schedule (`turbine-layerwise`: graph
//! simplification, `dsa-set-target`, `convert-graph-to-dsa`, canonicalisation) with verification
//! after each pass, then the backend (`turbine-codegen`: dsa to LLVM dialect, LLVM IR,
//! optimisation, JIT). Running allocates one DDR buffer per argument of
//! the host function, writes the inputs, weights and constants, calls the compiled entry, reads
//! the outputs back and collects the runtime's report.

use melior::{
    diagnostic::DiagnosticSeverity,
    ir::{
        attribute::{AttributeLike, StringAttribute},
        block::BlockLike,
        operation::{OperationLike, OperationMutLike},
        Module,
    },
    pass::PassManager,
    Context,
};
use mlir_sys::*;
use std::{
    cell::RefCell,
    ffi::CStr,
    rc::Rc,
    time::{Duration, Instant},
};
use turbine_codegen::{CompileTimes, Jit, OptLevel};
use turbine_interpreter::{Data, ElementType};

mod artifact;
mod device;
mod elements;
mod entry;
mod execution;
mod preparation;
mod tuning;

pub use artifact::{side_file, weights_file};
pub use device::{Device, ReportFormat, TraceFormat};
pub use execution::{figures, load, run, Figures, Loaded};
pub use preparation::Preparation;
pub use tuning::{tuned, Tuned};

/// The graph-level and lowering passes before the backend: the registered pipeline of the kernel
/// schedule, as `--pass-pipeline` text.
pub fn graph_to_dsa_pipeline(options: &CompileOptions) -> Result<String, String> {
    // A schedule may carry options of its pipeline: `graphturbo{scope=lb spill=largest}`.
    let (name, extra) = match options.schedule.split_once('{') {
        Some((name, rest)) => {
            let extra = rest
                .strip_suffix('}')
                .ok_or_else(|| format!("schedule '{}': options end with '}}'", options.schedule))?;
            (name, format!(" {extra}"))
        }
        None => (options.schedule.as_str(), String::new()),
    };
    let pipeline = turbine_passes::pipelines::for_schedule(name)?;
    Ok(format!(
        "builtin.module({}{{target={}{extra}}})",
        pipeline.argument, options.target
    ))
}

/// `schedule` with `setting` (option=value) added to its pipeline options.
pub fn with_option(schedule: &str, setting: &str) -> String {
    match schedule.strip_suffix('}') {
        Some(open) if open.contains('{') => format!("{open} {setting}}}"),
        _ => format!("{schedule}{{{setting}}}"),
    }
}

/// The steps of the kernel schedule's pipeline, each as its pass argument and pipeline text,
/// with the schedule's options and the target set: what [`graph_to_dsa_pipeline`] runs, so that
/// a tool can run a subset of them ([`pipeline_of_steps`]).
pub fn graph_to_dsa_steps(options: &CompileOptions) -> Result<Vec<(&'static str, String)>, String> {
    let (name, extra) = match options.schedule.split_once('{') {
        Some((name, rest)) => {
            let extra = rest
                .strip_suffix('}')
                .ok_or_else(|| format!("schedule '{}': options end with '}}'", options.schedule))?;
            (name, extra)
        }
        None => (options.schedule.as_str(), ""),
    };
    let mut values = vec![("target".to_owned(), options.target.clone())];
    for setting in extra.split_whitespace() {
        let (option, value) = setting.split_once('=').ok_or_else(|| {
            format!(
                "schedule '{}': '{setting}' is not option=value",
                options.schedule
            )
        })?;
        values.push((option.to_owned(), value.to_owned()));
    }
    turbine_passes::pipelines::for_schedule(name)?.step_texts(&values)
}

/// Pipeline text running `steps` (of [`graph_to_dsa_steps`]) in order on the module.
pub fn pipeline_of_steps<'a>(
    steps: impl IntoIterator<Item = &'a (&'static str, String)>,
) -> String {
    let texts: Vec<&str> = steps.into_iter().map(|(_, text)| text.as_str()).collect();
    format!("builtin.module({})", texts.join(","))
}

/// How to compile.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    /// Built-in target name or target file.
    pub target: String,
    /// Kernel schedule: which pipeline takes the graph to `dsa` (`layerwise`, `graphturbo`),
    /// with options of that pipeline in braces (`graphturbo{scope=lb}`).
    pub schedule: String,
    /// LLVM optimisation level.
    pub opt: OptLevel,
}

impl Default for CompileOptions {
    fn default() -> Self {
        // O0: optimising the host code, which only records instructions, does not pay for itself
        // (see turbine-run's `--opt`).
        Self {
            target: "stcp920".into(),
            schedule: "layerwise".into(),
            opt: OptLevel::O0,
        }
    }
}

/// What one buffer of the host function holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Role {
    /// Input `i` of the model.
    Input(usize),
    /// Result `i` of the model.
    Output(usize),
    /// The weight of that name in the side file.
    Weight(String),
    /// An inline constant.
    Constant(Data),
}

/// One DDR buffer argument of the host function.
#[derive(Debug, Clone)]
pub struct Buffer {
    /// What it holds.
    pub role: Role,
    /// Its shape.
    pub shape: Vec<usize>,
    /// The type of its elements.
    pub element: ElementType,
}

/// A compiled model ready to run.
pub struct Compiled {
    /// The host function's name (the graph function's).
    pub entry: String,
    /// Its buffers, in argument order.
    pub buffers: Vec<Buffer>,
    /// Output shapes as the graph function declares them (rank 0 included).
    pub output_shapes: Vec<Vec<usize>>,
    /// Kernels launched by one run.
    pub kernel_count: usize,
    /// Wall time of the MLIR passes down to `dsa`.
    pub graph_passes: Duration,
    /// How the layers' tilings were chosen, for the tuner.
    pub tuned: Tuned,
    /// The host function computing the weights the model computes from its weights alone,
    /// run when it is loaded.
    pub preparation: Option<Preparation>,
    jit: Jit,
}

impl Compiled {
    /// Wall time of each backend phase.
    pub fn backend_times(&self) -> CompileTimes {
        self.jit.times()
    }
}

/// Runs `pipeline` on `module`, collecting diagnostics into the error; on success the warnings
/// (what a pass ignored and went on without) go to standard error.
pub fn run_pipeline(context: &Context, module: &mut Module, pipeline: &str) -> Result<(), String> {
    turbine_passes::register_all_passes();
    static UPSTREAM: std::sync::Once = std::sync::Once::new();
    UPSTREAM.call_once(melior::utility::register_all_passes);
    let diagnostics = Rc::new(RefCell::new(Vec::<(bool, String)>::new()));
    let sink = diagnostics.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let location = crate::diagnostics::describe(diagnostic.location());
        let warning = matches!(diagnostic.severity(), DiagnosticSeverity::Warning);
        sink.borrow_mut()
            .push((warning, format!("{location}: {diagnostic}")));
        true
    });
    let manager = PassManager::new(context);
    manager.enable_verifier(true);
    let outcome =
        melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
            .map_err(|error| format!("the pipeline does not parse: {error}"))
            .and_then(|()| manager.run(module).map_err(|error| error.to_string()));
    context.detach_diagnostic_handler(handler);
    let diagnostics = diagnostics.borrow();
    match outcome {
        Ok(()) => {
            for (_, warning) in diagnostics.iter().filter(|(warning, _)| *warning) {
                eprintln!("warning: {warning}");
            }
            Ok(())
        }
        Err(error) if diagnostics.is_empty() => Err(error),
        Err(_) => {
            let messages: Vec<&str> = diagnostics.iter().map(|(_, m)| m.as_str()).collect();
            Err(messages.join("\n"))
        }
    }
}

/// The `sym_name` of a symbol op, None for an op that has none.
fn symbol_name<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> Option<String> {
    let name = op.attribute("sym_name").ok()?;
    Some(StringAttribute::try_from(name).ok()?.value().to_owned())
}

fn string(reference: MlirStringRef) -> String {
    // SAFETY: MLIR string refs point at `length` valid bytes.
    String::from_utf8_lossy(unsafe {
        std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length)
    })
    .into_owned()
}

/// The output shapes of the graph function `name` (before lowering).
fn graph_output_shapes(module: &Module, name: &str) -> Vec<Vec<usize>> {
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        if symbol_name(&function).as_deref() == Some(name) {
            if let Ok(r#type) = function.attribute("function_type") {
                // SAFETY: function_type is a TypeAttr of a FunctionType.
                unsafe {
                    let function_type = mlirTypeAttrGetValue(r#type.to_raw());
                    return (0..mlirFunctionTypeGetNumResults(function_type))
                        .map(|i| {
                            let result = mlirFunctionTypeGetResult(function_type, i);
                            (0..mlirShapedTypeGetRank(result))
                                .map(|d| mlirShapedTypeGetDimSize(result, d as isize) as usize)
                                .collect()
                        })
                        .collect();
                }
            }
        }
        op = function.next_in_block();
    }
    Vec::new()
}

/// The host functions of a module in the dsa dialect and their buffers.
fn host_functions(module: &Module) -> Vec<(String, Vec<Buffer>, usize)> {
    let mut functions = Vec::new();
    let mut kernels = 0;
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        let name = function
            .name()
            .as_string_ref()
            .as_str()
            .unwrap_or("")
            .to_owned();
        if name == "dsa.kernel" {
            kernels += 1;
        }
        if name == "func.func" {
            let symbol = symbol_name(&function).unwrap_or_default();
            let mut buffers = Vec::new();
            // SAFETY: reading the function's argument types and attributes.
            unsafe {
                let raw = function.to_raw();
                let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(raw, 0));
                let arg_attrs = mlirOperationGetAttributeByName(
                    raw,
                    mlirStringRefCreateFromCString(c"arg_attrs".as_ptr()),
                );
                for index in 0..mlirBlockGetNumArguments(block) {
                    let r#type = mlirValueGetType(mlirBlockGetArgument(block, index));
                    let shape = (0..mlirShapedTypeGetRank(r#type))
                        .map(|d| mlirShapedTypeGetDimSize(r#type, d as isize) as usize)
                        .collect();
                    let element = element_type(mlirShapedTypeGetElementType(r#type));
                    let attributes = mlirArrayAttrGetElement(arg_attrs, index);
                    let get = |key: &CStr| {
                        mlirDictionaryAttrGetElementByName(
                            attributes,
                            mlirStringRefCreateFromCString(key.as_ptr()),
                        )
                    };
                    let input = get(c"dsa.input");
                    let output = get(c"dsa.output");
                    let weight = get(c"dsa.weight");
                    let constant = get(c"dsa.constant");
                    let role = if !input.ptr.is_null() {
                        Role::Input(mlirIntegerAttrGetValueInt(input) as usize)
                    } else if !output.ptr.is_null() {
                        Role::Output(mlirIntegerAttrGetValueInt(output) as usize)
                    } else if !weight.ptr.is_null() {
                        Role::Weight(string(mlirStringAttrGetValue(weight)))
                    } else if !constant.ptr.is_null() {
                        Role::Constant(constant_values(constant, element))
                    } else {
                        continue;
                    };
                    buffers.push(Buffer {
                        role,
                        shape,
                        element,
                    });
                }
            }
            functions.push((symbol, buffers, 0));
        }
        op = function.next_in_block();
    }
    for function in &mut functions {
        function.2 = kernels;
    }
    functions
}

/// Compiles the graph-dialect `module` (its function `function`, or its only one).
pub fn compile(
    context: &Context,
    module: Module,
    function: Option<&str>,
    options: &CompileOptions,
) -> Result<Compiled, String> {
    let pipeline = graph_to_dsa_pipeline(options)?;
    compile_with_pipeline(context, module, function, &pipeline, options.opt)
}

/// [`compile`] with `pipeline` (pipeline text) taking the graph to `dsa` instead of the
/// schedule's registered pipeline: a subset of its steps ([`graph_to_dsa_steps`]).
pub fn compile_with_pipeline(
    context: &Context,
    mut module: Module,
    function: Option<&str>,
    pipeline: &str,
    opt: OptLevel,
) -> Result<Compiled, String> {
    let start = Instant::now();
    let entry = entry::keep_entry(&module, function)?;
    let output_shapes = graph_output_shapes(&module, &entry);
    run_pipeline(context, &mut module, pipeline)?;
    let graph_passes = start.elapsed();
    let functions = host_functions(&module);
    let (_, buffers, kernels) = functions
        .iter()
        .find(|(name, _, _)| *name == entry)
        .cloned()
        .ok_or("the lowering made no host function")?;
    let preparation = preparation::find(&functions, &buffers);
    // The preparation's kernels run once, when the model is loaded.
    let kernel_count = kernels
        - preparation.as_ref().map_or(0, |preparation| {
            preparation::kernels_launched_by(&module, &preparation.function)
        });
    let tuned = tuned(&module);
    let jit = Jit::new(&mut module, opt)?;
    Ok(Compiled {
        entry,
        buffers,
        output_shapes,
        kernel_count,
        graph_passes,
        tuned,
        preparation,
        jit,
    })
}

/// Compiles the graph-dialect `module` ahead of time: the same passes as [`compile`], then an
/// object file for the host with a C header (and, if asked, the optimised LLVM IR), its loader
/// functions prefixed by `name` (`model_create`, ...). The object calls the runtime's C ABI;
/// link it with `libturbine_runtime.a`. [`weights_file`] gives the weights its loader reads.
pub fn compile_to_object(
    context: &Context,
    mut module: Module,
    options: &CompileOptions,
    emit_llvm_ir: bool,
    name: &str,
) -> Result<turbine_codegen::ObjectCode, String> {
    // The object's loader writes the weights it reads from its weights file: nothing runs at
    // load time to compute weights from weights, so every inference computes them.
    let options = CompileOptions {
        schedule: with_option(&options.schedule, "prepare-weights=false"),
        ..options.clone()
    };
    let pipeline = graph_to_dsa_pipeline(&options)?;
    run_pipeline(context, &mut module, &pipeline)?;
    // A graph function is usually called `main`, which a C program that links the object
    // defines itself: export the public host functions as `turbine_<name>`. Nothing in the
    // module refers to them (they are only called from outside); the private ones that branches,
    // loops and calls use keep their names.
    let mut op = module.body().first_operation_mut();
    while let Some(mut function) = op {
        let private = function
            .attribute("sym_visibility")
            .ok()
            .and_then(|value| StringAttribute::try_from(value).ok())
            .is_some_and(|value| value.value() == "private");
        if function.name().as_string_ref().as_str() == Ok("func.func") && !private {
            if let Some(name) = symbol_name(&function) {
                function.set_attribute(
                    "sym_name",
                    StringAttribute::new(context, &format!("turbine_{name}")).into(),
                );
            }
        }
        op = function.next_in_block_mut();
    }
    turbine_codegen::compile_object(&mut module, options.opt, emit_llvm_ir, name)
}

/// The element type of a host buffer's memref, as the interpreter names it: f32, f16, bf16,
/// i64, i32, i8 (signless), ui8 or i1.
///
/// # Safety
/// `element` is a live type.
unsafe fn element_type(element: MlirType) -> ElementType {
    // SAFETY: the caller's guarantee.
    unsafe {
        if mlirTypeIsAF16(element) {
            return ElementType::F16;
        }
        if mlirTypeIsABF16(element) {
            return ElementType::Bf16;
        }
        if !mlirTypeIsAInteger(element) {
            return ElementType::F32;
        }
        match mlirIntegerTypeGetWidth(element) {
            64 => ElementType::I64,
            32 => ElementType::I32,
            8 if mlirIntegerTypeIsUnsigned(element) => ElementType::U8,
            8 => ElementType::I8,
            1 => ElementType::Bool,
            width => unreachable!("the lowering makes no i{width} buffers"),
        }
    }
}

/// The values of the dense constant `constant` of `element`s.
///
/// # Safety
/// `constant` is a live dense elements attribute of that element type.
unsafe fn constant_values(constant: MlirAttribute, element: ElementType) -> Data {
    // SAFETY: the caller's guarantee.
    unsafe {
        let count = mlirElementsAttrGetNumElements(constant) as usize;
        turbine_interpreter::program::dense_data(constant, element, count)
    }
}
