// RUN: turbine-opt %s --split-input-file --graph-prepare-weights | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-prepare-weights --graph-prepare-weights | FileCheck %s
// RUN: turbine-opt %s --split-input-file --verify-diagnostics --graph-prepare-weights=explain -o /dev/null
// RUN: turbine-opt %s --split-input-file --graph-prepare-weights=enabled=false | FileCheck %s --check-prefix=OFF
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(graph-prepare-weights))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not turbine-opt %s --graph-prepare-weights=enabled=maybe 2>&1 | FileCheck %s --check-prefix=OPTION
// Tests that the pass runs on the module only (it adds functions beside the one it prepares
// weights for), and that a bad option value is an error.
// ANCHOR: error: Can't add pass 'graph-prepare-weights' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?
// OPTION: for the --enabled option: 'maybe' is invalid value for boolean argument

// Tests that merged projections (MetaFlow's merge of parallel products) read their
// concatenated weight as a weight computed once by @merged_weights: the concatenation moves
// there with copies of the weights it reads, and @merged reads the result as weight
// 'merged_weights:0' while the weights it still reads stay.
// CHECK-LABEL: func.func @merged_weights() -> tensor<8x32xf32> attributes {graph.prepares_weights}
// CHECK-DAG: %[[A:.*]] = graph.weight "a" : tensor<8x16xf32>
// CHECK-DAG: %[[B:.*]] = graph.weight "b" : tensor<8x16xf32>
// CHECK: %[[C:.*]] = graph.concat %[[A]], %[[B]] {axis = 1 : i64}
// CHECK-NEXT: return %[[C]]
// CHECK-LABEL: func.func @merged
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[P:.*]] = graph.weight "merged_weights:0" : tensor<8x32xf32>
// CHECK-NOT: graph.concat
// CHECK: %[[Y:.*]] = graph.matmul %[[X]], %[[P]]
// CHECK: %[[Z:.*]] = graph.matmul %[[X]], %{{.*}} :
// CHECK-NOT: graph.weight "b"
// OFF-LABEL: func.func @merged
// OFF: graph.concat
// OFF-NOT: @merged_weights
func.func @merged(%x: tensor<4x8xf32>) -> (tensor<4x32xf32>, tensor<4x16xf32>) {
  %a = graph.weight "a" : tensor<8x16xf32>
  %b = graph.weight "b" : tensor<8x16xf32>
  // expected-remark@+1 {{computed from weights and constants alone: prepared once at load time by @merged_weights and read as weight 'merged_weights:0'}}
  %c = graph.concat %a, %b {axis = 1 : i64} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x32xf32>
  %y = graph.matmul %x, %c : tensor<4x8xf32>, tensor<8x32xf32> -> tensor<4x32xf32>
  %z = graph.matmul %x, %a : tensor<4x8xf32>, tensor<8x16xf32> -> tensor<4x16xf32>
  return %y, %z : tensor<4x32xf32>, tensor<4x16xf32>
}

// -----

// Tests that a chain of weight-only ops moves whole, constants included, that a value another
// weight-only op and the data both read is prepared once, and that the name of the new function
// avoids a symbol the module has.
// CHECK-LABEL: func.func @scaled_weights()
// CHECK-LABEL: func.func @scaled_weights_1() -> (tensor<8x8xf32>, tensor<8x8xf32>)
// CHECK: %[[W:.*]] = graph.weight "w"
// CHECK: %[[T:.*]] = graph.transpose %[[W]]
// CHECK: %[[TWO:.*]] = graph.constant dense<2.000000e+00>
// CHECK: %[[M:.*]] = graph.mul %[[T]], %[[TWO]]
// CHECK: return %[[T]], %[[M]]
// CHECK-LABEL: func.func @scaled(
// CHECK-DAG: %[[W0:.*]] = graph.weight "scaled_weights_1:0"
// CHECK-DAG: %[[W1:.*]] = graph.weight "scaled_weights_1:1"
// CHECK: graph.matmul %{{.*}}, %[[W0]]
// CHECK: graph.matmul %{{.*}}, %[[W1]]
func.func @scaled_weights() -> tensor<1xf32> {
  %c = graph.constant dense<1.0> : tensor<1xf32>
  return %c : tensor<1xf32>
}
func.func @scaled(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = graph.weight "w" : tensor<8x8xf32>
  %two = graph.constant dense<2.0> : tensor<8x8xf32>
  // expected-remark@+1 {{prepared once at load time by @scaled_weights_1 and read as weight 'scaled_weights_1:0'}}
  %t = graph.transpose %w {permutation = array<i64: 1, 0>} : tensor<8x8xf32> -> tensor<8x8xf32>
  // expected-remark@+1 {{prepared once at load time by @scaled_weights_1 and read as weight 'scaled_weights_1:1'}}
  %m = graph.mul %t, %two : tensor<8x8xf32>, tensor<8x8xf32> -> tensor<8x8xf32>
  %y = graph.matmul %x, %t : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %z = graph.matmul %x, %m : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  return %y, %z : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that views of weights stay where they are (the lowering reads them in place), that ops
// reading data stay, and that a function without weight-only computation is left alone.
// CHECK-LABEL: func.func @views
// CHECK: graph.weight "w" : tensor<2x4x4xf32>
// CHECK-NEXT: graph.reshape
// CHECK: graph.add
// CHECK-NOT: func.func @views_weights
// OFF-LABEL: func.func @views
func.func @views(%x: tensor<4x8xf32>) -> tensor<4x4xf32> {
  %w = graph.weight "w" : tensor<2x4x4xf32>
  %r = graph.reshape %w : tensor<2x4x4xf32> -> tensor<8x4xf32>
  %y = graph.matmul %x, %r : tensor<4x8xf32>, tensor<8x4xf32> -> tensor<4x4xf32>
  %z = graph.add %y, %y : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %z : tensor<4x4xf32>
}

// -----

// Tests that a private function (an outlined body, which receives its weights from its caller) is
// left alone, whatever it computes from constants.
// CHECK-LABEL: func.func private @body
// CHECK: graph.add
// CHECK-NOT: func.func @body_weights
func.func private @body(%x: tensor<4xf32>) -> tensor<4xf32> {
  %one = graph.constant dense<1.0> : tensor<4xf32>
  %two = graph.add %one, %one : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %y = graph.mul %x, %two : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
