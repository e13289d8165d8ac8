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
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (failed(verifyScaleShape(*this, shape, getAxis(), getScale(),
                              getZeroPoint())))
    return failure();
  return expectShape(*this, "result", getType().getShape(), shape);
}

LogicalResult DequantizeOp::verify() {
  Type element = getInput().getType().getElementType();
  Type real = getType().getElementType();
  if (failed(expectElementType(*this, "scale", getScale(), real)) ||
      failed(expectElementType(*this, "zero point", getZeroPoint(), element)))
    return failure();
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (failed(verifyScaleShape(*this, shape, getAxis(), getScale(),
                              getZeroPoint())))
    return failure();
  return expectShape(*this, "result", getType().getShape(), shape);
}

LogicalResult RequantizeOp::verify() {
  Type quantized = getType().getElementType();
  if (failed(expectElementType(*this, "zero point", getZeroPoint(), quantized)))
    return failure();
  ArrayRef<int64_t> shape = getInput().getType().getShape();
  if (failed(verifyScaleShape(*this, shape, getAxis(), getMultiplier(),
                              getZeroPoint())))
    return failure();
  return expectShape(*this, "result", getType().getShape(), shape);
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
  if (lhs.size() < 2 || rhs.size() < 2)
    return emitOpError() << "expects operands of rank at least 2, got shapes "
                         << formatShape(lhs) << " and " << formatShape(rhs);
  if (lhs.back() != rhs[rhs.size() - 2])
    return emitOpError() << "inner dimensions differ: " << formatShape(lhs)
                         << " x " << formatShape(rhs);
  if (failed(verifyZeroPoint(*this, "lhs_zero_point", getLhsZeroPoint(),
                             lhs[lhs.size() - 2], "row of lhs")) ||
      failed(verifyZeroPoint(*this, "rhs_zero_point", getRhsZeroPoint(),
                             rhs.back(), "column of rhs")))
    return failure();
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return emitOpError() << "batch dimensions do not broadcast: "
                         << formatShape(lhs.drop_back(2)) << " and "
                         << formatShape(rhs.drop_back(2));
  batch->push_back(lhs[lhs.size() - 2]);
  batch->push_back(rhs.back());
  return expectShape(*this, "result", getType().getShape(), *batch);
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
