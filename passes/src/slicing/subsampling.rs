//! A 1×1 convolution with strides above 1 reads every `stride`-th row and column of its input:
//! its subsampling steps, and the rewrite that makes it read a subsampled slice at stride 1
//! (`graph-subsample-strided-convs`; `instance-cluster-split` applies it per segment).

use super::sliced_body::tensor_like;
use crate::{
    graph_view::TensorType,
    ir::{create, i64_array, InsertionPoint, Op},
};
use mlir_sys::*;
use turbine_dialects::ops::graph;

/// The row and column steps of `op`'s subsampling when it is a 1×1 `graph.conv2d` of a 4-D
/// input with strides above 1 and no padding (what the rewrite keeps exact).
pub(crate) fn subsampling_steps(op: Op) -> Option<[usize; 2]> {
    if !op.is(graph::Kind::Conv2d) {
        return None;
    }
    let (shape, filter) = (
        TensorType::of(op.operand(0))?.shape,
        TensorType::of(op.operand(1))?.shape,
    );
    let strides = op.i64_array_value("strides").unwrap_or_else(|| vec![1, 1]);
    let unpadded = op
        .i64_array_value("pads")
        .is_none_or(|pads| pads.iter().all(|&pad| pad == 0));
    if shape.len() != 4
        || filter.get(2..) != Some(&[1, 1][..])
        || !unpadded
        || strides.iter().all(|&stride| stride == 1)
    {
        return None;
    }
    match strides
        .iter()
        .map(|&stride| usize::try_from(stride))
        .collect::<Vec<_>>()[..]
    {
        [Ok(rows @ 1..), Ok(columns @ 1..)] => Some([rows, columns]),
        _ => None,
    }
}

/// Makes the convolution `op` (whose [`subsampling_steps`] are `steps`) read a `graph.slice` of
/// its input with those steps, created at `at` (after the input is defined, before `op`), at
/// stride 1; returns the slice.
pub(crate) fn read_subsampled(op: Op, [rows, columns]: [usize; 2], at: InsertionPoint) -> Op {
    let input = op.operand(0);
    let shape = TensorType::of(input)
        .expect("a convolution with subsampling steps has a tensor input")
        .shape;
    let subsampled = [
        shape[0],
        shape[1],
        shape[2].div_ceil(rows),
        shape[3].div_ceil(columns),
    ];
    // SAFETY: the op is alive.
    let (context, location) = unsafe { (mlirOperationGetContext(op.raw()), op.location()) };
    let slice = create(
        at,
        location,
        graph::Kind::Slice,
        &[input],
        &[tensor_like(input, &subsampled)],
        &[
            ("starts", i64_array(context, &[0; 4])),
            (
                "steps",
                i64_array(context, &[1, 1, rows as i64, columns as i64]),
            ),
        ],
        Vec::new(),
    );
    op.set_operand(0, slice.result(0));
    op.set_attribute("strides", i64_array(context, &[1, 1]));
    slice
}
