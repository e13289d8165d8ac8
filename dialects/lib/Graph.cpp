// Verifiers and folders of the graph dialect. Each verifier recomputes the
// result shape from the operands and attributes and reports the first rule
// that fails, at the op's location.
#include "Graph.h"
#include "ShapeChecks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include <cmath>
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace turbine;
using namespace turbine::graph;

#include "graph/GraphOpsDialect.cpp.inc"
#include "graph/GraphOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "graph/GraphOpsAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "graph/GraphOps.cpp.inc"

void GraphDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "graph/GraphOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "graph/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                            Attribute value, Type type,
                                            Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

//===----------------------------------------------------------------------===//
// Constants and weights
//===----------------------------------------------------------------------===//

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError("expects a non-empty weight name");
  return success();
}

//===----------------------------------------------------------------------===//
// Anchor operators
//===----------------------------------------------------------------------===//

LogicalResult Conv2dOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = tensorType(getInput()).getShape();
  ArrayRef<int64_t> filter = tensorType(getFilter()).getShape();
  FailureOr<SmallVector<int64_t>> expected =
      inferConv2dShape(*this, input, filter, getStrides(), getPads(),
                       getDilations(), static_cast<int64_t>(getGroups()));
  if (failed(expected))
    return failure();
  if (Value bias = getBias()) {
    ArrayRef<int64_t> shape = tensorType(bias).getShape();
    if (shape.size() != 1 || shape[0] != filter[0])
      return emitOpError() << "expects a 1-D bias of " << filter[0]
                           << " values (one per output channel), got shape "
                           << formatShape(shape);
  }
  return expectShape(*this, "result", getType().getShape(), *expected);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  if (lhs.size() != 2 || rhs.size() != 2)
    return emitOpError() << "expects 2-D operands (use graph.batch_matmul for "
                            "batches), got shapes "
                         << formatShape(lhs) << " and " << formatShape(rhs);
  if (lhs[1] != rhs[0])
    return emitOpError() << "inner dimensions differ: " << formatShape(lhs)
                         << " x " << formatShape(rhs);
  return expectShape(*this, "result", getType().getShape(), {lhs[0], rhs[1]});
}

LogicalResult BatchMatmulOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected = inferBatchMatmulShape(
      *this, getLhs().getType().getShape(), getRhs().getType().getShape());
  if (failed(expected))
    return failure();
  return expectShape(*this, "result", getType().getShape(), *expected);
}

LogicalResult GemmOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> a = getA().getType().getShape();
  ArrayRef<int64_t> b = getB().getType().getShape();
  if (a.size() != 2 || b.size() != 2)
    return emitOpError() << "expects 2-D A and B, got shapes "
                         << formatShape(a) << " and " << formatShape(b);
  int64_t m = getTransA() ? a[1] : a[0], ka = getTransA() ? a[0] : a[1];
  int64_t kb = getTransB() ? b[1] : b[0], n = getTransB() ? b[0] : b[1];
  if (ka != kb)
    return emitOpError() << "inner dimensions differ: op(A) is [" << m << ", "
                         << ka << "] and op(B) is [" << kb << ", " << n << "]";
  if (Value c = getC()) {
    ArrayRef<int64_t> shape = tensorType(c).getShape();
    std::optional<SmallVector<int64_t>> joined = broadcastShapes(shape, {m, n});
    if (shape.size() > 2 || !joined || *joined != SmallVector<int64_t>{m, n})
      return emitOpError() << "expects C to broadcast to [" << m << ", " << n
                           << "], got shape " << formatShape(shape);
  }
  return expectShape(*this, "result", getType().getShape(), {m, n});
}

//===----------------------------------------------------------------------===//
// Elementwise operators
//===----------------------------------------------------------------------===//

