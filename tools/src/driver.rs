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
    ffi::{CStr, CString},
    path::Path,
    rc::Rc,
    time::{Duration, Instant},
};
use turbine_codegen::{CompileTimes, Jit, OptLevel};
use turbine_interpreter::{Data, ElementType, Tensor, Weights};
use turbine_runtime::ffi;

/// Codes of runtime/include/turbine_dsa.h.
const LEVEL_DDR: u32 = 2;
const DTYPE_F32: u32 = 0;
const REPORT_JSON: u32 = 0;
const REPORT_TEXT: u32 = 1;
const REPORT_TEXT_DETAIL: u32 = 2;

/// A form of the runtime's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Everything, as JSON.
    Json,
    /// The text summary: totals, the longest launches, bytes per path, utilisation per kind.
    Summary,
    /// The summary and every unit, DMA channel and port that ran something.
    Detail,
}

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
    Constant(Vec<f32>),
}

/// One DDR buffer argument of the host function.
#[derive(Debug, Clone)]
pub struct Buffer {
    /// What it holds.
    pub role: Role,
    /// Its shape.
    pub shape: Vec<usize>,
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
    jit: Jit,
}

impl Compiled {
    /// Wall time of each backend phase.
    pub fn backend_times(&self) -> CompileTimes {
        self.jit.times()
    }
}

/// Runs `pipeline` on `module`, collecting diagnostics into the error.
pub fn run_pipeline(context: &Context, module: &mut Module, pipeline: &str) -> Result<(), String> {
    turbine_passes::register_all_passes();
    static UPSTREAM: std::sync::Once = std::sync::Once::new();
    UPSTREAM.call_once(melior::utility::register_all_passes);
    let diagnostics = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        let location = crate::diagnostics::describe(diagnostic.location());
        sink.borrow_mut().push(format!("{location}: {diagnostic}"));
        true
    });
    let manager = PassManager::new(context);
    manager.enable_verifier(true);
    let outcome =
        melior::utility::parse_pass_pipeline(manager.as_operation_pass_manager(), pipeline)
            .map_err(|error| format!("the pipeline does not parse: {error}"))
            .and_then(|()| manager.run(module).map_err(|error| error.to_string()));
    context.detach_diagnostic_handler(handler);
    outcome.map_err(|error| {
        let diagnostics = diagnostics.borrow();
        if diagnostics.is_empty() {
            error
        } else {
            diagnostics.join("\n")
        }
    })
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
                        let count = mlirElementsAttrGetNumElements(constant);
                        Role::Constant(
                            (0..count)
                                .map(|i| mlirDenseElementsAttrGetFloatValue(constant, i as isize))
                                .collect(),
                        )
                    } else {
                        continue;
                    };
                    buffers.push(Buffer { role, shape });
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
    mut module: Module,
    function: Option<&str>,
    options: &CompileOptions,
) -> Result<Compiled, String> {
    let start = Instant::now();
    let pipeline = graph_to_dsa_pipeline(options)?;
    let names: Vec<String> = {
        let mut names = Vec::new();
        let mut op = module.body().first_operation();
        while let Some(function) = op {
            names.extend(symbol_name(&function));
            op = function.next_in_block();
        }
        names
    };
    let entry = match function {
        Some(name) => name.to_owned(),
        None if names.len() == 1 => names[0].clone(),
        None if names.iter().any(|name| name == "main") => "main".into(),
        None => {
            return Err(format!(
                "the module has functions {names:?}; name the one to run"
            ))
        }
    };
    if !names.contains(&entry) {
        return Err(format!(
            "no function @{entry} in the module (it has {names:?})"
        ));
    }
    // Only the entry runs, so only it is compiled: another function's unsupported op or a
    // long lowering must not fail or slow the run (graph functions call none).
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        op = function.next_in_block();
        if symbol_name(&function).is_some_and(|name| name != entry) {
            // SAFETY: the function is alive and nothing refers to it; erasing it ends its handle.
            unsafe { mlirOperationDestroy(function.to_raw()) };
        }
    }
    let output_shapes = graph_output_shapes(&module, &entry);
    run_pipeline(context, &mut module, &pipeline)?;
    let graph_passes = start.elapsed();
    let (_, buffers, kernel_count) = host_functions(&module)
        .into_iter()
        .find(|(name, _, _)| *name == entry)
        .ok_or("the lowering made no host function")?;
    let jit = Jit::new(&mut module, options.opt)?;
    Ok(Compiled {
        entry,
        buffers,
        output_shapes,
        kernel_count,
        graph_passes,
        jit,
    })
}

