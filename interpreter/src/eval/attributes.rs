//! What the evaluation of every op shares: attribute accessors with the dialect's defaults,
//! operand and result conversions, and the errors naming the op.

use crate::{
    error::InterpretError,
    kernels::{elementwise::Unary, Window},
    program::{Attr, Node, TensorType},
    tensor::{Data, Tensor},
};

/// A failure while evaluating `node`, the message prefixed with the op's name.
pub(super) fn runtime(node: &Node, message: impl Into<String>) -> InterpretError {
    InterpretError::Runtime {
        location: node.location.clone(),
        message: format!("'{}': {}", node.name, message.into()),
    }
}

/// `node` uses something the interpreter does not implement.
pub(super) fn unsupported(node: &Node, message: impl Into<String>) -> InterpretError {
    InterpretError::Unsupported {
        location: node.location.clone(),
        message: message.into(),
    }
}

/// Attribute accessors with ODS defaults; the verifier guarantees types and ranges.
impl Node {
    pub(super) fn ints(&self, name: &str, default: &[i64]) -> Vec<i64> {
        match self.attributes.get(name) {
            Some(Attr::Ints(values)) => values.clone(),
            _ => default.to_vec(),
        }
    }

    pub(super) fn usizes<const N: usize>(&self, name: &str, default: [i64; N]) -> [usize; N] {
        let values = self.ints(name, &default);
        std::array::from_fn(|i| values[i] as usize)
    }

    pub(super) fn int(&self, name: &str, default: i64) -> i64 {
        match self.attributes.get(name) {
            Some(Attr::Int(value)) => *value,
            _ => default,
        }
    }

    pub(super) fn floats(&self, name: &str) -> Vec<f32> {
        match self.attributes.get(name) {
            Some(Attr::Floats(values)) => values.clone(),
            _ => Vec::new(),
        }
    }

    pub(super) fn float(&self, name: &str, default: f32) -> f32 {
        match self.attributes.get(name) {
            Some(Attr::Float(value)) => *value as f32,
            _ => default,
        }
    }

    pub(super) fn flag(&self, name: &str) -> bool {
        matches!(self.attributes.get(name), Some(Attr::Bool(true)))
    }

    pub(super) fn keyword(&self, name: &str) -> Option<&str> {
        match self.attributes.get(name) {
            Some(Attr::Keyword(value)) => Some(value),
            _ => None,
        }
    }

    pub(super) fn result_type(&self) -> &TensorType {
        &self.results[0].1
    }
}

/// Normalises an axis that may count from the end (the verifier checked its range).
pub(super) fn axis(axis: i64, rank: usize) -> usize {
    if axis < 0 {
        (axis + rank as i64) as usize
    } else {
        axis as usize
    }
}

/// The values of a float operand (f32, f16 or bf16, all held as f32); other element types are
/// not supported by the float kernels.
pub(super) fn f32s<'t>(node: &Node, tensor: &'t Tensor) -> Result<&'t [f32], InterpretError> {
    tensor.as_f32().ok_or_else(|| {
        unsupported(
            node,
            format!("{:?} operands (only floats are)", tensor.element_type),
        )
    })
}

/// The value of an i64 scalar operand.
pub(super) fn scalar_i64(tensor: &Tensor) -> i64 {
    match &tensor.data {
        Data::I64(values) => values[0],
        _ => unreachable!("the verifier ensures an i64 scalar"),
    }
}

/// The value of an i1 scalar operand.
pub(super) fn scalar_bool(tensor: &Tensor) -> bool {
    match &tensor.data {
        Data::Bool(values) => values[0],
        _ => unreachable!("the verifier ensures an i1 scalar"),
    }
}

/// A float tensor of `r#type` holding `values` computed in f32.
pub(super) fn float_tensor(r#type: &TensorType, values: Vec<f32>) -> Tensor {
    typed(r#type, Data::F32(values))
}

/// A tensor of `r#type` holding `data`.
pub(super) fn typed(r#type: &TensorType, data: Data) -> Tensor {
    Tensor {
        shape: r#type.shape.clone(),
        element_type: r#type.element_type,
        data,
    }
}

/// The activation fused into `node` (its `activation` attribute), if any.
pub(super) fn activation(node: &Node) -> Result<Option<Unary>, InterpretError> {
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

/// The window of convolution `node` with a filter of `filter_shape` (OIHW): the filter's extent,
/// and the strides, pads and dilations with the dialect's defaults.
pub(super) fn conv_window(node: &Node, filter_shape: [usize; 4]) -> Window {
    Window {
        kernel: [filter_shape[2], filter_shape[3]],
        strides: node.usizes("strides", [1, 1]),
        pads: node.usizes("pads", [0, 0, 0, 0]),
        dilations: node.usizes("dilations", [1, 1]),
    }
}

/// A rank-4 shape as an array.
pub(super) fn shape4(shape: &[usize]) -> [usize; 4] {
    [shape[0], shape[1], shape[2], shape[3]]
}
