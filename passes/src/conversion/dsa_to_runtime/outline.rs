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

use super::abi::{kernel_arguments, prepend_arguments};
use super::builder::Builder;
use super::ir::{entry_block, op_name, operands, symbol_name, walk};
use super::types::{function_type, string_attribute};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};

/// Ops (nested ones counted, before the instructions are lowered, each to tens of ops) past which
/// a run of layers becomes a part: small parts spread over the threads of the per-function
/// pipelines, but each costs a call, its arguments and the views it rebuilds, so a part holds
/// several layers.
const PART_OPS: usize = 150;

/// Ops of a kernel's preamble, which stay in the kernel: what they define is read by every part.
const PREAMBLE: &[&str] = &["dsa.cluster_id", "dsa.core_id", "dsa.alloc"];

/// Where a value read by a top-level op is defined.
#[derive(Clone, Copy)]
enum Definition {
    /// An argument of the function.
    Argument,
    /// A result of the top-level op at this position.
    Op(usize),
}

/// Cuts `function` (a kernel's, before its dsa ops are lowered, with its leading arguments)
/// into parts, returning the new functions, which are kernels' functions as well.
///
/// # Safety
/// `function` is an alive `func.func` of the module with a body.
pub(super) unsafe fn outline_parts(function: MlirOperation) -> Vec<MlirOperation> {
    // SAFETY: the caller's guarantee; ops are moved, not erased, and the handles stay valid.
    unsafe {
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
        let name = symbol_name(function);
        let mut functions = Vec::new();
        for (number, part) in parts.into_iter().enumerate() {
            let call_before = tops[part.last().expect("a part has ops") + 1];
            let part_reads = layers.part_reads(&part);
            let ops: Vec<MlirOperation> = part.iter().map(|&index| tops[index]).collect();
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
}

/// The top-level ops of a kernel's function and what each reads of the others.
struct Layers {
    /// The ops of the entry block, in order.
    tops: Vec<MlirOperation>,
    /// Per top-level op, how many ops it holds, itself included.
    sizes: Vec<usize>,
    /// Per top-level op, the values defined outside it that it (or an op nested in it) reads,
    /// each once, in the order first read.
    reads: Vec<Vec<(MlirValue, Definition)>>,
    /// Per top-level op, the position of the last top-level op that reads one of its results
    /// (its own position when none does).
    last_use: Vec<usize>,
}

impl Layers {
    /// Reads the top-level ops of `function` and the values each reads from outside it.
    ///
    /// # Safety
    /// As for [`outline_parts`].
    unsafe fn read(function: MlirOperation) -> Self {
        // SAFETY: the caller's guarantee.
        unsafe {
            let block = entry_block(function);
            let mut tops = Vec::new();
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                tops.push(op);
                op = mlirOperationGetNextInBlock(op);
            }
            let position: HashMap<usize, usize> = tops
                .iter()
                .enumerate()
                .map(|(i, op)| (op.ptr as usize, i))
                .collect();
            let mut sizes = Vec::with_capacity(tops.len());
            let mut reads: Vec<Vec<(MlirValue, Definition)>> = Vec::with_capacity(tops.len());
            let mut last_use: Vec<usize> = (0..tops.len()).collect();
            for (index, &top) in tops.iter().enumerate() {
                let nested = walk(top);
                sizes.push(nested.len());
                let inside: HashSet<usize> = nested.iter().map(|op| op.ptr as usize).collect();
                let mut outside = Vec::new();
                let mut seen = HashSet::new();
                for &op in &nested {
                    for value in operands(op) {
                        let Some(definition) = defined_outside(value, block, &inside, &position)
                        else {
                            continue;
                        };
                        if seen.insert(value.ptr as usize) {
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
    }

    /// Whether the top-level op at `index` is a `dsa.barrier`.
    ///
    /// # Safety
    /// The ops are alive.
    unsafe fn barrier(&self, index: usize) -> bool {
        // SAFETY: the caller's guarantee.
        unsafe { op_name(self.tops[index]) == "dsa.barrier" }
    }

    /// Which top-level ops stay in the kernel: the preamble (before `first`), and pure ops whose
    /// results are read past the next barrier (tile bounds shared by the layers after
    /// common-subexpression elimination) when what they read stays too; those are passed to the
    /// parts that read them.
    ///
    /// # Safety
    /// The ops are alive.
    unsafe fn stays(&self, first: usize) -> Vec<bool> {
        // SAFETY: the caller's guarantee.
        unsafe {
            let count = self.tops.len();
            let mut next_barrier = vec![count; count + 1];
            for index in (0..count).rev() {
                next_barrier[index] = if self.barrier(index) {
                    index
                } else {
                    next_barrier[index + 1]
                };
            }
            // An op wanted in the kernel makes the pure ops it reads wanted too (a view of a
            // view).
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
                let inputs_stay =
                    self.reads[index]
                        .iter()
                        .all(|(_, definition)| match definition {
                            Definition::Argument => true,
                            Definition::Op(defined) => stays[*defined],
                        });
                stays[index] = index < first || (wanted[index] && inputs_stay);
            }
            stays
        }
    }

    /// Cuts the top-level ops from `first` on that do not stay (`stays`) into parts, each the
    /// positions of its ops: a part ends after a barrier once it holds [`PART_OPS`] ops and no
    /// later op reads what it defines. The deallocations of the preamble's buffers and the
    /// terminator stay at the end, as does a last run that does not end so.
    ///
    /// # Safety
    /// The ops are alive.
    unsafe fn parts(&self, first: usize, stays: &[bool]) -> Vec<Vec<usize>> {
        // SAFETY: the caller's guarantee.
        unsafe {
            let mut end = self.tops.len();
            while end > first
                && matches!(
                    op_name(self.tops[end - 1]).as_str(),
                    "dsa.return" | "dsa.dealloc"
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
    }

    /// The values the ops of `part` (positions, ascending) read from outside it, each once, in
    /// the order first read.
    fn part_reads(&self, part: &[usize]) -> Vec<(MlirValue, Definition)> {
        let mut seen = HashSet::new();
        part.iter()
            .flat_map(|&index| self.reads[index].iter().copied())
            .filter(|(_, definition)| match definition {
                Definition::Op(defined) => part.binary_search(defined).is_err(),
                Definition::Argument => true,
            })
            .filter(|(value, _)| seen.insert(value.ptr as usize))
            .collect()
    }
}

/// Where `value`, read inside a top-level op whose nested ops are `inside`, is defined, if outside
/// that op.
///
/// # Safety
/// `value` is alive; `block` is the function's entry block.
unsafe fn defined_outside(
    value: MlirValue,
    block: MlirBlock,
    inside: &HashSet<usize>,
    position: &HashMap<usize, usize>,
) -> Option<Definition> {
    // SAFETY: the caller's guarantee.
    unsafe {
        if mlirValueIsABlockArgument(value) {
            let owner = mlirBlockArgumentGetOwner(value);
            if owner.ptr == block.ptr {
                return Some(Definition::Argument);
            }
            let parent = mlirBlockGetParentOperation(owner);
            assert!(
                inside.contains(&(parent.ptr as usize)),
                "a block argument of another top-level op is out of scope"
            );
            return None;
        }
        let owner = mlirOpResultGetOwner(value);
        if inside.contains(&(owner.ptr as usize)) {
            return None;
        }
        Some(Definition::Op(*position.get(&(owner.ptr as usize)).expect(
            "a value read at the top level is defined at the top level",
        )))
    }
}

/// Whether `op` has no effect but its results (arithmetic and views), so that it may stay in the
/// kernel while the ops around it move to a part.
///
/// # Safety
/// `op` is alive.
unsafe fn is_pure(op: MlirOperation) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe {
        let name = op_name(op);
        mlirOperationGetNumRegions(op) == 0
            && (name.starts_with("arith.")
                || matches!(
                    name.as_str(),
                    "memref.subview"
                        | "memref.reinterpret_cast"
                        | "memref.cast"
                        | "memref.extract_strided_metadata"
                ))
    }
}

/// Whether the top-level op `op` belongs to the kernel's preamble: its ids, allocations and the
/// pure ops on them (the selection of the running cluster's buffers, the views of them).
///
/// # Safety
/// `op` is alive.
unsafe fn is_preamble(op: MlirOperation) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe { PREAMBLE.contains(&op_name(op).as_str()) || is_pure(op) }
}

/// Moves `ops` (top-level ops of `function`, in order, with only ops that stay in it between)
/// into a new private function `name` taking the kernel's leading arguments and the values of
/// `reads` it cannot rebuild, and calls it before `call_before`.
///
/// # Safety
/// As for [`outline_parts`]; `reads` are every value defined outside `ops` that they read.
unsafe fn outline(
    function: MlirOperation,
    name: &str,
    ops: &[MlirOperation],
    reads: &[(MlirValue, Definition)],
    call_before: MlirOperation,
) -> MlirOperation {
    // SAFETY: the caller's guarantee.
    unsafe {
        let context = mlirOperationGetContext(function);
        let location = mlirOperationGetLocation(ops[0]);
        let region = mlirRegionCreate();
        let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
        mlirRegionAppendOwnedBlock(region, block);
        let moved: HashSet<usize> = ops
            .iter()
            .flat_map(|&op| walk(op))
            .map(|op| op.ptr as usize)
            .collect();
        for &op in ops {
            mlirOperationRemoveFromParent(op);
            mlirBlockAppendOwnedOperation(block, op);
        }
        let mut inputs = Inputs {
            block,
            anchor: mlirBlockGetFirstOperation(block),
            location,
            known: HashMap::new(),
            passed: Vec::new(),
        };
        for &(value, _) in reads {
            let replacement = inputs.value(value);
            let mut uses = Vec::new();
            let mut user = mlirValueGetFirstUse(value);
            while !mlirOpOperandIsNull(user) {
                let owner = mlirOpOperandGetOwner(user);
                if moved.contains(&(owner.ptr as usize)) {
                    uses.push((owner, mlirOpOperandGetOperandNumber(user)));
                }
                user = mlirOpOperandGetNextUse(user);
            }
            for (owner, number) in uses {
                mlirOperationSetOperand(owner, number as isize, replacement);
            }
        }
        Builder::at_end(block, context, location).create("dsa.return", &[], Some(&[]), &[], &[]);
        let types: Vec<MlirType> = inputs
            .passed
            .iter()
            .map(|&value| mlirValueGetType(value))
            .collect();
        let mut module_builder = Builder::before(function);
        module_builder.location = location;
        let part = module_builder.function(
            name,
            function_type(context, &types, &[]),
            &[("sym_visibility", string_attribute(context, "private"))],
            region,
        );
        prepend_arguments(part, &kernel_arguments(context));
        let caller = entry_block(function);
        let mut arguments: Vec<MlirValue> = (0..4)
            .map(|index| mlirBlockGetArgument(caller, index))
            .collect();
        arguments.extend(inputs.passed);
        let mut builder = Builder::before(call_before);
        builder.location = location;
        builder.call(name, &arguments, &[]);
        part
    }
}

/// The values a part reads from the kernel: constants and views (with the index arithmetic of
/// their offsets) are built again at the part's start, down to the buffers they view, which are
/// passed — a buffer and its windows cost one argument rather than one each.
struct Inputs {
    block: MlirBlock,
    /// The part's first op: copies go before it, in the order they are made.
    anchor: MlirOperation,
    location: MlirLocation,
    /// Per kernel value (by handle), the part's.
    known: HashMap<usize, MlirValue>,
    /// The kernel values passed, in the order of the part's arguments.
    passed: Vec<MlirValue>,
}

impl Inputs {
    /// The part's value of kernel value `value`.
    ///
    /// # Safety
    /// `value` is alive and defined in the kernel's entry block.
    unsafe fn value(&mut self, value: MlirValue) -> MlirValue {
        // SAFETY: the caller's guarantee; a copy is inserted before the anchor, in the part.
        unsafe {
            if let Some(&known) = self.known.get(&(value.ptr as usize)) {
                return known;
            }
            let owner = (!mlirValueIsABlockArgument(value)).then(|| mlirOpResultGetOwner(value));
            let Some(owner) = owner.filter(|&op| rebuilt(op)) else {
                let argument =
                    mlirBlockAddArgument(self.block, mlirValueGetType(value), self.location);
                self.passed.push(value);
                self.known.insert(value.ptr as usize, argument);
                return argument;
            };
            let copy = mlirOperationClone(owner);
            for index in 0..mlirOperationGetNumOperands(owner) {
                let operand = self.value(mlirOperationGetOperand(owner, index));
                mlirOperationSetOperand(copy, index, operand);
            }
            mlirBlockInsertOwnedOperationBefore(self.block, self.anchor, copy);
            for index in 0..mlirOperationGetNumResults(owner) {
                self.known.insert(
                    mlirOperationGetResult(owner, index).ptr as usize,
                    mlirOperationGetResult(copy, index),
                );
            }
            self.known[&(value.ptr as usize)]
        }
    }
}

/// Whether a part builds the results of the kernel's op `op` again rather than taking them as
/// arguments: constants, views and index arithmetic (the selections of the running cluster's
/// buffers are passed: they read every cluster's).
///
/// # Safety
/// `op` is alive.
unsafe fn rebuilt(op: MlirOperation) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe { is_pure(op) && op_name(op) != "arith.select" }
}
