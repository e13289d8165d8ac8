//! The host function: which buffer holds each graph value, which layers become kernels, and the
//! launches in program order; control flow and calls in [`control`].

mod call_buffers;
mod chain;
mod control;
mod parameters;
mod resident;

use super::chain_fusion::ChainFusion;
use super::control_mode::ControlMode;
use super::residency::Residency;
use super::signatures::{ParameterKey, Signatures};
use crate::kernels::{
    dispatch::emit_layer,
    emit::{reshaped, Body, Replicas, Space, Tensor, View},
    error::LoweringError,
    fusion::{self, Fused, Synthetic},
    host_function::{check_layer_elements, launch, HostFunction},
    kernel::Kernel,
    layers::{Layer, Scope},
    movement,
    view::buffer_shape,
};
use crate::target::Machine;
use crate::tuning::Decision;
use crate::{
    graph_view::{FunctionView, Node, ValueId},
    ir::{Op, Val},
};
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::{graph, upstream, OpKind};

/// Lowers `program` (the body of `function`) into kernels and a host function of the same
/// name, inserted before `function`; on failure nothing it built stays in the module.
pub fn lower_function(
    program: &FunctionView,
    context: &Context,
    function: Op,
) -> Result<(), LoweringError> {
    let mut built = Vec::new();
    let result = lower_into(program, context, function, &mut built);
    if result.is_err() {
        for op in built {
            // SAFETY: `built` holds the top-level ops the failed lowering inserted into the module
            // (the host function and its kernels): they have no results and no SSA value crosses
            // between them (kernels are isolated from above), and `built` is consumed here. The
            // error names ops by index into `program`, not these.
            unsafe { op.erase() };
        }
    }
    result
}

/// What the lowering of every function of a module shares.
pub struct Context<'a> {
    pub machine: &'a Machine,
    /// The machine restricted to one cluster: what each cluster's copy of a loop's invariant
    /// inputs into its GB is tiled for.
    pub one_cluster: &'a Machine,
    pub signatures: &'a Signatures,
    pub control: ControlMode,
    /// Per loop body, whether its loop-invariant inputs stay in the clusters' GBs.
    pub residency: &'a BTreeMap<String, Residency>,
    /// When two chained products run as one kernel.
    pub fuse_chains: ChainFusion,
    /// Whether to explain the residency and chain decisions as remarks.
    pub explain: bool,
}

/// [`lower_function`], adding every op it inserts into the module to `built`.
fn lower_into(
    program: &FunctionView,
    context: &Context,
    function: Op,
    built: &mut Vec<Op>,
) -> Result<(), LoweringError> {
    let ops = &program.ops;
    let users = users(ops);
    let returned: Vec<ValueId> = ops
        .last()
        .map(|node| node.operands.clone())
        .unwrap_or_default();
    let signature = HostFunction::new(function, &program.name);
    built.push(signature.op);
    let resident = context
        .residency
        .get(&program.name)
        .filter(|residency| residency.chosen);
    let host = Body::new(signature.block, function.location());
    // A loop body keeping its invariant inputs on chip takes one GB buffer per cluster for each.
    let host = if resident.is_some() {
        host.with_replicas(Replicas::default())
    } else {
        host
    };
    // An absorbed convolution reads its operands when the layer absorbing it runs.
    let absorbed_into = fusion::absorbed_convs(program);
    let absorbs: BTreeMap<usize, &Node> = absorbed_into
        .iter()
        .map(|(&conv, &layer)| (layer, &ops[conv]))
        .collect();
    let mut lowering = HostLowering {
        program,
        machine: context.machine,
        one_cluster: context.one_cluster,
        resident: resident.map(|residency| residency.positions.clone()),
        residency: context.residency,
        explain: context.explain,
        fuse_chains: context.fuse_chains,
        signatures: context.signatures,
        control: context.control,
        parameters: BTreeMap::new(),
        function,
        users,
        returned,
        signature,
        host,
        tensors: BTreeMap::new(),
        allocated: Vec::new(),
        fused: BTreeSet::new(),
        synthetic: Synthetic::new(program),
        outputs: BTreeMap::new(),
        output_buffers: Vec::new(),
        return_types: Vec::new(),
        absorbed_into,
        absorbs,
        root_of: BTreeMap::new(),
        root_last_use: BTreeMap::new(),
        live_bytes: 0,
        redirected: BTreeMap::new(),
        kernel_count: 0,
        pending: BTreeMap::new(),
        built,
    };
    lowering.inputs()?;
    lowering.outputs();
    lowering.weights()?;
    lowering.inherited_parameters();
    lowering.check_parameters()?;
    for index in 0..ops.len() {
        lowering.layer(index)?;
    }
    lowering.copy_unwritten_results()?;
    lowering.finish();
    Ok(())
}

