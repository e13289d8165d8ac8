//! `LSTM`, `GRU` and `RNN` as loops over their cells (Cocktailer's loop tasks): per direction,
//! the input projection of every step is one product before the loop (`X·Wᵀ` plus the biases
//! that do not depend on the state), and a `graph.loop` over the sequence reads its step's slice
//! by `graph.gather`, computes the cell from the state carried, and writes its output into a
//! carried `[seq, batch, hidden]` tensor by `graph.scatter_elements`. Directions are separate
//! loops whose outputs are concatenated as ONNX lays them out (`Y`: `[seq, directions, batch,
//! hidden]`, or `[batch, seq, directions, hidden]` with `layout = 1`).
//!
//! Per-batch `sequence_lens` mask the steps past each sequence's end (the state stays, the
//! output is 0) in the forward direction; a reversed direction needs every sequence to be full.
//! The activations are ONNX's defaults or any of Sigmoid, Tanh and Relu; `clip` and
//! `input_forget` are refused.

use super::compose::Compose;
use super::Builder;
use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::types::{ElementType, TensorType};
use crate::value::{Inputs, Value};

/// The recurrent operators.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Lstm,
    Gru,
    Rnn,
}

impl Cell {
    /// Gates per step: LSTM's input, output, forget and cell; GRU's update, reset and hidden.
    fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            Cell::Rnn => 1,
        }
    }

    /// ONNX's default activations of one direction.
    fn default_activations(self) -> &'static [&'static str] {
        match self {
            Cell::Lstm => &["Sigmoid", "Tanh", "Tanh"],
            Cell::Gru => &["Sigmoid", "Tanh"],
            Cell::Rnn => &["Tanh"],
        }
    }
}

/// What one direction's loop needs besides the cell.
struct Direction<'a> {
    /// The input projection of every step with the state-free biases: `[seq, batch, G·hidden]`.
    projected: Operand,
    /// `Rᵀ` of the direction: `[hidden, G·hidden]`.
    recurrence: Operand,
    /// GRU with `linear_before_reset`: the hidden gate's recurrent bias, `[hidden]`.
    hidden_bias: Option<Operand>,
    /// LSTM's peepholes: input, output and forget, each `[hidden]`.
    peepholes: Option<[Operand; 3]>,
    /// The initial state and (LSTM) cell, `[batch, hidden]`.
    initial: Vec<Operand>,
    reversed: bool,
    activations: &'a [String],
    /// Each batch entry's length, `[batch, 1]` i64, when some sequence is shorter.
    lengths: Option<Operand>,
}

/// Writes the loops of a recurrent `node`; returns `Y`, `Y_h` and (LSTM) `Y_c`.
pub(super) fn recurrent(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let cell = match node.op_type() {
        "LSTM" => Cell::Lstm,
        "GRU" => Cell::Gru,
        _ => Cell::Rnn,
    };
    if node.has("clip") {
        return Err(node.unsupported("clip is not supported"));
    }
    if node.int("input_forget", 0)? != 0 {
        return Err(node.unsupported("input_forget = 1 is not supported"));
    }
    let layout = node.int("layout", 0)?;
    let mut compose = Compose::new(builder, node);
    let x = compose.builder().operand(inputs.required(0, "X")?);
    if !x.ty.element.is_float() || x.ty.rank() != 3 {
        return Err(node.invalid(format!("X is {}, not a rank-3 float tensor", x.ty)));
    }
    let x = if layout == 1 {
        transpose(&mut compose, &x, &[1, 0, 2])
    } else {
        x
    };
    let (steps, batch) = (x.ty.shape[0], x.ty.shape[1]);
    let w = compose.builder().operand(inputs.required(1, "W")?);
    let r = compose.builder().operand(inputs.required(2, "R")?);
    let directions = match node.string("direction", "forward")?.as_str() {
        "forward" => vec![false],
        "reverse" => vec![true],
        "bidirectional" => vec![false, true],
        other => return Err(node.invalid(format!("direction '{other}' is not one of ONNX's"))),
    };
    let gates = cell.gates();
    let hidden = *r.ty.shape.last().unwrap_or(&0);
    let expected_r = [directions.len(), gates * hidden, hidden];
    if r.ty.shape != expected_r || w.ty.shape.first() != Some(&directions.len()) {
        return Err(node.invalid(format!(
            "W is {} and R {} for {} direction(s) of {gates} gates",
            w.ty,
            r.ty,
            directions.len()
        )));
    }
    let activations = activations(node, cell, directions.len())?;
    let lengths = sequence_lengths(&mut compose, inputs, steps, batch, &directions)?;
    let mut outputs: Vec<Vec<Operand>> = Vec::new();
    for (d, &reversed) in directions.iter().enumerate() {
        let per = cell.default_activations().len();
        let direction = prepare(
            &mut compose,
            cell,
            inputs,
            (&x, &w, &r),
            (d, hidden),
            Direction {
                projected: x.clone(),
                recurrence: r.clone(),
                hidden_bias: None,
                peepholes: None,
                initial: Vec::new(),
                reversed,
                activations: &activations[d * per..(d + 1) * per],
                lengths: lengths.clone(),
            },
        )?;
        outputs.push(run(&mut compose, cell, &direction, steps)?);
    }
    let results = stack_outputs(&mut compose, cell, &outputs, layout);
    Ok(results.into_iter().map(Value::Dynamic).collect())
}

