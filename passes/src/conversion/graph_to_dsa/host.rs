//! The host function: which buffer holds each graph value, which layers become kernels, and the
//! launches in program order.

use super::{
    conv, elementwise,
    emit::{reshaped, Body, Space, Tensor, View},
    fusion::{self, Fused, Synthetic},
    kernel::Kernel,
    layers::{Layer, Scope, Step, Viewed},
    matmul, movement,
    ports::Estimate,
    rows, window, LoweringError, Machine,
};
use std::collections::{BTreeMap, BTreeSet};
use crate::{
    graph_view::{ElementType, FunctionView, Node, ValueId},
    ir::{self, InsertionPoint, Op, Val},
};
use mlir_sys::*;

/// Shape of a graph type as a buffer: rank-0 tensors are stored as one element.
pub(super) fn buffer_shape(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}

/// The host function being built: a `func.func` whose entry block gains an argument per buffer
/// the driver passes in (inputs, outputs, weights, constants), each with its role attribute.
pub(super) struct HostFunction {
    pub(super) op: Op,
    pub(super) block: MlirBlock,
    parameters: Vec<(View, MlirAttribute)>,
}

impl HostFunction {
    /// An empty function named like `graph_function`, inserted before it.
    pub(super) fn new(graph_function: Op, name: &str) -> Self {
        let location = graph_function.location();
        let (region, block) = ir::region_with_block(&[], location);
        // SAFETY: the location is alive.
        let context = unsafe { mlirLocationGetContext(location) };
        let op = ir::create(
            InsertionPoint::Before(graph_function),
            location,
            "func.func",
            &[],
            &[],
            &[("sym_name", ir::string_attribute(context, name))],
            vec![region],
        );
        Self { op, block, parameters: Vec::new() }
    }

    /// Adds a buffer argument of type `view` with the argument attribute `role = value`, at the
    /// location of what it holds (the graph function's parameter, the weight or constant op, the
    /// return).
    pub(super) fn parameter(&mut self, view: &View, role: &str, value: MlirAttribute, location: MlirLocation) -> Val {
        // SAFETY: the function and its block are alive; the attribute is of their context.
        unsafe {
            let context = mlirLocationGetContext(location);
            let name = mlirIdentifierGet(context, MlirStringRef { data: role.as_ptr().cast(), length: role.len() });
            let named = mlirNamedAttributeGet(name, value);
            self.parameters.push((view.clone(), mlirDictionaryAttrGet(context, 1, &named)));
            Val(mlirBlockAddArgument(self.block, view.memref_type(context), location))
        }
    }

    /// Sets the function's type and argument attributes from its parameters.
    pub(super) fn finish(&self) {
        // SAFETY: the function is alive; the attributes are of its context.
        unsafe {
            let context = mlirLocationGetContext(self.op.location());
            let inputs: Vec<MlirType> = self.parameters.iter().map(|(view, _)| view.memref_type(context)).collect();
            let roles: Vec<MlirAttribute> = self.parameters.iter().map(|(_, role)| *role).collect();
            let function_type = mlirFunctionTypeGet(context, inputs.len() as isize, inputs.as_ptr(), 0, std::ptr::null());
            self.op.set_attribute("function_type", mlirTypeAttrGet(function_type));
            self.op.set_attribute("arg_attrs", mlirArrayAttrGet(context, roles.len() as isize, roles.as_ptr()));
        }
    }
}

/// Lowers `program` (the body of `function`) into kernels and a host function of the same
/// name, inserted before `function`; on failure nothing it built stays in the module.
pub fn lower_function(program: &FunctionView, machine: &Machine, function: Op) -> Result<(), LoweringError> {
    let mut built = Vec::new();
    let result = lower_into(program, machine, function, &mut built);
    if result.is_err() {
        for op in built {
            op.erase();
        }
    }
    result
}

