//! Where a graph op landed in a compiled schedule: the GraphTurbo instances (group, slice,
//! binding, scope) and the `dsa` kernels holding ops at its location. Every op the lowerings
//! generate carries the location of the model op it computes, so the location finds them.

use melior::ir::attribute::{DenseI64ArrayAttribute, IntegerAttribute, StringAttribute};
use melior::ir::operation::OperationLike;
use melior::ir::{Location, OperationRef};
use mlir_sys::*;
use turbine_dialects::attributes::{instance::Scope, EnumAttribute};
use turbine_dialects::ops::{dsa, instance, OpKind};

/// The kind of `op`, None for an op Turbine does not know.
fn kind_of(op: OperationRef) -> Option<OpKind> {
    OpKind::from_name(op.name().as_string_ref().as_str().ok()?)
}

/// Whether `candidate` is `location` or fuses it (a rewrite that merges ops fuses their
/// locations).
fn is_at(candidate: MlirLocation, location: MlirLocation) -> bool {
    // SAFETY: both locations are alive; a fused location's parts are read into a buffer of
    // their count.
    unsafe {
        if mlirLocationEqual(candidate, location) {
            return true;
        }
        if !mlirLocationIsAFused(candidate) {
            return false;
        }
        let count = mlirLocationFusedGetNumLocations(candidate) as usize;
        let mut parts = vec![
            MlirLocation {
                ptr: std::ptr::null()
            };
            count
        ];
        mlirLocationFusedGetLocations(candidate, parts.as_mut_ptr());
        parts.into_iter().any(|part| is_at(part, location))
    }
}

/// Whether `op` or an op nested in it is at `location`.
fn holds(op: MlirOperation, location: Location) -> bool {
    // SAFETY: the op is alive, so is its location.
    if is_at(unsafe { mlirOperationGetLocation(op) }, location.to_raw()) {
        return true;
    }
    nested(op).into_iter().any(|inner| holds(inner, location))
}

/// The ops directly inside `op`'s regions.
fn nested(op: MlirOperation) -> Vec<MlirOperation> {
    let mut ops = Vec::new();
    // SAFETY: the op is alive; its regions, blocks and ops are walked in order.
    unsafe {
        for index in 0..mlirOperationGetNumRegions(op) {
            let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
            while !block.ptr.is_null() {
                let mut inner = mlirBlockGetFirstOperation(block);
                while !inner.ptr.is_null() {
                    ops.push(inner);
                    inner = mlirOperationGetNextInBlock(inner);
                }
                block = mlirBlockGetNextInRegion(block);
            }
        }
    }
    ops
}

/// Every op of kind `kind` under `root` (at any depth) that holds an op at `location`.
fn holders(root: MlirOperation, kind: OpKind, location: Location) -> Vec<MlirOperation> {
    let mut found = Vec::new();
    let mut stack = nested(root);
    while let Some(op) = stack.pop() {
        // SAFETY: the op is alive for the walk.
        let is_kind = kind_of(unsafe { OperationRef::from_raw(op) }) == Some(kind);
        if is_kind && holds(op, location) {
            found.push(op);
        } else if !is_kind {
            stack.extend(nested(op));
        }
    }
    found.reverse();
    found
}

/// "instance 'g2' [0 of 4 along 1], bound 1x8x1x1, scope gb" for each instance op under
/// `root` (after GraphTurbo's instance passes) that computes an op at `location`.
pub(crate) fn instances(root: MlirOperation, location: Location) -> Vec<String> {
    let kind = OpKind::Instance(instance::Kind::Instance);
    holders(root, kind, location)
        .into_iter()
        .map(|op| {
            // SAFETY: the op is alive.
            let op = unsafe { OperationRef::from_raw(op) };
            let integer = |name| {
                op.attribute(name)
                    .ok()
                    .and_then(|a| IntegerAttribute::try_from(a).ok())
                    .map_or(0, |a| a.value())
            };
            let group = op
                .attribute("group")
                .ok()
                .and_then(|a| StringAttribute::try_from(a).ok())
                .map(|a| a.value().to_owned())
                .unwrap_or_default();
            let mut text = format!(
                "instance '{group}' [{} of {} along {}]",
                integer("index"),
                integer("count"),
                integer("dim")
            );
            if let Some(bind) = op
                .attribute("bind")
                .ok()
                .and_then(|a| DenseI64ArrayAttribute::try_from(a).ok())
            {
                let cores: Vec<String> = (0..bind.len())
                    .filter_map(|i| bind.element(i).ok().map(|c| c.to_string()))
                    .collect();
                text.push_str(&format!(", bound {}", cores.join("x")));
            }
            if let Some(scope) = op.attribute("scope").ok().and_then(Scope::from_attribute) {
                text.push_str(&format!(", scope {}", scope.keyword()));
            }
            text
        })
        .collect()
}

/// The names of the `dsa.kernel`s under `root` that hold an op at `location`.
pub(crate) fn kernels(root: MlirOperation, location: Location) -> Vec<String> {
    holders(root, OpKind::Dsa(dsa::Kind::Kernel), location)
        .into_iter()
        .filter_map(|op| {
            // SAFETY: the op is alive.
            let op = unsafe { OperationRef::from_raw(op) };
            let name = op.attribute("sym_name").ok()?;
            Some(format!(
                "@{}",
                StringAttribute::try_from(name).ok()?.value()
            ))
        })
        .collect()
}
