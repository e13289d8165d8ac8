// Verifiers of the dsa dialect: instructions run on buffers of the level their
// unit can reach, with shapes that agree, and launches name cores that exist.
#include "Dsa.h"
#include "ShapeChecks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace turbine;
using namespace turbine::dsa;

#include "dsa/DsaOpsDialect.cpp.inc"
#include "dsa/DsaOpsEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "dsa/DsaOpsAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "dsa/DsaOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "dsa/DsaOps.cpp.inc"

void DsaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dsa/DsaOpsAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "dsa/DsaOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dsa/DsaOps.cpp.inc"
      >();
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, int64_t clusters,
                                 int64_t coresPerCluster, int64_t matrixEngines,
                                 int64_t vectorEngines, int64_t vectorCores,
                                 int64_t lbBytes, int64_t gbBytes,
                                 int64_t ddrBytes, llvm::APFloat clockMhz,
                                 llvm::APFloat ddrGbBandwidth,
                                 llvm::APFloat gbLbBandwidth,
                                 llvm::APFloat lbLbBandwidth,
                                 llvm::APFloat matrixFlops, int64_t dmaSetup,
                                 int64_t computeSetup, int64_t barrier,
                                 int64_t kernelLaunch) {
  if (name.empty())
    return emitError() << "target needs a name";
  std::pair<StringRef, int64_t> positive[] = {
      {"clusters", clusters},         {"cores_per_cluster", coresPerCluster},
      {"lb_bytes", lbBytes},          {"gb_bytes", gbBytes},
      {"ddr_bytes", ddrBytes}};
  for (auto [field, value] : positive)
    if (value < 1)
      return emitError() << "target '" << name << "': " << field
                         << " must be positive, got " << value;
  std::pair<StringRef, double> rates[] = {
      {"clock_mhz", clockMhz.convertToDouble()},
      {"ddr_gb_bandwidth", ddrGbBandwidth.convertToDouble()},
      {"gb_lb_bandwidth", gbLbBandwidth.convertToDouble()},
      {"lb_lb_bandwidth", lbLbBandwidth.convertToDouble()}};
  for (auto [field, value] : rates)
    if (!(value > 0))
      return emitError() << "target '" << name << "': " << field
                         << " must be positive, got " << value;
  // Zero when the cores have no matrix engine.
  if (!(matrixFlops.convertToDouble() >= 0))
    return emitError() << "target '" << name
                       << "': matrix_flops must not be negative, got "
                       << matrixFlops.convertToDouble();
  std::pair<StringRef, int64_t> counts[] = {
      {"matrix_engines_per_core", matrixEngines},
      {"vector_engines_per_core", vectorEngines},
      {"vector_cores_per_core", vectorCores},
      {"dma_setup", dmaSetup},
      {"compute_setup", computeSetup},
      {"barrier", barrier},
      {"kernel_launch", kernelLaunch}};
  for (auto [field, value] : counts)
    if (value < 0)
      return emitError() << "target '" << name << "': " << field
                         << " must not be negative, got " << value;
  return success();
}

/// The memory level of a buffer, or nullopt when its memory space is not one
/// of the dialect's.
static std::optional<MemorySpace> memoryLevel(Type type) {
  auto space = dyn_cast_if_present<MemorySpaceAttr>(
      cast<MemRefType>(type).getMemorySpace());
  if (!space)
    return std::nullopt;
  return space.getValue();
}

/// Every buffer operand of a compute instruction must be in a core's LB: the
/// compute units read nothing else.
static LogicalResult verifyInLocalBuffer(Operation *op) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    if (!isa<MemRefType>(operand.getType()))
      continue;
    std::optional<MemorySpace> level = memoryLevel(operand.getType());
    if (level != MemorySpace::lb)
      return op->emitOpError()
             << "operand #" << index << " must be in #dsa.memory_space<lb>, "
             << "the only memory compute units read, but has type "
             << operand.getType();
    if (!cast<MemRefType>(operand.getType()).hasStaticShape())
      return op->emitOpError()
             << "operand #" << index << " must be a statically shaped tile, "
             << "got " << operand.getType();
  }
  return success();
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<MemRefType>(value.getType()).getShape();
}

static TargetAttr enclosingTarget(Operation *op);

