//===- Instance.h - C API of the instance dialect's attributes ----*- C -*-===//
//
// Typed access to the instance dialect's attributes: one SplitInfo tuple
// (`#instance.split`) and a memory scope (`#instance<scope ...>`). Bindings
// (`array<i64: ...>`) and orders (`i64`) are builtin attributes.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_C_INSTANCE_H
#define TURBINE_C_INSTANCE_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

MLIR_CAPI_EXPORTED bool turbineAttributeIsAInstanceSplit(MlirAttribute attribute);
/// The split `(dim, factor, ops)`, or a null attribute after emitting the
/// verifier's error at `location` when one is out of range.
MLIR_CAPI_EXPORTED MlirAttribute turbineInstanceSplitAttrGetChecked(
    MlirLocation location, int64_t dim, int64_t factor, int64_t ops);
MLIR_CAPI_EXPORTED int64_t turbineInstanceSplitAttrGetDim(MlirAttribute attribute);
MLIR_CAPI_EXPORTED int64_t turbineInstanceSplitAttrGetFactor(MlirAttribute attribute);
MLIR_CAPI_EXPORTED int64_t turbineInstanceSplitAttrGetOps(MlirAttribute attribute);

/// The cases of `#instance<scope ...>` (ODS `Instance_Scope`).
enum TurbineInstanceScope {
  TurbineInstanceScopeLb = 0,
  TurbineInstanceScopeGb = 1,
  TurbineInstanceScopeDdr = 2,
};

MLIR_CAPI_EXPORTED bool turbineAttributeIsAInstanceScope(MlirAttribute attribute);
/// Null when `scope` is not a case.
MLIR_CAPI_EXPORTED MlirAttribute turbineInstanceScopeAttrGet(MlirContext context,
                                                            uint32_t scope);
MLIR_CAPI_EXPORTED uint32_t turbineInstanceScopeAttrGetValue(MlirAttribute attribute);
MLIR_CAPI_EXPORTED MlirStringRef turbineInstanceScopeCaseName(uint32_t scope);

#ifdef __cplusplus
}
#endif

#endif // TURBINE_C_INSTANCE_H