/// Compiles the graph-dialect `module` ahead of time: the same passes as [`compile`], then an
/// object file for the host with a C header (and, if asked, the optimised LLVM IR). The object
/// calls the runtime's C ABI; link it with `libturbine_runtime.a`.
pub fn compile_to_object(
    context: &Context,
    mut module: Module,
    options: &CompileOptions,
    emit_llvm_ir: bool,
) -> Result<turbine_codegen::ObjectCode, String> {
    let pipeline = graph_to_dsa_pipeline(options)?;
    run_pipeline(context, &mut module, &pipeline)?;
    // A graph function is usually called `main`, which a C program that links the object
    // defines itself: export the host functions as `turbine_<name>`. Nothing in the module
    // refers to a host function (they are only called from outside), so renaming is safe.
    let mut op = module.body().first_operation_mut();
    while let Some(mut function) = op {
        if function.name().as_string_ref().as_str() == Ok("func.func") {
            if let Some(name) = symbol_name(&function) {
                function.set_attribute(
                    "sym_name",
                    StringAttribute::new(context, &format!("turbine_{name}")).into(),
                );
            }
        }
        op = function.next_in_block_mut();
    }
    turbine_codegen::compile_object(&mut module, options.opt, emit_llvm_ir)
}

/// A device of the software DSA, through the C ABI the generated code calls.
pub struct Device(u64);

fn last_error() -> String {
    // SAFETY: td_last_error returns a NUL-terminated string owned by the runtime.
    unsafe { CStr::from_ptr(ffi::td_last_error()) }
        .to_string_lossy()
        .into_owned()
}

fn check(status: i32, what: &str) -> Result<(), String> {
    if status == ffi::TD_OK {
        Ok(())
    } else {
        Err(format!("{what}: {}", last_error()))
    }
}

impl Device {
    /// Creates a device of `target` (built-in name or file).
    pub fn new(target: &str) -> Result<Self, String> {
        let name = CString::new(target).map_err(|_| "target name contains NUL")?;
        let mut handle = 0;
        // SAFETY: valid pointers.
        check(
            unsafe { ffi::td_device_create(name.as_ptr(), &mut handle) },
            "cannot create the device",
        )?;
        Ok(Self(handle))
    }

    /// The handle the generated code takes.
    pub fn handle(&self) -> u64 {
        self.0
    }

    /// Host threads of the runtime (0: all).
    pub fn set_threads(&self, threads: u32) -> Result<(), String> {
        check(
            ffi::td_device_set_threads(self.0, threads),
            "cannot set the thread count",
        )
    }

    fn alloc(&self, elements: usize) -> Result<u64, String> {
        let mut buffer = 0;
        // SAFETY: valid out pointer.
        check(
            unsafe {
                ffi::td_buffer_alloc(
                    self.0,
                    LEVEL_DDR,
                    0,
                    0,
                    (elements.max(1) * 4) as u64,
                    DTYPE_F32,
                    &mut buffer,
                )
            },
            "cannot allocate a DDR buffer",
        )?;
        Ok(buffer)
    }

