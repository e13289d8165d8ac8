//! Evaluation of a [`Program`]: values flow through an environment indexed by value id, each op
//! dispatches to its kernel, regions of `graph.if` and `graph.loop` run recursively, and
//! `func.call` runs its callee's body in an environment of its own.

mod attributes;
mod calls;
mod compute;
mod layout;
mod quantize;
mod regions;

use crate::kernels::reduction::Extreme;
use crate::{
    error::InterpretError,
    program::{Attr, Block, Function, Node, Program, ValueId},
    tensor::{ElementType, Tensor},
    weights::Weights,
};
use attributes::{runtime, unsupported};
use compute::{binary_op, reduction_kind, unary_op};
use std::{collections::BTreeMap, rc::Rc};

pub use calls::MAX_CALL_DEPTH;
pub use regions::MAX_LOOP_ITERATIONS;

/// Runs `program` on `inputs` (one per function argument, in order) and returns its results.
///
/// A program that calls functions is evaluated on a thread of its own whose stack holds
/// [`MAX_CALL_DEPTH`] nested calls; a call nested deeper is an error, as is a `graph.loop`
/// still running after [`MAX_LOOP_ITERATIONS`] iterations.
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
    if program.callees.is_empty() {
        return evaluate(program, inputs, weights);
    }
    calls::on_deep_stack(program, move || evaluate(program, inputs, weights))
}

/// Runs `program` on `inputs`, which match its arguments, on the current thread.
fn evaluate(
    program: &Program,
    inputs: Vec<Tensor>,
    weights: &Weights,
) -> Result<Vec<Tensor>, InterpretError> {
    let mut evaluator = Evaluator {
        values: vec![None; program.value_count],
        weights,
        callees: &program.callees,
        depth: 0,
    };
    let results = evaluator.run(&program.body, inputs.into_iter().map(Rc::new).collect())?;
    Ok(results
        .into_iter()
        .map(|tensor| Rc::try_unwrap(tensor).unwrap_or_else(|shared| (*shared).clone()))
        .collect())
}

/// The state of one evaluation: every value of the running function computed so far, by value
/// id, and what calls need.
struct Evaluator<'p> {
    /// The environment of the function running now.
    values: Vec<Option<Rc<Tensor>>>,
    weights: &'p Weights,
    /// The functions `func.call` may run.
    callees: &'p BTreeMap<String, Function>,
    /// How many calls are running: 0 in the program's own body.
    depth: usize,
}

