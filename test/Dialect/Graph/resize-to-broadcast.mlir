// RUN: turbine-opt %s --split-input-file --graph-resize-to-broadcast | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-resize-to-broadcast="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-resize-to-broadcast="explain=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-resize-to-broadcast)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-resize-to-broadcast' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no resize-to-broadcast-errors.mlir with expected-error cases: the pass never fails
// on valid IR (a resize it cannot rewrite stays as it is, with a remark under explain); its only
// errors are the option errors above, raised before it sees any IR.

// Tests that a U-Net's 2x nearest upsampling with ONNX's defaults (half_pixel,
// round_prefer_floor: output o reads o / 2) becomes reshapes around a broadcast.
// CHECK-LABEL: func.func @upsample_defaults
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x16x16xf32>)
// CHECK-NEXT: %[[S:.*]] = graph.reshape %[[X]] : tensor<1x32x16x16xf32> -> tensor<1x32x16x1x16x1xf32>
// CHECK-NEXT: %[[B:.*]] = graph.broadcast %[[S]] : tensor<1x32x16x1x16x1xf32> -> tensor<1x32x16x2x16x2xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.reshape %[[B]] : tensor<1x32x16x2x16x2xf32> -> tensor<1x32x32x32xf32>
// CHECK-NEXT: return %[[Y]]
func.func @upsample_defaults(%x: tensor<1x32x16x16xf32>) -> tensor<1x32x32x32xf32> {
  // expected-remark@+1 {{repeats each element by [1, 1, 2, 2]}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x32x16x16xf32> -> tensor<1x32x32x32xf32>
  return %y : tensor<1x32x32x32xf32>
}

// -----

// Tests that PyTorch's nn.Upsample(mode="nearest") export (asymmetric, floor) by 3 along one
// axis only is rewritten too.
// CHECK-LABEL: func.func @upsample_torch
// CHECK-NEXT: graph.reshape %{{.*}} : tensor<2x4x5xf32> -> tensor<2x4x5x1xf32>
// CHECK-NEXT: graph.broadcast %{{.*}} : tensor<2x4x5x1xf32> -> tensor<2x4x5x3xf32>
// CHECK-NEXT: graph.reshape %{{.*}} : tensor<2x4x5x3xf32> -> tensor<2x4x15xf32>
func.func @upsample_torch(%x: tensor<2x4x5xf32>) -> tensor<2x4x15xf32> {
  // expected-remark@+1 {{repeats each element by [1, 1, 3]}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 3.0>, coordinates = #graph<resize_coordinates asymmetric>, nearest = #graph<nearest_rounding floor>} : tensor<2x4x5xf32> -> tensor<2x4x15xf32>
  return %y : tensor<2x4x15xf32>
}

// -----

// Tests that asymmetric coordinates rounded half up, which make output 2 of a 3x upsampling read
// input 1, are left alone.
// CHECK-LABEL: func.func @asymmetric_round
// CHECK-NEXT: graph.resize
func.func @asymmetric_round(%x: tensor<2x4x5xf32>) -> tensor<2x4x15xf32> {
  // expected-remark@+1 {{left alone: its coordinates and rounding do not repeat the elements of dimension 2}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 3.0>, coordinates = #graph<resize_coordinates asymmetric>} : tensor<2x4x5xf32> -> tensor<2x4x15xf32>
  return %y : tensor<2x4x15xf32>
}

// -----

// Tests that linear interpolation and downsampling are left alone.
// CHECK-LABEL: func.func @interpolations
// CHECK-NEXT: graph.resize
// CHECK-NEXT: graph.resize
func.func @interpolations(%x: tensor<1x8x6x6xf32>) -> (tensor<1x8x12x12xf32>, tensor<1x8x3x3xf32>) {
  // expected-remark@+1 {{left alone: it interpolates}}
  %a = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<1x8x6x6xf32> -> tensor<1x8x12x12xf32>
  // expected-remark@+1 {{left alone: dimension 2 is not scaled by a whole factor}}
  %b = graph.resize %x {scales = array<f32: 1.0, 1.0, 0.5, 0.5>} : tensor<1x8x6x6xf32> -> tensor<1x8x3x3xf32>
  return %a, %b : tensor<1x8x12x12xf32>, tensor<1x8x3x3xf32>
}
