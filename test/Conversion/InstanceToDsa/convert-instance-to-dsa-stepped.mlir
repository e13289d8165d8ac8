// Tests of convert-instance-to-dsa on a stepped slice of a layer's output (the input of a strided
// 1x1 projection that graph-subsample-strided-convs gave it), on stcp920.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,graph-subsample-strided-convs,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s

// The 3x3 convolution's output `y` (two 32x32 images of 64 channels per cluster) is read by a
// 3x3 stride-2 convolution and, through the slice taking its even rows and columns, by a 1x1
// projection. The 3x3 convolution's tiles store each tile into `y` and its even rows and columns
// into the slice (picked in the LB through a view stepping by 2, stored contiguous in the GB);
// no layer copies the slice after it, and the projection's tiles load it from the GB.
// CHECK-LABEL: dsa.kernel @stepped_0_g0
// CHECK:         dsa.barrier
// CHECK:         %[[Y:.*]] = dsa.dma %[[ACC:.*]] to %{{.*}} after %{{.*}} : memref<1x64x4x32xf32, strided<[8192, 128, 32, 1], offset: ?>, #dsa.memory_space<lb>>, memref<1x64x4x32xf32, strided<[65536, 1024, 32, 1], offset: ?>, #dsa.memory_space<gb>>
// CHECK:         %[[EVEN:.*]] = memref.subview %[[ACC]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [1, 64, 2, 16] [1, 1, 2, 2]
// CHECK:         %[[SLICE:.*]] = dsa.dma %[[EVEN]] to %{{.*}} after %{{.*}} : memref<1x64x2x16xf32, strided<[8192, 128, 64, 2], offset: ?>, #dsa.memory_space<lb>>, memref<1x64x2x16xf32, strided<[16384, 256, 16, 1], offset: ?>, #dsa.memory_space<gb>>
// CHECK-NEXT:    dsa.wait %[[Y]], %[[SLICE]]
// CHECK:         dsa.barrier
// CHECK-NOT:     memory_space<lb>>, memref<{{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<2x64x4x16xf32, strided<[16384, 256, 16, 1], offset: ?>, #dsa.memory_space<gb>>, memref<2x64x4x16xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d
// CHECK:         dsa.barrier
// CHECK-LABEL: func.func @stepped
func.func @stepped(%x: tensor<8x64x32x32xf32>) -> (tensor<8x128x16x16xf32>, tensor<8x128x16x16xf32>) {
  %w1 = graph.weight "w1" : tensor<64x64x3x3xf32>
  %b1 = graph.weight "b1" : tensor<64xf32>
  %y = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x64x32x32xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<8x64x32x32xf32>
  %w2 = graph.weight "w2" : tensor<128x64x1x1xf32>
  %b2 = graph.weight "b2" : tensor<128xf32>
  %p = graph.conv2d %y, %w2, %b2 {strides = array<i64: 2, 2>} : (tensor<8x64x32x32xf32>, tensor<128x64x1x1xf32>, tensor<128xf32>) -> tensor<8x128x16x16xf32>
  %w3 = graph.weight "w3" : tensor<128x64x3x3xf32>
  %b3 = graph.weight "b3" : tensor<128xf32>
  %q = graph.conv2d %y, %w3, %b3 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x64x32x32xf32>, tensor<128x64x3x3xf32>, tensor<128xf32>) -> tensor<8x128x16x16xf32>
  return %p, %q : tensor<8x128x16x16xf32>, tensor<8x128x16x16xf32>
}
