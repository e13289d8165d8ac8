//! Control flow in the host function (Cocktailer §4): `graph.if`, `graph.loop` and `func.call`
//! whose regions `graph-outline-control-flow` made calls of other functions. Each body is a host
//! function of its own; a branch or loop here reads its condition with `dsa.read_scalar` and
//! calls the bodies. With `control=device` the whole construct sits in a `dsa.persistent`
//! region: the cores read the conditions and the body's launches are steps of one persistent
//! kernel. With `control=host` the host reads each condition back and launches every kernel.
//!
//! A loop's carried values live in two sets of DDR buffers that the iterations write in turn
//! (the first set starts as a copy of the initial values), so no iteration copies them.

use super::super::control_mode::ControlMode;
use super::super::region_call::{region_call, Passed, RegionCall};
use super::HostLowering;
use crate::graph_view::{ElementType, Node, ValueId};
use crate::ir::{self, block_arguments, InsertionPoint, Op, Val};
use crate::kernels::{
    emit::{Body, Compare, Logic, Tensor},
    error::LoweringError,
};
use mlir_sys::*;
use std::collections::BTreeMap;
use turbine_dialects::ops::{dsa, graph, upstream};

impl HostLowering<'_, '_> {
    /// Lowers op `index`, a `graph.if`, `graph.loop` or `func.call`.
    pub(super) fn control(&mut self, index: usize) -> Result<(), LoweringError> {
        let node = &self.program.ops[index];
        match node.graph_kind() {
            Some(graph::Kind::If) => self.branch(index),
            Some(graph::Kind::Loop) => self.repeat(index),
            _ => self.plain_call(index),
        }
    }

    /// A `func.call` at the function's top level: the callee writes fresh result buffers.
    fn plain_call(&mut self, index: usize) -> Result<(), LoweringError> {
        let node = &self.program.ops[index];
        let callee = node
            .op
            .symbol_reference("callee")
            .expect("a call names its callee");
        let inputs = self.contiguous_inputs(index, &node.operands)?;
        let results = self.fresh_results(index, node, true)?;
        let outputs: Vec<Val> = results.iter().map(|tensor| tensor.host).collect();
        let mut host = Body::new(self.signature.block, node.op.location());
        self.call_body(&mut host, index, &callee, &inputs, &outputs)?;
        self.bind_results(index, node, results);
        Ok(())
    }

    /// A `graph.if`: the condition read, then a call of either body into fresh result buffers;
    /// only the taken body's call when the condition is a constant.
    fn branch(&mut self, index: usize) -> Result<(), LoweringError> {
        let node = &self.program.ops[index];
        let calls = [region_call(node, index, 0)?, region_call(node, index, 1)?];
        if let Some(constant) = self.constant_scalar(node.operands[0]) {
            let taken = &calls[usize::from(constant == 0)];
            let inputs = self.passed_inputs(index, taken, &[])?;
            let results = self.fresh_results(index, node, true)?;
            let outputs: Vec<Val> = results.iter().map(|tensor| tensor.host).collect();
            let mut host = Body::new(self.signature.block, node.op.location());
            self.call_body(&mut host, index, &taken.callee, &inputs, &outputs)?;
            self.bind_results(index, node, results);
            return Ok(());
        }
        let mut inputs = Vec::new();
        for call in &calls {
            inputs.push(self.passed_inputs(index, call, &[])?);
        }
        let results = self.fresh_results(index, node, true)?;
        let outputs: Vec<Val> = results.iter().map(|tensor| tensor.host).collect();
        let condition = self.tensors[&node.operands[0]].host;
        let location = node.op.location();
        let (block, region_op) = self.open_region(location, &[]);
        let mut host = Body::new(block, location);
        let value = read_scalar(&mut host, condition);
        let zero = integer(&mut host, 0);
        let taken = host.compare(Compare::Ne, value, zero);
        host.open_if(taken);
        self.call_body(&mut host, index, &calls[0].callee, &inputs[0], &outputs)?;
        host.reopen();
        self.call_body(&mut host, index, &calls[1].callee, &inputs[1], &outputs)?;
        host.close();
        close_region(&mut host, region_op, &[]);
        self.bind_results(index, node, results);
        Ok(())
    }

