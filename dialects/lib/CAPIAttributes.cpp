// The typed C API of include/turbine-c/{Dsa,Instance,Graph}.h: thin wrappers
// over the ODS-generated attribute and type classes.
#include "Dsa.h"
#include "Graph.h"
#include "Instance.h"

#include "turbine-c/Dsa.h"
#include "turbine-c/Graph.h"
#include "turbine-c/Instance.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace turbine;

namespace {

/// One ODS enumeration attribute: its class, the C++ enum and the functions
/// mlir-tblgen generates for it.
template <typename AttrT, typename EnumT, std::optional<EnumT> (*Symbolize)(uint32_t),
          llvm::StringRef (*Stringify)(EnumT)>
struct EnumAttribute {
  static bool isA(MlirAttribute attribute) {
    return isa<AttrT>(unwrap(attribute));
  }
  static MlirAttribute get(MlirContext context, uint32_t value) {
    std::optional<EnumT> symbol = Symbolize(value);
    if (!symbol)
      return MlirAttribute{nullptr};
    return wrap(AttrT::get(unwrap(context), *symbol));
  }
  static uint32_t value(MlirAttribute attribute) {
    return static_cast<uint32_t>(cast<AttrT>(unwrap(attribute)).getValue());
  }
  static MlirStringRef name(uint32_t value) {
    std::optional<EnumT> symbol = Symbolize(value);
    return wrap(symbol ? Stringify(*symbol) : llvm::StringRef());
  }
};

using DsaMemorySpace = EnumAttribute<dsa::MemorySpaceAttr, dsa::MemorySpace,
                                     dsa::symbolizeMemorySpace, dsa::stringifyMemorySpace>;
using DsaBinary = EnumAttribute<dsa::BinaryKindAttr, dsa::BinaryKind,
                                dsa::symbolizeBinaryKind, dsa::stringifyBinaryKind>;
using DsaUnary = EnumAttribute<dsa::UnaryKindAttr, dsa::UnaryKind,
                               dsa::symbolizeUnaryKind, dsa::stringifyUnaryKind>;
using DsaPool = EnumAttribute<dsa::PoolKindAttr, dsa::PoolKind,
                              dsa::symbolizePoolKind, dsa::stringifyPoolKind>;
using DsaReduce = EnumAttribute<dsa::ReduceKindAttr, dsa::ReduceKind,
                                dsa::symbolizeReduceKind, dsa::stringifyReduceKind>;
using DsaCompare =
    EnumAttribute<dsa::ComparePredicateAttr, dsa::ComparePredicate,
                  dsa::symbolizeComparePredicate, dsa::stringifyComparePredicate>;
using InstanceScope = EnumAttribute<instance::ScopeAttr, instance::Scope,
                                    instance::symbolizeScope, instance::stringifyScope>;
using GraphActivation =
    EnumAttribute<graph::ActivationAttr, graph::Activation,
                  graph::symbolizeActivation, graph::stringifyActivation>;
using GraphPadMode = EnumAttribute<graph::PadModeAttr, graph::PadMode,
                                   graph::symbolizePadMode, graph::stringifyPadMode>;
using GraphResizeMode =
    EnumAttribute<graph::ResizeModeAttr, graph::ResizeMode,
                  graph::symbolizeResizeMode, graph::stringifyResizeMode>;
using GraphResizeCoordinates =
    EnumAttribute<graph::ResizeCoordinatesAttr, graph::ResizeCoordinates,
                  graph::symbolizeResizeCoordinates, graph::stringifyResizeCoordinates>;
using GraphNearestRounding =
    EnumAttribute<graph::NearestRoundingAttr, graph::NearestRounding,
                  graph::symbolizeNearestRounding, graph::stringifyNearestRounding>;
using GraphComparePredicate =
    EnumAttribute<graph::ComparePredicateAttr, graph::ComparePredicate,
                  graph::symbolizeComparePredicate, graph::stringifyComparePredicate>;
using GraphScatterReduction =
    EnumAttribute<graph::ScatterReductionAttr, graph::ScatterReduction,
                  graph::symbolizeScatterReduction, graph::stringifyScatterReduction>;

/// Calls `F::template apply<E>(...)` with the enumeration `E` that `kind`
/// names; `fallback` when `kind` is none of them.
#define TURBINE_DISPATCH_DSA(kind, call, fallback)                             \
  switch (kind) {                                                              \
  case TurbineDsaEnumMemorySpace: return DsaMemorySpace::call;                 \
  case TurbineDsaEnumBinary: return DsaBinary::call;                           \
  case TurbineDsaEnumUnary: return DsaUnary::call;                             \
  case TurbineDsaEnumPool: return DsaPool::call;                               \
  case TurbineDsaEnumReduce: return DsaReduce::call;                           \
  case TurbineDsaEnumCompare: return DsaCompare::call;                         \
  default: return fallback;                                                    \
  }

#define TURBINE_DISPATCH_GRAPH(kind, call, fallback)                           \
  switch (kind) {                                                              \
  case TurbineGraphEnumActivation: return GraphActivation::call;               \
  case TurbineGraphEnumPadMode: return GraphPadMode::call;                     \
  case TurbineGraphEnumResizeMode: return GraphResizeMode::call;               \
  case TurbineGraphEnumResizeCoordinates: return GraphResizeCoordinates::call; \
  case TurbineGraphEnumNearestRounding: return GraphNearestRounding::call;     \
  case TurbineGraphEnumComparePredicate: return GraphComparePredicate::call;   \
  case TurbineGraphEnumScatterReduction: return GraphScatterReduction::call;   \
  default: return fallback;                                                    \
  }

double toDouble(const llvm::APFloat &value) { return value.convertToDouble(); }

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// dsa
//===----------------------------------------------------------------------===//

bool turbineAttributeIsADsaTarget(MlirAttribute attribute) {
  return isa<dsa::TargetAttr>(unwrap(attribute));
}

MlirAttribute turbineDsaTargetAttrGetChecked(MlirLocation location,
                                             const TurbineDsaTargetFields *fields) {
  Location loc = unwrap(location);
  auto emitError = [&]() { return mlir::emitError(loc); };
  return wrap(dsa::TargetAttr::getChecked(
      emitError, loc.getContext(), unwrap(fields->name), fields->clusters,
      fields->coresPerCluster, fields->matrixEnginesPerCore,
      fields->vectorEnginesPerCore, fields->vectorCoresPerCore, fields->lbBytes,
      fields->gbBytes, fields->ddrBytes, llvm::APFloat(fields->clockMhz),
      llvm::APFloat(fields->ddrGbBandwidth), llvm::APFloat(fields->gbLbBandwidth),
      llvm::APFloat(fields->lbLbBandwidth), llvm::APFloat(fields->matrixFlops),
      fields->dmaSetup, fields->computeSetup, fields->barrier,
      fields->kernelLaunch));
}

TurbineDsaTargetFields turbineDsaTargetAttrGetFields(MlirAttribute attribute) {
  auto target = cast<dsa::TargetAttr>(unwrap(attribute));
  return TurbineDsaTargetFields{wrap(target.getName()),
                                target.getClusters(),
                                target.getCoresPerCluster(),
                                target.getMatrixEnginesPerCore(),
                                target.getVectorEnginesPerCore(),
                                target.getVectorCoresPerCore(),
                                target.getLbBytes(),
                                target.getGbBytes(),
                                target.getDdrBytes(),
                                toDouble(target.getClockMhz()),
                                toDouble(target.getDdrGbBandwidth()),
                                toDouble(target.getGbLbBandwidth()),
                                toDouble(target.getLbLbBandwidth()),
                                toDouble(target.getMatrixFlops()),
                                target.getDmaSetup(),
                                target.getComputeSetup(),
                                target.getBarrier(),
                                target.getKernelLaunch()};
}

bool turbineAttributeIsADsaMemorySpace(MlirAttribute attribute) {
  return DsaMemorySpace::isA(attribute);
}
MlirAttribute turbineDsaMemorySpaceAttrGet(MlirContext context, uint32_t space) {
  return DsaMemorySpace::get(context, space);
}
uint32_t turbineDsaMemorySpaceAttrGetValue(MlirAttribute attribute) {
  return DsaMemorySpace::value(attribute);
}

bool turbineTypeIsADsaToken(MlirType type) {
  return isa<dsa::TokenType>(unwrap(type));
}
MlirType turbineDsaTokenTypeGet(MlirContext context) {
  return wrap(dsa::TokenType::get(unwrap(context)));
}

bool turbineAttributeIsADsaEnum(MlirAttribute attribute, uint32_t kind) {
  TURBINE_DISPATCH_DSA(kind, isA(attribute), false)
}
MlirAttribute turbineDsaEnumAttrGet(MlirContext context, uint32_t kind,
                                    uint32_t value) {
  TURBINE_DISPATCH_DSA(kind, get(context, value), MlirAttribute{nullptr})
}
uint32_t turbineDsaEnumAttrGetValue(MlirAttribute attribute, uint32_t kind) {
  TURBINE_DISPATCH_DSA(kind, value(attribute), 0)
}
MlirStringRef turbineDsaEnumCaseName(uint32_t kind, uint32_t value) {
  TURBINE_DISPATCH_DSA(kind, name(value), wrap(llvm::StringRef()))
}

//===----------------------------------------------------------------------===//
// instance
//===----------------------------------------------------------------------===//

bool turbineAttributeIsAInstanceSplit(MlirAttribute attribute) {
  return isa<instance::SplitAttr>(unwrap(attribute));
}
MlirAttribute turbineInstanceSplitAttrGetChecked(MlirLocation location,
                                                 int64_t dim, int64_t factor,
                                                 int64_t ops) {
  Location loc = unwrap(location);
  auto emitError = [&]() { return mlir::emitError(loc); };
  return wrap(instance::SplitAttr::getChecked(emitError, loc.getContext(), dim,
                                              factor, ops));
}
int64_t turbineInstanceSplitAttrGetDim(MlirAttribute attribute) {
  return cast<instance::SplitAttr>(unwrap(attribute)).getDim();
}
int64_t turbineInstanceSplitAttrGetFactor(MlirAttribute attribute) {
  return cast<instance::SplitAttr>(unwrap(attribute)).getFactor();
}
int64_t turbineInstanceSplitAttrGetOps(MlirAttribute attribute) {
  return cast<instance::SplitAttr>(unwrap(attribute)).getOps();
}

bool turbineAttributeIsAInstanceScope(MlirAttribute attribute) {
  return InstanceScope::isA(attribute);
}
MlirAttribute turbineInstanceScopeAttrGet(MlirContext context, uint32_t scope) {
  return InstanceScope::get(context, scope);
}
uint32_t turbineInstanceScopeAttrGetValue(MlirAttribute attribute) {
  return InstanceScope::value(attribute);
}
MlirStringRef turbineInstanceScopeCaseName(uint32_t scope) {
  return InstanceScope::name(scope);
}

//===----------------------------------------------------------------------===//
// graph
//===----------------------------------------------------------------------===//

bool turbineAttributeIsAGraphEnum(MlirAttribute attribute, uint32_t kind) {
  TURBINE_DISPATCH_GRAPH(kind, isA(attribute), false)
}
MlirAttribute turbineGraphEnumAttrGet(MlirContext context, uint32_t kind,
                                      uint32_t value) {
  TURBINE_DISPATCH_GRAPH(kind, get(context, value), MlirAttribute{nullptr})
}
uint32_t turbineGraphEnumAttrGetValue(MlirAttribute attribute, uint32_t kind) {
  TURBINE_DISPATCH_GRAPH(kind, value(attribute), 0)
}
MlirStringRef turbineGraphEnumCaseName(uint32_t kind, uint32_t value) {
  TURBINE_DISPATCH_GRAPH(kind, name(value), wrap(llvm::StringRef()))
}

bool turbineGraphOpIsElementwise(MlirOperation op) {
  return unwrap(op)->hasTrait<graph::Elementwise>();
}

} // extern "C"
