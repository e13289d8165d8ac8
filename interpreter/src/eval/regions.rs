//! Ops with regions and scheduling ops: groups, cluster shares, `graph.if` and `graph.loop`,
//! whose bodies run recursively, `func.call`, and the copies between scopes, which change no
//! value.

use super::attributes::{runtime, scalar_bool, scalar_i64, typed};
use super::Evaluator;
use crate::{
    error::InterpretError,
    kernels::movement,
    program::Node,
    tensor::{Data, ElementType, Tensor},
};
use std::rc::Rc;

/// The most iterations one evaluation of a `graph.loop` runs: a loop whose trip count and
/// condition would run it further is an error at its location rather than a hang. It equals
/// the default loop limit of the runtime's device watchdog.
pub const MAX_LOOP_ITERATIONS: u64 = 1 << 20;

impl Evaluator<'_> {
    /// Evaluates `node` when it has regions or only moves values between scopes; `None` for
    /// any other op.
    pub(super) fn eval_structured(
        &mut self,
        node: &Node,
    ) -> Result<Option<Vec<Rc<Tensor>>>, InterpretError> {
        let results = match node.name.as_str() {
            // A group (GraphTurbo §3.2) computes its body on its operands: grouping never changes
            // the numbers.
            "instance.group" | "instance.instance" => {
                let operands = (0..node.operands.len())
                    .map(|i| self.operand(node, i))
                    .collect();
                self.run(&node.regions[0], operands)?
            }
            "instance.clusters" => self.clusters(node)?,
            // Data movement between scopes and bindings (GraphTurbo §3.5) leaves the values as
            // they are.
            "instance.copy" | "instance.redistribute" => vec![self.operand(node, 0)],
            "graph.if" => {
                let branch = if scalar_bool(&self.operand(node, 0)) {
                    0
                } else {
                    1
                };
                self.run(&node.regions[branch], Vec::new())?
            }
            "graph.loop" => self.run_loop(node)?,
            "func.call" => self.call(node)?,
            _ => return Ok(None),
        };
        Ok(Some(results))
    }

    /// `instance.clusters`: each cluster runs the body on its share of the operands; the results
    /// are the clusters' shares put together (a result every cluster computes alike is taken
    /// once).
    fn clusters(&mut self, node: &Node) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        let count = node.int("count", 1) as usize;
        let result_dims = node.ints("result_dims", &[]);
        let mut shares: Vec<Vec<Rc<Tensor>>> = Vec::with_capacity(count);
        for cluster in 0..count {
            let arguments = self.cluster_share(node, cluster);
            shares.push(self.run(&node.regions[0], arguments)?);
        }
        Ok(node
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
            .collect())
    }

    /// The operands of `instance.clusters` as cluster `cluster` sees them: its slice along the
    /// operand's `input_dims` entry, or the whole operand where that entry is negative.
    fn cluster_share(&self, node: &Node, cluster: usize) -> Vec<Rc<Tensor>> {
        let input_dims = node.ints("input_dims", &[]);
        let body = &node.regions[0];
        (0..node.operands.len())
            .map(|i| {
                let operand = self.operand(node, i);
                if input_dims[i] < 0 {
                    return operand;
                }
                let shape = &body.arguments[i].1.shape;
                let mut starts = vec![0; shape.len()];
                starts[input_dims[i] as usize] = cluster * shape[input_dims[i] as usize];
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
            .collect()
    }

    /// `graph.loop`: runs the body while the iteration count is below the limit and the
    /// condition holds, carrying the loop-carried values from one iteration to the next; an
    /// error when that is more than [`MAX_LOOP_ITERATIONS`] iterations.
    fn run_loop(&mut self, node: &Node) -> Result<Vec<Rc<Tensor>>, InterpretError> {
        let limit = scalar_i64(&self.operand(node, 0));
        let mut condition = scalar_bool(&self.operand(node, 1));
        let mut carried: Vec<Rc<Tensor>> = (2..node.operands.len())
            .map(|i| self.operand(node, i))
            .collect();
        let mut iteration = 0i64;
        while iteration < limit && condition {
            if iteration as u64 == MAX_LOOP_ITERATIONS {
                return Err(runtime(
                    node,
                    format!(
                        "the condition still holds after {MAX_LOOP_ITERATIONS} iterations, the \
                         interpreter's bound on the iterations of a loop"
                    ),
                ));
            }
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
        Ok(carried)
    }
}
