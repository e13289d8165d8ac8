//! A kernel's function cut into parts: runs of its layers (top-level ops between barriers) moved
//! into functions of their own that it calls in order.
//!
//! A GraphTurbo kernel holds a whole model, and one function that large cannot go through the
//! per-function pipelines on several threads, and costs LLVM's code generation more per op than the
//! layer-wise schedule's small kernels (docs/Benchmarks.md, the depths table). A part is called
//! once per core, as the kernel is, with the kernel's leading arguments; the values it reads from
//! the kernel's preamble (the running cluster's buffers, the LB arena) are passed to it, constants
//! are copied into it. A part ends after a barrier and no value it defines is read after it, so the
//! calls change nothing the runtime records.

use super::abi::kernel_arguments;
use super::builder::Builder;
use crate::ir::function_type;
use crate::ir::{
    block_arguments, block_ops, block_parent, region_with_block, string_attribute, Op, Val,
};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use turbine_dialects::ops::{dsa, upstream, OpKind};

/// Ops (nested ones counted, before the instructions are lowered, each to tens of ops) past which
/// a run of layers becomes a part: small parts spread over the threads of the per-function
/// pipelines, but each costs a call, its arguments and the views it rebuilds, so a part holds
/// several layers.
const PART_OPS: usize = 150;

/// Where a value read by a top-level op is defined.
#[derive(Clone, Copy)]
enum Definition {
    /// An argument of the function.
    Argument,
    /// A result of the top-level op at this position.
    Op(usize),
}

/// An op's identity, as a key of the maps and sets here.
fn op_key(op: Op) -> usize {
    op.raw().ptr as usize
}

/// A value's identity, as a key of the maps and sets here.
fn value_key(value: Val) -> usize {
    value.raw().ptr as usize
}

/// Cuts `function` (a kernel's `func.func`, before its dsa ops are lowered, with its leading
/// arguments) into parts, returning the new functions, which are kernels' functions as well.
pub(super) fn outline_parts(function: Op) -> Vec<Op> {
    let layers = Layers::read(function);
    let tops = &layers.tops;
    let first = tops
        .iter()
        .position(|&op| !is_preamble(op))
        .unwrap_or(tops.len());
    let stays = layers.stays(first);
    let parts = layers.parts(first, &stays);
    // One part would only move the kernel's body behind a call.
    if parts.len() < 2 {
        return Vec::new();
    }
    let name = function.symbol_name();
    let mut functions = Vec::new();
    for (number, part) in parts.into_iter().enumerate() {
        let call_before = tops[part.last().expect("a part has ops") + 1];
        let part_reads = layers.part_reads(&part);
        let ops: Vec<Op> = part.iter().map(|&index| tops[index]).collect();
        functions.push(outline(
            function,
            &format!("{name}.part{number}"),
            &ops,
            &part_reads,
            call_before,
        ));
    }
    functions
}

/// The top-level ops of a kernel's function and what each reads of the others.
struct Layers {
    /// The ops of the entry block, in order.
    tops: Vec<Op>,
    /// Per top-level op, how many ops it holds, itself included.
    sizes: Vec<usize>,
    /// Per top-level op, the values defined outside it that it (or an op nested in it) reads,
    /// each once, in the order first read.
    reads: Vec<Vec<(Val, Definition)>>,
    /// Per top-level op, the position of the last top-level op that reads one of its results
    /// (its own position when none does).
    last_use: Vec<usize>,
}