    fn write(&self, buffer: u64, values: &[f32]) -> Result<(), String> {
        // SAFETY: the slice is valid for its length in bytes.
        check(
            unsafe {
                ffi::td_buffer_write(
                    self.0,
                    buffer,
                    0,
                    values.as_ptr().cast(),
                    (values.len() * 4) as u64,
                )
            },
            "cannot write a buffer",
        )
    }

    fn read(&self, buffer: u64, elements: usize) -> Result<Vec<f32>, String> {
        let mut values = vec![0f32; elements];
        // SAFETY: the vector is valid for its length in bytes.
        check(
            unsafe {
                ffi::td_buffer_read(
                    self.0,
                    buffer,
                    0,
                    values.as_mut_ptr().cast(),
                    (elements * 4) as u64,
                )
            },
            "cannot read a buffer",
        )?;
        Ok(values)
    }

    fn free(&self, buffer: u64) {
        // A failure only means that the buffer is already gone.
        ffi::td_buffer_free(self.0, buffer);
    }

    /// The report since the last reset.
    pub fn report(&self, format: ReportFormat) -> Result<String, String> {
        let format = match format {
            ReportFormat::Json => REPORT_JSON,
            ReportFormat::Summary => REPORT_TEXT,
            ReportFormat::Detail => REPORT_TEXT_DETAIL,
        };
        let mut length = 0;
        // SAFETY: NULL buffer asks for the length only.
        check(
            unsafe { ffi::td_report(self.0, format, std::ptr::null_mut(), 0, &mut length) },
            "cannot make the report",
        )?;
        let mut bytes = vec![0u8; length as usize + 1];
        // SAFETY: the buffer has length + 1 bytes.
        check(
            unsafe {
                ffi::td_report(
                    self.0,
                    format,
                    bytes.as_mut_ptr().cast(),
                    bytes.len() as u64,
                    &mut length,
                )
            },
            "cannot make the report",
        )?;
        bytes.truncate(length as usize);
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Restarts the report's counters.
    pub fn reset_report(&self) -> Result<(), String> {
        check(ffi::td_report_reset(self.0), "cannot reset the report")
    }

    /// Records a trace from now on.
    pub fn enable_trace(&self) -> Result<(), String> {
        check(ffi::td_trace_enable(self.0, 1), "cannot enable tracing")
    }

    /// Writes the trace recorded so far.
    pub fn write_trace(&self, path: &Path) -> Result<(), String> {
        let path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| "trace path contains NUL")?;
        // SAFETY: valid C string.
        check(
            unsafe { ffi::td_trace_write(self.0, path.as_ptr()) },
            "cannot write the trace",
        )
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        ffi::td_device_destroy(self.0);
    }
}

fn f32_values<'t>(tensor: &'t Tensor, what: &str) -> Result<&'t [f32], String> {
    tensor.as_f32().ok_or_else(|| {
        format!(
            "{what} is {:?}; the software DSA computes in f32",
            tensor.element_type
        )
    })
}

