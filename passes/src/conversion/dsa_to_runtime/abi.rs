//! The runtime's C ABI (`runtime/include/turbine_dsa.h`) as the lowering sees it: the functions
//! it calls, the codes it passes, the stack scratch it passes them in, and the leading arguments
//! every lowered function takes.
//!
//! The header is the contract: the codes are repeated here as numbers because the passes crate
//! does not link the runtime, and each dsa case is mapped by a `match` on the dialect's typed enum
//! so that a case added to the dialect fails to compile here instead of lowering to a wrong code.

use super::builder::Builder;
use super::symbols::Symbols;
use super::types::{
    array_attribute, dictionary_attribute, f32_type, i32_type, i64_type, index_type, pointer_type,
};
use crate::ir::function_type;
use crate::ir::{string_attribute, Op, Val};
use melior::ir::AttributeLike;
use mlir_sys::*;
use std::collections::HashSet;
use turbine_dialects::attributes::dsa::{
    BinaryKind, ComparePredicate, MemorySpace, PoolKind, ReduceKind, UnaryKind,
};
use turbine_dialects::ops::upstream;

// ---- Scratch -----------------------------------------------------------------------------------

/// Words (u64) of one `td_view`: buffer, offset, rank, shape[4], strides[4].
pub(super) const VIEW_WORDS: usize = 11;
/// Scratch layout, in words: four views (a select's), then one parameter struct (conv2d and
/// pool2d parameters are 9 words each), then `token_out`, then the wait list.
pub(super) const PARAMS_WORD: usize = 4 * VIEW_WORDS;
/// Where a call's `token_out` (or `td_buffer_alloc`'s handle) is written.
pub(super) const TOKEN_WORD: usize = PARAMS_WORD + 9;
/// The first token of a wait list.
pub(super) const WAITS_WORD: usize = TOKEN_WORD + 1;

/// The per-function values every lowered op needs.
#[derive(Clone, Copy)]
pub(super) struct FunctionState {
    /// The leading `%dev` argument.
    pub(super) device: Val,
    /// The core a kernel records on (`%cluster`, `%core`); None in host functions.
    pub(super) core: Option<(Val, Val)>,
    /// The scratch words (see [`PARAMS_WORD`] and the other offsets), if the function needs any.
    pub(super) scratch: Option<Val>,
}

// ---- Codes -------------------------------------------------------------------------------------

const TD_LEVEL_LB: i64 = 0;
const TD_LEVEL_GB: i64 = 1;
const TD_LEVEL_DDR: i64 = 2;

const TD_BINARY_ADD: i64 = 0;
const TD_BINARY_SUB: i64 = 1;
const TD_BINARY_MUL: i64 = 2;
const TD_BINARY_DIV: i64 = 3;
const TD_BINARY_MAX: i64 = 4;
const TD_BINARY_MIN: i64 = 5;
const TD_BINARY_POW: i64 = 6;
const TD_BINARY_FMOD: i64 = 7;
const TD_BINARY_MOD: i64 = 8;

const TD_UNARY_RELU: i64 = 0;
const TD_UNARY_SIGMOID: i64 = 1;
const TD_UNARY_TANH: i64 = 2;
const TD_UNARY_EXP: i64 = 3;
const TD_UNARY_LOG: i64 = 4;
const TD_UNARY_SQRT: i64 = 5;
const TD_UNARY_RSQRT: i64 = 6;
const TD_UNARY_ERF: i64 = 7;
const TD_UNARY_GELU: i64 = 8;
const TD_UNARY_SILU: i64 = 9;
const TD_UNARY_NEG: i64 = 10;
const TD_UNARY_RECIPROCAL: i64 = 11;
const TD_UNARY_CLIP: i64 = 12;
const TD_UNARY_AFFINE: i64 = 13;
const TD_UNARY_ABS: i64 = 14;
const TD_UNARY_GELU_TANH: i64 = 15;

const TD_POOL_MAX: i64 = 0;
const TD_POOL_AVG: i64 = 1;

const TD_REDUCE_SUM: i64 = 0;
const TD_REDUCE_MEAN: i64 = 1;
const TD_REDUCE_MAX: i64 = 2;
const TD_REDUCE_PROD: i64 = 4;

/// `TD_LEVEL_*` of a memory space.
pub(super) fn level_code(space: MemorySpace) -> i64 {
    match space {
        MemorySpace::Lb => TD_LEVEL_LB,
        MemorySpace::Gb => TD_LEVEL_GB,
        MemorySpace::Ddr => TD_LEVEL_DDR,
    }
}

/// `TD_BINARY_*` of a binary kind.
pub(super) fn binary_code(kind: BinaryKind) -> i64 {
    match kind {
        BinaryKind::Add => TD_BINARY_ADD,
        BinaryKind::Sub => TD_BINARY_SUB,
        BinaryKind::Mul => TD_BINARY_MUL,
        BinaryKind::Div => TD_BINARY_DIV,
        BinaryKind::Max => TD_BINARY_MAX,
        BinaryKind::Min => TD_BINARY_MIN,
        BinaryKind::Pow => TD_BINARY_POW,
        BinaryKind::Fmod => TD_BINARY_FMOD,
        BinaryKind::Mod => TD_BINARY_MOD,
    }
}