LogicalResult AllocOp::verify() {
  MemRefType type = getType();
  if (!memoryLevel(type))
    return emitOpError() << "expects a buffer in a dsa memory space "
                            "(#dsa.memory_space<lb|gb|ddr>), got "
                         << type;
  if (!type.hasStaticShape())
    return emitOpError() << "expects a static shape, got " << type;
  if (!type.getLayout().isIdentity())
    return emitOpError() << "allocates contiguous buffers only, got layout "
                         << type.getLayout();
  IntegerAttr clusterAttr = getClusterAttr(), coreAttr = getCoreAttr();
  if (!clusterAttr && !coreAttr)
    return success();
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError() << "places buffers with 'cluster' and 'core' only on "
                            "the host: inside a kernel a buffer belongs to the "
                            "running core or its cluster";
  MemorySpace level = *memoryLevel(type);
  if (level == MemorySpace::ddr)
    return emitOpError() << "places a DDR buffer, which belongs to no cluster";
  if (coreAttr && level != MemorySpace::lb)
    return emitOpError() << "names a 'core' for a GB buffer, which belongs to "
                            "a cluster";
  int64_t cluster = clusterAttr ? clusterAttr.getInt() : 0;
  int64_t core = coreAttr ? coreAttr.getInt() : 0;
  if (cluster < 0 || core < 0)
    return emitOpError() << "places a buffer at a negative cluster or core";
  if (TargetAttr target = enclosingTarget(*this)) {
    if (cluster >= target.getClusters())
      return emitOpError() << "places a buffer on cluster " << cluster
                           << " but the target has " << target.getClusters()
                           << " clusters";
    if (core >= target.getCoresPerCluster())
      return emitOpError() << "places a buffer on core " << core
                           << " but the target's clusters have "
                           << target.getCoresPerCluster() << " cores";
  }
  return success();
}

LogicalResult DmaOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (!memoryLevel(source) || !memoryLevel(target))
    return emitOpError() << "expects buffers in dsa memory spaces, got "
                         << source << " and " << target;
  // Between float types the copy converts (rounding to the target's type).
  bool converts = isa<FloatType>(source.getElementType()) &&
                  isa<FloatType>(target.getElementType());
  if (source.getElementType() != target.getElementType() && !converts)
    return emitOpError() << "copies between element types "
                         << source.getElementType() << " and "
                         << target.getElementType();
  return expectShape(*this, "target", target.getShape(), source.getShape());
}

/// The element rule of the compute units: buffers of floats of any widths (a unit computes in
/// f32 and rounds what it stores to each buffer's type), or all of one element type.
static LogicalResult verifyComputedElements(Operation *op) {
  bool floats = llvm::all_of(op->getOperandTypes(), [](Type type) {
    auto shaped = dyn_cast<ShapedType>(type);
    return !shaped || isa<FloatType>(shaped.getElementType());
  });
  return floats ? success() : verifySameElementType(op);
}

/// The operands a gather and a scatter share: `source` elements move to `target` at `indices`
/// along `axis` (`verb` says which way, for the message).
static LogicalResult verifyGatherOperands(Operation *op, MemRefType source, MemRefType indices,
                                          MemRefType target, int64_t axis,
                                          StringRef verb = "gathers") {
  if (!memoryLevel(source) || !memoryLevel(indices) || !memoryLevel(target))
    return op->emitOpError() << "expects buffers in dsa memory spaces, got " << source << ", "
                             << indices << " and " << target;
  if (source.getElementType() != target.getElementType())
    return op->emitOpError() << verb << " " << source.getElementType() << " elements into "
                             << target.getElementType() << " elements";
  if (!indices.getElementType().isSignlessInteger(64) &&
      !indices.getElementType().isSignlessInteger(32))
    return op->emitOpError() << "expects i64 or i32 indices, got "
                             << indices.getElementType();
  if (axis < 0 || axis >= source.getRank())
    return op->emitOpError() << "axis " << axis << " is out of range for rank "
                             << source.getRank();
  return success();
}

LogicalResult GatherOp::verify() {
  MemRefType table = getTable().getType(), indices = getIndices().getType(),
             target = getTarget().getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyGatherOperands(*this, table, indices, target, axis)))
    return failure();
  SmallVector<int64_t> expected(table.getShape());
  expected[axis] = indices.getNumElements();
  return expectShape(*this, "target", target.getShape(), expected);
}

LogicalResult GatherElementsOp::verify() {
  MemRefType data = getData().getType(), indices = getIndices().getType(),
             target = getTarget().getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyGatherOperands(*this, data, indices, target, axis)) ||
      failed(expectShape(*this, "target", target.getShape(), indices.getShape())))
    return failure();
  SmallVector<int64_t> expected(data.getShape());
  expected[axis] = indices.getRank() == data.getRank() ? indices.getDimSize(axis) : 0;
  return expectShape(*this, "indices", indices.getShape(), expected);
}