/// `x` transposed by `permutation`.
fn transpose(compose: &mut Compose, x: &Operand, permutation: &[usize]) -> Operand {
    let shape = permutation.iter().map(|&d| x.ty.shape[d]).collect();
    let permutation = permutation.iter().map(|&d| d as i64).collect();
    compose.op(
        "graph.transpose",
        &[x],
        &[("permutation", Attribute::Ints(permutation))],
        TensorType::new(shape, x.ty.element),
    )
}

/// `x[start .. start + size]` along `axis`.
fn slice(compose: &mut Compose, x: &Operand, axis: usize, start: usize, size: usize) -> Operand {
    let mut starts = vec![0i64; x.ty.rank()];
    starts[axis] = start as i64;
    let mut shape = x.ty.shape.clone();
    shape[axis] = size;
    compose.op(
        "graph.slice",
        &[x],
        &[("starts", Attribute::Ints(starts))],
        TensorType::new(shape, x.ty.element),
    )
}

/// Direction `d`'s part of `[directions, ...]` tensor `x`, without the leading dimension.
fn direction_of(compose: &mut Compose, x: &Operand, d: usize) -> Operand {
    let part = slice(compose, x, 0, d, 1);
    compose.reshape(&part, x.ty.shape[1..].to_vec())
}

/// The activations of every direction: the `activations` attribute or ONNX's defaults.
fn activations(node: &Node, cell: Cell, directions: usize) -> Result<Vec<String>, ImportError> {
    if node.has("activation_alpha") || node.has("activation_beta") {
        return Err(node.unsupported("activation_alpha and activation_beta are not supported"));
    }
    let defaults = cell.default_activations();
    let given = node.strings("activations")?;
    let names: Vec<String> = match given {
        Some(names) => names,
        None => (0..directions)
            .flat_map(|_| defaults.iter().map(|name| name.to_string()))
            .collect(),
    };
    if names.len() != defaults.len() * directions {
        return Err(node.invalid(format!(
            "{} activations for {directions} direction(s) of {} each",
            names.len(),
            defaults.len()
        )));
    }
    if let Some(name) = names
        .iter()
        .find(|name| !matches!(name.as_str(), "Sigmoid" | "Tanh" | "Relu"))
    {
        return Err(node.unsupported(format!(
            "activation {name} is not supported (Sigmoid, Tanh and Relu are)"
        )));
    }
    Ok(names)
}

/// `x` through the activation `name`.
fn activate(compose: &mut Compose, name: &str, x: &Operand) -> Operand {
    let op = match name {
        "Sigmoid" => "graph.sigmoid",
        "Tanh" => "graph.tanh",
        _ => "graph.relu",
    };
    compose.unary(op, x)
}

/// The lengths of the sequences as `[batch, 1]` i64, when some may be shorter than `steps`; an
/// error for a reversed direction then.
fn sequence_lengths(
    compose: &mut Compose,
    inputs: &Inputs,
    steps: usize,
    batch: usize,
    directions: &[bool],
) -> Result<Option<Operand>, ImportError> {
    let Some(lengths) = inputs.get(4) else {
        return Ok(None);
    };
    if let Some(values) = lengths.as_const().and_then(|tensor| tensor.to_i64s()) {
        if values.iter().all(|&length| length == steps as i64) {
            return Ok(None);
        }
    }
    if directions.contains(&true) {
        return Err(compose.invalid(
            "sequence_lens shorter than the sequence with a reversed direction are not \
             supported",
        ));
    }
    let lengths = compose.builder().operand(lengths);
    let wide = TensorType::new(lengths.ty.shape.clone(), ElementType::I64);
    let lengths = if lengths.ty.element == ElementType::I64 {
        lengths
    } else {
        compose.op("graph.cast", &[&lengths], &[], wide)
    };
    Ok(Some(compose.reshape(&lengths, vec![batch, 1])))
}

