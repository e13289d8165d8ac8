//===- GraphOps.td - Turbine graph dialect -----------------*- tablegen -*-===//
//
// The model as the user wrote it: value-semantics tensor operators on builtin
// ranked tensors with static shapes. Every verifier checks that the result type
// follows from the operands and attributes, so a shape error is reported at the
// op that makes it rather than in a later lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_GRAPH_OPS
#define TURBINE_GRAPH_OPS

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

def Graph_Dialect : Dialect {
  let name = "graph";
  let cppNamespace = "::turbine::graph";
  let summary = "Value-semantics tensor operators: the model as written.";
  let description = [{
    The `graph` dialect is Turbine's entry level. A model imported from ONNX (or
    written by hand) is a `func.func` whose body is made of `graph` operators on
    builtin ranked tensors with static shapes. Operators have value semantics and
    no side effects, so upstream `canonicalize`, `cse` and `symbol-dce` apply.

    Weights are not inlined: `graph.weight` names a tensor stored in a side file
    (safetensors) that the module's `graph.weights` attribute points to, so a
    100 MB ResNet-50 stays a small text file. Small constants stay inline as
    `graph.constant`.

    Layout conventions follow ONNX: activations are NCHW, convolution filters
    OIHW, and 2-D padding lists are `[top, left, bottom, right]`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasConstantMaterializer = 1;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

// Each result element depends only on the operand elements at the same
// position (after numpy broadcasting). Passes ask for this trait, not for op
// names, when they decide what an elementwise epilogue is: hw-group's
// auxiliary ops of a layer (GraphTurbo §3.1) and the ops the layer-wise
// lowering fuses after an anchor.
def Graph_Elementwise : NativeOpTrait<"Elementwise"> {
  let cppNamespace = "::turbine::graph";
}

// A sum of products over a reduced dimension: the multiply-accumulates that run
// on the compute units' matrix engines, with a weight-like second operand.
// Passes ask for this trait when they count the work of a layer, the weight
// traffic of a cut, or which anchors take an elementwise epilogue.
def Graph_Contraction : NativeOpTrait<"Contraction"> {
  let cppNamespace = "::turbine::graph";
}

def Graph_Tensor : StaticShapeTensorOf<[AnyType]>;
def Graph_FloatTensor : StaticShapeTensorOf<[AnyFloat]>;

// Scalars of control flow are 0-D tensors, as in ONNX; buildable so that the
// assembly format can leave their types implicit.
def Graph_BoolScalar : 0DTensorOf<[I1]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI1Type())">;
def Graph_IndexScalar : 0DTensorOf<[I64]>,
    BuildableType<"::mlir::RankedTensorType::get({}, $_builder.getI64Type())">;

//===----------------------------------------------------------------------===//
// Enumerations
//===----------------------------------------------------------------------===//

def Graph_Activation : I32EnumAttr<"Activation",
    "activation fused into an anchor operator", [
      I32EnumAttrCase<"relu", 0>,
      I32EnumAttrCase<"relu6", 1>,
      I32EnumAttrCase<"sigmoid", 2>,
      I32EnumAttrCase<"tanh", 3>,
      I32EnumAttrCase<"silu", 4>,
      I32EnumAttrCase<"gelu", 5>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_ActivationAttr : EnumAttr<Graph_Dialect, Graph_Activation, "activation">;

def Graph_PadMode : I32EnumAttr<"PadMode", "how graph.pad fills the border", [
      I32EnumAttrCase<"constant", 0>,
      I32EnumAttrCase<"reflect", 1>,
      I32EnumAttrCase<"edge", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_PadModeAttr : EnumAttr<Graph_Dialect, Graph_PadMode, "pad_mode">;

def Graph_ResizeMode : I32EnumAttr<"ResizeMode", "how graph.resize interpolates", [
      I32EnumAttrCase<"nearest", 0>,
      I32EnumAttrCase<"linear", 1>,
      I32EnumAttrCase<"cubic", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_ResizeModeAttr : EnumAttr<Graph_Dialect, Graph_ResizeMode, "resize_mode">;

def Graph_ResizeCoordinates : I32EnumAttr<"ResizeCoordinates",
    "how graph.resize maps an output coordinate to the input (ONNX coordinate_transformation_mode)", [
      I32EnumAttrCase<"half_pixel", 0>,
      I32EnumAttrCase<"pytorch_half_pixel", 1>,
      I32EnumAttrCase<"align_corners", 2>,
      I32EnumAttrCase<"asymmetric", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_ResizeCoordinatesAttr : EnumAttr<Graph_Dialect, Graph_ResizeCoordinates, "resize_coordinates">;

def Graph_NearestRounding : I32EnumAttr<"NearestRounding",
    "how nearest-neighbour graph.resize rounds a coordinate (ONNX nearest_mode)", [
      I32EnumAttrCase<"round_prefer_floor", 0>,
      I32EnumAttrCase<"round_prefer_ceil", 1>,
      I32EnumAttrCase<"floor", 2>,
      I32EnumAttrCase<"ceil", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_NearestRoundingAttr : EnumAttr<Graph_Dialect, Graph_NearestRounding, "nearest_rounding">;

//===----------------------------------------------------------------------===//
// Constants and weights
//===----------------------------------------------------------------------===//

def Graph_ConstantOp : Graph_Op<"constant",
    [ConstantLike, Pure, AllTypesMatch<["value", "result"]>]> {
  let summary = "An inline constant tensor.";
  let description = [{
    A small tensor whose elements are written in the IR: shapes, scalars, masks.
    Large tensors belong in the weights side file (`graph.weight`).

    ```mlir
    %eps = graph.constant dense<1.0e-05> : tensor<f32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
}

def Graph_WeightOp : Graph_Op<"weight", [Pure]> {
  let summary = "A named tensor read from the module's weights file.";
  let description = [{
    Refers by name to a tensor stored in the side file named by the module's
    `graph.weights` attribute (safetensors). The result type fixes the shape and
    element type the file must hold.

    ```mlir
    %w = graph.weight "layer1.0.conv1.weight" : tensor<64x64x1x1xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Anchor operators: convolution and matrix products
//===----------------------------------------------------------------------===//

def Graph_Conv2dOp : Graph_Op<"conv2d", [Pure, Graph_Contraction]> {
  let summary = "2-D convolution (NCHW input, OIHW filter), optional bias and activation.";
  let description = [{
    ONNX `Conv` on 4-D tensors. `pads` is `[top, left, bottom, right]`;
    `groups` divides the input channels (depthwise when it equals them). The
    output shape must be
    `H_out = (H + top + bottom - dilation_h * (KH - 1) - 1) / stride_h + 1`
    (likewise for W), with `O` output channels. An optional `activation` is
    applied to the result, which is how conv+relu stays one anchor op. An
    empty input (no input channels, or an empty plane padded to a non-empty
    one) gives the activated bias everywhere; canonicalization writes it so.

    ```mlir
    %y = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, activation = #graph<activation relu>}
        : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$filter,
      Optional<Graph_FloatTensor>:$bias,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups,
      OptionalAttr<Graph_ActivationAttr>:$activation);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $filter (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

def Graph_MatmulOp : Graph_Op<"matmul", [Pure, Graph_Contraction]> {
  let summary = "Matrix product of two 2-D tensors.";
  let description = [{
    `[M, K] x [K, N] -> [M, N]`. Products with batch dimensions are
    `graph.batch_matmul`. Over K = 0 every element is 0 (it folds to zeros).

    ```mlir
    %c = graph.matmul %a, %b : tensor<8x64xf32>, tensor<64x16xf32> -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_BatchMatmulOp : Graph_Op<"batch_matmul", [Pure, Graph_Contraction]> {
  let summary = "Matrix product over broadcast batch dimensions (ONNX MatMul).";
  let description = [{
    Both operands have rank >= 2; the last two dimensions multiply as in
    `graph.matmul` and the leading (batch) dimensions broadcast as in numpy.
    A rank-2 operand broadcasts over the other's batch, which is how a BERT
    projection `[B, S, H] x [H, H]` is written. Over K = 0 every element is 0
    (it folds to zeros).

    ```mlir
    %s = graph.batch_matmul %q, %k : tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32> -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$lhs, Graph_FloatTensor:$rhs);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_GemmOp : Graph_Op<"gemm", [Pure, Graph_Contraction]> {
  let summary = "General matrix multiply: alpha * op(A) * op(B) + beta * C (ONNX Gemm).";
  let description = [{
    `op(X)` is `X` or its transpose (`trans_a`, `trans_b`). The optional `C`
    broadcasts to `[M, N]`. Over K = 0 the result is `beta * C` broadcast (0
    without `C`), which canonicalization writes as such.

    ```mlir
    %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$a, Graph_FloatTensor:$b,
      Optional<Graph_FloatTensor>:$c,
      DefaultValuedAttr<F32Attr, "1.0f">:$alpha,
      DefaultValuedAttr<F32Attr, "1.0f">:$beta,
      DefaultValuedAttr<BoolAttr, "false">:$trans_a,
      DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let hasCanonicalizer = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise operators
//===----------------------------------------------------------------------===//

class Graph_BinaryOp<string mnemonic, string what> : Graph_Op<mnemonic, [Pure, Graph_Elementwise]> {
  let summary = "Elementwise " # what # " with numpy broadcasting.";
  let description = [{
    The result shape is the numpy broadcast of the operand shapes; operands and
    result share one element type.
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_AddOp : Graph_BinaryOp<"add", "sum">;
def Graph_SubOp : Graph_BinaryOp<"sub", "difference">;
def Graph_MulOp : Graph_BinaryOp<"mul", "product">;
def Graph_DivOp : Graph_BinaryOp<"div", "quotient">;
def Graph_PowOp : Graph_BinaryOp<"pow", "power">;
def Graph_MaxOp : Graph_BinaryOp<"max", "maximum">;
def Graph_MinOp : Graph_BinaryOp<"min", "minimum">;

def Graph_ModOp : Graph_BinaryOp<"mod", "remainder"> {
  let description = [{
    ONNX `Mod`: by default the remainder takes the sign of the divisor (Python's
    `%`); with `fmod = true` it takes the sign of the dividend (C's `fmod`),
    which ONNX requires for floating-point operands.
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs,
      DefaultValuedAttr<BoolAttr, "false">:$fmod);
}

class Graph_UnaryOp<string mnemonic, string what, list<Trait> traits = []>
    : Graph_Op<mnemonic, !listconcat([Pure, SameOperandsAndResultType, Graph_Elementwise], traits)> {
  let summary = "Elementwise " # what # ".";
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
}

def Graph_SqrtOp : Graph_UnaryOp<"sqrt", "square root">;
def Graph_ErfOp : Graph_UnaryOp<"erf", "Gauss error function">;
def Graph_ReluOp : Graph_UnaryOp<"relu", "rectified linear unit, max(x, 0)">;
def Graph_SigmoidOp : Graph_UnaryOp<"sigmoid", "logistic sigmoid, 1 / (1 + exp(-x))">;
def Graph_TanhOp : Graph_UnaryOp<"tanh", "hyperbolic tangent">;
def Graph_SiluOp : Graph_UnaryOp<"silu", "SiLU (swish), x * sigmoid(x)">;
def Graph_ExpOp : Graph_UnaryOp<"exp", "exponential">;
def Graph_LogOp : Graph_UnaryOp<"log", "natural logarithm">;
def Graph_NegOp : Graph_UnaryOp<"neg", "negation">;
def Graph_AbsOp : Graph_UnaryOp<"abs", "absolute value">;
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal", "reciprocal, 1 / x">;

def Graph_GeluOp : Graph_UnaryOp<"gelu", "GELU, x * Phi(x)"> {
  let description = [{
    The exact form `0.5 * x * (1 + erf(x / sqrt(2)))`, or with
    `approximate = true` the tanh approximation (ONNX `Gelu`, approximate="tanh").
  }];
  let arguments = (ins Graph_FloatTensor:$input,
      DefaultValuedAttr<BoolAttr, "false">:$approximate);
}

def Graph_ClipOp : Graph_UnaryOp<"clip", "clamp to [min, max]"> {
  let description = [{
    `min(max(x, min), max)`. ReLU6 is `clip` with `min = 0.0, max = 6.0`.

    ```mlir
    %y = graph.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x32x112x112xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, F32Attr:$min, F32Attr:$max);
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

def Graph_BatchNormOp : Graph_Op<"batch_norm", [Pure, Graph_Elementwise]> {
  let summary = "Inference batch normalisation over the channel dimension (dimension 1).";
  let description = [{
    `(x - mean) / sqrt(var + epsilon) * scale + bias`, each parameter a 1-D
    tensor with one value per channel.

    ```mlir
    %y = graph.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32}
        : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
      Graph_FloatTensor:$bias, Graph_FloatTensor:$mean, Graph_FloatTensor:$variance,
      DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "operands attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", [Pure]> {
  let summary = "Layer normalisation over the dimensions from `axis` to the last.";
  let description = [{
    ONNX `LayerNormalization`: normalises over `shape[axis:]`, then multiplies
    by `scale` and adds the optional `bias`, both of shape `shape[axis:]`.

    ```mlir
    %y = graph.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 9.99999996E-13 : f32}
        : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
      Optional<Graph_FloatTensor>:$bias,
      DefaultValuedAttr<I64Attr, "-1">:$axis,
      DefaultValuedAttr<F32Attr, "1.0e-5f">:$epsilon);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_SoftmaxOp : Graph_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "Softmax along one axis.";
  let description = [{
    `exp(x - max) / sum(exp(x - max))` along `axis` (negative counts from the end).

    ```mlir
    %p = graph.softmax %s {axis = -1 : i64} : tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

def Graph_MaxPool2dOp : Graph_Op<"max_pool2d", [Pure]> {
  let summary = "2-D max pooling over an NCHW tensor.";
  let description = [{
    Window `kernel` (`[KH, KW]`), `strides`, `pads` (`[top, left, bottom,
    right]`, padding never wins the max) and `dilations`; with `ceil_mode` the
    output size rounds up as in ONNX.

    ```mlir
    %y = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_AvgPool2dOp : Graph_Op<"avg_pool2d", [Pure]> {
  let summary = "2-D average pooling over an NCHW tensor.";
  let description = [{
    As `graph.max_pool2d` without dilations; `count_include_pad` decides
    whether padded positions count in the divisor (ONNX default: they do not).

    ```mlir
    %y = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : tensor<1x128x56x56xf32> -> tensor<1x128x28x28xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input,
      DenseI64ArrayAttr:$kernel,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
      DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_GlobalAvgPoolOp : Graph_Op<"global_avg_pool", [Pure]> {
  let summary = "Mean over all spatial dimensions: [N, C, ...] -> [N, C, 1, ...].";
  let description = [{
    The mean of an empty plane is NaN (it folds to that constant).

    ```mlir
    %y = graph.global_avg_pool %x : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "Reinterpret a tensor with another shape of the same element count.";
  let description = [{
    Row-major order is kept; the target shape is the result type.

    ```mlir
    %y = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure]> {
  let summary = "Permute the dimensions of a tensor.";
  let description = [{
    Result dimension `i` is input dimension `permutation[i]`.

    ```mlir
    %y = graph.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_FlattenOp : Graph_Op<"flatten", [Pure]> {
  let summary = "Collapse to 2-D at `axis`: [prod(shape[:axis]), prod(shape[axis:])].";
  let description = [{
    ```mlir
    %y = graph.flatten %x {axis = 1 : i64} : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure]> {
  let summary = "Join tensors along one axis.";
  let description = [{
    All operands have the result's rank and element type and agree with it on
    every dimension except `axis`, whose sizes add up.

    ```mlir
    %y = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x64x28x28xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x28x28xf32>
    ```
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasVerifier = 1;
}

def Graph_SplitOp : Graph_Op<"split", [Pure]> {
  let summary = "Cut a tensor into consecutive pieces along one axis.";
  let description = [{
    The piece sizes are the results' sizes along `axis`; they add up to the
    input's.

    ```mlir
    %a, %b = graph.split %x {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($results)";
  let hasVerifier = 1;
}

def Graph_SliceOp : Graph_Op<"slice", [Pure]> {
  let summary = "A strided window of a tensor.";
  let description = [{
    Result element `i` along dimension `d` is input element
    `starts[d] + i * steps[d]`; the result type gives the window's size. Every
    index read must lie inside the input.

    ```mlir
    %y = graph.slice %x {starts = array<i64: 0, 0, 1>, steps = array<i64: 1, 1, 2>} : tensor<1x4x8xf32> -> tensor<1x4x4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$starts,
      OptionalAttr<DenseI64ArrayAttr>:$steps);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_PadOp : Graph_Op<"pad", [Pure]> {
  let summary = "Pad a tensor at both ends of each dimension.";
  let description = [{
    `pads` lists the amounts added before each dimension, then after each
    (ONNX order: `[x1_begin, x2_begin, ..., x1_end, x2_end, ...]`). `mode` is
    `constant` (filled with `value`), `reflect` or `edge`. A constant pad of
    an empty tensor folds to its fill value.

    ```mlir
    %y = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x3x4x4xf32> -> tensor<1x3x6x6xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$pads,
      DefaultValuedAttr<Graph_PadModeAttr, "PadMode::constant">:$mode,
      DefaultValuedAttr<F32Attr, "0.0f">:$value);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ResizeOp : Graph_Op<"resize", [Pure]> {
  let summary = "Up- or downsample a tensor by nearest or linear interpolation (ONNX Resize).";
  let description = [{
    Each output coordinate `x` of dimension `d` maps to an input coordinate by
    `coordinates` with the scale `s = scales[d]`: `half_pixel` (x + 0.5) / s - 0.5,
    `pytorch_half_pixel` the same but 0 when `in * s` is 1, `align_corners`
    x * (in - 1) / (in * s - 1), `asymmetric` x / s (`in * s` unrounded, as in
    ONNX's reference). `nearest` rounds it by `nearest`
    and reads that element; `linear` interpolates between its two neighbours in
    every dimension; `cubic` between its four, with Keys' cubic convolution of
    coefficient `cubic_coeff_a`, the neighbours outside the input weighing 0 (the
    others renormalised) under `exclude_outside`. Coordinates outside the input
    read its edge. Each result
    dimension is the input's times its scale, rounded down (a scale given by
    sizes is `out / in`, so it may be off by less than one); it may be 0, an
    empty result.

    ```mlir
    %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x256x14x14xf32> -> tensor<1x256x28x28xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, DenseF32ArrayAttr:$scales,
      DefaultValuedAttr<Graph_ResizeModeAttr, "ResizeMode::nearest">:$mode,
      DefaultValuedAttr<Graph_ResizeCoordinatesAttr, "ResizeCoordinates::half_pixel">:$coordinates,
      DefaultValuedAttr<Graph_NearestRoundingAttr, "NearestRounding::round_prefer_floor">:$nearest,
      DefaultValuedAttr<F32Attr, "-0.75f">:$cubic_coeff_a,
      DefaultValuedAttr<BoolAttr, "false">:$exclude_outside);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_LrnOp : Graph_Op<"lrn", [Pure, SameOperandsAndResultType]> {
  let summary = "Local response normalisation across channels (ONNX LRN).";
  let description = [{
    `y = x / (bias + alpha / size * sum(x^2 over the size channels centred on c))^beta`
    on an NCHW tensor, as in AlexNet and GoogLeNet (Inception v1).

    ```mlir
    %y = graph.lrn %x {size = 5 : i64, alpha = 9.99999974E-5 : f32, beta = 7.500000e-01 : f32, bias = 1.000000e+00 : f32} : tensor<1x64x56x56xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$size,
      DefaultValuedAttr<F32Attr, "1.0e-4f">:$alpha,
      DefaultValuedAttr<F32Attr, "0.75f">:$beta,
      DefaultValuedAttr<F32Attr, "1.0f">:$bias);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Graph_GatherOp : Graph_Op<"gather", [Pure]> {
  let summary = "Pick slices of a tensor by integer indices along one axis (ONNX Gather).";
  let description = [{
    The result shape is `data[:axis] + indices + data[axis + 1:]`. Negative
    indices count from the end; an index out of range is an error at run time.

    ```mlir
    %e = graph.gather %table, %ids {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data,
      StaticShapeTensorOf<[I32, I64]>:$indices, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements", [Pure]> {
  let summary = "Pick one element per index along one axis (ONNX GatherElements).";
  let description = [{
    `indices` has the rank of `data`, and no larger a size than `data` along
    every other axis; the result has the shape of `indices`, and its element at
    position `p` is `data` at `p` with the `axis` coordinate replaced by
    `indices[p]`. Negative indices count from the end; an index out of range is
    an error at run time.

    ```mlir
    %p = graph.gather_elements %probs, %labels {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data,
      StaticShapeTensorOf<[I32, I64]>:$indices, DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$data `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ScatterReduction : I32EnumAttr<"ScatterReduction",
    "how a scattered element meets the one it lands on", [
      I32EnumAttrCase<"none", 0>, I32EnumAttrCase<"add", 1>, I32EnumAttrCase<"mul", 2>,
      I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_ScatterReductionAttr : EnumAttr<Graph_Dialect, Graph_ScatterReduction, "reduction">;

def Graph_ScatterElementsOp : Graph_Op<"scatter_elements", [Pure]> {
  let summary = "Write one element per index along one axis (ONNX ScatterElements).";
  let description = [{
    The result is `data` with, for every position `p` of `indices` (whose shape
    `updates` has), the element at `p` with the `axis` coordinate replaced by
    `indices[p]` set to `updates[p]`, in row-major order of `p` (the last of
    duplicates wins), or combined with it by `reduction` (`add`, `mul`, `max`,
    `min`; numbers only). `indices` has the rank of `data` and no larger a size
    along every other axis. Negative indices count from the end; an index out
    of range is an error at run time.

    ```mlir
    %r = graph.scatter_elements %data, %idx, %upd {axis = 1 : i64, reduction = #graph<reduction add>} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$data, StaticShapeTensorOf<[I32, I64]>:$indices,
      Graph_Tensor:$updates, DefaultValuedAttr<I64Attr, "0">:$axis,
      DefaultValuedAttr<Graph_ScatterReductionAttr,
          "::turbine::graph::ScatterReduction::none">:$reduction);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$data `,` $indices `,` $updates attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Graph_ComparePredicate : I32EnumAttr<"ComparePredicate", "elementwise comparison", [
      I32EnumAttrCase<"eq", 0>, I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>, I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>, I32EnumAttrCase<"ge", 5>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::turbine::graph";
}
def Graph_ComparePredicateAttr : EnumAttr<Graph_Dialect, Graph_ComparePredicate, "predicate">;

def Graph_CompareOp : Graph_Op<"compare", [Pure, Graph_Elementwise]> {
  let summary = "Elementwise comparison with numpy broadcasting, giving i1.";
  let description = [{
    ONNX `Equal`, `Less`, `Greater`, ... as one op with a predicate.

    ```mlir
    %m = graph.compare eq, %a, %b : tensor<1x128xi64>, tensor<1xi64> -> tensor<1x128xi1>
    ```
  }];
  let arguments = (ins Graph_ComparePredicateAttr:$predicate, Graph_Tensor:$lhs,
      Graph_Tensor:$rhs);
  let results = (outs StaticShapeTensorOf<[I1]>:$result);
  let assemblyFormat = [{
    $predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Graph_WhereOp : Graph_Op<"where", [Pure, Graph_Elementwise]> {
  let summary = "Elementwise select: condition ? lhs : rhs, with numpy broadcasting.";
  let description = [{
    ```mlir
    %y = graph.where %mask, %scores, %neg_inf : tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I1]>:$condition, Graph_Tensor:$lhs,
      Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_Op<"cast", [Pure, Graph_Elementwise]> {
  let summary = "Convert the element type, keeping the shape (ONNX Cast).";
  let description = [{
    Float to integer truncates toward zero; to `i1`, non-zero is true.

    ```mlir
    %f = graph.cast %mask : tensor<1x128xi64> -> tensor<1x128xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_BroadcastOp : Graph_Op<"broadcast", [Pure]> {
  let summary = "Broadcast a tensor to a larger shape, numpy style (ONNX Expand).";
  let description = [{
    The result shape must be the numpy broadcast of the input shape and itself.

    ```mlir
    %y = graph.broadcast %x : tensor<1x1x128xf32> -> tensor<1x12x128xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic, string what> : Graph_Op<mnemonic, [Pure]> {
  let summary = "Reduce by " # what # " over the given axes.";
  let description = [{
    Reduces over `axes` (negative values count from the end), or over every
    dimension when `axes` is empty (ONNX's default); with `keepdims` the reduced
    dimensions stay as size 1, otherwise they are dropped. A reduction over an
    empty set (a reduced dimension of size 0) is ONNX's value: 0 for a sum, 1
    for a product, -inf for a maximum, NaN for a mean; it folds to that
    constant.

    ```mlir
    %m = graph.reduce_mean %x {axes = array<i64: -1>} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, DenseI64ArrayAttr:$axes,
      DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs Graph_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum", "sum">;
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean", "mean">;
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max", "maximum">;
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod", "product">;

class Graph_ArgReduceOp<string mnemonic, string what, string onnx>
    : Graph_Op<mnemonic, [Pure]> {
  let summary = "The index of the " # what # " along one axis (ONNX " # onnx # ").";
  let description = [{
    The result holds, for each position of the other dimensions, the index
    along `axis` (negative counts from the end) of the extreme element: the
    first one, or the last with `select_last_index`; a NaN counts as the
    extreme, as in numpy. With `keepdims` the axis stays as size 1, otherwise
    it is dropped. The axis must not be empty.

    ```mlir
    %i = graph.argmax %logits {axis = -1 : i64, keepdims = false} : tensor<8x1000xf32> -> tensor<8xi64>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$keepdims,
      DefaultValuedAttr<BoolAttr, "false">:$select_last_index);
  let results = (outs StaticShapeTensorOf<[I64]>:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Graph_ArgMaxOp : Graph_ArgReduceOp<"argmax", "largest element", "ArgMax">;
def Graph_ArgMinOp : Graph_ArgReduceOp<"argmin", "smallest element", "ArgMin">;

def Graph_TopKOp : Graph_Op<"top_k", [Pure]> {
  let summary = "The k largest or smallest elements along one axis (ONNX TopK).";
  let description = [{
    For each line of `input` along `axis` (negative counts from the end),
    `values` holds its `k` largest elements (its smallest without `largest`)
    in order, the extreme first, and `indices` their indices along the axis.
    Both results have the input's shape with `k` at the axis, which must not
    exceed the axis' size. Equal elements keep the lower index first. NaNs are
    the extremes, before every number in either order, as `graph.argmax` and
    `graph.argmin` have it (so that `k = 1` agrees with them); onnxruntime
    orders NaNs unpredictably. The results are always sorted: `sorted = false`,
    which lets ONNX return any order, returns this one too.

    ```mlir
    %v, %i = graph.top_k %scores {axis = -1 : i64, k = 5 : i64} : tensor<8x1000xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32]>:$input, I64Attr:$k, I64Attr:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$largest,
      DefaultValuedAttr<BoolAttr, "true">:$sorted);
  let results = (outs StaticShapeTensorOf<[F32]>:$values,
      StaticShapeTensorOf<[I64]>:$indices);
  let assemblyFormat =
      "$input attr-dict `:` type($input) `->` type($values) `,` type($indices)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Quantization (ONNX QuantizeLinear, DequantizeLinear and the integer products)
//===----------------------------------------------------------------------===//

def Graph_QuantizedTensor : StaticShapeTensorOf<[I8, UI8]>;

def Graph_QuantizeOp : Graph_Op<"quantize", [Pure]> {
  let summary = "Linear quantization to 8-bit integers (ONNX QuantizeLinear).";
  let description = [{
    `result = saturate(round(input / scale) + zero_point)`, rounding to the
    nearest integer with ties to even and saturating to the result's range
    (`i8`, read as signed: [-128, 127]; `ui8`: [0, 255]). `scale` has the
    input's float type and `zero_point` the result's type; each is a scalar
    (one element: per tensor) or 1-D of the size of `axis` (per axis; a
    negative axis counts from the end).

    ```mlir
    %q = graph.quantize %x, %s, %zp {axis = 1 : i64} : (tensor<1x3x8x8xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x8x8xi8>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[F32, F16, BF16]>:$input,
      StaticShapeTensorOf<[F32, F16, BF16]>:$scale,
      Graph_QuantizedTensor:$zero_point,
      DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_DequantizeOp : Graph_Op<"dequantize", [Pure]> {
  let summary = "Linear dequantization of integers (ONNX DequantizeLinear).";
  let description = [{
    `result = (input - zero_point) * scale`, the difference exact in integers
    and the product in the scale's float type, which is the result's. `input`
    is `i8` (read as signed), `ui8` or `i32`, and `zero_point` has its type.
    `scale` and `zero_point` are each a scalar (one element: per tensor) or
    1-D of the size of `axis` (per axis).

    ```mlir
    %x = graph.dequantize %q, %s, %zp : (tensor<4x4xui8>, tensor<f32>, tensor<ui8>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I8, UI8, I32]>:$input,
      StaticShapeTensorOf<[F32, F16, BF16]>:$scale,
      StaticShapeTensorOf<[I8, UI8, I32]>:$zero_point,
      DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs StaticShapeTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    $input `,` $scale `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_RequantizeOp : Graph_Op<"requantize", [Pure]> {
  let summary = "An i32 accumulator scaled back to 8-bit integers.";
  let description = [{
    `result = saturate(round(input * multiplier) + zero_point)`: the product
    of the exact i32 accumulator and the float multiplier is computed in f64,
    rounded to the nearest integer with ties to even, and saturated
    to the result's range. This is the epilogue of an integer kernel: ONNX
    QLinearMatMul and QLinearConv are a `graph.matmul_integer` or
    `graph.conv_integer` followed by it, with the multiplier
    `a_scale * b_scale / y_scale` computed in the scales' float type.
    `multiplier` and `zero_point` are each a scalar (per tensor) or 1-D of the
    size of `axis` (per axis, such as per output channel).

    ```mlir
    %y = graph.requantize %acc, %m, %zp : (tensor<2x4xi32>, tensor<f32>, tensor<ui8>) -> tensor<2x4xui8>
    ```
  }];
  let arguments = (ins StaticShapeTensorOf<[I32]>:$input,
      StaticShapeTensorOf<[F32, F16, BF16]>:$multiplier,
      Graph_QuantizedTensor:$zero_point,
      DefaultValuedAttr<I64Attr, "1">:$axis);
  let results = (outs Graph_QuantizedTensor:$result);
  let assemblyFormat = [{
    $input `,` $multiplier `,` $zero_point attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_MatmulIntegerOp : Graph_Op<"matmul_integer", [Pure]> {
  let summary = "Integer matrix product accumulated in i32 (ONNX MatMulInteger).";
  let description = [{
    `(lhs - lhs_zero_point) x (rhs - rhs_zero_point)`, every product and sum
    exact in i32. Operands are `i8` (read as signed) or `ui8`, each zero point
    of its operand's type; shapes as `graph.batch_matmul` (rank at least 2,
    batch dimensions broadcast). `lhs_zero_point` is a scalar or 1-D with one
    value per row of `lhs` (M), `rhs_zero_point` a scalar or 1-D with one
    value per column of `rhs` (N).

    ```mlir
    %c = graph.matmul_integer %a, %b, %azp, %bzp : (tensor<4x3xui8>, tensor<3x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x2xi32>
    ```
  }];
  let arguments = (ins Graph_QuantizedTensor:$lhs, Graph_QuantizedTensor:$rhs,
      Graph_QuantizedTensor:$lhs_zero_point, Graph_QuantizedTensor:$rhs_zero_point);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `,` $lhs_zero_point `,` $rhs_zero_point attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Graph_ConvIntegerOp : Graph_Op<"conv_integer", [Pure]> {
  let summary = "Integer 2-D convolution accumulated in i32 (ONNX ConvInteger).";
  let description = [{
    `graph.conv2d` of `input - input_zero_point` and `filter -
    filter_zero_point` (NCHW, OIHW; the same `strides`, `pads`, `dilations`
    and `groups`), every product and sum exact in i32. Padding is the zero
    point, so it contributes 0. Operands are `i8` (read as signed) or `ui8`,
    each zero point of its operand's type; `input_zero_point` is a scalar,
    `filter_zero_point` a scalar or 1-D with one value per output channel.

    ```mlir
    %y = graph.conv_integer %x, %w, %xzp, %wzp {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1x3x3xui8>, tensor<1x1x2x2xui8>, tensor<ui8>, tensor<ui8>) -> tensor<1x1x4x4xi32>
    ```
  }];
  let arguments = (ins Graph_QuantizedTensor:$input, Graph_QuantizedTensor:$filter,
      Graph_QuantizedTensor:$input_zero_point, Graph_QuantizedTensor:$filter_zero_point,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
      DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
      DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
      DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs StaticShapeTensorOf<[I32]>:$result);
  let assemblyFormat = [{
    $input `,` $filter `,` $input_zero_point `,` $filter_zero_point attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Control flow (Cocktailer)
//===----------------------------------------------------------------------===//

def Graph_YieldOp : Graph_Op<"yield",
    [Pure, Terminator, ReturnLike, ParentOneOf<["IfOp", "LoopOp"]>]> {
  let summary = "Ends a region of graph.if or graph.loop, passing its values on.";
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

def Graph_IfOp : Graph_Op<"if", [RecursiveMemoryEffects, NoRegionArguments]> {
  let summary = "Run one of two regions depending on a boolean scalar tensor.";
  let description = [{
    Each region ends in `graph.yield` with values of the result types
    (ONNX `If`). Cocktailer lowers it either to a host-side branch or to device
    control flow.

    ```mlir
    %r = graph.if %c -> (tensor<4xf32>) {
      graph.yield %a : tensor<4xf32>
    } else {
      graph.yield %b : tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Graph_BoolScalar:$condition);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let regions = (region SizedRegion<1>:$then_region, SizedRegion<1>:$else_region);
  let assemblyFormat = [{
    $condition (`->` `(` type($results)^ `)`)? $then_region `else` $else_region attr-dict
  }];
  let hasVerifier = 1;
}

def Graph_LoopOp : Graph_Op<"loop", [RecursiveMemoryEffects]> {
  let summary = "A loop with a trip-count bound, a condition and loop-carried values.";
  let description = [{
    ONNX `Loop` without scan outputs. The body's arguments are the iteration
    number (`tensor<i64>`) and the carried values; it yields the condition for
    the next iteration (`tensor<i1>`) and the next carried values. The loop runs
    while the iteration number is below `max_trip_count` and the condition holds;
    its results are the final carried values.

    ```mlir
    %r = graph.loop %n, %true iter_args(%x0 : tensor<4xf32>) -> (tensor<4xf32>) {
    ^bb0(%i: tensor<i64>, %x: tensor<4xf32>):
      %y = graph.add %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
      graph.yield %true, %y : tensor<i1>, tensor<4xf32>
    }
    ```
  }];
  let arguments = (ins Graph_IndexScalar:$max_trip_count, Graph_BoolScalar:$condition,
      Variadic<Graph_Tensor>:$inits);
  let results = (outs Variadic<Graph_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $max_trip_count `,` $condition (`iter_args` `(` $inits^ `:` type($inits) `)`)?
    (`->` `(` type($results)^ `)`)? $body attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TURBINE_GRAPH_OPS
