//! What the ONNX specification allows on each operator the importer lowers: how many inputs it
//! takes and which attributes it knows (over every opset version, so that an older model's
//! attributes, like `consumed_inputs` or `broadcast`, are known too). A node outside these is
//! invalid, as onnxruntime finds it, and is refused naming the node, before anything is folded or
//! lowered: an extra input or a misspelt attribute is never silently ignored.

use crate::error::ImportError;
use crate::node::Node;

/// Inputs and attributes of one operator.
struct Schema {
    /// Smallest and largest number of inputs (optional ones given as "" count).
    inputs: (usize, usize),
    attributes: &'static [&'static str],
}

/// Any number of inputs from one (ONNX's variadic `Sum`, `Max`, `Min`, `Concat`).
const VARIADIC: (usize, usize) = (1, usize::MAX);

const ELEMENTWISE_BROADCAST: &[&str] = &["axis", "broadcast", "consumed_inputs"];
const REDUCE: &[&str] = &["axes", "keepdims", "noop_with_empty_axes"];

fn schema(op_type: &str) -> Option<Schema> {
    let (inputs, attributes): ((usize, usize), &'static [&'static str]) = match op_type {
        "Conv" => ((2, 3), CONV),
        "MaxPool" => (
            (1, 1),
            &[
                "auto_pad",
                "ceil_mode",
                "dilations",
                "kernel_shape",
                "pads",
                "storage_order",
                "strides",
            ],
        ),
        "AveragePool" => (
            (1, 1),
            &[
                "auto_pad",
                "ceil_mode",
                "count_include_pad",
                "dilations",
                "kernel_shape",
                "pads",
                "strides",
            ],
        ),
        "GlobalAveragePool" | "GlobalMaxPool" | "Erf" => ((1, 1), &[]),
        "MatMul" | "Expand" => ((2, 2), &[]),
        "If" => ((1, 1), &["else_branch", "then_branch"]),
        "LSTM" => ((3, 8), RECURRENT),
        "GRU" | "RNN" => ((3, 6), RECURRENT),
        "Loop" => ((2, usize::MAX), &["body"]),
        "Scan" => (
            VARIADIC,
            &[
                "body",
                "num_scan_inputs",
                "scan_input_axes",
                "scan_input_directions",
                "scan_output_axes",
                "scan_output_directions",
            ],
        ),
        "Gemm" => ((2, 3), &["alpha", "beta", "broadcast", "transA", "transB"]),
        "BatchNormalization" => (
            (5, 5),
            &[
                "consumed_inputs",
                "epsilon",
                "is_test",
                "momentum",
                "spatial",
                "training_mode",
            ],
        ),
        "LayerNormalization" => ((2, 3), &["axis", "epsilon", "stash_type"]),
        "Softmax" | "Flatten" => ((1, 1), &["axis"]),
        "LRN" => ((1, 1), &["alpha", "beta", "bias", "size"]),
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Equal" | "Less" | "Greater" => {
            ((2, 2), ELEMENTWISE_BROADCAST)
        }
        "LessOrEqual" | "GreaterOrEqual" => ((2, 2), &[]),
        "Mod" => ((2, 2), &["fmod"]),
        "Sum" | "Max" | "Min" => (VARIADIC, &["consumed_inputs"]),
        "Where" => ((3, 3), &[]),
        "Cast" => ((1, 1), &["round_mode", "saturate", "to"]),
        "Clip" => ((1, 3), &["consumed_inputs", "max", "min"]),
        "Gelu" => ((1, 1), &["approximate"]),
        "Sqrt" | "Relu" | "Sigmoid" | "Tanh" | "Exp" | "Log" | "Neg" | "Abs" | "Reciprocal" => {
            ((1, 1), &["consumed_inputs"])
        }
        "Reshape" => ((1, 2), &["allowzero", "consumed_inputs", "shape"]),
        "Squeeze" | "Unsqueeze" => ((1, 2), &["axes"]),
        "Transpose" => ((1, 1), &["perm"]),
        "Concat" => (VARIADIC, &["axis"]),
        "Split" => ((1, 2), &["axis", "num_outputs", "split"]),
        "Slice" => ((1, 5), &["axes", "ends", "starts"]),
        "Pad" => ((1, 4), &["mode", "pads", "paddings", "value"]),
        "Resize" => (
            (1, 4),
            &[
                "antialias",
                "axes",
                "coordinate_transformation_mode",
                "cubic_coeff_a",
                "exclude_outside",
                "extrapolation_value",
                "keep_aspect_ratio_policy",
                "mode",
                "nearest_mode",
            ],
        ),
        "Gather" => ((2, 2), &["axis"]),
        "ReduceMean" | "ReduceSum" | "ReduceMax" => ((1, 2), REDUCE),
        "ConstantOfShape" => ((1, 1), &["value"]),
        "ReduceMin" | "ReduceSumSquare" | "ReduceL1" | "ReduceL2" | "ReduceLogSum"
        | "ReduceLogSumExp" | "ReduceProd" => ((1, 2), REDUCE),
        "LogSoftmax" => ((1, 1), &["axis"]),
        "InstanceNormalization" => ((3, 3), &["epsilon"]),
        "CastLike" => ((2, 2), &["saturate"]),
        "LeakyRelu" | "ThresholdedRelu" | "Celu" | "Elu" => ((1, 1), &["alpha", "consumed_inputs"]),
        "Selu" => ((1, 1), &["alpha", "consumed_inputs", "gamma"]),
        "HardSigmoid" => ((1, 1), &["alpha", "beta", "consumed_inputs"]),
        "PRelu" => ((2, 2), &["consumed_inputs"]),
        "Softplus" | "Softsign" | "Mish" | "HardSwish" | "Sign" => ((1, 1), &[]),
        "Shrink" => ((1, 1), &["bias", "lambd"]),
        "Mean" => (VARIADIC, &[]),
        "Tile" => ((2, 2), &[]),
        "Trilu" => ((1, 2), &["upper"]),
        "And" | "Or" | "Xor" => ((2, 2), ELEMENTWISE_BROADCAST),
        "Not" => ((1, 1), &[]),
        "ArgMax" | "ArgMin" => ((1, 1), &["axis", "keepdims", "select_last_index"]),
        "TopK" => ((2, 2), &["axis", "largest", "sorted"]),
        "QuantizeLinear" => ((2, 3), &["axis", "block_size", "output_dtype", "saturate"]),
        "DequantizeLinear" => ((2, 3), &["axis", "block_size"]),
        "DynamicQuantizeLinear" => ((1, 1), &[]),
        "MatMulInteger" => ((2, 4), &[]),
        "QLinearMatMul" => ((8, 8), &[]),
        "ConvInteger" => ((2, 4), CONV),
        "QLinearConv" => ((8, 9), CONV),
        "GatherElements" => ((2, 2), &["axis"]),
        "ScatterElements" | "Scatter" => ((3, 3), &["axis", "reduction"]),
        "OneHot" => ((3, 3), &["axis"]),
        "Hardmax" => ((1, 1), &["axis"]),
        "IsNaN" => ((1, 1), &[]),
        "IsInf" => ((1, 1), &["detect_negative", "detect_positive"]),
        "NegativeLogLikelihoodLoss" | "SoftmaxCrossEntropyLoss" => {
            ((2, 3), &["ignore_index", "reduction"])
        }
        "ConvTranspose" => (
            (2, 3),
            &[
                "auto_pad",
                "dilations",
                "group",
                "kernel_shape",
                "output_padding",
                "output_shape",
                "pads",
                "strides",
            ],
        ),
        _ => return None,
    };
    Some(Schema { inputs, attributes })
}