    /// A `graph.loop`: see the module documentation.
    fn repeat(&mut self, index: usize) -> Result<(), LoweringError> {
        let node = &self.program.ops[index];
        let call = region_call(node, index, 0)?;
        let location = node.op.location();
        // The results end in either set, so neither is an output buffer.
        let first = self.fresh_results(index, node, false)?;
        let second = self.spare_buffers(index, node)?;
        self.copy_initial_values(index, node, &first)?;
        let condition = self.scalar_buffer(ElementType::Bool);
        let counter = self.scalar_buffer(ElementType::I64);
        // The body's block arguments are the counter and the carried values (the current set,
        // bound per iteration); its outputs the condition and the next set.
        let bound: Vec<Val> = std::iter::once(counter.host)
            .chain(first.iter().map(|tensor| tensor.host))
            .collect();
        let inputs = self.passed_inputs(index, &call, &bound)?;
        let replicated = self.keep_on_chip(index, &call, &inputs);
        let carried_types: Vec<MlirType> = first.iter().map(|t| t.host.r#type()).collect();
        let (block, region_op) = self.open_region(location, &carried_types);
        let mut host = Body::new(block, location);
        let limit = self.scalar_value(&mut host, node.operands[0]);
        let proceed = self.scalar_value(&mut host, node.operands[1]);
        let zero = integer(&mut host, 0);
        let proceed = host.compare(Compare::Ne, proceed, zero);
        let state = LoopState {
            first: first.iter().map(|t| t.host).collect(),
            second: second.iter().map(|t| t.host).collect(),
            limit,
            proceed,
            condition: condition.host,
            counter: counter.host,
            replicated,
        };
        let finals = self.emit_while(&mut host, index, &call, &inputs, &state)?;
        close_region(&mut host, region_op, &finals);
        let finals = match region_op {
            Some(op) => op.results(),
            None => finals,
        };
        for tensor in [condition, counter] {
            self.host.dealloc(tensor.host);
            self.live_bytes -= tensor.view.elements() * tensor.view.element.bytes();
        }
        for buffer in state.replicated.values().flatten() {
            self.host.dealloc(*buffer);
        }
        let results = finals
            .into_iter()
            .zip(first)
            .map(|(host, tensor)| Tensor {
                host,
                view: tensor.view,
            })
            .collect();
        self.bind_results(index, node, results);
        Ok(())
    }

    /// The `scf.while` of a loop in `host`; returns the carried values it ends with.
    fn emit_while(
        &mut self,
        host: &mut Body,
        index: usize,
        call: &RegionCall,
        inputs: &[Val],
        state: &LoopState,
    ) -> Result<Vec<Val>, LoweringError> {
        let LoopState {
            limit,
            proceed,
            condition,
            counter,
            ..
        } = *state;
        let location = host.location();
        let zero = integer(host, 0);
        let mut initial = vec![zero, proceed];
        initial.extend(&state.first);
        initial.extend(&state.second);
        let types: Vec<MlirType> = initial.iter().map(|value| value.r#type()).collect();
        let (before_region, before) = ir::region_with_block(&types, location);
        let (after_region, after) = ir::region_with_block(&types, location);
        let while_op = host.op_with_regions(
            upstream::Kind::ScfWhile,
            &initial,
            &types,
            vec![before_region, after_region],
        );
        // Before each iteration: below the limit, the condition holding, and the watchdog
        // letting it run.
        let arguments = block_arguments(before);
        let mut check = Body::new(before, location);
        let below = check.compare(Compare::Slt, arguments[0], limit);
        let wanted = check.logic(Logic::And, below, arguments[1]);
        let go = watchdog(&mut check, wanted, arguments[0]);
        let mut forwarded = vec![go];
        forwarded.extend(&arguments);
        check.op(upstream::Kind::ScfCondition, &forwarded, &[], &[]);
        // An iteration: the counter stored, the body called from the current set into the
        // next, its condition read, and the sets swapped.
        let arguments = block_arguments(after);
        let count = state.first.len();
        let (current, next) = arguments[2..].split_at(count);
        let mut step = Body::new(after, location);
        step.op(dsa::Kind::WriteScalar, &[arguments[0], counter], &[], &[]);
        let bound: Vec<Val> = std::iter::once(counter)
            .chain(current.iter().copied())
            .collect();
        // An input kept on chip is one GB buffer per cluster.
        let inputs: Vec<Val> = call
            .passed
            .iter()
            .zip(inputs)
            .enumerate()
            .flat_map(|(position, (passed, &input))| match passed {
                Passed::Argument(argument) => vec![bound[*argument]],
                Passed::Outer(_) => state
                    .replicated
                    .get(&position)
                    .cloned()
                    .unwrap_or_else(|| vec![input]),
            })
            .collect();
        let mut outputs = vec![condition];
        outputs.extend(next);
        self.call_body(&mut step, index, &call.callee, &inputs, &outputs)?;
        let value = read_scalar(&mut step, condition);
        let zero = integer(&mut step, 0);
        let again = step.compare(Compare::Ne, value, zero);
        let one = integer(&mut step, 1);
        let following = step
            .op(
                upstream::Kind::ArithAddi,
                &[arguments[0], one],
                &[arguments[0].r#type()],
                &[],
            )
            .result(0);
        let mut yielded = vec![following, again];
        yielded.extend(next);
        yielded.extend(current);
        step.op(upstream::Kind::ScfYield, &yielded, &[], &[]);
        Ok(while_op.results()[2..2 + count].to_vec())
    }

    /// Calls the host function of graph function `callee` with `inputs`, `outputs` and the
    /// weights and constants it takes, which this function passes on.
    fn call_body(
        &mut self,
        host: &mut Body,
        index: usize,
        callee: &str,
        inputs: &[Val],
        outputs: &[Val],
    ) -> Result<(), LoweringError> {
        if !self.signatures.has(callee) {
            return Err(LoweringError::at(
                index,
                format!("@{callee} is not a graph function of the module"),
            ));
        }
        let mut operands: Vec<Val> = inputs.to_vec();
        operands.extend(outputs);
        for parameter in self.signatures.parameters(callee) {
            operands.push(self.parameters[&parameter.key]);
        }
        let context = host.context();
        // SAFETY: the context is alive; MLIR copies the name.
        let symbol = unsafe { mlirFlatSymbolRefAttrGet(context, ir::string_ref(callee)) };
        // A call that may recurse runs within the device's depth of nested calls.
        let guarded = self.signatures.may_recurse(&self.program.name, callee);
        if guarded {
            // SAFETY: the context is alive.
            let i1 = unsafe { mlirIntegerTypeGet(context, 1) };
            let allowed = host.op(dsa::Kind::FramePush, &[], &[i1], &[]).result(0);
            host.open_if(allowed);
        }
        host.op(
            upstream::Kind::FuncCall,
            &operands,
            &[],
            &[("callee", symbol)],
        );
        if guarded {
            host.op(dsa::Kind::FramePop, &[], &[], &[]);
            host.close();
        }
        Ok(())
    }

    /// The buffers a region's call reads: the block arguments bound to `bound` (the loop's
    /// counter and carried values; none for a branch), outer values as contiguous buffers.
    fn passed_inputs(
        &mut self,
        index: usize,
        call: &RegionCall,
        bound: &[Val],
    ) -> Result<Vec<Val>, LoweringError> {
        let outer: Vec<ValueId> = call
            .passed
            .iter()
            .filter_map(|passed| match passed {
                Passed::Outer(value) => Some(*value),
                Passed::Argument(_) => None,
            })
            .collect();
        let mut contiguous = self.contiguous_inputs(index, &outer)?.into_iter();
        call.passed
            .iter()
            .map(|passed| match passed {
                Passed::Argument(position) => bound.get(*position).copied().ok_or_else(|| {
                    LoweringError::at(index, "a branch's region has no block arguments")
                }),
                Passed::Outer(_) => Ok(contiguous.next().expect("one per outer value")),
            })
            .collect()
    }

    /// Copies a loop's initial values into its first set of carried buffers.
    fn copy_initial_values(
        &mut self,
        index: usize,
        node: &Node,
        first: &[Tensor],
    ) -> Result<(), LoweringError> {
        let pairs: Vec<(Tensor, Tensor)> = node.operands[2..]
            .iter()
            .zip(first)
            .map(|(value, target)| (self.tensors[value].clone(), target.clone()))
            .collect();
        if pairs.len() != first.len() {
            return Err(LoweringError::at(
                index,
                "a loop yields one value per carried value",
            ));
        }
        if !pairs.is_empty() {
            self.launch_copies(&pairs, "init");
        }
        Ok(())
    }

    /// The value of the one-element integer or boolean `value` when a `graph.constant` defines
    /// it (a boolean as 0 or 1).
    fn constant_scalar(&self, value: ValueId) -> Option<i64> {
        self.program
            .producer(value)
            .map(|op| &self.program.ops[op])
            .filter(|node| node.graph_kind() == Some(graph::Kind::Constant))
            .and_then(|node| node.constant())
            .and_then(|constant| constant.scalar_integer())
    }

    /// The value of the one-element integer or boolean `value` as an `i64`: the constant itself
    /// when a `graph.constant` defines it, else read from its buffer.
    fn scalar_value(&self, host: &mut Body, value: ValueId) -> Val {
        match self.constant_scalar(value) {
            Some(constant) => integer(host, constant),
            None => read_scalar(host, self.tensors[&value].host),
        }
    }

    /// Records `results` as the buffers of `node`'s results.
    fn bind_results(&mut self, index: usize, node: &Node, results: Vec<Tensor>) {
        for ((value, _), tensor) in node.results.iter().zip(results) {
            self.tensors.insert(*value, tensor);
        }
        self.free_read(index);
    }

    /// Opens the region the construct is built in: a `dsa.persistent` yielding values of
    /// `results` with `control=device` (returned with its block), else the host function's
    /// block itself.
    fn open_region(
        &mut self,
        location: MlirLocation,
        results: &[MlirType],
    ) -> (MlirBlock, Option<Op>) {
        let block = self.signature.block;
        if self.control == ControlMode::Host {
            return (block, None);
        }
        let (region, inner) = ir::region_with_block(&[], location);
        let op = ir::create(
            InsertionPoint::End(block),
            location,
            dsa::Kind::Persistent,
            &[],
            results,
            &[],
            vec![region],
        );
        (inner, Some(op))
    }
}

/// What a loop's `scf.while` works with: its two sets of carried buffers, its limit on
/// iterations and initial condition (`i64` and `i1` values), and the buffers of the condition
/// its body writes and of the counter it reads.
struct LoopState {
    first: Vec<Val>,
    second: Vec<Val>,
    limit: Val,
    proceed: Val,
    condition: Val,
    counter: Val,
    /// The body's inputs kept on chip, by position: one GB buffer per cluster.
    replicated: BTreeMap<usize, Vec<Val>>,
}

/// Ends the region [`HostLowering::open_region`] opened, yielding `values` from a
/// `dsa.persistent`.
fn close_region(host: &mut Body, region_op: Option<Op>, values: &[Val]) {
    if region_op.is_some() {
        host.op(dsa::Kind::Yield, values, &[], &[]);
    }
}

/// `dsa.read_scalar` of `buffer`.
fn read_scalar(host: &mut Body, buffer: Val) -> Val {
    let i64 = integer_type(host);
    host.op(dsa::Kind::ReadScalar, &[buffer], &[i64], &[])
        .result(0)
}

/// An `i64` constant.
fn integer(host: &mut Body, value: i64) -> Val {
    let r#type = integer_type(host);
    // SAFETY: an i64 attribute of the context.
    let attribute = unsafe { mlirIntegerAttrGet(r#type, value) };
    host.op(
        upstream::Kind::ArithConstant,
        &[],
        &[r#type],
        &[("value", attribute)],
    )
    .result(0)
}

fn integer_type(host: &Body) -> MlirType {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerTypeGet(host.context(), 64) }
}

/// `wanted`, and the device's watchdog consulted when it holds (`dsa.loop_check` of
/// `iteration`): an `scf.if` yielding whether the iteration may run.
fn watchdog(host: &mut Body, wanted: Val, iteration: Val) -> Val {
    let location = host.location();
    // SAFETY: the context is alive.
    let i1 = unsafe { mlirIntegerTypeGet(host.context(), 1) };
    let (then_region, then_block) = ir::region_with_block(&[], location);
    let (else_region, else_block) = ir::region_with_block(&[], location);
    let if_op = host.op_with_regions(
        upstream::Kind::ScfIf,
        &[wanted],
        &[i1],
        vec![then_region, else_region],
    );
    let mut then = Body::new(then_block, location);
    let allowed = then
        .op(dsa::Kind::LoopCheck, &[iteration], &[i1], &[])
        .result(0);
    then.op(upstream::Kind::ScfYield, &[allowed], &[], &[]);
    let mut otherwise = Body::new(else_block, location);
    otherwise.op(upstream::Kind::ScfYield, &[wanted], &[], &[]);
    if_op.result(0)
}
