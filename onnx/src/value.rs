//! What an ONNX tensor name stands for during the import: a constant known now, or an SSA value of
//! the function being written. Constants stay in Rust until an operator that cannot be folded
//! needs them, which is how shape subgraphs disappear.

use std::rc::Rc;

use crate::emit::Operand;
use crate::error::ImportError;
use crate::node::Node;
use crate::tensor::Tensor;
use crate::types::TensorType;

/// The value of an ONNX tensor.
#[derive(Clone, Debug)]
pub enum Value {
    /// Known at import time: an initializer, a `Constant`, or the result of folding.
    Const {
        /// The ONNX tensor name (the weight's name if it becomes one).
        name: String,
        /// The elements.
        tensor: Rc<Tensor>,
    },
    /// Computed at run time by the operation that defines this SSA value.
    Dynamic(Operand),
}

impl Value {
    /// The value's type.
    pub fn ty(&self) -> TensorType {
        match self {
            Self::Const { tensor, .. } => tensor.ty(),
            Self::Dynamic(operand) => operand.ty.clone(),
        }
    }

    /// The elements, when known at import time.
    pub fn as_const(&self) -> Option<&Tensor> {
        match self {
            Self::Const { tensor, .. } => Some(tensor),
            Self::Dynamic(_) => None,
        }
    }
}

/// The inputs of one node, resolved, with the accessors that name the node in their errors.
pub struct Inputs<'a> {
    node: &'a Node<'a>,
    values: &'a [Option<Value>],
}

impl<'a> Inputs<'a> {
    /// The resolved inputs of `node`; `None` stands for an omitted optional input.
    pub fn new(node: &'a Node<'a>, values: &'a [Option<Value>]) -> Self {
        Self { node, values }
    }

    /// Input `index` when present.
    pub fn get(&self, index: usize) -> Option<&'a Value> {
        self.values.get(index).and_then(Option::as_ref)
    }

    /// The present inputs in order.
    pub fn present(&self) -> impl Iterator<Item = &'a Value> {
        self.values.iter().flatten()
    }

    /// Whether every present input is a constant.
    pub fn all_const(&self) -> bool {
        self.present().all(|value| value.as_const().is_some())
    }

    /// Input `index`, which the operator requires; `what` names it as the ONNX specification does.
    pub fn required(&self, index: usize, what: &str) -> Result<&'a Value, ImportError> {
        self.get(index).ok_or_else(|| {
            self.node
                .invalid(format!("input {index} ({what}) is missing"))
        })
    }

    /// Input `index` when present, which must then be a constant: the graph dialect takes it as an
    /// attribute (a shape, axes, pads, clip bounds).
    pub fn constant(&self, index: usize, what: &str) -> Result<Option<&'a Tensor>, ImportError> {
        match self.get(index) {
            None => Ok(None),
            Some(value) => value.as_const().map(Some).ok_or_else(|| {
                self.node.unsupported(format!(
                    "input {index} ({what}) is computed at run time, which is not supported: \
                     it must be a constant"
                ))
            }),
        }
    }

    /// A constant integer input as a list (shapes, axes, starts, pads).
    pub fn ints(&self, index: usize, what: &str) -> Result<Option<Vec<i64>>, ImportError> {
        match self.constant(index, what)? {
            None => Ok(None),
            Some(tensor) => tensor.to_i64s().map(Some).ok_or_else(|| {
                self.node
                    .invalid(format!("input {index} ({what}) must hold integers"))
            }),
        }
    }

    /// A required constant integer input as a list.
    pub fn required_ints(&self, index: usize, what: &str) -> Result<Vec<i64>, ImportError> {
        self.required(index, what)?;
        Ok(self.ints(index, what)?.unwrap_or_default())
    }
}
