// RUN: turbine-opt %s --split-input-file --graph-substitute="search=none test-perturb-op=second" | FileCheck %s

// Tests graph-substitute's test-only planted fault (for the numeric bisection): the result of the
// op at the name location "second" is negated, every reader taking the negation.
// CHECK-LABEL: func.func @planted
// CHECK:         %[[FIRST:.*]] = graph.relu %{{.*}}
// CHECK-NEXT:    %[[SECOND:.*]] = graph.tanh %[[FIRST]]
// CHECK-NEXT:    %[[NEGATED:.*]] = graph.neg %[[SECOND]]
// CHECK-NEXT:    %[[THIRD:.*]] = graph.add %[[NEGATED]], %[[FIRST]]
// CHECK-NEXT:    return %[[THIRD]], %[[NEGATED]]
func.func @planted(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = graph.relu %x : tensor<4x8xf32> loc("first")
  %b = graph.tanh %a : tensor<4x8xf32> loc("second")
  %c = graph.add %b, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32> loc("third")
  return %c, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests that a function without an op of that name (a prefix the bisection compiles) is left as
// it is.
// CHECK-LABEL: func.func @unnamed
// CHECK-NOT:     graph.neg
func.func @unnamed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %a = graph.relu %x : tensor<4x8xf32> loc("first")
  return %a : tensor<4x8xf32>
}
