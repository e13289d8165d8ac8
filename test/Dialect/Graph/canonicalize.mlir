// RUN: turbine-opt %s --canonicalize --split-input-file | FileCheck %s
// RUN: turbine-opt %s --cse --split-input-file | FileCheck %s --check-prefix=CSE

//===----------------------------------------------------------------------===//
// graph.reshape folder
//===----------------------------------------------------------------------===//

// Tests that a reshape to its own type folds to its input.
// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>)
// CHECK-NOT: graph.reshape
// CHECK: return %[[X]]
func.func @reshape_same_type(%x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  %y = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that a reshape of a constant to the constant's own type folds to the
// constant.
// CHECK-LABEL: func.func @reshape_same_type_constant
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
// CHECK-NEXT: return %[[C]]
func.func @reshape_same_type_constant() -> tensor<4xi64> {
  %c = graph.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %y = graph.reshape %c : tensor<4xi64> -> tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

// Tests that a reshape that changes the shape of a non-constant stays (chains
// of reshapes are the graph-fold-reshapes pass's business, not canonicalize's).
// CHECK-LABEL: func.func @reshape_other_type
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[X]] : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
// CHECK-NEXT: %[[S:.*]] = graph.reshape %[[R]] : tensor<1x128x12x64xf32> -> tensor<1x128x768xf32>
// CHECK-NEXT: return %[[S]]
func.func @reshape_other_type(%x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  %r = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
  %s = graph.reshape %r : tensor<1x128x12x64xf32> -> tensor<1x128x768xf32>
  return %s : tensor<1x128x768xf32>
}

// -----

//===----------------------------------------------------------------------===//
// graph.constant (ConstantLike with a folder)
//===----------------------------------------------------------------------===//

// Tests that identical constants are merged into one, hoisted to the start of
// the function, and that an unused constant is erased.
// CHECK-LABEL: func.func @constant_dedup
// CHECK-SAME: (%[[X:.*]]: tensor<1x12x128x128xf32>, %[[Y:.*]]: tensor<1x12x128x128xf32>)
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<1.250000e-01> : tensor<f32>
// CHECK-NEXT: %[[A:.*]] = graph.mul %[[X]], %[[C]]
// CHECK-NEXT: %[[B:.*]] = graph.mul %[[Y]], %[[C]]
// CHECK-NEXT: return %[[A]], %[[B]]
func.func @constant_dedup(%x: tensor<1x12x128x128xf32>, %y: tensor<1x12x128x128xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
  %c1 = graph.constant dense<0.125> : tensor<f32>
  %a = graph.mul %x, %c1 : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  %unused = graph.constant dense<8.0> : tensor<f32>
  %c2 = graph.constant dense<0.125> : tensor<f32>
  %b = graph.mul %y, %c2 : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %a, %b : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
}

// -----

// Tests that constants equal in value but not in type are kept apart.
// CHECK-LABEL: func.func @constant_types_differ
// CHECK-DAG: %[[F32:.*]] = graph.constant dense<1.250000e-01> : tensor<f32>
// CHECK-DAG: %[[F16:.*]] = graph.constant dense<1.250000e-01> : tensor<f16>
// CHECK: return %[[F32]], %[[F16]]
func.func @constant_types_differ() -> (tensor<f32>, tensor<f16>) {
  %a = graph.constant dense<0.125> : tensor<f32>
  %b = graph.constant dense<0.125> : tensor<f16>
  return %a, %b : tensor<f32>, tensor<f16>
}

// -----

// Tests that a constant inside a graph.if region is merged with the same
// constant in the function body (constants are hoisted out of graph regions).
// CHECK-LABEL: func.func @constant_in_region
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<1x128x768xf32>)
// CHECK-NEXT: %[[K:.*]] = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK-NEXT: %[[R:.*]] = graph.if %[[C]]
// CHECK-NEXT: %[[M:.*]] = graph.mul %[[X]], %[[K]]
// CHECK-NEXT: graph.yield %[[M]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[D:.*]] = graph.div %[[X]], %[[K]]
// CHECK-NEXT: graph.yield %[[D]]
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @constant_in_region(%c: tensor<i1>, %x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  %half = graph.constant dense<0.5> : tensor<f32>
  %r = graph.if %c -> (tensor<1x128x768xf32>) {
    %m = graph.mul %x, %half : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
    graph.yield %m : tensor<1x128x768xf32>
  } else {
    %k = graph.constant dense<0.5> : tensor<f32>
    %d = graph.div %x, %k : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
    graph.yield %d : tensor<1x128x768xf32>
  }
  return %r : tensor<1x128x768xf32>
}

