// RUN: turbine-opt %s --split-input-file --graph-decompose-resize | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-decompose-resize="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-decompose-resize="explain=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-decompose-resize)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-decompose-resize' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no decompose-resize-errors.mlir with expected-error cases: the pass never fails on
// valid IR (a resize it leaves alone stays as it is, with a remark under explain); its only
// errors are the option errors above, raised before it sees any IR.

// Tests a linear 2x upsampling (half_pixel) of the last axis: even outputs sit a quarter before
// an input element (0.25 of the one before, the first reading the edge, and 0.75 of it), odd
// ones a quarter after; the two phases are interleaved by a concat on a new axis.
// CHECK-LABEL: func.func @bilinear
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[E:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: %[[S:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[BEFORE:.*]] = graph.concat %[[E]], %[[S]] {axis = 1 : i64} : (tensor<2x1xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[Q:.*]] = graph.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[A:.*]] = graph.mul %[[BEFORE]], %[[Q]]
// CHECK-NEXT: %[[T:.*]] = graph.constant dense<7.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[B:.*]] = graph.mul %[[X]], %[[T]]
// CHECK-NEXT: %[[EVEN:.*]] = graph.add %[[A]], %[[B]]
// CHECK: %[[S2:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 1>} : tensor<2x3xf32> -> tensor<2x2xf32>
// CHECK-NEXT: %[[E2:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 2>} : tensor<2x3xf32> -> tensor<2x1xf32>
// CHECK-NEXT: graph.concat %[[S2]], %[[E2]] {axis = 1 : i64}
// CHECK: %[[ODD:.*]] = graph.add
// CHECK-NEXT: %[[R0:.*]] = graph.reshape %[[EVEN]] : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT: %[[R1:.*]] = graph.reshape %[[ODD]] : tensor<2x3xf32> -> tensor<2x3x1xf32>
// CHECK-NEXT: %[[C:.*]] = graph.concat %[[R0]], %[[R1]] {axis = 2 : i64} : (tensor<2x3x1xf32>, tensor<2x3x1xf32>) -> tensor<2x3x2xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.reshape %[[C]] : tensor<2x3x2xf32> -> tensor<2x6xf32>
// CHECK-NEXT: return %[[Y]]
func.func @bilinear(%x: tensor<2x3xf32>) -> tensor<2x6xf32> {
  // expected-remark@+1 {{weighted sums of copies: dimension 1 in 2 phases of step 1 (4 copies)}}
  %y = graph.resize %x {scales = array<f32: 1.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<2x3xf32> -> tensor<2x6xf32>
  return %y : tensor<2x6xf32>
}

// -----

// Tests nearest downsampling by 2 (half_pixel: outputs at 0.5 and 2.5, rounded half down to 0
// and 2), which graph-resize-to-broadcast leaves alone: one strided slice.
// CHECK-LABEL: func.func @nearest_downsample
// CHECK-NEXT: %[[Y:.*]] = graph.slice %{{.*}} {starts = array<i64: 0, 0>, steps = array<i64: 1, 2>} : tensor<3x4xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[Y]]
func.func @nearest_downsample(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-remark@+1 {{weighted sums of copies: dimension 1 in 1 phases of step 2 (1 copies)}}
  %y = graph.resize %x {scales = array<f32: 1.0, 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Tests cubic upsampling with exclude_outside: neighbours outside the input weigh 0 and the
// others are renormalised, so the weights near the edges differ and multiply as a constant
// vector along the axis. The definition reads all four taps even along the unscaled axis (a
// weight of 0 times an infinity is NaN there too), so that axis is decomposed as well.
// CHECK-LABEL: func.func @cubic
// CHECK: graph.broadcast %{{.*}} : tensor<1x2xf32> -> tensor<2x2xf32>
// CHECK: %[[W:.*]] = graph.constant dense<{{\[\[}}0.000000e+00], [0.000000e+00], [-2.343750e-02], [-0.0218978096]]> : tensor<4x1xf32>
// CHECK-NEXT: graph.mul %{{.*}}, %[[W]] : tensor<4x2xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
// CHECK: graph.reshape %{{.*}} : tensor<4x2x2xf32> -> tensor<8x2xf32>
// CHECK-NOT: graph.resize
func.func @cubic(%x: tensor<4x2xf32>) -> tensor<8x2xf32> {
  // expected-remark@+1 {{weighted sums of copies: dimension 0 in 2 phases of step 1 (8 copies); dimension 1 in 1 phases of step 1 (4 copies)}}
  %y = graph.resize %x {scales = array<f32: 2.0, 1.0>, mode = #graph<resize_mode cubic>, cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true} : tensor<4x2xf32> -> tensor<8x2xf32>
  return %y : tensor<8x2xf32>
}

// -----

// Tests the resizes whose taps do not repeat with a whole factor: a fractional scale and
// align_corners. Each tap gathers the input along the dimension by constant indices (clamped to
// the input), and the gathers are weighted and summed; an output of the fractional resize that
// reads one element (its position falls on it) reads it again with weight 0 in the second tap.
// CHECK-LABEL: func.func @gathered
// CHECK: %[[I0:.*]] = graph.constant dense<[0, 0, 1, 1, 2]> : tensor<5xi64>
// CHECK-NEXT: %[[G0:.*]] = graph.gather %{{.*}}, %[[I0]] {axis = 1 : i64} : (tensor<2x3xf32>, tensor<5xi64>) -> tensor<2x5xf32>
// CHECK-NEXT: %[[W0:.*]] = graph.constant dense<[{{.*}}]> : tensor<1x5xf32>
// CHECK-NEXT: %[[P0:.*]] = graph.mul %[[G0]], %[[W0]]
// CHECK-NEXT: %[[I1:.*]] = graph.constant dense<[0, 1, 2, 2, 2]> : tensor<5xi64>
// CHECK-NEXT: %[[G1:.*]] = graph.gather %{{.*}}, %[[I1]] {axis = 1 : i64}
// CHECK: %[[F:.*]] = graph.add %[[P0]], %{{.*}} : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
// CHECK: graph.gather
// CHECK-NOT: graph.resize
// CHECK: return %[[F]]
func.func @gathered(%x: tensor<2x3xf32>) -> (tensor<2x5xf32>, tensor<2x6xf32>) {
  // expected-remark@+1 {{weighted sums of copies: dimension 1 gathered (2 gathers)}}
  %f = graph.resize %x {scales = array<f32: 1.0, 1.66666663>, mode = #graph<resize_mode linear>} : tensor<2x3xf32> -> tensor<2x5xf32>
  // expected-remark@+1 {{weighted sums of copies: dimension 1 gathered (2 gathers)}}
  %a = graph.resize %x {scales = array<f32: 1.0, 2.0>, mode = #graph<resize_mode linear>, coordinates = #graph<resize_coordinates align_corners>} : tensor<2x3xf32> -> tensor<2x6xf32>
  return %f, %a : tensor<2x5xf32>, tensor<2x6xf32>
}

// -----

// Tests what is left alone: a resize that changes nothing, and one with an empty dimension.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-2: graph.resize
func.func @left_alone(%x: tensor<2x3xf32>, %e: tensor<0x3xf32>) -> (tensor<2x3xf32>, tensor<0x6xf32>) {
  // expected-remark@+1 {{left alone: it is the identity}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0>, mode = #graph<resize_mode linear>} : tensor<2x3xf32> -> tensor<2x3xf32>
  // expected-remark@+1 {{left alone: it has an empty dimension}}
  %z = graph.resize %e {scales = array<f32: 1.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<0x3xf32> -> tensor<0x6xf32>
  return %y, %z : tensor<2x3xf32>, tensor<0x6xf32>
}
