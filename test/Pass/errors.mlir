// Tests that malformed and ill-typed input gives an error naming the location and a non-zero exit.

// RUN: not turbine-opt %s --split-input-file 2>&1 | FileCheck %s

// CHECK: errors.mlir:[[# @LINE + 2]]:8: error: 'graph.matmul' op inner dimensions differ: [2, 3] x [4, 5]
func.func @ill_typed(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  %c = graph.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return %c : tensor<2x5xf32>
}

// -----

// CHECK: errors.mlir:[[# @LINE + 2]]:3: error: custom op 'graph.no_such_op' is unknown
func.func @unknown_op(%a: tensor<2xf32>) {
  graph.no_such_op %a : tensor<2xf32>
  return
}

// -----

// CHECK: errors.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: expected ':'
func.func @truncated(%a: tensor<2xf32>) { %b = graph.relu %a
