// RUN: turbine-opt %s --split-input-file --graph-resize-to-matmul | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-resize-to-matmul="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-resize-to-matmul="explain=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-resize-to-matmul)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-resize-to-matmul' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no resize-to-matmul-errors.mlir with expected-error cases: the pass never fails on
// valid IR (a resize it leaves alone stays as it is, with a remark under explain); its only
// errors are the option errors above, raised before it sees any IR.

// Tests that a bilinear 2x upsampling (half_pixel) becomes a product per spatial dimension: the
// height moved last and back by transposes, the width multiplied in place. Output 1 of a
// dimension sits at input 0.25: 0.75 of element 0 and 0.25 of element 1; output 0 reads the
// edge.
// CHECK-LABEL: func.func @bilinear
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xf32>)
// CHECK-NEXT: %[[T:.*]] = graph.transpose %[[X]] {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x4xf32> -> tensor<1x2x4x4xf32>
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[T]] : tensor<1x2x4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[M:.*]] = graph.constant dense<{{\[\[}}1.000000e+00, 7.500000e-01, 2.500000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 2.500000e-01, 7.500000e-01, 7.500000e-01, 2.500000e-01, 0.000000e+00, {{.*}} : tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = graph.matmul %[[R]], %[[M]] : tensor<8x4xf32>, tensor<4x8xf32> -> tensor<8x8xf32>
// CHECK-NEXT: %[[H:.*]] = graph.reshape %[[P]] : tensor<8x8xf32> -> tensor<1x2x4x8xf32>
// CHECK-NEXT: %[[B:.*]] = graph.transpose %[[H]] {permutation = array<i64: 0, 1, 3, 2>} : tensor<1x2x4x8xf32> -> tensor<1x2x8x4xf32>
// CHECK-NEXT: %[[R2:.*]] = graph.reshape %[[B]] : tensor<1x2x8x4xf32> -> tensor<16x4xf32>
// CHECK-NEXT: %[[M2:.*]] = graph.constant
// CHECK-NEXT: %[[P2:.*]] = graph.matmul %[[R2]], %[[M2]] : tensor<16x4xf32>, tensor<4x8xf32> -> tensor<16x8xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.reshape %[[P2]] : tensor<16x8xf32> -> tensor<1x2x8x8xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bilinear(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x8x8xf32> {
  // expected-remark@+1 {{one product per dimension of [2, 3] by its interpolation matrix}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<1x2x4x4xf32> -> tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// -----

// Tests align_corners along the last axis only (3 -> 5: outputs at 0, 0.5, 1, 1.5, 2, up to the
// rounding of the f32 scale, which ONNX's formula keeps), which needs no transpose.
// CHECK-LABEL: func.func @align_corners
// CHECK-NEXT: graph.reshape %{{.*}} : tensor<2x4x3xf32> -> tensor<8x3xf32>
// CHECK-NEXT: graph.constant dense<{{\[\[}}1.000000e+00, 5.000000e-01, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 5.000000e-01, 1.000000e+00, {{.*}}, 1.000000e+00]]> : tensor<3x5xf32>
// CHECK-NEXT: graph.matmul
// CHECK-NEXT: graph.reshape %{{.*}} : tensor<8x5xf32> -> tensor<2x4x5xf32>
// CHECK-NEXT: return
func.func @align_corners(%x: tensor<2x4x3xf32>) -> tensor<2x4x5xf32> {
  // expected-remark@+1 {{one product per dimension of [2] by its interpolation matrix}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 1.66666663>, mode = #graph<resize_mode linear>, coordinates = #graph<resize_coordinates align_corners>} : tensor<2x4x3xf32> -> tensor<2x4x5xf32>
  return %y : tensor<2x4x5xf32>
}

// -----

// Tests nearest downsampling by 2 (half_pixel: outputs at 0.5 and 2.5, rounded half down to 0
// and 2), which graph-resize-to-broadcast leaves alone: one 1 per column.
// CHECK-LABEL: func.func @nearest_downsample
// CHECK: graph.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00], [0.000000e+00, 0.000000e+00]]> : tensor<4x2xf32>
// CHECK-NOT: graph.resize
func.func @nearest_downsample(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-remark@+1 {{one product per dimension of [1] by its interpolation matrix}}
  %y = graph.resize %x {scales = array<f32: 1.0, 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Tests cubic interpolation with exclude_outside on the first axis of a vector-like tensor: the
// weights of neighbours outside the input are 0 and each column sums to 1.
// CHECK-LABEL: func.func @cubic
// CHECK-NEXT: graph.transpose %{{.*}} {permutation = array<i64: 1, 0>} : tensor<4x2xf32> -> tensor<2x4xf32>
// CHECK-NEXT: graph.reshape
// CHECK-NEXT: graph.constant dense<{{\[\[}}1.0{{.*}} : tensor<4x8xf32>
// CHECK-NEXT: graph.matmul
// CHECK-NEXT: graph.reshape
// CHECK-NEXT: graph.transpose %{{.*}} {permutation = array<i64: 1, 0>} : tensor<2x8xf32> -> tensor<8x2xf32>
func.func @cubic(%x: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-remark@+1 {{one product per dimension of [0] by its interpolation matrix}}
  %y = graph.resize %x {scales = array<f32: 2.0, 1.0>, mode = #graph<resize_mode cubic>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true} : tensor<4x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// Tests that a resize that changes nothing and one with an empty dimension are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NEXT: graph.resize
// CHECK-NEXT: graph.resize
func.func @left_alone(%x: tensor<2x3xf32>, %e: tensor<0x3xf32>) -> (tensor<2x3xf32>, tensor<0x6xf32>) {
  // expected-remark@+1 {{left alone: it is the identity}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0>, mode = #graph<resize_mode linear>} : tensor<2x3xf32> -> tensor<2x3xf32>
  // expected-remark@+1 {{left alone: it has an empty dimension}}
  %z = graph.resize %e {scales = array<f32: 1.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<0x3xf32> -> tensor<0x6xf32>
  return %y, %z : tensor<2x3xf32>, tensor<0x6xf32>
}
