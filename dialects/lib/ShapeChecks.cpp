#include "ShapeChecks.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace turbine {

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "[";
  // Dynamic sizes (memref tiles of the dsa dialect may have them) print as in
  // MLIR's own types rather than as INT64_MIN.
  llvm::interleaveComma(shape, os, [&](int64_t size) {
    if (ShapedType::isDynamic(size))
      os << "?";
    else
      os << size;
  });
  os << "]";
  return text;
}

std::optional<int64_t> windowOutputSize(int64_t input, int64_t padBefore,
                                        int64_t padAfter, int64_t kernel,
                                        int64_t stride, int64_t dilation,
                                        bool ceilMode) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = input + padBefore + padAfter;
  if (padded < span)
    return std::nullopt;
  int64_t steps = padded - span;
  int64_t out = (ceilMode ? (steps + stride - 1) / stride : steps / stride) + 1;
  // ONNX: with ceil_mode, a last window that starts inside the right padding
  // is dropped.
  if (ceilMode && (out - 1) * stride >= input + padBefore)
    --out;
  return out;
}

static LogicalResult verifyList(Operation *op, StringRef name,
                                ArrayRef<int64_t> values, size_t size,
                                int64_t minimum) {
  if (values.size() != size)
    return op->emitOpError() << "expects '" << name << "' to have " << size
                             << " values, got " << values.size();
  for (int64_t value : values)
    if (value < minimum)
      return op->emitOpError()
             << "expects every value of '" << name << "' to be at least "
             << minimum << ", got " << formatShape(values);
  return success();
}

LogicalResult verifyWindowAttributes(Operation *op, ArrayRef<int64_t> kernel,
                                     ArrayRef<int64_t> strides,
                                     ArrayRef<int64_t> pads,
                                     ArrayRef<int64_t> dilations) {
  if (failed(verifyList(op, "kernel", kernel, 2, 1)) ||
      failed(verifyList(op, "strides", strides, 2, 1)) ||
      failed(verifyList(op, "pads", pads, 4, 0)) ||
      failed(verifyList(op, "dilations", dilations, 2, 1)))
    return failure();
  return success();
}

FailureOr<SmallVector<int64_t>>
inferBatchMatmulShape(Operation *op, ArrayRef<int64_t> lhs,
                      ArrayRef<int64_t> rhs) {
  if (lhs.size() < 2 || rhs.size() < 2)
    return op->emitOpError() << "expects operands of rank at least 2, got shapes "
                             << formatShape(lhs) << " and " << formatShape(rhs);
  if (lhs.back() != rhs[rhs.size() - 2])
    return op->emitOpError() << "inner dimensions differ: " << formatShape(lhs)
                             << " x " << formatShape(rhs);
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(lhs.drop_back(2), rhs.drop_back(2));
  if (!batch)
    return op->emitOpError() << "batch dimensions do not broadcast: "
                             << formatShape(lhs.drop_back(2)) << " and "
                             << formatShape(rhs.drop_back(2));
  batch->push_back(lhs[lhs.size() - 2]);
  batch->push_back(rhs.back());
  return *batch;
}

FailureOr<SmallVector<int64_t>>
inferPool2dShape(Operation *op, ArrayRef<int64_t> input,
                 ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                 bool ceilMode) {
  if (input.size() != 4)
    return op->emitOpError() << "expects a 4-D NCHW input, got shape "
                             << formatShape(input);
  if (failed(verifyWindowAttributes(op, kernel, strides, pads, dilations)))
    return failure();
  SmallVector<int64_t> shape = {input[0], input[1]};
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> size =
        windowOutputSize(input[2 + i], pads[i], pads[2 + i], kernel[i],
                         strides[i], dilations[i], ceilMode);
    if (!size)
      return op->emitOpError()
             << "window of " << kernel[i] << " (dilation " << dilations[i]
             << ") does not fit in padded " << (i == 0 ? "height " : "width ")
             << input[2 + i] + pads[i] + pads[2 + i];
    shape.push_back(*size);
  }
  return shape;
}

