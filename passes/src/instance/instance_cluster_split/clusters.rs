//! The `instance.clusters` op of a partition: cluster 0's share of a body, rebuilt on its boxes.

use super::partition::Partition;
use crate::{
    graph_view::FunctionView,
    ir::{create, i64_array, i64_attribute, region_with_block, InsertionPoint, Op, Val},
    slicing::regions::{full, sizes},
    slicing::sliced_body,
};
use mlir_sys::*;
use std::collections::HashMap;
use turbine_dialects::ops::instance;

/// An `instance.clusters` op inserted before `before`, computing cluster 0's boxes of
/// `partition` of `view` (a function or an op's body, whose arguments are `arguments`) and
/// yielding its results' shares.
pub(super) fn build_clusters(
    before: Op,
    arguments: &[Val],
    view: &FunctionView,
    partition: &Partition,
    location: MlirLocation,
) -> Op {
    // SAFETY: the op is alive.
    let context = unsafe { mlirOperationGetContext(before.raw()) };
    let (region, yielded) = cluster_body(arguments, view, partition, location);
    let dims = |dims: &[Option<usize>]| {
        dims.iter()
            .map(|dim| dim.map_or(-1, |dim| dim as i64))
            .collect::<Vec<i64>>()
    };
    let terminator = view.ops.last().expect("a body ends in its terminator").op;
    let result_types: Vec<MlirType> = (0..yielded.len())
        .map(|index| terminator.operand(index).r#type())
        .collect();
    let attributes = [
        ("count", i64_attribute(context, partition.count as i64)),
        (
            "input_dims",
            i64_array(context, &dims(&partition.input_dims)),
        ),
        (
            "result_dims",
            i64_array(context, &dims(&partition.result_dims)),
        ),
    ];
    create(
        InsertionPoint::Before(before),
        location,
        instance::Kind::Clusters,
        arguments,
        &result_types,
        &attributes,
        vec![region],
    )
}

/// The body of the `instance.clusters` op: cluster 0's boxes of `partition` of `view` computed
/// on block arguments holding its boxes of `arguments`, and its results' shares yielded.
/// Returns the region and the yielded values.
fn cluster_body(
    arguments: &[Val],
    view: &FunctionView,
    partition: &Partition,
    location: MlirLocation,
) -> (MlirRegion, Vec<Val>) {
    let boxes: Vec<_> = view
        .arguments
        .iter()
        .map(|(value, r#type)| {
            partition.computed[*value]
                .clone()
                .unwrap_or_else(|| full(&r#type.shape))
        })
        .collect();
    let types: Vec<MlirType> = arguments
        .iter()
        .zip(&boxes)
        .map(|(argument, region)| sliced_body::tensor_like(*argument, &sizes(region)))
        .collect();
    let (region, block) = region_with_block(&types, location);
    let mut values = HashMap::new();
    for (position, ((value, _), region)) in view.arguments.iter().zip(boxes).enumerate() {
        // SAFETY: the block has one argument per argument of the view; the argument lives with
        // the block, which the region holds until the op built from it takes it.
        values.insert(
            *value,
            (
                unsafe { Val::from_raw(mlirBlockGetArgument(block, position as isize)) },
                region,
            ),
        );
    }
    sliced_body::append_ops(
        block,
        view,
        &partition.computed,
        &partition.demands,
        &mut values,
    );
    let yielded: Vec<Val> = view
        .returned()
        .iter()
        .map(|value| values[value].0)
        .collect();
    create(
        InsertionPoint::End(block),
        location,
        instance::Kind::Yield,
        &yielded,
        &[],
        &[],
        Vec::new(),
    );
    (region, yielded)
}
