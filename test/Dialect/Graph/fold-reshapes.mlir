// RUN: turbine-opt %s --split-input-file --graph-fold-reshapes | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-fold-reshapes="include-flatten=false" | FileCheck %s --check-prefix=NOFLAT
// RUN: not turbine-opt %s --graph-fold-reshapes="include-flatten=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --graph-fold-reshapes="no-such-option=1" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-fold-reshapes)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// UNKNOWN: no-such-option
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-fold-reshapes' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no fold-reshapes-errors.mlir with expected-error cases: the pass never fails on valid IR
// (every graph.reshape and graph.flatten it meets is already verified, so folding and dropping them
// always succeeds); its only errors are the option errors above, raised before it sees any IR.

// Tests that a chain of reshapes collapses into one reshape of the original input.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @chain(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %a = graph.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %b = graph.reshape %a : tensor<6x4xf32> -> tensor<24xf32>
  %c = graph.reshape %b : tensor<24xf32> -> tensor<4x6xf32>
  return %c : tensor<4x6xf32>
}

// -----

// Tests that a reshape chain returning to the input shape disappears.
// CHECK-LABEL: func.func @round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %b = graph.reshape %a : tensor<6xf32> -> tensor<2x3xf32>
  return %b : tensor<2x3xf32>
}

// -----

