// Verifiers of the instance dialect: a group's SplitInfo must describe its own
// output, and an instance must be a valid slice of it.
#include "Instance.h"
#include "ShapeChecks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace turbine;
using namespace turbine::instance;

#include "instance/InstanceOpsDialect.cpp.inc"
#include "instance/InstanceOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "instance/InstanceOpsAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "instance/InstanceOps.cpp.inc"

void InstanceDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "instance/InstanceOpsAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "instance/InstanceOps.cpp.inc"
      >();
}

LogicalResult SplitAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                int64_t dim, int64_t factor, int64_t ops) {
  if (dim < 0)
    return emitError() << "split dimension must be non-negative, got " << dim;
  if (factor < 1)
    return emitError() << "split factor must be positive, got " << factor;
  if (ops < 1)
    return emitError() << "a split must reach at least one operator, got "
                       << ops;
  return success();
}

/// A body's block arguments must be the op's operands and its yield the op's
/// results: the region is isolated, so these are its only inputs and outputs.
static LogicalResult verifyIsolatedBody(Operation *op, Region &body) {
  Block &block = body.front();
  if (block.getArgumentTypes() != op->getOperandTypes())
    return op->emitOpError() << "body arguments (" << block.getArgumentTypes()
                             << ") differ from the operands ("
                             << op->getOperandTypes() << ")";
  // Ops are verified before their blocks: a block that is empty or does not
  // end in a terminator is left to MLIR's block verifier (and SingleBlock),
  // which report it as such, rather than taking its last op as the yield.
  if (block.empty() || !block.back().mightHaveTrait<OpTrait::IsTerminator>())
    return success();
  Operation *terminator = &block.back();
  if (terminator->getOperandTypes() != op->getResultTypes()) {
    InFlightDiagnostic diag =
        op->emitOpError() << "body yields (" << terminator->getOperandTypes()
                          << ") but the results are (" << op->getResultTypes()
                          << ")";
    diag.attachNote(terminator->getLoc()) << "yield is here";
    return diag;
  }
  return success();
}

/// The rank of the first result: the output that splits are defined against.
static int64_t outputRank(Operation *op) {
  return op->getNumResults() == 0
             ? 0
             : cast<ShapedType>(op->getResult(0).getType()).getRank();
}

/// A share along `dim` (-1: the whole) of `outer`: what one cluster holds.
static LogicalResult verifyShare(Operation *op, StringRef what, unsigned index,
                                 Type outer, Type share, int64_t dim,
                                 int64_t count) {
  auto whole = cast<ShapedType>(outer);
  auto part = cast<ShapedType>(share);
  if (dim < -1 || dim >= whole.getRank())
    return op->emitOpError() << what << " " << index << ": dimension " << dim
                             << " is out of range for rank " << whole.getRank();
  bool matches = whole.getElementType() == part.getElementType() &&
                 whole.getRank() == part.getRank();
  for (int64_t d = 0; matches && d < whole.getRank(); ++d)
    matches = whole.getDimSize(d) ==
              (d == dim ? count : 1) * part.getDimSize(d);
  if (!matches)
    return op->emitOpError()
           << what << " " << index << " of type " << outer
           << (dim == -1 ? Twine(" is read whole")
                         : Twine(" is cut along dimension ") + Twine(dim) +
                               " into " + Twine(count) + " shares")
           << " but the body has " << share;
  return success();
}

LogicalResult ClustersOp::verify() {
  int64_t count = static_cast<int64_t>(getCount());
  if (count < 1)
    return emitOpError() << "expects a positive cluster count, got " << count;
  if (getInputDims().size() != getInputs().size())
    return emitOpError() << "input_dims has " << getInputDims().size()
                         << " entries for " << getInputs().size() << " operands";
  if (getResultDims().size() != getNumResults())
    return emitOpError() << "result_dims has " << getResultDims().size()
                         << " entries for " << getNumResults() << " results";
  Block &block = getBody().front();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "the body has " << block.getNumArguments()
                         << " arguments for " << getInputs().size() << " operands";
  for (auto [index, operand] : llvm::enumerate(getInputs()))
    if (failed(verifyShare(*this, "operand", index, operand.getType(),
                           block.getArgument(index).getType(),
                           getInputDims()[index], count)))
      return failure();
  if (block.empty() || !block.back().mightHaveTrait<OpTrait::IsTerminator>())
    return success();
  Operation *terminator = &block.back();
  if (terminator->getNumOperands() != getNumResults())
    return emitOpError() << "the body yields " << terminator->getNumOperands()
                         << " values for " << getNumResults() << " results";
  for (auto [index, result] : llvm::enumerate(getResults()))
    if (failed(verifyShare(*this, "result", index, result.getType(),
                           terminator->getOperand(index).getType(),
                           getResultDims()[index], count)))
      return failure();
  return success();
}

LogicalResult GroupOp::verify() {
  if (failed(verifyIsolatedBody(*this, getBody())))
    return failure();
  int64_t rank = outputRank(*this);
  if (ArrayAttr info = getSplitInfoAttr()) {
    for (SplitAttr split : info.getAsRange<SplitAttr>())
      if (split.getDim() >= rank)
        return emitOpError() << "split_info names dimension " << split.getDim()
                             << " but the output has rank " << rank;
  }
  if (SplitAttr best = getBestSplitAttr()) {
    ArrayAttr info = getSplitInfoAttr();
    if (!info || !llvm::is_contained(info.getValue(), Attribute(best)))
      return emitOpError() << "best_split " << best
                           << " is not one of the split_info tuples";
  }
  return success();
}

