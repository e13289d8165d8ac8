//! Lowering: writing the graph-dialect operations for a node that was not folded.
//!
//! One module per operator family; each function takes the node and its resolved inputs, checks
//! what the graph dialect needs (static types, float operands, constant attributes-as-inputs),
//! infers the result type and writes the operation. Constants reach the IR only here, the first
//! time an operation uses them ([`Builder::operand`]).

mod activation;
mod compose;
mod constant;
mod conv;
mod conv_transpose;
mod elementwise;
mod loss;
mod matmul;
mod movement;
mod normalization;
mod one_hot;
mod pixel_shuffle;
mod quantize;
mod recurrent;
mod reduce;
mod resize;
mod top_k;

use std::collections::HashMap;
use std::rc::Rc;

use crate::emit::{Attribute, FunctionBody, Operand};
use crate::error::ImportError;
use crate::fold::FOLD_ONLY;
use crate::node::Node;
use crate::tensor::Tensor;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// The most elements a non-splat float constant may have and still be written inline: larger
/// ones are weights, stored in the side file. Integer and boolean constants (shapes, indices,
/// masks) are always inline, as are splats, which print as one value.
pub const INLINE_LIMIT: usize = 16;

/// The function being written, with the constants it has materialised so far.
#[derive(Debug, Default)]
pub struct Builder {
    /// The operations written so far.
    pub body: FunctionBody,
    /// SSA values of the constants already written, by ONNX tensor name.
    materialized: HashMap<String, Operand>,
    /// The constants written before each open region was entered: a constant written inside a
    /// region is not visible after it.
    outer_materialized: Vec<HashMap<String, Operand>>,
    /// The tensors that `graph.weight` operations refer to, in order of first use.
    pub weights: Vec<(String, Rc<Tensor>)>,
}

impl Builder {
    /// The SSA operand of `value`: a run-time value as it is, a constant written on first use as
    /// `graph.constant` (small, integer or splat) or `graph.weight` (everything else).
    pub fn operand(&mut self, value: &Value) -> Operand {
        let (name, tensor) = match value {
            Value::Dynamic(operand) => return operand.clone(),
            Value::Const { name, tensor } => (name, tensor),
        };
        if let Some(operand) = self.materialized.get(name) {
            return operand.clone();
        }
        let operand = match tensor.broadcast_source().filter(|_| !inline(tensor)) {
            Some(source) => {
                let source = self.write_constant(name, &Rc::new(source));
                self.body
                    .op1("graph.broadcast", &[&source], &[], tensor.ty(), name)
            }
            None => self.write_constant(name, tensor),
        };
        self.materialized.insert(name.clone(), operand.clone());
        operand
    }

    /// Starts recording a region (the body of a branch or loop) whose block has arguments of
    /// `arguments`; returns the region and its arguments.
    pub fn enter_region(&mut self, arguments: Vec<TensorType>) -> (usize, Vec<Operand>) {
        self.outer_materialized.push(self.materialized.clone());
        self.body.open_region(arguments)
    }

    /// Ends the region [`Self::enter_region`] started: constants written in it are forgotten.
    pub fn leave_region(&mut self) {
        self.body.close_region();
        self.materialized = self.outer_materialized.pop().expect("a region was entered");
    }

    /// Writes `tensor` as `graph.constant` or `graph.weight` named `name`.
    fn write_constant(&mut self, name: &str, tensor: &Rc<Tensor>) -> Operand {
        if inline(tensor) {
            self.body.constant(tensor, name)
        } else {
            // A weight a region used before is in the list already: the region's op is
            // forgotten when it ends, the tensor is not.
            if !self.weights.iter().any(|(known, _)| known == name) {
                self.weights.push((name.to_owned(), Rc::clone(tensor)));
            }
            self.body.weight(name, tensor.ty(), name)
        }
    }

    /// Writes the one-result operation `name` for `node` (its location) and returns the result as
    /// a value.
    fn emit(
        &mut self,
        node: &Node,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&'static str, Attribute)],
        result: TensorType,
    ) -> Value {
        Value::Dynamic(
            self.body
                .op1(name, operands, attributes, result, &node.name),
        )
    }
}

/// Whether `tensor` is written inline as `graph.constant` rather than stored as a weight.
fn inline(tensor: &Tensor) -> bool {
    !tensor.ty().element.is_float() || tensor.data.len() <= INLINE_LIMIT || tensor.data.is_splat()
}