/// Where `td_unary`'s parameters `p0`, `p1` come from.
pub(super) enum UnaryParameters {
    /// The op's optional f32 attributes of these names (0 when unset).
    Attributes(&'static str, &'static str),
    /// Fixed values.
    Constants(f64, f64),
}

/// `TD_UNARY_*` of a unary kind and its parameters: the runtime has no `copy`, which is the affine
/// map `1 * x + 0`.
pub(super) fn unary_code(kind: UnaryKind) -> (i64, UnaryParameters) {
    let code = match kind {
        UnaryKind::Relu => TD_UNARY_RELU,
        UnaryKind::Sigmoid => TD_UNARY_SIGMOID,
        UnaryKind::Tanh => TD_UNARY_TANH,
        UnaryKind::Exp => TD_UNARY_EXP,
        UnaryKind::Log => TD_UNARY_LOG,
        UnaryKind::Sqrt => TD_UNARY_SQRT,
        UnaryKind::Rsqrt => TD_UNARY_RSQRT,
        UnaryKind::Erf => TD_UNARY_ERF,
        UnaryKind::Gelu => TD_UNARY_GELU,
        UnaryKind::GeluTanh => TD_UNARY_GELU_TANH,
        UnaryKind::Silu => TD_UNARY_SILU,
        UnaryKind::Neg => TD_UNARY_NEG,
        UnaryKind::Reciprocal => TD_UNARY_RECIPROCAL,
        UnaryKind::Clip => TD_UNARY_CLIP,
        UnaryKind::Affine => {
            return (
                TD_UNARY_AFFINE,
                UnaryParameters::Attributes("scale", "shift"),
            );
        }
        UnaryKind::Copy => return (TD_UNARY_AFFINE, UnaryParameters::Constants(1.0, 0.0)),
        UnaryKind::Abs => return (TD_UNARY_ABS, UnaryParameters::Constants(0.0, 0.0)),
    };
    (code, UnaryParameters::Attributes("min", "max"))
}

/// `TD_POOL_*` of a pool kind.
pub(super) fn pool_code(kind: PoolKind) -> i64 {
    match kind {
        PoolKind::Max => TD_POOL_MAX,
        PoolKind::Avg => TD_POOL_AVG,
    }
}

/// `TD_REDUCE_*` of a reduce kind.
pub(super) fn reduce_code(kind: ReduceKind) -> i64 {
    match kind {
        ReduceKind::Sum => TD_REDUCE_SUM,
        ReduceKind::Mean => TD_REDUCE_MEAN,
        ReduceKind::Max => TD_REDUCE_MAX,
        ReduceKind::Prod => TD_REDUCE_PROD,
    }
}

/// `TD_COMPARE_*` of a comparison predicate.
pub(super) fn compare_code(predicate: ComparePredicate) -> i64 {
    match predicate {
        ComparePredicate::Eq => 0,
        ComparePredicate::Ne => 1,
        ComparePredicate::Lt => 2,
        ComparePredicate::Le => 3,
        ComparePredicate::Gt => 4,
        ComparePredicate::Ge => 5,
    }
}

// ---- Functions ---------------------------------------------------------------------------------

/// A parameter type of a runtime function.
#[derive(Clone, Copy)]
enum Parameter {
    I32,
    I64,
    F32,
    Pointer,
}

