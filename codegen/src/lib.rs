//! The backend: a module in the `dsa` dialect (with its `dsa.target`) is lowered to the LLVM
//! dialect by the registered pipeline `turbine-dsa-to-llvm` ([`LOWERING_PIPELINE`]), translated
//! to LLVM IR in an inkwell context, optimised by LLVM's default pipeline, and then either
//! JIT-compiled against the software DSA linked into this process ([`Jit`]) or written as an
//! object file with a C header ([`compile_object`]).
//!
//! The generated code only calls the runtime's C ABI (`runtime/include/turbine_dsa.h`), so the
//! JIT maps each `td_*` symbol to the address [`turbine_runtime::ffi::symbols`] gives, and an
//! object file links against `turbine-runtime` like any C program would. Each entry function
//! has the ABI `int32_t f(uint64_t device, const uint64_t *buffers)`: one DDR buffer handle per
//! argument of the original function, in order; it returns the status of the first failing
//! runtime call (`td_device_take_error`).
//!
//! An object file also carries, per entry, a descriptor of its buffers and the functions that
//! load it through the runtime's model loader (`model_create`, `model_run`, `model_destroy`,
//! `model_error_message`; [`add_loaders`]), so that a C program only passes the weights file,
//! the inputs and the outputs.
//!
//! Compilation is timed per phase ([`CompileTimes`]) because the benchmark reports compile time
//! next to run time.
#![warn(missing_docs)]

mod entries;
mod loader;

pub use entries::{c_header, entries, Entry, EntryBuffer, Role};
pub use loader::{add_loaders, dtype, loader_header};

use inkwell::{
    context::Context as LlvmContext,
    execution_engine::ExecutionEngine,
    module::Module as LlvmModule,
    passes::PassBuilderOptions,
    targets::{CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine},
    OptimizationLevel,
};
use melior::{
    ir::{operation::OperationLike, Module},
    pass::PassManager,
};
use mlir_sys::*;
use std::{
    cell::RefCell,
    ffi::CStr,
    mem::ManuallyDrop,
    rc::Rc,
    time::{Duration, Instant},
};

/// The pass pipeline from `dsa` (with a `dsa.target`) to the LLVM dialect, as `--pass-pipeline`
/// text: the registered pipeline `turbine-dsa-to-llvm` (`turbine_passes::pipelines::DSA_TO_LLVM`,
/// whose documentation lists its passes), so `turbine-opt --turbine-dsa-to-llvm` does what
/// [`lower_to_llvm_dialect`] does.
pub const LOWERING_PIPELINE: &str = "builtin.module(turbine-dsa-to-llvm)";

/// LLVM optimisation level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OptLevel {
    /// No optimisation (fastest compile).
    O0,
    /// `default<O1>`.
    O1,
    /// `default<O2>`, the default.
    #[default]
    O2,
    /// `default<O3>`.
    O3,
}

impl OptLevel {
    fn pipeline(self) -> &'static str {
        match self {
            OptLevel::O0 => "default<O0>",
            OptLevel::O1 => "default<O1>",
            OptLevel::O2 => "default<O2>",
            OptLevel::O3 => "default<O3>",
        }
    }

    fn codegen(self) -> OptimizationLevel {
        match self {
            OptLevel::O0 => OptimizationLevel::None,
            OptLevel::O1 => OptimizationLevel::Less,
            OptLevel::O2 => OptimizationLevel::Default,
            OptLevel::O3 => OptimizationLevel::Aggressive,
        }
    }
}

/// Wall time of each compilation phase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CompileTimes {
    /// MLIR passes: [`LOWERING_PIPELINE`] with verification after each pass.
    pub lowering: Duration,
    /// LLVM dialect to LLVM IR.
    pub translation: Duration,
    /// LLVM's optimisation pipeline.
    pub optimisation: Duration,
    /// Machine code: JIT compilation and symbol lookup, or object emission.
    pub codegen: Duration,
}

impl CompileTimes {
    /// The sum of the phases.
    pub fn total(&self) -> Duration {
        self.lowering + self.translation + self.optimisation + self.codegen
    }
}

/// Runs [`LOWERING_PIPELINE`] on `module` with verification after each pass. On failure, the
/// error is the diagnostics MLIR emitted, one per line with their locations.
pub fn lower_to_llvm_dialect(module: &mut Module) -> Result<(), String> {
    // The ContextRef must outlive the &Context made from it (to_ref points into it).
    let context_ref = module.as_operation().context();
    // SAFETY: the module's context outlives this call, and context_ref outlives the borrow.
    let context = unsafe { context_ref.to_ref() };
    register_passes();
    let diagnostics = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    let handler = context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut()
            .push(format!("{}: {}", diagnostic.location(), diagnostic));
        true
    });
    let manager = PassManager::new(context);
    manager.enable_verifier(true);
    let outcome = melior::utility::parse_pass_pipeline(
        manager.as_operation_pass_manager(),
        LOWERING_PIPELINE,
    )
    .map_err(|error| format!("the lowering pipeline does not parse: {error}"))
    .and_then(|()| manager.run(module).map_err(|error| error.to_string()));
    context.detach_diagnostic_handler(handler);
    outcome.map_err(|error| {
        let diagnostics = diagnostics.borrow();
        if diagnostics.is_empty() {
            format!("lowering to the LLVM dialect failed: {error}")
        } else {
            diagnostics.join("\n")
        }
    })
}

