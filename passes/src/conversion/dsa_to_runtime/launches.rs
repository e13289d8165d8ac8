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
use super::ir::{attribute, defines_symbol, i64_array, operands, referenced_symbol};
use super::types::{
    array_type, dense_i64_attribute, i32_type, i64_type, i8_type, index_type, integer_attribute,
    string_attribute, type_attribute, unit_attribute,
};
use mlir_sys::*;

/// Replaces `kernel` by a private `func.func` with its body and the leading
/// `%dev, %cluster, %core, %index` arguments.
///
/// # Safety
/// `kernel` is an alive `dsa.kernel`; it is erased, and the function returned in its place.
pub(super) unsafe fn kernel_function(kernel: MlirOperation) -> MlirOperation {
    // SAFETY: the caller's guarantee; the kernel's body moves to the function before the kernel
    // is erased, and its attributes are uniqued in the context and outlive it.
    unsafe {
        let builder = Builder::before(kernel);
        let mut attributes = vec![
            (
                "sym_name",
                attribute(kernel, "sym_name").expect("kernels have a name"),
            ),
            (
                "function_type",
                attribute(kernel, "function_type").expect("kernels have a type"),
            ),
            (
                "sym_visibility",
                string_attribute(builder.context, "private"),
            ),
        ];
        if let Some(arg_attrs) = attribute(kernel, "arg_attrs") {
            attributes.push(("arg_attrs", arg_attrs));
        }
        let function = builder.create(
            "func.func",
            &[],
            Some(&[]),
            &attributes,
            &[mlirRegionCreate()],
        );
        mlirRegionTakeBody(
            mlirOperationGetRegion(function, 0),
            mlirOperationGetRegion(kernel, 0),
        );
        mlirOperationDestroy(kernel);
        prepend_arguments(function, &kernel_arguments(builder.context));
        function
    }
}

/// Appends `llvm.mlir.global internal constant @name(value) : global_type` to the module.
///
/// # Safety
/// `module` is an alive `builtin.module`; `global_type` and `value` are of its context.
pub(super) unsafe fn constant_global(
    module: MlirOperation,
    name: &str,
    global_type: MlirType,
    value: MlirAttribute,
) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let context = mlirOperationGetContext(module);
        let builder = Builder::at_module_end(module);
        let (i32, i64) = (i32_type(context), i64_type(context));
        builder.create(
            "llvm.mlir.global",
            &[],
            Some(&[]),
            &[
                ("sym_name", string_attribute(context, name)),
                ("global_type", type_attribute(global_type)),
                ("constant", unit_attribute(context)),
                (
                    "linkage",
                    mlirLLVMLinkageAttrGet(context, MlirLLVMLinkage_MlirLLVMLinkageInternal),
                ),
                ("value", value),
                ("addr_space", integer_attribute(i32, 0)),
                // The defaults the op's parser writes out: `unnamed_addr` none, default
                // visibility.
                ("unnamed_addr", integer_attribute(i64, 0)),
                ("visibility_", integer_attribute(i64, 0)),
            ],
            &[mlirRegionCreate()],
        );
    }
}

/// Lowers `dsa.launch` (the module's launch number `launch`) to `td_launch_begin`, an `scf.for`
/// over its core table calling the kernel's function, and `td_launch_end`.
///
/// # Safety
/// `op` is an alive, verified `dsa.launch` in a lowered host function of `module` whose `%dev` is
/// `device`, and `builder` is before it.
pub(super) unsafe fn lower_launch(
    op: MlirOperation,
    builder: &Builder,
    device: MlirValue,
    module: MlirOperation,
    cores_per_cluster: i64,
    launch: usize,
) {
    // SAFETY: the caller's guarantee; the loop's body block is created here and filled before
    // the loop is used.
    unsafe {
        let context = builder.context;
        let kernel = referenced_symbol(op, "kernel");
        let cores = i64_array(op, "cores", &[]);
        let name_global = format!("{kernel}.name");
        if !defines_symbol(module, &name_global) {
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
        let body = mlirBlockCreate(1, &index, &builder.location);
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, body);
        let (lower, upper, step) = (
            builder.constant_index(0),
            builder.constant_index(cores.len() as i64),
            builder.constant_index(1),
        );
        builder.create("scf.for", &[lower, upper, step], Some(&[]), &[], &[region]);
        let inner = Builder::at_end(body, context, builder.location);
        let position = mlirBlockGetArgument(body, 0);
        let word = inner.load_i64(inner.dynamic_word(
            table,
            inner.cast("arith.index_cast", position, i64_type(context)),
        ));
        let cluster = inner.cast("arith.trunci", word, i32_type(context));
        let high = inner.value(
            "arith.shrui",
            &[word, inner.constant_i64(32)],
            i64_type(context),
            &[],
        );
        let core = inner.cast("arith.trunci", high, i32_type(context));
        let mut arguments = vec![device, cluster, core, position];
        arguments.extend(operands(op));
        inner.call(&kernel, &arguments, &[]);
        inner.create("scf.yield", &[], Some(&[]), &[], &[]);

        builder.call_runtime("td_launch_end", &[device, builder.null()]);
    }
}
