//! Long blocks of lowered functions cut into chunks: runs of ops moved into private functions
//! that the block calls in their place.
//!
//! A block's size grows with the model: a tile loop of a kernel whose layers all fit its tiles
//! holds every layer's instructions, an entry function one launch per kernel. Passes that split a
//! block (`convert-scf-to-cf` moves the rest of the block at every loop) and LLVM's code
//! generation at O0 (its fast register allocator on one basic block) cost more than linearly in
//! a block's size, so no block of a lowered function holds more than about [`CHUNK_OPS`] ops.
//!
//! A chunk is cut after the dsa ops are lowered, so that it moves the lowered ops as they are:
//! the runtime calls (`td_layer` marks included) happen in the same order with the same
//! arguments, and the runtime records the same program. A chunk's function takes its caller's
//! leading arguments (`%dev`, and a kernel's `%cluster, %core, %index`), then the values it reads
//! from outside it (its caller's scratch among them), with constants, views and index arithmetic
//! built again inside ([`Inputs`]); it returns the values it defines that are read after it
//! (tokens, buffers, loop results). Blocks are cut innermost first, and a block still too long
//! after one round (it holds the calls) is cut again, so the calls nest as a tree of bounded
//! fan-out.

use super::builder::Builder;
use super::outline::{rebuilt, Inputs};
use super::symbols::Symbols;
use crate::ir::function_type;
use crate::ir::{
    block_arguments, block_ops, block_parent, region_with_block, string_attribute, Op, Val,
};
use mlir_sys::*;
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use turbine_dialects::ops::upstream;

/// Ops of a block (its own: a loop's body is a block of its own, cut on its own) past which a
/// run of them becomes a chunk. A lowered instruction is about fifty ops, so a chunk records
/// about forty instructions: large enough that a chunk's call, arguments and rebuilt constants
/// are a small share of it, small enough that the per-block costs stay in their linear regime
/// (the JIT of a tile loop of 10,000 Relu instructions, 500,000 ops in one block, takes 2.6 times
/// as long as in chunks of this size).
const CHUNK_OPS: usize = 2000;

/// A chunk grows past [`CHUNK_OPS`] up to this size looking for a cut where the values read
/// after it cost at most [`FEW_LIVE`]; failing that it ends where they cost the least.
const MAX_CHUNK_OPS: usize = 2 * CHUNK_OPS;

/// The cost of the values read after a chunk that makes a cut good enough to take at once (a
/// chain's token; see [`carry_cost`]).
const FEW_LIVE: usize = 1;

/// An op's identity, as a key of the maps and sets here.
fn op_key(op: Op) -> usize {
    op.raw().ptr as usize
}

/// A value's identity, as a key of the maps and sets here.
fn value_key(value: Val) -> usize {
    value.raw().ptr as usize
}

/// Cuts every block of `function` (a lowered function whose first `leading` entry arguments are
/// the ones its chunks take too) that holds more than [`CHUNK_OPS`] ops of its own, innermost
/// first. Chunks' names are the function's with `.chunkN`, unique among `symbols`.
pub(super) fn outline_chunks(function: Op, leading: usize, symbols: &mut Symbols) {
    let mut chunker = Chunker {
        function,
        leading,
        symbols,
        next: 0,
    };
    chunker.visit(function);
}

/// The chunking of one function.
struct Chunker<'a> {
    function: Op,
    leading: usize,
    symbols: &'a mut Symbols,
    /// The number the next chunk's name tries.
    next: usize,
}

impl Chunker<'_> {
    /// Cuts the blocks nested in `op`, inner ones before the blocks holding them.
    fn visit(&mut self, op: Op) {
        for block in op.blocks() {
            for inner in block_ops(block) {
                if inner.num_regions() > 0 {
                    self.visit(inner);
                }
            }
            self.cut_block(block);
        }
    }

    /// Cuts `block` into chunks until it holds at most [`CHUNK_OPS`] ops or a round moves
    /// nothing.
    fn cut_block(&mut self, block: MlirBlock) {
        loop {
            let ops = block_ops(block);
            if ops.len() <= CHUNK_OPS {
                return;
            }
            let chunks = plan(&ops, &last_uses(block, &ops));
            if chunks.is_empty() {
                return;
            }
            for chunk in chunks {
                let name = self.fresh_name();
                outline(
                    self.function,
                    self.leading,
                    &name,
                    &ops[chunk.clone()],
                    ops[chunk.end],
                );
            }
        }
    }

    /// A name for the next chunk that no symbol of the module has.
    fn fresh_name(&mut self) -> String {
        let base = self.function.symbol_name();
        loop {
            let name = format!("{base}.chunk{}", self.next);
            self.next += 1;
            if self.symbols.define(&name) {
                return name;
            }
        }
    }
}

