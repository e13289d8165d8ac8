//! Every operator the importer reads, with what it becomes and how far it goes: the importer
//! refuses an operator that is not in [`OPERATORS`], and the operator list of docs/Onnx.md is
//! generated from it ([`markdown`]), so the two cannot disagree.

use std::fmt::Write;

/// How far an imported operator goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Its graph operations compile for the software DSA with every schedule (arithmetic on f32
    /// data; integer and boolean tensors moved, gathered, cast, compared and selected).
    Compiled,
    /// Its graph operations are evaluated by the reference interpreter; the compiler does not
    /// lower them yet (mod, integer unary functions and reductions).
    Interpreted,
    /// Evaluated at import time only: its inputs must be constants.
    Folded,
}

impl Support {
    /// The word the documentation uses.
    pub fn word(self) -> &'static str {
        match self {
            Support::Compiled => "compiled",
            Support::Interpreted => "interpreted",
            Support::Folded => "folded",
        }
    }
}

/// One row of the table: operators that import the same way.
#[derive(Debug)]
pub struct Operator {
    /// The ONNX operator types.
    pub names: &'static [&'static str],
    /// What they become in the graph dialect.
    pub graph: &'static str,
    /// How far they go.
    pub support: Support,
    /// What is read and what is refused.
    pub details: &'static str,
}

const fn row(
    names: &'static [&'static str],
    graph: &'static str,
    support: Support,
    details: &'static str,
) -> Operator {
    Operator {
        names,
        graph,
        support,
        details,
    }
}

use Support::{Compiled, Folded, Interpreted};

