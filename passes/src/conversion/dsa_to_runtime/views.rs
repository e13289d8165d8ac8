//! Views: a memref operand of an instruction as the `td_view` the runtime reads (handle,
//! offset, rank, sizes, strides).
//!
//! Kernels name thousands of views, so what each one costs in IR is most of the module and of its
//! compile time. A view's rank, sizes and strides are static in its memref type whenever the type
//! says so, which the lowering makes the common case: they are stored as constants (1 + 2 × rank
//! words). Its element offset is summed here from the chain of `memref.subview`,
//! `memref.reinterpret_cast` and `memref.cast` ops that made the view, and its handle is the
//! pointer of the chain's root, so the chain is left without uses and erased ([`erase_dead_views`])
//! instead of being expanded by `expand-strided-metadata` and turned into descriptors. Anything
//! else (a dynamic size or stride, a dynamic offset of an unknown producer) is read with
//! `memref.extract_strided_metadata`: the result is the same, only larger. (The layout words are
//! not copied from one constant global per layout, though that makes a smaller module: each
//! global's address is something LLVM's fast instruction selector gives up on under the JIT's
//! large code model, which costs more JIT time than the smaller module saves.)

use super::abi::VIEW_WORDS;
use super::builder::Builder;
use super::types::{i64_type, index_type};
use crate::ir::{Op, Val};
use mlir_sys::*;
use turbine_dialects::ops::{upstream, OpKind};

/// Words of a view's layout: rank, four sizes, four strides (words 2 to 10 of a `td_view`; those
/// past the rank are not read).
const LAYOUT_WORDS: usize = 9;

/// The kind of `op` when it makes a view of another memref without moving data
/// (`memref.subview`, `memref.reinterpret_cast`, `memref.cast`): the ops the offset sum walks
/// through and that are erased once nothing uses them.
fn view_kind(op: Op) -> Option<upstream::Kind> {
    op.kind().and_then(OpKind::upstream).filter(|kind| {
        matches!(
            kind,
            upstream::Kind::MemrefSubview
                | upstream::Kind::MemrefReinterpretCast
                | upstream::Kind::MemrefCast
        )
    })
}

/// Stores a `td_view` of `buffer` (a memref value of rank 1 to 4) at view slot `slot` of
/// `scratch` (the function's scratch pointer) and returns its address.
pub(super) fn view(builder: &Builder, scratch: Val, slot: usize, buffer: Val) -> Val {
    let first = slot * VIEW_WORDS;
    let Some(layout) = static_layout(buffer.r#type()) else {
        return view_from_metadata(builder, scratch, first, buffer);
    };
    let (root, offset) = root_and_offset(builder, buffer);
    let context = builder.context;
    let handle = builder.cast(
        upstream::Kind::MemrefExtractAlignedPointerAsIndex,
        root,
        index_type(context),
    );
    builder.store(
        builder.cast(upstream::Kind::ArithIndexCast, handle, i64_type(context)),
        builder.word(scratch, first),
    );
    builder.store(
        builder.cast(upstream::Kind::ArithIndexCast, offset, i64_type(context)),
        builder.word(scratch, first + 1),
    );
    let rank = layout[0] as usize;
    for word in (0..=rank).chain(5..5 + rank) {
        builder.store(
            builder.constant_i64(layout[word]),
            builder.word(scratch, first + 2 + word),
        );
    }
    builder.word(scratch, first)
}

