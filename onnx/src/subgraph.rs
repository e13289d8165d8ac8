//! Control flow: ONNX `If`, `Loop` and `Scan`, whose bodies are subgraphs that see the tensors of
//! the graphs around them. They become `graph.if` and `graph.loop` with the bodies imported into
//! their regions (Cocktailer's branch and loop tasks); an `If` on a condition known at import time
//! is its taken branch, imported in place.
//!
//! The graph dialect's types are static, so a loop's scan outputs (one slice per iteration,
//! stacked) need a trip count known at import: a `Loop` whose count is a constant and whose
//! condition cannot stop it early, or any `Scan` (its count is its inputs' length). A scan
//! output is then a loop-carried tensor of the stacked shape, each iteration writing its slice
//! with `graph.scatter_elements`; a scan input's slice is a `graph.gather` at the iteration.

use std::rc::Rc;

use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::importer::{import_node, Scope};
use crate::lower::Builder;
use crate::node::Node;
use crate::proto::GraphProto;
use crate::tensor::{Data, Tensor};
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// Imports a control-flow node (`If`, `Loop` or `Scan`); returns its outputs.
pub(crate) fn import(
    node: &Node,
    inputs: &Inputs,
    scope: &Scope,
    builder: &mut Builder,
) -> Result<Vec<Value>, ImportError> {
    match node.op_type() {
        "If" => import_if(node, inputs, scope, builder),
        "Loop" => import_loop(node, inputs, scope, builder),
        _ => import_scan(node, inputs, scope, builder),
    }
}

/// The values of `graph`'s outputs, its nodes imported into the current region of `builder` in
/// a scope that sees `outer`'s tensors and binds the graph's inputs to `arguments`.
fn import_body(
    graph: &GraphProto,
    outer: &Scope,
    arguments: Vec<Value>,
    builder: &mut Builder,
) -> Result<Vec<Value>, ImportError> {
    let mut scope = outer.nested();
    if graph.input.len() != arguments.len() {
        return Err(ImportError::Model(format!(
            "subgraph '{}' declares {} inputs where its node passes {}",
            graph.name,
            graph.input.len(),
            arguments.len()
        )));
    }
    for initializer in &graph.initializer {
        let tensor = Tensor::from_proto(initializer, &initializer.name)?;
        scope.bind(
            &initializer.name,
            Value::Const {
                name: initializer.name.clone(),
                tensor: Rc::new(tensor),
            },
        );
    }
    for (input, value) in graph.input.iter().zip(arguments) {
        scope.bind(&input.name, value);
    }
    for (index, proto) in graph.node.iter().enumerate() {
        import_node(&Node::new(proto, index), &mut scope, builder)?;
    }
    graph
        .output
        .iter()
        .map(|output| scope.resolve(&output.name, None))
        .collect()
}

/// `value` as a rank-0 tensor (ONNX conditions and counts may be `[1]`).
fn scalar(
    builder: &mut Builder,
    node: &Node,
    value: &Value,
    what: &str,
) -> Result<Operand, ImportError> {
    let operand = builder.operand(value);
    match operand.ty.shape.as_slice() {
        [] => Ok(operand),
        [1] => Ok(builder.body.op1(
            "graph.reshape",
            &[&operand],
            &[],
            TensorType::new(Vec::new(), operand.ty.element),
            &node.name,
        )),
        shape => Err(node.invalid(format!("{what} has shape {shape:?}, not one element"))),
    }
}

/// Whether the constant `tensor` is a true condition.
fn holds(tensor: &Tensor) -> bool {
    matches!(&tensor.data, Data::Bool(values) if values.first() == Some(&true))
}

/// `If`: the taken branch in place when the condition is a constant, else `graph.if`.
fn import_if(
    node: &Node,
    inputs: &Inputs,
    scope: &Scope,
    builder: &mut Builder,
) -> Result<Vec<Value>, ImportError> {
    let condition = inputs.required(0, "cond")?;
    let branches = [node.graph("then_branch")?, node.graph("else_branch")?];
    if let Some(constant) = condition.as_const() {
        let taken = if holds(constant) {
            branches[0]
        } else {
            branches[1]
        };
        return import_body(taken, scope, Vec::new(), builder);
    }
    if condition.ty().element != ElementType::Bool {
        return Err(node.invalid(format!("the condition is {}, not bool", condition.ty())));
    }
    let condition = scalar(builder, node, condition, "the condition")?;
    let mut regions = Vec::new();
    let mut types: Vec<Vec<TensorType>> = Vec::new();
    for branch in branches {
        let (region, _) = builder.enter_region(Vec::new());
        let outputs = import_body(branch, scope, Vec::new(), builder)?;
        let operands: Vec<Operand> = outputs.iter().map(|v| builder.operand(v)).collect();
        end_body(builder, node, &operands);
        regions.push(region);
        types.push(operands.into_iter().map(|operand| operand.ty).collect());
    }
    if types[0] != types[1] {
        return Err(node.unsupported(format!(
            "its branches yield different types ({} and {}), which static types cannot hold",
            list(&types[0]),
            list(&types[1])
        )));
    }
    let results = builder.body.op_with_regions(
        "graph.if",
        &[&condition],
        &[],
        &types[0],
        regions,
        &node.name,
    );
    Ok(results.into_iter().map(Value::Dynamic).collect())
}

