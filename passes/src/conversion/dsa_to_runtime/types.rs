//! The types and attributes of the lowered IR, and the conversion of buffer and token types.
//!
//! Everything is built by the typed constructors of the C API rather than parsed from text: a
//! constructor cannot fail on a typo at run time, needs no NUL-terminated copy of a source
//! string, and takes values (a kernel's name, a core table) as they are instead of escaped into
//! MLIR syntax.
//!
//! Every `unsafe fn` here takes C-API handles; its contract is that they are alive (a context not
//! destroyed, types and attributes of that context).

use super::ir::{attribute, entry_block, op_name, string_ref, walk};
use melior::ir::Type;
use mlir_sys::*;
use turbine_dialects::attributes::dsa::{self, MemorySpace};

/// `i64`.
pub(super) unsafe fn i64_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirIntegerTypeGet(context, 64) }
}

/// `i32`.
pub(super) unsafe fn i32_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirIntegerTypeGet(context, 32) }
}

/// `i8`.
pub(super) unsafe fn i8_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirIntegerTypeGet(context, 8) }
}

/// `f32`.
pub(super) unsafe fn f32_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirF32TypeGet(context) }
}

/// `index`.
pub(super) unsafe fn index_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirIndexTypeGet(context) }
}

/// `!llvm.ptr` (address space 0).
///
/// # Safety
/// `context` is alive and has the LLVM dialect loaded.
pub(super) unsafe fn pointer_type(context: MlirContext) -> MlirType {
    // SAFETY: the caller's guarantee.
    unsafe { mlirLLVMPointerTypeGet(context, 0) }
}

/// `!llvm.array<length x element>`.
///
/// # Safety
/// `element` is alive and an LLVM-compatible type.
pub(super) unsafe fn array_type(element: MlirType, length: usize) -> MlirType {
    let length = u32::try_from(length).expect("LLVM array lengths fit in 32 bits");
    // SAFETY: the caller's guarantee.
    unsafe { mlirLLVMArrayTypeGet(element, length) }
}

/// The LLVM struct of a memref descriptor of rank `rank`: `(ptr, ptr, i64)` then, for a ranked
/// buffer, `array<rank x i64>` of sizes and of strides.
///
/// # Safety
/// `context` is alive and has the LLVM dialect loaded.
pub(super) unsafe fn descriptor_type(context: MlirContext, rank: usize) -> MlirType {
    // SAFETY: the caller's guarantee; every field is an LLVM-compatible type of the context.
    unsafe {
        let (pointer, word) = (pointer_type(context), i64_type(context));
        let mut fields = vec![pointer, pointer, word];
        if rank > 0 {
            let extents = array_type(word, rank);
            fields.extend([extents, extents]);
        }
        mlirLLVMStructTypeLiteralGet(context, fields.len() as isize, fields.as_ptr(), false)
    }
}

/// `(inputs) -> results`.
pub(super) unsafe fn function_type(
    context: MlirContext,
    inputs: &[MlirType],
    results: &[MlirType],
) -> MlirType {
    // SAFETY: the caller's guarantee; the slices are read during the call.
    unsafe {
        mlirFunctionTypeGet(
            context,
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        )
    }
}

