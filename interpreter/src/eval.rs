//! Evaluation of a [`Program`]: values flow through an environment indexed by value id, each op
//! dispatches to its kernel, regions of `graph.if` and `graph.loop` run recursively.

use crate::{
    error::InterpretError,
    kernels::{
        conv, elementwise,
        elementwise::{Binary, Predicate, Unary},
        matmul, movement,
        movement::PadMode,
        normalization, pooling,
        reduction::{self, Reduction},
        resize::{self, Coordinates, Interpolation, Rounding},
        Window,
    },
    program::{Attr, Block, Node, Program, TensorType, ValueId},
    tensor::{Data, ElementType, Tensor},
    weights::Weights,
};
use std::rc::Rc;

/// Runs `program` on `inputs` (one per function argument, in order) and returns its results.
pub fn interpret(
    program: &Program,
    inputs: Vec<Tensor>,
    weights: &Weights,
) -> Result<Vec<Tensor>, InterpretError> {
    let arguments = &program.body.arguments;
    if inputs.len() != arguments.len() {
        return Err(InterpretError::Inputs(format!(
            "@{} takes {} inputs but {} were given",
            program.name,
            arguments.len(),
            inputs.len()
        )));
    }
    for (index, (input, (_, expected))) in inputs.iter().zip(arguments).enumerate() {
        if input.shape != expected.shape || input.element_type != expected.element_type {
            return Err(InterpretError::Inputs(format!(
                "input #{index} is {:?} of shape {:?} but @{} expects {:?} of shape {:?}",
                input.element_type,
                input.shape,
                program.name,
                expected.element_type,
                expected.shape
            )));
        }
    }
    let mut evaluator = Evaluator {
        values: vec![None; program.value_count],
        weights,
    };
    let results = evaluator.run(&program.body, inputs.into_iter().map(Rc::new).collect())?;
    Ok(results
        .into_iter()
        .map(|tensor| Rc::try_unwrap(tensor).unwrap_or_else(|shared| (*shared).clone()))
        .collect())
}

struct Evaluator<'w> {
    values: Vec<Option<Rc<Tensor>>>,
    weights: &'w Weights,
}

fn runtime(node: &Node, message: impl Into<String>) -> InterpretError {
    InterpretError::Runtime {
        location: node.location.clone(),
        message: format!("'{}': {}", node.name, message.into()),
    }
}

fn unsupported(node: &Node, message: impl Into<String>) -> InterpretError {
    InterpretError::Unsupported {
        location: node.location.clone(),
        message: message.into(),
    }
}

/// Attribute accessors with ODS defaults; the verifier guarantees types and ranges.
impl Node {
    fn ints(&self, name: &str, default: &[i64]) -> Vec<i64> {
        match self.attributes.get(name) {
            Some(Attr::Ints(values)) => values.clone(),
            _ => default.to_vec(),
        }
    }

    fn usizes<const N: usize>(&self, name: &str, default: [i64; N]) -> [usize; N] {
        let values = self.ints(name, &default);
        std::array::from_fn(|i| values[i] as usize)
    }

    fn int(&self, name: &str, default: i64) -> i64 {
        match self.attributes.get(name) {
            Some(Attr::Int(value)) => *value,
            _ => default,
        }
    }

    fn floats(&self, name: &str) -> Vec<f32> {
        match self.attributes.get(name) {
            Some(Attr::Floats(values)) => values.clone(),
            _ => Vec::new(),
        }
    }

    fn float(&self, name: &str, default: f32) -> f32 {
        match self.attributes.get(name) {
            Some(Attr::Float(value)) => *value as f32,
            _ => default,
        }
    }

    fn flag(&self, name: &str) -> bool {
        matches!(self.attributes.get(name), Some(Attr::Bool(true)))
    }

    fn keyword(&self, name: &str) -> Option<&str> {
        match self.attributes.get(name) {
            Some(Attr::Keyword(value)) => Some(value),
            _ => None,
        }
    }

    fn result_type(&self) -> &TensorType {
        &self.results[0].1
    }
}

/// Normalises an axis that may count from the end (the verifier checked its range).
fn axis(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as i64) as usize
    } else {
        axis as usize
    }
}