/// What carrying a value of `op` across a cut costs: one result, or two for a value the other
/// side could build itself ([`rebuilt`]: a scratch word's address, a constant), so that a chain
/// is cut where its token is live rather than between a call and the read of its `token_out`.
fn carry_cost(op: Op) -> usize {
    if rebuilt(op) {
        2
    } else {
        1
    }
}

/// Per op of `ops` (the ops of `block`, in order), per result, the position of the last op of
/// the block that reads it or holds an op that does (the op's own position when none does).
fn last_uses(block: MlirBlock, ops: &[Op]) -> Vec<Vec<usize>> {
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(index, &op)| (op_key(op), index))
        .collect();
    let ancestor_position = |mut user: Op| loop {
        let parent_block = user.parent_block().expect("a user is in a block");
        if parent_block.ptr == block.ptr {
            return position[&op_key(user)];
        }
        user = block_parent(parent_block).expect("a user of a value of the block is inside it");
    };
    ops.iter()
        .enumerate()
        .map(|(index, op)| {
            op.results()
                .into_iter()
                .map(|result| {
                    result
                        .uses()
                        .into_iter()
                        .map(|(user, _)| ancestor_position(user))
                        .fold(index, usize::max)
                })
                .collect()
        })
        .collect()
}

/// The chunks of a block whose ops are `ops`, with results last read at `last_uses`, as ranges of
/// positions. The terminator and allocations (a function's stack scratch, which must live as long
/// as the function) stay in the block; the runs of ops between them are cut by [`plan_run`].
fn plan(ops: &[Op], last_uses: &[Vec<usize>]) -> Vec<Range<usize>> {
    let mut chunks = Vec::new();
    let mut run_start = 0;
    for (index, op) in ops.iter().enumerate() {
        if index + 1 == ops.len() || op.is(upstream::Kind::LlvmAlloca) {
            plan_run(ops, run_start..index, last_uses, &mut chunks);
            run_start = index + 1;
        }
    }
    chunks
}

/// Adds the chunks of the run of `ops` at positions `run` to `chunks`: a chunk ends once it holds
/// [`CHUNK_OPS`] ops where the values read later cost at most [`FEW_LIVE`], or at
/// [`MAX_CHUNK_OPS`] (or the run's end) where they cost the least; a shorter rest stays in the
/// block.
fn plan_run(
    ops: &[Op],
    run: Range<usize>,
    last_uses: &[Vec<usize>],
    chunks: &mut Vec<Range<usize>>,
) {
    let mut start = run.start;
    while start < run.end {
        let mut live = 0;
        let mut expiring: HashMap<usize, usize> = HashMap::new();
        // The best end seen: (the cost of the values read after it, its position).
        let mut best: Option<(usize, usize)> = None;
        for index in start..run.end {
            live -= expiring.remove(&index).unwrap_or(0);
            let cost = carry_cost(ops[index]);
            for &last in last_uses[index].iter().filter(|&&last| last > index) {
                live += cost;
                *expiring.entry(last).or_default() += cost;
            }
            let size = index + 1 - start;
            if size < CHUNK_OPS {
                continue;
            }
            if best.is_none_or(|(fewest, _)| live < fewest) {
                best = Some((live, index));
            }
            if live <= FEW_LIVE || size >= MAX_CHUNK_OPS {
                break;
            }
        }
        let Some((_, last)) = best else {
            return;
        };
        // One op behind a call would shorten nothing, nor would the whole run.
        if last > start && (start, last + 1) != (run.start, run.end) {
            chunks.push(start..last + 1);
        }
        start = last + 1;
    }
}