impl Layers {
    /// Reads the top-level ops of `function` and the values each reads from outside it.
    fn read(function: Op) -> Self {
        let block = function
            .entry_block()
            .expect("a kernel's function has a body");
        let tops = block_ops(block);
        let position: HashMap<usize, usize> = tops
            .iter()
            .enumerate()
            .map(|(i, &op)| (op_key(op), i))
            .collect();
        let mut sizes = Vec::with_capacity(tops.len());
        let mut reads: Vec<Vec<(Val, Definition)>> = Vec::with_capacity(tops.len());
        let mut last_use: Vec<usize> = (0..tops.len()).collect();
        for (index, &top) in tops.iter().enumerate() {
            let nested = top.collect_pre_order();
            sizes.push(nested.len());
            let inside: HashSet<usize> = nested.iter().map(|&op| op_key(op)).collect();
            let mut outside = Vec::new();
            let mut seen = HashSet::new();
            for &op in &nested {
                for value in op.operands() {
                    let Some(definition) = defined_outside(value, block, &inside, &position) else {
                        continue;
                    };
                    if seen.insert(value_key(value)) {
                        outside.push((value, definition));
                    }
                    if let Definition::Op(defined) = definition {
                        last_use[defined] = last_use[defined].max(index);
                    }
                }
            }
            reads.push(outside);
        }
        Self {
            tops,
            sizes,
            reads,
            last_use,
        }
    }

    /// Whether the top-level op at `index` is a `dsa.barrier`.
    fn barrier(&self, index: usize) -> bool {
        self.tops[index].is(dsa::Kind::Barrier)
    }

    /// Which top-level ops stay in the kernel: the preamble (before `first`), and pure ops whose
    /// results are read past the next barrier (tile bounds shared by the layers after
    /// common-subexpression elimination) when what they read stays too; those are passed to the
    /// parts that read them.
    fn stays(&self, first: usize) -> Vec<bool> {
        let count = self.tops.len();
        let mut next_barrier = vec![count; count + 1];
        for index in (0..count).rev() {
            next_barrier[index] = if self.barrier(index) {
                index
            } else {
                next_barrier[index + 1]
            };
        }
        // An op wanted in the kernel makes the pure ops it reads wanted too (a view of a view).
        let mut wanted = vec![false; count];
        for index in (first..count).rev() {
            wanted[index] |=
                is_pure(self.tops[index]) && self.last_use[index] > next_barrier[index];
            if wanted[index] {
                for (_, definition) in &self.reads[index] {
                    if let Definition::Op(defined) = *definition {
                        wanted[defined] |= is_pure(self.tops[defined]);
                    }
                }
            }
        }
        let mut stays = vec![false; count];
        for index in 0..count {
            let inputs_stay = self.reads[index]
                .iter()
                .all(|(_, definition)| match definition {
                    Definition::Argument => true,
                    Definition::Op(defined) => stays[*defined],
                });
            stays[index] = index < first || (wanted[index] && inputs_stay);
        }
        stays
    }

    /// Cuts the top-level ops from `first` on that do not stay (`stays`) into parts, each the
    /// positions of its ops: a part ends after a barrier once it holds [`PART_OPS`] ops and no
    /// later op reads what it defines. The deallocations of the preamble's buffers and the
    /// terminator stay at the end, as does a last run that does not end so.
    fn parts(&self, first: usize, stays: &[bool]) -> Vec<Vec<usize>> {
        let mut end = self.tops.len();
        while end > first
            && matches!(
                self.tops[end - 1].kind().and_then(OpKind::dsa),
                Some(dsa::Kind::Return | dsa::Kind::Dealloc)
            )
        {
            end -= 1;
        }
        let mut parts: Vec<Vec<usize>> = Vec::new();
        let (mut part, mut reach, mut size) = (Vec::new(), first, 0);
        for (index, &stays) in stays.iter().enumerate().take(end).skip(first) {
            if stays {
                continue;
            }
            reach = reach.max(self.last_use[index]);
            size += self.sizes[index];
            part.push(index);
            if reach <= index && self.barrier(index) && size >= PART_OPS {
                parts.push(std::mem::take(&mut part));
                (reach, size) = (index + 1, 0);
            }
        }
        if !part.is_empty() && reach < end {
            parts.push(part);
        }
        parts
    }

