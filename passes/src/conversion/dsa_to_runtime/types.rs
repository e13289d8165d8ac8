//! The types and attributes of the lowered IR, and the conversion of buffer and token types.
//!
//! Everything is built by the typed constructors of the C API rather than parsed from text: a
//! constructor cannot fail on a typo at run time, needs no NUL-terminated copy of a source
//! string, and takes values (a kernel's name, a core table) as they are instead of escaped into
//! MLIR syntax.
//!
//! The functions here take C-API handles of types, attributes and contexts, which like
//! [`crate::ir`]'s are alive for the pass run (a context not destroyed, types and attributes of
//! that context).

use crate::ir::{block_arguments, function_type, string_ref, Op};
use melior::ir::{AttributeLike, Type};
use mlir_sys::*;
use turbine_dialects::attributes::dsa::{self, MemorySpace};
use turbine_dialects::ops::upstream;

/// `i64`.
pub(super) fn i64_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerTypeGet(context, 64) }
}

/// The `i1` type.
pub(super) fn i1_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerTypeGet(context, 1) }
}

/// `i32`.
pub(super) fn i32_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerTypeGet(context, 32) }
}

/// `i8`.
pub(super) fn i8_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerTypeGet(context, 8) }
}

/// `f32`.
pub(super) fn f32_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirF32TypeGet(context) }
}

/// The runtime's `TD_DTYPE_*` code and the size in bytes of buffer elements of type `element`:
/// f32, i64, i32, i8, ui8, i1 (booleans, one byte each), f16 and bf16; None for the others.
pub(super) fn runtime_element(element: MlirType) -> Option<(i64, i64)> {
    // SAFETY: the type is alive.
    unsafe {
        if mlirTypeIsAF32(element) {
            return Some((0, 4));
        }
        if mlirTypeIsAF16(element) {
            return Some((6, 2));
        }
        if mlirTypeIsABF16(element) {
            return Some((7, 2));
        }
        if !mlirTypeIsAInteger(element) {
            return None;
        }
        let width = mlirIntegerTypeGetWidth(element);
        let unsigned = mlirIntegerTypeIsUnsigned(element);
        let signless = mlirIntegerTypeIsSignless(element);
        match (width, signless, unsigned) {
            (64, true, _) => Some((1, 8)),
            (32, true, _) => Some((2, 4)),
            (8, true, _) => Some((3, 1)),
            (8, _, true) => Some((4, 1)),
            (1, true, _) => Some((5, 1)),
            _ => None,
        }
    }
}

/// `index`.
pub(super) fn index_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIndexTypeGet(context) }
}

/// `!llvm.ptr` (address space 0); `context` has the LLVM dialect loaded.
pub(super) fn pointer_type(context: MlirContext) -> MlirType {
    // SAFETY: the context is alive, with the LLVM dialect the pass depends on.
    unsafe { mlirLLVMPointerTypeGet(context, 0) }
}

/// `!llvm.array<length x element>` of an LLVM-compatible `element`.
pub(super) fn array_type(element: MlirType, length: usize) -> MlirType {
    let length = u32::try_from(length).expect("LLVM array lengths fit in 32 bits");
    // SAFETY: the element type is alive and LLVM-compatible (the callers' i8 and i64).
    unsafe { mlirLLVMArrayTypeGet(element, length) }
}

/// The LLVM struct of a memref descriptor of rank `rank`: `(ptr, ptr, i64)` then, for a ranked
/// buffer, `array<rank x i64>` of sizes and of strides.
pub(super) fn descriptor_type(context: MlirContext, rank: usize) -> MlirType {
    let (pointer, word) = (pointer_type(context), i64_type(context));
    let mut fields = vec![pointer, pointer, word];
    if rank > 0 {
        let extents = array_type(word, rank);
        fields.extend([extents, extents]);
    }
    // SAFETY: the context is alive; every field is an LLVM-compatible type of it.
    unsafe { mlirLLVMStructTypeLiteralGet(context, fields.len() as isize, fields.as_ptr(), false) }
}