/// Registers the upstream passes and Turbine's with MLIR's pass registry, once, so that
/// [`LOWERING_PIPELINE`] parses.
fn register_passes() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(melior::utility::register_all_passes);
    turbine_passes::register_all_passes();
}

/// Translates a lowered module into LLVM IR in `context` for `machine`.
fn translate<'l>(
    module: &Module,
    context: &'l LlvmContext,
    machine: &TargetMachine,
    times: &mut CompileTimes,
) -> Result<LlvmModule<'l>, String> {
    let start = Instant::now();
    // SAFETY: the MLIR module is in the LLVM dialect; the returned LLVM module lives in
    // `context` (whose raw ref is what we pass) and is owned by the inkwell Module wrapping it.
    let llvm = unsafe {
        let mlir_context = module.as_operation().context().to_ref().to_raw();
        mlirRegisterAllLLVMTranslations(mlir_context);
        let raw = mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), context.raw().cast());
        if raw.is_null() {
            return Err("the LLVM dialect module does not translate to LLVM IR".into());
        }
        LlvmModule::new(raw.cast())
    };
    llvm.set_triple(&machine.get_triple());
    llvm.set_data_layout(&machine.get_target_data().get_data_layout());
    times.translation = start.elapsed();
    Ok(llvm)
}

/// Runs LLVM's optimisation pipeline of `opt` on `llvm`.
fn optimise(
    llvm: &LlvmModule,
    opt: OptLevel,
    machine: &TargetMachine,
    times: &mut CompileTimes,
) -> Result<(), String> {
    let start = Instant::now();
    llvm.run_passes(opt.pipeline(), machine, PassBuilderOptions::create())
        .map_err(|error| format!("LLVM optimisation failed: {error}"))?;
    times.optimisation = start.elapsed();
    Ok(())
}

fn host_machine(opt: OptLevel) -> Result<TargetMachine, String> {
    Target::initialize_native(&InitializationConfig::default())?;
    let triple = TargetMachine::get_default_triple();
    let target = Target::from_triple(&triple).map_err(|error| error.to_string())?;
    let cpu = TargetMachine::get_host_cpu_name();
    let features = TargetMachine::get_host_cpu_features();
    target
        .create_target_machine(
            &triple,
            &cpu.to_string_lossy(),
            &features.to_string_lossy(),
            opt.codegen(),
            // Position-independent, so that AOT objects link into executables and shared objects.
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            format!(
                "no target machine for {}",
                triple.as_str().to_string_lossy()
            )
        })
}

/// Lowers `module` (in place, to the LLVM dialect) and returns its entries and the lowering time.
fn lower(module: &mut Module) -> Result<(Vec<Entry>, CompileTimes), String> {
    let start = Instant::now();
    lower_to_llvm_dialect(module)?;
    let times = CompileTimes {
        lowering: start.elapsed(),
        ..CompileTimes::default()
    };
    Ok((entries(module), times))
}

/// A JIT-compiled module, ready to run its entry functions on devices of the C ABI
/// (`td_device_create`). It owns its LLVM context and engine, so it can be kept and run
/// any number of times.
pub struct Jit {
    // Borrows `context`: dropped first (see Drop).
    engine: ManuallyDrop<ExecutionEngine<'static>>,
    context: *mut LlvmContext,
    entries: Vec<Entry>,
    addresses: Vec<usize>,
    times: CompileTimes,
}