    /// The values the ops of `part` (positions, ascending) read from outside it, each once, in
    /// the order first read.
    fn part_reads(&self, part: &[usize]) -> Vec<(Val, Definition)> {
        let mut seen = HashSet::new();
        part.iter()
            .flat_map(|&index| self.reads[index].iter().copied())
            .filter(|(_, definition)| match definition {
                Definition::Op(defined) => part.binary_search(defined).is_err(),
                Definition::Argument => true,
            })
            .filter(|&(value, _)| seen.insert(value_key(value)))
            .collect()
    }
}

/// Where `value`, read inside a top-level op whose nested ops are `inside`, is defined, if outside
/// that op; `block` is the function's entry block.
fn defined_outside(
    value: Val,
    block: MlirBlock,
    inside: &HashSet<usize>,
    position: &HashMap<usize, usize>,
) -> Option<Definition> {
    if let Some(owner) = value.owner_block() {
        if owner.ptr == block.ptr {
            return Some(Definition::Argument);
        }
        assert!(
            block_parent(owner).is_some_and(|parent| inside.contains(&op_key(parent))),
            "a block argument of another top-level op is out of scope"
        );
        return None;
    }
    let owner = value
        .defining_op()
        .expect("a value is a block argument or an op's result");
    if inside.contains(&op_key(owner)) {
        return None;
    }
    Some(Definition::Op(*position.get(&op_key(owner)).expect(
        "a value read at the top level is defined at the top level",
    )))
}

/// Whether `op` has no effect but its results (arithmetic and views), so that it may stay in the
/// kernel while the ops around it move to a part.
fn is_pure(op: Op) -> bool {
    op.num_regions() == 0
        && (op.dialect() == "arith"
            || matches!(
                op.kind().and_then(OpKind::upstream),
                Some(
                    upstream::Kind::MemrefSubview
                        | upstream::Kind::MemrefReinterpretCast
                        | upstream::Kind::MemrefCast
                        | upstream::Kind::MemrefExtractStridedMetadata
                )
            ))
}

/// Whether the top-level op `op` belongs to the kernel's preamble, which stays in the kernel
/// because what it defines is read by every part: its ids, allocations and the pure ops on them
/// (the selection of the running cluster's buffers, the views of them).
fn is_preamble(op: Op) -> bool {
    matches!(
        op.kind().and_then(OpKind::dsa),
        Some(dsa::Kind::ClusterId | dsa::Kind::CoreId | dsa::Kind::Alloc)
    ) || is_pure(op)
}