/// Runs `compiled` on `device` with `inputs` and `weights`; returns the outputs.
pub fn run(
    compiled: &Compiled,
    device: &Device,
    inputs: &[Tensor],
    weights: &Weights,
) -> Result<Vec<Tensor>, String> {
    let input_count = compiled
        .buffers
        .iter()
        .filter(|buffer| matches!(buffer.role, Role::Input(_)))
        .count();
    if inputs.len() != input_count {
        return Err(format!(
            "@{} takes {input_count} inputs but {} were given",
            compiled.entry,
            inputs.len()
        ));
    }
    let mut handles = Vec::new();
    let result = (|| {
        for buffer in &compiled.buffers {
            let elements: usize = buffer.shape.iter().product();
            let handle = device.alloc(elements)?;
            handles.push(handle);
            match &buffer.role {
                Role::Input(index) => {
                    let input = &inputs[*index];
                    // A rank-0 input is stored as one element.
                    if input.shape != buffer.shape
                        && !(input.shape.is_empty() && buffer.shape == [1])
                    {
                        return Err(format!(
                            "input #{index} has shape {:?}, @{} expects {:?}",
                            input.shape, compiled.entry, buffer.shape
                        ));
                    }
                    device.write(handle, f32_values(input, &format!("input #{index}"))?)?;
                }
                Role::Weight(name) => {
                    let weight = weights
                        .get(name)
                        .ok_or_else(|| format!("weight '{name}' is not in the weights file"))?;
                    if weight.shape.iter().product::<usize>() != elements {
                        return Err(format!(
                            "weight '{name}' has shape {:?}, the model expects {:?}",
                            weight.shape, buffer.shape
                        ));
                    }
                    device.write(handle, f32_values(weight, &format!("weight '{name}'"))?)?;
                }
                Role::Constant(values) => device.write(handle, values)?,
                Role::Output(_) => {}
            }
        }
        compiled
            .jit
            .run(&compiled.entry, device.handle(), &handles)?;
        let mut outputs = Vec::new();
        for (buffer, &handle) in compiled.buffers.iter().zip(&handles) {
            if let Role::Output(index) = buffer.role {
                let values = device.read(handle, buffer.shape.iter().product())?;
                let shape = compiled
                    .output_shapes
                    .get(index)
                    .cloned()
                    .unwrap_or_else(|| buffer.shape.clone());
                outputs.push((
                    index,
                    Tensor {
                        shape,
                        element_type: ElementType::F32,
                        data: Data::F32(values),
                    },
                ));
            }
        }
        outputs.sort_by_key(|(index, _)| *index);
        Ok(outputs.into_iter().map(|(_, tensor)| tensor).collect())
    })();
    for handle in handles {
        device.free(handle);
    }
    result
}

/// The figures of a runtime report that compare schedules.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    /// Simulated cycles.
    pub cycles: u64,
    /// Kernel launches.
    pub launches: u64,
    /// Bytes DMAs moved to or from DDR (host transfers excluded).
    pub ddr_bytes: u64,
    /// Bytes DMAs moved between GB and LB, or within GB.
    pub gb_bytes: u64,
    /// Mean utilisation of the matrix engines.
    pub matrix_utilisation: f64,
}

/// Reads the [`Figures`] of a JSON report ([`Device::report`]).
pub fn figures(report: &str) -> Result<Figures, String> {
    let report: serde_json::Value =
        serde_json::from_str(report).map_err(|error| format!("the runtime's report: {error}"))?;
    let number = |value: &serde_json::Value| value.as_u64().unwrap_or(0);
    let transfers = report["transfers"].as_array().cloned().unwrap_or_default();
    let bytes = |keep: &dyn Fn(&str, &str) -> bool| -> u64 {
        transfers
            .iter()
            .filter(|t| {
                keep(
                    t["src"].as_str().unwrap_or(""),
                    t["dst"].as_str().unwrap_or(""),
                )
            })
            .map(|t| number(&t["bytes"]))
            .sum()
    };
    let matrix: Vec<f64> = report["units"]
        .as_array()
        .map(|units| {
            units
                .iter()
                .filter(|u| u["kind"] == "matrix_engine")
                .map(|u| u["utilisation"].as_f64().unwrap_or(0.0))
                .collect()
        })
        .unwrap_or_default();
    Ok(Figures {
        cycles: number(&report["cycles"]),
        launches: number(&report["kernel_launches"]),
        ddr_bytes: bytes(&|src, dst| src == "ddr" || dst == "ddr"),
        gb_bytes: bytes(&|src, dst| src == "gb" || dst == "gb")
            - bytes(&|src, dst| (src == "gb" && dst == "ddr") || (src == "ddr" && dst == "gb")),
        matrix_utilisation: if matrix.is_empty() {
            0.0
        } else {
            matrix.iter().sum::<f64>() / matrix.len() as f64
        },
    })
}
