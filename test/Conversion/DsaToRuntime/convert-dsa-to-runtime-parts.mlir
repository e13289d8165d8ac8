// Tests that convert-dsa-to-runtime cuts a kernel's function into parts: the GraphTurbo kernel
// of a chain of four convolutions (on mini, each cluster computing one image) runs its layers in
// two functions `@main_0_g0.partN` of about 150 ops each, which the kernel calls in order with its
// leading arguments (device, cluster, core, position) and the buffers they read; the kernel keeps
// its preamble (the LB arena, the selection of the running cluster's buffers) and records no
// instruction itself. The windows a part reads of a buffer are made in the part.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(turbine-graphturbo{target=mini},convert-dsa-to-runtime)' | FileCheck %s
// CHECK-LABEL: func.func private @main_0_g0.part0(%{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: index,
// CHECK:         memref.reinterpret_cast
// CHECK:         call @td_conv2d
// CHECK:         call @td_barrier
// CHECK:         return
// CHECK-LABEL: func.func private @main_0_g0.part1(%{{.*}}: i64, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: index,
// CHECK:         call @td_conv2d
// CHECK:         call @td_barrier
// CHECK:         return
// CHECK-LABEL: func.func private @main_0_g0(
// CHECK-SAME:    %[[DEVICE:[a-z0-9]+]]: i64, %[[CLUSTER:[a-z0-9]+]]: i32, %[[CORE:[a-z0-9]+]]: i32, %[[INDEX:[a-z0-9]+]]: index,
// CHECK:         call @td_buffer_alloc
// CHECK-NOT:     call @td_conv2d
// CHECK-NOT:     call @td_dma
// CHECK:         call @main_0_g0.part0(%[[DEVICE]], %[[CLUSTER]], %[[CORE]], %[[INDEX]],
// CHECK-NEXT:    call @main_0_g0.part1(%[[DEVICE]], %[[CLUSTER]], %[[CORE]], %[[INDEX]],
// CHECK:         call @td_buffer_release
// CHECK:         return
// CHECK-LABEL: func.func @main(
func.func @main(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %w2 = graph.weight "w2" : tensor<8x8x3x3xf32>
  %w3 = graph.weight "w3" : tensor<8x8x3x3xf32>
  %w4 = graph.weight "w4" : tensor<8x8x3x3xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %c2 = graph.conv2d %c1, %w2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %c3 = graph.conv2d %c2, %w3 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %c4 = graph.conv2d %c3, %w4 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %a = graph.add %c4, %x : tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32> -> tensor<2x8x16x16xf32>
  return %a : tensor<2x8x16x16xf32>
}
