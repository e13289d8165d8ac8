// RUN: turbine-opt %s --split-input-file --verify-diagnostics --hw-group
// RUN: not turbine-opt %s --hw-group="target=nowhere" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not turbine-opt %s --hw-group="max-recompute=-1" 2>&1 | FileCheck %s --check-prefix=OPTION
// RUN: not turbine-opt %s --hw-group="target=mini scope=lb weight-buffer=16384" 2>&1 | FileCheck %s --check-prefix=BUFFER
// RUN: not turbine-opt %s --hw-group="scope=hbm" 2>&1 | FileCheck %s --check-prefix=SCOPE
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(hw-group)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// TARGET: cannot use target 'nowhere'
// OPTION: option 'max-recompute' must not be negative, got -1
// SCOPE: option 'scope': unknown memory 'hbm' (available: gb, lb)
// BUFFER: the weight buffer (16384 bytes) leaves nothing of the 16384 bytes of LB of target 'mini'
// (The weight buffer is carved out of the LBs only with scope=lb: instances sized for the GB do
// not keep it.)
// Tests that grouping runs on functions, one at a time: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'hw-group' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// Tests that grouping needs a target (SplitInfo depends on its local buffers) when neither the
// module's dsa.target nor the 'target' option gives one; the error is at each function.
module {
  // expected-error@+1 {{hw-group needs a target: set the module's dsa.target (dsa-set-target) or the 'target' option}}
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = graph.relu %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