/// `value : type` for an integer or index `r#type`.
///
/// # Safety
/// `r#type` is an alive integer or index type.
pub(super) unsafe fn integer_attribute(r#type: MlirType, value: i64) -> MlirAttribute {
    // SAFETY: the caller's guarantee.
    unsafe { mlirIntegerAttrGet(r#type, value) }
}

/// `"text"`.
pub(super) unsafe fn string_attribute(context: MlirContext, text: &str) -> MlirAttribute {
    // SAFETY: the caller's guarantee; MLIR copies the text into the context.
    unsafe { mlirStringAttrGet(context, string_ref(text)) }
}

/// `@symbol`.
pub(super) unsafe fn symbol_reference(context: MlirContext, symbol: &str) -> MlirAttribute {
    // SAFETY: the caller's guarantee; MLIR copies the name into the context.
    unsafe { mlirFlatSymbolRefAttrGet(context, string_ref(symbol)) }
}

/// `array<i32: values>`.
pub(super) unsafe fn i32_array_attribute(context: MlirContext, values: &[i32]) -> MlirAttribute {
    // SAFETY: the caller's guarantee; the values are copied.
    unsafe { mlirDenseI32ArrayGet(context, values.len() as isize, values.as_ptr()) }
}

/// `array<i64: values>`.
pub(super) unsafe fn i64_array_attribute(context: MlirContext, values: &[i64]) -> MlirAttribute {
    // SAFETY: the caller's guarantee; the values are copied.
    unsafe { mlirDenseI64ArrayGet(context, values.len() as isize, values.as_ptr()) }
}

/// `dense<values> : tensor<N x i64>`.
pub(super) unsafe fn dense_i64_attribute(context: MlirContext, values: &[i64]) -> MlirAttribute {
    // SAFETY: the caller's guarantee; the shape and values are copied.
    unsafe {
        let shape = [values.len() as i64];
        let tensor =
            mlirRankedTensorTypeGet(1, shape.as_ptr(), i64_type(context), mlirAttributeGetNull());
        mlirDenseElementsAttrInt64Get(tensor, values.len() as isize, values.as_ptr())
    }
}

/// A type in attribute position (`elem_type = i64`, `function_type = (...) -> ...`).
pub(super) unsafe fn type_attribute(r#type: MlirType) -> MlirAttribute {
    // SAFETY: the caller's guarantee.
    unsafe { mlirTypeAttrGet(r#type) }
}

/// `[elements]`.
pub(super) unsafe fn array_attribute(
    context: MlirContext,
    elements: &[MlirAttribute],
) -> MlirAttribute {
    // SAFETY: the caller's guarantee; the elements are copied.
    unsafe { mlirArrayAttrGet(context, elements.len() as isize, elements.as_ptr()) }
}

/// `{name = value, ...}` (MLIR sorts the entries by name).
pub(super) unsafe fn dictionary_attribute(
    context: MlirContext,
    entries: &[(&str, MlirAttribute)],
) -> MlirAttribute {
    // SAFETY: the caller's guarantee; names are uniqued into the context, entries copied.
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
pub(super) unsafe fn unit_attribute(context: MlirContext) -> MlirAttribute {
    // SAFETY: the caller's guarantee.
    unsafe { mlirUnitAttrGet(context) }
}

/// The dsa memory space of a memref type, None for another type or memory space.
pub(super) unsafe fn memory_space(r#type: MlirType) -> Option<MemorySpace> {
    // SAFETY: the caller's guarantee.
    MemorySpace::of_type(unsafe { Type::from_raw(r#type) })
}

/// The lowered type of `r#type`, or None if it stays: a token is an `i64`, a buffer loses its
/// dsa memory space.
pub(super) unsafe fn convert_type(r#type: MlirType) -> Option<MlirType> {
    // SAFETY: the caller's guarantee; a type with a dsa memory space is a memref, so the shaped
    // and memref accessors apply.
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
pub(super) unsafe fn convert_types(module: MlirOperation) {
    // SAFETY: the module is alive and nothing is erased during the walk; indices stay in range.
    unsafe {
        for op in walk(module) {
            for index in 0..mlirOperationGetNumResults(op) {
                let result = mlirOperationGetResult(op, index);
                if let Some(converted) = convert_type(mlirValueGetType(result)) {
                    mlirValueSetType(result, converted);
                }
            }
            for region in 0..mlirOperationGetNumRegions(op) {
                let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, region));
                while !block.ptr.is_null() {
                    for index in 0..mlirBlockGetNumArguments(block) {
                        let argument = mlirBlockGetArgument(block, index);
                        if let Some(converted) = convert_type(mlirValueGetType(argument)) {
                            mlirValueSetType(argument, converted);
                        }
                    }
                    block = mlirBlockGetNextInRegion(block);
                }
            }
            if op_name(op) == "func.func" {
                convert_function_type(op);
            }
        }
    }
}

/// Recomputes a function's type from its entry block's (already converted) arguments, or from
/// its declared inputs for a declaration, and its converted results.
///
/// # Safety
/// `function` is an alive `func.func`.
unsafe fn convert_function_type(function: MlirOperation) {
    // SAFETY: the caller's guarantee; a func.func has a function_type and one region.
    unsafe {
        let old = mlirTypeAttrGetValue(
            attribute(function, "function_type").expect("functions have a type"),
        );
        let block = entry_block(function);
        let inputs: Vec<MlirType> = if block.ptr.is_null() {
            (0..mlirFunctionTypeGetNumInputs(old))
                .map(|i| mlirFunctionTypeGetInput(old, i))
                .collect()
        } else {
            (0..mlirBlockGetNumArguments(block))
                .map(|i| mlirValueGetType(mlirBlockGetArgument(block, i)))
                .collect()
        };
        let convert = |r#type: MlirType| convert_type(r#type).unwrap_or(r#type);
        let inputs: Vec<MlirType> = inputs.into_iter().map(convert).collect();
        let results: Vec<MlirType> = (0..mlirFunctionTypeGetNumResults(old))
            .map(|i| convert(mlirFunctionTypeGetResult(old, i)))
            .collect();
        let new = function_type(mlirOperationGetContext(function), &inputs, &results);
        mlirOperationSetAttributeByName(function, string_ref("function_type"), type_attribute(new));
    }
}
