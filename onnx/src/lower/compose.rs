//! Writing one ONNX node as several graph-dialect operations: the operators that the dialect has
//! no single operation for (the parametric activations, `LogSoftmax`, the derived reductions,
//! `InstanceNormalization`, `Tile`) are composed from the ones it has, so that every schedule
//! compiles them with no new kernel. Every operation carries the node's name as its location.

use crate::emit::{Attribute, Operand};
use crate::error::ImportError;
use crate::node::Node;
use crate::shape;
use crate::tensor::{Data, Tensor};
use crate::types::{ElementType, TensorType};

use super::Builder;

/// The operations of one node being composed.
pub(super) struct Compose<'b, 'n> {
    builder: &'b mut Builder,
    node: &'n Node<'n>,
}

impl<'b, 'n> Compose<'b, 'n> {
    pub(super) fn new(builder: &'b mut Builder, node: &'n Node<'n>) -> Self {
        Self { builder, node }
    }

    /// An error for the node: it breaks the ONNX specification.
    pub(super) fn invalid(&self, message: impl Into<String>) -> ImportError {
        self.node.invalid(message)
    }

    /// The node being composed.
    pub(super) fn node(&self) -> &Node<'n> {
        self.node
    }

    /// The location of the node's operations: its name.
    pub(super) fn location(&self) -> &str {
        &self.node.name
    }

    /// The builder, for operands and single operations.
    pub(super) fn builder(&mut self) -> &mut Builder {
        self.builder
    }

    /// `op` applied to `x`, with `x`'s type.
    pub(super) fn unary(&mut self, op: &str, x: &Operand) -> Operand {
        self.op(op, &[x], &[], x.ty.clone())
    }

    /// `op` applied to `x` with `attributes` (`graph.clip`, `graph.softmax`), with `x`'s type.
    pub(super) fn unary_with(
        &mut self,
        op: &str,
        x: &Operand,
        attributes: &[(&'static str, Attribute)],
    ) -> Operand {
        self.op(op, &[x], attributes, x.ty.clone())
    }

    /// The binary `op` of `lhs` and `rhs`, broadcast as numpy does.
    pub(super) fn binary(
        &mut self,
        op: &str,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Result<Operand, ImportError> {
        let shape = shape::broadcast(&lhs.ty.shape, &rhs.ty.shape)
            .map_err(|message| self.node.invalid(message))?;
        Ok(self.op(op, &[lhs, rhs], &[], TensorType::new(shape, lhs.ty.element)))
    }

    /// A rank-0 constant of the float type `element` holding `value` (rounded to it).
    pub(super) fn scalar(&mut self, element: ElementType, value: f32) -> Operand {
        let tensor = Tensor::new(Vec::new(), Data::F32(vec![value]).convert(element));
        self.builder.body.constant(&tensor, &self.node.name)
    }

    /// A rank-0 boolean constant.
    pub(super) fn boolean(&mut self, value: bool) -> Operand {
        let tensor = Tensor::new(Vec::new(), Data::Bool(vec![value]));
        self.builder.body.constant(&tensor, &self.node.name)
    }

    /// A rank-0 integer constant of `element` (i32, or i64 for any other type).
    pub(super) fn integer(&mut self, element: ElementType, value: i64) -> Operand {
        let data = match element {
            ElementType::I32 => Data::I32(vec![value as i32]),
            _ => Data::I64(vec![value]),
        };
        let tensor = Tensor::new(Vec::new(), data);
        self.builder.body.constant(&tensor, &self.node.name)
    }

    /// `log_softmax(x)` along `axis` (normalised): `x - m - log(sum(exp(x - m)))` with `m` the
    /// maximum, so that `exp` never overflows.
    pub(super) fn log_softmax(&mut self, x: &Operand, axis: usize) -> Result<Operand, ImportError> {
        let max = self.reduce("graph.reduce_max", x, &[axis], true);
        let shifted = self.binary("graph.sub", x, &max)?;
        let exp = self.unary("graph.exp", &shifted);
        let sum = self.reduce("graph.reduce_sum", &exp, &[axis], true);
        let log = self.unary("graph.log", &sum);
        self.binary("graph.sub", &shifted, &log)
    }

    /// `x` multiplied by the constant `factor`.
    pub(super) fn scaled(&mut self, x: &Operand, factor: f32) -> Result<Operand, ImportError> {
        let factor = self.scalar(x.ty.element, factor);
        self.binary("graph.mul", x, &factor)
    }

    /// `x` plus the constant `addend`.
    pub(super) fn shifted(&mut self, x: &Operand, addend: f32) -> Result<Operand, ImportError> {
        let addend = self.scalar(x.ty.element, addend);
        self.binary("graph.add", x, &addend)
    }

    /// `x` clamped to `[min, max]`.
    pub(super) fn clip(&mut self, x: &Operand, min: f32, max: f32) -> Operand {
        let attributes = [
            ("min", Attribute::Float(min)),
            ("max", Attribute::Float(max)),
        ];
        self.unary_with("graph.clip", x, &attributes)
    }

    /// The reduction `op` (`graph.reduce_sum`, `_mean`, `_max`) of `x` over `axes` (normalised,
    /// ascending).
    pub(super) fn reduce(
        &mut self,
        op: &str,
        x: &Operand,
        axes: &[usize],
        keepdims: bool,
    ) -> Operand {
        let shape =
            x.ty.shape
                .iter()
                .enumerate()
                .filter_map(|(axis, &size)| match axes.contains(&axis) {
                    true if keepdims => Some(1),
                    true => None,
                    false => Some(size),
                })
                .collect();
        let attributes = [
            (
                "axes",
                Attribute::Ints(axes.iter().map(|&axis| axis as i64).collect()),
            ),
            ("keepdims", Attribute::Bool(keepdims)),
        ];
        self.op(op, &[x], &attributes, TensorType::new(shape, x.ty.element))
    }

    /// `x` with shape `shape` (the same number of elements).
    pub(super) fn reshape(&mut self, x: &Operand, shape: Vec<usize>) -> Operand {
        if x.ty.shape == shape {
            return x.clone();
        }
        let ty = TensorType::new(shape, x.ty.element);
        self.op("graph.reshape", &[x], &[], ty)
    }

    /// `x` broadcast to `shape`.
    pub(super) fn broadcast(&mut self, x: &Operand, shape: Vec<usize>) -> Operand {
        if x.ty.shape == shape {
            return x.clone();
        }
        let ty = TensorType::new(shape, x.ty.element);
        self.op("graph.broadcast", &[x], &[], ty)
    }

    /// `graph.compare` of `lhs` and `rhs` with `predicate` (`gt`, `lt`, ...): a boolean tensor.
    pub(super) fn compare(
        &mut self,
        predicate: &'static str,
        lhs: &Operand,
        rhs: &Operand,
    ) -> Result<Operand, ImportError> {
        let shape = shape::broadcast(&lhs.ty.shape, &rhs.ty.shape)
            .map_err(|message| self.node.invalid(message))?;
        let attributes = [("predicate", Attribute::Enum("predicate", predicate))];
        let ty = TensorType::new(shape, ElementType::Bool);
        Ok(self.op("graph.compare", &[lhs, rhs], &attributes, ty))
    }

    /// `graph.where`: `then` where `condition` holds, else `otherwise`.
    pub(super) fn select(
        &mut self,
        condition: &Operand,
        then: &Operand,
        otherwise: &Operand,
    ) -> Result<Operand, ImportError> {
        let mut shape = condition.ty.shape.clone();
        for operand in [then, otherwise] {
            shape = shape::broadcast(&shape, &operand.ty.shape)
                .map_err(|message| self.node.invalid(message))?;
        }
        let ty = TensorType::new(shape, then.ty.element);
        Ok(self.op("graph.where", &[condition, then, otherwise], &[], ty))
    }

    /// The operation `name` of `operands` with one result of type `result`.
    pub(super) fn op(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&'static str, Attribute)],
        result: TensorType,
    ) -> Operand {
        self.builder
            .body
            .op1(name, operands, attributes, result, &self.node.name)
    }
}