/// Per value of `ops`, the ops that read it (an op with regions reads what they capture).
fn users(ops: &[Node]) -> BTreeMap<ValueId, Vec<usize>> {
    let mut users: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
    for (index, node) in ops.iter().enumerate() {
        for &operand in node.operands.iter().chain(&node.captures) {
            users.entry(operand).or_default().push(index);
        }
    }
    users
}

/// The host function being built for a graph function, and what it knows of its buffers.
struct HostLowering<'p, 'b> {
    program: &'p FunctionView,
    machine: &'p Machine,
    /// The machine restricted to one cluster.
    one_cluster: &'p Machine,
    /// The input positions held in the clusters' GBs (one buffer each), for a loop body that
    /// keeps its invariants there.
    resident: Option<BTreeSet<usize>>,
    /// Per loop body of the module, the residency decision.
    residency: &'p BTreeMap<String, Residency>,
    explain: bool,
    fuse_chains: ChainFusion,
    /// The weights and constants each function of the module takes.
    signatures: &'p Signatures,
    /// Who runs the control flow.
    control: ControlMode,
    /// The buffer of each weight and constant parameter, by key.
    parameters: BTreeMap<ParameterKey, Val>,
    /// The graph function.
    function: Op,
    /// Per value, the ops that read it.
    users: BTreeMap<ValueId, Vec<usize>>,
    /// The values the function returns.
    returned: Vec<ValueId>,
    signature: HostFunction,
    host: Body,
    /// The buffer (or view) of each value lowered so far.
    tensors: BTreeMap<ValueId, Tensor>,
    /// Intermediate DDR buffers not freed yet.
    allocated: Vec<(Val, View)>,
    /// Ops fused into an earlier layer.
    fused: BTreeSet<usize>,
    synthetic: Synthetic,
    /// Output buffers a layer may write, by the returned value: results are written by the
    /// layer computing them, when that layer's value is returned once.
    outputs: BTreeMap<ValueId, Tensor>,
    /// Every output buffer, and the shape of each.
    output_buffers: Vec<Val>,
    return_types: Vec<View>,
    /// Per convolution a later layer absorbs, that layer ([`fusion::absorbed_convs`]); per
    /// absorbing layer, the convolution.
    absorbed_into: BTreeMap<usize, usize>,
    absorbs: BTreeMap<usize, &'p Node>,
    /// The buffer each value is a view of, by the buffer's handle, and the last op that reads
    /// each buffer.
    root_of: BTreeMap<ValueId, usize>,
    root_last_use: BTreeMap<usize, usize>,
    /// DDR bytes live at this point.
    live_bytes: usize,
    /// Returned values that a layer wrote through a reshaped view of their output buffer.
    redirected: BTreeMap<ValueId, Tensor>,
    kernel_count: usize,
    /// Decisions the kernel of the layer anchored at an op records when it is built (a chain's
    /// fusion decision, when the chain stays two layers).
    pending: BTreeMap<usize, Vec<Decision>>,
    /// Every op inserted into the module.
    built: &'b mut Vec<Op>,
}

/// Buffers are keyed by their value's handle.
fn key(value: Val) -> usize {
    value.raw().ptr as usize
}

impl HostLowering<'_, '_> {
    /// The last op that reads `value`: the end of the function for a returned value, the layer
    /// absorbing a convolution for one it reads.
    fn last_use(&self, value: ValueId) -> usize {
        if self.returned.contains(&value) {
            return self.program.ops.len();
        }
        self.users
            .get(&value)
            .and_then(|uses| {
                uses.iter()
                    .map(|user| self.absorbed_into.get(user).unwrap_or(user))
                    .max()
                    .copied()
            })
            .unwrap_or(0)
    }

