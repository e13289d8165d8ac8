// turbine-opt is MLIR's own mlir-opt driver: parsing, --split-input-file,
// --verify-diagnostics, the IR printing and timing flags and crash reproducers
// all behave exactly as in mlir-opt. It runs in two steps so that the Rust side
// reads the input in between (within a size limit, refusing folders and
// devices, and checking the text for what MLIR's parser cannot survive): first
// the command line, then the run on the text read. This file adds our
// dialects; Turbine's passes and pipelines join the registry through
// TurbinePass.cpp.
#include "Dsa.h"
#include "Graph.h"
#include "Instance.h"
#include "TurbinePass.h"

#include "mlir/CAPI/Support.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

// The dialects turbine-opt parses: every upstream one and Turbine's three.
static DialectRegistry &optRegistry() {
  static DialectRegistry registry = [] {
    DialectRegistry dialects;
    registerAllDialects(dialects);
    registerAllExtensions(dialects);
    dialects.insert<turbine::graph::GraphDialect,
                    turbine::instance::InstanceDialect,
                    turbine::dsa::DsaDialect>();
    return dialects;
  }();
  return registry;
}

// Parses the command line as mlir-opt does (exiting on --help or a bad flag)
// and reports the input and output file names through `callback`, in that
// order.
extern "C" void turbineOptParseCommandLine(int argc, char **argv,
                                           MlirStringCallback callback,
                                           void *userData) {
  registerAllPasses();
  auto [input, output] = registerAndParseCLIOptions(
      argc, argv,
      "Turbine optimizer driver: MLIR's mlir-opt with the graph, instance and "
      "dsa dialects and Turbine's passes\n",
      optRegistry());
  callback(mlirStringRefCreate(input.data(), input.size()), userData);
  callback(mlirStringRefCreate(output.data(), output.size()), userData);
}

// Runs mlir-opt on `source` (the input file's text, named `inputName` in
// diagnostics) and writes the result to `outputName`; the command line must
// have been parsed by turbineOptParseCommandLine. Returns the exit code.
extern "C" int turbineOptRun(int argc, char **argv, MlirStringRef source,
                             MlirStringRef inputName,
                             MlirStringRef outputName) {
  llvm::InitLLVM initLLVM(argc, argv);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(unwrap(source), unwrap(inputName));
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(unwrap(outputName), &errorMessage);
  if (!output) {
    llvm::errs() << "error: " << errorMessage << "\n";
    return 1;
  }
  if (failed(MlirOptMain(output->os(), std::move(buffer), optRegistry(),
                         config)))
    return 1;
  output->keep();
  return 0;
}