FailureOr<SmallVector<int64_t>>
inferConv2dShape(Operation *op, ArrayRef<int64_t> input,
                 ArrayRef<int64_t> filter, ArrayRef<int64_t> strides,
                 ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                 int64_t groups) {
  if (input.size() != 4)
    return op->emitOpError() << "expects a 4-D NCHW input, got shape "
                             << formatShape(input);
  if (filter.size() != 4)
    return op->emitOpError() << "expects a 4-D OIHW filter, got shape "
                             << formatShape(filter);
  if (groups < 1)
    return op->emitOpError() << "expects 'groups' to be positive, got "
                             << groups;
  if (input[1] % groups != 0 || filter[0] % groups != 0)
    return op->emitOpError()
           << "expects 'groups' (" << groups
           << ") to divide both the input channels (" << input[1]
           << ") and the output channels (" << filter[0] << ")";
  if (filter[1] * groups != input[1])
    return op->emitOpError()
           << "filter expects " << filter[1] << " input channels per group ("
           << filter[1] * groups << " in all) but the input has " << input[1];
  SmallVector<int64_t> shape = {input[0], filter[0]};
  SmallVector<int64_t> kernel = {filter[2], filter[3]};
  if (failed(verifyWindowAttributes(op, kernel, strides, pads, dilations)))
    return failure();
  for (int i = 0; i < 2; ++i) {
    std::optional<int64_t> size =
        windowOutputSize(input[2 + i], pads[i], pads[2 + i], kernel[i],
                         strides[i], dilations[i], /*ceilMode=*/false);
    if (!size)
      return op->emitOpError()
             << "filter of " << kernel[i] << " (dilation " << dilations[i]
             << ") does not fit in padded " << (i == 0 ? "height " : "width ")
             << input[2 + i] + pads[i] + pads[2 + i];
    shape.push_back(*size);
  }
  return shape;
}

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t l = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t r = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (l != r && l != 1 && r != 1)
      return std::nullopt;
    shape[i] = l == 1 ? r : l;
  }
  return shape;
}

LogicalResult expectShape(Operation *op, StringRef what,
                          ArrayRef<int64_t> actual,
                          ArrayRef<int64_t> expected) {
  if (actual == expected)
    return success();
  return op->emitOpError() << what << " shape " << formatShape(actual)
                           << " does not match the expected "
                           << formatShape(expected);
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

/// Every shaped operand and result of `op` must share one element type. Other
/// operands and results (the `!dsa.token`s of asynchronous instructions) are
/// not data and are skipped.
LogicalResult verifySameElementType(Operation *op) {
  Type element;
  for (Type type : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped)
      continue;
    Type current = shaped.getElementType();
    if (!element)
      element = current;
    else if (current != element)
      return op->emitOpError() << "expects one element type for all operands "
                                  "and results, got "
                               << element << " and " << current;
  }
  return success();
}

/// The rule shared by graph.concat and instance.concat: same rank and element
/// type, equal sizes off the axis, sizes along the axis adding up.
LogicalResult verifyConcatenation(Operation *op, int64_t axisAttr) {
  if (op->getNumOperands() == 0)
    return op->emitOpError("expects at least one operand");
  if (failed(verifySameElementType(op)))
    return failure();
  ArrayRef<int64_t> result = cast<ShapedType>(op->getResult(0).getType()).getShape();
  std::optional<int64_t> axis = normalizeAxis(axisAttr, result.size());
  if (!axis)
    return op->emitOpError() << "axis " << axisAttr
                             << " is out of range for rank " << result.size();
  int64_t total = 0;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    ArrayRef<int64_t> shape = cast<ShapedType>(operand.getType()).getShape();
    if (shape.size() != result.size())
      return op->emitOpError()
             << "operand #" << index << " has rank " << shape.size()
             << " but the result has rank " << result.size();
    for (size_t d = 0; d < shape.size(); ++d)
      if (d != (size_t)*axis && shape[d] != result[d])
        return op->emitOpError()
               << "operand #" << index << " has shape " << formatShape(shape)
               << ", which differs from the result "
               << formatShape(result) << " in dimension " << d
               << " (only the axis " << *axis << " may differ)";
    total += shape[*axis];
  }
  if (total != result[*axis])
    return op->emitOpError() << "operand sizes along axis " << *axis
                             << " add up to " << total << " but the result has "
                             << result[*axis];
  return success();
}

} // namespace turbine