fn lower_into(program: &FunctionView, machine: &Machine, function: Op, built: &mut Vec<Op>) -> Result<(), LoweringError> {
    let ops = &program.ops;
    let mut users: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
    for (index, node) in ops.iter().enumerate() {
        for &operand in &node.operands {
            users.entry(operand).or_default().push(index);
        }
        if node.has_regions {
            return Err(LoweringError::at(
                index,
                format!(
                    "'{}' (control flow) is not supported by the layer-wise schedule yet",
                    node.name
                ),
            ));
        }
    }
    let returned: Vec<ValueId> = ops
        .last()
        .map(|node| node.operands.clone())
        .unwrap_or_default();

    let mut signature = HostFunction::new(function, &program.name);
    built.push(signature.op);
    let mut host = Body::new(signature.block, function.location());
    let context = host.context();
    let mut tensors: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    let mut allocated: Vec<(Val, View)> = Vec::new();
    let mut fused: BTreeSet<usize> = BTreeSet::new();
    let mut synthetic = Synthetic::new(program);

    for (position, (value, r#type)) in program.arguments.iter().enumerate() {
        check_f32(r#type.element_type, None, "function argument")?;
        let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
        let location = function.entry_argument(position).location();
        let host = signature.parameter(&view, "dsa.input", ir::i64_attribute(context, position as i64), location);
        tensors.insert(*value, Tensor { host, view });
    }
    // Results are written by the layer computing them, when that layer's value is returned once.
    let mut outputs: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    let mut output_buffers: Vec<Val> = Vec::new();
    let returned_node = ops.last().filter(|node| node.name == "func.return");
    let return_types: Vec<Vec<usize>> = match returned_node {
        Some(node) => node
            .operands
            .iter()
            .map(|value| value_shape(program, *value))
            .collect(),
        None => Vec::new(),
    };
    for (position, shape) in return_types.iter().enumerate() {
        let view = View::contiguous(shape, Space::Ddr);
        let location = returned_node.map_or(function.location(), |node| node.op.location());
        let host = signature.parameter(&view, "dsa.output", ir::i64_attribute(context, position as i64), location);
        output_buffers.push(host);
        outputs.entry(returned[position]).or_insert(Tensor { host, view });
    }

    // Weights and constants are arguments: available to every layer, wherever they appear.
    for (index, node) in ops.iter().enumerate() {
        let result = node.results.first().map(|(value, r#type)| (*value, r#type));
        match node.name.as_str() {
            "graph.weight" => {
                let (value, r#type) = result.expect("weights have a result");
                check_f32(r#type.element_type, Some(index), "weight")?;
                let Some(weight) = node.string("name") else {
                    return Err(LoweringError::at(index, "graph.weight without a name"));
                };
                let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
                let host = signature.parameter(&view, "dsa.weight", ir::string_attribute(context, weight), node.op.location());
                tensors.insert(value, Tensor { host, view });
            }
            "graph.constant" => {
                let (value, r#type) = result.expect("constants have a result");
                let Some(constant) = node.constant() else {
                    return Err(LoweringError::at(
                        index,
                        "graph.constant without a dense value",
                    ));
                };
                if constant.element_type() != ElementType::F32 {
                    return Err(LoweringError::at(
                        index,
                        format!(
                            "{:?} constants are not supported by the software DSA (only f32 is)",
                            r#type.element_type
                        ),
                    ));
                }
                let shape = buffer_shape(&r#type.shape);
                let view = View::contiguous(&shape, Space::Ddr);
                // The values, flat in row-major order (the buffer's type carries the shape); a
                // splat stays one value, as importers make large splat constants.
                let payload = constant.flattened();
                let host = signature.parameter(&view, "dsa.constant", payload, node.op.location());
                tensors.insert(value, Tensor { host, view });
            }
            _ => {}
        }
    }

    // Intermediate DDR buffers are freed after the last op that reads them (or a view of them),
    // so that DDR holds the live activations only; the target's DDR must hold the peak.
    // An absorbed convolution reads its operands when the layer absorbing it runs.
    let absorbed_into = fusion::absorbed_convs(program);
    let absorbs: BTreeMap<usize, &Node> = absorbed_into.iter().map(|(&conv, &layer)| (layer, &ops[conv])).collect();
    let last_use = |value: ValueId| -> usize {
        if returned.contains(&value) {
            return ops.len();
        }
        users.get(&value).and_then(|uses| uses.iter().map(|user| absorbed_into.get(user).unwrap_or(user)).max().copied()).unwrap_or(0)
    };
    // Buffers are keyed by their value's handle.
    let key = |value: Val| value.0.ptr as usize;
    let mut root_of: BTreeMap<ValueId, usize> = BTreeMap::new();
    let mut root_last_use: BTreeMap<usize, usize> = BTreeMap::new();
    let mut live_bytes: usize = signature.parameters.iter().map(|(view, _)| view.elements() * 4).sum();
    if live_bytes > machine.ddr_bytes {
        return Err(LoweringError {
            op: None,
            message: format!(
                "the model's inputs, outputs and weights need {live_bytes} bytes of DDR but target '{}' has {}",
                machine.name, machine.ddr_bytes
            ),
        });
    }
    // Returned values that a layer wrote through a reshaped view of their output buffer.
    let mut redirected: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    let mut kernel_count = 0;
    for (index, node) in ops.iter().enumerate() {
        // A convolution a later layer absorbs is computed by that layer's tiles (GraphTurbo's
        // lowering does not absorb: see `fusion::absorbing_conv`).
        if fused.contains(&index) || absorbed_into.contains_key(&index) {
            continue;
        }
        host.set_location(node.op.location());
        let result = node.results.first().map(|(value, r#type)| (*value, r#type));
        match node.name.as_str() {
            "func.return" | "graph.weight" | "graph.constant" => continue,
            "graph.reshape" | "graph.flatten" => {
                let (value, r#type) = result.expect("reshapes have a result");
                if let Some(root) = root_of.get(&node.operands[0]).copied() {
                    let last = root_last_use.entry(root).or_default();
                    *last = (*last).max(last_use(value));
                    root_of.insert(value, root);
                }
                let tensor = match redirected.get(&value) {
                    Some(output) => output.clone(),
                    None => reshaped(
                        &mut host,
                        &tensors[&node.operands[0]],
                        &buffer_shape(&r#type.shape),
                    ),
                };
                tensors.insert(value, tensor);
                continue;
            }
            _ => {}
        }
        for (value, r#type) in &node.results {
            check_f32(
                r#type.element_type,
                Some(index),
                &format!("the result of '{}'", node.name),
            )?;
            let _ = value;
        }

        let Fused { steps, elementwise_anchor, fused: fused_ops, last } =
            fusion::layer_epilogue(program, index, &mut tensors, &mut host, &mut synthetic, absorbs.get(&index).map(|conv| conv.results[0].0));
        fused.extend(fused_ops);

        // The buffers of the layer's results.
        let mut results = Vec::new();
        let final_values = fusion::written(node, last);
        for (value, shape) in &final_values {
            let returned_view = returned_through_reshapes(ops, &users, &returned, *value).and_then(
                |returned_value| {
                    let output = outputs.remove(&returned_value)?;
                    let view = reshaped(&mut host, &output, shape);
                    redirected.insert(returned_value, output);
                    Some(view)
                },
            );
            let tensor = match outputs.remove(value).or(returned_view) {
                Some(tensor) => tensor,
                None => {
                    let view = View::contiguous(shape, Space::Ddr);
                    live_bytes += view.elements() * 4;
                    if live_bytes > machine.ddr_bytes {
                        return Err(LoweringError::at(
                            index,
                            format!(
                                "'{}' needs a DDR buffer of {} bytes, beyond the {} bytes of target '{}' ({} bytes are live at this point)",
                                node.name,
                                view.elements() * 4,
                                machine.ddr_bytes,
                                machine.name,
                                live_bytes
                            ),
                        ));
                    }
                    let buffer = host.alloc(&view);
                    allocated.push((buffer, view.clone()));
                    root_of.insert(*value, key(buffer));
                    root_last_use.insert(key(buffer), last_use(*value));
                    Tensor { host: buffer, view }
                }
            };
            results.push(tensor);
        }

        kernel_count += 1;
        let kernel_name = format!(
            "{}_{}_{}",
            program.name,
            kernel_count - 1,
            node.name.trim_start_matches("graph.")
        );
        let scope = Scope {
            machine,
            tensors: &tensors,
        };
        let layer = Layer {
            index,
            node,
            steps,
            output: results[0].clone(),
            mirror: None,
            stepped: None,
            absorbed: absorbs.get(&index).copied(),
        };
        let kernel = Kernel::new(kernel_name, &host);
        let kernel = emit_layer(&scope, &mut host, &layer, &results, elementwise_anchor, kernel)?;
        built.push(launch(&mut host, kernel, signature.op));
        for ((value, _), tensor) in final_values.iter().zip(results) {
            tensors.insert(*value, tensor);
        }
        // Free what no later op reads. Last uses are op indices; an epilogue op runs with its
        // anchor, earlier than its index, so a buffer it reads last is freed a little late, never
        // early.
        allocated.retain(|(buffer, view)| {
            if root_last_use.get(&key(*buffer)).is_some_and(|&last| last <= index) {
                host.dealloc(*buffer);
                live_bytes -= view.elements() * 4;
                false
            } else {
                true
            }
        });
    }

    // Results that no layer wrote (an input, a weight or a view returned, or a value returned
    // twice) are copied into their output buffer.
    if let Some(node) = returned_node {
        host.set_location(node.op.location());
        let mut written: BTreeSet<ValueId> = BTreeSet::new();
        for (position, &value) in node.operands.iter().enumerate() {
            let output = Tensor {
                host: output_buffers[position],
                view: View::contiguous(&return_types[position], Space::Ddr),
            };
            let source = tensors.get(&value).cloned().ok_or_else(|| {
                LoweringError::at(ops.len() - 1, "a returned value has no buffer")
            })?;
            if source.host.0.ptr == output.host.0.ptr && written.insert(value) {
                continue;
            }
            kernel_count += 1;
            let kernel = movement::copy(
                machine,
                &source,
                &output,
                Kernel::new(format!("{}_{}_copy", program.name, kernel_count - 1), &host),
            );
            built.push(launch(&mut host, kernel, signature.op));
        }
    }
    for (buffer, _) in allocated {
        host.dealloc(buffer);
    }
    host.op("func.return", &[], &[], &[]);
    signature.finish();
    Ok(())
}

/// Emits `layer` into `kernel` with the emitter of its anchor's kind (`results`: the tensors of
/// the anchor's results), and checks that its tiles fit the LB.
/// Whether the lowering of a layer anchored at `node` stores its tiles into the layer's
/// [`mirror`](Layer::mirror) too: the convolutions' and products' tile stores do.
pub(crate) fn writes_mirror(node: &Node, elementwise_anchor: bool) -> bool {
    !elementwise_anchor && matches!(node.name.as_str(), "graph.conv2d" | "graph.matmul" | "graph.batch_matmul" | "graph.gemm")
}

pub(crate) fn emit_layer(
    scope: &Scope,
    host: &mut Body,
    layer: &Layer,
    results: &[Tensor],
    elementwise_anchor: bool,
    mut kernel: Kernel,
) -> Result<Kernel, LoweringError> {
    let (index, node, machine) = (layer.index, layer.node, scope.machine);
    // The layer's instructions carry its op's location: a kernel of GraphTurbo's holds many
    // layers, and was opened at another op's.
    kernel.body.set_location(node.op.location());
    // A layer of empty results (a zero-size dimension, as ONNX allows) computes nothing.
    if results.iter().all(|result| result.view.elements() == 0) {
        return Ok(kernel);
    }
    let kernel = if elementwise_anchor {
        elementwise::lower(scope, host, layer, kernel)?
    } else {
        match node.name.as_str() {
            "graph.conv2d" => conv::lower(scope, host, layer, kernel)?,
            "graph.matmul" | "graph.batch_matmul" | "graph.gemm" => matmul::lower(scope, host, layer, kernel)?,
            "graph.max_pool2d" | "graph.avg_pool2d" => window::lower_pool(scope, layer, kernel)?,
            "graph.global_avg_pool" | "graph.reduce_sum" | "graph.reduce_mean" | "graph.reduce_max" => {
                rows::lower_reduce(scope, host, layer, kernel)?
            }
            "graph.softmax" => rows::lower_softmax(scope, host, layer, kernel)?,
            "graph.layer_norm" => rows::lower_layer_norm(scope, host, layer, kernel)?,
            "graph.lrn" => rows::lower_lrn(scope, host, layer, kernel)?,
            "graph.transpose" | "graph.concat" | "graph.slice" | "graph.pad" | "graph.split" | "graph.broadcast" => {
                movement::lower(scope, host, layer, results, kernel)?
            }
            other => {
                return Err(LoweringError::at(index, format!("'{other}' is not supported by the software DSA lowering yet")))
            }
        }
    };
    if kernel.lb_elements > machine.lb_elements() {
        return Err(LoweringError::at(
            index,
            format!(
                "'{}' does not fit the local buffer of target '{}': its tiles need {} bytes of the {} available",
                node.name,
                machine.name,
                kernel.lb_elements * 4,
                machine.lb_bytes
            ),
        ));
    }
    Ok(kernel)
}

/// Whether [`emit_layer`] has an emitter for a layer anchored at `node` (its dispatch's arms): the
/// cost model of `graph-substitute` must not find a graph the lowering refuses cheaper.
pub(crate) fn has_emitter(node: &Node, elementwise_anchor: bool) -> bool {
    elementwise_anchor
        || matches!(
            node.name.as_str(),
            "graph.conv2d"
                | "graph.matmul"
                | "graph.batch_matmul"
                | "graph.gemm"
                | "graph.max_pool2d"
                | "graph.avg_pool2d"
                | "graph.global_avg_pool"
                | "graph.reduce_sum"
                | "graph.reduce_mean"
                | "graph.reduce_max"
                | "graph.softmax"
                | "graph.layer_norm"
                | "graph.lrn"
                | "graph.transpose"
                | "graph.concat"
                | "graph.slice"
                | "graph.pad"
                | "graph.split"
                | "graph.broadcast"
        )
}

/// The estimated cycles of the layer anchored at `node` (fused with `steps`, writing a value of
/// shape `out`) with its operands where `scope` says; `None` for layers whose emitters choose no
/// tiling by cost (elementwise, rows, windows, movement) or that do not fit the LB.
pub(crate) fn estimate<T: Viewed>(scope: &Scope<T>, node: &Node, steps: &[Step], out: &[usize], out_space: Option<Space>, elementwise_anchor: bool) -> Option<f64> {
    estimate_ports(scope, node, steps, out, out_space, elementwise_anchor, None).map(|estimate| estimate.cycles)
}

/// [`estimate`] with the DDR port's share of it.
pub(crate) fn estimate_ports<T: Viewed>(
    scope: &Scope<T>,
    node: &Node,
    steps: &[Step],
    out: &[usize],
    out_space: Option<Space>,
    elementwise_anchor: bool,
    absorbed: Option<&Node>,
) -> Option<Estimate> {
    match node.name.as_str() {
        _ if elementwise_anchor => None,
        "graph.conv2d" => conv::estimate(scope, node, steps, out, out_space, absorbed),
        "graph.matmul" | "graph.batch_matmul" | "graph.gemm" => matmul::estimate(scope, node, steps, out, out_space),
        _ => None,
    }
}

/// The estimate of the convolution `node` (fused with `steps`, writing `out`) among the tilings
/// whose tiles cover its output rows by multiples of `rows`: those that can store a slice of the
/// output stepping by `rows` along them ([`Layer::stepped`]); none for other layers.
pub(crate) fn estimate_stepped<T: Viewed>(scope: &Scope<T>, node: &Node, steps: &[Step], out: &[usize], out_space: Option<Space>, rows: usize, absorbed: Option<&Node>) -> Option<f64> {
    (node.name == "graph.conv2d").then(|| conv::estimate_rows_by(scope, node, steps, out, out_space, rows, absorbed)).flatten()
}

/// Inserts the kernel before the host function and launches it; returns the kernel op.
pub(crate) fn launch(host: &mut Body, kernel: Kernel, host_function: Op) -> Op {
    let (kernel_op, name, arguments, cores) = kernel.finish(host_function);
    let context = host.context();
    let values: Vec<Val> = arguments.iter().map(|(value, _)| *value).collect();
    let cores: Vec<i64> = (0..cores as i64).collect();
    // SAFETY: the context is alive; MLIR copies the name.
    let callee = unsafe { mlirFlatSymbolRefAttrGet(context, MlirStringRef { data: name.as_ptr().cast(), length: name.len() }) };
    host.op("dsa.launch", &values, &[], &[("kernel", callee), ("cores", ir::i64_array(context, &cores))]);
    kernel_op
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
        if !matches!(node.name.as_str(), "graph.reshape" | "graph.flatten") {
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

fn value_shape(program: &FunctionView, value: ValueId) -> Vec<usize> {
    buffer_shape(&program.type_of(value).shape)
}

pub(super) fn check_f32(
    element_type: ElementType,
    index: Option<usize>,
    what: &str,
) -> Result<(), LoweringError> {
    if element_type == ElementType::F32 {
        return Ok(());
    }
    Err(LoweringError {
        op: index,
        message: format!(
            "{what} has element type {element_type:?}, which is not supported: the software DSA computes in f32 only"
        ),
    })
}
