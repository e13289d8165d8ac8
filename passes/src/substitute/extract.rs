//! A part of a split searched as a function of its own (MetaFlow §5.2: each part is searched
//! alone). The part's ops are cloned into a detached function whose arguments are the values the
//! part reads from the rest of the graph and whose results are the part's values the rest reads,
//! so that a candidate of the part's search clones, reads and prices the part only: the parts'
//! searches together grow with the graph's size, not with its square. A part whose search found a
//! cheaper graph is spliced back in place of its ops; the block is then put back in a
//! topological order.
//!
//! Only a convex part can be searched alone: when a value leaves the part and comes back through
//! ops outside it, the part's result would be read by an op its own arguments depend on.

use crate::graph_view::{FunctionView, ValueId};
use crate::ir::{block_arguments, block_ops, create, region_with_block, InsertionPoint, Op, Val};
use crate::ir::{function_type, string_attribute};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use turbine_dialects::ops::upstream;

/// An op's identity, as a key of the maps and sets here.
fn op_key(op: Op) -> usize {
    op.raw().ptr as usize
}

/// A value's identity, as a key of the maps and sets here.
fn value_key(value: Val) -> usize {
    value.raw().ptr as usize
}

/// The ops of `part` (positions of `view`'s ops, ascending) its search takes: all but the ops
/// without operands (weights, constants) that ops outside the part read as well, which stay in the
/// graph and are passed to the part. A cut through the middle of a graph leaves such an op on one
/// side and a reader on the other, and it would make the part look as if values left it and came
/// back, while the op depends on nothing.
pub fn searched_ops(view: &FunctionView, part: &[usize]) -> Vec<usize> {
    let inside: HashSet<usize> = part.iter().copied().collect();
    part.iter()
        .copied()
        .filter(|&index| {
            let node = &view.ops[index];
            !node.operands.is_empty()
                || node.results.iter().all(|(value, _)| {
                    view.readers(*value)
                        .iter()
                        .all(|reader| inside.contains(reader))
                })
        })
        .collect()
}

/// Whether `part` (positions of `view`'s ops, ascending) is convex: no op outside it reads a
/// value that depends on the part and is itself read, directly or through other ops, by the part.
pub fn is_convex(view: &FunctionView, part: &[usize]) -> bool {
    let (Some(&first), Some(&last)) = (part.first(), part.last()) else {
        return true;
    };
    let inside: HashSet<usize> = part.iter().copied().collect();
    // The part's values, and the values of ops outside it that depend on them (ops after `last`
    // cannot feed the part back).
    let mut produced: HashSet<ValueId> = HashSet::new();
    let mut tainted: HashSet<ValueId> = HashSet::new();
    for index in first..=last {
        let node = &view.ops[index];
        let results = node.results.iter().map(|(value, _)| *value);
        if inside.contains(&index) {
            if node.operands.iter().any(|value| tainted.contains(value)) {
                return false;
            }
            produced.extend(results);
        } else if node
            .operands
            .iter()
            .any(|value| produced.contains(value) || tainted.contains(value))
        {
            tainted.extend(results);
        }
    }
    true
}

/// A part cloned into a detached function of its own.
pub struct Extracted {
    /// The detached `func.func`: the part's ops, then a `func.return` of the values the rest of
    /// the graph reads.
    pub function: Op,
    /// Per argument of `function`, the value of the graph it stands for.
    inputs: Vec<Val>,
    /// Per result of `function`, the part's value it stands for.
    outputs: Vec<Val>,
    /// The part's ops in the graph, in block order.
    ops: Vec<Op>,
}

