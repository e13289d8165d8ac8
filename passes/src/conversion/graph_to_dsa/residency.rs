//! Loop-invariant inputs kept on chip (Cocktailer §5, scheduling across a loop's boundary): a
//! loop body's inputs that come from outside the loop (weights, a hoisted input projection) are
//! the same at every iteration, yet the layer-wise schedule's kernels read them from DDR at every
//! one. The alternative is to copy them once per loop into every cluster's GB (each cluster's
//! cores fill their own) and let the body's kernels read their cluster's copy at every
//! iteration, over the GB bus instead of the DDR port.
//!
//! Which pays is the shared cost model's call ([`layerwise_cycles_with`]): the body's estimated
//! cycles per iteration reading the invariants from DDR, against reading them from the GB, the
//! latter charged the copy (a launch, and the invariants' bytes at a cluster's DDR port, the
//! clusters copying at once) spread over the loop's trip count when the loop runs exactly that
//! many times (a constant count, and a condition the body keeps true), or paid whole when it may
//! stop sooner. The invariants must fit half of a GB.

use super::region_call::{region_call, Passed};
use crate::graph_view::{FunctionView, ValueId};
use crate::kernels::estimate::{layerwise_cycles_with, LayerCache};
use crate::target::Machine;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// Whether a loop body's loop-invariant inputs stay in the clusters' GBs.
#[derive(Debug, Clone)]
pub(crate) struct Residency {
    /// The body's input positions held in the GB.
    pub positions: BTreeSet<usize>,
    /// Their bytes.
    pub bytes: usize,
    /// Estimated cycles per iteration with them in the GBs (with the copy's share), and reading
    /// them from DDR.
    pub on_chip: f64,
    pub from_ddr: f64,
    /// Whether the cost model chose the GB.
    pub chosen: bool,
}

/// The decision for the body of every `graph.loop` of `functions`, by the body's name.
pub(crate) fn plan(functions: &[FunctionView], machine: &Machine) -> BTreeMap<String, Residency> {
    let by_name: BTreeMap<&str, &FunctionView> = functions
        .iter()
        .map(|view| (view.name.as_str(), view))
        .collect();
    let mut plans = BTreeMap::new();
    for view in functions {
        for node in view.ops.iter().filter(|node| node.is(graph::Kind::Loop)) {
            let Ok(call) = region_call(node, 0, 0) else {
                continue;
            };
            let positions: BTreeSet<usize> = call
                .passed
                .iter()
                .enumerate()
                .filter(|(_, passed)| matches!(passed, Passed::Outer(_)))
                .map(|(position, _)| position)
                .collect();
            let trips = constant_of(view, node.operands[0]);
            let starts = constant_of(view, node.operands[1]) == Some(1);
            if let Some(body) = by_name.get(call.callee.as_str()) {
                let exact = starts && keeps_going(view, body, &call.passed);
                let trips = trips.filter(|_| exact);
                if let Some(residency) = decide(body, positions, trips, machine) {
                    plans.insert(call.callee, residency);
                }
            }
        }
    }
    plans
}

/// The value of the one-element integer or boolean `value` of `view` when a constant defines it.
fn constant_of(view: &FunctionView, value: ValueId) -> Option<i64> {
    view.producer(value)
        .and_then(|index| view.ops[index].constant())
        .and_then(|constant| constant.scalar_integer())
}

/// Whether the loop body `body`, called from `caller` with `passed`, returns a constant true
/// condition (one of its own, or a constant its caller passes): its loop runs its full count.
fn keeps_going(caller: &FunctionView, body: &FunctionView, passed: &[Passed]) -> bool {
    let Some(&condition) = body.returned().first() else {
        return false;
    };
    if constant_of(body, condition) == Some(1) {
        return true;
    }
    let position = body
        .arguments
        .iter()
        .position(|(value, _)| *value == condition);
    match position.and_then(|position| passed.get(position)) {
        Some(Passed::Outer(value)) => constant_of(caller, *value) == Some(1),
        _ => false,
    }
}

/// The residency of `body`'s inputs at `positions`, when they fit half a GB.
fn decide(
    body: &FunctionView,
    positions: BTreeSet<usize>,
    trips: Option<i64>,
    machine: &Machine,
) -> Option<Residency> {
    let resident: BTreeSet<ValueId> = positions
        .iter()
        .filter_map(|&position| body.arguments.get(position).map(|(value, _)| *value))
        .collect();
    let bytes: usize = resident
        .iter()
        .map(|&value| body.type_of(value).bytes())
        .sum();
    if resident.is_empty() || bytes > machine.gb_bytes / 2 {
        return None;
    }
    let (from_ddr, _) =
        layerwise_cycles_with(body, machine, &mut LayerCache::new(), &BTreeSet::new(), &[]);
    let (resident_cycles, _) =
        layerwise_cycles_with(body, machine, &mut LayerCache::new(), &resident, &[]);
    let copy = machine.kernel_launch + machine.dma_setup + bytes as f64 / machine.ddr_bandwidth;
    let spread = trips.filter(|&trips| trips > 0).unwrap_or(1) as f64;
    let on_chip = resident_cycles + copy / spread;
    Some(Residency {
        positions,
        bytes,
        on_chip,
        from_ddr,
        chosen: on_chip < from_ddr,
    })
}
