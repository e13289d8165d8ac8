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
use super::types::{
    array_attribute, convert_type, dictionary_attribute, i32_type, i64_type, memory_space,
    pointer_type, runtime_element, type_attribute,
};
use crate::ir::function_type;
use crate::ir::{block_arguments, region_with_block, string_attribute, string_ref, Op};
use melior::ir::AttributeLike;
use mlir_sys::*;
use turbine_dialects::attributes::dsa::MemorySpace;
use turbine_dialects::ops::upstream;

/// If `function` (a verified `func.func` that the lowering has not changed yet) is an entry point
/// (public, only DDR buffer arguments of static shape and an element type the runtime holds, no
/// results), its `dsa.arguments`
/// record: for each argument, `{type = <lowered type>, attributes = <its argument attributes>}`.
pub(super) fn entry_record(function: Op) -> Option<MlirAttribute> {
    if function
        .string_value("sym_visibility")
        .is_some_and(|visibility| visibility != "public")
    {
        return None;
    }
    let context = function.context();
    let function_type = function.attribute("function_type")?.to_raw();
    let arg_attrs = function.attribute("arg_attrs").map(|attrs| attrs.to_raw());
    // SAFETY: a verified func.func's `function_type` is a type attribute of a function type and
    // its `arg_attrs` an array of one dictionary per input; indices stay below the counts.
    unsafe {
        let function_type = mlirTypeAttrGetValue(function_type);
        if mlirFunctionTypeGetNumResults(function_type) != 0 {
            return None;
        }
        let mut records = Vec::new();
        for index in 0..mlirFunctionTypeGetNumInputs(function_type) {
            let input = mlirFunctionTypeGetInput(function_type, index);
            let is_buffer = memory_space(input) == Some(MemorySpace::Ddr)
                && mlirShapedTypeHasStaticShape(input)
                && runtime_element(mlirShapedTypeGetElementType(input)).is_some();
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

/// Renames entry `function` (a lowered entry point of `module` whose record is `record`) to
/// `<name>.impl` (private) and adds the C-ABI function `i32 <name>(i64 device, ptr buffers)` that
/// calls it and returns the device's first error.
pub(super) fn make_entry(module: Op, function: Op, record: MlirAttribute) {
    let name = function.symbol_name();
    let implementation = format!("{name}.impl");
    let builder = Builder::before(function);
    let context = builder.context;
    // SAFETY: the module is alive; the names are borrowed for the call.
    let renamed = unsafe {
        mlirSymbolTableReplaceAllSymbolUses(
            string_ref(&name),
            string_ref(&implementation),
            module.raw(),
        )
    };
    assert!(
        renamed.value != 0,
        "symbol uses in the module can be renamed"
    );
    function.set_attribute("sym_name", string_attribute(context, &implementation));
    function.set_attribute("sym_visibility", string_attribute(context, "private"));

    let (device_type, pointer) = (i64_type(context), pointer_type(context));
    let abi = function_type(context, &[device_type, pointer], &[i32_type(context)]);
    let (region, body) = region_with_block(&[device_type, pointer], builder.location);
    builder.function(&name, abi, &[("dsa.arguments", record)], region);

    let inner = Builder::at_end(body, context, builder.location);
    let parameters = block_arguments(body);
    let (device, handles) = (parameters[0], parameters[1]);
    let implementation_block = function.entry_block().expect("an entry point has a body");
    let mut arguments = vec![device];
    for (index, argument) in block_arguments(implementation_block)
        .into_iter()
        .enumerate()
        .skip(1)
    {
        let handle = inner.load_i64(inner.word(handles, index - 1));
        arguments.push(from_handle(&inner, handle, argument.r#type()));
    }
    inner.call(&implementation, &arguments, &[]);
    let status = inner
        .call("td_device_take_error", &[device], &[i32_type(context)])
        .result(0);
    inner.create(upstream::Kind::FuncReturn, &[status], Some(&[]), &[], &[]);
}
