//! Buffers: a runtime buffer handle carried as a memref, and back.
//!
//! A buffer stays a memref (in the default memory space) so that `memref.subview` and the
//! upstream memref lowering keep working on it, but its allocated and aligned pointers are the
//! runtime's handle, never dereferenced. So a handle becomes a memref by filling a descriptor
//! (its offset, sizes and strides are in elements, as the runtime's views count them), and a
//! memref becomes a `td_view` in [`super::views`].

use super::abi::{level_code, FunctionState, TOKEN_WORD};
use super::builder::Builder;
use super::types::{
    convert_type, descriptor_type, i64_type, index_type, memory_space, pointer_type,
    runtime_element,
};
use crate::ir::{i64_array, Op, Val};
use mlir_sys::*;
use turbine_dialects::ops::upstream;

/// A memref of `memref_type` (identity or strided layout, static, of the builder's context) whose
/// pointers are the runtime handle `handle` (i64).
pub(super) fn from_handle(builder: &Builder, handle: Val, memref_type: MlirType) -> Val {
    // SAFETY: the type is alive and a memref; strides are read into a vector of its rank.
    let (strides, offset, sizes) = unsafe {
        let rank = mlirShapedTypeGetRank(memref_type) as usize;
        let mut strides = vec![0i64; rank];
        let mut offset = 0i64;
        let strided =
            mlirMemRefTypeGetStridesAndOffset(memref_type, strides.as_mut_ptr(), &mut offset);
        assert!(strided.value != 0, "buffers have strided layouts");
        let sizes: Vec<i64> = (0..rank)
            .map(|dimension| mlirShapedTypeGetDimSize(memref_type, dimension as isize))
            .collect();
        (strides, offset, sizes)
    };
    let descriptor_type = descriptor_type(builder.context, strides.len());
    let pointer = builder.cast(
        upstream::Kind::LlvmInttoptr,
        handle,
        pointer_type(builder.context),
    );
    let mut descriptor = builder.value(upstream::Kind::LlvmMlirUndef, &[], descriptor_type, &[]);
    let mut insert = |value: Val, position: &[i64]| {
        descriptor = builder.value(
            upstream::Kind::LlvmInsertvalue,
            &[descriptor, value],
            descriptor_type,
            &[("position", i64_array(builder.context, position))],
        );
    };
    insert(pointer, &[0]);
    insert(pointer, &[1]);
    insert(builder.constant_i64(offset), &[2]);
    for (dimension, (&size, &stride)) in sizes.iter().zip(&strides).enumerate() {
        insert(builder.constant_i64(size), &[3, dimension as i64]);
        insert(builder.constant_i64(stride), &[4, dimension as i64]);
    }
    builder.value(
        upstream::Kind::BuiltinUnrealizedConversionCast,
        &[descriptor],
        memref_type,
        &[],
    )
}

/// The runtime handle of `buffer` (a memref value of the builder's context), as an `i64`.
fn handle(builder: &Builder, buffer: Val) -> Val {
    let index = index_type(builder.context);
    let pointer = builder.cast(
        upstream::Kind::MemrefExtractAlignedPointerAsIndex,
        buffer,
        index,
    );
    builder.cast(
        upstream::Kind::ArithIndexCast,
        pointer,
        i64_type(builder.context),
    )
}

/// Lowers `op`, a checked `dsa.alloc`: `td_buffer_alloc` at the buffer's level (a kernel's LB/GB
/// on its own core and cluster, a host buffer where its `cluster` and `core` place it, (0, 0) by
/// default), then the memref of the returned handle. `builder` is before the op, and `state` is
/// its function's.
pub(super) fn lower_alloc(op: Op, builder: &Builder, state: FunctionState) {
    let result = op.result(0);
    let r#type = result.r#type();
    let level = level_code(memory_space(r#type).expect("checked: a dsa buffer"));
    let placed = |name: &str| op.integer_value(name).unwrap_or(0);
    let (cluster, core) = state.core.unwrap_or_else(|| {
        (
            builder.constant_i32(placed("cluster")),
            builder.constant_i32(placed("core")),
        )
    });
    // SAFETY: the checks made the result's type a ranked buffer; indices stay below its rank.
    let (elements, element) = unsafe {
        let elements = (0..mlirShapedTypeGetRank(r#type))
            .map(|dimension| mlirShapedTypeGetDimSize(r#type, dimension as isize))
            .product::<i64>();
        (elements, mlirShapedTypeGetElementType(r#type))
    };
    let (dtype, size) = runtime_element(element).expect("checked: an element the runtime holds");
    let bytes = size * elements;
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
            builder.constant_i32(dtype),
            handle_slot,
        ],
    );
    let handle = builder.load_i64(handle_slot);
    let buffer = from_handle(builder, handle, convert_type(r#type).unwrap_or(r#type));
    result.replace_all_uses_with(buffer);
}

/// Lowers `op`, a `dsa.dealloc`: `td_buffer_release`, which defers the free to the end of the
/// launch being recorded. `builder` is before the op, and `state` is its function's.
pub(super) fn lower_dealloc(op: Op, builder: &Builder, state: FunctionState) {
    let handle = handle(builder, op.operand(0));
    builder.call_runtime("td_buffer_release", &[state.device, handle]);
}