/// Clones the ops of `part` (positions of `view`'s ops, ascending, a convex part) into a detached
/// function named `name`.
pub fn extract(view: &FunctionView, part: &[usize], name: &str) -> Extracted {
    let ops: Vec<Op> = part.iter().map(|&index| view.ops[index].op).collect();
    let location = ops[0].location();
    let context = ops[0].context();
    let (region, block) = region_with_block(&[], location);
    let inside: HashSet<usize> = ops.iter().map(|&op| op_key(op)).collect();
    let mut copies: HashMap<usize, Val> = HashMap::new();
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    for &op in &ops {
        // SAFETY: the op is alive; its clone is detached until the block takes it below.
        let copy = unsafe { Op::from_raw(mlirOperationClone(op.raw())) };
        for (index, operand) in op.operands().into_iter().enumerate() {
            let value = *copies.entry(value_key(operand)).or_insert_with(|| {
                inputs.push(operand);
                // SAFETY: the block, the type and the location are alive in one context.
                unsafe { Val::from_raw(mlirBlockAddArgument(block, operand.r#type(), location)) }
            });
            copy.set_operand(index, value);
        }
        // SAFETY: the copy is detached; the block takes it.
        unsafe { mlirBlockAppendOwnedOperation(block, copy.raw()) };
        for (result, copied) in op.results().into_iter().zip(copy.results()) {
            copies.insert(value_key(result), copied);
            let read_outside = result
                .uses()
                .into_iter()
                .any(|(user, _)| !inside.contains(&op_key(user)));
            if read_outside {
                outputs.push(result);
            }
        }
    }
    let returned: Vec<Val> = outputs
        .iter()
        .map(|&value| copies[&value_key(value)])
        .collect();
    let point = InsertionPoint::End(block);
    create(
        point,
        location,
        upstream::Kind::FuncReturn,
        &returned,
        &[],
        &[],
        Vec::new(),
    );
    let types = |values: &[Val]| -> Vec<MlirType> { values.iter().map(|v| v.r#type()).collect() };
    let r#type = function_type(context, &types(&inputs), &types(&outputs));
    // SAFETY: the type is alive in `context`.
    let type_attribute = unsafe { mlirTypeAttrGet(r#type) };
    let attributes = [
        ("sym_name", string_attribute(context, name)),
        ("function_type", type_attribute),
    ];
    let function = create(
        InsertionPoint::Detached,
        location,
        upstream::Kind::FuncFunc,
        &[],
        &[],
        &attributes,
        vec![region],
    );
    Extracted {
        function,
        inputs,
        outputs,
        ops,
    }
}

impl Extracted {
    /// Destroys the function; the graph stays as it is.
    pub fn discard(self) {
        // SAFETY: the detached function is this part's; nothing outside it reads its values.
        unsafe { self.function.erase() }
    }
}

/// Puts the bodies of `parts` (whose searches found cheaper graphs) in place of their ops in
/// `function`, then erases the replaced ops and orders the block topologically again.
pub fn splice(function: Op, parts: Vec<Extracted>) {
    let Some(&terminator) = function.body_ops().last() else {
        return;
    };
    // Per replaced value of the graph, its replacement: a part's input may be another's output.
    let mut replaced: HashMap<usize, Val> = HashMap::new();
    let mut erased = Vec::new();
    for part in parts {
        let body = part
            .function
            .entry_block()
            .expect("an extracted part has a body");
        for (argument, input) in block_arguments(body).into_iter().zip(&part.inputs) {
            let input = replaced.get(&value_key(*input)).copied().unwrap_or(*input);
            argument.replace_all_uses_with(input);
        }
        let ops = block_ops(body);
        let (end, moved) = ops
            .split_last()
            .expect("an extracted part has a terminator");
        // Where the part's first op is, so that the block keeps its order; the ops between the
        // part's first and last that define what the new ops read move up when the block is
        // ordered again.
        let place = part.ops[0];
        for &op in moved {
            // SAFETY: the op is in the part's body; the graph's block takes it before `place`.
            unsafe { mlirOperationMoveBefore(op.raw(), place.raw()) };
        }
        for (output, result) in part.outputs.iter().zip(end.operands()) {
            output.replace_all_uses_with(result);
            replaced.insert(value_key(*output), result);
        }
        erased.extend(part.ops.into_iter().rev());
        // SAFETY: the function's body holds only its return now, whose operands are the graph's.
        unsafe { part.function.erase() };
    }
    for op in erased {
        // SAFETY: every use of the replaced ops' results was replaced, except by replaced ops
        // erased before them (a part's ops go in reverse block order).
        unsafe { op.erase() };
    }
    order_topologically(function, terminator);
}

/// Moves the ops of `function`'s body before `terminator` so that each comes after the ops whose
/// results it reads, keeping the block order where it already does.
fn order_topologically(function: Op, terminator: Op) {
    let ops = function.body_ops();
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(index, &op)| (op_key(op), index))
        .collect();
    let mut placed = vec![false; ops.len()];
    placed[ops.len() - 1] = true;
    for start in 0..ops.len() {
        // Depth first over the producers not placed yet, with a stack of its own: a chain of
        // 100,000 ops is as deep.
        let mut stack = vec![(start, false)];
        while let Some((index, expanded)) = stack.pop() {
            if placed[index] {
                continue;
            }
            if expanded {
                placed[index] = true;
                // SAFETY: both ops are in the function's block.
                unsafe { mlirOperationMoveBefore(ops[index].raw(), terminator.raw()) };
                continue;
            }
            stack.push((index, true));
            for operand in ops[index].operands().into_iter().rev() {
                let producer = operand
                    .defining_op()
                    .and_then(|op| position.get(&op_key(op)).copied());
                if let Some(producer) = producer.filter(|&producer| !placed[producer]) {
                    stack.push((producer, false));
                }
            }
        }
    }
}