// -----

// Tests that graph operators without uses are erased: they are Pure.
// CHECK-LABEL: func.func @dead_ops
// CHECK-SAME: (%[[X:.*]]: tensor<1x256x56x56xf32>)
// CHECK-NEXT: return %[[X]]
func.func @dead_ops(%x: tensor<1x256x56x56xf32>) -> tensor<1x256x56x56xf32> {
  %w = graph.weight "layer1.0.conv1.weight" : tensor<64x256x1x1xf32>
  %y = graph.conv2d %x, %w : (tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>) -> tensor<1x64x56x56xf32>
  %z = graph.relu %y : tensor<1x64x56x56xf32>
  return %x : tensor<1x256x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Upstream cse on Pure graph operators
//===----------------------------------------------------------------------===//

// Tests that cse merges two identical convolutions (a ResNet branch computed
// twice) and two identical weight reads.
// CSE-LABEL: func.func @cse_conv2d
// CSE-SAME: (%[[X:.*]]: tensor<1x64x56x56xf32>)
// CSE-NEXT: %[[W:.*]] = graph.weight "layer1.0.conv2.weight" : tensor<64x64x3x3xf32>
// CSE-NEXT: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]] {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>}
// CSE-NEXT: %[[S:.*]] = graph.add %[[Y]], %[[Y]]
// CSE-NEXT: return %[[S]]
func.func @cse_conv2d(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %w1 = graph.weight "layer1.0.conv2.weight" : tensor<64x64x3x3xf32>
  %a = graph.conv2d %x, %w1 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %w2 = graph.weight "layer1.0.conv2.weight" : tensor<64x64x3x3xf32>
  %b = graph.conv2d %x, %w2 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %s = graph.add %a, %b : tensor<1x64x56x56xf32>, tensor<1x64x56x56xf32> -> tensor<1x64x56x56xf32>
  return %s : tensor<1x64x56x56xf32>
}

// -----

// Tests that cse keeps operators that differ in an attribute or an operand:
// softmax along different axes, weights of different names.
// CSE-LABEL: func.func @cse_distinct
// CSE-SAME: (%[[S:.*]]: tensor<1x12x128x128xf32>)
// CSE-NEXT: %[[A:.*]] = graph.softmax %[[S]] : tensor<1x12x128x128xf32>
// CSE-NEXT: %[[B:.*]] = graph.softmax %[[S]] {axis = 2 : i64} : tensor<1x12x128x128xf32>
// CSE-NEXT: %[[Q:.*]] = graph.weight "encoder.layer.0.attention.self.query.weight" : tensor<768x768xf32>
// CSE-NEXT: %[[K:.*]] = graph.weight "encoder.layer.0.attention.self.key.weight" : tensor<768x768xf32>
// CSE-NEXT: return %[[A]], %[[B]], %[[Q]], %[[K]]
func.func @cse_distinct(%s: tensor<1x12x128x128xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>, tensor<768x768xf32>, tensor<768x768xf32>) {
  %a = graph.softmax %s {axis = -1 : i64} : tensor<1x12x128x128xf32>
  %b = graph.softmax %s {axis = 2 : i64} : tensor<1x12x128x128xf32>
  %q = graph.weight "encoder.layer.0.attention.self.query.weight" : tensor<768x768xf32>
  %k = graph.weight "encoder.layer.0.attention.self.key.weight" : tensor<768x768xf32>
  return %a, %b, %q, %k : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>, tensor<768x768xf32>, tensor<768x768xf32>
}

// -----

// Tests that cse replaces an operator inside a graph.if region by an identical
// one that dominates it outside.
// CSE-LABEL: func.func @cse_into_region
// CSE-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<1x64x56x56xf32>, %[[W:.*]]: tensor<64x64x3x3xf32>)
// CSE-NEXT: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]]
// CSE-NEXT: %[[R:.*]] = graph.if %[[C]]
// CSE-NEXT: %[[P:.*]] = graph.relu %[[Y]]
// CSE-NEXT: graph.yield %[[P]]
// CSE-NEXT: } else {
// CSE-NEXT: graph.yield %[[Y]]
// CSE-NEXT: }
// CSE-NEXT: return %[[R]]
func.func @cse_into_region(%c: tensor<i1>, %x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  %r = graph.if %c -> (tensor<1x64x56x56xf32>) {
    %z = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
    %p = graph.relu %z : tensor<1x64x56x56xf32>
    graph.yield %p : tensor<1x64x56x56xf32>
  } else {
    graph.yield %y : tensor<1x64x56x56xf32>
  }
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Tests that a reshape of a constant folds into a constant of the new shape
// (a BERT attention-mask row reshaped to [1, 1, 1, 4]).
// CHECK-LABEL: func.func @reshape_constant
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<{{\[\[\[\[}}0.000000e+00, 0.000000e+00, -1.000000e+04, -1.000000e+04]]]]> : tensor<1x1x1x4xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_constant() -> tensor<1x1x1x4xf32> {
  %c = graph.constant dense<[0.0, 0.0, -10000.0, -10000.0]> : tensor<4xf32>
  %y = graph.reshape %c : tensor<4xf32> -> tensor<1x1x1x4xf32>
  return %y : tensor<1x1x1x4xf32>
}

// -----

// Tests that a reshape of a splat constant folds into a splat of the new shape.
// CHECK-LABEL: func.func @reshape_splat_constant
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<1.000000e+00> : tensor<12x64xf32>
// CHECK-NEXT: return %[[C]]
func.func @reshape_splat_constant() -> tensor<12x64xf32> {
  %c = graph.constant dense<1.0> : tensor<768xf32>
  %y = graph.reshape %c : tensor<768xf32> -> tensor<12x64xf32>
  return %y : tensor<12x64xf32>
}

//===----------------------------------------------------------------------===//
// Empty inputs with non-empty results (GraphEmpty.cpp): ONNX's defined values
//===----------------------------------------------------------------------===//

// -----

// Tests that products over K = 0 fold to zeros, and that an empty product does not fold.
// CHECK-LABEL: func.func @empty_products
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-DAG: %[[B:.*]] = graph.constant dense<0.000000e+00> : tensor<2x3x4xf32>
// CHECK: %[[E:.*]] = graph.matmul %{{.*}}, %{{.*}} : tensor<0x5xf32>, tensor<5x4xf32> -> tensor<0x4xf32>
// CHECK: return %[[Z]], %[[B]], %[[E]]
func.func @empty_products(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>, %c: tensor<2x3x0xf32>, %d: tensor<2x0x4xf32>, %e: tensor<0x5xf32>, %f: tensor<5x4xf32>) -> (tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<0x4xf32>) {
  %0 = graph.matmul %a, %b : tensor<3x0xf32>, tensor<0x4xf32> -> tensor<3x4xf32>
  %1 = graph.batch_matmul %c, %d : tensor<2x3x0xf32>, tensor<2x0x4xf32> -> tensor<2x3x4xf32>
  %2 = graph.matmul %e, %f : tensor<0x5xf32>, tensor<5x4xf32> -> tensor<0x4xf32>
  return %0, %1, %2 : tensor<3x4xf32>, tensor<2x3x4xf32>, tensor<0x4xf32>
}

// -----

// Tests that reductions over an empty set fold to 0 (sum), NaN (mean), -inf (max) and 1
// (product), and a global average pool of an empty plane to NaN.
// CHECK-LABEL: func.func @empty_reductions
// CHECK-DAG: %[[S:.*]] = graph.constant dense<0.000000e+00> : tensor<2x1x3xf32>
// CHECK-DAG: %[[M:.*]] = graph.constant dense<0x7FC00000> : tensor<2x3xf32>
// CHECK-DAG: %[[X:.*]] = graph.constant dense<0xFF800000> : tensor<2x1x3xf32>
// CHECK-DAG: %[[G:.*]] = graph.constant dense<0x7FC00000> : tensor<2x3x1x1xf32>
// CHECK-DAG: %[[P:.*]] = graph.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: return %[[S]], %[[M]], %[[X]], %[[G]], %[[P]]
func.func @empty_reductions(%x: tensor<2x0x3xf32>, %p: tensor<2x3x0x4xf32>) -> (tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>, tensor<2x3x1x1xf32>, tensor<2x3xf32>) {
  %a = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
  %b = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0x3xf32> -> tensor<2x3xf32>
  %c = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
  %g = graph.global_avg_pool %p : tensor<2x3x0x4xf32> -> tensor<2x3x1x1xf32>
  %d = graph.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0x3xf32> -> tensor<2x3xf32>
  return %a, %b, %c, %g, %d : tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>, tensor<2x3x1x1xf32>, tensor<2x3xf32>
}

// -----

// Tests that a reduction of an empty tensor to an empty result stays (nothing to define).
// CHECK-LABEL: func.func @empty_reduction_empty_result
// CHECK: graph.reduce_sum
func.func @empty_reduction_empty_result(%x: tensor<2x0x3xf32>) -> tensor<2x0x1xf32> {
  %a = graph.reduce_sum %x {axes = array<i64: 2>} : tensor<2x0x3xf32> -> tensor<2x0x1xf32>
  return %a : tensor<2x0x1xf32>
}

// -----

// Tests that a constant pad of an empty tensor folds to its fill value; an edge pad stays.
// CHECK-LABEL: func.func @empty_pad
// CHECK: %[[P:.*]] = graph.constant dense<1.500000e+00> : tensor<2x5xf32>
// CHECK: return %[[P]]
func.func @empty_pad(%x: tensor<0x3xf32>) -> tensor<2x5xf32> {
  %a = graph.pad %x {pads = array<i64: 1, 1, 1, 1>, value = 1.5 : f32} : tensor<0x3xf32> -> tensor<2x5xf32>
  return %a : tensor<2x5xf32>
}

// -----

// Tests that a convolution reading only padding becomes its bias, broadcast and activated,
// and one without a bias its activation of 0.
// CHECK-LABEL: func.func @empty_convolution
// CHECK-SAME: %[[B:[^:]*]]: tensor<4xf32>
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<1x4x3x3xf32>
// CHECK-DAG: %[[R:.*]] = graph.reshape %[[B]] : tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK: %[[C:.*]] = graph.broadcast %[[R]] : tensor<1x4x1x1xf32> -> tensor<1x4x2x5xf32>
// CHECK: %[[A:.*]] = graph.clip %[[C]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32}
// CHECK: %[[S:.*]] = graph.sigmoid %[[Z]]
// CHECK: return %[[A]], %[[S]]
func.func @empty_convolution(%x: tensor<1x2x0x3xf32>, %b: tensor<4xf32>, %y: tensor<1x0x5x5xf32>) -> (tensor<1x4x2x5xf32>, tensor<1x4x3x3xf32>) {
  %w = graph.constant dense<1.0> : tensor<4x2x3x3xf32>
  %a = graph.conv2d %x, %w, %b {pads = array<i64: 2, 2, 2, 2>, activation = #graph<activation relu6>} : (tensor<1x2x0x3xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x5xf32>
  %v = graph.constant dense<1.0> : tensor<4x0x3x3xf32>
  %c = graph.conv2d %y, %v {activation = #graph<activation sigmoid>} : (tensor<1x0x5x5xf32>, tensor<4x0x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %a, %c : tensor<1x4x2x5xf32>, tensor<1x4x3x3xf32>
}

// -----

// Tests that a Gemm over K = 0 becomes beta * C broadcast to [M, N] (C of any broadcastable
// shape), or zeros without C.
// CHECK-LABEL: func.func @empty_gemm
// CHECK-SAME: %{{[^:]*}}: tensor<0x3xf32>, %{{[^:]*}}: tensor<0x4xf32>, %[[C:[^:]*]]: tensor<4xf32>
// CHECK-DAG: %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<3x4xf32>
// CHECK-DAG: %[[BETA:.*]] = graph.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[M:.*]] = graph.mul %[[C]], %[[BETA]]
// CHECK: %[[R:.*]] = graph.reshape %[[M]] : tensor<4xf32> -> tensor<1x4xf32>
// CHECK: %[[Y:.*]] = graph.broadcast %[[R]] : tensor<1x4xf32> -> tensor<3x4xf32>
// CHECK: return %[[Y]], %[[Z]]
func.func @empty_gemm(%a: tensor<0x3xf32>, %b: tensor<0x4xf32>, %c: tensor<4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = graph.gemm %a, %b, %c {trans_a = true, beta = 0.5 : f32} : (tensor<0x3xf32>, tensor<0x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = graph.gemm %a, %b {trans_a = true} : (tensor<0x3xf32>, tensor<0x4xf32>) -> tensor<3x4xf32>
  return %0, %1 : tensor<3x4xf32>, tensor<3x4xf32>
}
