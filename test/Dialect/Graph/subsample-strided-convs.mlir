// RUN: turbine-opt %s --split-input-file --graph-subsample-strided-convs | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-subsample-strided-convs="explain=true" --verify-diagnostics -o /dev/null
// RUN: turbine-opt %s --split-input-file --graph-subsample-strided-convs="enabled=false" | FileCheck %s --check-prefix=OFF
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-subsample-strided-convs)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// ANCHOR: error: Can't add pass 'graph-subsample-strided-convs' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?
// OFF-NOT: steps =

// There is no subsample-strided-convs-errors.mlir with expected-error cases: the pass rewrites
// what it can and leaves the rest, and its only errors are the option parser's.

// Tests that a stride-2 projection of a computed value reads its input subsampled: a slice with
// the strides as steps, at the convolution's location, and the convolution at stride 1 (the
// default, which the printer leaves out).
// CHECK-LABEL: func.func @projection
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x14x14xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.relu %[[X]]
// CHECK-NEXT: %[[S:.*]] = graph.slice %[[Y]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<2x8x14x14xf32> -> tensor<2x8x7x7xf32>
// CHECK-NEXT: %[[C:.*]] = graph.conv2d %[[S]], %{{.*}}, %{{.*}} : (tensor<2x8x7x7xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<2x16x7x7xf32>
// CHECK-NEXT: return %[[C]]
func.func @projection(%x: tensor<2x8x14x14xf32>, %w: tensor<16x8x1x1xf32>, %b: tensor<16xf32>) -> tensor<2x16x7x7xf32> {
  %y = graph.relu %x : tensor<2x8x14x14xf32>
  // expected-remark@+1 {{reads its input subsampled by 2x2: 7x7 of 14x14 pixels}}
  %c = graph.conv2d %y, %w, %b {strides = array<i64: 2, 2>} : (tensor<2x8x14x14xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>) -> tensor<2x16x7x7xf32>
  return %c : tensor<2x16x7x7xf32>
}

// -----

// Tests that uneven strides round the subsampled size up (rows 0, 3, 6, 9 of 10; columns 0, 2,
// ..., 10 of 11), and that a window region inference cut (a unit-step slice) is looked through
// to the value it windows.
// CHECK-LABEL: func.func @uneven
// CHECK: %[[W:.*]] = graph.slice %{{.*}} {starts = array<i64: 0, 0, 0, 0>} : tensor<1x4x12x12xf32> -> tensor<1x4x10x11xf32>
// CHECK-NEXT: %[[S:.*]] = graph.slice %[[W]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 3, 2>} : tensor<1x4x10x11xf32> -> tensor<1x4x4x6xf32>
// CHECK-NEXT: graph.conv2d %[[S]], %{{.*}}, %{{.*}} : (tensor<1x4x4x6xf32>
func.func @uneven(%x: tensor<1x4x12x12xf32>, %w: tensor<4x4x1x1xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x6xf32> {
  %y = graph.relu %x : tensor<1x4x12x12xf32>
  %window = graph.slice %y {starts = array<i64: 0, 0, 0, 0>} : tensor<1x4x12x12xf32> -> tensor<1x4x10x11xf32>
  // expected-remark@+1 {{reads its input subsampled by 3x2: 4x6 of 10x11 pixels}}
  %c = graph.conv2d %window, %w, %b {strides = array<i64: 3, 2>} : (tensor<1x4x10x11xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x6xf32>
  return %c : tensor<1x4x4x6xf32>
}

// -----

// Tests that a convolution whose input is an argument of its region, directly or through a
// window, keeps its stride (its input is read from where it is, once).
// CHECK-LABEL: func.func @argument
// CHECK-NOT: steps
// CHECK: strides = array<i64: 2, 2>
// CHECK: strides = array<i64: 2, 2>
func.func @argument(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>, %b: tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  // expected-remark@+1 {{not subsampled: its input is an argument of its region, read from DDR once by the convolution's own copy}}
  %c = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %window = graph.slice %x {starts = array<i64: 0, 0, 0, 0>} : tensor<1x4x8x8xf32> -> tensor<1x4x7x7xf32>
  // expected-remark@+1 {{not subsampled}}
  %d = graph.conv2d %window, %w, %b {strides = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  return %c, %d : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// -----

// Tests that padded, larger-filter and unit-stride convolutions are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: graph.slice
// CHECK: pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>
// CHECK: strides = array<i64: 2, 2>
// CHECK: graph.conv2d %{{.*}}, %{{.*}}, %{{.*}} :
func.func @left_alone(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>, %k: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) -> (tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>, tensor<1x4x8x8xf32>) {
  %y = graph.relu %x : tensor<1x4x8x8xf32>
  %p = graph.conv2d %y, %w, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x5x5xf32>
  %q = graph.conv2d %y, %k, %b {strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %r = graph.conv2d %y, %w, %b : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %p, %q, %r : tensor<1x4x5x5xf32>, tensor<1x4x3x3xf32>, tensor<1x4x8x8xf32>
}