/// Writes the operations of `node`, returning its outputs in order.
pub fn lower(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let op = node.op_type();
    match op {
        "Conv" => conv::conv(builder, node, inputs),
        "LSTM" | "GRU" | "RNN" => recurrent::recurrent(builder, node, inputs),
        "ConvTranspose" => conv_transpose::conv_transpose(builder, node, inputs),
        "MaxPool" | "AveragePool" => conv::pool(builder, node, inputs),
        "GlobalAveragePool" | "GlobalMaxPool" => conv::global_pool(builder, node, inputs),
        "MatMul" => matmul::matmul(builder, node, inputs),
        "Gemm" => matmul::gemm(builder, node, inputs),
        "BatchNormalization" => normalization::batch_norm(builder, node, inputs),
        "LayerNormalization" => normalization::layer_norm(builder, node, inputs),
        "Softmax" => normalization::softmax(builder, node, inputs),
        "LogSoftmax" => normalization::log_softmax(builder, node, inputs),
        "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => {
            loss::loss(builder, node, inputs)
        }
        "InstanceNormalization" => normalization::instance_norm(builder, node, inputs),
        "LRN" => normalization::lrn(builder, node, inputs),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Max" | "Min" | "Mod" | "Sum" => {
            elementwise::binary(builder, node, inputs)
        }
        "Equal" | "Less" | "Greater" | "LessOrEqual" | "GreaterOrEqual" => {
            elementwise::compare(builder, node, inputs)
        }
        "Where" => elementwise::select(builder, node, inputs),
        "And" | "Or" | "Xor" | "Not" => elementwise::logical(builder, node, inputs),
        "Cast" | "CastLike" => elementwise::cast(builder, node, inputs),
        "Clip" => elementwise::clip(builder, node, inputs),
        "Gelu" => elementwise::gelu(builder, node, inputs),
        "Sqrt" | "Erf" | "Relu" | "Sigmoid" | "Tanh" | "Exp" | "Log" | "Neg" | "Abs"
        | "Reciprocal" => elementwise::unary(builder, node, inputs),
        "Reshape" | "Squeeze" | "Unsqueeze" | "Flatten" => movement::reshape(builder, node, inputs),
        "Transpose" => movement::transpose(builder, node, inputs),
        "Concat" => movement::concat(builder, node, inputs),
        "Split" => movement::split(builder, node, inputs),
        "Slice" => movement::slice(builder, node, inputs),
        "Pad" => movement::pad(builder, node, inputs),
        "Resize" => resize::resize(builder, node, inputs),
        "Gather" => movement::gather(builder, node, inputs),
        "GatherElements" => movement::gather_elements(builder, node, inputs),
        "ScatterElements" | "Scatter" => movement::scatter_elements(builder, node, inputs),
        "ArgMax" | "ArgMin" => reduce::arg_extreme(builder, node, inputs),
        "TopK" => top_k::top_k(builder, node, inputs),
        "QuantizeLinear" => quantize::quantize_linear(builder, node, inputs),
        "DequantizeLinear" => quantize::dequantize_linear(builder, node, inputs),
        "DynamicQuantizeLinear" => quantize::dynamic_quantize_linear(builder, node, inputs),
        "MatMulInteger" => quantize::matmul_integer(builder, node, inputs),
        "ConvInteger" => quantize::conv_integer(builder, node, inputs),
        "QLinearMatMul" => quantize::qlinear_matmul(builder, node, inputs),
        "QLinearConv" => quantize::qlinear_conv(builder, node, inputs),
        "Expand" => movement::expand(builder, node, inputs),
        op if reduce::OPERATORS.contains(&op) => reduce::reduce(builder, node, inputs),
        op if activation::OPERATORS.contains(&op) => activation::activation(builder, node, inputs),
        "Tile" => movement::tile(builder, node, inputs),
        "OneHot" => one_hot::one_hot(builder, node, inputs),
        "Hardmax" => one_hot::hardmax(builder, node, inputs),
        "IsNaN" | "IsInf" => elementwise::special_values(builder, node, inputs),
        "Trilu" => movement::trilu(builder, node, inputs),
        "ConstantOfShape" => constant::constant_of_shape(builder, node, inputs),
        op if FOLD_ONLY.contains(&op) => Err(node.unsupported(
            "inputs computed at run time are not supported: it computes shapes or constants, \
             which must fold at import",
        )),
        _ => Err(ImportError::UnsupportedOp {
            node: node.name.clone(),
            op_type: op.to_owned(),
        }),
    }
}

/// Input `index`, which must be a float tensor: the graph dialect's arithmetic-heavy operators
/// (convolution, activations, normalisation, reductions) are defined on floats only.
fn float_input<'a>(
    node: &Node,
    inputs: &Inputs<'a>,
    index: usize,
    what: &str,
) -> Result<&'a Value, ImportError> {
    let value = inputs.required(index, what)?;
    let element = value.ty().element;
    if !element.is_float() {
        return Err(node.unsupported(format!(
            "input {index} ({what}) of type {element} is not supported, only floats (f32, f16, \
             bf16)"
        )));
    }
    Ok(value)
}

/// `value` with shape `shape`, by `graph.reshape` when the element counts agree, else by
/// `graph.broadcast`; the value itself when it already has that shape. The caller has checked
/// that one of the two applies.
fn coerce(builder: &mut Builder, node: &Node, value: &Value, shape: &[usize]) -> Operand {
    let operand = builder.operand(value);
    if operand.ty.shape == shape {
        return operand;
    }
    let ty = TensorType::new(shape.to_vec(), operand.ty.element);
    let op = if operand.ty.num_elements() == ty.num_elements() {
        "graph.reshape"
    } else {
        "graph.broadcast"
    };
    builder.body.op1(op, &[&operand], &[], ty, &node.name)
}
