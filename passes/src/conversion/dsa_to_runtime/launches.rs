//! Kernels and launches.
//!
//! The runtime records a launch and then executes it, so a kernel is not device code: it becomes
//! a host function that the launch calls once per core between `td_launch_begin` and
//! `td_launch_end`, each call recording that core's instructions. The launch's cores are a
//! constant table in the module (one `td_core` per core) rather than computed in the loop,
//! because the runtime takes the table by pointer, and its kernel name a constant string, which
//! the runtime's reports show.

use super::abi::{kernel_arguments, prepend_arguments};
use super::builder::Builder;
use super::symbols::Symbols;
use super::types::{
    array_type, dense_i64_attribute, i32_type, i64_type, i8_type, index_type, integer_attribute,
    type_attribute, unit_attribute,
};
use crate::ir::{block_arguments, region_with_block, string_attribute, Op, Val};
use melior::ir::AttributeLike;
use mlir_sys::*;
use turbine_dialects::ops::upstream;

/// Replaces `kernel` (a `dsa.kernel`) by a private `func.func` with its body and the leading
/// `%dev, %cluster, %core, %index` arguments; the kernel is erased, and the function returned in
/// its place.
pub(super) fn kernel_function(kernel: Op) -> Op {
    let builder = Builder::before(kernel);
    // The attributes are uniqued in the context and outlive the kernel.
    let attribute = |name: &str, what: &str| kernel.attribute(name).expect(what).to_raw();
    let mut attributes = vec![
        ("sym_name", attribute("sym_name", "kernels have a name")),
        (
            "function_type",
            attribute("function_type", "kernels have a type"),
        ),
        (
            "sym_visibility",
            string_attribute(builder.context, "private"),
        ),
    ];
    if let Some(arg_attrs) = kernel.attribute("arg_attrs") {
        attributes.push(("arg_attrs", arg_attrs.to_raw()));
    }
    // SAFETY: the new region is handed to the function, which owns it.
    let body = unsafe { mlirRegionCreate() };
    let function = builder.create(
        upstream::Kind::FuncFunc,
        &[],
        Some(&[]),
        &attributes,
        &[body],
    );
    // SAFETY: both ops are alive, each with one region; the kernel's body moves to the function
    // before the kernel is erased.
    unsafe {
        mlirRegionTakeBody(
            mlirOperationGetRegion(function.raw(), 0),
            mlirOperationGetRegion(kernel.raw(), 0),
        )
    };
    // SAFETY: the kernel has no results and its body moved to the function; only the builder's
    // context is read after this, not its anchor, the kernel.
    unsafe { kernel.erase() };
    prepend_arguments(function, &kernel_arguments(builder.context));
    function
}

/// Appends `llvm.mlir.global internal constant @name(value) : global_type` to `module` (a
/// `builtin.module`); `global_type` and `value` are of its context.
pub(super) fn constant_global(module: Op, name: &str, global_type: MlirType, value: MlirAttribute) {
    let context = module.context();
    let builder = Builder::at_module_end(module);
    let (i32, i64) = (i32_type(context), i64_type(context));
    // SAFETY: the context is alive, with the LLVM dialect the pass depends on.
    let linkage =
        unsafe { mlirLLVMLinkageAttrGet(context, MlirLLVMLinkage_MlirLLVMLinkageInternal) };
    // SAFETY: the new region is handed to the global, which owns it.
    let initializer = unsafe { mlirRegionCreate() };
    builder.create(
        upstream::Kind::LlvmMlirGlobal,
        &[],
        Some(&[]),
        &[
            ("sym_name", string_attribute(context, name)),
            ("global_type", type_attribute(global_type)),
            ("constant", unit_attribute(context)),
            ("linkage", linkage),
            ("value", value),
            ("addr_space", integer_attribute(i32, 0)),
            // The defaults the op's parser writes out: `unnamed_addr` none, default
            // visibility.
            ("unnamed_addr", integer_attribute(i64, 0)),
            ("visibility_", integer_attribute(i64, 0)),
        ],
        &[initializer],
    );
}

/// Lowers `op`, a verified `dsa.launch` (the module's launch number `launch`) in a lowered host
/// function of `module` whose `%dev` is `device`, to `td_launch_begin`, an `scf.for` over its core
/// table calling the kernel's function, and `td_launch_end`, before it (`builder`).
pub(super) fn lower_launch(
    op: Op,
    builder: &Builder,
    device: Val,
    module: Op,
    symbols: &mut Symbols,
    cores_per_cluster: i64,
    launch: usize,
) {
    let context = builder.context;
    let kernel = op
        .symbol_reference("kernel")
        .expect("a launch names its kernel");
    let cores = op.i64_array_value("cores").unwrap_or_default();
    let name_global = format!("{kernel}.name");
    if symbols.define(&name_global) {
        constant_global(
            module,
            &name_global,
            array_type(i8_type(context), kernel.len() + 1),
            string_attribute(context, &format!("{kernel}\0")),
        );
    }
    let cores_global = format!("{kernel}.cores.{launch}");
    // td_core {u32 cluster; u32 core} as one little-endian u64 word per core.
    let words: Vec<i64> = cores
        .iter()
        .map(|&core| (core / cores_per_cluster) | ((core % cores_per_cluster) << 32))
        .collect();
    constant_global(
        module,
        &cores_global,
        array_type(i64_type(context), cores.len()),
        dense_i64_attribute(context, &words),
    );
    let name = builder.address_of(&name_global);
    let table = builder.address_of(&cores_global);
    builder.call_runtime(
        "td_launch_begin",
        &[
            device,
            name,
            table,
            builder.constant_i64(cores.len() as i64),
        ],
    );

    let index = index_type(context);
    let (region, body) = region_with_block(&[index], builder.location);
    let (lower, upper, step) = (
        builder.constant_index(0),
        builder.constant_index(cores.len() as i64),
        builder.constant_index(1),
    );
    builder.create(
        upstream::Kind::ScfFor,
        &[lower, upper, step],
        Some(&[]),
        &[],
        &[region],
    );
    let inner = Builder::at_end(body, context, builder.location);
    let position = block_arguments(body)[0];
    let word = inner.load_i64(inner.dynamic_word(
        table,
        inner.cast(upstream::Kind::ArithIndexCast, position, i64_type(context)),
    ));
    let cluster = inner.cast(upstream::Kind::ArithTrunci, word, i32_type(context));
    let high = inner.value(
        upstream::Kind::ArithShrui,
        &[word, inner.constant_i64(32)],
        i64_type(context),
        &[],
    );
    let core = inner.cast(upstream::Kind::ArithTrunci, high, i32_type(context));
    let mut arguments = vec![device, cluster, core, position];
    arguments.extend(op.operands());
    inner.call(&kernel, &arguments, &[]);
    inner.create(upstream::Kind::ScfYield, &[], Some(&[]), &[], &[]);

    builder.call_runtime("td_launch_end", &[device, builder.null()]);
}
