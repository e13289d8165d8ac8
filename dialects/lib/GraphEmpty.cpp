// Folders and canonicalizations of graph ops whose input is empty (a zero-size
// dimension, as ONNX allows) but whose result is not: the result no longer
// depends on any input element, so it becomes what ONNX defines for it — a
// reduction's identity, a product over K = 0, a convolution's bias, a pad's
// fill value. The lowering then never meets a loop over nothing that has to
// produce values, and the interpreter (which runs the unfolded ops) checks the
// same definitions independently.
#include "Graph.h"

#include "mlir/IR/PatternMatch.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace turbine::graph;

static bool isEmpty(Type type) {
  return cast<RankedTensorType>(type).getNumElements() == 0;
}

/// True when `op` reads nothing but writes something.
static bool emptyInNonEmptyOut(Value input, Type result) {
  return isEmpty(input.getType()) && !isEmpty(result);
}

static DenseElementsAttr splat(Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  return DenseElementsAttr::get(
      tensor, ArrayRef<Attribute>{FloatAttr::get(tensor.getElementType(), value)});
}

/// A product with a non-empty result and an empty operand reduces over K = 0:
/// it is 0 everywhere.
static OpFoldResult emptyProduct(Value lhs, Value rhs, Type result) {
  if (!isEmpty(result) && (isEmpty(lhs.getType()) || isEmpty(rhs.getType())))
    return splat(result, 0.0);
  return {};
}

OpFoldResult MatmulOp::fold(FoldAdaptor) {
  return emptyProduct(getLhs(), getRhs(), getType());
}

OpFoldResult BatchMatmulOp::fold(FoldAdaptor) {
  return emptyProduct(getLhs(), getRhs(), getType());
}

// The mean of an empty plane is 0 / 0.
OpFoldResult GlobalAvgPoolOp::fold(FoldAdaptor) {
  if (emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), std::numeric_limits<double>::quiet_NaN());
  return {};
}

// Every element of a constant pad of an empty tensor is padding.
OpFoldResult PadOp::fold(FoldAdaptor) {
  if (getMode() == PadMode::constant && emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), getValue().convertToDouble());
  return {};
}

// ONNX: a reduction over an empty set is its identity (0 for sum, 1 for
// product, -inf for max) and a mean of nothing is NaN.
OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  if (emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), 0.0);
  return {};
}

OpFoldResult ReduceMeanOp::fold(FoldAdaptor) {
  if (emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), std::numeric_limits<double>::quiet_NaN());
  return {};
}

OpFoldResult ReduceProdOp::fold(FoldAdaptor) {
  if (emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), 1.0);
  return {};
}

OpFoldResult ReduceMaxOp::fold(FoldAdaptor) {
  if (emptyInNonEmptyOut(getInput(), getType()))
    return splat(getType(), -std::numeric_limits<double>::infinity());
  return {};
}

/// `value` broadcast to `type`, through a reshape to `shape` first when its
/// rank differs (a bias [C] becomes [1, C, 1, 1]).
static Value broadcastTo(PatternRewriter &rewriter, Location loc, Value value,
                         ArrayRef<int64_t> shape, RankedTensorType type) {
  auto valueType = cast<RankedTensorType>(value.getType());
  if (valueType.getShape() != shape)
    value = ReshapeOp::create(rewriter, loc,
                              RankedTensorType::get(shape, valueType.getElementType()), value);
  if (cast<RankedTensorType>(value.getType()) != type)
    value = BroadcastOp::create(rewriter, loc, type, value);
  return value;
}

static Value activate(PatternRewriter &rewriter, Location loc, Value value,
                      Activation activation) {
  Type type = value.getType();
  switch (activation) {
  case Activation::relu:
    return ReluOp::create(rewriter, loc, type, value);
  case Activation::relu6:
    return ClipOp::create(rewriter, loc, type, value, rewriter.getF32FloatAttr(0.0f),
                          rewriter.getF32FloatAttr(6.0f));
  case Activation::sigmoid:
    return SigmoidOp::create(rewriter, loc, type, value);
  case Activation::tanh:
    return TanhOp::create(rewriter, loc, type, value);
  case Activation::silu:
    return SiluOp::create(rewriter, loc, type, value);
  case Activation::gelu:
    return GeluOp::create(rewriter, loc, type, value);
  }
  llvm_unreachable("every activation is handled");
}

namespace {
/// A convolution of an empty input with a non-empty result (no input channels,
/// or an empty plane padded to a non-empty one) reads only zeros: every output
/// is its activated bias.
struct EmptyConvolution : OpRewritePattern<Conv2dOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(Conv2dOp op, PatternRewriter &rewriter) const override {
    if (isEmpty(op.getType()) ||
        !(isEmpty(op.getInput().getType()) || isEmpty(op.getFilter().getType())))
      return failure();
    RankedTensorType type = op.getType();
    Location loc = op.getLoc();
    Value result;
    if (Value bias = op.getBias()) {
      int64_t channels = type.getDimSize(1);
      result = broadcastTo(rewriter, loc, bias, {1, channels, 1, 1}, type);
    } else {
      result = ConstantOp::create(rewriter, loc, type, splat(type, 0.0));
    }
    if (auto activation = op.getActivation())
      result = activate(rewriter, loc, result, *activation);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A Gemm over K = 0 is `beta * C` broadcast to [M, N], or 0 without C.
struct EmptyGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &rewriter) const override {
    if (isEmpty(op.getType()) ||
        !(isEmpty(op.getA().getType()) || isEmpty(op.getB().getType())))
      return failure();
    RankedTensorType type = op.getType();
    Location loc = op.getLoc();
    Value c = op.getC();
    if (!c || op.getBeta().convertToDouble() == 0.0) {
      rewriter.replaceOpWithNewOp<ConstantOp>(op, type, splat(type, 0.0));
      return success();
    }
    auto cType = cast<RankedTensorType>(c.getType());
    if (op.getBeta().convertToDouble() != 1.0) {
      auto scalar = RankedTensorType::get({}, cType.getElementType());
      Value beta = ConstantOp::create(rewriter, loc, scalar,
                                      splat(scalar, op.getBeta().convertToDouble()));
      c = MulOp::create(rewriter, loc, cType, c, beta);
    }
    // C is unidirectionally broadcastable to [M, N]: [], [N], [1, N], [M, 1]
    // or [M, N]; numpy alignment puts a rank-1 C on the last dimension.
    SmallVector<int64_t> shape(cType.getShape());
    while (shape.size() < 2)
      shape.insert(shape.begin(), 1);
    rewriter.replaceOp(op, broadcastTo(rewriter, loc, c, shape, type));
    return success();
  }
};
} // namespace

void Conv2dOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                           MLIRContext *context) {
  patterns.add<EmptyConvolution>(context);
}

void GemmOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                         MLIRContext *context) {
  patterns.add<EmptyGemm>(context);
}
