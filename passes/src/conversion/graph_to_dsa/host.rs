//! The host function: which buffer holds each graph value, which layers become kernels, and the
//! launches in program order.

use crate::kernels::{
    dispatch::emit_layer,
    emit::{reshaped, Body, Space, Tensor, View},
    error::LoweringError,
    fusion::{self, Fused, Synthetic},
    host_function::{check_f32, launch, HostFunction},
    kernel::Kernel,
    layers::{Layer, Scope},
    movement,
    view::buffer_shape,
};
use crate::target::Machine;
use crate::{
    graph_view::{ElementType, FunctionView, Node, ValueId},
    ir::{self, Op, Val},
};
use std::collections::{BTreeMap, BTreeSet};

/// Lowers `program` (the body of `function`) into kernels and a host function of the same
/// name, inserted before `function`; on failure nothing it built stays in the module.
pub fn lower_function(
    program: &FunctionView,
    machine: &Machine,
    function: Op,
) -> Result<(), LoweringError> {
    let mut built = Vec::new();
    let result = lower_into(program, machine, function, &mut built);
    if result.is_err() {
        for op in built {
            op.erase();
        }
    }
    result
}

fn lower_into(
    program: &FunctionView,
    machine: &Machine,
    function: Op,
    built: &mut Vec<Op>,
) -> Result<(), LoweringError> {
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
        let host = signature.parameter(
            &view,
            "dsa.input",
            ir::i64_attribute(context, position as i64),
            location,
        );
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
        let host = signature.parameter(
            &view,
            "dsa.output",
            ir::i64_attribute(context, position as i64),
            location,
        );
        output_buffers.push(host);
        outputs
            .entry(returned[position])
            .or_insert(Tensor { host, view });
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
                let host = signature.parameter(
                    &view,
                    "dsa.weight",
                    ir::string_attribute(context, weight),
                    node.op.location(),
                );
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
    let absorbs: BTreeMap<usize, &Node> = absorbed_into
        .iter()
        .map(|(&conv, &layer)| (layer, &ops[conv]))
        .collect();
    let last_use = |value: ValueId| -> usize {
        if returned.contains(&value) {
            return ops.len();
        }
        users
            .get(&value)
            .and_then(|uses| {
                uses.iter()
                    .map(|user| absorbed_into.get(user).unwrap_or(user))
                    .max()
                    .copied()
            })
            .unwrap_or(0)
    };
    // Buffers are keyed by their value's handle.
    let key = |value: Val| value.0.ptr as usize;
    let mut root_of: BTreeMap<ValueId, usize> = BTreeMap::new();
    let mut root_last_use: BTreeMap<usize, usize> = BTreeMap::new();
    let mut live_bytes: usize = signature.parameter_bytes();
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

        let Fused {
            steps,
            elementwise_anchor,
            fused: fused_ops,
            last,
        } = fusion::layer_epilogue(
            program,
            index,
            &mut tensors,
            &mut host,
            &mut synthetic,
            absorbs.get(&index).map(|conv| conv.results[0].0),
        );
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
        let kernel = emit_layer(
            &scope,
            &mut host,
            &layer,
            &results,
            elementwise_anchor,
            kernel,
        )?;
        built.push(launch(&mut host, kernel, signature.op));
        for ((value, _), tensor) in final_values.iter().zip(results) {
            tensors.insert(*value, tensor);
        }
        // Free what no later op reads. Last uses are op indices; an epilogue op runs with its
        // anchor, earlier than its index, so a buffer it reads last is freed a little late, never
        // early.
        allocated.retain(|(buffer, view)| {
            if root_last_use
                .get(&key(*buffer))
                .is_some_and(|&last| last <= index)
            {
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