LogicalResult ScatterElementsOp::verify() {
  MemRefType updates = getUpdates().getType(), indices = getIndices().getType(),
             target = getTarget().getType();
  int64_t axis = static_cast<int64_t>(getAxis());
  if (failed(verifyGatherOperands(*this, updates, indices, target, axis, "scatters")) ||
      failed(expectShape(*this, "updates", updates.getShape(), indices.getShape())))
    return failure();
  SmallVector<int64_t> expected(indices.getShape());
  if (indices.getRank() == target.getRank())
    expected[axis] = target.getDimSize(axis);
  if (failed(expectShape(*this, "target", target.getShape(), expected)))
    return failure();
  if (std::optional<BinaryKind> reduction = getReduction()) {
    if (*reduction != BinaryKind::add && *reduction != BinaryKind::mul &&
        *reduction != BinaryKind::max && *reduction != BinaryKind::min)
      return emitOpError() << "reduces by add, mul, max or min, not "
                           << stringifyBinaryKind(*reduction);
    Type element = target.getElementType();
    if (!isa<FloatType>(element) && !element.isSignlessInteger(64) &&
        !element.isSignlessInteger(32))
      return emitOpError() << "reduction " << stringifyBinaryKind(*reduction)
                           << " combines float, i64 or i32 elements, not " << element;
  }
  return success();
}

LogicalResult ConvertOp::verify() {
  if (failed(verifyInLocalBuffer(*this)))
    return failure();
  return expectShape(*this, "output", shapeOf(getOutput()), shapeOf(getInput()));
}

LogicalResult CompareOp::verify() {
  if (failed(verifyInLocalBuffer(*this)))
    return failure();
  Type lhs = getLhs().getType().getElementType(), rhs = getRhs().getType().getElementType();
  if (lhs != rhs)
    return emitOpError() << "compares " << lhs << " with " << rhs;
  if (!getOutput().getType().getElementType().isInteger(1))
    return emitOpError() << "expects an i1 output, got "
                         << getOutput().getType().getElementType();
  ArrayRef<int64_t> shape = shapeOf(getLhs());
  if (failed(expectShape(*this, "rhs", shapeOf(getRhs()), shape)))
    return failure();
  return expectShape(*this, "output", shapeOf(getOutput()), shape);
}

LogicalResult SelectOp::verify() {
  if (failed(verifyInLocalBuffer(*this)))
    return failure();
  if (!getCondition().getType().getElementType().isInteger(1))
    return emitOpError() << "expects an i1 condition, got "
                         << getCondition().getType().getElementType();
  Type element = getOutput().getType().getElementType();
  for (Value input : {getLhs(), getRhs()})
    if (cast<MemRefType>(input.getType()).getElementType() != element)
      return emitOpError() << "selects " << cast<MemRefType>(input.getType()).getElementType()
                           << " elements into " << element << " elements";
  ArrayRef<int64_t> shape = shapeOf(getOutput());
  if (failed(expectShape(*this, "condition", shapeOf(getCondition()), shape)) ||
      failed(expectShape(*this, "lhs", shapeOf(getLhs()), shape)))
    return failure();
  return expectShape(*this, "rhs", shapeOf(getRhs()), shape);
}

/// The rules of dsa.argmax and dsa.argmin.
static LogicalResult verifyArgReduce(Operation *op, Value input, Value output, int64_t axis) {
  if (failed(verifyInLocalBuffer(op)))
    return failure();
  MemRefType in = cast<MemRefType>(input.getType()), out = cast<MemRefType>(output.getType());
  if (!isa<FloatType>(in.getElementType()) || !out.getElementType().isSignlessInteger(64))
    return op->emitOpError() << "reads floats into i64, not " << in.getElementType() << " into "
                             << out.getElementType();
  std::optional<int64_t> along = normalizeAxis(axis, in.getRank());
  if (!along)
    return op->emitOpError() << "axis " << axis << " is out of range for rank " << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  expected[*along] = 1;
  return expectShape(op, "output", out.getShape(), expected);
}

LogicalResult ArgMaxOp::verify() {
  return verifyArgReduce(*this, getInput(), getOutput(), static_cast<int64_t>(getAxis()));
}