impl Jit {
    /// Lowers `module` (a `dsa` module with its `dsa.target`; it is left in the LLVM
    /// dialect), optimises it at `opt` and JIT-compiles it with the runtime's symbols.
    pub fn new(module: &mut Module, opt: OptLevel) -> Result<Jit, String> {
        let (entries, mut times) = lower(module)?;
        let machine = host_machine(opt)?;
        let context: &'static LlvmContext = Box::leak(Box::new(LlvmContext::create()));
        let compiled = (|| {
            let llvm = translate(module, context, &machine, &mut times)?;
            optimise(&llvm, opt, &machine, &mut times)?;
            let start = Instant::now();
            let engine = llvm
                .create_jit_execution_engine(opt.codegen())
                .map_err(|error| error.to_string())?;
            for (name, address) in turbine_runtime::ffi::symbols() {
                if let Some(function) = llvm.get_function(name) {
                    engine.add_global_mapping(&function, address as usize);
                }
            }
            let addresses = entries
                .iter()
                .map(|entry| {
                    engine.get_function_address(&entry.name).map_err(|error| {
                        format!("entry '{}' is not in the JIT: {error}", entry.name)
                    })
                })
                .collect::<Result<Vec<usize>, String>>()?;
            times.codegen = start.elapsed();
            Ok((engine, addresses))
        })();
        match compiled {
            Ok((engine, addresses)) => Ok(Jit {
                engine: ManuallyDrop::new(engine),
                context: context as *const LlvmContext as *mut LlvmContext,
                entries,
                addresses,
                times,
            }),
            Err(error) => {
                // SAFETY: nothing borrows the leaked context any more.
                drop(unsafe { Box::from_raw(context as *const LlvmContext as *mut LlvmContext) });
                Err(error)
            }
        }
    }

    /// The module's entry functions.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// How long each phase of the compilation took.
    pub fn times(&self) -> CompileTimes {
        self.times
    }

    /// Runs entry `entry` on device `device` (a handle of `td_device_create`) with one DDR
    /// buffer handle per argument. A non-zero status comes back as an error with the status
    /// and the message of the first failing runtime call.
    pub fn run(&self, entry: &str, device: u64, buffers: &[u64]) -> Result<(), String> {
        let position = self
            .entries
            .iter()
            .position(|candidate| candidate.name == entry)
            .ok_or_else(|| format!("no entry function '{entry}'"))?;
        let expected = self.entries[position].buffers.len();
        if buffers.len() != expected {
            return Err(format!(
                "entry '{entry}' takes {expected} buffers, got {}",
                buffers.len()
            ));
        }
        // SAFETY: the address is the entry's, compiled with the ABI
        // `i32 f(i64, ptr)` that convert-dsa-to-runtime gives entries, and `buffers` holds as
        // many handles as the entry reads.
        let status = unsafe {
            let function: extern "C" fn(u64, *const u64) -> i32 =
                std::mem::transmute(self.addresses[position]);
            function(device, buffers.as_ptr())
        };
        // Launches execute in the background: a fault of their execution is the entry's too.
        let status = match status {
            turbine_runtime::ffi::TD_OK => turbine_runtime::ffi::td_device_synchronize(device),
            failed => failed,
        };
        if status == turbine_runtime::ffi::TD_OK {
            return Ok(());
        }
        // SAFETY: td_last_error returns a NUL-terminated string valid until the next failure.
        let message = unsafe { CStr::from_ptr(turbine_runtime::ffi::td_last_error()) };
        Err(format!(
            "'{entry}' failed with status {status}: {}",
            message.to_string_lossy()
        ))
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: the engine (which owns the module) goes before the context it lives in, and
        // neither is used afterwards.
        unsafe {
            ManuallyDrop::drop(&mut self.engine);
            drop(Box::from_raw(self.context));
        }
    }
}

/// An ahead-of-time compiled module.
#[derive(Debug, Clone)]
pub struct ObjectCode {
    /// The object file for the host triple (position independent).
    pub object: Vec<u8>,
    /// The optimised LLVM IR, when asked for.
    pub llvm_ir: Option<String>,
    /// A C header declaring every entry (see [`c_header`]).
    pub header: String,
    /// The module's entry functions.
    pub entries: Vec<Entry>,
    /// How long each phase took.
    pub times: CompileTimes,
}

/// Lowers `module` (left in the LLVM dialect), adds the loader of each entry (descriptor and
/// functions prefixed by `name`, see [`add_loaders`]), optimises it at `opt` and emits an object
/// file for the host, with its C header and, if `emit_llvm_ir`, the optimised LLVM IR. The
/// object needs the runtime's `td_*` functions at link time.
pub fn compile_object(
    module: &mut Module,
    opt: OptLevel,
    emit_llvm_ir: bool,
    name: &str,
) -> Result<ObjectCode, String> {
    let (entries, mut times) = lower(module)?;
    let machine = host_machine(opt)?;
    let context = LlvmContext::create();
    let llvm = translate(module, &context, &machine, &mut times)?;
    add_loaders(&context, &llvm, &entries, name)?;
    optimise(&llvm, opt, &machine, &mut times)?;
    let start = Instant::now();
    let object = machine
        .write_to_memory_buffer(&llvm, FileType::Object)
        .map_err(|error| format!("object emission failed: {error}"))?
        .as_slice()
        .to_vec();
    times.codegen = start.elapsed();
    let llvm_ir = emit_llvm_ir.then(|| llvm.print_to_string().to_string());
    let header = c_header(&entries, name);
    Ok(ObjectCode {
        object,
        llvm_ir,
        header,
        entries,
        times,
    })
}