    /// Lowers op `index`: a kernel for a layer it anchors, a view for a reshape, nothing for an
    /// op fused into another layer, a parameter or the return.
    fn layer(&mut self, index: usize) -> Result<(), LoweringError> {
        let program = self.program;
        let node = &program.ops[index];
        // A convolution a later layer absorbs is computed by that layer's tiles (GraphTurbo's
        // lowering does not absorb: see `fusion::absorbing_conv`).
        if self.fused.contains(&index) || self.absorbed_into.contains_key(&index) {
            return Ok(());
        }
        self.host.set_location(node.op.location());
        match node.kind {
            Some(
                OpKind::Upstream(upstream::Kind::FuncReturn)
                | OpKind::Graph(graph::Kind::Weight | graph::Kind::Constant),
            ) => return Ok(()),
            Some(OpKind::Graph(graph::Kind::Reshape | graph::Kind::Flatten)) => {
                self.reshape(node);
                return Ok(());
            }
            Some(
                OpKind::Graph(graph::Kind::If | graph::Kind::Loop)
                | OpKind::Upstream(upstream::Kind::FuncCall),
            ) => return self.control(index),
            _ => {}
        }
        check_layer_elements(program, index)?;
        let absorbed = self.absorbs.get(&index).copied();
        let Fused {
            steps,
            elementwise_anchor,
            fused: fused_ops,
            last,
        } = fusion::layer_epilogue(
            program,
            index,
            &mut self.tensors,
            &mut self.host,
            &mut self.synthetic,
            absorbed.map(|conv| conv.results[0].0),
        );
        self.fused.extend(fused_ops);
        if let Some(written) = last.filter(|_| !elementwise_anchor) {
            if self.fuse_chain(index, &steps, written)? {
                return Ok(());
            }
        }
        let final_values = fusion::written(node, last);
        let results = self.result_buffers(index, &final_values)?;
        let kernel_name = self.kernel_name(node);
        let scope = Scope {
            machine: self.machine,
            tensors: &self.tensors,
        };
        let layer = Layer {
            index,
            node,
            steps,
            output: results[0].clone(),
            mirror: None,
            stepped: None,
            absorbed,
            chained: None,
        };
        let kernel = Kernel::new(kernel_name, &self.host);
        let kernel = emit_layer(
            &scope,
            &mut self.host,
            &layer,
            &results,
            elementwise_anchor,
            kernel,
        )?;
        self.launch_layer(&[index], kernel, &final_values, results);
        Ok(())
    }

    /// Launches `kernel`, the layer of the ops `anchors`, after recording the decisions pending
    /// for them; its results `results` hold `final_values`, and what no later op reads is freed.
    fn launch_layer(
        &mut self,
        anchors: &[usize],
        mut kernel: Kernel,
        final_values: &[(ValueId, Vec<usize>)],
        results: Vec<Tensor>,
    ) {
        for anchor in anchors {
            for decision in self.pending.remove(anchor).unwrap_or_default() {
                kernel.record(decision);
            }
        }
        self.built
            .push(launch(&mut self.host, kernel, self.signature.op));
        for ((value, _), tensor) in final_values.iter().zip(results) {
            self.tensors.insert(*value, tensor);
        }
        self.free_read(anchors[0]);
    }

    /// The name of the next kernel, whose layer is anchored at `node`.
    fn kernel_name(&mut self, node: &Node) -> String {
        self.kernel_count += 1;
        format!(
            "{}_{}_{}",
            self.program.name,
            self.kernel_count - 1,
            node.name.trim_start_matches("graph.")
        )
    }