LogicalResult ArgMinOp::verify() {
  return verifyArgReduce(*this, getInput(), getOutput(), static_cast<int64_t>(getAxis()));
}

LogicalResult TopKOp::verify() {
  if (failed(verifyInLocalBuffer(*this)))
    return failure();
  MemRefType in = getInput().getType(), values = getValues().getType(),
             indices = getIndices().getType();
  if (!isa<FloatType>(in.getElementType()) || !isa<FloatType>(values.getElementType()) ||
      !indices.getElementType().isSignlessInteger(64))
    return emitOpError() << "reads floats into float values and i64 indices, not "
                         << in.getElementType() << " into " << values.getElementType()
                         << " and " << indices.getElementType();
  int64_t given = static_cast<int64_t>(getAxis());
  std::optional<int64_t> axis = normalizeAxis(given, in.getRank());
  if (!axis)
    return emitOpError() << "axis " << given << " is out of range for rank " << in.getRank();
  SmallVector<int64_t> expected(in.getShape());
  if (values.getRank() == in.getRank())
    expected[*axis] = values.getShape()[*axis];
  if (expected[*axis] > in.getShape()[*axis])
    return emitOpError() << "picks " << expected[*axis] << " of the " << in.getShape()[*axis]
                         << " elements of each line along axis " << *axis;
  if (failed(expectShape(*this, "values", values.getShape(), expected)))
    return failure();
  return expectShape(*this, "indices", indices.getShape(), expected);
}

LogicalResult MatmulOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  if (lhs.size() != 2 || rhs.size() != 2)
    return emitOpError() << "expects 2-D tiles, got " << formatShape(lhs)
                         << " and " << formatShape(rhs);
  if (lhs[1] != rhs[0])
    return emitOpError() << "inner dimensions differ: " << formatShape(lhs)
                         << " x " << formatShape(rhs);
  return expectShape(*this, "accumulator", shapeOf(getAcc()),
                     {lhs[0], rhs[1]});
}

LogicalResult Conv2dOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected = inferConv2dShape(
      *this, shapeOf(getInput()), shapeOf(getFilter()), getStrides(), getPads(),
      getDilations(), static_cast<int64_t>(getGroups()));
  if (failed(expected))
    return failure();
  return expectShape(*this, "output", shapeOf(getOutput()), *expected);
}

LogicalResult BinaryOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  ArrayRef<int64_t> lhs = shapeOf(getLhs()), rhs = shapeOf(getRhs());
  std::optional<SmallVector<int64_t>> shape = broadcastShapes(lhs, rhs);
  if (!shape)
    return emitOpError() << "operand shapes " << formatShape(lhs) << " and "
                         << formatShape(rhs) << " do not broadcast";
  return expectShape(*this, "output", shapeOf(getOutput()), *shape);
}

LogicalResult UnaryOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  bool isClip = getKind() == UnaryKind::clip;
  if (isClip != (getMin().has_value() && getMax().has_value()) ||
      (!isClip && (getMin() || getMax())))
    return emitOpError() << "'min' and 'max' are required by clip and only "
                            "by clip";
  bool isAffine = getKind() == UnaryKind::affine;
  if (isAffine != (getScale().has_value() && getShift().has_value()) ||
      (!isAffine && (getScale() || getShift())))
    return emitOpError() << "'scale' and 'shift' are required by affine and "
                            "only by affine";
  if (isClip && getMin()->convertToFloat() > getMax()->convertToFloat())
    return emitOpError("expects min <= max");
  return expectShape(*this, "output", shapeOf(getOutput()),
                     shapeOf(getInput()));
}

LogicalResult PoolOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  FailureOr<SmallVector<int64_t>> expected =
      inferPool2dShape(*this, shapeOf(getInput()), getKernel(), getStrides(),
                       getPads(), {1, 1}, /*ceilMode=*/false);
  if (failed(expected))
    return failure();
  return expectShape(*this, "output", shapeOf(getOutput()), *expected);
}

