//! The cluster programs of a scheduled function: its `instance.clusters` ops and their cuts.

use super::error::ScheduleError;
use crate::ir::Op;
use turbine_dialects::ops::{graph, instance, upstream, OpKind};

/// One cluster program of the function: an `instance.clusters` op and its cut.
pub(super) struct Clusters {
    pub(super) op: Op,
    pub(super) count: usize,
    pub(super) input_dims: Vec<i64>,
    pub(super) result_dims: Vec<i64>,
}

/// The function's cluster programs in order (its segments, see `instance-cluster-split`); the
/// rest of its body may only be weights, constants and the return.
pub(super) fn read_clusters(function: Op) -> Result<Vec<Clusters>, ScheduleError> {
    let not_scheduled = || {
        ScheduleError::at(
            function,
            "convert-instance-to-dsa needs a function scheduled by the instance passes \
             (instance.clusters ops, their weights and the return): run instance-cluster-split, \
             hw-group, instance-split, instance-order, instance-bind and instance-stitch first",
        )
    };
    let mut segments = Vec::new();
    for op in function.body_ops() {
        match op.kind() {
            Some(OpKind::Instance(instance::Kind::Clusters)) => {}
            Some(
                OpKind::Graph(graph::Kind::Weight | graph::Kind::Constant)
                | OpKind::Upstream(upstream::Kind::FuncReturn),
            ) => continue,
            _ => return Err(not_scheduled()),
        }
        let ints = |name: &str| -> Vec<i64> {
            op.attribute(name)
                .and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok())
                .map(|a| (0..a.len()).map(|i| a.element(i).unwrap_or(-1)).collect())
                .unwrap_or_default()
        };
        let count = op
            .attribute("count")
            .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
            .map_or(1, |a| a.value().max(1) as usize);
        segments.push(Clusters {
            op,
            count,
            input_dims: ints("input_dims"),
            result_dims: ints("result_dims"),
        });
    }
    if segments.is_empty() {
        return Err(not_scheduled());
    }
    Ok(segments)
}
