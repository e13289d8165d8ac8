// RUN: turbine-opt %s --split-input-file --graph-decompose-pad | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-decompose-pad="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-decompose-pad="explain=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-decompose-pad)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-decompose-pad' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no decompose-pad-errors.mlir with expected-error cases: the pass never fails on
// valid IR (a pad it leaves alone stays as it is, with a remark under explain); its only errors
// are the option errors above, raised before it sees any IR.

// Tests reflection: [a b c d] padded by 2 before and 1 after is [c b a b c d c], the mirrored
// elements one slice each, nearest the input last before it and first after it.
// CHECK-LABEL: func.func @reflect
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32>)
// CHECK-NEXT: %[[C:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 2>} : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[B:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 1>} : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[BEFORE:.*]] = graph.concat %[[C]], %[[B]] {axis = 1 : i64} : (tensor<3x1xf32>, tensor<3x1xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[AFTER:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 2>} : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.concat %[[BEFORE]], %[[X]], %[[AFTER]] {axis = 1 : i64} : (tensor<3x2xf32>, tensor<3x4xf32>, tensor<3x1xf32>) -> tensor<3x7xf32>
// CHECK-NEXT: return %[[Y]]
func.func @reflect(%x: tensor<3x4xf32>) -> tensor<3x7xf32> {
  // expected-remark@+1 {{reflect padding by concats and slices}}
  %y = graph.pad %x {pads = array<i64: 0, 2, 0, 1>, mode = #graph<pad_mode reflect>} : tensor<3x4xf32> -> tensor<3x7xf32>
  return %y : tensor<3x7xf32>
}

// -----

// Tests edge padding of two dimensions, one after the other (the corners repeat the padded
// rows, as numpy's pad fills them).
// CHECK-LABEL: func.func @edge
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[TOP:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<1x3xf32>
// CHECK-NEXT: %[[ROWS:.*]] = graph.concat %[[TOP]], %[[X]] {axis = 0 : i64} : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
// CHECK-NEXT: %[[LAST:.*]] = graph.slice %[[ROWS]] {starts = array<i64: 0, 2>} : tensor<3x3xf32> -> tensor<3x1xf32>
// CHECK-NEXT: %[[RIGHT:.*]] = graph.broadcast %[[LAST]] : tensor<3x1xf32> -> tensor<3x2xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.concat %[[ROWS]], %[[RIGHT]] {axis = 1 : i64} : (tensor<3x3xf32>, tensor<3x2xf32>) -> tensor<3x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @edge(%x: tensor<2x3xf32>) -> tensor<3x5xf32> {
  // expected-remark@+1 {{edge padding by concats and slices}}
  %y = graph.pad %x {pads = array<i64: 1, 0, 0, 2>, mode = #graph<pad_mode edge>} : tensor<2x3xf32> -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// Tests a constant fill other than +0.0 (a splat joined on), and a crop (negative pad) after
// the padding, as in ONNX's reference; a zero fill that crops keeps the zero pad, which the
// lowerings compile, and crops after it.
// CHECK-LABEL: func.func @constant
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf32>)
// CHECK-NEXT: %[[F:.*]] = graph.constant dense<-0.000000e+00> : tensor<2x3xf32>
// CHECK-NEXT: %[[P:.*]] = graph.concat %[[X]], %[[F]] {axis = 0 : i64} : (tensor<4x3xf32>, tensor<2x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.slice %[[P]] {starts = array<i64: 1, 0>} : tensor<6x3xf32> -> tensor<5x3xf32>
// CHECK-NEXT: %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<4x1xf32>
// CHECK-NEXT: %[[Q:.*]] = graph.concat %[[Z]], %[[X]] {axis = 1 : i64} : (tensor<4x1xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %[[W:.*]] = graph.slice %[[Q]] {starts = array<i64: 0, 0>} : tensor<4x4xf32> -> tensor<2x4xf32>
// CHECK-NEXT: return %[[Y]], %[[W]]
func.func @constant(%x: tensor<4x3xf32>) -> (tensor<5x3xf32>, tensor<2x4xf32>) {
  // expected-remark@+1 {{constant padding by concats and slices}}
  %y = graph.pad %x {pads = array<i64: -1, 0, 2, 0>, value = -0.0 : f32} : tensor<4x3xf32> -> tensor<5x3xf32>
  // expected-remark@+1 {{constant padding by concats and slices}}
  %w = graph.pad %x {pads = array<i64: 0, 1, -2, 0>} : tensor<4x3xf32> -> tensor<2x4xf32>
  return %y, %w : tensor<5x3xf32>, tensor<2x4xf32>
}

// -----

// Tests what is left alone: a zero fill (the lowerings compile it), the edge of an empty
// dimension, and a pad of integers.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: graph.pad
func.func @left_alone(%x: tensor<2x3xf32>, %e: tensor<0x3xf32>, %i: tensor<2xi64>) -> (tensor<4x3xf32>, tensor<2x3xf32>, tensor<4xi64>) {
  // expected-remark@+1 {{left alone: the lowerings compile a zero fill}}
  %z = graph.pad %x {pads = array<i64: 1, 0, 1, 0>} : tensor<2x3xf32> -> tensor<4x3xf32>
  // expected-remark@+1 {{left alone: dimension 0 is empty and has no element to repeat}}
  %r = graph.pad %e {pads = array<i64: 1, 0, 1, 0>, mode = #graph<pad_mode edge>} : tensor<0x3xf32> -> tensor<2x3xf32>
  // expected-remark@+1 {{left alone: it pads a tensor of another element type than f32}}
  %j = graph.pad %i {pads = array<i64: 1, 1>, mode = #graph<pad_mode edge>} : tensor<2xi64> -> tensor<4xi64>
  return %z, %r, %j : tensor<4x3xf32>, tensor<2x3xf32>, tensor<4xi64>
}