/// Every operator of the ai.onnx domain that the importer reads.
#[rustfmt::skip]
pub const OPERATORS: &[Operator] = &[
    row(&["Conv"], "`conv2d`", Compiled,
        "2-D (NCHW), and 1-D (NCL) as 2-D of height 1 between `reshape`s; 3-D is an error; \
         `auto_pad` SAME_UPPER/SAME_LOWER/VALID resolved to `[top, left, bottom, right]`; group, \
         dilations, strides, bias"),
    row(&["ConvTranspose"], "spread input (`reshape`, `pad`), `conv2d`; or `conv2d`, pixel shuffle",
        Compiled,
        "2-D and 1-D; windows that tile the output (stride = kernel, no dilation, padding or \
         output padding, one group, constant filter and bias) as a 1×1 convolution to M·kH·kW \
         channels and a pixel shuffle (`reshape`, `transpose`, `reshape`); otherwise zeros \
         inserted between input elements, then a stride-1 convolution with the filter flipped \
         and transposed per group (at import for a constant filter; by `transpose` and \
         `gather`, interpreted only, for one computed at run time); pads, output_padding, \
         output_shape, auto_pad, dilations, group"),
    row(&["Gemm"], "`gemm`", Compiled,
        "alpha, beta, transA, transB; C broadcast to [M, N]; with beta = 0, C is not an operand \
         (not read, as in BLAS and onnxruntime)"),
    row(&["MatMul"], "`matmul` (2-D × 2-D), `batch_matmul`", Compiled,
        "numpy semantics; a 1-D operand is reshaped to a row (left) or column (right) and the \
         result reshaped back"),
    row(&["BatchNormalization"], "`batch_norm`", Compiled,
        "inference only (`training_mode` = 1 and used running statistics are errors)"),
    row(&["LayerNormalization"], "`layer_norm`", Compiled,
        "scale/bias broadcast to `shape[axis:]` by `reshape`/`broadcast`; the Mean and \
         InvStdDev outputs, when used, composed from `reduce_mean`, `sqrt`, `reciprocal`"),
    row(&["InstanceNormalization"], "`layer_norm` over the spatial elements", Compiled,
        "N×C×S `reshape`, `layer_norm` over S, per-channel scale and bias by `mul`, `add`"),
    row(&["Softmax"], "`softmax`", Compiled, "opset ≥ 13 semantics (one axis, default -1)"),
    row(&["LogSoftmax"], "`reduce_max`, `sub`, `exp`, `reduce_sum`, `log`, `sub`", Compiled,
        "`x - m - log(sum(exp(x - m)))` with `m` the maximum (no overflow); one axis"),
    row(&["NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"],
        "`gather_elements`, `neg`; class weights by `gather`", Compiled,
        "the scores' LogSoftmax first for SoftmaxCrossEntropyLoss (its log_prob output); weights, \
         ignore_index, reduction none, sum and mean (by the sum of the weights); compiled for \
         scores of at most 4 dimensions"),
    row(&["LRN"], "`lrn`", Compiled, "4-D only"),
    row(&["MaxPool", "AveragePool"], "`max_pool2d`, `avg_pool2d`", Compiled,
        "2-D, and 1-D as 2-D of height 1; auto_pad, ceil_mode, count_include_pad; dilated \
         average pooling and the Indices output are unsupported"),
    row(&["GlobalAveragePool"], "`global_avg_pool`", Compiled, ""),
    row(&["GlobalMaxPool"], "`reduce_max` over the spatial axes, keepdims", Compiled, ""),
    row(&["Relu", "Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Log", "Neg", "Abs", "Reciprocal"],
        "the op of the same name", Compiled, "floats (f32, f16, bf16)"),
    row(&["Gelu"], "`gelu`", Compiled,
        "opset 20; `approximate = \"tanh\"` → `approximate = true`"),
    row(&["LeakyRelu", "PRelu"], "`relu(x) + alpha * min(x, 0)`", Compiled,
        "PRelu's slope broadcasts to the input (unidirectionally)"),
    row(&["Elu", "Selu", "Celu"], "`relu(x) + alpha * (exp(min(x, 0) / s) - 1)`", Compiled,
        "scaled by gamma for Selu; `s` is alpha for Celu, 1 otherwise"),
    row(&["Softplus", "Mish"], "`relu(x) + log(1 + exp(-|x|))`", Compiled,
        "no overflow for large x; Mish is `x * tanh(softplus(x))`"),
    row(&["Softsign", "HardSigmoid", "HardSwish"], "`abs`, `div`; `mul`, `add`, `clip`", Compiled,
        "`x / (1 + |x|)`; `clip(alpha x + beta, 0, 1)`; `x * hardsigmoid(x)` (1/6, 1/2)"),
    row(&["ThresholdedRelu", "Shrink", "Sign"], "`compare` and `where`", Compiled,
        "floats (f32, f16, bf16)"),
    row(&["Clip"], "`clip`", Compiled,
        "floats; min/max inputs must be constants; an omitted bound is the lowest or largest \
         finite value of the input's type (so infinities clip to it, as in onnxruntime)"),
    row(&["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"],
        "`add`, `sub`, `mul`, `div`, `pow`, `max`, `min`", Compiled,
        "numpy broadcasting; Pow's exponent converted to the base's type; i64 and i32 operands \
         compile one op per layer (wrapping, division by zero an error at run time)"),
    row(&["Mod"], "`mod`", Compiled,
        "keeps `fmod` (required for floats); compiled on floats, i64 and i32"),
    row(&["Sum", "Mean"], "chain of `add` (`div` by the count for Mean)", Compiled,
        "Max/Min with 3+ operands chain likewise; one operand → no op"),
    row(&["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"],
        "`compare eq/lt/gt/le/ge`", Compiled, "operands of any element type, boolean results"),
    row(&["Where"], "`where`", Compiled, "a boolean condition; operands of any element type"),
    row(&["And", "Or", "Xor", "Not"], "`where` selections", Compiled,
        "booleans; folded when the operands are constants"),
    row(&["Cast", "CastLike"], "`cast`", Compiled,
        "between f32, f16, bf16, i64, i32, i8, ui8 and bool (a conversion on the vector engine): \
         to f16 and bf16 to nearest even; float to integer toward zero (into i8 and ui8 through \
         32 bits, wrapping, as onnxruntime); integers wrap; to the same type → no op"),
    row(&["Reshape", "Squeeze", "Unsqueeze"], "`reshape`", Compiled,
        "shape/axes inputs must be constants; `allowzero`; same shape → no op"),
    row(&["Flatten"], "`flatten`", Compiled, ""),
    row(&["Transpose"], "`transpose`", Compiled,
        "default permutation reverses; identity → no op"),
    row(&["Concat"], "`concat`", Compiled, "one operand → no op"),
    row(&["Split"], "`split`", Compiled,
        "sizes from the `split` input, `num_outputs` (opset 18), or equal parts"),
    row(&["Slice"], "`slice`", Compiled,
        "constant starts/ends/axes/steps; negative and out-of-range bounds resolved and clamped; \
         negative steps unsupported; full window → no op"),
    row(&["Pad"], "`pad`", Compiled,
        "constant pads, constant_value and (opset 18) axes; constant, reflect, edge (wrap \
         unsupported); fills other than +0.0 and negative pads compile as concats and slices \
         (graph-decompose-pad)"),
    row(&["Resize"], "`resize`", Compiled,
        "nearest upsampling by whole factors compiles as a copy (graph-resize-to-broadcast), \
         other resizes by whole factors (up or down) as sums of copies, fractional scales and \
         align_corners as sums of gathers by constant indices (graph-decompose-resize); \
         nearest (every `nearest_mode`), linear and cubic (cubic_coeff_a, exclude_outside); \
         half_pixel, pytorch_half_pixel, \
         align_corners, asymmetric; constant scales or sizes, (opset 18) axes; antialias, \
         tf_crop_and_resize, half_pixel_symmetric and the not_larger/not_smaller aspect policies \
         unsupported"),
    row(&["If"], "`if`", Compiled,
        "the branches imported into its regions (a constant condition imports the taken branch \
         in place); branches must yield the same static types; compiled by the layer-wise \
         schedule only (control flow on the device, or by the host with control=host)"),
    row(&["Loop"], "`loop`", Compiled,
        "trip count and condition each optional; the body's iteration number, carried values \
         and a condition that cannot be false while it runs; scan outputs need a constant trip \
         count and a body condition that stays true (they are carried, stacked tensors); \
         compiled by the layer-wise schedule only"),
    row(&["Scan"], "`loop`", Compiled,
        "opset 9 and later: states, scan inputs read by `gather` at the iteration, scan outputs \
         stacked by `scatter_elements`, any axes, either direction; compiled by the layer-wise \
         schedule only"),
    row(&["LSTM", "GRU", "RNN"], "`loop` over the cell", Compiled,
        "a loop per direction over the sequence, the input projection one product before it; \
         forward, reverse, bidirectional; layout 0 and 1; biases, initial states, peepholes, \
         GRU's linear_before_reset; sequence_lens shorter than the sequence in the forward \
         direction; Sigmoid, Tanh and Relu activations; clip, input_forget and activation \
         parameters refused; compiled by the layer-wise schedule only"),
    row(&["Gather"], "`gather`", Compiled,
        "indices i32 or i64; run-time indices compile as DMA gathers (an index out of range is \
         an error at run time), constant ones mostly as slices (graph-substitute)"),
    row(&["GatherElements"], "`gather_elements`", Compiled,
        "indices i32 or i64, constant or not (a DMA gather of elements, compiled up to 4 \
         dimensions); an index out of range is an error at run time"),
    row(&["ScatterElements", "Scatter"], "`scatter_elements`", Compiled,
        "indices i32 or i64, indices and updates constant or not (a DMA scatter of elements into \
         a copy of the data, compiled up to 4 dimensions); reduction none (the last of duplicate \
         indices wins), add, mul, max, min; an index out of range is an error at run time"),
    row(&["OneHot"], "`compare` with a constant range, `where`", Compiled,
        "constant depth; integer or float indices (cast toward zero), negative ones counted from \
         the end, ones out of range all off"),
    row(&["Hardmax"], "`argmax`, `compare` with a constant range, `cast`", Compiled,
        "one axis (opset 13)"),
    row(&["IsNaN", "IsInf"], "`compare` and `where`", Compiled,
        "`x != x`; `x == ±inf` as detect_negative and detect_positive say"),
    row(&["ArgMax", "ArgMin"], "`argmax`, `argmin`", Compiled,
        "float input; i64 result; keepdims, select_last_index; a NaN is the extreme (numpy)"),
    row(&["QuantizeLinear"], "`quantize`", Interpreted,
        "f32, f16, bf16 to i8 or ui8 (the zero point's type; ui8 without one, or \
         output_dtype); round half to even, saturate; per tensor or per axis; no blocks"),
    row(&["DequantizeLinear"], "`dequantize`", Interpreted,
        "i8, ui8, i32 to the scale's float type; `(x - zero_point) * scale`, the difference \
         exact; per tensor or per axis; no blocks"),
    row(&["DynamicQuantizeLinear"], "`reduce_max`, `neg`, `max`, `add`, `compare`, `where`, \
         `div`, `quantize`", Interpreted,
        "f32 to ui8; scale `(max(0, max x) - min(0, min x)) / 255` (1/255 for all zeros)"),
    row(&["MatMulInteger"], "`matmul_integer`", Interpreted,
        "i8/ui8 operands of rank >= 2, zero points per tensor, row of A or column of B; exact \
         i32"),
    row(&["ConvInteger"], "`conv_integer`", Interpreted,
        "2-D (NCHW); zero points per tensor (x) and per output channel (w); exact i32"),
    row(&["QLinearMatMul"], "`matmul_integer`, `mul`, `div`, `requantize`", Interpreted,
        "scales of one float type (b's per column); multiplier `a_scale * b_scale / y_scale` in \
         that type, applied to the i32 product in f64, round half to even, saturate"),
    row(&["QLinearConv"], "`conv_integer`, `reshape`, `add`, `mul`, `div`, `requantize`",
        Interpreted,
        "2-D; i32 bias; w's scale and zero point per output channel; requantized as \
         QLinearMatMul"),
    row(&["TopK"], "`top_k`", Compiled,
        "f32 input; K a constant, at most the axis; largest; always sorted, equal values by \
         index; NaNs first (as ArgMax/ArgMin); i64 indices"),
    row(&["Expand"], "`broadcast`", Compiled, "constant shape input; same shape → no op"),
    row(&["Tile"], "`reshape`, `broadcast`, `reshape`", Compiled,
        "constant repeats; compiled while the broadcast fits a DMA view (up to 2 repeated \
         dimensions)"),
    row(&["Trilu"], "`where` with a constant mask", Compiled, "constant k"),
    row(&["ReduceMean", "ReduceSum", "ReduceMax"], "`reduce_mean`, `reduce_sum`, `reduce_max`",
        Compiled,
        "axes as attribute (before opsets 13/18) or constant input; empty axes reduce \
         everything unless `noop_with_empty_axes`"),
    row(&["ReduceProd"], "`reduce_prod`", Compiled, "as the other reductions"),
    row(&["ReduceMin", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum",
          "ReduceLogSumExp"],
        "composed from `reduce_max`, `reduce_sum` and elementwise ops", Compiled,
        "`-max(-x)`, `sum(x²)`, `sum(|x|)`, `sqrt(sum(x²))`, `log(sum(x))`, \
         `log(sum(exp(x - m))) + m`"),
    row(&["Identity", "Dropout"], "no op", Compiled, "Dropout's mask output is unsupported"),
    row(&["ConstantOfShape"], "folded, or a splat `constant` above 2^16 elements", Compiled, ""),
    row(&["Shape", "Size", "Constant", "Range", "Floor", "Ceil"],
        "nothing", Folded, ""),
];