/// Fills `direction` for direction `d` of `hidden` units: the input projection with its biases,
/// `Rᵀ`, the initial state and cell, the peepholes.
fn prepare<'a>(
    compose: &mut Compose,
    cell: Cell,
    inputs: &Inputs,
    (x, w, r): (&Operand, &Operand, &Operand),
    (d, hidden): (usize, usize),
    mut direction: Direction<'a>,
) -> Result<Direction<'a>, ImportError> {
    let gates = cell.gates() * hidden;
    let (steps, batch) = (x.ty.shape[0], x.ty.shape[1]);
    let wd = direction_of(compose, w, d);
    let wt = transpose(compose, &wd, &[1, 0]);
    let rd = direction_of(compose, r, d);
    direction.recurrence = transpose(compose, &rd, &[1, 0]);
    let rows = compose.reshape(x, vec![steps * batch, x.ty.shape[2]]);
    let product = TensorType::new(vec![steps * batch, gates], x.ty.element);
    let flat = compose.op("graph.matmul", &[&rows, &wt], &[], product);
    let mut projected = compose.reshape(&flat, vec![steps, batch, gates]);
    if let Some(bias) = inputs.get(3) {
        let bias = compose.builder().operand(bias);
        let bd = direction_of(compose, &bias, d);
        let input_bias = slice(compose, &bd, 0, 0, gates);
        let recurrent_bias = slice(compose, &bd, 0, gates, gates);
        let linear_before_reset = compose.node().int("linear_before_reset", 0)? != 0;
        let state_free = if cell == Cell::Gru && linear_before_reset {
            direction.hidden_bias = Some(slice(compose, &recurrent_bias, 0, 2 * hidden, hidden));
            let zr = slice(compose, &recurrent_bias, 0, 0, 2 * hidden);
            let zero = compose.scalar(x.ty.element, 0.0);
            let zero = compose.broadcast(&zero, vec![hidden]);
            compose.op(
                "graph.concat",
                &[&zr, &zero],
                &[("axis", Attribute::Int(0))],
                TensorType::new(vec![gates], x.ty.element),
            )
        } else {
            recurrent_bias
        };
        let biases = compose.binary("graph.add", &input_bias, &state_free)?;
        projected = compose.binary("graph.add", &projected, &biases)?;
    }
    direction.projected = projected;
    let states = if cell == Cell::Lstm { 2 } else { 1 };
    for index in [5usize, 6].into_iter().take(states) {
        let initial = match inputs.get(index) {
            Some(value) => {
                let value = compose.builder().operand(value);
                direction_of(compose, &value, d)
            }
            None => {
                let zero = compose.scalar(x.ty.element, 0.0);
                compose.broadcast(&zero, vec![batch, hidden])
            }
        };
        direction.initial.push(initial);
    }
    if let (Cell::Lstm, Some(p)) = (cell, inputs.get(7)) {
        let p = compose.builder().operand(p);
        let pd = direction_of(compose, &p, d);
        let input = slice(compose, &pd, 0, 0, hidden);
        let output = slice(compose, &pd, 0, hidden, hidden);
        let forget = slice(compose, &pd, 0, 2 * hidden, hidden);
        direction.peepholes = Some([input, output, forget]);
    }
    Ok(direction)
}

