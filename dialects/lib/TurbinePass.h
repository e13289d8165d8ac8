// The C ABI between MLIR's pass registry and Turbine's passes, which are
// written in Rust. MLIR's ExternalPass has no options and LLVM 22's C API cannot
// register a pass, so Rust hands over a definition per pass (name, summary,
// anchor op, typed options, callbacks) and this shim registers a C++ pass class
// that carries the options into Rust. Named pipelines are handed over the same
// way, as a list of registered passes with their options. The C API also has no
// way to emit a remark, which passes need to explain their decisions.
#ifndef TURBINE_DIALECTS_TURBINE_PASS_H
#define TURBINE_DIALECTS_TURBINE_PASS_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The type of a pass option; the value reaches Rust as text either way, but
/// the type decides how MLIR parses and documents it (`=<long>` in --help).
typedef enum {
  TurbineOptionString = 0,
  TurbineOptionInt = 1,
  TurbineOptionBool = 2,
  TurbineOptionFloat = 3,
} TurbineOptionKind;

typedef struct {
  const char *name;
  const char *description;
  TurbineOptionKind kind;
  /// Default value as text, parsed according to `kind`.
  const char *defaultValue;
} TurbinePassOption;

typedef struct TurbinePassDefinition {
  const char *argument;
  const char *summary;
  /// The op the pass runs on (`builtin.module`, `func.func`). The pass manager
  /// refuses to schedule it on any other, as it does an `OperationPass<OpT>`.
  const char *anchor;
  const TurbinePassOption *options;
  size_t numOptions;
  const void *userData;
  /// Checks option values (one string per option, in order). Returns false
  /// and reports a message through `onError` when they are invalid.
  bool (*validate)(const void *userData, const MlirStringRef *values,
                   size_t numValues, MlirStringCallback onError,
                   void *errorUserData);
  /// Runs the pass on `op`. Returns false on failure, after emitting
  /// diagnostics on the IR.
  bool (*run)(const void *userData, const MlirStringRef *values,
              size_t numValues, MlirOperation op);
} TurbinePassDefinition;

/// Registers a pass. `definition` must outlive the process's use of MLIR.
void turbineRegisterPass(const TurbinePassDefinition *definition);

/// One option of a pass in a pipeline step: `name=<value>`, where the value is
/// that of the pipeline's option number `pipelineOption`, or `value` when
/// `pipelineOption` is negative.
typedef struct {
  const char *name;
  int64_t pipelineOption;
  const char *value;
} TurbineStepOption;

/// One pass of a pipeline.
typedef struct {
  /// The op the pass is nested on inside the op the pipeline runs on (for
  /// example `func.func`), or NULL to run it on that op itself.
  const char *nest;
  /// The registered argument of the pass, Turbine's or upstream.
  const char *pass;
  const TurbineStepOption *options;
  size_t numOptions;
} TurbinePipelineStep;

typedef struct {
  const char *argument;
  const char *summary;
  const TurbinePassOption *options;
  size_t numOptions;
  const TurbinePipelineStep *steps;
  size_t numSteps;
} TurbinePipelineDefinition;

/// Registers a named pipeline (`--<argument>`, `<argument>{...}` in pipeline
/// text). Its passes are looked up when the pipeline is built, so they may be
/// registered later. `definition` must outlive the process's use of MLIR.
void turbineRegisterPipeline(const TurbinePipelineDefinition *definition);

/// Emits a remark at `location` (as mlirEmitError does an error): shown with
/// its location, and checked by `expected-remark` under --verify-diagnostics.
void turbineEmitRemark(MlirLocation location, MlirStringRef message);

/// Emits a warning at `location`: shown with its location, checked by
/// `expected-warning` under --verify-diagnostics; the pass goes on.
void turbineEmitWarning(MlirLocation location, MlirStringRef message);

/// mlir-opt's main with every upstream dialect, extension and pass plus
/// Turbine's dialects and the passes registered so far.
int turbineOptMain(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif
