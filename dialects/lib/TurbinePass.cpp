// Rust passes and pipelines in MLIR's pass registry (TurbinePass.h): a pass
// class that holds typed options and an anchor op and calls back into Rust, a
// pipeline builder that adds registered passes by their argument, and remarks.
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
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// Typed options made from Turbine's option descriptions, for a pass or a
/// pipeline: MLIR parses and documents them by type, and Rust reads each value
/// back as text. `OptionT` is the option template of the owner: `Pass::Option`
/// for a pass, `detail::PassOptions::Option` for a pipeline's options.
class TypedOptions {
public:
  template <template <typename...> class OptionT, typename Owner>
  void add(Owner &owner, const TurbinePassOption &option) {
    auto description = llvm::cl::desc(option.description);
    StringRef defaultText = option.defaultValue ? option.defaultValue : "";
    switch (option.kind) {
    case TurbineOptionString: {
      auto value = std::make_shared<OptionT<std::string>>(
          owner, option.name, description, llvm::cl::init(defaultText.str()));
      texts.push_back([value] { return value->getValue(); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionInt: {
      int64_t initial = 0;
      defaultText.getAsInteger(10, initial);
      auto value = std::make_shared<OptionT<int64_t>>(
          owner, option.name, description, llvm::cl::init(initial));
      texts.push_back([value] { return std::to_string(value->getValue()); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionBool: {
      auto value = std::make_shared<OptionT<bool>>(
          owner, option.name, description,
          llvm::cl::init(defaultText == "true"));
      texts.push_back(
          [value] { return std::string(value->getValue() ? "true" : "false"); });
      owned.push_back(value);
      break;
    }
    case TurbineOptionFloat: {
      double initial = 0;
      defaultText.getAsDouble(initial);
      auto value = std::make_shared<OptionT<double>>(
          owner, option.name, description, llvm::cl::init(initial));
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

  /// The values in declaration order, as text.
  std::vector<std::string> values() const {
    std::vector<std::string> result;
    for (const auto &text : texts)
      result.push_back(text());
    return result;
  }

private:
  std::vector<std::function<std::string()>> texts;
  /// Keeps the typed options alive; they register themselves with the owner.
  std::vector<std::shared_ptr<void>> owned;
};

std::vector<MlirStringRef> stringRefs(const std::vector<std::string> &texts) {
  std::vector<MlirStringRef> refs;
  for (const std::string &text : texts)
    refs.push_back(mlirStringRefCreate(text.data(), text.size()));
  return refs;
}

/// A Turbine pass: MLIR-side state is the anchor and the typed options; the
/// work is done by the Rust callbacks of the definition.
class RustPass : public Pass {
public:
  explicit RustPass(const TurbinePassDefinition *definition)
      : Pass(TypeID::getFromOpaquePointer(definition),
             StringRef(definition->anchor)),
        definition(definition) {
    for (size_t i = 0; i < definition->numOptions; ++i)
      options.add<Pass::Option>(*this, definition->options[i]);
  }

  RustPass(const RustPass &other) : RustPass(other.definition) {
    copyOptionValuesFrom(&other);
  }

  StringRef getArgument() const override { return definition->argument; }
  StringRef getDescription() const override { return definition->summary; }
  StringRef getName() const override { return definition->argument; }

  /// As `OperationPass<OpT>`: only the anchor op.
  bool canScheduleOn(RegisteredOperationName opName) const override {
    return opName.getStringRef() == getOpName();
  }

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
  initializeOptions(StringRef text,
                    function_ref<LogicalResult(const Twine &)> errorHandler)
      override {
    if (failed(Pass::initializeOptions(text, errorHandler)))
      return failure();
    std::vector<std::string> texts = options.values();
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
    std::vector<std::string> texts = options.values();
    std::vector<MlirStringRef> values = stringRefs(texts);
    if (!definition->run(definition->userData, values.data(), values.size(),
                         wrap(getOperation())))
      signalPassFailure();
  }

private:
  const TurbinePassDefinition *definition;
  TypedOptions options;
};

/// The options of one use of a pipeline, parsed from its option text.
class PipelineOptions : public detail::PassOptions {
public:
  explicit PipelineOptions(const TurbinePipelineDefinition *definition) {
    for (size_t i = 0; i < definition->numOptions; ++i)
      options.add<detail::PassOptions::Option>(*this, definition->options[i]);
  }

  std::vector<std::string> values() const { return options.values(); }

private:
  TypedOptions options;
};

/// A value in a pass's option text: quoted when it is empty or would otherwise
/// end the value early (MLIR's option parser takes quotes and braces as
/// delimiters).
std::string optionValue(StringRef value) {
  if (!value.empty() && value.find_first_of(" \t\"'{}") == StringRef::npos)
    return value.str();
  std::string quoted = "{";
  quoted += value.str();
  quoted += "}";
  return quoted;
}

/// Adds the passes of `definition` to `pm` with the option values `text` gives
/// the pipeline. Passes are added by their registered argument, as pipeline
/// text would, so a pass keeps its own option parsing and validation and the
/// pipeline cannot drift from the passes it names.
LogicalResult
buildPipeline(const TurbinePipelineDefinition *definition, OpPassManager &pm,
              StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
  PipelineOptions options(definition);
  std::string message;
  llvm::raw_string_ostream errors(message);
  if (failed(options.parseFromString(text, errors)))
    return errorHandler(Twine(definition->argument) + ": " + message);
  std::vector<std::string> values = options.values();
  for (size_t i = 0; i < definition->numSteps; ++i) {
    const TurbinePipelineStep &step = definition->steps[i];
    const PassInfo *pass = PassInfo::lookup(step.pass);
    if (!pass)
      return errorHandler(Twine(definition->argument) + ": '" + step.pass +
                          "' is not a registered pass");
    std::string passOptions;
    for (size_t j = 0; j < step.numOptions; ++j) {
      const TurbineStepOption &option = step.options[j];
      StringRef value = option.pipelineOption < 0
                            ? StringRef(option.value)
                            : StringRef(values[option.pipelineOption]);
      if (!passOptions.empty())
        passOptions += " ";
      passOptions += std::string(option.name) + "=" + optionValue(value);
    }
    OpPassManager &target = step.nest ? pm.nest(step.nest) : pm;
    if (failed(pass->addToPipeline(target, passOptions, errorHandler)))
      return failure();
  }
  return success();
}

} // namespace

extern "C" void turbineRegisterPass(const TurbinePassDefinition *definition) {
  registerPass([definition]() -> std::unique_ptr<Pass> {
    return std::make_unique<RustPass>(definition);
  });
}

extern "C" void
turbineRegisterPipeline(const TurbinePipelineDefinition *definition) {
  registerPassPipeline(
      definition->argument, definition->summary,
      [definition](OpPassManager &pm, StringRef text,
                   function_ref<LogicalResult(const Twine &)> errorHandler) {
        return buildPipeline(definition, pm, text, errorHandler);
      },
      [definition](function_ref<void(const detail::PassOptions &)> handler) {
        PipelineOptions options(definition);
        handler(options);
      });
}

extern "C" void turbineEmitRemark(MlirLocation location,
                                  MlirStringRef message) {
  emitRemark(unwrap(location)) << unwrap(message);
}

extern "C" void turbineEmitWarning(MlirLocation location,
                                   MlirStringRef message) {
  emitWarning(unwrap(location)) << unwrap(message);
}
