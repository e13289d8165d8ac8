//! The quantization ops: `graph.quantize`, `graph.dequantize`, `graph.requantize` and the
//! integer products `graph.matmul_integer` and `graph.conv_integer`, exact in i64.

use super::attributes::{axis, conv_window, f32s, float_tensor, shape4, typed, unsupported};
use super::Evaluator;
use crate::{
    error::InterpretError,
    kernels::{
        conv, matmul,
        quantize::{self, Parameters},
    },
    program::Node,
    tensor::{Data, ElementType, Tensor},
};

/// The integer values of an integer operand.
fn ints<'t>(node: &Node, tensor: &'t Tensor) -> Result<&'t [i64], InterpretError> {
    match &tensor.data {
        Data::I64(values) => Ok(values),
        _ => Err(unsupported(
            node,
            format!("{:?} operands (only integers are)", tensor.element_type),
        )),
    }
}

/// The range of an 8-bit integer type.
fn range(element: ElementType) -> (i64, i64) {
    match element {
        ElementType::U8 => (0, 255),
        _ => (-128, 127),
    }
}

impl Evaluator<'_> {
    /// The scales (operand 1) and zero points (operand 2) over operand 0 along the `axis`
    /// attribute, one of each per index along it (or one of each per tensor), and which one an
    /// element uses.
    fn parameters(&self, node: &Node) -> Result<(Vec<f32>, Vec<i64>, Parameters), InterpretError> {
        let (input, scale, zero) = (
            self.operand(node, 0),
            self.operand(node, 1),
            self.operand(node, 2),
        );
        let count = scale.len().max(zero.len());
        let along = if count > 1 {
            axis(node.int("axis", 1), input.shape.len())
        } else {
            0
        };
        let (scales, zeros) = (f32s(node, &scale)?, ints(node, &zero)?);
        let scales = (0..count).map(|p| scales[p % scales.len()]).collect();
        let zeros = (0..count).map(|p| zeros[p % zeros.len()]).collect();
        Ok((scales, zeros, Parameters::new(&input.shape, along, count)))
    }

    /// `graph.quantize`.
    pub(super) fn quantize(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let (scale, zero_point, parameters) = self.parameters(node)?;
        let element = input.element_type;
        let out = node.result_type();
        let values = quantize::quantize(
            f32s(node, &input)?,
            (&scale, &zero_point),
            parameters,
            |value| element.round(value),
            range(out.element_type),
        );
        Ok(typed(out, Data::I64(values)))
    }

    /// `graph.dequantize`.
    pub(super) fn dequantize(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let (scale, zero_point, parameters) = self.parameters(node)?;
        let values = quantize::dequantize(ints(node, &input)?, (&scale, &zero_point), parameters);
        Ok(float_tensor(node.result_type(), values))
    }

    /// `graph.requantize`.
    pub(super) fn requantize(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let (multiplier, zero_point, parameters) = self.parameters(node)?;
        let out = node.result_type();
        let values = quantize::requantize(
            ints(node, &input)?,
            (&multiplier, &zero_point),
            parameters,
            range(out.element_type),
        );
        Ok(typed(out, Data::I64(values)))
    }

    /// `graph.matmul_integer`: the operands less their zero points (per row of the left one, per
    /// column of the right one), multiplied exactly.
    pub(super) fn matmul_integer(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (a, b) = (self.operand(node, 0), self.operand(node, 1));
        let (a_zero, b_zero) = (self.operand(node, 2), self.operand(node, 3));
        let rank = a.shape.len();
        let rows = Parameters::new(&a.shape, rank - 2, a_zero.len());
        let columns = Parameters::new(&b.shape, b.shape.len() - 1, b_zero.len());
        let a_values = quantize::centred(ints(node, &a)?, ints(node, &a_zero)?, rows);
        let b_values = quantize::centred(ints(node, &b)?, ints(node, &b_zero)?, columns);
        let out = node.result_type();
        let values = matmul::batch_matmul(&a_values, &a.shape, &b_values, &b.shape, &out.shape);
        Ok(typed(out, Data::I64(values)))
    }

    /// `graph.conv_integer`: the input less its zero point and the filter less its zero point
    /// (per output channel), convolved exactly; padding contributes 0.
    pub(super) fn conv_integer(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (input, filter) = (self.operand(node, 0), self.operand(node, 1));
        let (input_zero, filter_zero) = (self.operand(node, 2), self.operand(node, 3));
        let per_tensor = Parameters::new(&input.shape, 0, 1);
        let per_channel = Parameters::new(&filter.shape, 0, filter_zero.len());
        let x = quantize::centred(ints(node, &input)?, ints(node, &input_zero)?, per_tensor);
        let w = quantize::centred(ints(node, &filter)?, ints(node, &filter_zero)?, per_channel);
        let filter_shape = shape4(&filter.shape);
        let window = conv_window(node, filter_shape);
        let out = node.result_type();
        let values = conv::conv2d(
            (&x, shape4(&input.shape)),
            (&w, filter_shape),
            None,
            window,
            node.int("groups", 1) as usize,
            shape4(&out.shape),
        );
        Ok(typed(out, Data::I64(values)))
    }
}