/// The row of `op_type`, if the importer reads it.
pub fn find(op_type: &str) -> Option<&'static Operator> {
    OPERATORS.iter().find(|row| row.names.contains(&op_type))
}

/// The line before the generated operator list in docs/Onnx.md.
pub const DOCS_BEGIN: &str = "<!-- operators: generated from onnx/src/operators.rs -->\n";
/// The line after it.
pub const DOCS_END: &str = "<!-- end of operators -->\n";

/// The operator list of docs/Onnx.md: one table row per [`Operator`], then the counts, between
/// [`DOCS_BEGIN`] and [`DOCS_END`].
pub fn markdown() -> String {
    let mut text = String::from(DOCS_BEGIN);
    text.push_str("| ONNX | graph dialect | Support | Details |\n|---|---|---|---|\n");
    for row in OPERATORS {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} |",
            row.names.join(", "),
            row.graph,
            row.support.word(),
            row.details
        );
    }
    let count = |support: Support| -> usize {
        OPERATORS
            .iter()
            .filter(|row| row.support == support)
            .map(|row| row.names.len())
            .sum()
    };
    let _ = writeln!(
        text,
        "\n{} operators: {} compiled, {} interpreted only, {} folded only.",
        count(Compiled) + count(Interpreted) + count(Folded),
        count(Compiled),
        count(Interpreted),
        count(Folded)
    );
    text.push_str(DOCS_END);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ImportError;
    use crate::lower::{lower, Builder};
    use crate::node::Node;
    use crate::proto::NodeProto;
    use crate::value::Inputs;

    /// Every operator of the table reaches a lowering, a fold or the importer's identities and
    /// control flow (whose bodies the importer walks): with no inputs each fails on its inputs,
    /// never as an unknown operator.
    #[test]
    fn every_listed_operator_is_dispatched() {
        let identities = ["Identity", "Dropout", "If", "Loop", "Scan"];
        for name in OPERATORS.iter().flat_map(|row| row.names) {
            if identities.contains(name) {
                continue;
            }
            let proto = NodeProto {
                op_type: (*name).to_owned(),
                ..NodeProto::default()
            };
            let node = Node::new(&proto, 0);
            let outcome = lower(&mut Builder::default(), &node, &Inputs::new(&node, &[]));
            assert!(
                !matches!(outcome, Err(ImportError::UnsupportedOp { .. })),
                "{name} is listed but has no lowering"
            );
        }
    }

    #[test]
    fn no_operator_is_listed_twice() {
        let mut names: Vec<_> = OPERATORS.iter().flat_map(|row| row.names).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count);
    }
}
