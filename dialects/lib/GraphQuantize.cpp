// The verifiers of the quantization ops: element types that agree, an axis in
// range, scales and zero points per tensor or per axis, and the result shapes
// of the integer products.
#include "Graph.h"
#include "ShapeChecks.h"

using namespace mlir;
using namespace turbine;
using namespace turbine::graph;

static RankedTensorType rankedType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

/// Checks that `scale` and `zero_point` are each one element (per tensor) or
/// 1-D of the size of `axis` of `shape` (per axis).
static LogicalResult verifyScaleShape(Operation *op, ArrayRef<int64_t> shape,
                                      int64_t given, Value scale,
                                      Value zeroPoint) {
  std::optional<int64_t> axis = normalizeAxis(given, shape.size());
  for (auto [what, value] : {std::pair<StringRef, Value>{"scale", scale},
                             std::pair<StringRef, Value>{"zero point", zeroPoint}}) {
    ArrayRef<int64_t> values = rankedType(value).getShape();
    if (values.empty() || (values.size() == 1 && values[0] == 1))
      continue;
    if (!axis)
      return op->emitOpError() << "axis " << given
                               << " is out of range for rank " << shape.size();
    if (values.size() != 1 || values[0] != shape[*axis])
      return op->emitOpError()
             << "expects a " << what << " of one element or 1-D of "
             << shape[*axis] << " (the size of axis " << *axis << "), got shape "
             << formatShape(values);
  }
  return success();
}

/// The rule of quantize, dequantize and requantize: `scale` and `zeroPoint`
/// per tensor or along `axis` of `input`, and a result of the input's shape.
static LogicalResult verifyScaled(Operation *op, Value input, int64_t axis,
                                  Value scale, Value zeroPoint) {
  ArrayRef<int64_t> shape = rankedType(input).getShape();
  if (failed(verifyScaleShape(op, shape, axis, scale, zeroPoint)))
    return failure();
  return expectShape(op, "result", rankedType(op->getResult(0)).getShape(),
                     shape);
}

/// Fails unless `value` has the element type of `like`.
static LogicalResult expectElementType(Operation *op, StringRef what,
                                       Value value, Type like) {
  Type element = rankedType(value).getElementType();
  if (element == like)
    return success();
  return op->emitOpError() << what << " has element type " << element
                           << ", expected " << like;
}

LogicalResult QuantizeOp::verify() {
  Type element = getInput().getType().getElementType();
  Type quantized = getType().getElementType();
  if (failed(expectElementType(*this, "scale", getScale(), element)) ||
      failed(expectElementType(*this, "zero point", getZeroPoint(), quantized)))
    return failure();
  return verifyScaled(*this, getInput(), getAxis(), getScale(), getZeroPoint());
}

LogicalResult DequantizeOp::verify() {
  Type element = getInput().getType().getElementType();
  Type real = getType().getElementType();
  if (failed(expectElementType(*this, "scale", getScale(), real)) ||
      failed(expectElementType(*this, "zero point", getZeroPoint(), element)))
    return failure();
  return verifyScaled(*this, getInput(), getAxis(), getScale(), getZeroPoint());
}

LogicalResult RequantizeOp::verify() {
  Type quantized = getType().getElementType();
  if (failed(expectElementType(*this, "zero point", getZeroPoint(), quantized)))
    return failure();
  return verifyScaled(*this, getInput(), getAxis(), getMultiplier(),
                      getZeroPoint());
}

/// Fails unless `zeroPoint` is a scalar (one element) or 1-D of `size`
/// values, one per `what`.
static LogicalResult verifyZeroPoint(Operation *op, StringRef name,
                                     Value zeroPoint, int64_t size,
                                     StringRef what) {
  ArrayRef<int64_t> shape = rankedType(zeroPoint).getShape();
  if (shape.empty() || (shape.size() == 1 && (shape[0] == 1 || shape[0] == size)))
    return success();
  return op->emitOpError() << "expects " << name
                           << " to be a scalar or 1-D of " << size
                           << " values (one per " << what << "), got shape "
                           << formatShape(shape);
}

LogicalResult MatmulIntegerOp::verify() {
  if (failed(expectElementType(*this, "lhs zero point", getLhsZeroPoint(),
                               getLhs().getType().getElementType())) ||
      failed(expectElementType(*this, "rhs zero point", getRhsZeroPoint(),
                               getRhs().getType().getElementType())))
    return failure();
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  FailureOr<SmallVector<int64_t>> expected = inferBatchMatmulShape(*this, lhs, rhs);
  if (failed(expected) ||
      failed(verifyZeroPoint(*this, "lhs_zero_point", getLhsZeroPoint(),
                             lhs[lhs.size() - 2], "row of lhs")) ||
      failed(verifyZeroPoint(*this, "rhs_zero_point", getRhsZeroPoint(),
                             rhs.back(), "column of rhs")))
    return failure();
  return expectShape(*this, "result", getType().getShape(), *expected);
}

LogicalResult ConvIntegerOp::verify() {
  if (failed(expectElementType(*this, "input zero point", getInputZeroPoint(),
                               getInput().getType().getElementType())) ||
      failed(expectElementType(*this, "filter zero point",
                               getFilterZeroPoint(),
                               getFilter().getType().getElementType())))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> filter = getFilter().getType().getShape();
  FailureOr<SmallVector<int64_t>> expected =
      inferConv2dShape(*this, input, filter, getStrides(), getPads(),
                       getDilations(), static_cast<int64_t>(getGroups()));
  if (failed(expected))
    return failure();
  if (failed(verifyZeroPoint(*this, "input_zero_point", getInputZeroPoint(), 1,
                             "tensor")) ||
      failed(verifyZeroPoint(*this, "filter_zero_point", getFilterZeroPoint(),
                             filter[0], "output channel")))
    return failure();
  return expectShape(*this, "result", getType().getShape(), *expected);
}
