//! The IR side of `instance-split`: a group becomes its instances, each reading exactly the
//! slices it needs of the values outside (`instance.slice` of a larger tensor, `instance.concat`
//! of the producer instances it overlaps and no others), and the group's results become the
//! `instance.concat` of its instances' slices for whoever reads them whole.

use super::plan::{InstancePlan, Plan};
use crate::graph_view::{FunctionView, Node, TensorType};
use crate::ir::{self, create, i64_attribute, string_attribute, InsertionPoint, Op, Val};
use crate::slicing::regions::{boxed, full, sizes, Region};
use crate::slicing::sliced_body::{self, slice, tensor_like};
use mlir_sys::*;
use std::collections::HashMap;
use std::ops::Range;
use turbine_dialects::ops::{graph, instance};

/// What an instance reads of one of its group's operands, for the `explain` remarks.
struct Read {
    position: usize,
    want: Region,
    whole: Region,
    /// The producer instances (group, index) it reads, empty for a tensor no instance made.
    producers: Vec<(String, usize)>,
}

/// One instance's slice of a tensor the pass assembled with `instance.concat`.
#[derive(Debug, Clone)]
struct Piece {
    value: Val,
    range: Range<usize>,
    group: String,
    index: usize,
}

/// The concatenations the pass made, by value: what a later instance picks its operands from.
#[derive(Debug, Default)]
pub(super) struct Pieces {
    by_value: HashMap<usize, (usize, Vec<Piece>)>,
    concats: Vec<Op>,
}

impl Pieces {
    /// Erases the concatenations nobody reads any more, consuming the pieces (and with them the
    /// handles of the concatenations erased).
    pub(super) fn erase_unused(self) {
        for concat in self.concats.iter().rev() {
            if concat.result(0).is_unused() {
                // SAFETY: nothing reads the concat (checked) and it holds no region; the pieces are
                // consumed, and with them the concat handles.
                unsafe { concat.erase() };
            }
        }
    }
}

fn shape_of(value: Val) -> Vec<usize> {
    TensorType::of(value)
        .expect("the instance dialect's tensors are statically shaped")
        .shape
}

fn context_of(op: Op) -> MlirContext {
    // SAFETY: the op is alive.
    unsafe { mlirOperationGetContext(op.raw()) }
}