/// The loop of one direction; returns its `[seq, batch, hidden]` outputs, final state and
/// (LSTM) final cell.
fn run(
    compose: &mut Compose,
    cell: Cell,
    direction: &Direction,
    steps: usize,
) -> Result<Vec<Operand>, ImportError> {
    let state = direction.initial[0].ty.clone();
    let element = state.element;
    let stacked = TensorType::new(vec![steps, state.shape[0], state.shape[1]], element);
    let mut types = vec![TensorType::new(Vec::new(), ElementType::I64)];
    types.extend(direction.initial.iter().map(|operand| operand.ty.clone()));
    types.push(stacked.clone());
    let (region, arguments) = compose.builder().enter_region(types);
    let iteration = &arguments[0];
    let position = if direction.reversed {
        let last = compose.integer(ElementType::I64, steps as i64 - 1);
        compose.binary("graph.sub", &last, iteration)?
    } else {
        iteration.clone()
    };
    let gates = direction.projected.ty.shape[2];
    let step_type = TensorType::new(vec![state.shape[0], gates], element);
    let projected = compose.op(
        "graph.gather",
        &[&direction.projected, &position],
        &[("axis", Attribute::Int(0))],
        step_type,
    );
    let previous = &arguments[1..1 + direction.initial.len()];
    let mut next = match cell {
        Cell::Lstm => lstm_step(compose, direction, &projected, previous)?,
        Cell::Gru => vec![gru_step(compose, direction, &projected, &previous[0])?],
        Cell::Rnn => {
            let recurrent = product(compose, &previous[0], &direction.recurrence);
            let sum = compose.binary("graph.add", &projected, &recurrent)?;
            vec![activate(compose, &direction.activations[0], &sum)]
        }
    };
    let mut output = next[0].clone();
    if let Some(lengths) = &direction.lengths {
        let valid = compose.compare("lt", &position, lengths)?;
        for (value, before) in next.iter_mut().zip(previous) {
            *value = compose.select(&valid, value, before)?;
        }
        let zero = compose.scalar(element, 0.0);
        output = compose.select(&valid, &output, &zero)?;
    }
    let accumulator = arguments.last().expect("the stacked outputs are carried");
    let written = write_step(compose, accumulator, &output, &position);
    let go = compose.boolean(true);
    let mut yielded = vec![go];
    yielded.extend(next);
    yielded.push(written);
    let location = compose.location().to_owned();
    compose.builder().body.op(
        "graph.yield",
        &yielded.iter().collect::<Vec<_>>(),
        &[],
        &[],
        &location,
    );
    compose.builder().leave_region();
    let limit = compose.integer(ElementType::I64, steps as i64);
    let always = compose.boolean(true);
    let zero = compose.scalar(element, 0.0);
    let empty = compose.broadcast(&zero, stacked.shape.clone());
    let mut operands = vec![&limit, &always];
    operands.extend(direction.initial.iter());
    operands.push(&empty);
    let result_types: Vec<TensorType> = operands[2..].iter().map(|o| o.ty.clone()).collect();
    let mut results = compose.builder().body.op_with_regions(
        "graph.loop",
        &operands,
        &[],
        &result_types,
        vec![region],
        &location,
    );
    let outputs = results.pop().expect("the loop yields its outputs");
    let mut ordered = vec![outputs];
    ordered.extend(results);
    Ok(ordered)
}

/// `state · Rᵀ` (`[batch, hidden]` by `[hidden, n]`).
fn product(compose: &mut Compose, state: &Operand, transposed: &Operand) -> Operand {
    let ty = TensorType::new(
        vec![state.ty.shape[0], transposed.ty.shape[1]],
        state.ty.element,
    );
    compose.op("graph.matmul", &[state, transposed], &[], ty)
}

/// Gate `index` of `gates` (`[batch, G·hidden]`), `[batch, hidden]`.
fn gate(compose: &mut Compose, gates: &Operand, index: usize, hidden: usize) -> Operand {
    slice(compose, gates, 1, index * hidden, hidden)
}

/// One LSTM step (gates in ONNX's order i, o, f, c); returns the state and the cell.
fn lstm_step(
    compose: &mut Compose,
    direction: &Direction,
    projected: &Operand,
    previous: &[Operand],
) -> Result<Vec<Operand>, ImportError> {
    let (state, cell) = (&previous[0], &previous[1]);
    let hidden = state.ty.shape[1];
    let recurrent = product(compose, state, &direction.recurrence);
    let gates = compose.binary("graph.add", projected, &recurrent)?;
    let [f, g, h] = [0, 1, 2].map(|index| direction.activations[index].clone());
    let peep = |compose: &mut Compose, value: Operand, which: usize, on: &Operand| match &direction
        .peepholes
    {
        Some(peepholes) => {
            let scaled = compose.binary("graph.mul", &peepholes[which], on)?;
            compose.binary("graph.add", &value, &scaled)
        }
        None => Ok(value),
    };
    let input = gate(compose, &gates, 0, hidden);
    let input = peep(compose, input, 0, cell)?;
    let input = activate(compose, &f, &input);
    let forget = gate(compose, &gates, 2, hidden);
    let forget = peep(compose, forget, 2, cell)?;
    let forget = activate(compose, &f, &forget);
    let candidate = gate(compose, &gates, 3, hidden);
    let candidate = activate(compose, &g, &candidate);
    let kept = compose.binary("graph.mul", &forget, cell)?;
    let added = compose.binary("graph.mul", &input, &candidate)?;
    let next_cell = compose.binary("graph.add", &kept, &added)?;
    let output = gate(compose, &gates, 1, hidden);
    let output = peep(compose, output, 1, &next_cell)?;
    let output = activate(compose, &f, &output);
    let squashed = activate(compose, &h, &next_cell);
    let next_state = compose.binary("graph.mul", &output, &squashed)?;
    Ok(vec![next_state, next_cell])
}

