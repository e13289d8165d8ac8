//! The data-movement ops (reshape, transpose, concat, slice, split, pad, gather, broadcast) and
//! the element-type ops (cast, compare, where): they rearrange or select values of any type.

use super::attributes::{axis, runtime, typed, unsupported};
use super::Evaluator;
use crate::{
    error::InterpretError,
    kernels::{
        elementwise, elementwise::Predicate, movement, movement::PadMode,
        movement::ScatterReduction,
    },
    program::Node,
    tensor::{Data, Tensor},
};
use std::rc::Rc;

impl Evaluator<'_> {
    /// `graph.split`: consecutive slices along `axis`, one per result.
    pub(super) fn split(&self, node: &Node) -> Vec<Tensor> {
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
        results
    }

    /// `graph.reshape` and `graph.flatten`: the same elements in the result's shape.
    pub(super) fn reshape(&self, node: &Node) -> Tensor {
        let input = self.operand(node, 0);
        typed(node.result_type(), input.data.clone())
    }

    /// `graph.transpose` by its `permutation`.
    pub(super) fn transpose(&self, node: &Node) -> Tensor {
        let input = self.operand(node, 0);
        let permutation: Vec<usize> = node
            .ints("permutation", &[])
            .iter()
            .map(|&p| p as usize)
            .collect();
        typed(
            node.result_type(),
            movement::transpose(&input.data, &input.shape, &permutation),
        )
    }

    /// `graph.concat` and `instance.concat` along `axis`.
    pub(super) fn concat(&self, node: &Node) -> Tensor {
        let out = node.result_type();
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

    /// `graph.slice` (from `starts`) and `instance.slice` (from `offsets`), with `steps`.
    pub(super) fn slice(&self, node: &Node) -> Tensor {
        let out = node.result_type();
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

    /// `graph.pad` in its constant, reflect or edge mode.
    pub(super) fn pad(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let input = self.operand(node, 0);
        let mode = match node.keyword("mode").unwrap_or("constant") {
            "constant" => PadMode::Constant(node.float("value", 0.0)),
            "reflect" => PadMode::Reflect,
            "edge" => PadMode::Edge,
            other => return Err(unsupported(node, format!("pad mode '{other}'"))),
        };
        Ok(typed(
            out,
            movement::pad(
                &input.data,
                &input.shape,
                &node.ints("pads", &[]),
                mode,
                &out.shape,
            ),
        ))
    }

    /// `graph.gather` along `axis`; an index out of range is a runtime error.
    pub(super) fn gather(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (data, indices) = (self.operand(node, 0), self.operand(node, 1));
        let Data::I64(index_values) = &indices.data else {
            unreachable!("the verifier ensures integer indices")
        };
        let along = axis(node.int("axis", 0), data.shape.len());
        Ok(typed(
            node.result_type(),
            movement::gather(&data.data, &data.shape, index_values, along)
                .map_err(|m| runtime(node, m))?,
        ))
    }

    /// `graph.gather_elements` along `axis`; an index out of range is a runtime error.
    pub(super) fn gather_elements(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (data, indices) = (self.operand(node, 0), self.operand(node, 1));
        let Data::I64(index_values) = &indices.data else {
            unreachable!("the verifier ensures integer indices")
        };
        let along = axis(node.int("axis", 0), data.shape.len());
        Ok(typed(
            node.result_type(),
            movement::gather_elements(&data.data, &data.shape, index_values, &indices.shape, along)
                .map_err(|m| runtime(node, m))?,
        ))
    }

    /// `graph.scatter_elements` along `axis` with its `reduction`; an index out of range is a
    /// runtime error.
    pub(super) fn scatter_elements(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (data, indices, updates) = (
            self.operand(node, 0),
            self.operand(node, 1),
            self.operand(node, 2),
        );
        let Data::I64(index_values) = &indices.data else {
            unreachable!("the verifier ensures integer indices")
        };
        let reduction = match node.keyword("reduction").unwrap_or("none") {
            "none" => ScatterReduction::None,
            "add" => ScatterReduction::Add,
            "mul" => ScatterReduction::Mul,
            "max" => ScatterReduction::Max,
            "min" => ScatterReduction::Min,
            other => return Err(unsupported(node, format!("reduction {other:?}"))),
        };
        let along = axis(node.int("axis", 0), data.shape.len());
        Ok(typed(
            node.result_type(),
            movement::scatter_elements(
                &data.data,
                &data.shape,
                (index_values, &indices.shape),
                &updates.data,
                along,
                reduction,
            )
            .map_err(|m| runtime(node, m))?,
        ))
    }

    /// `graph.broadcast` to the result's shape.
    pub(super) fn broadcast(&self, node: &Node) -> Tensor {
        let out = node.result_type();
        let input = self.operand(node, 0);
        typed(
            out,
            movement::broadcast(&input.data, &input.shape, &out.shape),
        )
    }

    /// `graph.cast` to the result's element type.
    pub(super) fn cast(&self, node: &Node) -> Tensor {
        let out = node.result_type();
        typed(
            out,
            elementwise::cast(&self.operand(node, 0).data, out.element_type),
        )
    }

    /// `graph.compare` by its `predicate`, broadcasting its operands.
    pub(super) fn compare(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let predicate = match node.keyword("predicate") {
            Some("eq") => Predicate::Eq,
            Some("ne") => Predicate::Ne,
            Some("lt") => Predicate::Lt,
            Some("le") => Predicate::Le,
            Some("gt") => Predicate::Gt,
            Some("ge") => Predicate::Ge,
            other => return Err(unsupported(node, format!("predicate {other:?}"))),
        };
        Ok(typed(
            out,
            elementwise::compare(
                predicate,
                &self.operand(node, 0),
                &self.operand(node, 1),
                &out.shape,
            ),
        ))
    }

    /// `graph.where`: the second operand where the condition holds, else the third.
    pub(super) fn select(&self, node: &Node) -> Tensor {
        let out = node.result_type();
        typed(
            out,
            elementwise::select(
                &self.operand(node, 0),
                &self.operand(node, 1),
                &self.operand(node, 2),
                &out.shape,
            ),
        )
    }
}
