//! Buffers: a runtime buffer handle carried as a memref, and back.
//!
//! A buffer stays a memref (in the default memory space) so that `memref.subview` and the
//! upstream memref lowering keep working on it, but its allocated and aligned pointers are the
//! runtime's handle, never dereferenced. So a handle becomes a memref by filling a descriptor
//! (its offset, sizes and strides are in elements, as the runtime's views count them), and a
//! memref becomes a `td_view` in [`super::views`].

use super::abi::{level_code, FunctionState, TOKEN_WORD};
use super::builder::Builder;
use super::ir::operands;
use super::types::{
    convert_type, descriptor_type, i64_array_attribute, i64_type, index_type, memory_space,
    pointer_type,
};
use mlir_sys::*;

/// A memref of `memref_type` (identity or strided layout, static) whose pointers are the runtime
/// handle `handle` (i64).
///
/// # Safety
/// The [`Builder`] contract; `handle` is an alive `i64` value and `memref_type` a memref type
/// of static shape and strides, both of the builder's context.
pub(super) unsafe fn from_handle(
    builder: &Builder,
    handle: MlirValue,
    memref_type: MlirType,
) -> MlirValue {
    // SAFETY: the caller's guarantee; strides are read into a vector of the memref's rank.
    unsafe {
        let rank = mlirShapedTypeGetRank(memref_type) as usize;
        let mut strides = vec![0i64; rank];
        let mut offset = 0i64;
        let strided =
            mlirMemRefTypeGetStridesAndOffset(memref_type, strides.as_mut_ptr(), &mut offset);
        assert!(strided.value != 0, "buffers have strided layouts");
        let descriptor_type = descriptor_type(builder.context, rank);
        let pointer = builder.cast("llvm.inttoptr", handle, pointer_type(builder.context));
        let mut descriptor = builder.value("llvm.mlir.undef", &[], descriptor_type, &[]);
        let mut insert = |value: MlirValue, position: &[i64]| {
            descriptor = builder.value(
                "llvm.insertvalue",
                &[descriptor, value],
                descriptor_type,
                &[("position", i64_array_attribute(builder.context, position))],
            );
        };
        insert(pointer, &[0]);
        insert(pointer, &[1]);
        insert(builder.constant_i64(offset), &[2]);
        for (dimension, &stride) in strides.iter().enumerate() {
            let size = mlirShapedTypeGetDimSize(memref_type, dimension as isize);
            insert(builder.constant_i64(size), &[3, dimension as i64]);
            insert(builder.constant_i64(stride), &[4, dimension as i64]);
        }
        builder.value(
            "builtin.unrealized_conversion_cast",
            &[descriptor],
            memref_type,
            &[],
        )
    }
}

/// The runtime handle of a buffer, as an `i64`.
///
/// # Safety
/// The [`Builder`] contract; `buffer` is an alive memref value of its context.
unsafe fn handle(builder: &Builder, buffer: MlirValue) -> MlirValue {
    // SAFETY: the caller's guarantee.
    unsafe {
        let index = index_type(builder.context);
        let pointer = builder.cast("memref.extract_aligned_pointer_as_index", buffer, index);
        builder.cast("arith.index_cast", pointer, i64_type(builder.context))
    }
}

/// Lowers `dsa.alloc`: `td_buffer_alloc` at the buffer's level (a kernel's LB/GB on its own
/// core and cluster, a host buffer where its `cluster` and `core` place it, (0, 0) by default),
/// then the memref of the returned handle.
///
/// # Safety
/// `op` is an alive, checked `dsa.alloc`, `builder` is before it, and `state` is its function's.
pub(super) unsafe fn lower_alloc(op: MlirOperation, builder: &Builder, state: FunctionState) {
    // SAFETY: the caller's guarantee; the checks made the result an f32 buffer in a dsa space.
    unsafe {
        let result = mlirOperationGetResult(op, 0);
        let r#type = mlirValueGetType(result);
        let level = level_code(memory_space(r#type).expect("checked: a dsa buffer"));
        let placed = |name: &str| {
            let attribute = mlirOperationGetAttributeByName(op, crate::ir::string_ref(name));
            if attribute.ptr.is_null() {
                0
            } else {
                mlirIntegerAttrGetValueInt(attribute)
            }
        };
        let (cluster, core) = state.core.unwrap_or_else(|| {
            (
                builder.constant_i32(placed("cluster")),
                builder.constant_i32(placed("core")),
            )
        });
        let bytes = 4
            * (0..mlirShapedTypeGetRank(r#type))
                .map(|dimension| mlirShapedTypeGetDimSize(r#type, dimension as isize))
                .product::<i64>();
        let handle_slot = builder.word(
            state.scratch.expect("allocating functions have scratch"),
            TOKEN_WORD,
        );
        builder.call_runtime(
            "td_buffer_alloc",
            &[
                state.device,
                builder.constant_i32(level),
                cluster,
                core,
                builder.constant_i64(bytes),
                builder.constant_i32(0),
                handle_slot,
            ],
        );
        let handle = builder.load_i64(handle_slot);
        let buffer = from_handle(builder, handle, convert_type(r#type).unwrap_or(r#type));
        mlirValueReplaceAllUsesOfWith(result, buffer);
    }
}

/// Lowers `dsa.dealloc`: `td_buffer_release`, which defers the free to the end of the launch
/// being recorded.
///
/// # Safety
/// `op` is an alive `dsa.dealloc`, `builder` is before it, and `state` is its function's.
pub(super) unsafe fn lower_dealloc(op: MlirOperation, builder: &Builder, state: FunctionState) {
    // SAFETY: the caller's guarantee; a dealloc has one buffer operand.
    unsafe {
        let handle = handle(builder, operands(op)[0]);
        builder.call_runtime("td_buffer_release", &[state.device, handle]);
    }
}