/// One GRU step (gates in ONNX's order z, r, h).
fn gru_step(
    compose: &mut Compose,
    direction: &Direction,
    projected: &Operand,
    state: &Operand,
) -> Result<Operand, ImportError> {
    let hidden = state.ty.shape[1];
    let [f, g] = [0, 1].map(|index| direction.activations[index].clone());
    let update_reset = slice(compose, &direction.recurrence, 1, 0, 2 * hidden);
    let hidden_weights = slice(compose, &direction.recurrence, 1, 2 * hidden, hidden);
    let recurrent = product(compose, state, &update_reset);
    let update = gate(compose, projected, 0, hidden);
    let update_recurrent = gate(compose, &recurrent, 0, hidden);
    let update = compose.binary("graph.add", &update, &update_recurrent)?;
    let update = activate(compose, &f, &update);
    let reset = gate(compose, projected, 1, hidden);
    let reset_recurrent = gate(compose, &recurrent, 1, hidden);
    let reset = compose.binary("graph.add", &reset, &reset_recurrent)?;
    let reset = activate(compose, &f, &reset);
    let candidate = gate(compose, projected, 2, hidden);
    let recurrent_candidate = match &direction.hidden_bias {
        Some(bias) => {
            let linear = product(compose, state, &hidden_weights);
            let biased = compose.binary("graph.add", &linear, bias)?;
            compose.binary("graph.mul", &reset, &biased)?
        }
        None => {
            let reset_state = compose.binary("graph.mul", &reset, state)?;
            product(compose, &reset_state, &hidden_weights)
        }
    };
    let candidate = compose.binary("graph.add", &candidate, &recurrent_candidate)?;
    let candidate = activate(compose, &g, &candidate);
    // (1 - z)·h̃ + z·H = h̃ + z·(H - h̃)
    let change = compose.binary("graph.sub", state, &candidate)?;
    let kept = compose.binary("graph.mul", &update, &change)?;
    compose.binary("graph.add", &candidate, &kept)
}

/// `accumulator` (`[seq, batch, hidden]`) with `output` written at step `position`.
fn write_step(
    compose: &mut Compose,
    accumulator: &Operand,
    output: &Operand,
    position: &Operand,
) -> Operand {
    let mut one = output.ty.shape.clone();
    one.insert(0, 1);
    let indices = compose.op(
        "graph.broadcast",
        &[position],
        &[],
        TensorType::new(one.clone(), ElementType::I64),
    );
    let updates = compose.reshape(output, one);
    compose.op(
        "graph.scatter_elements",
        &[accumulator, &indices, &updates],
        &[("axis", Attribute::Int(0))],
        accumulator.ty.clone(),
    )
}

/// `Y` (`[seq, directions, batch, hidden]`), `Y_h` and (LSTM) `Y_c` (`[directions, batch,
/// hidden]`) from each direction's loop results, in the `layout` asked for.
fn stack_outputs(
    compose: &mut Compose,
    cell: Cell,
    outputs: &[Vec<Operand>],
    layout: i64,
) -> Vec<Operand> {
    let concat = |compose: &mut Compose, parts: Vec<Operand>, axis: usize| {
        if parts.len() == 1 {
            return parts.into_iter().next().expect("one part");
        }
        let mut shape = parts[0].ty.shape.clone();
        shape[axis] = parts.len();
        let ty = TensorType::new(shape, parts[0].ty.element);
        compose.op(
            "graph.concat",
            &parts.iter().collect::<Vec<_>>(),
            &[("axis", Attribute::Int(axis as i64))],
            ty,
        )
    };
    let mut results = Vec::new();
    let ys: Vec<Operand> = outputs
        .iter()
        .map(|parts| {
            let y = &parts[0];
            let mut shape = y.ty.shape.clone();
            shape.insert(1, 1);
            compose.reshape(y, shape)
        })
        .collect();
    let y = concat(compose, ys, 1);
    results.push(if layout == 1 {
        transpose(compose, &y, &[2, 0, 1, 3])
    } else {
        y
    });
    let states = if cell == Cell::Lstm { 2 } else { 1 };
    for which in 1..=states {
        let finals: Vec<Operand> = outputs
            .iter()
            .map(|parts| {
                let mut shape = parts[which].ty.shape.clone();
                shape.insert(0, 1);
                compose.reshape(&parts[which], shape)
            })
            .collect();
        let stacked = concat(compose, finals, 0);
        results.push(if layout == 1 {
            transpose(compose, &stacked, &[1, 0, 2])
        } else {
            stacked
        });
    }
    results
}
