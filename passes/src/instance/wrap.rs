//! Moving a run of ops of one block into a new single-block op (`instance.group`,
//! `instance.clusters`) that takes what they read from outside as operands and yields what is
//! read after them.

use super::split_info::Split;
use crate::ir::{Op, Val};
use melior::ir::{AttributeLike, Location};
use mlir_sys::*;
use std::collections::HashSet;
use turbine_dialects::ops::instance;

/// `text` as an MLIR string reference (borrowing it).
fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Whether `op` is `ancestor` or nested in it.
pub(super) fn is_within(op: MlirOperation, ancestor: MlirOperation) -> bool {
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
pub(super) fn uses(value: Val) -> Vec<(MlirOperation, usize)> {
    let mut found = Vec::new();
    // SAFETY: iterating the use list of a live value.
    unsafe {
        let mut use_ = mlirValueGetFirstUse(value.raw());
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
    let context = unsafe { mlirOperationGetContext(before.raw()) };
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
    wrap_ops(before, members, instance::Kind::Group, &attributes);
}

/// Moves `members` (ops of one block, in order) into a new single-block op of `kind` with
/// `attributes`, inserted before `before`: values they read from outside become its operands
/// and block arguments, values read outside become its results (the last member's first), and
/// the outside uses read the results instead. Returns the new op.
pub(crate) fn wrap_ops(
    before: Op,
    members: &[Op],
    kind: instance::Kind,
    attributes: &[(&str, MlirAttribute)],
) -> Op {
    let location = members.last().expect("a wrapped op has members").location();
    let inputs = inputs(members);
    let outputs = outputs(members);
    // SAFETY: every handle is a live op or value of one function body; ops are moved, not freed.
    // The group is the op MLIR just created, inserted before `before`.
    unsafe {
        let (group, block) = create_wrapper(before, kind, attributes, &inputs, &outputs, location);
        for member in members {
            mlirOperationRemoveFromParent(member.raw());
            mlirBlockAppendOwnedOperation(block, member.raw());
        }
        // Inside, read the block arguments instead of the outside values.
        for (position, input) in inputs.iter().enumerate() {
            let argument = mlirBlockGetArgument(block, position as isize);
            for (owner, operand) in uses(Val::from_raw(*input)) {
                if is_within(owner, group) && owner.ptr != group.ptr {
                    mlirOperationSetOperand(owner, operand as isize, argument);
                }
            }
        }
        let mut yield_state =
            mlirOperationStateGet(string_ref(instance::Kind::Yield.name()), location);
        mlirOperationStateAddOperands(&mut yield_state, outputs.len() as isize, outputs.as_ptr());
        let terminator = mlirOperationCreate(&mut yield_state);
        mlirBlockAppendOwnedOperation(block, terminator);
        // Outside, read the group's results.
        for (position, output) in outputs.iter().enumerate() {
            let result = mlirOperationGetResult(group, position as isize);
            for (owner, operand) in uses(Val::from_raw(*output)) {
                if !is_within(owner, group) {
                    mlirOperationSetOperand(owner, operand as isize, result);
                }
            }
        }
        Op::from_raw(group)
    }
}

/// The members of a wrap, by handle, to ask whether an op is one of them or nested in one in
/// time proportional to its nesting depth.
struct Members(HashSet<usize>);

impl Members {
    fn new(members: &[Op]) -> Self {
        Self(
            members
                .iter()
                .map(|member| member.raw().ptr as usize)
                .collect(),
        )
    }

    /// Whether `op` is one of the members or nested in one.
    fn contain(&self, op: MlirOperation) -> bool {
        let mut current = op;
        // SAFETY: walking parents of live ops.
        unsafe {
            while !current.ptr.is_null() {
                if self.0.contains(&(current.ptr as usize)) {
                    return true;
                }
                current = mlirOperationGetParentOperation(current);
            }
        }
        false
    }
}

/// The wrapper's operands: values read by the members (or ops nested in them) defined outside
/// them, each once, in the order first read.
fn inputs(members: &[Op]) -> Vec<MlirValue> {
    let within = Members::new(members);
    let mut inputs: Vec<MlirValue> = Vec::new();
    let mut known: HashSet<usize> = HashSet::new();
    // SAFETY: the members and the values they read are alive.
    unsafe {
        for member in members {
            for op in member.collect_pre_order() {
                for index in 0..mlirOperationGetNumOperands(op.raw()) {
                    let value = mlirOperationGetOperand(op.raw(), index);
                    let defined_inside = if mlirValueIsAOpResult(value) {
                        within.contain(mlirOpResultGetOwner(value))
                    } else {
                        within.contain(mlirBlockGetParentOperation(mlirBlockArgumentGetOwner(
                            value,
                        )))
                    };
                    if !defined_inside && known.insert(value.ptr as usize) {
                        inputs.push(value);
                    }
                }
            }
        }
    }
    inputs
}

/// The wrapper's results: values of the members read outside them, the sink (last member)
/// first.
fn outputs(members: &[Op]) -> Vec<MlirValue> {
    let within = Members::new(members);
    let mut outputs: Vec<MlirValue> = Vec::new();
    // SAFETY: the members and their results are alive.
    unsafe {
        for member in members.iter().rev() {
            for index in 0..mlirOperationGetNumResults(member.raw()) {
                let value = mlirOperationGetResult(member.raw(), index);
                if uses(Val::from_raw(value))
                    .iter()
                    .any(|(owner, _)| !within.contain(*owner))
                {
                    outputs.push(value);
                }
            }
        }
    }
    outputs
}

/// Creates an op of `kind` with `attributes` before `before`: operands `inputs`, one result per
/// value of `outputs`, and one region whose block takes an argument per input. Returns the op
/// and its block.
///
/// # Safety
/// Every handle is alive, of one function body.
unsafe fn create_wrapper(
    before: Op,
    kind: instance::Kind,
    attributes: &[(&str, MlirAttribute)],
    inputs: &[MlirValue],
    outputs: &[MlirValue],
    location: MlirLocation,
) -> (MlirOperation, MlirBlock) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let context = mlirOperationGetContext(before.raw());
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

        let mut state = mlirOperationStateGet(string_ref(kind.name()), location);
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
        mlirBlockInsertOwnedOperationBefore(
            mlirOperationGetBlock(before.raw()),
            before.raw(),
            group,
        );
        (group, block)
    }
}