/// The types, comma-separated, for messages.
fn list(types: &[TensorType]) -> String {
    types
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A rank-0 constant.
fn constant(builder: &mut Builder, node: &Node, data: Data) -> Operand {
    builder
        .body
        .constant(&Tensor::new(Vec::new(), data), &node.name)
}

/// `Loop`: `graph.loop` over the body, its scan outputs carried as stacked tensors.
fn import_loop(
    node: &Node,
    inputs: &Inputs,
    scope: &Scope,
    builder: &mut Builder,
) -> Result<Vec<Value>, ImportError> {
    let body = node.graph("body")?;
    let limit = inputs.get(0);
    let condition = inputs.get(1);
    let initial: Vec<&Value> = (2..node.proto.input.len())
        .map(|index| inputs.required(index, "v_initial"))
        .collect::<Result<_, _>>()?;
    let count = limit
        .and_then(Value::as_const)
        .and_then(Tensor::to_i64s)
        .and_then(|values| values.first().copied());
    let stops_early = condition.is_some_and(|value| value.as_const().is_none_or(|c| !holds(c)));
    let limit = match limit {
        Some(value) => scalar(builder, node, value, "the trip count")?,
        None => constant(builder, node, Data::I64(vec![i64::MAX])),
    };
    let condition = match condition {
        Some(value) => scalar(builder, node, value, "the condition")?,
        None => constant(builder, node, Data::Bool(vec![true])),
    };
    let carried: Vec<Operand> = initial.iter().map(|value| builder.operand(value)).collect();
    let mut argument_types = vec![TensorType::new(Vec::new(), ElementType::I64)];
    argument_types.extend(carried.iter().map(|operand| operand.ty.clone()));
    let (region, arguments) = builder.enter_region(argument_types);
    let mut bound = vec![
        Value::Dynamic(arguments[0].clone()),
        Value::Const {
            name: format!("{}.cond_in", node.name),
            tensor: Rc::new(Tensor::new(Vec::new(), Data::Bool(vec![true]))),
        },
    ];
    bound.extend(arguments[1..].iter().cloned().map(Value::Dynamic));
    let outputs = import_body(body, scope, bound, builder)?;
    if outputs.len() < 1 + carried.len() {
        return Err(node.invalid(format!(
            "the body yields {} values, fewer than the condition and {} carried values",
            outputs.len(),
            carried.len()
        )));
    }
    let next_condition = scalar(builder, node, &outputs[0], "the body's condition")?;
    let mut yielded = vec![next_condition.clone()];
    for (position, (value, before)) in outputs[1..].iter().zip(&carried).enumerate() {
        let operand = builder.operand(value);
        if operand.ty != before.ty {
            return Err(node.unsupported(format!(
                "loop-carried value {position} changes type from {} to {}",
                before.ty, operand.ty
            )));
        }
        yielded.push(operand);
    }
    let scans = &outputs[1 + carried.len()..];
    let mut stacked_initial = Vec::new();
    if !scans.is_empty() {
        let condition_holds = outputs[0].as_const().is_some_and(holds);
        let trips = match count {
            Some(trips) if !stops_early && condition_holds => trips,
            _ => {
                return Err(node.unsupported(
                    "scan outputs of a Loop whose trip count is not a constant, or that its \
                     condition may stop early, have a dynamic shape, which is not supported",
                ))
            }
        };
        let trips = usize::try_from(trips).map_err(|_| node.invalid("a negative trip count"))?;
        for value in scans {
            let slice = builder.operand(value);
            let stacked = stacked_type(&slice.ty, 0, trips);
            let accumulator = builder.body.add_region_argument(region, stacked.clone());
            let position = Value::Dynamic(arguments[0].clone());
            yielded.push(write_slice(
                builder,
                node,
                &accumulator,
                &slice,
                &position,
                0,
            )?);
            stacked_initial.push(stacked);
        }
    }
    end_body(builder, node, &yielded);
    let operands = LoopOperands {
        limit,
        condition,
        carried,
        stacked: stacked_initial,
    };
    Ok(write_loop(builder, node, region, operands))
}

/// Ends the region being recorded with `graph.yield` of `yielded`.
fn end_body(builder: &mut Builder, node: &Node, yielded: &[Operand]) {
    builder.body.op(
        "graph.yield",
        &yielded.iter().collect::<Vec<_>>(),
        &[],
        &[],
        &node.name,
    );
    builder.leave_region();
}

/// The operands of a `graph.loop` besides its region: the trip count and the condition
/// (rank-0), the carried values, and the types of the stacked scan outputs, which start as zeros.
struct LoopOperands {
    limit: Operand,
    condition: Operand,
    carried: Vec<Operand>,
    stacked: Vec<TensorType>,
}

/// The `graph.loop` on `operands` holding the body `region` (ended by [`end_body`]); returns
/// its results: the final carried values, then the stacked outputs.
fn write_loop(
    builder: &mut Builder,
    node: &Node,
    region: usize,
    operands: LoopOperands,
) -> Vec<Value> {
    let mut all = vec![operands.limit, operands.condition];
    all.extend(operands.carried);
    for ty in &operands.stacked {
        all.push(zeros(builder, node, ty));
    }
    let types: Vec<TensorType> = all[2..].iter().map(|o| o.ty.clone()).collect();
    let results = builder.body.op_with_regions(
        "graph.loop",
        &all.iter().collect::<Vec<_>>(),
        &[],
        &types,
        vec![region],
        &node.name,
    );
    results.into_iter().map(Value::Dynamic).collect()
}

/// `slice`'s type with `trips` slices stacked along `axis`.
fn stacked_type(slice: &TensorType, axis: usize, trips: usize) -> TensorType {
    let mut shape = slice.shape.clone();
    shape.insert(axis, trips);
    TensorType::new(shape, slice.element)
}

/// A splat of zeros of type `ty` (the stacked scan outputs before the first iteration).
fn zeros(builder: &mut Builder, node: &Node, ty: &TensorType) -> Operand {
    let zero = Tensor::new(Vec::new(), Data::F32(vec![0.0]).convert(ty.element));
    builder.body.splat(&zero, ty.clone(), &node.name)
}

/// `accumulator` with `slice` written at `position` (a rank-0 i64) along `axis`: a
/// `graph.scatter_elements` of the slice, given a size-1 `axis`, at indices all `position`.
fn write_slice(
    builder: &mut Builder,
    node: &Node,
    accumulator: &Operand,
    slice: &Operand,
    position: &Value,
    axis: usize,
) -> Result<Operand, ImportError> {
    let one = stacked_type(&slice.ty, axis, 1);
    let position = builder.operand(position);
    let indices = builder.body.op1(
        "graph.broadcast",
        &[&position],
        &[],
        TensorType::new(one.shape.clone(), ElementType::I64),
        &node.name,
    );
    let updates = builder
        .body
        .op1("graph.reshape", &[slice], &[], one, &node.name);
    Ok(builder.body.op1(
        "graph.scatter_elements",
        &[accumulator, &indices, &updates],
        &[("axis", Attribute::Int(axis as i64))],
        accumulator.ty.clone(),
        &node.name,
    ))
}

/// `Scan` (opset 9 on): `graph.loop` over the scan inputs' length, a slice of each scan input
/// read at the iteration (or from the end, for a reversed one), the scan outputs stacked.
fn import_scan(
    node: &Node,
    inputs: &Inputs,
    scope: &Scope,
    builder: &mut Builder,
) -> Result<Vec<Value>, ImportError> {
    let body = node.graph("body")?;
    let scanned = usize::try_from(node.int("num_scan_inputs", 0)?)
        .ok()
        .filter(|&n| n >= 1 && n <= node.proto.input.len())
        .ok_or_else(|| node.invalid("num_scan_inputs must be between 1 and the input count"))?;
    let states = node.proto.input.len() - scanned;
    let values: Vec<&Value> = (0..node.proto.input.len())
        .map(|index| inputs.required(index, "input"))
        .collect::<Result<_, _>>()?;
    let axes = scan_settings(node, "scan_input_axes", scanned, &values[states..])?;
    let directions = node
        .ints("scan_input_directions")?
        .unwrap_or(vec![0; scanned]);
    let trips = values[states].ty().shape.get(axes[0]).copied().unwrap_or(0);
    for (value, &axis) in values[states..].iter().zip(&axes) {
        if value.ty().shape.get(axis) != Some(&trips) {
            return Err(node.invalid("the scan inputs differ in length along their scan axes"));
        }
    }
    let carried: Vec<Operand> = values[..states]
        .iter()
        .map(|v| builder.operand(v))
        .collect();
    let sources: Vec<Operand> = values[states..]
        .iter()
        .map(|v| builder.operand(v))
        .collect();
    let mut argument_types = vec![TensorType::new(Vec::new(), ElementType::I64)];
    argument_types.extend(carried.iter().map(|operand| operand.ty.clone()));
    let (region, arguments) = builder.enter_region(argument_types);
    let iteration = arguments[0].clone();
    let reversed = reversed_position(builder, node, &iteration, trips);
    let mut bound: Vec<Value> = arguments[1..].iter().cloned().map(Value::Dynamic).collect();
    for ((source, &axis), direction) in sources.iter().zip(&axes).zip(&directions) {
        let position = if *direction == 0 {
            &iteration
        } else {
            &reversed
        };
        let mut shape = source.ty.shape.clone();
        shape.remove(axis);
        let slice = builder.body.op1(
            "graph.gather",
            &[source, position],
            &[("axis", Attribute::Int(axis as i64))],
            TensorType::new(shape, source.ty.element),
            &node.name,
        );
        bound.push(Value::Dynamic(slice));
    }
    let outputs = import_body(body, scope, bound, builder)?;
    if outputs.len() < states {
        return Err(node.invalid("the body yields fewer values than the scan's states"));
    }
    let condition = constant(builder, node, Data::Bool(vec![true]));
    let mut yielded = vec![condition];
    for (value, before) in outputs[..states].iter().zip(&carried) {
        let operand = builder.operand(value);
        if operand.ty != before.ty {
            return Err(node.unsupported(format!(
                "a state changes type from {} to {}",
                before.ty, operand.ty
            )));
        }
        yielded.push(operand);
    }
    let slices: Vec<Operand> = outputs[states..]
        .iter()
        .map(|v| builder.operand(v))
        .collect();
    let output_axes = scan_output_axes(node, &slices)?;
    let output_directions = node
        .ints("scan_output_directions")?
        .unwrap_or(vec![0; slices.len()]);
    let mut stacked_initial = Vec::new();
    for ((slice, &axis), direction) in slices.iter().zip(&output_axes).zip(&output_directions) {
        let stacked = stacked_type(&slice.ty, axis, trips);
        let accumulator = builder.body.add_region_argument(region, stacked.clone());
        let position = if *direction == 0 {
            &iteration
        } else {
            &reversed
        };
        let position = Value::Dynamic(position.clone());
        yielded.push(write_slice(
            builder,
            node,
            &accumulator,
            slice,
            &position,
            axis,
        )?);
        stacked_initial.push(stacked);
    }
    end_body(builder, node, &yielded);
    let operands = LoopOperands {
        limit: constant(builder, node, Data::I64(vec![trips as i64])),
        condition: constant(builder, node, Data::Bool(vec![true])),
        carried,
        stacked: stacked_initial,
    };
    Ok(write_loop(builder, node, region, operands))
}

/// `trips - 1 - iteration`: the position a reversed scan reads or writes.
fn reversed_position(
    builder: &mut Builder,
    node: &Node,
    iteration: &Operand,
    trips: usize,
) -> Operand {
    let last = constant(builder, node, Data::I64(vec![trips as i64 - 1]));
    builder.body.op1(
        "graph.sub",
        &[&last, iteration],
        &[],
        iteration.ty.clone(),
        &node.name,
    )
}

/// The scan axes of `values` from attribute `name` (0 for each when absent), made non-negative.
fn scan_settings(
    node: &Node,
    name: &str,
    count: usize,
    values: &[&Value],
) -> Result<Vec<usize>, ImportError> {
    let given = node.ints(name)?.unwrap_or(vec![0; count]);
    if given.len() != count {
        return Err(node.invalid(format!(
            "{name} has {} entries for {count} inputs",
            given.len()
        )));
    }
    given
        .iter()
        .zip(values)
        .map(|(&axis, value)| {
            let rank = value.ty().rank() as i64;
            let axis = if axis < 0 { axis + rank } else { axis };
            usize::try_from(axis)
                .ok()
                .filter(|&axis| (axis as i64) < rank)
                .ok_or_else(|| node.invalid(format!("{name}: axis out of range for rank {rank}")))
        })
        .collect()
}

/// The axes the scan outputs (slices `slices`) are stacked along: `scan_output_axes`, 0 for
/// each when absent, made non-negative against the stacked rank.
fn scan_output_axes(node: &Node, slices: &[Operand]) -> Result<Vec<usize>, ImportError> {
    let given = node
        .ints("scan_output_axes")?
        .unwrap_or(vec![0; slices.len()]);
    if given.len() != slices.len() {
        return Err(node.invalid("scan_output_axes has not one entry per scan output"));
    }
    given
        .iter()
        .zip(slices)
        .map(|(&axis, slice)| {
            let rank = slice.ty.rank() as i64 + 1;
            let axis = if axis < 0 { axis + rank } else { axis };
            usize::try_from(axis)
                .ok()
                .filter(|&axis| (axis as i64) < rank)
                .ok_or_else(|| node.invalid("scan_output_axes: axis out of range"))
        })
        .collect()
}