/// Moves `ops` (consecutive ops of a block of `function`, not its terminator) into a new private
/// function `name` and calls it before `call_before`, the op after them. The function takes the
/// first `leading` arguments of `function`, then the values defined outside `ops` that they read
/// and [`Inputs`] does not build again; it returns the values `ops` define that are read after
/// them, which the call's results replace.
fn outline(function: Op, leading: usize, name: &str, ops: &[Op], call_before: Op) {
    let context = function.context();
    let location = ops[0].location();
    let boundary = Boundary::of(ops);
    let leading_values: Vec<Val> = (0..leading).map(|i| function.entry_argument(i)).collect();
    let leading_types: Vec<MlirType> = leading_values.iter().map(|v| v.r#type()).collect();
    let (region, block) = region_with_block(&leading_types, location);
    for &op in ops {
        // SAFETY: each op is in a block of `function`; `block` is the fresh block of `region`,
        // which the function built below takes into the module, so the ops stay alive there.
        unsafe { op.move_to_end(block) };
    }
    let mut inputs = Inputs::new(block, ops[0], location);
    for (&value, argument) in leading_values.iter().zip(block_arguments(block)) {
        inputs.know(value, argument);
    }
    let replacements: HashMap<usize, Val> = boundary
        .reads
        .iter()
        .map(|&value| (value_key(value), inputs.value(value)))
        .collect();
    // The moved ops' operands rather than the read values' uses: a value read by every chunk (the
    // scratch) has uses all over the function.
    for &op in &boundary.moved {
        for (number, operand) in op.operands().into_iter().enumerate() {
            if let Some(&replacement) = replacements.get(&value_key(operand)) {
                op.set_operand(number, replacement);
            }
        }
    }
    Builder::at_end(block, context, location).create(
        upstream::Kind::FuncReturn,
        &boundary.escaping,
        Some(&[]),
        &[],
        &[],
    );
    let passed = inputs.passed();
    let mut input_types = leading_types;
    input_types.extend(passed.iter().map(|value| value.r#type()));
    let result_types: Vec<MlirType> = boundary.escaping.iter().map(|v| v.r#type()).collect();
    let mut module_builder = Builder::before(function);
    module_builder.location = location;
    module_builder.function(
        name,
        function_type(context, &input_types, &result_types),
        &[("sym_visibility", string_attribute(context, "private"))],
        region,
    );
    let mut arguments = leading_values;
    arguments.extend(passed);
    let mut builder = Builder::before(call_before);
    builder.location = location;
    let call = builder.call(name, &arguments, &result_types);
    for (uses, result) in boundary.later_uses.into_iter().zip(call.results()) {
        for (user, number) in uses {
            user.set_operand(number, result);
        }
    }
}

/// What crosses the boundary of a chunk's ops.
struct Boundary {
    /// The ops, nested ones included.
    moved: Vec<Op>,
    /// The values defined outside the ops that they read, each once, in the order first read.
    reads: Vec<Val>,
    /// The values the ops define that are read after them.
    escaping: Vec<Val>,
    /// Per escaping value, its uses after the ops.
    later_uses: Vec<Vec<(Op, usize)>>,
}

impl Boundary {
    /// The boundary of `ops`, consecutive ops of a block.
    fn of(ops: &[Op]) -> Self {
        let moved: Vec<Op> = ops.iter().flat_map(|&op| op.collect_pre_order()).collect();
        let inside: HashSet<usize> = moved.iter().map(|&op| op_key(op)).collect();
        let defined_inside = |value: Val| match value.defining_op() {
            Some(owner) => inside.contains(&op_key(owner)),
            None => value
                .owner_block()
                .and_then(block_parent)
                .is_some_and(|parent| inside.contains(&op_key(parent))),
        };
        let mut seen = HashSet::new();
        let reads: Vec<Val> = moved
            .iter()
            .flat_map(|op| op.operands())
            .filter(|&value| !defined_inside(value) && seen.insert(value_key(value)))
            .collect();
        let (escaping, later_uses) = ops
            .iter()
            .flat_map(|op| op.results())
            .map(|result| {
                let uses: Vec<(Op, usize)> = result
                    .uses()
                    .into_iter()
                    .filter(|&(user, _)| !inside.contains(&op_key(user)))
                    .collect();
                (result, uses)
            })
            .filter(|(_, uses)| !uses.is_empty())
            .unzip();
        Self {
            moved,
            reads,
            escaping,
            later_uses,
        }
    }
}