static LogicalResult verifyBinary(Operation *op) {
  if (failed(verifySameElementType(op)))
    return failure();
  ArrayRef<int64_t> lhs = tensorType(op->getOperand(0)).getShape();
  ArrayRef<int64_t> rhs = tensorType(op->getOperand(1)).getShape();
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  if (!shape)
    return op->emitOpError() << "operand shapes " << formatShape(lhs) << " and "
                             << formatShape(rhs) << " do not broadcast";
  return expectShape(op, "result", tensorType(op->getResult(0)).getShape(),
                     *shape);
}

LogicalResult AddOp::verify() { return verifyBinary(*this); }
LogicalResult SubOp::verify() { return verifyBinary(*this); }
LogicalResult MulOp::verify() { return verifyBinary(*this); }
LogicalResult DivOp::verify() { return verifyBinary(*this); }
LogicalResult PowOp::verify() { return verifyBinary(*this); }

LogicalResult ClipOp::verify() {
  if (getMin().convertToFloat() > getMax().convertToFloat())
    return emitOpError() << "expects min <= max, got min = "
                         << getMin().convertToFloat()
                         << " and max = " << getMax().convertToFloat();
  return success();
}

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

LogicalResult BatchNormOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  if (input.size() < 2)
    return emitOpError() << "expects an input of rank at least 2 (N, C, ...), "
                            "got shape "
                         << formatShape(input);
  // Named arrays: an ArrayRef or ValueRange of a braced list inside the range
  // of a for loop would point at a temporary that dies before the loop runs.
  const StringRef names[] = {"scale", "bias", "mean", "variance"};
  const Value values[] = {getScale(), getBias(), getMean(), getVariance()};
  for (auto [name, value] : llvm::zip(names, values))
    if (failed(expectShape(*this, name, tensorType(value).getShape(),
                           {input[1]})))
      return failure();
  return expectShape(*this, "result", getType().getShape(), input);
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  std::optional<int64_t> axis = normalizeAxis(static_cast<int64_t>(getAxis()), input.size());
  if (!axis)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " is out of range for rank "
                         << input.size();
  ArrayRef<int64_t> normalized = input.drop_front(*axis);
  if (failed(expectShape(*this, "scale", getScale().getType().getShape(),
                         normalized)))
    return failure();
  if (Value bias = getBias())
    if (failed(expectShape(*this, "bias", tensorType(bias).getShape(),
                           normalized)))
      return failure();
  return expectShape(*this, "result", getType().getShape(), input);
}

LogicalResult SoftmaxOp::verify() {
  int64_t rank = getType().getRank();
  if (!normalizeAxis(static_cast<int64_t>(getAxis()), rank))
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " is out of range for rank "
                         << rank;
  return success();
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

LogicalResult MaxPool2dOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected =
      inferPool2dShape(*this, getInput().getType().getShape(), getKernel(),
                       getStrides(), getPads(), getDilations(), getCeilMode());
  if (failed(expected))
    return failure();
  return expectShape(*this, "result", getType().getShape(), *expected);
}

LogicalResult AvgPool2dOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected = inferPool2dShape(
      *this, getInput().getType().getShape(), getKernel(), getStrides(),
      getPads(), {1, 1}, getCeilMode());
  if (failed(expected))
    return failure();
  return expectShape(*this, "result", getType().getShape(), *expected);
}

LogicalResult GlobalAvgPoolOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  if (input.size() < 3)
    return emitOpError() << "expects an input of rank at least 3 (N, C, "
                            "spatial...), got shape "
                         << formatShape(input);
  SmallVector<int64_t> expected(input.size(), 1);
  expected[0] = input[0];
  expected[1] = input[1];
  return expectShape(*this, "result", getType().getShape(), expected);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  int64_t in = getInput().getType().getNumElements();
  int64_t out = getType().getNumElements();
  if (in != out)
    return emitOpError() << "cannot reshape " << in << " elements ("
                         << formatShape(getInput().getType().getShape())
                         << ") into " << out << " ("
                         << formatShape(getType().getShape()) << ")";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput()))
    return dense.reshape(getType());
  return {};
}

