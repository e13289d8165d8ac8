// Tests that a layer whose share is one tile per core issues the next layer's weight copy in
// pieces between the chunks of its tile (GraphTurbo §4.4), not after its tile loop, where they
// would move while the cores wait at the barrier: ResNet-50's last bottleneck at batch 8 on
// stcp920, every layer cut along its channels over the four clusters. The 3×3 convolution
// computes one tile of 16 channels per core, in 128 chunks of 4 input channels; the last 1×1
// convolution's filter share (1 MiB, 64 pieces of 16 KiB, 8 per core) moves under them, a piece
// every 15 chunks. The loop after the tile loop issues the pieces of a core that has no tile.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s

// CHECK-LABEL: dsa.kernel @bottleneck_s0_0_g0
// CHECK:         dsa.conv2d {{.*}} into %[[ACC:[a-z0-9_]+]] after %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>}
// CHECK:         scf.for %{{.*}} = %c1{{.*}} to %c128
// CHECK-NOT:       dsa.conv2d
// CHECK:           scf.if
// CHECK:             dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:           dsa.conv2d {{.*}} into %[[ACC]] accumulate {pads = array<i64: 1, 1, 1, 1>}
// CHECK:         dsa.unary relu %[[ACC]]
// CHECK:         scf.for
// CHECK-NOT:       dsa.conv2d
// CHECK:           dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK-LABEL: func.func @bottleneck
func.func @bottleneck(%x: tensor<8x2048x7x7xf32>) -> tensor<8x2048x7x7xf32> {
  %w1 = graph.weight "w1" : tensor<512x2048x1x1xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  %w3 = graph.weight "w3" : tensor<2048x512x1x1xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>} : (tensor<8x2048x7x7xf32>, tensor<512x2048x1x1xf32>) -> tensor<8x512x7x7xf32>
  %c2 = graph.conv2d %c1, %w2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32>
  %c3 = graph.conv2d %c2, %w3 : (tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<8x2048x7x7xf32>
  %a = graph.add %c3, %x : tensor<8x2048x7x7xf32>, tensor<8x2048x7x7xf32> -> tensor<8x2048x7x7xf32>
  %r = graph.relu %a : tensor<8x2048x7x7xf32>
  return %r : tensor<8x2048x7x7xf32>
}
