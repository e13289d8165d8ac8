//! Entry points: the functions a host program calls, given the C ABI `i32 f(i64 device, ptr
//! buffers)`.
//!
//! A C caller cannot build memref descriptors, so an entry point takes one `u64` handle per
//! buffer and rebuilds the descriptors itself; its original body is kept as `f.impl`. Calls are
//! not checked one by one (a structured loop cannot exit early), so the entry point returns
//! `td_device_take_error`, the first failure the runtime kept.
//!
//! The lowered signature no longer says what each handle must be, so the original arguments' types
//! and attributes are kept in the `dsa.arguments` attribute for the JIT and the C header writer.
//! It holds the *lowered* types (every entry argument is in DDR anyway): the record must survive
//! into LLVM-dialect IR that tools without the dsa dialect read.

use super::buffers::from_handle;
use super::builder::Builder;
use super::ir::{attribute, entry_block, string_ref, string_value, symbol_name};
use super::types::{
    array_attribute, convert_type, dictionary_attribute, function_type, i32_type, i64_type,
    memory_space, pointer_type, string_attribute, type_attribute,
};
use mlir_sys::*;
use turbine_dialects::attributes::dsa::MemorySpace;

/// If `function` is an entry point (public, only DDR f32 buffer arguments of static shape, no
/// results), its `dsa.arguments` record: for each argument, `{type = <lowered type>, attributes =
/// <its argument attributes>}`.
///
/// # Safety
/// `function` is an alive, verified `func.func` that the lowering has not changed yet.
pub(super) unsafe fn entry_record(function: MlirOperation) -> Option<MlirAttribute> {
    // SAFETY: the caller's guarantee; a verified func.func's `sym_visibility` is a string, its
    // `function_type` a function type and its `arg_attrs` an array of one dictionary per input.
    unsafe {
        if attribute(function, "sym_visibility").is_some_and(|v| string_value(v) != "public") {
            return None;
        }
        let context = mlirOperationGetContext(function);
        let function_type = mlirTypeAttrGetValue(attribute(function, "function_type")?);
        if mlirFunctionTypeGetNumResults(function_type) != 0 {
            return None;
        }
        let arg_attrs = attribute(function, "arg_attrs");
        let mut records = Vec::new();
        for index in 0..mlirFunctionTypeGetNumInputs(function_type) {
            let input = mlirFunctionTypeGetInput(function_type, index);
            let is_buffer = memory_space(input) == Some(MemorySpace::Ddr)
                && mlirShapedTypeHasStaticShape(input)
                && mlirTypeIsAF32(mlirShapedTypeGetElementType(input));
            if !is_buffer {
                return None;
            }
            let attributes = match arg_attrs {
                Some(attrs) => mlirArrayAttrGetElement(attrs, index),
                None => dictionary_attribute(context, &[]),
            };
            let lowered = convert_type(input).expect("entry arguments are dsa buffers");
            records.push(dictionary_attribute(
                context,
                &[
                    ("type", type_attribute(lowered)),
                    ("attributes", attributes),
                ],
            ));
        }
        Some(array_attribute(context, &records))
    }
}

/// Renames entry `function` to `<name>.impl` (private) and adds the C-ABI function
/// `i32 <name>(i64 device, ptr buffers)` that calls it and returns the device's first error.
///
/// # Safety
/// `module` is the alive module of `function`, a lowered entry point whose record is `record`.
pub(super) unsafe fn make_entry(
    module: MlirOperation,
    function: MlirOperation,
    record: MlirAttribute,
) {
    // SAFETY: the caller's guarantee; the new body block is created here and filled before the
    // function is used.
    unsafe {
        let name = symbol_name(function);
        let implementation = format!("{name}.impl");
        let builder = Builder::before(function);
        let context = builder.context;
        let renamed = mlirSymbolTableReplaceAllSymbolUses(
            string_ref(&name),
            string_ref(&implementation),
            module,
        );
        assert!(
            renamed.value != 0,
            "symbol uses in the module can be renamed"
        );
        mlirOperationSetAttributeByName(
            function,
            string_ref("sym_name"),
            string_attribute(context, &implementation),
        );
        mlirOperationSetAttributeByName(
            function,
            string_ref("sym_visibility"),
            string_attribute(context, "private"),
        );

        let (device_type, pointer) = (i64_type(context), pointer_type(context));
        let abi = function_type(context, &[device_type, pointer], &[i32_type(context)]);
        let types = [device_type, pointer];
        let locations = [builder.location; 2];
        let body = mlirBlockCreate(2, types.as_ptr(), locations.as_ptr());
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, body);
        builder.function(&name, abi, &[("dsa.arguments", record)], region);

        let inner = Builder::at_end(body, context, builder.location);
        let (device, handles) = (mlirBlockGetArgument(body, 0), mlirBlockGetArgument(body, 1));
        let implementation_block = entry_block(function);
        let mut arguments = vec![device];
        for index in 1..mlirBlockGetNumArguments(implementation_block) {
            let r#type = mlirValueGetType(mlirBlockGetArgument(implementation_block, index));
            let handle = inner.load_i64(inner.word(handles, index as usize - 1));
            arguments.push(from_handle(&inner, handle, r#type));
        }
        inner.call(&implementation, &arguments, &[]);
        let status = mlirOperationGetResult(
            inner.call("td_device_take_error", &[device], &[i32_type(context)]),
            0,
        );
        inner.create("func.return", &[status], Some(&[]), &[], &[]);
    }
}