/// The instances of a group must cover its output exactly once: `count`
/// siblings in one block with the indices 0 to count - 1, each once, the same
/// dimension and results of the same types. Checked from instance 0, which
/// reports the group's problem once.
static LogicalResult verifyCoverage(InstanceOp op) {
  if (static_cast<int64_t>(op.getIndex()) != 0 || !op->getBlock())
    return success();
  int64_t count = static_cast<int64_t>(op.getCount());
  // By index, not a vector of `count`: the count is the IR's to state, and a huge one must be
  // reported as a missing instance rather than allocated.
  llvm::DenseMap<int64_t, InstanceOp> siblings;
  for (Operation &other : *op->getBlock()) {
    auto instance = dyn_cast<InstanceOp>(&other);
    if (!instance || instance.getGroup() != op.getGroup())
      continue;
    if (static_cast<int64_t>(instance.getCount()) != count ||
        instance.getDim() != op.getDim() ||
        instance->getResultTypes() != op->getResultTypes()) {
      InFlightDiagnostic diag =
          op.emitOpError() << "instances of group '" << op.getGroup()
                           << "' differ in their count, dimension or result "
                              "types: they must be equal slices of one output";
      diag.attachNote(instance.getLoc()) << "this instance differs";
      return diag;
    }
    int64_t index = static_cast<int64_t>(instance.getIndex());
    // The first instance 0 of the group reports for all of them.
    if (index == 0 && !siblings.contains(0) && instance != op)
      return success();
    if (index >= 0 && index < count) {
      if (siblings.contains(index)) {
        InFlightDiagnostic diag =
            op.emitOpError() << "group '" << op.getGroup() << "' has two instances "
                             << index << " of " << count
                             << ": they would compute one slice twice";
        diag.attachNote(instance.getLoc()) << "the second is here";
        return diag;
      }
      siblings[index] = instance;
    }
  }
  // Stops at the first missing index: at most siblings.size() + 1 steps.
  for (int64_t index = 0; index < count; ++index)
    if (!siblings.contains(index))
      return op.emitOpError() << "group '" << op.getGroup() << "' has no instance "
                              << index << " of " << count
                              << ": its output would not be covered";
  return success();
}

LogicalResult InstanceOp::verify() {
  if (failed(verifyIsolatedBody(*this, getBody())))
    return failure();
  if (static_cast<int64_t>(getCount()) < 1)
    return emitOpError() << "expects a positive instance count, got "
                         << static_cast<int64_t>(getCount());
  if (static_cast<int64_t>(getIndex()) < 0 || static_cast<int64_t>(getIndex()) >= static_cast<int64_t>(getCount()))
    return emitOpError() << "index " << static_cast<int64_t>(getIndex()) << " is not in [0, "
                         << static_cast<int64_t>(getCount()) << ")";
  int64_t rank = outputRank(*this);
  int64_t dim = static_cast<int64_t>(getDim());
  // A scalar output is computed by one instance, which names dimension 0.
  if (rank == 0 && (dim != 0 || static_cast<int64_t>(getCount()) != 1))
    return emitOpError() << "a scalar output is computed by one instance along dimension 0";
  if (rank > 0 && (dim < 0 || dim >= rank))
    return emitOpError() << "split dimension " << dim
                         << " is out of range for an output of rank " << rank;
  if (failed(verifyCoverage(*this)))
    return failure();
  if (std::optional<ArrayRef<int64_t>> bind = getBind()) {
    if ((int64_t)bind->size() != rank)
      return emitOpError() << "bind has " << bind->size()
                           << " factors but the output has rank " << rank;
    for (int64_t factor : *bind)
      if (factor < 1)
        return emitOpError() << "bind factors must be positive, got "
                             << formatShape(*bind);
  }
  return success();
}

LogicalResult ConcatOp::verify() {
  return verifyConcatenation(*this, static_cast<int64_t>(getAxis()));
}

LogicalResult SliceOp::verify() {
  ArrayRef<int64_t> source = getSource().getType().getShape();
  ArrayRef<int64_t> result = getType().getShape();
  ArrayRef<int64_t> offsets = getOffsets();
  if (getSource().getType().getElementType() != getType().getElementType())
    return emitOpError() << "changes the element type";
  if (offsets.size() != source.size() || result.size() != source.size())
    return emitOpError() << "offsets " << formatShape(offsets) << " and result "
                         << formatShape(result) << " must have the source's rank "
                         << source.size();
  for (size_t d = 0; d < source.size(); ++d)
    if (offsets[d] < 0 || offsets[d] + result[d] > source[d])
      return emitOpError() << "the box at " << formatShape(offsets) << " of shape "
                           << formatShape(result) << " leaves the source "
                           << formatShape(source) << " in dimension " << d;
  return success();
}

LogicalResult RedistributeOp::verify() {
  int64_t rank = getType().getRank();
  for (ArrayRef<int64_t> bind : {getFrom(), getTo()}) {
    if ((int64_t)bind.size() != rank)
      return emitOpError() << "binding " << formatShape(bind) << " has "
                           << bind.size() << " factors but the tensor has rank "
                           << rank;
    for (int64_t factor : bind)
      if (factor < 1)
        return emitOpError() << "binding factors must be positive, got "
                             << formatShape(bind);
  }
  if (getFrom() == getTo())
    return emitOpError() << "redistributes to the binding it already has, "
                         << formatShape(getFrom());
  return success();
}
