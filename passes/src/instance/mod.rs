//! Passes that build and transform the `instance` dialect: the clusters' shares (§2, §5.1),
//! GraphTurbo's groups (§3.1-3.2) and their instances (§3.3-3.5).

pub mod hw_group;
pub mod instance_bind;
pub mod instance_cluster_split;
pub mod instance_order;
pub mod instance_split;
pub mod instance_stitch;
pub mod split_info;

use crate::ir::{Op, Val};
use melior::ir::{AttributeLike, Location};
use mlir_sys::*;
use split_info::Split;

/// The ops whose bodies the scheduling passes plan, each on its own: the function's
/// `instance.clusters` ops (one cluster's program each, see `instance-cluster-split`) when it has
/// them, else the function itself.
pub(crate) fn schedule_scopes(function: Op) -> Vec<Op> {
    let clusters: Vec<Op> = function
        .body_ops()
        .into_iter()
        .filter(|op| op.name() == "instance.clusters")
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
    let function = Op(operation.to_raw());
    if function.regions_empty() {
        return Ok(());
    }
    schedule_scopes(function)
        .into_iter()
        .try_for_each(|scope| schedule(function, scope))
}

fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Whether `op` is `ancestor` or nested in it.
fn is_within(op: MlirOperation, ancestor: MlirOperation) -> bool {
    let mut current = op;
    // SAFETY: walking parents of live ops.
    unsafe {
        while !current.ptr.is_null() {
            if current.ptr == ancestor.ptr {
                return true;
            }
            current = mlirOperationGetParentOperation(current);
        }
    }
    false
}

/// Every use of `value` as (owner, operand number).
fn uses(value: Val) -> Vec<(MlirOperation, usize)> {
    let mut found = Vec::new();
    // SAFETY: iterating the use list of a live value.
    unsafe {
        let mut use_ = mlirValueGetFirstUse(value.0);
        while !mlirOpOperandIsNull(use_) {
            found.push((
                mlirOpOperandGetOwner(use_),
                mlirOpOperandGetOperandNumber(use_) as usize,
            ));
            use_ = mlirOpOperandGetNextUse(use_);
        }
    }
    found
}

/// Moves `members` (ops of one block, in order) into a new `instance.group` named `name`,
/// inserted before `before` (see [`wrap_ops`]), with its SplitInfo and best split.
pub(crate) fn group_ops(
    before: Op,
    members: &[Op],
    name: &str,
    info: &[Split],
    best: Option<Split>,
) {
    // SAFETY: the op is alive.
    let context = unsafe { mlirOperationGetContext(before.0) };
    let location = members.last().expect("a group has ops").location();
    // The splits were verified when Algorithm 1 made them (positive factor, at least one op).
    // SAFETY: the members' location is alive.
    let at = unsafe { Location::from_raw(location) };
    let split = |split: &Split| {
        split
            .tuple()
            .attribute(at)
            .expect("Algorithm 1 makes valid splits")
            .to_raw()
    };
    // SAFETY: building attributes in a live context.
    let mut attributes = vec![("name", unsafe {
        mlirStringAttrGet(context, string_ref(name))
    })];
    if !info.is_empty() {
        let tuples: Vec<MlirAttribute> = info.iter().map(split).collect();
        // SAFETY: as above.
        attributes.push(("split_info", unsafe {
            mlirArrayAttrGet(context, tuples.len() as isize, tuples.as_ptr())
        }));
    }
    if let Some(best) = best {
        attributes.push(("best_split", split(&best)));
    }
    wrap_ops(before, members, "instance.group", &attributes);
}

