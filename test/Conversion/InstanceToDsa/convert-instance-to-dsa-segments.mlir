// Tests of convert-instance-to-dsa on a function of several cluster programs (segments): a layer
// that instance-cluster-split cut along its output channels between two segments cut along the
// batch, on stcp920.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{join-segments=false})' | FileCheck %s
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s --check-prefix=JOIN
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true})' --verify-diagnostics -o /dev/null

// Tests the hand-over between segments. The convolution (2.4 MB of filters for two 4x4 images per
// cluster) is cut along its 512 channels: its segment reads the relu's whole output, which the
// first segment writes to DDR, and each cluster writes its 128 channels of the result, a strided
// share of the returned tensor that the last segment reads back along the batch. The sigmoid of
// `z` is cut along the batch by both segments around the convolution's: each cluster keeps its
// share in its GB across the convolution's kernel, and frees it after the last reader. Kernels
// are named after their segment. With `join-segments=false` each segment has kernels of its own.
// CHECK-LABEL: dsa.kernel @main_s0_0_g0
// CHECK-LABEL: dsa.kernel @main_s1_0_g0(%{{.*}}: memref<8x128x4x4xf32, #dsa.memory_space<ddr>>
// CHECK-LABEL: dsa.kernel @main_s2_0_g0
// CHECK-LABEL: func.func @main
// CHECK:         %[[IN:.*]] = dsa.alloc : memref<8x128x4x4xf32, #dsa.memory_space<ddr>>
// CHECK:         %[[U0:.*]] = dsa.alloc {cluster = 0 : i64} : memref<2x512xf32, #dsa.memory_space<gb>>
// CHECK:         %[[U3:.*]] = dsa.alloc {cluster = 3 : i64} : memref<2x512xf32, #dsa.memory_space<gb>>
// CHECK:         dsa.launch @main_s0_0_g0(
// CHECK:         dsa.launch @main_s0_1_g1(
// CHECK:         dsa.launch @main_s1_0_g0(%[[IN]],
// CHECK:         dsa.dealloc %[[IN]] : memref<8x128x4x4xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.launch @main_s2_0_g0({{.*}}%[[U0]], {{.*}}%[[U3]],
// CHECK:         dsa.dealloc %[[U0]] : memref<2x512xf32, #dsa.memory_space<gb>>
// CHECK:         return

// By default the convolution's segment and the last one place nothing of their own in the GB:
// they continue the first segment's last kernel after a barrier of all 32 cores, in its arena,
// and the buffers the launches shared are freed after the one launch.
// JOIN-LABEL: dsa.kernel @main_s0_1_g1
// JOIN:         dsa.unary  relu
// JOIN:         dsa.barrier
// JOIN:         dsa.conv
// JOIN:         dsa.barrier
// JOIN:         dsa.unary  tanh
// JOIN:         dsa.return
// JOIN-NOT:   dsa.kernel @main_s1
// JOIN-LABEL: func.func @main
// JOIN:         %[[IN:.*]] = dsa.alloc : memref<8x128x4x4xf32, #dsa.memory_space<ddr>>
// JOIN:         dsa.launch @main_s0_0_g0(
// JOIN:         dsa.launch @main_s0_1_g1({{.*}}%[[IN]],
// JOIN-NOT:     dsa.launch
// JOIN:         dsa.dealloc %[[IN]] : memref<8x128x4x4xf32, #dsa.memory_space<ddr>>
// JOIN:         return
// expected-remark@+1 {{@main: 2 kernels on 4 cluster(s); segments continuing the kernel before: 2}}
func.func @main(%x: tensor<8x128x4x4xf32>, %z: tensor<8x512xf32>) -> (tensor<8x512xf32>, tensor<8x512x4x4xf32>) {
  %u = graph.sigmoid %z : tensor<8x512xf32>
  %a = graph.relu %x : tensor<8x128x4x4xf32>
  %wc = graph.weight "conv.w" : tensor<512x128x3x3xf32>
  %bc = graph.weight "conv.b" : tensor<512xf32>
  %c = graph.conv2d %a, %wc, %bc {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x128x4x4xf32>, tensor<512x128x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %p = graph.global_avg_pool %c : tensor<8x512x4x4xf32> -> tensor<8x512x1x1xf32>
  %f = graph.flatten %p : tensor<8x512x1x1xf32> -> tensor<8x512xf32>
  %t = graph.tanh %f : tensor<8x512xf32>
  %o = graph.add %t, %u : tensor<8x512xf32>, tensor<8x512xf32> -> tensor<8x512xf32>
  return %o, %c : tensor<8x512xf32>, tensor<8x512x4x4xf32>
}

// Tests that a convolution cut along its channels reads its residual operand and writes its
// result where they are: each cluster's share of both is a strided view of a DDR tensor (128 of
// 512 channels), which the convolution's epilogue loads and tile stores take as they are, with no
// contiguous copy in the GB before or after the layer (the last barrier ends the kernel, which
// the relu's segment began).
// CHECK-LABEL: dsa.kernel @residual_s1_0_g0
// JOIN-LABEL: dsa.kernel @residual_s0_0_g0
// JOIN:         dsa.unary  relu
// JOIN:         dsa.barrier
// JOIN:         dsa.dma %{{.*}} to %{{.*}} : memref<8x16x4x4xf32, strided<[8192, 16, 4, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<8x16x4x4xf32, {{.*}}#dsa.memory_space<lb>>
// JOIN:         dsa.barrier
// JOIN-NEXT:    dsa.dealloc
// JOIN-NEXT:    dsa.return
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<8x16x4x4xf32, strided<[8192, 16, 4, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<8x16x4x4xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.binary  add
// CHECK:         dsa.dma %{{.*}} to %{{.*}} after %{{.*}} : memref<8x16x4x4xf32, {{.*}}#dsa.memory_space<lb>>, memref<8x16x4x4xf32, strided<[8192, 16, 4, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         dsa.barrier
// CHECK-NEXT:    dsa.dealloc
// CHECK-NEXT:    dsa.return
// CHECK-LABEL: func.func @residual
// expected-remark@+1 {{@residual: 1 kernels on 4 cluster(s); segments continuing the kernel before: 1}}
func.func @residual(%x: tensor<8x128x4x4xf32>, %r: tensor<8x512x4x4xf32>) -> tensor<8x512x4x4xf32> {
  %a = graph.relu %x : tensor<8x128x4x4xf32>
  %wc = graph.weight "conv.w" : tensor<512x128x3x3xf32>
  %bc = graph.weight "conv.b" : tensor<512xf32>
  %c = graph.conv2d %a, %wc, %bc {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x128x4x4xf32>, tensor<512x128x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %s = graph.add %c, %r : tensor<8x512x4x4xf32>, tensor<8x512x4x4xf32> -> tensor<8x512x4x4xf32>
  %o = graph.relu %s : tensor<8x512x4x4xf32>
  return %o : tensor<8x512x4x4xf32>
}
