// What Turbine's tools need from MLIR and LLVM beyond the upstream C API:
// parsing a buffer under the name of the file it came from, and a crash
// report that says what crashed and how to report it.
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/PrettyStackTrace.h"
#include "llvm/Support/Signals.h"

#include <string>

using namespace mlir;

// Parses and verifies `source` as a module (an implicit one around a bare
// `func.func`, as mlir-opt does); diagnostics name `name` and its lines. Null on
// any error.
extern "C" MlirModule turbineModuleParse(MlirContext context,
                                         MlirStringRef source,
                                         MlirStringRef name) {
  ParserConfig config(unwrap(context));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(name));
  return MlirModule{module.release().getOperation()};
}

// Installs LLVM's crash handlers: on a fatal signal (a crash in MLIR, LLVM or
// Turbine's code, a stack overflow) the process prints `report` and a stack
// trace to stderr instead of dying silently. `report` is copied; the handlers
// stay for the rest of the process.
extern "C" void turbineInstallCrashReport(const char *argv0,
                                          MlirStringRef report) {
  static std::string message;
  message = unwrap(report).str();
  llvm::setBugReportMsg(message.c_str());
  llvm::EnablePrettyStackTrace();
  llvm::sys::PrintStackTraceOnErrorSignal(argv0);
}