/// Rank, sizes and strides of a memref type (zero past its rank) when all are static.
fn static_layout(r#type: MlirType) -> Option<[i64; LAYOUT_WORDS]> {
    let (strides, _) = strides_and_offset(r#type)?;
    // SAFETY: the type is an alive memref type; dimensions stay below its rank.
    unsafe {
        let rank = mlirShapedTypeGetRank(r#type) as usize;
        let mut layout = [0i64; LAYOUT_WORDS];
        layout[0] = rank as i64;
        for dimension in 0..rank {
            if mlirShapedTypeIsDynamicDim(r#type, dimension as isize) {
                return None;
            }
            layout[1 + dimension] = mlirShapedTypeGetDimSize(r#type, dimension as isize);
            layout[5 + dimension] = strides[dimension];
        }
        strides
            .iter()
            .all(|&s| !mlirShapedTypeIsDynamicStrideOrOffset(s))
            .then_some(layout)
    }
}

/// A memref type's strides and offset (dynamic ones as MLIR's dynamic marker), if its layout is
/// strided.
fn strides_and_offset(r#type: MlirType) -> Option<(Vec<i64>, i64)> {
    // SAFETY: the type is an alive memref type; the strides vector has its rank.
    unsafe {
        let rank = mlirShapedTypeGetRank(r#type) as usize;
        let mut strides = vec![0i64; rank];
        let mut offset = 0i64;
        let strided = mlirMemRefTypeGetStridesAndOffset(r#type, strides.as_mut_ptr(), &mut offset);
        (strided.value != 0).then_some((strides, offset))
    }
}

/// Whether a stride or offset is MLIR's dynamic marker.
fn is_dynamic(stride_or_offset: i64) -> bool {
    // SAFETY: a pure comparison with the marker.
    unsafe { mlirShapedTypeIsDynamicStrideOrOffset(stride_or_offset) }
}

/// The memref at the root of `buffer`'s chain of views (whose pointer is the handle) and
/// `buffer`'s element offset (an `index` value), built from the chain's offsets and strides.
pub(super) fn root_and_offset(builder: &Builder, buffer: Val) -> (Val, Val) {
    let index = index_type(builder.context);
    let mut constant = 0i64;
    let mut terms: Vec<(Val, i64)> = Vec::new();
    // Set once a reinterpret_cast fixed the offset: further up, only the root matters.
    let mut offset_fixed = false;
    let mut current = buffer;
    // The chain's ops are verified, so their operand segments and static offset arrays agree.
    while let Some(producer) = current.defining_op() {
        let Some(kind) = view_kind(producer) else {
            break;
        };
        let source = producer.operand(0);
        match kind {
            upstream::Kind::MemrefSubview if !offset_fixed => {
                let Some((strides, _)) = strides_and_offset(source.r#type()) else {
                    break;
                };
                if strides.iter().any(|&s| is_dynamic(s)) {
                    break;
                }
                let offsets = static_offsets(producer);
                add_offsets(producer, &offsets, &strides, &mut constant, &mut terms);
            }
            upstream::Kind::MemrefReinterpretCast if !offset_fixed => {
                let offsets = static_offsets(producer);
                add_offsets(producer, &offsets, &[1], &mut constant, &mut terms);
                offset_fixed = true;
            }
            _ => {}
        }
        current = source;
    }
    if !offset_fixed {
        match strides_and_offset(current.r#type()) {
            Some((_, offset)) if !is_dynamic(offset) => {
                constant += offset;
            }
            _ => {
                let metadata = builder.create(
                    upstream::Kind::MemrefExtractStridedMetadata,
                    &[current],
                    None,
                    &[],
                    &[],
                );
                terms.push((metadata.result(1), 1));
            }
        }
    }
    let mut sum = (constant != 0 || terms.is_empty()).then(|| builder.constant_index(constant));
    for (value, stride) in terms {
        let scaled = if stride == 1 {
            value
        } else {
            builder.value(
                upstream::Kind::ArithMuli,
                &[value, builder.constant_index(stride)],
                index,
                &[],
            )
        };
        sum = Some(match sum {
            Some(sum) => builder.value(upstream::Kind::ArithAddi, &[sum, scaled], index, &[]),
            None => scaled,
        });
    }
    (current, sum.expect("a constant or at least one term"))
}

/// The `static_offsets` of a subview or reinterpret_cast (both ops always have them).
fn static_offsets(op: Op) -> Vec<i64> {
    op.i64_array_value("static_offsets")
        .expect("views have static_offsets")
}

/// Adds `offsets[i] * strides[i]` to the sum: a static offset to `constant`, a dynamic one (the
/// op's next dynamic offset operand, which follow the source) to `terms`.
fn add_offsets(
    op: Op,
    offsets: &[i64],
    strides: &[i64],
    constant: &mut i64,
    terms: &mut Vec<(Val, i64)>,
) {
    // A verified op has one operand per dynamic offset, right after its source.
    let operands = op.operands();
    let mut dynamic = operands[1..].iter();
    for (&offset, &stride) in offsets.iter().zip(strides) {
        if is_dynamic(offset) {
            let value = *dynamic.next().expect("one operand per dynamic offset");
            terms.push((value, stride));
        } else {
            *constant += offset * stride;
        }
    }
}

/// A `td_view` filled from `memref.extract_strided_metadata` (a layout the type leaves dynamic).
fn view_from_metadata(builder: &Builder, scratch: Val, first: usize, buffer: Val) -> Val {
    // SAFETY: the buffer's type is an alive memref type.
    let rank = unsafe { mlirShapedTypeGetRank(buffer.r#type()) } as usize;
    let metadata = builder.create(
        upstream::Kind::MemrefExtractStridedMetadata,
        &[buffer],
        None,
        &[],
        &[],
    );
    let index = index_type(builder.context);
    let handle = builder.cast(
        upstream::Kind::MemrefExtractAlignedPointerAsIndex,
        buffer,
        index,
    );
    let store_index = |value: Val, word: usize| {
        builder.store(
            builder.cast(
                upstream::Kind::ArithIndexCast,
                value,
                i64_type(builder.context),
            ),
            builder.word(scratch, first + word),
        )
    };
    // The metadata op has 2 + 2 * rank results: base, offset, sizes, strides.
    store_index(handle, 0);
    store_index(metadata.result(1), 1);
    builder.store(
        builder.constant_i64(rank as i64),
        builder.word(scratch, first + 2),
    );
    for dimension in 0..rank {
        store_index(metadata.result(2 + dimension), 3 + dimension);
        store_index(metadata.result(2 + rank + dimension), 7 + dimension);
    }
    builder.word(scratch, first)
}

/// Erases the view ops (`memref.subview`, `memref.reinterpret_cast`, `memref.cast`) of `root`
/// that the lowering left without uses, users before the views they read (the ops are pure, so
/// erasing an unused one changes nothing else).
pub(super) fn erase_dead_views(root: Op) {
    // In reverse pre-order a view's users are visited before it.
    for op in root.collect_pre_order().into_iter().rev() {
        if view_kind(op).is_some() && op.result(0).is_unused() {
            // SAFETY: the view feeds nothing and holds no region; in reverse pre-order the walk has
            // passed its users and does not come back to it.
            unsafe { op.erase() };
        }
    }
}
