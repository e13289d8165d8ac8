//===- Dsa.h - C API of the dsa dialect's attributes and types ----*- C -*-===//
//
// Typed access to what the dsa dialect adds to MLIR, so that Rust passes build
// and read these attributes and types without going through their printed form
// (the pattern of CIRCT's include/circt-c/Dialect/*.h). Every `Get` returns a
// uniqued attribute or type of the given context; every `GetX` requires an
// argument for which the matching `IsA` holds.
//
//===----------------------------------------------------------------------===//

#ifndef TURBINE_C_DSA_H
#define TURBINE_C_DSA_H

#include "mlir-c/IR.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// #dsa.target
//===----------------------------------------------------------------------===//

/// Every field of `#dsa.target`, in the order of its ODS parameters. Sizes are
/// bytes, bandwidths bytes per cycle, the clock MHz, latencies cycles.
typedef struct {
  MlirStringRef name;
  int64_t clusters;
  int64_t coresPerCluster;
  int64_t matrixEnginesPerCore;
  int64_t vectorEnginesPerCore;
  int64_t vectorCoresPerCore;
  int64_t lbBytes;
  int64_t gbBytes;
  int64_t ddrBytes;
  double clockMhz;
  double ddrGbBandwidth;
  double gbLbBandwidth;
  double lbLbBandwidth;
  double matrixFlops;
  int64_t dmaSetup;
  int64_t computeSetup;
  int64_t barrier;
  int64_t kernelLaunch;
} TurbineDsaTargetFields;

MLIR_CAPI_EXPORTED bool turbineAttributeIsADsaTarget(MlirAttribute attribute);

/// The target attribute with `fields`, or a null attribute after emitting the
/// verifier's error at `location` when a field is out of range.
MLIR_CAPI_EXPORTED MlirAttribute turbineDsaTargetAttrGetChecked(
    MlirLocation location, const TurbineDsaTargetFields *fields);

/// The fields of a target attribute; `name` points into the context.
MLIR_CAPI_EXPORTED TurbineDsaTargetFields
turbineDsaTargetAttrGetFields(MlirAttribute attribute);

//===----------------------------------------------------------------------===//
// Memory spaces and tokens
//===----------------------------------------------------------------------===//

/// The cases of `#dsa.memory_space` (ODS `Dsa_MemorySpace`).
enum TurbineDsaMemorySpace {
  TurbineDsaMemorySpaceLb = 0,
  TurbineDsaMemorySpaceGb = 1,
  TurbineDsaMemorySpaceDdr = 2,
};

MLIR_CAPI_EXPORTED bool turbineAttributeIsADsaMemorySpace(MlirAttribute attribute);
/// Null when `space` is not a case.
MLIR_CAPI_EXPORTED MlirAttribute turbineDsaMemorySpaceAttrGet(MlirContext context,
                                                             uint32_t space);
MLIR_CAPI_EXPORTED uint32_t turbineDsaMemorySpaceAttrGetValue(MlirAttribute attribute);

MLIR_CAPI_EXPORTED bool turbineTypeIsADsaToken(MlirType type);
MLIR_CAPI_EXPORTED MlirType turbineDsaTokenTypeGet(MlirContext context);

//===----------------------------------------------------------------------===//
// Instruction kinds
//===----------------------------------------------------------------------===//

/// The enumerations of the dsa dialect, each an attribute of its own.
enum TurbineDsaEnum {
  TurbineDsaEnumMemorySpace = 0,
  TurbineDsaEnumBinary = 1,
  TurbineDsaEnumUnary = 2,
  TurbineDsaEnumPool = 3,
  TurbineDsaEnumReduce = 4,
  TurbineDsaEnumCompare = 5,
};

/// Whether `attribute` is a case of enumeration `kind`.
MLIR_CAPI_EXPORTED bool turbineAttributeIsADsaEnum(MlirAttribute attribute,
                                                  uint32_t kind);
/// The attribute for case `value` of enumeration `kind`; null when there is no
/// such case.
MLIR_CAPI_EXPORTED MlirAttribute turbineDsaEnumAttrGet(MlirContext context,
                                                      uint32_t kind,
                                                      uint32_t value);
/// The case of an attribute of enumeration `kind`.
MLIR_CAPI_EXPORTED uint32_t turbineDsaEnumAttrGetValue(MlirAttribute attribute,
                                                      uint32_t kind);
/// The keyword of case `value` of enumeration `kind` as ODS declares it (empty
/// when there is no such case): how tests check that Rust's mirror of each
/// enumeration matches the dialect.
MLIR_CAPI_EXPORTED MlirStringRef turbineDsaEnumCaseName(uint32_t kind,
                                                       uint32_t value);

#ifdef __cplusplus
}
#endif

#endif // TURBINE_C_DSA_H