/// The operand that gives an instance the box `want` of `outer`, built before `group`; and which
/// producer instances it reads (none when `outer` is not a tensor the pass assembled).
fn gather(group: Op, outer: Val, want: &Region, pieces: &Pieces) -> (Val, Vec<(String, usize)>) {
    let location = group.location();
    let point = InsertionPoint::Before(group);
    let whole = full(&shape_of(outer));
    let Some((axis, list)) = pieces.by_value.get(&(outer.raw().ptr as usize)) else {
        return (
            slice(
                point,
                location,
                instance::Kind::Slice,
                outer,
                &whole,
                want,
                "offsets",
            ),
            Vec::new(),
        );
    };
    let axis = *axis;
    let read: Vec<&Piece> = list
        .iter()
        .filter(|piece| piece.range.start < want[axis].end && want[axis].start < piece.range.end)
        .collect();
    if read.is_empty() {
        // An empty box overlaps no slice.
        return (
            slice(
                point,
                location,
                instance::Kind::Slice,
                outer,
                &whole,
                want,
                "offsets",
            ),
            Vec::new(),
        );
    }
    let producers = read
        .iter()
        .map(|piece| (piece.group.clone(), piece.index))
        .collect();
    let span = read[0].range.start..read[read.len() - 1].range.end;
    let mut have = whole.clone();
    have[axis] = span.clone();
    let joined = if read.len() == 1 {
        read[0].value
    } else if span == whole[axis] {
        outer
    } else {
        let values: Vec<Val> = read.iter().map(|piece| piece.value).collect();
        let r#type = tensor_like(outer, &sizes(&have));
        let context = context_of(group);
        create(
            point,
            location,
            instance::Kind::Concat,
            &values,
            &[r#type],
            &[("axis", i64_attribute(context, axis as i64))],
            Vec::new(),
        )
        .result(0)
    };
    (
        slice(
            point,
            location,
            instance::Kind::Slice,
            joined,
            &have,
            want,
            "offsets",
        ),
        producers,
    )
}

/// Replaces `group` by its instances as `plan` says; returns them, each with what it reads.
pub(super) fn split(
    group: Op,
    name: &str,
    body: &FunctionView,
    plan: &Plan,
    dim: usize,
    pieces: &mut Pieces,
) -> Vec<(Op, String)> {
    let context = context_of(group);
    let location = group.location();
    let terminator = body
        .ops
        .last()
        .expect("a group body ends in instance.yield");
    let mut instances = Vec::with_capacity(plan.count);
    for (index, instance) in plan.instances.iter().enumerate() {
        let inputs = instance_inputs(group, body, instance, pieces);
        let (region, yielded) = instance_body(body, terminator, instance, &inputs, location);
        let result_types: Vec<MlirType> = yielded.iter().map(|value| value.r#type()).collect();
        let attributes = [
            ("group", string_attribute(context, name)),
            ("index", i64_attribute(context, index as i64)),
            ("count", i64_attribute(context, plan.count as i64)),
            ("dim", i64_attribute(context, dim as i64)),
        ];
        let op = create(
            InsertionPoint::Before(group),
            location,
            instance::Kind::Instance,
            &inputs.operands,
            &result_types,
            &attributes,
            vec![region],
        );
        instances.push((op, inputs.reads));
    }
    join_results(group, name, plan, &instances, pieces);
    // SAFETY: `join_results` made every use of the group's results read the concats, the instances
    // read only values outside the group, and neither the group nor `body`, its view, is used
    // after.
    unsafe { group.erase() };
    instances
        .into_iter()
        .map(|(op, reads)| (op, describe_reads(&reads)))
        .collect()
}

/// What one instance reads of its group's operands.
struct Inputs {
    /// The instance's operands, one per group operand it reads.
    operands: Vec<Val>,
    /// Per operand, the group body's block argument and the box the operand holds of it.
    arguments: Vec<(usize, Region)>,
    /// Per operand, what it reads, for the remarks.
    reads: Vec<Read>,
}

/// Builds, before `group`, the operands of one instance: the boxes of the group's operands
/// `instance` reads, in operand order. Returns them with the boxes and the reads.
fn instance_inputs(
    group: Op,
    body: &FunctionView,
    instance: &InstancePlan,
    pieces: &Pieces,
) -> Inputs {
    let mut operands = Vec::new();
    let mut arguments = Vec::new();
    let mut reads = Vec::new();
    for (position, (argument, _)) in body.arguments.iter().enumerate() {
        let Some(want) = &instance.computed[*argument] else {
            continue;
        };
        let (value, producers) = gather(group, group.operand(position), want, pieces);
        operands.push(value);
        arguments.push((*argument, want.clone()));
        let whole = full(&shape_of(group.operand(position)));
        reads.push(Read {
            position,
            want: want.clone(),
            whole,
            producers,
        });
    }
    Inputs {
        operands,
        arguments,
        reads,
    }
}

/// Builds the body of one instance: each op it computes, on the boxes its operands hold, then
/// the slices of the group's outputs (the operands of the body's `terminator`) it owns, yielded.
/// Returns the region and the yielded values.
fn instance_body(
    body: &FunctionView,
    terminator: &Node,
    instance: &InstancePlan,
    inputs: &Inputs,
    location: MlirLocation,
) -> (MlirRegion, Vec<Val>) {
    let argument_types: Vec<MlirType> =
        inputs.operands.iter().map(|value| value.r#type()).collect();
    let (region, block) = ir::region_with_block(&argument_types, location);
    let mut values: HashMap<usize, (Val, Region)> = HashMap::new();
    for (position, (argument, have)) in inputs.arguments.iter().enumerate() {
        // SAFETY: the block has one argument per operand; the argument lives with the block,
        // which the region holds until the instance built of it takes it.
        let value = unsafe { Val::from_raw(mlirBlockGetArgument(block, position as isize)) };
        values.insert(*argument, (value, have.clone()));
    }
    sliced_body::append_ops(
        block,
        body,
        &instance.computed,
        &instance.demands,
        &mut values,
    );
    let mut yielded = Vec::new();
    for (output, owned) in terminator.operands.iter().zip(&instance.owned) {
        let (value, have) = &values[output];
        yielded.push(slice(
            InsertionPoint::End(block),
            location,
            graph::Kind::Slice,
            *value,
            have,
            owned,
            "starts",
        ));
    }
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

/// Replaces each result of `group` by the `instance.concat` of its instances' slices, built
/// before the group, and records the slices in `pieces` for later instances to pick from.
fn join_results(
    group: Op,
    name: &str,
    plan: &Plan,
    instances: &[(Op, Vec<Read>)],
    pieces: &mut Pieces,
) {
    let location = group.location();
    for (position, &axis) in plan.axes.iter().enumerate() {
        let results: Vec<Val> = instances
            .iter()
            .map(|(op, _)| op.result(position))
            .collect();
        let outer = group.result(position);
        let context = context_of(group);
        let concat = create(
            InsertionPoint::Before(group),
            location,
            instance::Kind::Concat,
            &results,
            &[outer.r#type()],
            &[("axis", i64_attribute(context, axis as i64))],
            Vec::new(),
        );
        let list = instances
            .iter()
            .enumerate()
            .map(|(index, (op, _))| Piece {
                value: op.result(position),
                range: plan.instances[index].owned[position][axis].clone(),
                group: name.to_owned(),
                index,
            })
            .collect();
        outer.replace_all_uses_with(concat.result(0));
        pieces
            .by_value
            .insert(concat.result(0).raw().ptr as usize, (axis, list));
        pieces.concats.push(concat);
    }
}

/// What an instance reads, for the `explain` remarks: the producer instances of each operand, or
/// the box it reads of a tensor no instance made.
fn describe_reads(reads: &[Read]) -> String {
    let text: Vec<String> = reads
        .iter()
        .map(
            |Read {
                 position,
                 want,
                 whole,
                 producers,
             }| match producers.as_slice() {
                [] if want == whole => format!("operand {position} whole"),
                [] => format!("operand {position} {}", boxed(want)),
                [(group, _), ..] => {
                    let indices: Vec<String> = producers
                        .iter()
                        .map(|(_, index)| index.to_string())
                        .collect();
                    format!("operand {position} from '{group}' #{}", indices.join(", #"))
                }
            },
        )
        .collect();
    text.join("; ")
}

/// The group as one instance that computes all of it: its body moves into the instance.
pub(super) fn whole(group: Op, name: &str, dim: usize) -> Op {
    let context = context_of(group);
    let location = group.location();
    // SAFETY: the group is alive, and so are its operands; its body moves into the new region.
    let (operands, results, region) = unsafe {
        let operands: Vec<Val> = (0..mlirOperationGetNumOperands(group.raw()))
            .map(|i| Val::from_raw(mlirOperationGetOperand(group.raw(), i)))
            .collect();
        let results: Vec<MlirType> = (0..mlirOperationGetNumResults(group.raw()))
            .map(|i| mlirValueGetType(mlirOperationGetResult(group.raw(), i)))
            .collect();
        let region = mlirRegionCreate();
        mlirRegionTakeBody(region, mlirOperationGetRegion(group.raw(), 0));
        (operands, results, region)
    };
    let attributes = [
        ("group", string_attribute(context, name)),
        ("index", i64_attribute(context, 0)),
        ("count", i64_attribute(context, 1)),
        ("dim", i64_attribute(context, dim as i64)),
    ];
    let instance = create(
        InsertionPoint::Before(group),
        location,
        instance::Kind::Instance,
        &operands,
        &results,
        &attributes,
        vec![region],
    );
    for position in 0..results.len() {
        group
            .result(position)
            .replace_all_uses_with(instance.result(position));
    }
    // SAFETY: the group's results feed nothing now (their uses read the instance's), its body moved
    // into the instance, and it is not used after.
    unsafe { group.erase() };
    instance
}