/// Every runtime function the lowering calls with its parameters; each returns an `i32` status.
const RUNTIME_FUNCTIONS: &[(&str, &[Parameter])] = {
    use Parameter::{Pointer as P, F32, I32, I64};
    &[
        ("td_buffer_alloc", &[I64, I32, I32, I32, I64, I32, P]),
        ("td_buffer_release", &[I64, I64]),
        ("td_launch_begin", &[I64, P, P, I64]),
        ("td_launch_end", &[I64, P]),
        ("td_dma", &[I64, I32, I32, P, P, P, I64, P]),
        ("td_matmul", &[I64, I32, I32, P, P, P, I32, P, I64, P]),
        ("td_conv2d", &[I64, I32, I32, P, P, P, P, I32, P, I64, P]),
        ("td_binary", &[I64, I32, I32, I32, P, P, P, P, I64, P]),
        ("td_unary", &[I64, I32, I32, I32, F32, F32, P, P, P, I64, P]),
        ("td_pool2d", &[I64, I32, I32, P, P, P, P, I64, P]),
        ("td_reduce", &[I64, I32, I32, I32, I32, P, P, P, I64, P]),
        ("td_convert", &[I64, I32, I32, P, P, P, I64, P]),
        (
            "td_gather_elements",
            &[I64, I32, I32, I32, P, P, P, P, I64, P],
        ),
        (
            "td_scatter_elements",
            &[I64, I32, I32, I32, I32, P, P, P, P, I64, P],
        ),
        ("td_compare", &[I64, I32, I32, I32, P, P, P, P, I64, P]),
        ("td_select", &[I64, I32, I32, P, P, P, P, P, I64, P]),
        ("td_gather", &[I64, I32, I32, I32, P, P, P, P, I64, P]),
        (
            "td_arg_reduce",
            &[I64, I32, I32, I32, I32, I32, P, P, P, I64, P],
        ),
        ("td_top_k", &[I64, I32, I32, I32, I32, P, P, P, P, I64, P]),
        ("td_wait", &[I64, I32, I32, P, I64, P]),
        ("td_barrier", &[I64, I32, I32, P]),
        ("td_layer", &[I64, I32, I32, I32]),
        ("td_layer_names", &[I64, I32, P]),
        ("td_device_take_error", &[I64]),
        ("td_read_scalar", &[I64, I64, I64, P]),
        ("td_write_scalar", &[I64, I64, I64, I64]),
        ("td_loop_check", &[I64, I64, I32]),
        ("td_frame_push", &[I64, I32]),
        ("td_frame_pop", &[I64]),
        ("td_persistent_begin", &[I64]),
        ("td_persistent_end", &[I64]),
    ]
};

/// Declares every runtime function the module does not define yet, as a private `func.func`
/// at the end of `module` (a `builtin.module`).
pub(super) fn declare_runtime(module: Op, symbols: &mut Symbols) {
    let context = module.context();
    let builder = Builder::at_module_end(module);
    let status = [i32_type(context)];
    for &(name, parameters) in RUNTIME_FUNCTIONS {
        if !symbols.define(name) {
            continue;
        }
        let inputs: Vec<MlirType> = parameters
            .iter()
            .map(|parameter| match parameter {
                Parameter::I32 => i32_type(context),
                Parameter::I64 => i64_type(context),
                Parameter::F32 => f32_type(context),
                Parameter::Pointer => pointer_type(context),
            })
            .collect();
        // SAFETY: the new region is handed to the declaration, which owns it.
        let body = unsafe { mlirRegionCreate() };
        builder.function(
            name,
            function_type(context, &inputs, &status),
            &[("sym_visibility", string_attribute(context, "private"))],
            body,
        );
    }
}

// ---- Leading arguments -------------------------------------------------------------------------

/// The leading arguments of a lowered host function: `%dev: i64`.
pub(super) fn host_arguments(context: MlirContext) -> Vec<MlirType> {
    vec![i64_type(context)]
}

/// The leading arguments of a kernel's function: `%dev: i64, %cluster: i32, %core: i32,
/// %index: index`.
pub(super) fn kernel_arguments(context: MlirContext) -> Vec<MlirType> {
    let i32 = i32_type(context);
    vec![i64_type(context), i32, i32, index_type(context)]
}

/// Inserts arguments of `types` before the existing ones of `function`'s entry block, keeping
/// `arg_attrs` aligned (the function type is recomputed by the type conversion); `function` is a
/// function-like op with a body, whose `arg_attrs`, if set, is an array.
pub(super) fn prepend_arguments(function: Op, types: &[MlirType]) {
    let context = function.context();
    let location = function.location();
    let block = function.entry_block().expect("the function has a body");
    for (position, &r#type) in types.iter().enumerate() {
        // SAFETY: the block, type and location are alive in one context.
        unsafe { mlirBlockInsertArgument(block, position as isize, r#type, location) };
    }
    if let Some(arg_attrs) = function.attribute("arg_attrs") {
        let arg_attrs = arg_attrs.to_raw();
        let mut attrs = vec![dictionary_attribute(context, &[]); types.len()];
        // SAFETY: a function's `arg_attrs` is an array attribute; the existing argument attributes
        // are reused as handles, and indices stay below the element count.
        attrs.extend(unsafe {
            (0..mlirArrayAttrGetNumElements(arg_attrs))
                .map(|index| mlirArrayAttrGetElement(arg_attrs, index))
                .collect::<Vec<_>>()
        });
        function.set_attribute("arg_attrs", array_attribute(context, &attrs));
    }
}

/// Adds the caller's `%dev` to `call` (a verified `func.call` inside a lowered function) when it
/// calls a module function (one of `host_names`), which takes it as its leading argument.
pub(super) fn pass_device_along(call: Op, host_names: &HashSet<String>) {
    let callee = call
        .symbol_reference("callee")
        .expect("a call names its callee");
    if !host_names.contains(&callee) {
        return;
    }
    let caller = call
        .enclosing(upstream::Kind::FuncFunc)
        .expect("calls of module functions sit in functions");
    let mut arguments = vec![caller.entry_argument(0)];
    arguments.extend(call.operands());
    call.set_operands(&arguments);
}
