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
use super::ir::{attribute, op_name, operands, walk};
use super::types::{i64_type, index_type};
use mlir_sys::*;

/// The ops that make a view of another memref without moving data, which the offset sum walks
/// through and which are erased once nothing uses them.
const VIEW_OPS: &[&str] = &["memref.subview", "memref.reinterpret_cast", "memref.cast"];

/// Words of a view's layout: rank, four sizes, four strides (words 2 to 10 of a `td_view`; those
/// past the rank are not read).
const LAYOUT_WORDS: usize = 9;

/// Stores a `td_view` of `buffer` at view slot `slot` of the scratch and returns its address.
///
/// # Safety
/// The [`Builder`] contract; `scratch` is the function's scratch pointer, `buffer` an alive
/// memref value of rank 1 to 4.
pub(super) unsafe fn view(
    builder: &Builder,
    scratch: MlirValue,
    slot: usize,
    buffer: MlirValue,
) -> MlirValue {
    // SAFETY: the caller's guarantee.
    unsafe {
        let first = slot * VIEW_WORDS;
        let r#type = mlirValueGetType(buffer);
        let Some(layout) = static_layout(r#type) else {
            return view_from_metadata(builder, scratch, first, buffer);
        };
        let (root, offset) = root_and_offset(builder, buffer);
        let context = builder.context;
        let handle = builder.cast(
            "memref.extract_aligned_pointer_as_index",
            root,
            index_type(context),
        );
        builder.store(
            builder.cast("arith.index_cast", handle, i64_type(context)),
            builder.word(scratch, first),
        );
        builder.store(
            builder.cast("arith.index_cast", offset, i64_type(context)),
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
}

/// Rank, sizes and strides of a memref type (zero past its rank) when all are static.
unsafe fn static_layout(r#type: MlirType) -> Option<[i64; LAYOUT_WORDS]> {
    // SAFETY: the caller's guarantee that `type` is a memref type.
    unsafe {
        let rank = mlirShapedTypeGetRank(r#type) as usize;
        let (strides, _) = strides_and_offset(r#type)?;
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
unsafe fn strides_and_offset(r#type: MlirType) -> Option<(Vec<i64>, i64)> {
    // SAFETY: the caller's guarantee; the strides vector has the type's rank.
    unsafe {
        let rank = mlirShapedTypeGetRank(r#type) as usize;
        let mut strides = vec![0i64; rank];
        let mut offset = 0i64;
        let strided = mlirMemRefTypeGetStridesAndOffset(r#type, strides.as_mut_ptr(), &mut offset);
        (strided.value != 0).then_some((strides, offset))
    }
}

/// The memref at the root of `buffer`'s chain of views (whose pointer is the handle) and
/// `buffer`'s element offset (an `index` value), built from the chain's offsets and strides.
unsafe fn root_and_offset(builder: &Builder, buffer: MlirValue) -> (MlirValue, MlirValue) {
    // SAFETY: the caller's guarantee; the chain's ops are verified, so their operand segments
    // and static offset arrays agree.
    unsafe {
        let index = index_type(builder.context);
        let mut constant = 0i64;
        let mut terms: Vec<(MlirValue, i64)> = Vec::new();
        // Set once a reinterpret_cast fixed the offset: further up, only the root matters.
        let mut offset_fixed = false;
        let mut current = buffer;
        while mlirValueIsAOpResult(current) {
            let producer = mlirOpResultGetOwner(current);
            let name = op_name(producer);
            if !VIEW_OPS.contains(&name.as_str()) {
                break;
            }
            let source = mlirOperationGetOperand(producer, 0);
            match name.as_str() {
                "memref.cast" => {}
                "memref.subview" if !offset_fixed => {
                    let Some((strides, _)) = strides_and_offset(mlirValueGetType(source)) else {
                        break;
                    };
                    if strides
                        .iter()
                        .any(|&s| mlirShapedTypeIsDynamicStrideOrOffset(s))
                    {
                        break;
                    }
                    let offsets = static_offsets(producer);
                    add_offsets(producer, &offsets, &strides, &mut constant, &mut terms);
                }
                "memref.reinterpret_cast" if !offset_fixed => {
                    let offsets = static_offsets(producer);
                    add_offsets(producer, &offsets, &[1], &mut constant, &mut terms);
                    offset_fixed = true;
                }
                _ => {}
            }
            current = source;
        }
        if !offset_fixed {
            match strides_and_offset(mlirValueGetType(current)) {
                Some((_, offset)) if !mlirShapedTypeIsDynamicStrideOrOffset(offset) => {
                    constant += offset;
                }
                _ => {
                    let metadata = builder.create(
                        "memref.extract_strided_metadata",
                        &[current],
                        None,
                        &[],
                        &[],
                    );
                    terms.push((mlirOperationGetResult(metadata, 1), 1));
                }
            }
        }
        let mut sum = (constant != 0 || terms.is_empty()).then(|| builder.constant_index(constant));
        for (value, stride) in terms {
            let scaled = if stride == 1 {
                value
            } else {
                builder.value(
                    "arith.muli",
                    &[value, builder.constant_index(stride)],
                    index,
                    &[],
                )
            };
            sum = Some(match sum {
                Some(sum) => builder.value("arith.addi", &[sum, scaled], index, &[]),
                None => scaled,
            });
        }
        (current, sum.expect("a constant or at least one term"))
    }
}

/// The `static_offsets` of a subview or reinterpret_cast.
unsafe fn static_offsets(op: MlirOperation) -> Vec<i64> {
    // SAFETY: the caller's guarantee that `op` has the attribute (both ops always do).
    unsafe {
        let offsets = attribute(op, "static_offsets").expect("views have static_offsets");
        (0..mlirDenseArrayGetNumElements(offsets))
            .map(|i| mlirDenseI64ArrayGetElement(offsets, i))
            .collect()
    }
}

/// Adds `offsets[i] * strides[i]` to the sum: a static offset to `constant`, a dynamic one (the
/// op's next dynamic offset operand, which follow the source) to `terms`.
unsafe fn add_offsets(
    op: MlirOperation,
    offsets: &[i64],
    strides: &[i64],
    constant: &mut i64,
    terms: &mut Vec<(MlirValue, i64)>,
) {
    // SAFETY: the caller's guarantee; a verified op has one operand per dynamic offset, right
    // after its source.
    unsafe {
        let operands = operands(op);
        let mut dynamic = operands[1..].iter();
        for (&offset, &stride) in offsets.iter().zip(strides) {
            if mlirShapedTypeIsDynamicStrideOrOffset(offset) {
                let value = *dynamic.next().expect("one operand per dynamic offset");
                terms.push((value, stride));
            } else {
                *constant += offset * stride;
            }
        }
    }
}

/// A `td_view` filled from `memref.extract_strided_metadata` (a layout the type leaves dynamic).
unsafe fn view_from_metadata(
    builder: &Builder,
    scratch: MlirValue,
    first: usize,
    buffer: MlirValue,
) -> MlirValue {
    // SAFETY: the caller's guarantee; the metadata op has 2 + 2 * rank results.
    unsafe {
        let rank = mlirShapedTypeGetRank(mlirValueGetType(buffer)) as usize;
        let metadata = builder.create("memref.extract_strided_metadata", &[buffer], None, &[], &[]);
        let index = index_type(builder.context);
        let handle = builder.cast("memref.extract_aligned_pointer_as_index", buffer, index);
        let store_index = |value: MlirValue, word: usize| {
            builder.store(
                builder.cast("arith.index_cast", value, i64_type(builder.context)),
                builder.word(scratch, first + word),
            )
        };
        store_index(handle, 0);
        store_index(mlirOperationGetResult(metadata, 1), 1);
        builder.store(
            builder.constant_i64(rank as i64),
            builder.word(scratch, first + 2),
        );
        for dimension in 0..rank {
            store_index(
                mlirOperationGetResult(metadata, (2 + dimension) as isize),
                3 + dimension,
            );
            store_index(
                mlirOperationGetResult(metadata, (2 + rank + dimension) as isize),
                7 + dimension,
            );
        }
        builder.word(scratch, first)
    }
}

/// Erases the view ops (`memref.subview`, `memref.reinterpret_cast`, `memref.cast`) of `root`
/// that the lowering left without uses, users before the views they read.
///
/// # Safety
/// `root` is alive; the ops are pure, so erasing an unused one changes nothing else.
pub(super) unsafe fn erase_dead_views(root: MlirOperation) {
    // SAFETY: the caller's guarantee; in reverse pre-order a view's users are visited before it.
    unsafe {
        for op in walk(root).into_iter().rev() {
            let is_view = VIEW_OPS.contains(&op_name(op).as_str());
            if is_view && mlirOpOperandIsNull(mlirValueGetFirstUse(mlirOperationGetResult(op, 0))) {
                mlirOperationDestroy(op);
            }
        }
    }
}
