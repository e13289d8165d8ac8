//===- Graph.h - C API of the graph dialect's attributes ---------*- C -*-===//
//
// Typed access to the graph dialect's enumeration attributes (the other
// attributes of graph ops are builtin) and to its op traits.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_C_GRAPH_H
#define TURBINE_C_GRAPH_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The enumerations of the graph dialect, each an attribute of its own.
enum TurbineGraphEnum {
  TurbineGraphEnumActivation = 0,
  TurbineGraphEnumPadMode = 1,
  TurbineGraphEnumResizeMode = 2,
  TurbineGraphEnumResizeCoordinates = 3,
  TurbineGraphEnumNearestRounding = 4,
  TurbineGraphEnumComparePredicate = 5,
  TurbineGraphEnumScatterReduction = 6,
};

/// Whether `attribute` is a case of enumeration `kind`.
MLIR_CAPI_EXPORTED bool turbineAttributeIsAGraphEnum(MlirAttribute attribute,
                                                    uint32_t kind);
/// The attribute for case `value` of enumeration `kind`; null when there is no
/// such case.
MLIR_CAPI_EXPORTED MlirAttribute turbineGraphEnumAttrGet(MlirContext context,
                                                        uint32_t kind,
                                                        uint32_t value);
/// The case of an attribute of enumeration `kind`.
MLIR_CAPI_EXPORTED uint32_t turbineGraphEnumAttrGetValue(MlirAttribute attribute,
                                                        uint32_t kind);
/// The keyword of case `value` of enumeration `kind` (empty when there is no
/// such case).
MLIR_CAPI_EXPORTED MlirStringRef turbineGraphEnumCaseName(uint32_t kind,
                                                         uint32_t value);

/// Whether `op` has the graph dialect's `Elementwise` trait: each result
/// element depends only on the operand elements at its (broadcast) position.
MLIR_CAPI_EXPORTED bool turbineGraphOpIsElementwise(MlirOperation op);

#ifdef __cplusplus
}
#endif

#endif // TURBINE_C_GRAPH_H