impl Evaluator<'_> {
    /// Runs `block` on `arguments` and returns the operands of its terminator.
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

    /// The value `id` holds.
    fn value(&self, id: ValueId) -> Rc<Tensor> {
        self.values[id]
            .clone()
            .expect("SSA dominance guarantees a value is defined before its use")
    }

    /// The value of operand `index` of `node`.
    fn operand(&self, node: &Node, index: usize) -> Rc<Tensor> {
        self.value(node.operands[index])
    }

    /// Evaluates `node` and returns its results, each rounded or wrapped to the element type
    /// the op declares for it: kernels compute f16 and bf16 in f32 and narrow integers in i64,
    /// and this is the one place their results become values of the declared types.
    fn eval(&mut self, node: &Node) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        if let Some(results) = self.eval_structured(node)? {
            return Ok(results);
        }
        let results = if let Some(results) = self.eval_multi(node)? {
            results
        } else {
            vec![self.eval_single(node)?]
        };
        Ok(results
            .into_iter()
            .zip(&node.results)
            .map(|(tensor, (_, declared))| Rc::new(tensor.conform(declared.element_type)))
            .collect())
    }

    /// Ops with several results.
    fn eval_multi(&self, node: &Node) -> Result<Option<Vec<Tensor>>, InterpretError> {
        match node.name.as_str() {
            "graph.split" => Ok(Some(self.split(node))),
            "graph.top_k" => self.top_k(node).map(Some),
            _ => Ok(None),
        }
    }

    /// Ops with one result: each dispatches to its kernel.
    fn eval_single(&self, node: &Node) -> Result<Tensor, InterpretError> {
        if let Some(op) = binary_op(node) {
            return self.binary(node, op);
        }
        if let Some(op) = unary_op(node) {
            return self.unary(node, op);
        }
        if let Some(kind) = reduction_kind(node) {
            return self.reduce(node, kind);
        }
        Ok(match node.name.as_str() {
            "graph.constant" => constant(node)?,
            "graph.weight" => self.weight(node)?,
            "graph.conv2d" => self.conv2d(node)?,
            "graph.matmul" | "graph.batch_matmul" => self.matmul(node)?,
            "graph.gemm" => self.gemm(node)?,
            "graph.batch_norm" => self.batch_norm(node)?,
            "graph.layer_norm" => self.layer_norm(node)?,
            "graph.softmax" => self.softmax(node)?,
            "graph.resize" => self.resize(node)?,
            "graph.lrn" => self.lrn(node)?,
            "graph.max_pool2d" | "graph.avg_pool2d" => self.pool2d(node)?,
            "graph.global_avg_pool" => self.global_avg_pool(node)?,
            "graph.reshape" | "graph.flatten" => self.reshape(node),
            "graph.transpose" => self.transpose(node),
            "graph.concat" | "instance.concat" => self.concat(node),
            "graph.slice" | "instance.slice" => self.slice(node),
            "graph.pad" => self.pad(node)?,
            "graph.gather" => self.gather(node)?,
            "graph.gather_elements" => self.gather_elements(node)?,
            "graph.scatter_elements" => self.scatter_elements(node)?,
            "graph.argmax" => self.arg_extreme(node, Extreme::Max)?,
            "graph.argmin" => self.arg_extreme(node, Extreme::Min)?,
            "graph.broadcast" => self.broadcast(node),
            "graph.cast" => self.cast(node),
            "graph.compare" => self.compare(node)?,
            "graph.where" => self.select(node),
            "graph.quantize" => self.quantize(node)?,
            "graph.dequantize" => self.dequantize(node)?,
            "graph.requantize" => self.requantize(node)?,
            "graph.matmul_integer" => self.matmul_integer(node)?,
            "graph.conv_integer" => self.conv_integer(node)?,
            other => return Err(unsupported(node, format!("operation '{other}'"))),
        })
    }

    /// `graph.weight`: the named tensor of the weights file, which must have the declared type,
    /// or be f32 where the IR declares f16 or bf16 (a model whose precision was reduced keeps
    /// its f32 weights file): then it is rounded to the declared type.
    fn weight(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let Some(Attr::Str(name)) = node.attributes.get("name") else {
            unreachable!("the verifier ensures graph.weight has a name")
        };
        let tensor = self
            .weights
            .get(name)
            .ok_or_else(|| runtime(node, format!("weight '{name}' is not in the weights file")))?;
        let expected = node.result_type();
        let narrowed = tensor.element_type == ElementType::F32
            && matches!(expected.element_type, ElementType::F16 | ElementType::Bf16);
        if tensor.shape != expected.shape
            || (tensor.element_type != expected.element_type && !narrowed)
        {
            return Err(runtime(
                node,
                format!(
                    "weight '{name}' is {:?} of shape {:?} in the weights file \
                     but the IR declares {:?} of shape {:?}",
                    tensor.element_type, tensor.shape, expected.element_type, expected.shape
                ),
            ));
        }
        Ok(tensor.clone().conform(expected.element_type))
    }
}

/// `graph.constant`: its dense elements attribute.
fn constant(node: &Node) -> Result<Tensor, InterpretError> {
    match node.attributes.get("value") {
        Some(Attr::Dense(tensor)) => Ok(tensor.clone()),
        _ => Err(unsupported(
            node,
            "a constant that is not a dense elements attribute",
        )),
    }
}