LogicalResult TransposeOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> permutation = getPermutation();
  if (permutation.size() != input.size())
    return emitOpError() << "expects a permutation of " << input.size()
                         << " dimensions, got " << formatShape(permutation);
  llvm::SmallSet<int64_t, 8> seen;
  SmallVector<int64_t> expected;
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= (int64_t)input.size() || !seen.insert(dim).second)
      return emitOpError() << formatShape(permutation)
                           << " is not a permutation of 0.." << input.size() - 1;
    expected.push_back(input[dim]);
  }
  return expectShape(*this, "result", getType().getShape(), expected);
}

LogicalResult FlattenOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  int64_t rank = input.size();
  int64_t axis = static_cast<int64_t>(getAxis()) < 0 ? static_cast<int64_t>(getAxis()) + rank : static_cast<int64_t>(getAxis());
  if (axis < 0 || axis > rank)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " is out of range for rank "
                         << rank;
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i)
    (i < axis ? outer : inner) *= input[i];
  return expectShape(*this, "result", getType().getShape(), {outer, inner});
}

LogicalResult ConcatOp::verify() {
  return verifyConcatenation(*this, static_cast<int64_t>(getAxis()));
}

LogicalResult SplitOp::verify() {
  if (getNumResults() == 0)
    return emitOpError("expects at least one result");
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  std::optional<int64_t> axis = normalizeAxis(static_cast<int64_t>(getAxis()), input.size());
  if (!axis)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " is out of range for rank "
                         << input.size();
  int64_t total = 0;
  for (auto [index, result] : llvm::enumerate(getResults())) {
    ArrayRef<int64_t> shape = tensorType(result).getShape();
    SmallVector<int64_t> expected(input);
    if (shape.size() == input.size())
      expected[*axis] = shape[*axis];
    if (failed(expectShape(*this, "result #" + std::to_string(index), shape,
                           expected)))
      return failure();
    total += shape[*axis];
  }
  if (total != input[*axis])
    return emitOpError() << "result sizes along axis " << *axis
                         << " add up to " << total << " but the input has "
                         << input[*axis];
  return success();
}

LogicalResult SliceOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> result = getType().getShape();
  ArrayRef<int64_t> starts = getStarts();
  SmallVector<int64_t> steps(input.size(), 1);
  if (std::optional<ArrayRef<int64_t>> given = getSteps())
    steps.assign(given->begin(), given->end());
  if (result.size() != input.size() || starts.size() != input.size() ||
      steps.size() != input.size())
    return emitOpError() << "expects input, result, starts and steps of one "
                            "rank, got "
                         << input.size() << ", " << result.size() << ", "
                         << starts.size() << " and " << steps.size();
  for (size_t d = 0; d < input.size(); ++d) {
    if (steps[d] < 1)
      return emitOpError() << "expects positive steps, got "
                           << formatShape(steps);
    if (starts[d] < 0)
      return emitOpError() << "expects non-negative starts, got "
                           << formatShape(starts);
    if (result[d] > 0 && starts[d] + (result[d] - 1) * steps[d] >= input[d])
      return emitOpError() << "window of " << result[d] << " elements from "
                           << starts[d] << " with step " << steps[d]
                           << " runs past dimension " << d << " of size "
                           << input[d];
  }
  return success();
}

LogicalResult PadOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> pads = getPads();
  size_t rank = input.size();
  if (pads.size() != 2 * rank)
    return emitOpError() << "expects " << 2 * rank << " pad amounts (before "
                            "and after each dimension), got "
                         << pads.size();
  SmallVector<int64_t> expected;
  for (size_t d = 0; d < rank; ++d) {
    // A dimension not padded needs no reflection, even when it is empty.
    if (getMode() == PadMode::reflect && std::max(pads[d], pads[rank + d]) > 0 &&
        (pads[d] >= input[d] || pads[rank + d] >= input[d]))
      return emitOpError() << "reflect padding of dimension " << d
                           << " must be smaller than its size " << input[d];
    expected.push_back(input[d] + pads[d] + pads[rank + d]);
    if (expected.back() < 0)
      return emitOpError() << "pads " << formatShape(pads)
                           << " remove more than dimension " << d << " holds";
  }
  return expectShape(*this, "result", getType().getShape(), expected);
}

