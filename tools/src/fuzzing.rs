//! Fuzzing harnesses: one function per reader of untrusted input, each taking arbitrary bytes.
//!
//! Any input may be refused with an error; none may panic, abort or hang. A harness therefore
//! returns nothing and panics only on a bug: a panic escaping the code under test, a panic that
//! a pass caught and reported as an internal error, a result the library accepted but cannot
//! write back or verify. The coverage-guided fuzzer (`fuzz/`, run by `tools/scripts/fuzz`)
//! calls these with mutated inputs, and the integration test `fuzz_regressions` runs every
//! input kept under `test/Fuzz/<target>/` through the same function, so that an input that once
//! failed stays fixed without the fuzzer installed.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::rc::Rc;

use melior::ir::operation::{OperationLike, WalkOrder, WalkResult};
use melior::ir::{Module, TypeLike, ValueLike};
use melior::Context;
use turbine_dialects::ops::{upstream, OpKind};

/// A harness: any bytes in, a panic on a bug.
pub type Harness = fn(&[u8]);

/// The harnesses by name, as `tools/scripts/fuzz TARGET` and the folders under `test/Fuzz/` name
/// them.
pub const TARGETS: [(&str, Harness); 4] =
    [("onnx", onnx), ("ir", ir), ("target", target), ("npy", npy)];

/// Inputs of the `ir` harness longer than this are skipped: the pipelines' run time grows with
/// the module, and a large module that is merely slow would read as a hang to the fuzzer.
pub const MAX_IR_BYTES: usize = 16 * 1024;

/// Modules of the `ir` harness whose values hold more elements than this in all (the elements of
/// every operand and result of every op, over tensors of at most 2^31 elements) are skipped: the
/// compile time grows faster than the tensors on a small target (GraphTurbo's schedule on `mini`
/// down to the LLVM dialect takes seconds for a Gemm with an operand of a few hundred thousand
/// elements, and far longer in the fuzzed build), so large shapes would read as hangs while the
/// compile is only long. Tensors above 2^31 elements do not count: the passes refuse them when
/// they read the function, which is fuzzed too.
pub const MAX_IR_ELEMENTS: u64 = 1 << 20;

/// Dialects whose ops the `ir` harness accepts. Turbine's tools read these (the graph level, the
/// instance and dsa levels the passes produce, and the scalars the dsa level uses); other
/// upstream dialects are registered in the context but are not Turbine's to harden, so a module
/// using them is skipped rather than handed to upstream canonicalisation patterns.
const IR_DIALECTS: [&str; 6] = ["builtin", "func", "graph", "instance", "dsa", "arith"];

/// A context like the tools' ([`turbine_dialects::create_context`]), single-threaded so that a
/// run is deterministic, with a handler that keeps the diagnostics instead of printing them.
fn quiet_context() -> (Context, Rc<RefCell<Vec<String>>>) {
    let context = turbine_dialects::create_context();
    context.enable_multi_threading(false);
    let diagnostics = Rc::new(RefCell::new(Vec::new()));
    let sink = Rc::clone(&diagnostics);
    context.attach_diagnostic_handler(move |diagnostic| {
        // Not `to_string`: melior's Display fails on a message that is not UTF-8, and a panic
        // here would cross MLIR's C frames.
        let mut message = String::new();
        let _ = write!(message, "{diagnostic}");
        sink.borrow_mut().push(message);
        true
    });
    (context, diagnostics)
}

/// An ONNX `ModelProto`, imported as `turbine-translate --import-onnx` and `turbine-run` do:
/// [`turbine_onnx::import`], then built and verified as MLIR. The importer may refuse the model;
/// a model it accepts must give IR that verifies.
pub fn onnx(data: &[u8]) {
    let options = turbine_onnx::ImportOptions {
        input_shapes: Vec::new(),
        weights_file: "weights.safetensors".into(),
        external_data_folder: None,
    };
    let Ok(model) = turbine_onnx::import(data, &options) else {
        return;
    };
    let (context, diagnostics) = quiet_context();
    let built = crate::graph_module::build(&context, &model.module).map(drop);
    if let Err(error) = built {
        panic!(
            "the importer accepted a model whose IR does not verify: {error}\n{}",
            diagnostics.borrow().join("\n")
        );
    }
}