fn f32s<'t>(node: &Node, tensor: &'t Tensor) -> Result<&'t [f32], InterpretError> {
    tensor.as_f32().ok_or_else(|| {
        unsupported(
            node,
            format!("{:?} operands (only f32 is)", tensor.element_type),
        )
    })
}

fn scalar_i64(tensor: &Tensor) -> i64 {
    match &tensor.data {
        Data::I64(values) => values[0],
        _ => unreachable!("the verifier ensures an i64 scalar"),
    }
}

fn scalar_bool(tensor: &Tensor) -> bool {
    match &tensor.data {
        Data::Bool(values) => values[0],
        _ => unreachable!("the verifier ensures an i1 scalar"),
    }
}

fn float_tensor(r#type: &TensorType, values: Vec<f32>) -> Tensor {
    Tensor {
        shape: r#type.shape.clone(),
        element_type: ElementType::F32,
        data: Data::F32(values),
    }
}

fn typed(r#type: &TensorType, data: Data) -> Tensor {
    Tensor {
        shape: r#type.shape.clone(),
        element_type: r#type.element_type,
        data,
    }
}

fn activation(node: &Node) -> Result<Option<Unary>, InterpretError> {
    Ok(match node.keyword("activation") {
        None => None,
        Some("relu") => Some(Unary::Relu),
        Some("relu6") => Some(Unary::Clip { min: 0.0, max: 6.0 }),
        Some("sigmoid") => Some(Unary::Sigmoid),
        Some("tanh") => Some(Unary::Tanh),
        Some("silu") => Some(Unary::Silu),
        Some("gelu") => Some(Unary::Gelu { approximate: false }),
        Some(other) => return Err(unsupported(node, format!("activation '{other}'"))),
    })
}

fn shape4(shape: &[usize]) -> [usize; 4] {
    [shape[0], shape[1], shape[2], shape[3]]
}

