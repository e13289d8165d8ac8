// turbine-opt is MLIR's own MlirOptMain: parsing, --split-input-file,
// --verify-diagnostics, the IR printing and timing flags and crash reproducers
// all behave exactly as in mlir-opt. This file adds our dialects and a pass
// class through which Rust passes join MLIR's pass registry.
#include "Dsa.h"
#include "Graph.h"
#include "Instance.h"
#include "TurbinePass.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// A Turbine pass: MLIR-side state is the typed options; the work is done by
/// the Rust callbacks of the definition.
class RustPass : public Pass {
public:
  explicit RustPass(const TurbinePassDefinition *definition)
      : Pass(TypeID::getFromOpaquePointer(definition)),
        definition(definition) {
    for (size_t i = 0; i < definition->numOptions; ++i)
      addOption(definition->options[i]);
  }

  RustPass(const RustPass &other) : RustPass(other.definition) {
    copyOptionValuesFrom(&other);
  }

  StringRef getArgument() const override { return definition->argument; }
  StringRef getDescription() const override { return definition->summary; }
  StringRef getName() const override { return definition->argument; }

  bool canScheduleOn(RegisteredOperationName) const override { return true; }

  std::unique_ptr<Pass> clonePass() const override {
    return std::make_unique<RustPass>(*this);
  }

  void getDependentDialects(DialectRegistry &registry) const override {
    // Turbine passes create ops of these dialects; loading them up front keeps
    // multi-threaded pass execution from loading dialects mid-run.
    registry.insert<turbine::graph::GraphDialect,
                    turbine::instance::InstanceDialect,
                    turbine::dsa::DsaDialect, arith::ArithDialect,
                    func::FuncDialect, memref::MemRefDialect, scf::SCFDialect,
                    tensor::TensorDialect, LLVM::LLVMDialect>();
  }

  LogicalResult
  initializeOptions(StringRef options,
                    function_ref<LogicalResult(const Twine &)> errorHandler)
      override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    std::vector<std::string> texts = optionTexts();
    std::vector<MlirStringRef> values = stringRefs(texts);
    std::string message;
    auto collect = [](MlirStringRef text, void *userData) {
      static_cast<std::string *>(userData)->append(text.data, text.length);
    };
    if (!definition->validate(definition->userData, values.data(),
                              values.size(), collect, &message))
      return errorHandler(Twine(definition->argument) + ": " + message);
    return success();
  }

  void runOnOperation() override {
    std::vector<std::string> texts = optionTexts();
    std::vector<MlirStringRef> values = stringRefs(texts);
    if (!definition->run(definition->userData, values.data(), values.size(),
                         wrap(getOperation())))
      signalPassFailure();
  }

private:
  void addOption(const TurbinePassOption &option) {
    auto description = llvm::cl::desc(option.description);
    StringRef defaultText = option.defaultValue ? option.defaultValue : "";
    switch (option.kind) {
    case TurbineOptionString: {
      auto value = std::make_shared<Pass::Option<std::string>>(
          *this, option.name, description,
          llvm::cl::init(defaultText.str()));
      texts.push_back([value] { return value->getValue(); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionInt: {
      int64_t initial = 0;
      defaultText.getAsInteger(10, initial);
      auto value = std::make_shared<Pass::Option<int64_t>>(
          *this, option.name, description, llvm::cl::init(initial));
      texts.push_back([value] { return std::to_string(value->getValue()); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionBool: {
      auto value = std::make_shared<Pass::Option<bool>>(
          *this, option.name, description,
          llvm::cl::init(defaultText == "true"));
      texts.push_back(
          [value] { return std::string(value->getValue() ? "true" : "false"); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionFloat: {
      double initial = 0;
      defaultText.getAsDouble(initial);
      auto value = std::make_shared<Pass::Option<double>>(
          *this, option.name, description, llvm::cl::init(initial));
      texts.push_back([value] {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.17g", value->getValue());
        return std::string(buffer);
      });
      owned.push_back(value);
      break;
    }
    }
  }

  std::vector<std::string> optionTexts() const {
    std::vector<std::string> result;
    for (const auto &text : texts)
      result.push_back(text());
    return result;
  }

  static std::vector<MlirStringRef>
  stringRefs(const std::vector<std::string> &texts) {
    std::vector<MlirStringRef> refs;
    for (const std::string &text : texts)
      refs.push_back(mlirStringRefCreate(text.data(), text.size()));
    return refs;
  }

  const TurbinePassDefinition *definition;
  /// Options in definition order, each read back as text for Rust.
  std::vector<std::function<std::string()>> texts;
  /// Keeps the typed options alive; they register themselves with the pass.
  std::vector<std::shared_ptr<void>> owned;
};

} // namespace

extern "C" void turbineRegisterPass(const TurbinePassDefinition *definition) {
  registerPass([definition]() -> std::unique_ptr<Pass> {
    return std::make_unique<RustPass>(definition);
  });
}

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