/// `2` rather than `2.000000e+00`, for messages.
static std::string shortest(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

LogicalResult ResizeOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> output = getType().getShape();
  ArrayRef<float> scales = getScales();
  if (scales.size() != input.size())
    return emitOpError() << "expects one scale per dimension (" << input.size()
                         << "), got " << scales.size();
  if (output.size() != input.size())
    return emitOpError() << "result rank " << output.size()
                         << " differs from the input's " << input.size();
  for (size_t d = 0; d < input.size(); ++d) {
    if (!(scales[d] > 0.0f))
      return emitOpError() << "scale of dimension " << d
                           << " must be positive, got " << shortest(scales[d]);
    double exact = static_cast<double>(input[d]) * scales[d];
    if (output[d] < 0 || std::abs(static_cast<double>(output[d]) - exact) >= 1.0)
      return emitOpError() << "result dimension " << d << " is " << output[d]
                           << " but " << input[d] << " scaled by "
                           << shortest(scales[d]) << " is " << shortest(exact);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

/// `input` without its `reduced` dimensions, or with them as 1 under `keepdims`.
static SmallVector<int64_t> reducedShape(ArrayRef<int64_t> input,
                                         const llvm::SmallSet<int64_t, 8> &reduced,
                                         bool keepdims) {
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < input.size(); ++d) {
    if (!reduced.contains(d))
      shape.push_back(input[d]);
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

static LogicalResult verifyReduction(Operation *op, ArrayRef<int64_t> axes,
                                     bool keepdims) {
  if (failed(verifySameElementType(op)))
    return failure();
  ArrayRef<int64_t> input = tensorType(op->getOperand(0)).getShape();
  llvm::SmallSet<int64_t, 8> reduced;
  if (axes.empty())
    for (size_t d = 0; d < input.size(); ++d)
      reduced.insert(d);
  for (int64_t axis : axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, input.size());
    if (!normalized)
      return op->emitOpError() << "axis " << axis << " is out of range for rank "
                               << input.size();
    if (!reduced.insert(*normalized).second)
      return op->emitOpError() << "reduces axis " << *normalized << " twice";
  }
  return expectShape(op, "result", tensorType(op->getResult(0)).getShape(),
                     reducedShape(input, reduced, keepdims));
}

LogicalResult ReduceSumOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepdims());
}
LogicalResult ReduceMeanOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepdims());
}
LogicalResult ReduceMaxOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepdims());
}
LogicalResult ReduceProdOp::verify() {
  return verifyReduction(*this, getAxes(), getKeepdims());
}

/// Checks an index-of-extreme op: the axis is in range and not empty, and the
/// result is the input's shape without it (or with it as 1 under `keepdims`).
static LogicalResult verifyArgReduction(Operation *op, int64_t axisGiven,
                                        bool keepdims) {
  ArrayRef<int64_t> input = tensorType(op->getOperand(0)).getShape();
  std::optional<int64_t> axis = normalizeAxis(axisGiven, input.size());
  if (!axis)
    return op->emitOpError() << "axis " << axisGiven
                             << " is out of range for rank " << input.size();
  if (input[*axis] == 0)
    return op->emitOpError() << "axis " << *axis
                             << " is empty: it has no extreme element";
  llvm::SmallSet<int64_t, 8> reduced;
  reduced.insert(*axis);
  return expectShape(op, "result", tensorType(op->getResult(0)).getShape(),
                     reducedShape(input, reduced, keepdims));
}