/// The pipelines the `ir` harness chooses from with its first byte: every registered Turbine pass
/// alone on its anchor, every registered pipeline, and the two schedules run down to the LLVM
/// dialect on the small `mini` target.
pub fn ir_pipelines() -> Vec<String> {
    let mut pipelines: Vec<String> = turbine_passes::all_passes()
        .iter()
        .map(|info| match info.anchor {
            OpKind::Upstream(upstream::Kind::BuiltinModule) => {
                format!("builtin.module({})", info.argument)
            }
            anchor => format!("builtin.module({anchor}({}))", info.argument),
        })
        .collect();
    pipelines.extend(
        turbine_passes::pipelines::all_pipelines()
            .iter()
            .map(|info| format!("builtin.module({})", info.argument)),
    );
    pipelines.push("builtin.module(turbine-layerwise{target=mini},turbine-dsa-to-llvm)".into());
    pipelines.push(
        "builtin.module(turbine-graphturbo{target=mini scope=lb spill=largest},\
         turbine-dsa-to-llvm)"
            .into(),
    );
    pipelines
}

/// MLIR text after a selector byte: parsed and verified in a context with Turbine's dialects, then
/// run through the pipeline the byte selects from [`ir_pipelines`] with the pass manager the tools
/// use ([`crate::driver::run_pipeline`]). Parse errors and pass failures are refusals; a pass's
/// panic, which the pass bridge catches and reports as an internal error, is a bug.
pub fn ir(data: &[u8]) {
    let Some((&selector, text)) = data.split_first() else {
        return;
    };
    if text.len() > MAX_IR_BYTES {
        return;
    }
    let (context, _diagnostics) = quiet_context();
    let Ok(mut module) = turbine_dialects::parse_source(&context, text, "fuzz") else {
        return;
    };
    if !admissible(&module) {
        return;
    }
    let pipelines = ir_pipelines();
    let pipeline = &pipelines[selector as usize % pipelines.len()];
    if let Err(error) = crate::driver::run_pipeline(&context, &mut module, pipeline) {
        assert!(!error.contains("internal error"), "{pipeline}: {error}");
    }
}

/// Whether every op of `module` belongs to one of [`IR_DIALECTS`] and its values stay within
/// [`MAX_IR_ELEMENTS`].
fn admissible(module: &Module) -> bool {
    let mut accepted = true;
    let mut elements = 0u64;
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name();
        let name = name.as_string_ref().as_str().unwrap_or("");
        let dialect = name.split_once('.').map_or(name, |(dialect, _)| dialect);
        let values = op
            .operands()
            .map(|value| value.r#type())
            .chain(op.results().map(|value| value.r#type()));
        elements = values.fold(elements, |sum, r#type| {
            sum.saturating_add(static_elements(r#type.to_raw()))
        });
        accepted = IR_DIALECTS.contains(&dialect) && elements <= MAX_IR_ELEMENTS;
        if accepted {
            WalkResult::Advance
        } else {
            WalkResult::Interrupt
        }
    });
    accepted
}

/// The elements of a statically shaped tensor or memref of at most 2^31 elements; 0 for any other
/// type.
fn static_elements(r#type: mlir_sys::MlirType) -> u64 {
    use mlir_sys::*;
    // SAFETY: the type is alive while its module is; shapes are read only from static shaped types.
    unsafe {
        if !mlirTypeIsAShaped(r#type)
            || !mlirShapedTypeHasRank(r#type)
            || !mlirShapedTypeHasStaticShape(r#type)
        {
            return 0;
        }
        let mut dims = (0..mlirShapedTypeGetRank(r#type))
            .map(|d| mlirShapedTypeGetDimSize(r#type, d as isize) as u64);
        dims.try_fold(1u64, u64::checked_mul)
            .filter(|&count| count <= 1 << 31)
            .unwrap_or(0)
    }
}

/// A target description (TOML), read and validated by [`turbine_targets::Target::from_toml_str`].
/// A description that validates must survive being written back with the crate's own serialiser
/// (`to_toml_string`) and read again unchanged: every figure it accepts is one it can represent.
pub fn target(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(target) = turbine_targets::Target::from_toml_str(text, "fuzz") else {
        return;
    };
    let written = target.to_toml_string();
    match turbine_targets::Target::from_toml_str(&written, "fuzz (written back)") {
        Ok(again) => assert!(
            again == target,
            "the description changed when written back:\n{written}"
        ),
        Err(error) => panic!("a valid description does not read back: {error}\n{written}"),
    }
}

/// A `.npy` file, read by [`turbine_interpreter::npy::parse`] as `turbine-run --input` reads
/// one. A tensor it accepts must write back ([`turbine_interpreter::npy::serialize`]) to a file
/// that reads as the same tensor, bit for bit.
pub fn npy(data: &[u8]) {
    use turbine_interpreter::npy::{parse, serialize};
    let Ok(tensor) = parse(data) else { return };
    let written = serialize(&tensor);
    match parse(&written) {
        Ok(again) => assert!(
            serialize(&again) == written,
            "the tensor changed when written back"
        ),
        Err(error) => panic!("a tensor that was read does not read back once written: {error}"),
    }
}