/// Moves `ops` (top-level ops of `function`, in order, with only ops that stay in it between)
/// into a new private function `name` taking the kernel's leading arguments and the values of
/// `reads` it cannot rebuild, and calls it before `call_before`; `reads` are every value defined
/// outside `ops` that they read.
fn outline(
    function: Op,
    name: &str,
    ops: &[Op],
    reads: &[(Val, Definition)],
    call_before: Op,
) -> Op {
    let context = function.context();
    let location = ops[0].location();
    let leading: Vec<Val> = (0..kernel_arguments(context).len())
        .map(|index| function.entry_argument(index))
        .collect();
    let leading_types: Vec<MlirType> = leading.iter().map(|value| value.r#type()).collect();
    let (region, block) = region_with_block(&leading_types, location);
    let moved: Vec<Op> = ops.iter().flat_map(|&op| op.collect_pre_order()).collect();
    for &op in ops {
        // SAFETY: each op is a top-level op of `function`, in its block; `block` is the fresh block
        // of `region`, which the function built below takes into the module, so the ops stay alive
        // there, and it is not nested in any of them.
        unsafe { op.move_to_end(block) };
    }
    let mut inputs = Inputs::new(block, ops[0], location);
    for (&value, argument) in leading.iter().zip(block_arguments(block)) {
        inputs.know(value, argument);
    }
    let replacements: HashMap<usize, Val> = reads
        .iter()
        .map(|&(value, _)| (value_key(value), inputs.value(value)))
        .collect();
    // The moved ops' operands rather than the read values' uses: a value every part reads (a
    // buffer, a constant) has uses throughout the function.
    for op in moved {
        for (number, operand) in op.operands().into_iter().enumerate() {
            if let Some(&replacement) = replacements.get(&value_key(operand)) {
                op.set_operand(number, replacement);
            }
        }
    }
    Builder::at_end(block, context, location).create(dsa::Kind::Return, &[], Some(&[]), &[], &[]);
    let passed = inputs.passed();
    let mut types = leading_types;
    types.extend(passed.iter().map(|value| value.r#type()));
    let mut module_builder = Builder::before(function);
    module_builder.location = location;
    let part = module_builder.function(
        name,
        function_type(context, &types, &[]),
        &[("sym_visibility", string_attribute(context, "private"))],
        region,
    );
    let mut arguments = leading;
    arguments.extend(passed);
    let mut builder = Builder::before(call_before);
    builder.location = location;
    builder.call(name, &arguments, &[]);
    part
}

/// The values a part (or a chunk, [`super::chunks`]) reads from the function it is cut from:
/// constants and views (with the index arithmetic of their offsets) are built again at the part's
/// start, down to the buffers they view, which are passed — a buffer and its windows cost one
/// argument rather than one each.
pub(super) struct Inputs {
    block: MlirBlock,
    /// The part's first op: copies go before it, in the order they are made.
    anchor: Op,
    location: MlirLocation,
    /// Per value of the function cut from (by handle), the part's.
    known: HashMap<usize, Val>,
    /// The function's values passed, in the order of the part's arguments.
    passed: Vec<Val>,
}

impl Inputs {
    /// The inputs of a part whose body is `block`, first op `anchor`, built at `location`.
    pub(super) fn new(block: MlirBlock, anchor: Op, location: MlirLocation) -> Self {
        Self {
            block,
            anchor,
            location,
            known: HashMap::new(),
            passed: Vec::new(),
        }
    }

    /// Records `value`'s counterpart in the part as `part_value` (an argument it already has).
    pub(super) fn know(&mut self, value: Val, part_value: Val) {
        self.known.insert(value_key(value), part_value);
    }

    /// The values passed, in the order of the arguments added for them.
    pub(super) fn passed(self) -> Vec<Val> {
        self.passed
    }

    /// The part's value of `value`, a value of the function it is cut from.
    pub(super) fn value(&mut self, value: Val) -> Val {
        if let Some(&known) = self.known.get(&value_key(value)) {
            return known;
        }
        let Some(owner) = value.defining_op().filter(|&op| rebuilt(op)) else {
            // SAFETY: the block, the type and the location are alive in one context; the new
            // argument lives with the block.
            let argument = unsafe {
                Val::from_raw(mlirBlockAddArgument(
                    self.block,
                    value.r#type(),
                    self.location,
                ))
            };
            self.passed.push(value);
            self.known.insert(value_key(value), argument);
            return argument;
        };
        // SAFETY: the owner is alive; its copy stays alive, detached until the block takes it
        // below.
        let copy = unsafe { Op::from_raw(mlirOperationClone(owner.raw())) };
        for (index, operand) in owner.operands().into_iter().enumerate() {
            let operand = self.value(operand);
            copy.set_operand(index, operand);
        }
        // SAFETY: the copy is detached and the anchor is in the block, which takes the copy.
        unsafe { mlirBlockInsertOwnedOperationBefore(self.block, self.anchor.raw(), copy.raw()) };
        for (result, copied) in owner.results().into_iter().zip(copy.results()) {
            self.known.insert(value_key(result), copied);
        }
        self.known[&value_key(value)]
    }
}

/// Whether a part builds the results of its function's op `op` again rather than taking them as
/// arguments: constants (global addresses too), views, index arithmetic and addresses of scratch
/// words (the selections of the running cluster's buffers are passed: they read every cluster's).
pub(super) fn rebuilt(op: Op) -> bool {
    (is_pure(op) && !op.is(upstream::Kind::ArithSelect))
        || matches!(
            op.kind().and_then(OpKind::upstream),
            Some(
                upstream::Kind::LlvmMlirAddressof
                    | upstream::Kind::LlvmMlirZero
                    | upstream::Kind::LlvmGetelementptr
            )
        )
}
