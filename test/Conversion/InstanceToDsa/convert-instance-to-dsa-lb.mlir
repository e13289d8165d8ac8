// Tests convert-instance-to-dsa on instances of scope LB (GraphTurbo §3.4, §4.2): where each core
// can compute its own block of an instance through all its layers, it does, with the
// intermediates in its local buffer and no barrier between the layers; where that would recompute
// work or is estimated to be slower than sharing each layer among the cores, the instance is
// lowered as a GB one and the remark says why.
// RUN: turbine-opt %s --split-input-file --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group{scope=lb},instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{pipeline=false},canonicalize,cse)' | FileCheck %s
// RUN: turbine-opt %s --split-input-file --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group{scope=lb},instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true pipeline=false})' --verify-diagnostics -o /dev/null

// A residual block at batch 4 on mini (2 clusters of 2 cores): each cluster takes two images and
// binds them to its two cores ([2, 1, 1, 1]). Each core picks its image by its index in the
// cluster, runs the first convolution into a buffer at the top of its LB arena (the tiles take the
// arena from offset 0), the second convolution reads it from there (LB to LB), accumulating onto
// the residual (the core's image of the input, loaded into its accumulator), and its epilogue
// writes the core's image of the output. One barrier, after the instance.
// CHECK-LABEL: dsa.kernel @batch_block_0_g0
// CHECK:         %[[CORE:[a-z0-9_]+]] = dsa.core_id : index
// CHECK:         %[[ARENA:[a-z0-9_]+]] = dsa.alloc : memref<4096xf32, #dsa.memory_space<lb>>
// CHECK:         %[[IMAGE:[a-z0-9_]+]] = arith.remui %[[CORE]], %c2 : index
// CHECK:         %[[INPUT:[a-z0-9_]+]] = memref.subview %{{.*}}[%[[IMAGE]], 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1]
// CHECK:         %[[OUTPUT:[a-z0-9_]+]] = memref.subview %{{.*}}[%[[IMAGE]], 0, 0, 0] [1, 8, 8, 8] [1, 1, 1, 1]
// CHECK:         %[[RESIDENT:[a-z0-9_]+]] = memref.reinterpret_cast %[[ARENA]] to offset: [3584], sizes: [1, 8, 8, 8]
// CHECK:         dsa.conv2d
// CHECK-NOT:     dsa.barrier
// CHECK:         %[[KEPT:[a-z0-9_]+]] = memref.cast %[[RESIDENT]] :
// CHECK:         dsa.dma %{{.*}} to %[[KEPT]] after %{{.*}} : memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<lb>>, memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK-NOT:     dsa.barrier
// CHECK:         %[[RESIDUAL:[0-9]+]] = dsa.dma %[[INPUT]] to %[[ACCUMULATOR:[a-z0-9_]+]] :
// CHECK:         dsa.dma %[[KEPT]] to %{{.*}} : memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<lb>>, memref<1x8x8x8xf32, strided<[640, 80, 8, 1], {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after %{{.*}}, %[[RESIDUAL]]
// CHECK-NOT:     dsa.barrier
// CHECK-NOT:     dsa.binary
// CHECK:         dsa.unary  relu %[[ACCUMULATOR]]
// CHECK:         dsa.dma %{{.*}} to %[[OUTPUT]]
// CHECK:         dsa.barrier
// CHECK-NEXT:    dsa.dealloc %[[ARENA]]
// CHECK-LABEL: func.func @batch_block
func.func @batch_block(%x: tensor<4x8x8x8xf32>) -> tensor<4x8x8x8xf32> {
  // expected-remark@-1 {{1 of 1 LB instances computed per core, 0 intermediates spilled from LB to GB}}
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %b1 = graph.weight "b1" : tensor<8xf32>
  %w2 = graph.weight "w2" : tensor<8x8x3x3xf32>
  %c1 = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
  %a = graph.add %c2, %x : tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32> -> tensor<4x8x8x8xf32>
  %r = graph.relu %a : tensor<4x8x8x8xf32>
  return %r : tensor<4x8x8x8xf32>
}

// -----

// At batch 2 the cores of a cluster split the output's channels ([1, 2, 1, 1]): each would compute
// the whole first convolution and pooling again for its half of the second's channels, so the
// layers are shared among the cores through the GB instead.
// CHECK-LABEL: dsa.kernel @chain_0_g0
// CHECK:         dsa.conv2d
// CHECK:         dsa.barrier
// CHECK-LABEL: func.func @chain
func.func @chain(%x: tensor<2x16x8x8xf32>) -> tensor<2x16x8x8xf32> {
  // expected-remark@-1 {{0 of 1 LB instances computed per core, 0 intermediates spilled from LB to GB (lowered as GB instances: 1: its cores would recompute more than a tenth of its work)}}
  %w1 = graph.weight "w1" : tensor<16x16x1x1xf32>
  %w2 = graph.weight "w2" : tensor<16x16x1x1xf32>
  %c1 = graph.conv2d %x, %w1 : (tensor<2x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<2x16x8x8xf32>
  %e = graph.exp %c1 : tensor<2x16x8x8xf32>
  %p = graph.max_pool2d %e {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x16x8x8xf32> -> tensor<2x16x8x8xf32>
  %c2 = graph.conv2d %p, %w2 : (tensor<2x16x8x8xf32>, tensor<16x16x1x1xf32>) -> tensor<2x16x8x8xf32>
  return %c2 : tensor<2x16x8x8xf32>
}

// -----

// One product bound by rows: per core, each would read the whole weight for its four rows; the
// lowering's estimates find sharing the layer's tiles among the cores faster.
// CHECK-LABEL: dsa.kernel @dense_0_g0
// CHECK:         dsa.matmul
// CHECK-LABEL: func.func @dense
func.func @dense(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark@-1 {{0 of 1 LB instances computed per core, 0 intermediates spilled from LB to GB (lowered as GB instances: 1: sharing its layers is estimated to be faster)}}
  %w = graph.weight "w" : tensor<64x64xf32>
  %m = graph.matmul %x, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %r = graph.relu %m : tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