/// The attributes of LSTM, GRU and RNN (over their opsets).
const RECURRENT: &[&str] = &[
    "activation_alpha",
    "activation_beta",
    "activations",
    "clip",
    "direction",
    "hidden_size",
    "input_forget",
    "layout",
    "linear_before_reset",
    "output_sequence",
];

/// The attributes of Conv, ConvInteger and QLinearConv.
const CONV: &[&str] = &[
    "auto_pad",
    "dilations",
    "group",
    "kernel_shape",
    "pads",
    "strides",
];

/// Refuses `node` when its input count or an attribute is not one the specification allows for
/// its operator. Operators without a schema here (the ones only folded at import, or unsupported
/// ones) are left to their own checks.
pub fn check(node: &Node) -> Result<(), ImportError> {
    let Some(schema) = schema(node.op_type()) else {
        return Ok(());
    };
    let count = node.proto.input.len();
    let (least, most) = schema.inputs;
    if count < least || count > most {
        let expected = match (least, most) {
            (least, usize::MAX) => format!("at least {least}"),
            (least, most) if least == most => format!("{least}"),
            (least, most) => format!("{least} to {most}"),
        };
        return Err(node.invalid(format!("has {count} inputs; the operator takes {expected}")));
    }
    for attribute in &node.proto.attribute {
        if !schema.attributes.contains(&attribute.name.as_str()) {
            let known = if schema.attributes.is_empty() {
                "none".to_owned()
            } else {
                schema.attributes.join(", ")
            };
            return Err(node.invalid(format!(
                "has an attribute '{}' that the operator does not define (it knows: {known})",
                attribute.name
            )));
        }
    }
    Ok(())
}
