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

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;

// Draws `module` for the file `path`; on failure, gives the message to
// `onError` (with `userData`) and returns false.
typedef bool (*TurbineScheduleViewer)(MlirOperation module, MlirStringRef path,
                                      MlirStringCallback onError,
                                      void *userData);

// --view-schedule=FILE: the picture of the schedule, drawn by the Rust callback that
// turbineOptRun receives.
static llvm::cl::opt<std::string> viewSchedule(
    "view-schedule",
    llvm::cl::desc(
        "Draw the schedule (groups, instances, bindings, scopes, copies and "
        "redistributions) as Graphviz DOT, and as SVG when <file> ends in .svg "
        "(the DOT goes next to it): just before convert-instance-to-dsa when "
        "the pipeline runs it, else after the pipeline"),
    llvm::cl::value_desc("file"));

// The pass before which the instance dialect's schedule leaves the IR.
static constexpr llvm::StringLiteral lastScheduleMoment =
    "convert-instance-to-dsa";

namespace {
// Draws the module once, at the first moment asked; a failure is kept for the
// pass that ends the pipeline to report.
struct ScheduleView {
  TurbineScheduleViewer draw;
  std::string path;
  bool drawn = false;
  std::string error;

  void drawOnce(Operation *module) {
    if (drawn)
      return;
    drawn = true;
    auto collect = [](MlirStringRef message, void *userData) {
      *static_cast<std::string *>(userData) = unwrap(message).str();
    };
    if (!draw(wrap(module), mlirStringRefCreate(path.data(), path.size()),
              collect, &error) &&
        error.empty())
      error = "cannot draw the schedule";
  }
};

// Draws the module just before the pass that lowers the instances away.
struct ScheduleViewInstrumentation : PassInstrumentation {
  std::shared_ptr<ScheduleView> view;
  explicit ScheduleViewInstrumentation(std::shared_ptr<ScheduleView> view)
      : view(std::move(view)) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument() == lastScheduleMoment)
      view->drawOnce(op);
  }
};

// Ends the pipeline: draws the module unless it was drawn before, and fails
// when drawing did.
struct ScheduleViewPass
    : PassWrapper<ScheduleViewPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ScheduleViewPass)
  std::shared_ptr<ScheduleView> view;
  explicit ScheduleViewPass(std::shared_ptr<ScheduleView> view)
      : view(std::move(view)) {}
  StringRef getArgument() const final { return "view-schedule"; }
  void runOnOperation() override {
    view->drawOnce(getOperation());
    if (!view->error.empty()) {
      emitError(getOperation()->getLoc(), view->error);
      signalPassFailure();
    }
  }
};
} // namespace

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
// have been parsed by turbineOptParseCommandLine. With --view-schedule, `draw`
// draws the schedule. Returns the exit code.
extern "C" int turbineOptRun(int argc, char **argv, MlirStringRef source,
                             MlirStringRef inputName, MlirStringRef outputName,
                             TurbineScheduleViewer draw) {
  llvm::InitLLVM initLLVM(argc, argv);
  MlirOptMainConfig config = MlirOptMainConfig::createFromCLOptions();
  if (!viewSchedule.empty()) {
    auto view = std::make_shared<ScheduleView>();
    view->draw = draw;
    view->path = viewSchedule;
    MlirOptMainConfig asked = config;
    config.setPassPipelineSetupFn([asked, view](PassManager &pm) {
      if (failed(asked.setupPassPipeline(pm)))
        return failure();
      pm.addInstrumentation(
          std::make_unique<ScheduleViewInstrumentation>(view));
      pm.addPass(std::make_unique<ScheduleViewPass>(view));
      return success();
    });
  }
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
