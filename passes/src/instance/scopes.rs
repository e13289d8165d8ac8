//! The scopes the scheduling passes plan each on its own: a function's `instance.clusters` ops
//! (one cluster's program each), or the function.

use crate::ir::Op;
use turbine_dialects::ops::instance;

/// The ops whose bodies the scheduling passes plan, each on its own: the function's
/// `instance.clusters` ops (one cluster's program each, see `instance-cluster-split`) when it has
/// them, else the function itself.
pub(crate) fn schedule_scopes(function: Op) -> Vec<Op> {
    let clusters: Vec<Op> = function
        .body_ops()
        .into_iter()
        .filter(|op| op.is(instance::Kind::Clusters))
        .collect();
    if clusters.is_empty() {
        vec![function]
    } else {
        clusters
    }
}

/// Runs `schedule(function, scope)` on each of [`schedule_scopes`] of the function `operation`
/// (nothing for a declaration), stopping at the first failure.
pub(crate) fn schedule_each(
    operation: melior::ir::OperationRef,
    mut schedule: impl FnMut(Op, Op) -> Result<(), crate::registry::PassFailure>,
) -> Result<(), crate::registry::PassFailure> {
    // SAFETY: the pass manager hands us a live op, alive for the run.
    let function = unsafe { Op::from_raw(operation.to_raw()) };
    if function.regions_empty() {
        return Ok(());
    }
    schedule_scopes(function)
        .into_iter()
        .try_for_each(|scope| schedule(function, scope))
}
