//! The tuning key of a conv layer (BOLT §3.2, [`crate::tuning`]): everything its tiling search
//! reads, the shapes and spaces of its operands and epilogue, the convolution it absorbs or feeds,
//! without the values of one program.

use super::bias::is_bias_view;
use super::request::Request;
use crate::graph_view::ValueId;
use crate::kernels::{
    epilogue::Epilogue,
    layers::{Scope, Step, Viewed},
};
use std::collections::BTreeMap;

/// The tuning key of the conv layer `request` with its epilogue `steps` (their external operands
/// of `shapes`), read through a view of every `row_step`-th input row: what its tiling search
/// reads.
pub(super) fn tuning_key<T: Viewed>(
    scope: &Scope<T>,
    request: &Request,
    (steps, shapes): (&[Step], &BTreeMap<ValueId, Vec<usize>>),
    row_step: usize,
) -> String {
    let node = request.node;
    let input = scope.view(node.operands[0]);
    let filter = scope.view(node.operands[1]);
    let space_of = |value: ValueId| {
        if is_bias_view(value) {
            input.space
        } else {
            scope.view(value).space
        }
    };
    let absorbed = request.absorbed.map(|absorbed| {
        let [input, filter] = [0, 1].map(|position| scope.view(absorbed.operands[position]));
        (input.shape.clone(), input.space, filter.space)
    });
    let chained = request.chained.map(|(chained, fused)| {
        let filter = scope.view(chained.operands[1]);
        let shapes = scope.external_shapes(fused);
        let space_of = |value: ValueId| scope.view(value).space;
        (
            filter.shape.clone(),
            filter.space,
            chained.operands.len(),
            chained.activation(),
            Epilogue::key(fused, &shapes, space_of),
        )
    });
    format!(
        "conv input={:?}@{:?} filter={:?}@{:?} out={:?}@{:?} strides={:?} pads={:?} \
         dilations={:?} groups={:?} epilogue={} absorbed={absorbed:?} chained={chained:?} \
         rows_by={} row_step={row_step} pixel_rows={} pipeline={}",
        input.shape,
        input.space,
        filter.shape,
        filter.space,
        request.out,
        request.out_space,
        node.ints_opt("strides"),
        node.ints_opt("pads"),
        node.ints_opt("dilations"),
        node.int_opt("groups"),
        Epilogue::key(steps, shapes, space_of),
        request.rows_by,
        request.pixel_rows,
        scope.machine.pipeline
    )
}
