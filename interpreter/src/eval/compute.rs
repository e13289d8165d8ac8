//! The compute ops: elementwise arithmetic and activations, reductions, convolution, matrix
//! products, normalisations, resizing and pooling, each evaluated by its kernel.

use super::attributes::unsupported;
use super::attributes::{
    activation, axis, conv_window, f32s, float_tensor, runtime, shape4, typed,
};
use super::Evaluator;
use crate::{
    error::InterpretError,
    kernels::{
        conv, elementwise,
        elementwise::{Binary, Unary},
        matmul, normalization, pooling,
        reduction::{self, Extreme, Reduction},
        resize::{self, Coordinates, Interpolation, Rounding},
        Window,
    },
    program::Node,
    tensor::{Data, Tensor},
};
use std::rc::Rc;

/// The binary elementwise operation `node` computes, if it is one.
pub(super) fn binary_op(node: &Node) -> Option<Binary> {
    Some(match node.name.as_str() {
        "graph.add" => Binary::Add,
        "graph.sub" => Binary::Sub,
        "graph.mul" => Binary::Mul,
        "graph.div" => Binary::Div,
        "graph.pow" => Binary::Pow,
        "graph.max" => Binary::Max,
        "graph.min" => Binary::Min,
        "graph.mod" => Binary::Mod {
            fmod: node.flag("fmod"),
        },
        _ => return None,
    })
}

/// The unary elementwise operation `node` computes, if it is one.
pub(super) fn unary_op(node: &Node) -> Option<Unary> {
    Some(match node.name.as_str() {
        "graph.relu" => Unary::Relu,
        "graph.sigmoid" => Unary::Sigmoid,
        "graph.tanh" => Unary::Tanh,
        "graph.silu" => Unary::Silu,
        "graph.gelu" => Unary::Gelu {
            approximate: node.flag("approximate"),
        },
        "graph.erf" => Unary::Erf,
        "graph.sqrt" => Unary::Sqrt,
        "graph.exp" => Unary::Exp,
        "graph.log" => Unary::Log,
        "graph.neg" => Unary::Neg,
        "graph.abs" => Unary::Abs,
        "graph.reciprocal" => Unary::Reciprocal,
        "graph.clip" => Unary::Clip {
            min: node.float("min", f32::MIN),
            max: node.float("max", f32::MAX),
        },
        _ => return None,
    })
}

/// The reduction `node` computes, if it is one.
pub(super) fn reduction_kind(node: &Node) -> Option<Reduction> {
    Some(match node.name.as_str() {
        "graph.reduce_sum" => Reduction::Sum,
        "graph.reduce_mean" => Reduction::Mean,
        "graph.reduce_max" => Reduction::Max,
        "graph.reduce_prod" => Reduction::Prod,
        _ => return None,
    })
}

/// How `graph.resize` maps output coordinates to input coordinates.
fn resize_coordinates(node: &Node) -> Result<Coordinates, InterpretError> {
    Ok(match node.keyword("coordinates").unwrap_or("half_pixel") {
        "half_pixel" => Coordinates::HalfPixel,
        "pytorch_half_pixel" => Coordinates::PytorchHalfPixel,
        "align_corners" => Coordinates::AlignCorners,
        "asymmetric" => Coordinates::Asymmetric,
        other => return Err(unsupported(node, format!("resize coordinates '{other}'"))),
    })
}

/// How `graph.resize` interpolates, with the rounding of its nearest mode.
fn resize_interpolation(node: &Node) -> Result<Interpolation, InterpretError> {
    Ok(match node.keyword("mode").unwrap_or("nearest") {
        "linear" => Interpolation::Linear,
        "cubic" => Interpolation::Cubic {
            a: node.float("cubic_coeff_a", -0.75),
            exclude_outside: node.flag("exclude_outside"),
        },
        "nearest" => Interpolation::Nearest(
            match node.keyword("nearest").unwrap_or("round_prefer_floor") {
                "round_prefer_floor" => Rounding::RoundPreferFloor,
                "round_prefer_ceil" => Rounding::RoundPreferCeil,
                "floor" => Rounding::Floor,
                "ceil" => Rounding::Ceil,
                other => return Err(unsupported(node, format!("nearest rounding '{other}'"))),
            },
        ),
        other => return Err(unsupported(node, format!("resize mode '{other}'"))),
    })
}