/// Moves `members` (ops of one block, in order) into a new single-block op `name` with
/// `attributes`, inserted before `before`: values they read from outside become its operands
/// and block arguments, values read outside become its results (the last member's first), and
/// the outside uses read the results instead. Returns the new op.
pub(crate) fn wrap_ops(
    before: Op,
    members: &[Op],
    name: &str,
    attributes: &[(&str, MlirAttribute)],
) -> Op {
    let is_member = |op: MlirOperation| members.iter().any(|member| is_within(op, member.0));
    // SAFETY: every handle is a live op or value of one function body; ops are moved, not freed.
    unsafe {
        let context = mlirOperationGetContext(before.0);
        let location = members.last().expect("a wrapped op has members").location();
        // Operands: values read by the members (or ops nested in them) defined outside them.
        let mut inputs: Vec<MlirValue> = Vec::new();
        for member in members {
            for op in member.collect_pre_order() {
                for index in 0..mlirOperationGetNumOperands(op.0) {
                    let value = mlirOperationGetOperand(op.0, index);
                    let defined_inside = if mlirValueIsAOpResult(value) {
                        is_member(mlirOpResultGetOwner(value))
                    } else {
                        is_member(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(
                            value,
                        )))
                    };
                    if !defined_inside && !inputs.iter().any(|known| known.ptr == value.ptr) {
                        inputs.push(value);
                    }
                }
            }
        }
        // Results: values of the members read outside them, the sink (last member) first.
        let mut outputs: Vec<MlirValue> = Vec::new();
        for member in members.iter().rev() {
            for index in 0..mlirOperationGetNumResults(member.0) {
                let value = mlirOperationGetResult(member.0, index);
                if uses(Val(value)).iter().any(|(owner, _)| !is_member(*owner)) {
                    outputs.push(value);
                }
            }
        }
        let input_types: Vec<MlirType> = inputs
            .iter()
            .map(|value| mlirValueGetType(*value))
            .collect();
        let locations = vec![location; inputs.len()];
        let block = mlirBlockCreate(
            inputs.len() as isize,
            input_types.as_ptr(),
            locations.as_ptr(),
        );
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);

        let mut state = mlirOperationStateGet(string_ref(name), location);
        mlirOperationStateAddOperands(&mut state, inputs.len() as isize, inputs.as_ptr());
        let output_types: Vec<MlirType> = outputs
            .iter()
            .map(|value| mlirValueGetType(*value))
            .collect();
        mlirOperationStateAddResults(
            &mut state,
            output_types.len() as isize,
            output_types.as_ptr(),
        );
        mlirOperationStateAddOwnedRegions(&mut state, 1, &region);
        let attributes: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(key, value)| {
                mlirNamedAttributeGet(mlirIdentifierGet(context, string_ref(key)), *value)
            })
            .collect();
        mlirOperationStateAddAttributes(&mut state, attributes.len() as isize, attributes.as_ptr());
        let group = mlirOperationCreate(&mut state);
        mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(before.0), before.0, group);

        for member in members {
            mlirOperationRemoveFromParent(member.0);
            mlirBlockAppendOwnedOperation(block, member.0);
        }
        // Inside, read the block arguments instead of the outside values.
        for (position, input) in inputs.iter().enumerate() {
            let argument = mlirBlockGetArgument(block, position as isize);
            for (owner, operand) in uses(Val(*input)) {
                if is_within(owner, group) && owner.ptr != group.ptr {
                    mlirOperationSetOperand(owner, operand as isize, argument);
                }
            }
        }
        let mut yield_state = mlirOperationStateGet(string_ref("instance.yield"), location);
        mlirOperationStateAddOperands(&mut yield_state, outputs.len() as isize, outputs.as_ptr());
        let terminator = mlirOperationCreate(&mut yield_state);
        mlirBlockAppendOwnedOperation(block, terminator);
        // Outside, read the group's results.
        for (position, output) in outputs.iter().enumerate() {
            let result = mlirOperationGetResult(group, position as isize);
            for (owner, operand) in uses(Val(*output)) {
                if !is_within(owner, group) {
                    mlirOperationSetOperand(owner, operand as isize, result);
                }
            }
        }
        Op(group)
    }
}
