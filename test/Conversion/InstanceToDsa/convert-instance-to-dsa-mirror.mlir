// Tests of convert-instance-to-dsa on values handed over between segments both through DDR and in
// the GB (mirrored), and on segments that keep results in the GB while continuing the kernel
// before, on stcp920.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true})' --verify-diagnostics -o /dev/null

// Three 3x3 convolutions of 512 channels (9.4 MB of filters each) on two 4x4 images per cluster,
// each cut along its output channels in a segment of its own, as ResNet-50's stage 4 is: `y` is
// read whole by the second convolution (from DDR, where every cluster's share is) and by the
// residual addition of the third with the same cut (each cluster its 128 channels). The first
// convolution's tiles store `y` twice, into its DDR share (channel stride 8192) and into the
// cluster's GB copy (stride 2048); the third loads its residual from that copy, not from DDR.
// The later segments continue the first one's kernel: its arena leaves the copy's 64 KiB
// (2080768 elements of the 8 MiB GB), and the copy is freed after the launch.
// CHECK-LABEL: dsa.kernel @mirror_s0_0_g0
// CHECK-SAME:    memref<2080768xf32, #dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         %[[TO_DDR:.*]] = dsa.dma %[[Y:.*]] to %{{.*}} after %{{.*}} : memref<8x16x4x4xf32, strided<[256, 16, 4, 1], offset: ?>, #dsa.memory_space<lb>>, memref<8x16x4x4xf32, strided<[8192, 16, 4, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         %[[TO_GB:.*]] = dsa.dma %[[Y]] to %{{.*}} after %{{.*}} : memref<8x16x4x4xf32, strided<[256, 16, 4, 1], offset: ?>, #dsa.memory_space<lb>>, memref<8x16x4x4xf32, strided<[2048, 16, 4, 1], offset: ?>, #dsa.memory_space<gb>>
// CHECK-NEXT:    dsa.wait %[[TO_DDR]], %[[TO_GB]]
// CHECK:         dsa.barrier
// CHECK:         dsa.barrier
// CHECK:         dsa.barrier
// CHECK:         dsa.dma %{{.*}} to %[[ACC:.*]] : memref<8x16x4x4xf32, strided<[2048, 16, 4, 1], offset: ?>, #dsa.memory_space<gb>>, memref<8x16x4x4xf32, strided<[256, 16, 4, 1], offset: ?>, #dsa.memory_space<lb>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[ACC]] accumulate
// CHECK:         dsa.return
// CHECK-NOT:   dsa.kernel
// CHECK-LABEL: func.func @mirror
// CHECK:         %[[M0:.*]] = dsa.alloc {cluster = 0 : i64} : memref<8x128x4x4xf32, #dsa.memory_space<gb>>
// CHECK:         dsa.launch @mirror_s0_0_g0(
// CHECK-NOT:     dsa.launch
// CHECK:         dsa.dealloc %[[M0]] : memref<8x128x4x4xf32, #dsa.memory_space<gb>>
// CHECK:         return
// expected-remark@+1 {{@mirror: 1 kernels on 4 cluster(s); segments continuing the kernel before: 3}}
func.func @mirror(%x: tensor<8x512x4x4xf32>) -> tensor<8x512x4x4xf32> {
  %a = graph.relu %x : tensor<8x512x4x4xf32>
  %w1 = graph.weight "w1" : tensor<512x512x3x3xf32>
  %b1 = graph.weight "b1" : tensor<512xf32>
  %y = graph.conv2d %a, %w1, %b1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  %b2 = graph.weight "b2" : tensor<512xf32>
  %p = graph.conv2d %y, %w2, %b2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %w3 = graph.weight "w3" : tensor<512x512x3x3xf32>
  %b3 = graph.weight "b3" : tensor<512xf32>
  %c = graph.conv2d %p, %w3, %b3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %s = graph.add %c, %y : tensor<8x512x4x4xf32>, tensor<8x512x4x4xf32> -> tensor<8x512x4x4xf32>
  %r = graph.relu %s : tensor<8x512x4x4xf32>
  return %r : tensor<8x512x4x4xf32>
}
