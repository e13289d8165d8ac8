//! Where an op's ODS operands, results and regions are among its own, and reading them.

use super::{dense_i32_array, name, required};
use crate::ops::{Operands, Results};
use melior::ir::{
    operation::{OperationLike, OperationResult},
    OperationRef, RegionRef, Value,
};
use std::ops::Range;

/// How one ODS operand or result counts (the generator's `Arity`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// One value.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// How the sizes of several variadic operands (or results) are told apart.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Segments {
    /// At most one is not `Single`; it takes what the others leave.
    Fixed,
    /// `SameVariadicOperandSize`: the non-`Single` ones share the rest equally.
    #[allow(
        dead_code,
        reason = "generated for `SameVariadicOperandSize`, which no .td uses yet"
    )]
    SameSize,
    /// `AttrSizedOperandSegments` / `AttrSizedResultSegments`: this attribute lists them.
    #[allow(
        dead_code,
        reason = "generated for `AttrSizedOperandSegments`, which no .td uses yet"
    )]
    Attribute(&'static str),
}

/// The positions of ODS operand `index` among the op's operands.
pub fn operand_segment(
    op: OperationRef,
    arities: &[Arity],
    segments: Segments,
    index: usize,
) -> Range<usize> {
    segment(op, arities, segments, op.operand_count(), index)
}

/// The positions of ODS result `index` among the op's results.
pub fn result_segment(
    op: OperationRef,
    arities: &[Arity],
    segments: Segments,
    index: usize,
) -> Range<usize> {
    segment(op, arities, segments, op.result_count(), index)
}

fn segment(
    op: OperationRef,
    arities: &[Arity],
    segments: Segments,
    total: usize,
    index: usize,
) -> Range<usize> {
    let op_name = name(op);
    if let Segments::Attribute(attribute_name) = segments {
        let sizes = dense_i32_array(
            op_name,
            attribute_name,
            required(op, op_name, attribute_name),
        );
        assert_eq!(
            sizes.len(),
            arities.len(),
            "`{op_name}`: `{attribute_name}` has the wrong length"
        );
        let size = |i: usize| usize::try_from(sizes[i]).expect("segment sizes are not negative");
        let start: usize = (0..index).map(size).sum();
        return start..start + size(index);
    }
    let dynamic = arities
        .iter()
        .filter(|arity| **arity != Arity::Single)
        .count();
    let rest = total
        .checked_sub(arities.len() - dynamic)
        .unwrap_or_else(|| {
            panic!(
                "`{op_name}` has {total} values where ODS declares at least {}",
                arities.len() - dynamic
            )
        });
    let each = match (dynamic, segments) {
        (0, _) => 0,
        (_, Segments::SameSize) => rest / dynamic,
        _ => rest,
    };
    let size = |arity: Arity| if arity == Arity::Single { 1 } else { each };
    let start: usize = arities[..index].iter().map(|&arity| size(arity)).sum();
    start..start + size(arities[index])
}

/// Operand `index`; panics past the op's operands.
pub fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
    op.operand(index)
        .unwrap_or_else(|_| panic!("`{}` has no operand {index}", name(op)))
}

/// The operand in `range`, None when it is empty (an absent `Optional` operand).
pub fn optional_operand<'c, 'a>(
    op: OperationRef<'c, 'a>,
    range: Range<usize>,
) -> Option<Value<'c, 'a>> {
    (!range.is_empty()).then(|| operand(op, range.start))
}

/// The operands in `range`.
pub fn operands<'c, 'a>(op: OperationRef<'c, 'a>, range: Range<usize>) -> Operands<'c, 'a> {
    Operands { op, range }
}

/// Result `index`; panics past the op's results.
pub fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> OperationResult<'c, 'a> {
    op.result(index)
        .unwrap_or_else(|_| panic!("`{}` has no result {index}", name(op)))
}

/// The result in `range`, None when it is empty.
#[allow(
    dead_code,
    reason = "generated code calls it for an `Optional` result, which no .td uses yet"
)]
pub fn optional_result<'c, 'a>(
    op: OperationRef<'c, 'a>,
    range: Range<usize>,
) -> Option<OperationResult<'c, 'a>> {
    (!range.is_empty()).then(|| result(op, range.start))
}

/// The results in `range`.
pub fn results<'c, 'a>(op: OperationRef<'c, 'a>, range: Range<usize>) -> Results<'c, 'a> {
    Results { op, range }
}

/// Region `index`; panics past the op's regions.
pub fn region<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> RegionRef<'c, 'a> {
    op.region(index)
        .unwrap_or_else(|_| panic!("`{}` has no region {index}", name(op)))
}

/// The regions from `index` on (a `VariadicRegion`, always last).
#[allow(
    dead_code,
    reason = "generated code calls it for a `VariadicRegion`, which no .td uses yet"
)]
pub fn regions_from<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Vec<RegionRef<'c, 'a>> {
    (index..op.region_count()).map(|i| region(op, i)).collect()
}
