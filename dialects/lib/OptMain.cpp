// turbine-opt is MLIR's own MlirOptMain: parsing, --split-input-file,
// --verify-diagnostics, the IR printing and timing flags and crash reproducers
// all behave exactly as in mlir-opt. This file adds our dialects; Turbine's
// passes and pipelines join the registry through TurbinePass.cpp.
#include "Dsa.h"
#include "Graph.h"
#include "Instance.h"
#include "TurbinePass.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

using namespace mlir;

extern "C" int turbineOptMain(int argc, char **argv) {
  registerAllPasses();
  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registry.insert<turbine::graph::GraphDialect,
                  turbine::instance::InstanceDialect,
                  turbine::dsa::DsaDialect>();
  return asMainReturnCode(MlirOptMain(
      argc, argv, "Turbine optimizer driver: MLIR's mlir-opt with the graph, "
                  "instance and dsa dialects and Turbine's passes\n",
      registry));
}