impl Evaluator<'_> {
    fn run(
        &mut self,
        block: &Block,
        arguments: Vec<Rc<Tensor>>,
    ) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        for ((id, _), value) in block.arguments.iter().zip(arguments) {
            self.values[*id] = Some(value);
        }
        for node in &block.ops {
            if matches!(
                node.name.as_str(),
                "func.return" | "graph.yield" | "instance.yield"
            ) {
                return Ok(node.operands.iter().map(|&id| self.value(id)).collect());
            }
            let results = self.eval(node)?;
            for ((id, _), value) in node.results.iter().zip(results) {
                self.values[*id] = Some(value);
            }
        }
        Ok(Vec::new())
    }

    fn value(&self, id: ValueId) -> Rc<Tensor> {
        self.values[id]
            .clone()
            .expect("SSA dominance guarantees a value is defined before its use")
    }

    fn operand(&self, node: &Node, index: usize) -> Rc<Tensor> {
        self.value(node.operands[index])
    }

    fn eval(&mut self, node: &Node) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        let name = node.name.as_str();
        match name {
            // A group (GraphTurbo §3.2) computes its body on its operands: grouping never changes
            // the numbers.
            "instance.group" | "instance.instance" => {
                let operands = (0..node.operands.len())
                    .map(|i| self.operand(node, i))
                    .collect();
                return self.run(&node.regions[0], operands);
            }
            // Each cluster runs the body on its share of the operands; the results are the
            // clusters' shares put together (a result every cluster computes alike is taken once).
            "instance.clusters" => {
                let count = node.int("count", 1) as usize;
                let input_dims = node.ints("input_dims", &[]);
                let result_dims = node.ints("result_dims", &[]);
                let body = &node.regions[0];
                let mut shares: Vec<Vec<Rc<Tensor>>> = Vec::with_capacity(count);
                for cluster in 0..count {
                    let arguments = (0..node.operands.len())
                        .map(|i| {
                            let operand = self.operand(node, i);
                            if input_dims[i] < 0 {
                                return operand;
                            }
                            let shape = &body.arguments[i].1.shape;
                            let mut starts = vec![0; shape.len()];
                            starts[input_dims[i] as usize] =
                                cluster * shape[input_dims[i] as usize];
                            let data = movement::slice(
                                &operand.data,
                                &operand.shape,
                                &starts,
                                &vec![1; shape.len()],
                                shape,
                            );
                            Rc::new(Tensor {
                                shape: shape.clone(),
                                element_type: operand.element_type,
                                data,
                            })
                        })
                        .collect();
                    shares.push(self.run(body, arguments)?);
                }
                return Ok(node
                    .results
                    .iter()
                    .enumerate()
                    .map(|(r, (_, r#type))| {
                        if result_dims[r] < 0 {
                            return shares[0][r].clone();
                        }
                        let views: Vec<(&Data, &[usize])> = shares
                            .iter()
                            .map(|share| (&share[r].data, share[r].shape.as_slice()))
                            .collect();
                        Rc::new(typed(
                            r#type,
                            movement::concat(&views, result_dims[r] as usize),
                        ))
                    })
                    .collect());
            }
            // Data movement between scopes and bindings (GraphTurbo §3.5) leaves the values as
            // they are.
            "instance.copy" | "instance.redistribute" => return Ok(vec![self.operand(node, 0)]),
            "graph.if" => {
                let branch = if scalar_bool(&self.operand(node, 0)) {
                    0
                } else {
                    1
                };
                return self.run(&node.regions[branch], Vec::new());
            }
            "graph.loop" => {
                let limit = scalar_i64(&self.operand(node, 0));
                let mut condition = scalar_bool(&self.operand(node, 1));
                let mut carried: Vec<Rc<Tensor>> = (2..node.operands.len())
                    .map(|i| self.operand(node, i))
                    .collect();
                let mut iteration = 0i64;
                while iteration < limit && condition {
                    let counter = Tensor {
                        shape: vec![],
                        element_type: ElementType::I64,
                        data: Data::I64(vec![iteration]),
                    };
                    let mut arguments = vec![Rc::new(counter)];
                    arguments.extend(carried.iter().cloned());
                    let mut yielded = self.run(&node.regions[0], arguments)?;
                    condition = scalar_bool(&yielded[0]);
                    carried = yielded.split_off(1);
                    iteration += 1;
                }
                return Ok(carried);
            }
            _ => {}
        }
        let results = if let Some(results) = self.eval_multi(node)? {
            results
        } else {
            vec![self.eval_single(node)?]
        };
        Ok(results.into_iter().map(Rc::new).collect())
    }

    /// Ops with several results.
    fn eval_multi(&self, node: &Node) -> Result<Option<Vec<Tensor>>, InterpretError> {
        if node.name != "graph.split" {
            return Ok(None);
        }
        let input = self.operand(node, 0);
        let split_axis = axis(node.int("axis", 0), input.shape.len());
        let mut start = 0;
        let mut results = Vec::new();
        for (_, r#type) in &node.results {
            let mut starts = vec![0; input.shape.len()];
            starts[split_axis] = start;
            start += r#type.shape[split_axis];
            let steps = vec![1; input.shape.len()];
            results.push(typed(
                r#type,
                movement::slice(&input.data, &input.shape, &starts, &steps, &r#type.shape),
            ));
        }
        Ok(Some(results))
    }

    fn eval_single(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let binary = |op: Binary| -> Result<Tensor, InterpretError> {
            let data = elementwise::binary(
                op,
                &self.operand(node, 0),
                &self.operand(node, 1),
                &out.shape,
            )
            .map_err(|message| runtime(node, message))?;
            Ok(typed(out, data))
        };
        let unary = |op: Unary| -> Result<Tensor, InterpretError> {
            let input = self.operand(node, 0);
            Ok(float_tensor(
                out,
                elementwise::unary(op, f32s(node, &input)?),
            ))
        };
        let reduce = |kind: Reduction| -> Result<Tensor, InterpretError> {
            let input = self.operand(node, 0);
            let given = node.ints("axes", &[]);
            // No axes reduces every dimension, as in ONNX.
            let axes: Vec<usize> = if given.is_empty() {
                (0..input.shape.len()).collect()
            } else {
                given.iter().map(|&a| axis(a, input.shape.len())).collect()
            };
            Ok(float_tensor(
                out,
                reduction::reduce(f32s(node, &input)?, &input.shape, &axes, kind),
            ))
        };
        Ok(match node.name.as_str() {
            "graph.constant" => match node.attributes.get("value") {
                Some(Attr::Dense(tensor)) => tensor.clone(),
                _ => {
                    return Err(unsupported(
                        node,
                        "a constant that is not a dense elements attribute",
                    ))
                }
            },
            "graph.weight" => self.weight(node)?,
            "graph.conv2d" => {
                let input = self.operand(node, 0);
                let filter = self.operand(node, 1);
                let bias = (node.operands.len() > 2).then(|| self.operand(node, 2));
                let bias_values = bias.as_deref().map(|bias| f32s(node, bias)).transpose()?;
                let filter_shape = shape4(&filter.shape);
                let window = Window {
                    kernel: [filter_shape[2], filter_shape[3]],
                    strides: node.usizes("strides", [1, 1]),
                    pads: node.usizes("pads", [0, 0, 0, 0]),
                    dilations: node.usizes("dilations", [1, 1]),
                };
                let mut values = conv::conv2d(
                    (f32s(node, &input)?, shape4(&input.shape)),
                    (f32s(node, &filter)?, filter_shape),
                    bias_values,
                    window,
                    node.int("groups", 1) as usize,
                    shape4(&out.shape),
                );
                if let Some(op) = activation(node)? {
                    values = elementwise::unary(op, &values);
                }
                float_tensor(out, values)
            }
            "graph.matmul" | "graph.batch_matmul" => {
                let (a, b) = (self.operand(node, 0), self.operand(node, 1));
                float_tensor(
                    out,
                    matmul::batch_matmul(
                        f32s(node, &a)?,
                        &a.shape,
                        f32s(node, &b)?,
                        &b.shape,
                        &out.shape,
                    ),
                )
            }
            "graph.gemm" => {
                let (a, b) = (self.operand(node, 0), self.operand(node, 1));
                let c = (node.operands.len() > 2).then(|| self.operand(node, 2));
                let c_values = c
                    .as_deref()
                    .map(|c| f32s(node, c).map(|values| (values, c.shape.as_slice())))
                    .transpose()?;
                float_tensor(
                    out,
                    matmul::gemm(
                        f32s(node, &a)?,
                        [a.shape[0], a.shape[1]],
                        f32s(node, &b)?,
                        [b.shape[0], b.shape[1]],
                        c_values,
                        node.float("alpha", 1.0),
                        node.float("beta", 1.0),
                        node.flag("trans_a"),
                        node.flag("trans_b"),
                    ),
                )
            }
            "graph.add" => binary(Binary::Add)?,
            "graph.sub" => binary(Binary::Sub)?,
            "graph.mul" => binary(Binary::Mul)?,
            "graph.div" => binary(Binary::Div)?,
            "graph.pow" => binary(Binary::Pow)?,
            "graph.max" => binary(Binary::Max)?,
            "graph.min" => binary(Binary::Min)?,
            "graph.mod" => binary(Binary::Mod {
                fmod: node.flag("fmod"),
            })?,
            "graph.relu" => unary(Unary::Relu)?,
            "graph.sigmoid" => unary(Unary::Sigmoid)?,
            "graph.tanh" => unary(Unary::Tanh)?,
            "graph.silu" => unary(Unary::Silu)?,
            "graph.gelu" => unary(Unary::Gelu {
                approximate: node.flag("approximate"),
            })?,
            "graph.erf" => unary(Unary::Erf)?,
            "graph.sqrt" => unary(Unary::Sqrt)?,
            "graph.exp" => unary(Unary::Exp)?,
            "graph.log" => unary(Unary::Log)?,
            "graph.neg" => unary(Unary::Neg)?,
            "graph.abs" => unary(Unary::Abs)?,
            "graph.reciprocal" => unary(Unary::Reciprocal)?,
            "graph.clip" => unary(Unary::Clip {
                min: node.float("min", f32::MIN),
                max: node.float("max", f32::MAX),
            })?,
            "graph.batch_norm" => {
                let operands: Vec<Rc<Tensor>> = (0..5).map(|i| self.operand(node, i)).collect();
                float_tensor(
                    out,
                    normalization::batch_norm(
                        f32s(node, &operands[0])?,
                        &operands[0].shape,
                        f32s(node, &operands[1])?,
                        f32s(node, &operands[2])?,
                        f32s(node, &operands[3])?,
                        f32s(node, &operands[4])?,
                        node.float("epsilon", 1e-5),
                    ),
                )
            }
            "graph.layer_norm" => {
                let input = self.operand(node, 0);
                let scale = self.operand(node, 1);
                let bias = (node.operands.len() > 2).then(|| self.operand(node, 2));
                let bias_values = bias.as_deref().map(|bias| f32s(node, bias)).transpose()?;
                let first = axis(node.int("axis", -1), input.shape.len());
                let normalized: usize = input.shape[first..].iter().product();
                float_tensor(
                    out,
                    normalization::layer_norm(
                        f32s(node, &input)?,
                        normalized,
                        f32s(node, &scale)?,
                        bias_values,
                        node.float("epsilon", 1e-5),
                    ),
                )
            }
            "graph.softmax" => {
                let input = self.operand(node, 0);
                let along = axis(node.int("axis", -1), input.shape.len());
                float_tensor(
                    out,
                    normalization::softmax(f32s(node, &input)?, &input.shape, along),
                )
            }
            "graph.resize" => {
                let input = self.operand(node, 0);
                let coordinates = match node.keyword("coordinates").unwrap_or("half_pixel") {
                    "half_pixel" => Coordinates::HalfPixel,
                    "pytorch_half_pixel" => Coordinates::PytorchHalfPixel,
                    "align_corners" => Coordinates::AlignCorners,
                    "asymmetric" => Coordinates::Asymmetric,
                    other => {
                        return Err(unsupported(node, format!("resize coordinates '{other}'")))
                    }
                };
                let interpolation = match node.keyword("mode").unwrap_or("nearest") {
                    "linear" => Interpolation::Linear,
                    "nearest" => Interpolation::Nearest(
                        match node.keyword("nearest").unwrap_or("round_prefer_floor") {
                            "round_prefer_floor" => Rounding::RoundPreferFloor,
                            "round_prefer_ceil" => Rounding::RoundPreferCeil,
                            "floor" => Rounding::Floor,
                            "ceil" => Rounding::Ceil,
                            other => {
                                return Err(unsupported(
                                    node,
                                    format!("nearest rounding '{other}'"),
                                ))
                            }
                        },
                    ),
                    other => return Err(unsupported(node, format!("resize mode '{other}'"))),
                };
                let values = f32s(node, &input)?;
                float_tensor(
                    out,
                    resize::resize(
                        values,
                        &input.shape,
                        &out.shape,
                        &node.floats("scales"),
                        coordinates,
                        interpolation,
                    ),
                )
            }
            "graph.lrn" => {
                let input = self.operand(node, 0);
                float_tensor(
                    out,
                    normalization::lrn(
                        f32s(node, &input)?,
                        &input.shape,
                        node.int("size", 1) as usize,
                        node.float("alpha", 1e-4),
                        node.float("beta", 0.75),
                        node.float("bias", 1.0),
                    ),
                )
            }
            "graph.max_pool2d" | "graph.avg_pool2d" => {
                let input = self.operand(node, 0);
                let window = Window {
                    kernel: node.usizes("kernel", [1, 1]),
                    strides: node.usizes("strides", [1, 1]),
                    pads: node.usizes("pads", [0, 0, 0, 0]),
                    dilations: node.usizes("dilations", [1, 1]),
                };
                let max = node.name == "graph.max_pool2d";
                float_tensor(
                    out,
                    pooling::pool2d(
                        f32s(node, &input)?,
                        shape4(&input.shape),
                        window,
                        shape4(&out.shape),
                        max,
                        node.flag("count_include_pad"),
                    ),
                )
            }
            "graph.global_avg_pool" => {
                let input = self.operand(node, 0);
                let spatial: usize = input.shape[2..].iter().product();
                let planes: usize = input.shape[..2].iter().product();
                float_tensor(
                    out,
                    pooling::global_avg_pool(f32s(node, &input)?, planes, spatial),
                )
            }
            "graph.reshape" | "graph.flatten" => {
                let input = self.operand(node, 0);
                typed(out, input.data.clone())
            }
            "graph.transpose" => {
                let input = self.operand(node, 0);
                let permutation: Vec<usize> = node
                    .ints("permutation", &[])
                    .iter()
                    .map(|&p| p as usize)
                    .collect();
                typed(
                    out,
                    movement::transpose(&input.data, &input.shape, &permutation),
                )
            }
            "graph.concat" | "instance.concat" => {
                let parts: Vec<Rc<Tensor>> = (0..node.operands.len())
                    .map(|i| self.operand(node, i))
                    .collect();
                let views: Vec<(&Data, &[usize])> = parts
                    .iter()
                    .map(|part| (&part.data, part.shape.as_slice()))
                    .collect();
                typed(
                    out,
                    movement::concat(&views, axis(node.int("axis", 0), out.shape.len())),
                )
            }
            "graph.slice" | "instance.slice" => {
                let input = self.operand(node, 0);
                let key = if node.name == "instance.slice" {
                    "offsets"
                } else {
                    "starts"
                };
                let starts: Vec<usize> = node.ints(key, &[]).iter().map(|&s| s as usize).collect();
                let steps: Vec<usize> = node
                    .ints("steps", &vec![1; input.shape.len()])
                    .iter()
                    .map(|&s| s as usize)
                    .collect();
                typed(
                    out,
                    movement::slice(&input.data, &input.shape, &starts, &steps, &out.shape),
                )
            }
            "graph.pad" => {
                let input = self.operand(node, 0);
                let mode = match node.keyword("mode").unwrap_or("constant") {
                    "constant" => PadMode::Constant(node.float("value", 0.0)),
                    "reflect" => PadMode::Reflect,
                    "edge" => PadMode::Edge,
                    other => return Err(unsupported(node, format!("pad mode '{other}'"))),
                };
                typed(
                    out,
                    movement::pad(
                        &input.data,
                        &input.shape,
                        &node.ints("pads", &[]),
                        mode,
                        &out.shape,
                    ),
                )
            }
            "graph.gather" => {
                let (data, indices) = (self.operand(node, 0), self.operand(node, 1));
                let Data::I64(index_values) = &indices.data else {
                    unreachable!("the verifier ensures integer indices")
                };
                let along = axis(node.int("axis", 0), data.shape.len());
                typed(
                    out,
                    movement::gather(&data.data, &data.shape, index_values, along)
                        .map_err(|m| runtime(node, m))?,
                )
            }
            "graph.broadcast" => {
                let input = self.operand(node, 0);
                typed(
                    out,
                    movement::broadcast(&input.data, &input.shape, &out.shape),
                )
            }
            "graph.cast" => typed(
                out,
                elementwise::cast(&self.operand(node, 0).data, out.element_type),
            ),
            "graph.compare" => {
                let predicate = match node.keyword("predicate") {
                    Some("eq") => Predicate::Eq,
                    Some("ne") => Predicate::Ne,
                    Some("lt") => Predicate::Lt,
                    Some("le") => Predicate::Le,
                    Some("gt") => Predicate::Gt,
                    Some("ge") => Predicate::Ge,
                    other => return Err(unsupported(node, format!("predicate {other:?}"))),
                };
                typed(
                    out,
                    elementwise::compare(
                        predicate,
                        &self.operand(node, 0),
                        &self.operand(node, 1),
                        &out.shape,
                    ),
                )
            }
            "graph.where" => typed(
                out,
                elementwise::select(
                    &self.operand(node, 0),
                    &self.operand(node, 1),
                    &self.operand(node, 2),
                    &out.shape,
                ),
            ),
            "graph.reduce_sum" => reduce(Reduction::Sum)?,
            "graph.reduce_mean" => reduce(Reduction::Mean)?,
            "graph.reduce_max" => reduce(Reduction::Max)?,
            other => return Err(unsupported(node, format!("operation '{other}'"))),
        })
    }

    fn weight(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let Some(Attr::Str(name)) = node.attributes.get("name") else {
            unreachable!("the verifier ensures graph.weight has a name")
        };
        let tensor = self
            .weights
            .get(name)
            .ok_or_else(|| runtime(node, format!("weight '{name}' is not in the weights file")))?;
        let expected = node.result_type();
        if tensor.shape != expected.shape || tensor.element_type != expected.element_type {
            return Err(runtime(
                node,
                format!(
                    "weight '{name}' is {:?} of shape {:?} in the weights file \
                     but the IR declares {:?} of shape {:?}",
                    tensor.element_type, tensor.shape, expected.element_type, expected.shape
                ),
            ));
        }
        Ok(tensor.clone())
    }
}