    /// Makes the reshape `node`'s value a view of its operand's buffer (or the output buffer a
    /// layer wrote it into), which lives as long as the view is read.
    fn reshape(&mut self, node: &Node) {
        let (value, r#type) = node
            .results
            .first()
            .map(|(value, r#type)| (*value, r#type))
            .expect("reshapes have a result");
        if let Some(root) = self.root_of.get(&node.operands[0]).copied() {
            let last_use = self.last_use(value);
            let last = self.root_last_use.entry(root).or_default();
            *last = (*last).max(last_use);
            self.root_of.insert(value, root);
        }
        let tensor = match self.redirected.get(&value) {
            Some(output) => output.clone(),
            None => reshaped(
                &mut self.host,
                &self.tensors[&node.operands[0]],
                &buffer_shape(&r#type.shape),
            ),
        };
        self.tensors.insert(value, tensor);
    }

    /// The buffers of the values `final_values` (with their shapes) that the layer anchored at
    /// op `index` writes: the output buffer of a value returned (directly or through reshapes),
    /// else a new DDR buffer.
    fn result_buffers(
        &mut self,
        index: usize,
        final_values: &[(ValueId, Vec<usize>)],
    ) -> Result<Vec<Tensor>, LoweringError> {
        let mut results = Vec::new();
        for (value, shape) in final_values {
            let returned_view =
                returned_through_reshapes(&self.program.ops, &self.users, &self.returned, *value)
                    .and_then(|returned_value| {
                        let output = self.outputs.remove(&returned_value)?;
                        let view = reshaped(&mut self.host, &output, shape);
                        self.redirected.insert(returned_value, output);
                        Some(view)
                    });
            let tensor = match self.outputs.remove(value).or(returned_view) {
                Some(tensor) => tensor,
                None => self.allocate(index, *value, shape)?,
            };
            results.push(tensor);
        }
        Ok(results)
    }

    /// A new DDR buffer of `shape` for `value`, written by op `index`; an error when the
    /// target's DDR cannot hold it besides the buffers live at this point.
    fn allocate(
        &mut self,
        index: usize,
        value: ValueId,
        shape: &[usize],
    ) -> Result<Tensor, LoweringError> {
        let (node, machine) = (&self.program.ops[index], self.machine);
        let element = self.program.type_of(value).element_type;
        let view = View::contiguous_of(shape, Space::Ddr, element);
        self.live_bytes += view.elements() * element.bytes();
        if self.live_bytes > machine.ddr_bytes {
            return Err(LoweringError::at(
                index,
                format!(
                    "'{}' needs a DDR buffer of {} bytes, beyond the {} bytes of target '{}' \
                     ({} bytes are live at this point)",
                    node.name,
                    view.elements() * element.bytes(),
                    machine.ddr_bytes,
                    machine.name,
                    self.live_bytes
                ),
            ));
        }
        let buffer = self.host.alloc(&view);
        self.allocated.push((buffer, view.clone()));
        self.root_of.insert(value, key(buffer));
        let last_use = self.last_use(value);
        self.root_last_use.insert(key(buffer), last_use);
        Ok(Tensor { host: buffer, view })
    }

    /// Frees what no op after op `index` reads. Last uses are op indices; an epilogue op runs
    /// with its anchor, earlier than its index, so a buffer it reads last is freed a little
    /// late, never early.
    fn free_read(&mut self, index: usize) {
        let (host, root_last_use, live_bytes) =
            (&mut self.host, &self.root_last_use, &mut self.live_bytes);
        self.allocated.retain(|(buffer, view)| {
            if root_last_use
                .get(&key(*buffer))
                .is_some_and(|&last| last <= index)
            {
                host.dealloc(*buffer);
                *live_bytes -= view.elements() * view.element.bytes();
                false
            } else {
                true
            }
        });
    }

    /// Copies the results that no layer wrote (an input, a weight or a view returned, or a value
    /// returned twice) into their output buffers.
    fn copy_unwritten_results(&mut self) -> Result<(), LoweringError> {
        let program = self.program;
        let ops = &program.ops;
        let Some(node) = ops
            .last()
            .filter(|node| node.is(upstream::Kind::FuncReturn))
        else {
            return Ok(());
        };
        self.host.set_location(node.op.location());
        let mut written: BTreeSet<ValueId> = BTreeSet::new();
        for (position, &value) in node.operands.iter().enumerate() {
            let output = Tensor {
                host: self.output_buffers[position],
                view: self.return_types[position].clone(),
            };
            let source = self.tensors.get(&value).cloned().ok_or_else(|| {
                LoweringError::at(ops.len() - 1, "a returned value has no buffer")
            })?;
            if source.host.raw().ptr == output.host.raw().ptr && written.insert(value) {
                continue;
            }
            self.kernel_count += 1;
            let name = format!("{}_{}_copy", program.name, self.kernel_count - 1);
            let kernel = movement::copy(
                self.machine,
                &source,
                &output,
                Kernel::new(name, &self.host),
            );
            self.built
                .push(launch(&mut self.host, kernel, self.signature.op));
        }
        Ok(())
    }

    /// Frees the buffers still live, returns, and types the host function.
    fn finish(mut self) {
        for (buffer, _) in std::mem::take(&mut self.allocated) {
            self.host.dealloc(buffer);
        }
        self.host.op(upstream::Kind::FuncReturn, &[], &[], &[]);
        self.signature.finish();
    }
}

/// The returned value that `value` becomes through a chain of reshapes used nowhere else, if
/// any: the layer computing `value` can then write straight into that output buffer.
fn returned_through_reshapes(
    ops: &[Node],
    users: &BTreeMap<ValueId, Vec<usize>>,
    returned: &[ValueId],
    mut value: ValueId,
) -> Option<ValueId> {
    loop {
        let uses = users.get(&value)?;
        let [user] = uses.as_slice() else { return None };
        let node = &ops[*user];
        if !matches!(
            node.graph_kind(),
            Some(graph::Kind::Reshape | graph::Kind::Flatten)
        ) {
            return None;
        }
        value = node.results[0].0;
        if returned.iter().filter(|&&r| r == value).count() == 1
            && users.get(&value).is_some_and(|u| u.len() == 1)
        {
            return Some(value);
        }
    }
}

/// The DDR buffer type of `value`.
fn value_view(program: &FunctionView, value: ValueId) -> View {
    let r#type = program.type_of(value);
    View::contiguous_of(
        &buffer_shape(&r#type.shape),
        Space::Ddr,
        r#type.element_type,
    )
}
