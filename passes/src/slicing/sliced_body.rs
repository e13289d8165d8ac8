//! Writing the ops of a body that compute given boxes of its values: each op cloned with its
//! operands cut to the boxes it reads (`graph.slice` where it holds more), the attributes region
//! inference changed, and result types of the boxes it computes. `instance-split` writes each
//! instance's body with it, `instance-cluster-split` the one cluster's program.

use super::regions::{sizes, Changed, Demand, Region};
use crate::graph_view::FunctionView;
use crate::ir::{create, i64_array, i64_attribute, InsertionPoint, Op, Val};
use mlir_sys::*;
use std::collections::HashMap;
use turbine_dialects::ops::graph;
use turbine_dialects::ops::OpKind;

/// A tensor type of `shape` with the element type of `like`.
pub(crate) fn tensor_like(like: Val, shape: &[usize]) -> MlirType {
    let dims: Vec<i64> = shape.iter().map(|&size| size as i64).collect();
    // SAFETY: the value is alive; MLIR copies the dimensions.
    unsafe {
        let element = mlirShapedTypeGetElementType(mlirValueGetType(like.raw()));
        mlirRankedTensorTypeGet(
            dims.len() as isize,
            dims.as_ptr(),
            element,
            mlirAttributeGetNull(),
        )
    }
}

/// `instance.slice` of the box `want` of `value`, whose box `have` it holds; the value itself
/// when the boxes agree.
pub(crate) fn slice(
    point: InsertionPoint,
    location: MlirLocation,
    kind: impl Into<OpKind>,
    value: Val,
    have: &Region,
    want: &Region,
    key: &str,
) -> Val {
    if have == want {
        return value;
    }
    let offsets: Vec<i64> = want
        .iter()
        .zip(have)
        .map(|(w, h)| (w.start - h.start) as i64)
        .collect();
    // SAFETY: the location is alive.
    let context = unsafe { mlirLocationGetContext(location) };
    let r#type = tensor_like(value, &sizes(want));
    create(
        point,
        location,
        kind,
        &[value],
        &[r#type],
        &[(key, i64_array(context, &offsets))],
        Vec::new(),
    )
    .result(0)
}

/// Appends to `block` each op of `body` that has a demand, computing its box of `computed` from
/// the boxes its operands hold; `values` maps each body value already available (the block's
/// arguments) to its value and box, and gains every value written.
pub(crate) fn append_ops(
    block: MlirBlock,
    body: &FunctionView,
    computed: &[Option<Region>],
    demands: &[Option<Demand>],
    values: &mut HashMap<usize, (Val, Region)>,
) {
    for (node, demand) in body.ops.iter().zip(demands) {
        let Some(demand) = demand else { continue };
        // SAFETY: the op is alive.
        let context = unsafe { mlirOperationGetContext(node.op.raw()) };
        let node_location = node.op.location();
        // SAFETY: cloning a live op; MLIR just created the clone, which stays alive, detached and
        // owned here, until the block takes it below.
        let clone = unsafe { Op::from_raw(mlirOperationClone(node.op.raw())) };
        for (position, (operand, want)) in node.operands.iter().zip(&demand.operands).enumerate() {
            let (value, have) = &values[operand];
            let value = slice(
                InsertionPoint::End(block),
                node_location,
                graph::Kind::Slice,
                *value,
                have,
                want,
                "starts",
            );
            clone.set_operand(position, value);
        }
        for (key, changed) in &demand.attributes {
            let attribute = match changed {
                Changed::Ints(values) => i64_array(context, values),
                Changed::Int(value) => i64_attribute(context, *value),
            };
            clone.set_attribute(key, attribute);
        }
        for (position, (value, _)) in node.results.iter().enumerate() {
            let region = computed[*value].clone().expect("a computed op has a box");
            let result = clone.result(position);
            // SAFETY: the clone's result is alive; the type has the op's element type.
            unsafe {
                mlirValueSetType(
                    result.raw(),
                    tensor_like(node.op.result(position), &sizes(&region)),
                )
            };
            values.insert(*value, (result, region));
        }
        // SAFETY: the clone is detached; the block takes ownership.
        unsafe { mlirBlockAppendOwnedOperation(block, clone.raw()) };
    }
}
