//! `graph-outline-control-flow`: every region of a `graph.if` or `graph.loop` becomes a private
//! function, and the region a call of it. This is Cocktailer's view of control flow (§4): a
//! branch or loop is a task whose bodies are task references, and a body is an ordinary graph
//! function, so every pass that works on functions (substitution, the schedules and their
//! lowerings) works on bodies too, and recursion (a function calling itself under a
//! `graph.if`) is the same thing as a call.
//!
//! After the pass each such region holds exactly `func.call @body(args) ; graph.yield results`:
//! the call passes the region's block arguments and then the values the region used from outside
//! it (captures, in the order of their first use), and yields the call's results. Weights and
//! constants defined inside a region are moved before the op first, so bodies take them as
//! inputs: only the entry function receives weights from the driver. A region already in that
//! form is left alone, so the pass is idempotent. Innermost regions are outlined first.

use crate::{
    graph_view::OUTLINED,
    ir::{self, block_arguments, block_ops, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::BTreeSet;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct OutlineControlFlow {
    explain: bool,
}

impl Pass for OutlineControlFlow {
    const ARGUMENT: &'static str = "graph-outline-control-flow";
    const SUMMARY: &'static str =
        "Make the regions of graph.if and graph.loop calls of private functions";
    const DESCRIPTION: &'static str = "\
Cocktailer (§4) treats a branch or a loop as a task whose bodies are references to other tasks. \
This pass makes that explicit: each region of a `graph.if` or `graph.loop` becomes a private \
`func.func` (named after the enclosing function, the op's kind and number, and `then`, `else` or \
`body`, marked `graph.outlined`) taking the region's block arguments and then every value the \
region used from outside it, in the order of first use; the region becomes `func.call` of it \
followed by `graph.yield` of the call's results. Weights and constants defined inside a region \
are moved before the op, so a body receives them from its caller. Innermost regions are outlined \
first; a region that already is a call and a yield of its results is left alone. The lowerings \
of both schedules expect this form: a body is compiled like any function, and recursion is a \
call. With `explain`, a remark on each outlined region.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit a remark on each outlined region naming its function and captures",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        let mut symbols: BTreeSet<String> = module
            .body_ops()
            .into_iter()
            .filter_map(|op| op.string_value("sym_name"))
            .collect();
        // Numbered in pre-order, which lists an op before the ops nested in it; outlined in
        // the reverse order, so inner regions come first.
        let controls: Vec<Op> = module
            .collect_pre_order()
            .into_iter()
            .filter(|op| op.is(graph::Kind::If) || op.is(graph::Kind::Loop))
            .collect();
        for (number, control) in controls.into_iter().enumerate().rev() {
            self.outline(control, number, &mut symbols);
        }
        Ok(())
    }
}

impl OutlineControlFlow {
    /// Outlines each region of `control`, the `number`-th control op of the module.
    fn outline(&self, control: Op, number: usize, symbols: &mut BTreeSet<String>) {
        let function = control
            .enclosing(upstream::Kind::FuncFunc)
            .expect("graph ops sit in functions");
        let (kind, parts): (&str, &[&str]) = if control.is(graph::Kind::If) {
            ("if", &["then", "else"])
        } else {
            ("loop", &["body"])
        };
        hoist_definitions(control);
        for (index, part) in parts.iter().enumerate() {
            // SAFETY: the op is alive and has this region (graph.if two, graph.loop one).
            let region = unsafe { mlirOperationGetRegion(control.raw(), index as isize) };
            // SAFETY: a verified graph.if or graph.loop region holds one block.
            let block = unsafe { mlirRegionGetFirstBlock(region) };
            if is_outlined(block) {
                continue;
            }
            let name = unique_name(
                &format!("{}_{kind}{number}_{part}", function.symbol_name()),
                symbols,
            );
            let captured = outline_region(control, region, function, &name);
            if self.explain {
                control.emit_remark(&format!(
                    "outlined the {part} region into @{name} ({} captured value{})",
                    captured,
                    if captured == 1 { "" } else { "s" }
                ));
            }
        }
    }
}

/// Moves the weights and constants defined directly in `control`'s regions before it.
fn hoist_definitions(control: Op) {
    for block in control.blocks() {
        for op in block_ops(block) {
            if op.is(graph::Kind::Weight) || op.is(graph::Kind::Constant) {
                // SAFETY: both ops are alive in one block structure; the moved op has no
                // operands, so it is valid anywhere before its users, which follow `control`.
                unsafe { mlirOperationMoveBefore(op.raw(), control.raw()) };
            }
        }
    }
}

/// Whether `block` already is `func.call` and `graph.yield` of exactly the call's results.
fn is_outlined(block: MlirBlock) -> bool {
    let ops = block_ops(block);
    let [call, yield_op] = ops.as_slice() else {
        return false;
    };
    call.is(upstream::Kind::FuncCall) && yield_op.operands() == call.results()
}