/// Whether `r#type` is a memref type.
pub(super) fn is_memref(r#type: MlirType) -> bool {
    // SAFETY: the type is alive.
    unsafe { mlirTypeIsAMemRef(r#type) }
}

/// `value : type` for an integer or index `r#type`.
pub(super) fn integer_attribute(r#type: MlirType, value: i64) -> MlirAttribute {
    // SAFETY: the type is alive, and an integer or index type.
    unsafe { mlirIntegerAttrGet(r#type, value) }
}

/// `@symbol`.
pub(super) fn symbol_reference(context: MlirContext, symbol: &str) -> MlirAttribute {
    // SAFETY: the context is alive; MLIR copies the name into it.
    unsafe { mlirFlatSymbolRefAttrGet(context, string_ref(symbol)) }
}

/// `array<i32: values>`.
pub(super) fn i32_array_attribute(context: MlirContext, values: &[i32]) -> MlirAttribute {
    // SAFETY: the context is alive; the values are copied.
    unsafe { mlirDenseI32ArrayGet(context, values.len() as isize, values.as_ptr()) }
}

/// `dense<values> : tensor<N x i64>`.
pub(super) fn dense_i64_attribute(context: MlirContext, values: &[i64]) -> MlirAttribute {
    // SAFETY: the context is alive; the shape and values are copied.
    unsafe {
        let shape = [values.len() as i64];
        let tensor =
            mlirRankedTensorTypeGet(1, shape.as_ptr(), i64_type(context), mlirAttributeGetNull());
        mlirDenseElementsAttrInt64Get(tensor, values.len() as isize, values.as_ptr())
    }
}

/// A type in attribute position (`elem_type = i64`, `function_type = (...) -> ...`).
pub(super) fn type_attribute(r#type: MlirType) -> MlirAttribute {
    // SAFETY: the type is alive.
    unsafe { mlirTypeAttrGet(r#type) }
}

/// `[elements]`.
pub(super) fn array_attribute(context: MlirContext, elements: &[MlirAttribute]) -> MlirAttribute {
    // SAFETY: the handles are alive; the elements are copied.
    unsafe { mlirArrayAttrGet(context, elements.len() as isize, elements.as_ptr()) }
}

/// `{name = value, ...}` (MLIR sorts the entries by name).
pub(super) fn dictionary_attribute(
    context: MlirContext,
    entries: &[(&str, MlirAttribute)],
) -> MlirAttribute {
    // SAFETY: the handles are alive; names are uniqued into the context, entries copied.
    unsafe {
        let named: Vec<MlirNamedAttribute> = entries
            .iter()
            .map(|&(name, value)| {
                mlirNamedAttributeGet(mlirIdentifierGet(context, string_ref(name)), value)
            })
            .collect();
        mlirDictionaryAttrGet(context, named.len() as isize, named.as_ptr())
    }
}

/// `unit`.
pub(super) fn unit_attribute(context: MlirContext) -> MlirAttribute {
    // SAFETY: the context is alive.
    unsafe { mlirUnitAttrGet(context) }
}

/// The dsa memory space of a memref type, None for another type or memory space.
pub(super) fn memory_space(r#type: MlirType) -> Option<MemorySpace> {
    // SAFETY: the type is alive.
    MemorySpace::of_type(unsafe { Type::from_raw(r#type) })
}

/// How an error message shows a type to the user (never read back).
pub(super) fn shown(r#type: MlirType) -> String {
    // SAFETY: the type is alive.
    unsafe { Type::from_raw(r#type) }.to_string()
}

/// The lowered type of `r#type`, or None if it stays: a token is an `i64`, a buffer loses its
/// dsa memory space.
pub(super) fn convert_type(r#type: MlirType) -> Option<MlirType> {
    // SAFETY: the type is alive; a type with a dsa memory space is a memref, so the shaped and
    // memref accessors apply.
    unsafe {
        if dsa::raw::is_token(r#type) {
            return Some(i64_type(mlirTypeGetContext(r#type)));
        }
        memory_space(r#type)?;
        let rank = mlirShapedTypeGetRank(r#type);
        let shape: Vec<i64> = (0..rank)
            .map(|dimension| mlirShapedTypeGetDimSize(r#type, dimension as isize))
            .collect();
        Some(mlirMemRefTypeGet(
            mlirShapedTypeGetElementType(r#type),
            rank as isize,
            shape.as_ptr(),
            mlirMemRefTypeGetLayout(r#type),
            mlirAttributeGetNull(),
        ))
    }
}

/// Gives every value, block argument and function type under `module` its lowered type.
pub(super) fn convert_types(module: Op) {
    for op in module.collect_pre_order() {
        for result in op.results() {
            if let Some(converted) = convert_type(result.r#type()) {
                result.set_type(converted);
            }
        }
        for block in op.blocks() {
            for argument in block_arguments(block) {
                if let Some(converted) = convert_type(argument.r#type()) {
                    argument.set_type(converted);
                }
            }
        }
        if op.is(upstream::Kind::FuncFunc) {
            convert_function_type(op);
        }
    }
}

/// Recomputes the type of `function` (a `func.func`) from its entry block's (already converted)
/// arguments, or from its declared inputs for a declaration, and its converted results.
fn convert_function_type(function: Op) {
    let old = function
        .attribute("function_type")
        .expect("functions have a type")
        .to_raw();
    let convert = |r#type: MlirType| convert_type(r#type).unwrap_or(r#type);
    // SAFETY: a func.func's function_type is a type attribute of a function type, and the
    // indices stay below its counts.
    let (inputs, results) = unsafe {
        let old = mlirTypeAttrGetValue(old);
        let inputs: Vec<MlirType> = match function.entry_block() {
            None => (0..mlirFunctionTypeGetNumInputs(old))
                .map(|i| mlirFunctionTypeGetInput(old, i))
                .collect(),
            Some(block) => block_arguments(block)
                .into_iter()
                .map(|argument| argument.r#type())
                .collect(),
        };
        let results: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(old))
            .map(|i| convert(mlirFunctionTypeGetResult(old, i)))
            .collect();
        (inputs, results)
    };
    let inputs: Vec<MlirType> = inputs.into_iter().map(convert).collect();
    let new = function_type(function.context(), &inputs, &results);
    function.set_attribute("function_type", type_attribute(new));
}
