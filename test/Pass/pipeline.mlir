// Tests of the pass infrastructure that turbine-opt inherits from MlirOptMain: Turbine passes run
// from pipeline text next to upstream passes, take typed options, show in --help and in the IR
// printing and timing flags, and an unknown pass is a clear error. Turbine's named pipelines run
// from their flag and from pipeline text, with typed options, and show in --help.

// RUN: turbine-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-reshapes{include-flatten=false},canonicalize,cse),symbol-dce)' | FileCheck %s
// RUN: turbine-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-reshapes{include-flatten=false}))' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// RUN: turbine-opt %s --graph-fold-reshapes --mlir-print-ir-before=graph-fold-reshapes --mlir-print-ir-after=graph-fold-reshapes -o /dev/null 2>&1 | FileCheck %s --check-prefix=PRINT
// RUN: turbine-opt %s --graph-fold-reshapes --cse --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: turbine-opt %s --graph-fold-reshapes --mlir-timing -o /dev/null 2>&1 | FileCheck %s --check-prefix=TIMING
// RUN: turbine-opt --help | FileCheck %s --check-prefix=HELP
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(graph-fold-reshapes{include-flatten=2}))' 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: turbine-opt %s --turbine-layerwise=target=mini --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYERWISE
// RUN: turbine-opt %s --pass-pipeline='builtin.module(turbine-layerwise{target=mini})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=LAYERWISE
// RUN: turbine-opt %s --turbine-layerwise --turbine-dsa-to-llvm --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=BACKEND
// RUN: not turbine-opt %s --turbine-layerwise="target=mini schedule=greedy" 2>&1 | FileCheck %s --check-prefix=PIPELINE-OPTION
// RUN: not turbine-opt %s --turbine-layerwise=target=nowhere 2>&1 | FileCheck %s --check-prefix=PIPELINE-TARGET

// DUMP: graph-fold-reshapes{include-flatten=false}

// PRINT: // -----// IR Dump Before graph-fold-reshapes
// PRINT: graph.reshape
// PRINT: graph.reshape
// PRINT: // -----// IR Dump After graph-fold-reshapes
// PRINT-NOT: graph.reshape

// ALL: // -----// IR Dump After graph-fold-reshapes
// ALL: // -----// IR Dump After CSE

// TIMING: Execution time report
// TIMING: graph-fold-reshapes

// HELP: --dsa-set-target - Attach the target accelerator to the module as #dsa.target
// HELP-NEXT: --target=<string> - Built-in target name or path of a target description (TOML)
// HELP: --graph-fold-reshapes
// HELP-NEXT: --include-flatten
// HELP: Pass Pipelines:
// HELP: --turbine-dsa-to-llvm - dsa to the LLVM dialect
// HELP: --turbine-layerwise - Graph to dsa with the layer-wise schedule
// HELP-NEXT: --control=<string> - Who runs graph.if and graph.loop
// HELP-NEXT: --fuse-chains=<string> - Fuse a product and the product reading its result, or a convolution
// HELP-NEXT: --keep-invariants - Keep a loop's invariant inputs (weights) in every cluster's GB
// HELP-NEXT: --pipeline - Software-pipeline tile loops
// HELP-NEXT: --prepare-weights - Compute what the model computes from weights alone once
// HELP-NEXT: --substitute=<string> - graph-substitute's search
// HELP-NEXT: --substitute-alpha=<number> - graph-substitute's alpha
// HELP-NEXT: --target=<string> - Built-in target name or path of a target description (TOML)

// Tests that the layer-wise pipeline is its passes, in order (control flow outlined first, the
// weights computed from weights prepared after the graph clean-up), with the pipeline's target
// handed to graph-substitute and dsa-set-target, and that the backend's
// pipeline follows it.
// LAYERWISE: builtin.module(
// LAYERWISE-NEXT: graph-outline-control-flow{explain=false},
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-fold-batch-rows{explain=false}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-resize-to-broadcast{explain=false}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-decompose-resize{explain=false}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-decompose-pad{explain=false}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-fold-reshapes{include-flatten=true}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-substitute{alpha=1.000000e+00 budget=100 builtin-rules=true cost=cycles explain=false only= prepared-weights=true rules= search=backtracking split-threshold=200 target=mini test-perturb-op= verify=false weight-folds=true}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: func.func(
// LAYERWISE-NEXT: graph-split-reductions{explain=false max-view-rank=4}
// LAYERWISE-NEXT: ),
// LAYERWISE-NEXT: canonicalize
// LAYERWISE-NEXT: cse,
// LAYERWISE-NEXT: graph-prepare-weights{enabled=true explain=false},
// LAYERWISE-NEXT: dsa-set-target{target=mini},
// LAYERWISE-NEXT: convert-graph-to-dsa{control=device explain=false fuse-chains=auto keep-invariants=true pipeline=true schedule=layerwise tuning-cache= tuning-fusion-rank=-1 tuning-rank=-1},
// LAYERWISE-NEXT: canonicalize
// LAYERWISE-NEXT: cse
// LAYERWISE-NEXT: )
// BACKEND: dsa-set-target{target=stcp920},
// BACKEND: convert-graph-to-dsa{control=device explain=false fuse-chains=auto keep-invariants=true pipeline=true schedule=layerwise tuning-cache= tuning-fusion-rank=-1 tuning-rank=-1},
// BACKEND: convert-dsa-to-runtime,
// BACKEND-NEXT: func.func(
// BACKEND-NEXT: expand-strided-metadata
// BACKEND: reconcile-unrealized-casts
// PIPELINE-OPTION: turbine-layerwise: <Pass-Options-Parser>: no such option schedule
// PIPELINE-TARGET: error: cannot use target 'nowhere'

// UNKNOWN: 'no-such-pass' does not refer to a registered pass or pass pipeline

// BADVALUE: include-flatten

// Tests that the pipeline ran: reshapes folded, the unused private function dropped.
// CHECK-NOT: func.func private @unused
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func private @unused()

func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %b = graph.reshape %a : tensor<6xf32> -> tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}