LogicalResult ArgMaxOp::verify() {
  return verifyArgReduction(*this, getAxis(), getKeepdims());
}
LogicalResult ArgMinOp::verify() {
  return verifyArgReduction(*this, getAxis(), getKeepdims());
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

/// Checks that a region's terminator yields exactly `expected`.
static LogicalResult verifyYield(Operation *op, Region &region,
                                 StringRef regionName, TypeRange expected) {
  // Ops are verified before their blocks: a block that is empty or does not
  // end in a terminator is left to MLIR's block verifier, which reports it as
  // such, rather than taking its last op (or nothing) as the yield.
  Block &block = region.front();
  if (block.empty() || !block.back().mightHaveTrait<OpTrait::IsTerminator>())
    return success();
  Operation *terminator = &block.back();
  TypeRange yielded = terminator->getOperandTypes();
  if (yielded != expected) {
    InFlightDiagnostic diag = op->emitOpError()
                              << regionName << " yields (" << yielded
                              << ") but (" << expected << ") is expected";
    diag.attachNote(terminator->getLoc()) << "yield is here";
    return diag;
  }
  return success();
}

LogicalResult IfOp::verify() {
  if (failed(verifyYield(*this, getThenRegion(), "then region",
                         getResultTypes())))
    return failure();
  return verifyYield(*this, getElseRegion(), "else region", getResultTypes());
}

LogicalResult LoopOp::verify() {
  TypeRange inits = getInits().getTypes();
  if (TypeRange(getResultTypes()) != inits)
    return emitOpError() << "result types (" << getResultTypes()
                         << ") differ from the loop-carried types (" << inits
                         << ")";
  Block &body = getBody().front();
  Type indexType = RankedTensorType::get({}, IntegerType::get(getContext(), 64));
  Type boolType = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  SmallVector<Type> arguments = {indexType};
  llvm::append_range(arguments, inits);
  if (body.getArgumentTypes() != TypeRange(arguments))
    return emitOpError() << "body arguments (" << body.getArgumentTypes()
                         << ") must be the iteration number and the carried "
                            "values ("
                         << TypeRange(arguments) << ")";
  SmallVector<Type> yielded = {boolType};
  llvm::append_range(yielded, inits);
  return verifyYield(*this, getBody(), "body", yielded);
}

LogicalResult MaxOp::verify() { return verifyBinary(*this); }
LogicalResult MinOp::verify() { return verifyBinary(*this); }
LogicalResult ModOp::verify() { return verifyBinary(*this); }

LogicalResult LrnOp::verify() {
  if (getType().getRank() != 4)
    return emitOpError() << "expects a 4-D NCHW input, got shape "
                         << formatShape(getType().getShape());
  if (static_cast<int64_t>(getSize()) < 1)
    return emitOpError() << "expects a positive size, got "
                         << static_cast<int64_t>(getSize());
  return success();
}

LogicalResult GatherOp::verify() {
  ArrayRef<int64_t> data = getData().getType().getShape();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  if (getData().getType().getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the data's "
                         << getData().getType().getElementType();
  std::optional<int64_t> axis =
      normalizeAxis(static_cast<int64_t>(getAxis()), data.size());
  if (!axis)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis())
                         << " is out of range for rank " << data.size();
  SmallVector<int64_t> expected(data.begin(), data.begin() + *axis);
  llvm::append_range(expected, indices);
  expected.append(data.begin() + *axis + 1, data.end());
  return expectShape(*this, "result", getType().getShape(), expected);
}

/// The rules graph.gather_elements and graph.scatter_elements share: indices of the data's
/// rank, an axis of it, and indices no larger than the data along every other axis.
static LogicalResult verifyElementIndices(Operation *op, ArrayRef<int64_t> data,
                                          ArrayRef<int64_t> indices, int64_t axisGiven) {
  if (indices.size() != data.size())
    return op->emitOpError() << "indices of rank " << indices.size()
                             << " for data of rank " << data.size();
  std::optional<int64_t> axis = normalizeAxis(axisGiven, data.size());
  if (!axis)
    return op->emitOpError() << "axis " << axisGiven << " is out of range for rank "
                             << data.size();
  for (size_t d = 0; d < data.size(); ++d)
    if (static_cast<int64_t>(d) != *axis && indices[d] > data[d])
      return op->emitOpError() << "indices " << formatShape(indices)
                               << " reach past the data " << formatShape(data)
                               << " along dimension " << d;
  return success();
}

LogicalResult GatherElementsOp::verify() {
  ArrayRef<int64_t> data = getData().getType().getShape();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  if (getData().getType().getElementType() != getType().getElementType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " differs from the data's "
                         << getData().getType().getElementType();
  if (failed(verifyElementIndices(*this, data, indices, static_cast<int64_t>(getAxis()))))
    return failure();
  return expectShape(*this, "result", getType().getShape(), indices);
}

LogicalResult ScatterElementsOp::verify() {
  ArrayRef<int64_t> data = getData().getType().getShape();
  ArrayRef<int64_t> indices = getIndices().getType().getShape();
  Type element = getData().getType().getElementType();
  if (getType() != getData().getType())
    return emitOpError() << "result type " << getType() << " differs from the data's "
                         << getData().getType();
  if (getUpdates().getType().getElementType() != element)
    return emitOpError() << "updates of element type "
                         << getUpdates().getType().getElementType()
                         << " for data of " << element;
  if (getUpdates().getType().getShape() != indices)
    return emitOpError() << "updates " << formatShape(getUpdates().getType().getShape())
                         << " differ from the indices " << formatShape(indices);
  if (failed(verifyElementIndices(*this, data, indices, static_cast<int64_t>(getAxis()))))
    return failure();
  if (getReduction() != ScatterReduction::none && element.isInteger(1))
    return emitOpError() << "reduction '" << stringifyScatterReduction(getReduction())
                         << "' on booleans";
  return success();
}

LogicalResult CompareOp::verify() {
  if (getLhs().getType().getElementType() != getRhs().getType().getElementType())
    return emitOpError() << "compares different element types "
                         << getLhs().getType().getElementType() << " and "
                         << getRhs().getType().getElementType();
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  if (!shape)
    return emitOpError() << "operand shapes " << formatShape(lhs) << " and "
                         << formatShape(rhs) << " do not broadcast";
  return expectShape(*this, "result", getType().getShape(), *shape);
}

LogicalResult WhereOp::verify() {
  if (getLhs().getType().getElementType() != getType().getElementType() ||
      getRhs().getType().getElementType() != getType().getElementType())
    return emitOpError() << "expects both choices and the result to share one "
                            "element type, got "
                         << getLhs().getType().getElementType() << ", "
                         << getRhs().getType().getElementType() << " and "
                         << getType().getElementType();
  ArrayRef<int64_t> condition = getCondition().getType().getShape();
  ArrayRef<int64_t> lhs = getLhs().getType().getShape();
  ArrayRef<int64_t> rhs = getRhs().getType().getShape();
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  if (shape)
    shape = broadcastShapes(condition, *shape);
  if (!shape)
    return emitOpError() << "shapes " << formatShape(condition) << ", "
                         << formatShape(lhs) << " and " << formatShape(rhs)
                         << " do not broadcast";
  return expectShape(*this, "result", getType().getShape(), *shape);
}

LogicalResult CastOp::verify() {
  return expectShape(*this, "result", getType().getShape(),
                     getInput().getType().getShape());
}

LogicalResult BroadcastOp::verify() {
  if (failed(verifySameElementType(*this)))
    return failure();
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> result = getType().getShape();
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(input, result);
  if (!shape || ArrayRef<int64_t>(*shape) != result)
    return emitOpError() << "cannot broadcast " << formatShape(input) << " to "
                         << formatShape(result);
  return success();
}