impl Evaluator<'_> {
    /// A binary elementwise op, broadcasting its operands to the result's shape.
    pub(super) fn binary(&self, node: &Node, op: Binary) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let data = elementwise::binary(
            op,
            &self.operand(node, 0),
            &self.operand(node, 1),
            &out.shape,
        )
        .map_err(|message| runtime(node, message))?;
        Ok(typed(out, data))
    }

    /// A unary elementwise op on an f32 operand.
    pub(super) fn unary(&self, node: &Node, op: Unary) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        Ok(float_tensor(
            node.result_type(),
            elementwise::unary(op, f32s(node, &input)?),
        ))
    }

    /// A reduction over the `axes` attribute's dimensions.
    pub(super) fn reduce(&self, node: &Node, kind: Reduction) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let given = node.ints("axes", &[]);
        // No axes reduces every dimension, as in ONNX.
        let axes: Vec<usize> = if given.is_empty() {
            (0..input.shape.len()).collect()
        } else {
            given.iter().map(|&a| axis(a, input.shape.len())).collect()
        };
        Ok(float_tensor(
            node.result_type(),
            reduction::reduce(f32s(node, &input)?, &input.shape, &axes, kind),
        ))
    }

    /// `graph.argmax` and `graph.argmin`: the index of the extreme along `axis`.
    pub(super) fn arg_extreme(
        &self,
        node: &Node,
        extreme: Extreme,
    ) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let along = axis(node.int("axis", 0), input.shape.len());
        let indices = reduction::arg_extreme(
            f32s(node, &input)?,
            &input.shape,
            along,
            extreme,
            node.flag("select_last_index"),
        );
        Ok(typed(node.result_type(), Data::I64(indices)))
    }

    /// `graph.top_k`: each line's `k` extremes along `axis` and their indices.
    pub(super) fn top_k(&self, node: &Node) -> Result<Vec<Tensor>, InterpretError> {
        let input = self.operand(node, 0);
        let along = axis(node.int("axis", -1), input.shape.len());
        let k = node.int("k", 0) as usize;
        let largest = !node.attributes.contains_key("largest") || node.flag("largest");
        let (values, indices) =
            reduction::top_k(f32s(node, &input)?, &input.shape, along, k, largest);
        Ok(vec![
            float_tensor(&node.results[0].1, values),
            typed(&node.results[1].1, Data::I64(indices)),
        ])
    }

    /// `graph.conv2d`, with its optional bias and fused activation.
    pub(super) fn conv2d(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let input = self.operand(node, 0);
        let filter = self.operand(node, 1);
        let bias = (node.operands.len() > 2).then(|| self.operand(node, 2));
        let bias_values = bias.as_deref().map(|bias| f32s(node, bias)).transpose()?;
        let filter_shape = shape4(&filter.shape);
        let window = conv_window(node, filter_shape);
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
        Ok(float_tensor(out, values))
    }

    /// `graph.matmul` and `graph.batch_matmul`.
    pub(super) fn matmul(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let (a, b) = (self.operand(node, 0), self.operand(node, 1));
        Ok(float_tensor(
            out,
            matmul::batch_matmul(
                f32s(node, &a)?,
                &a.shape,
                f32s(node, &b)?,
                &b.shape,
                &out.shape,
            ),
        ))
    }

    /// `graph.gemm`: alpha · op(A) · op(B) + beta · C.
    pub(super) fn gemm(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let (a, b) = (self.operand(node, 0), self.operand(node, 1));
        let c = (node.operands.len() > 2).then(|| self.operand(node, 2));
        let c_values = c
            .as_deref()
            .map(|c| f32s(node, c).map(|values| (values, c.shape.as_slice())))
            .transpose()?;
        Ok(float_tensor(
            node.result_type(),
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
        ))
    }

    /// `graph.batch_norm` in inference form.
    pub(super) fn batch_norm(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let operands: Vec<Rc<Tensor>> = (0..5).map(|i| self.operand(node, i)).collect();
        Ok(float_tensor(
            node.result_type(),
            normalization::batch_norm(
                f32s(node, &operands[0])?,
                &operands[0].shape,
                f32s(node, &operands[1])?,
                f32s(node, &operands[2])?,
                f32s(node, &operands[3])?,
                f32s(node, &operands[4])?,
                node.float("epsilon", 1e-5),
            ),
        ))
    }

    /// `graph.layer_norm` over the dimensions from `axis` on.
    pub(super) fn layer_norm(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let scale = self.operand(node, 1);
        let bias = (node.operands.len() > 2).then(|| self.operand(node, 2));
        let bias_values = bias.as_deref().map(|bias| f32s(node, bias)).transpose()?;
        let first = axis(node.int("axis", -1), input.shape.len());
        let normalized: usize = input.shape[first..].iter().product();
        Ok(float_tensor(
            node.result_type(),
            normalization::layer_norm(
                f32s(node, &input)?,
                normalized,
                f32s(node, &scale)?,
                bias_values,
                node.float("epsilon", 1e-5),
            ),
        ))
    }

    /// `graph.softmax` along `axis`.
    pub(super) fn softmax(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let along = axis(node.int("axis", -1), input.shape.len());
        Ok(float_tensor(
            node.result_type(),
            normalization::softmax(f32s(node, &input)?, &input.shape, along),
        ))
    }

    /// `graph.resize` with its coordinate mapping and interpolation.
    pub(super) fn resize(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let input = self.operand(node, 0);
        let coordinates = resize_coordinates(node)?;
        let interpolation = resize_interpolation(node)?;
        let values = f32s(node, &input)?;
        Ok(float_tensor(
            out,
            resize::resize(
                values,
                &input.shape,
                &out.shape,
                &node.floats("scales"),
                coordinates,
                interpolation,
            ),
        ))
    }

    /// `graph.lrn`: local response normalisation across channels.
    pub(super) fn lrn(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        Ok(float_tensor(
            node.result_type(),
            normalization::lrn(
                f32s(node, &input)?,
                &input.shape,
                node.int("size", 1) as usize,
                node.float("alpha", 1e-4),
                node.float("beta", 0.75),
                node.float("bias", 1.0),
            ),
        ))
    }

    /// `graph.max_pool2d` and `graph.avg_pool2d`.
    pub(super) fn pool2d(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let out = node.result_type();
        let input = self.operand(node, 0);
        let window = Window {
            kernel: node.usizes("kernel", [1, 1]),
            strides: node.usizes("strides", [1, 1]),
            pads: node.usizes("pads", [0, 0, 0, 0]),
            dilations: node.usizes("dilations", [1, 1]),
        };
        let max = node.name == "graph.max_pool2d";
        Ok(float_tensor(
            out,
            pooling::pool2d(
                f32s(node, &input)?,
                shape4(&input.shape),
                window,
                shape4(&out.shape),
                max,
                node.flag("count_include_pad"),
            ),
        ))
    }

    /// `graph.global_avg_pool`: the mean of each N×C plane.
    pub(super) fn global_avg_pool(&self, node: &Node) -> Result<Tensor, InterpretError> {
        let input = self.operand(node, 0);
        let spatial: usize = input.shape[2..].iter().product();
        let planes: usize = input.shape[..2].iter().product();
        Ok(float_tensor(
            node.result_type(),
            pooling::global_avg_pool(f32s(node, &input)?, planes, spatial),
        ))
    }
}