// Tests that an intermediate reshape with another user stays.
// CHECK-LABEL: func.func @shared
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-DAG: %[[A:.*]] = graph.reshape %[[X]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK-DAG: %[[B:.*]] = graph.reshape %[[X]] : tensor<2x3xf32> -> tensor<3x2xf32>
// CHECK: return %[[A]], %[[B]]
func.func @shared(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<3x2xf32>) {
  %a = graph.reshape %x : tensor<2x3xf32> -> tensor<6xf32>
  %b = graph.reshape %a : tensor<6xf32> -> tensor<3x2xf32>
  return %a, %b : tensor<6xf32>, tensor<3x2xf32>
}

// -----

// Tests that flatten folds like a reshape, unless include-flatten=false.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<8x2048x1x1xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]] : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
// CHECK-NEXT: return %[[R]]
// NOFLAT-LABEL: func.func @flatten
// NOFLAT: graph.flatten
func.func @flatten(%x: tensor<8x2048x1x1xf32>) -> tensor<8x2048xf32> {
  %a = graph.reshape %x : tensor<8x2048x1x1xf32> -> tensor<8x2048x1xf32>
  %b = graph.flatten %a {axis = 1 : i64} : tensor<8x2048x1xf32> -> tensor<8x2048xf32>
  return %b : tensor<8x2048xf32>
}

// -----

// Tests that reshapes nested in control-flow regions fold too.
// CHECK-LABEL: func.func @nested
// CHECK: graph.if
// CHECK-NEXT: %[[R:.*]] = graph.reshape %{{.*}} : tensor<4xf32> -> tensor<2x2xf32>
// CHECK-NEXT: graph.yield %[[R]]
func.func @nested(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = graph.if %c -> (tensor<2x2xf32>) {
    %a = graph.reshape %x : tensor<4xf32> -> tensor<1x4xf32>
    %b = graph.reshape %a : tensor<1x4xf32> -> tensor<2x2xf32>
    graph.yield %b : tensor<2x2xf32>
  } else {
    graph.yield %y : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// Tests that the reshapes around a 1-D convolution (a 2-D one of height 1) sink below the batch
// normalisation and LeakyReLU after it, whose other operands are per-channel or scalars, and
// meet the next convolution's reshape up: everything runs in 4-D and no reshape is left between
// the layers; the last result is reshaped back once.
// CHECK-LABEL: func.func @conv1d_block
// CHECK-SAME: (%[[X:[^:]*]]: tensor<1x4x1x16xf32>, %[[W:[^:]*]]: tensor<4x4x1x3xf32>, %[[P:[^:]*]]: tensor<4xf32>)
// CHECK-NEXT: %[[ALPHA:.*]] = graph.constant dense<1.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[C1:.*]] = graph.conv2d %[[X]], %[[W]] {{.*}} -> tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[BN:.*]] = graph.batch_norm %[[C1]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x4x1x16xf32>, {{.*}}) -> tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[NEG:.*]] = graph.min %[[BN]], %[[ALPHA]] : tensor<1x4x1x16xf32>, tensor<f32> -> tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[POS:.*]] = graph.relu %[[BN]] : tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[ACT:.*]] = graph.add %[[POS]], %[[NEG]] : tensor<1x4x1x16xf32>, tensor<1x4x1x16xf32> -> tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[C2:.*]] = graph.conv2d %[[ACT]], %[[W]] {{.*}} -> tensor<1x4x1x16xf32>
// CHECK-NEXT: %[[OUT:.*]] = graph.reshape %[[C2]] : tensor<1x4x1x16xf32> -> tensor<1x4x16xf32>
// CHECK-NEXT: return %[[OUT]]
func.func @conv1d_block(%x: tensor<1x4x1x16xf32>, %w: tensor<4x4x1x3xf32>, %p: tensor<4xf32>) -> tensor<1x4x16xf32> {
  %alpha = graph.constant dense<0.1> : tensor<f32>
  %c1 = graph.conv2d %x, %w {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x4x1x16xf32>, tensor<4x4x1x3xf32>) -> tensor<1x4x1x16xf32>
  %d1 = graph.reshape %c1 : tensor<1x4x1x16xf32> -> tensor<1x4x16xf32>
  %bn = graph.batch_norm %d1, %p, %p, %p, %p : (tensor<1x4x16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x16xf32>
  %neg = graph.min %bn, %alpha : tensor<1x4x16xf32>, tensor<f32> -> tensor<1x4x16xf32>
  %pos = graph.relu %bn : tensor<1x4x16xf32>
  %act = graph.add %pos, %neg : tensor<1x4x16xf32>, tensor<1x4x16xf32> -> tensor<1x4x16xf32>
  %u2 = graph.reshape %act : tensor<1x4x16xf32> -> tensor<1x4x1x16xf32>
  %c2 = graph.conv2d %u2, %w {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x4x1x16xf32>, tensor<4x4x1x3xf32>) -> tensor<1x4x1x16xf32>
  %d2 = graph.reshape %c2 : tensor<1x4x1x16xf32> -> tensor<1x4x16xf32>
  return %d2 : tensor<1x4x16xf32>
}

// -----

// Tests that a reshape stays where sinking it would change what an operand broadcasts against:
// the add's other operand is a row, not a scalar.
// CHECK-LABEL: func.func @broadcast_row
// CHECK: graph.reshape
// CHECK-NEXT: graph.add %{{.*}}, %{{.*}} : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
func.func @broadcast_row(%x: tensor<4x1x16xf32>, %row: tensor<16xf32>) -> tensor<4x16xf32> {
  %r = graph.reshape %x : tensor<4x1x16xf32> -> tensor<4x16xf32>
  %y = graph.add %r, %row : tensor<4x16xf32>, tensor<16xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// -----

// Tests that a reshape stays where a scalar operand of more dimensions than the reshape's input
// would raise the result's rank once sunk: [4] against [1, 1] broadcasts to [1, 4].
// CHECK-LABEL: func.func @scalar_of_higher_rank
// CHECK: %[[R:.*]] = graph.reshape
// CHECK-NEXT: graph.div %[[R]], %{{.*}} : tensor<1x1x4xf32>, tensor<1x1xf32> -> tensor<1x1x4xf32>
func.func @scalar_of_higher_rank(%x: tensor<4xf32>, %s: tensor<1x1xf32>) -> tensor<1x1x4xf32> {
  %r = graph.reshape %x : tensor<4xf32> -> tensor<1x1x4xf32>
  %y = graph.div %r, %s : tensor<1x1x4xf32>, tensor<1x1xf32> -> tensor<1x1x4xf32>
  return %y : tensor<1x1x4xf32>
}