/// `base`, or `base_N` for the first N that no symbol of the module has; recorded as taken.
fn unique_name(base: &str, symbols: &mut BTreeSet<String>) -> String {
    let name = (0..)
        .map(|n| match n {
            0 => base.to_string(),
            _ => format!("{base}_{n}"),
        })
        .find(|name| !symbols.contains(name))
        .expect("some suffix is free");
    symbols.insert(name.clone());
    name
}

/// Moves `region` of `control` into a new private function `name` inserted before `function`,
/// and fills the region with a call of it; returns the number of captured values.
fn outline_region(control: Op, region: MlirRegion, function: Op, name: &str) -> usize {
    let location = control.location();
    let context = control.context();
    // SAFETY: a verified region of graph.if or graph.loop holds one block.
    let old_block = unsafe { mlirRegionGetFirstBlock(region) };
    let parameters: Vec<MlirType> = block_arguments(old_block)
        .iter()
        .map(|value| value.r#type())
        .collect();
    let terminator = *block_ops(old_block)
        .last()
        .expect("regions end in graph.yield");
    let result_types: Vec<MlirType> = terminator.operands().iter().map(|v| v.r#type()).collect();
    let captured = region_captures(old_block, control);
    let mut inputs = parameters.clone();
    inputs.extend(captured.iter().map(|value| value.r#type()));
    // SAFETY: the new region is handed to the function, which owns it.
    let body = unsafe { mlirRegionCreate() };
    let callee = ir::create(
        InsertionPoint::Before(function),
        location,
        upstream::Kind::FuncFunc,
        &[],
        &[],
        &[
            ("sym_name", ir::string_attribute(context, name)),
            (
                "function_type",
                // SAFETY: the type is alive in the context.
                unsafe { mlirTypeAttrGet(ir::function_type(context, &inputs, &result_types)) },
            ),
            ("sym_visibility", ir::string_attribute(context, "private")),
            // SAFETY: the context is alive.
            (OUTLINED, unsafe { mlirUnitAttrGet(context) }),
        ],
        vec![body],
    );
    // SAFETY: both regions are alive; the block moves with its arguments and ops, and the
    // region of `control` is left empty, to be given a new block below.
    unsafe { mlirRegionTakeBody(mlirOperationGetRegion(callee.raw(), 0), region) };
    for value in &captured {
        // SAFETY: the block is alive (now the function's); the new argument lives with it.
        let argument =
            unsafe { Val::from_raw(mlirBlockAddArgument(old_block, value.r#type(), location)) };
        for (user, index) in value.uses() {
            if user.is_within(callee) {
                user.set_operand(index, argument);
            }
        }
    }
    let returned = terminator.operands();
    ir::create(
        InsertionPoint::Before(terminator),
        terminator.location(),
        upstream::Kind::FuncReturn,
        &returned,
        &[],
        &[],
        Vec::new(),
    );
    // SAFETY: the yield has no results and is not used again.
    unsafe { terminator.erase() };
    call_in_region(control, region, name, &parameters, &captured, &result_types);
    captured.len()
}

/// The values `block` (a region of `control`) uses but that are defined outside `control`.
fn region_captures(block: MlirBlock, control: Op) -> Vec<Val> {
    let mut captured: Vec<Val> = Vec::new();
    for op in block_ops(block) {
        let mut used = op.operands();
        used.extend(op.captured_values());
        for value in used {
            let inside = match value.defining_op() {
                Some(definer) => definer.is_within(control),
                None => value
                    .owner_block()
                    .and_then(ir::block_parent)
                    .is_some_and(|holder| holder.is_within(control)),
            };
            if !inside && !captured.contains(&value) {
                captured.push(value);
            }
        }
    }
    captured
}

/// Gives the emptied `region` of `control` a block with arguments of `parameters` holding a call
/// of `name` on them and `captured`, and a `graph.yield` of its results.
fn call_in_region(
    control: Op,
    region: MlirRegion,
    name: &str,
    parameters: &[MlirType],
    captured: &[Val],
    result_types: &[MlirType],
) {
    let location = control.location();
    let (new_region, block) = ir::region_with_block(parameters, location);
    // SAFETY: both regions are alive; the new region's block moves into `control`'s empty
    // region, and the new region is destroyed empty.
    unsafe {
        mlirRegionTakeBody(region, new_region);
        mlirRegionDestroy(new_region);
    }
    let mut operands = block_arguments(block);
    operands.extend_from_slice(captured);
    // SAFETY: the context is alive; MLIR copies the name.
    let callee = unsafe { mlirFlatSymbolRefAttrGet(control.context(), ir::string_ref(name)) };
    let call = ir::create(
        InsertionPoint::End(block),
        location,
        upstream::Kind::FuncCall,
        &operands,
        result_types,
        &[("callee", callee)],
        Vec::new(),
    );
    ir::create(
        InsertionPoint::End(block),
        location,
        graph::Kind::Yield,
        &call.results(),
        &[],
        &[],
        Vec::new(),
    );
}