LogicalResult ReduceOp::verify() {
  if (failed(verifyInLocalBuffer(*this)) || failed(verifyComputedElements(*this)))
    return failure();
  ArrayRef<int64_t> input = shapeOf(getInput());
  std::optional<int64_t> axis = normalizeAxis(static_cast<int64_t>(getAxis()), input.size());
  if (!axis)
    return emitOpError() << "axis " << static_cast<int64_t>(getAxis()) << " is out of range for rank "
                         << input.size();
  SmallVector<int64_t> expected(input);
  expected[*axis] = 1;
  return expectShape(*this, "output", shapeOf(getOutput()), expected);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildType = [](Builder &builder, ArrayRef<Type> arguments,
                      ArrayRef<Type> results, function_interface_impl::VariadicFlag,
                      std::string &) {
    return builder.getFunctionType(arguments, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void KernelOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

LogicalResult KernelOp::verify() {
  if (!getFunctionType().getResults().empty())
    return emitOpError("returns nothing: kernels write their results into "
                       "buffers");
  if (getBody().empty())
    return emitOpError("expects a body");
  for (auto [index, type] : llvm::enumerate(getArgumentTypes()))
    if (!isa<MemRefType, IndexType, IntegerType, FloatType>(type))
      return emitOpError() << "argument #" << index
                           << " must be a buffer or a scalar, got " << type;
  return success();
}

/// The target of the module enclosing `op`, if the module has one.
static TargetAttr enclosingTarget(Operation *op) {
  for (Operation *parent = op; parent; parent = parent->getParentOp())
    if (auto target = parent->getAttrOfType<TargetAttr>("dsa.target"))
      return target;
  return {};
}

LogicalResult LaunchOp::verify() {
  ArrayRef<int64_t> cores = getCores();
  if (cores.empty())
    return emitOpError("expects at least one core");
  llvm::SmallSet<int64_t, 32> seen;
  for (int64_t core : cores) {
    if (core < 0)
      return emitOpError() << "core " << core << " does not exist";
    if (!seen.insert(core).second)
      return emitOpError() << "names core " << core << " twice";
  }
  if (TargetAttr target = enclosingTarget(*this))
    for (int64_t core : cores)
      if (core >= target.getCoreCount())
        return emitOpError() << "core " << core << " does not exist on target '"
                             << target.getName() << "', which has "
                             << target.getCoreCount() << " cores ("
                             << target.getClusters() << " clusters of "
                             << target.getCoresPerCluster() << ")";
  return success();
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbols) {
  Operation *symbol = symbols.lookupNearestSymbolFrom(*this, getKernelAttr());
  if (!symbol)
    return emitOpError() << "'@" << getKernel()
                         << "' does not reference a dsa.kernel: no such symbol";
  auto kernel = dyn_cast<KernelOp>(symbol);
  if (!kernel) {
    InFlightDiagnostic diag = emitOpError()
                              << "'@" << getKernel()
                              << "' does not reference a dsa.kernel but a '"
                              << symbol->getName() << "'";
    diag.attachNote(symbol->getLoc()) << "symbol defined here";
    return diag;
  }
  if (getArgs().getTypes() != TypeRange(kernel.getArgumentTypes())) {
    InFlightDiagnostic diag = emitOpError()
                              << "passes (" << getArgs().getTypes()
                              << ") but @" << getKernel() << " takes ("
                              << kernel.getArgumentTypes() << ")";
    diag.attachNote(kernel.getLoc()) << "kernel defined here";
    return diag;
  }
  return success();
}

/// Ops that only make sense on a core: inside a kernel, not on the host.
static LogicalResult verifyInsideKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("is only valid inside a dsa.kernel");
  return success();
}

LogicalResult BarrierOp::verify() { return verifyInsideKernel(*this); }

/// Ops of the host's control flow between launches: outside kernels.
static LogicalResult verifyOnHost(Operation *op) {
  if (op->getParentOfType<KernelOp>())
    return op->emitOpError("is control flow between launches and cannot be inside a dsa.kernel");
  return success();
}

LogicalResult ReadScalarOp::verify() { return verifyOnHost(*this); }
LogicalResult WriteScalarOp::verify() { return verifyOnHost(*this); }
LogicalResult LoopCheckOp::verify() { return verifyOnHost(*this); }
LogicalResult FramePushOp::verify() { return verifyOnHost(*this); }
LogicalResult FramePopOp::verify() { return verifyOnHost(*this); }

LogicalResult PersistentOp::verify() {
  if (failed(verifyOnHost(*this)))
    return failure();
  if ((*this)->getParentOfType<PersistentOp>())
    return emitOpError("cannot be nested in another dsa.persistent: its launches are already "
                       "steps of one persistent kernel");
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return emitOpError() << "yields (" << yield.getValues().getTypes() << ") but its results are ("
                         << getResultTypes() << ")";
  return success();
}

LogicalResult CoreIdOp::verify() { return verifyInsideKernel(*this); }
LogicalResult ClusterIdOp::verify() { return verifyInsideKernel(*this); }
