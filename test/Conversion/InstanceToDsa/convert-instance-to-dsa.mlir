// Tests of convert-instance-to-dsa (GraphTurbo §4): the scheduled program becomes kernels that
// run on every cluster at once, each cluster on its own share, with the data between layers in
// the cluster's global buffer. The CHECK lines are of kernels without software pipelining; PIPE
// checks the pipelined conv of the first case.
// RUN: turbine-opt %s --split-input-file --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{pipeline=false})' | FileCheck %s
// RUN: turbine-opt %s --split-input-file --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true pipeline=false})' --verify-diagnostics -o /dev/null
// RUN: turbine-opt %s --split-input-file --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s --check-prefix=PIPE

// Tests a residual block of two convolutions at batch 2 on mini (2 clusters of 2 cores): one group,
// one kernel launched on the 4 cores, each cluster taking its image. The input and output are
// kernel arguments whole, each cluster's share a view at an offset computed from the running
// cluster; its GB arena is an argument per cluster picked by the running cluster. Each
// core reads the first convolution's whole filter once (it stays in LB over the core's row
// tiles), so copying it to the GB first would only add a step: the tiles load it from DDR. The
// second's tiles share the DDR port with their residual loads and their stores, behind which a
// filter load from DDR would wait: its filter is copied to the GB first (the cores sharing the
// copy), and the tiles load it from there. The first convolution's result goes from LB to the
// cluster's GB, the second reads it from there (no DDR round trip between the stitched layers);
// the second writes the cluster's share of the output in DDR.
// CHECK-LABEL: dsa.kernel @conv_block_0_g0
// CHECK:         %[[CLUSTER:.*]] = dsa.cluster_id : index
// CHECK:         %[[IMAGE:.*]] = arith.addi %{{.*}}, %[[CLUSTER]] : index
// CHECK:         memref.subview %{{.*}}[%[[IMAGE]], %{{.*}}, %{{.*}}, %{{.*}}] [1, 8, 16, 16] [1, 1, 1, 1] : memref<2x8x16x16xf32, #dsa.memory_space<ddr>> to memref<1x8x16x16xf32, strided<[2048, 256, 16, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<8x8x3x3xf32, {{.*}}#dsa.memory_space<ddr>>, memref<8x8x3x3xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d
// CHECK:         dsa.dma %{{.*}} to %{{.*}} after %{{.*}} : memref<1x8x8x16xf32, {{.*}}#dsa.memory_space<lb>>, memref<1x8x8x16xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<4x8x3x3xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4x8x3x3xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<8x8x3x3xf32, {{.*}}#dsa.memory_space<gb>>, memref<8x8x3x3xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK-NOT:     #dsa.memory_space<ddr>>, memref<1x8x9x16xf32
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<1x8x9x16xf32, {{.*}}#dsa.memory_space<gb>>, memref<1x8x9x16xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d
// CHECK:         dsa.dma %{{.*}} to %{{.*}} after %{{.*}} : memref<1x8x8x16xf32, {{.*}}#dsa.memory_space<lb>>, memref<1x8x8x16xf32, {{.*}}#dsa.memory_space<ddr>>
// CHECK:         dsa.barrier
// CHECK:         dsa.return
// CHECK-LABEL: func.func @conv_block
// With pipelining, each tile's input channels come in eight chunks through double buffers: chunk 0
// overwrites the accumulator, then chunk 1's loads (into the other halves) are issued after it and
// waited for together with it; the loop's convs accumulate from the half the parity picks, and
// load the next chunk only while there is one.
// PIPE-LABEL: dsa.kernel @conv_block_0_g0
// PIPE:         %[[FIRST:.*]] = dsa.conv2d %{{.*}}, %{{.*}} into %[[ACC:[a-z0-9_]+]] after %{{.*}}, %{{.*}} {pads
// PIPE:         %[[IN1:.*]] = dsa.dma
// PIPE:         %[[FILTER1:.*]] = dsa.dma
// PIPE-NEXT:    dsa.wait %[[IN1]], %[[FILTER1]], %[[FIRST]]
// PIPE:         scf.for %{{.*}} = %c1{{.*}} to %c8
// PIPE:         %[[INPUT:.*]] = arith.select
// PIPE:         %[[CONV:.*]] = dsa.conv2d %{{.*}}, %{{.*}} into %[[ACC]] accumulate {pads
// PIPE:         scf.if
// PIPE:         %[[IN:.*]] = dsa.dma
// PIPE:         %[[FILTER:.*]] = dsa.dma
// PIPE-NEXT:    dsa.wait %[[IN]], %[[FILTER]], %[[CONV]]
// PIPE-NEXT:  } else {
// PIPE-NEXT:    dsa.wait %[[CONV]]
// PIPE-LABEL: func.func @conv_block
// CHECK-SAME:    {dsa.input = 0 : i64}
// CHECK-SAME:    {dsa.output = 0 : i64}
// CHECK-SAME:    {dsa.weight = "w1"}
// CHECK:         %[[GB0:.*]] = dsa.alloc {cluster = 0 : i64} : memref<65536xf32, #dsa.memory_space<gb>>
// CHECK:         %[[GB1:.*]] = dsa.alloc {cluster = 1 : i64} : memref<65536xf32, #dsa.memory_space<gb>>
// CHECK:         dsa.launch @conv_block_0_g0({{.*}}) on [0, 1, 2, 3]
// CHECK:         dsa.dealloc %[[GB0]]
// CHECK:         dsa.dealloc %[[GB1]]
func.func @conv_block(%x: tensor<2x8x16x16xf32>) -> tensor<2x8x16x16xf32> {
  // expected-remark@-1 {{@conv_block: 1 kernels on 2 cluster(s); GB of a cluster (of 262144 bytes): instance outputs up to 0 bytes, a kernel's intermediates up to 10496 bytes; 0 of 0 instance outputs and 0 intermediates spilled to DDR; weights copied to the GB before 1 of the 2 layers reading weights}}
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %b1 = graph.weight "b1" : tensor<8xf32>
  %w2 = graph.weight "w2" : tensor<8x8x3x3xf32>
  %c1 = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<2x8x16x16xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %a = graph.add %c2, %x : tensor<2x8x16x16xf32>, tensor<2x8x16x16xf32> -> tensor<2x8x16x16xf32>
  %r = graph.relu %a : tensor<2x8x16x16xf32>
  return %r : tensor<2x8x16x16xf32>
}

// -----

// Tests a convolution whose input channels do not fit the LB whole: every row tile reads the
// filter again, chunk by chunk, so its copy in the GB pays (GraphTurbo §4.2: DDR -> GB -> LB).
// The filter is copied once per cluster, shared by its cores, a barrier after it; the tiles load
// their chunks from the GB.
// CHECK-LABEL: dsa.kernel @wide_conv_0_g0
// CHECK:         scf.for
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<ddr>>, memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         scf.for
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<16x4x3x3xf32, {{.*}}#dsa.memory_space<gb>>, memref<16x4x3x3xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d
// CHECK-NOT:     memref<16x4x3x3xf32, {{.*}}#dsa.memory_space<ddr>>
// CHECK:         dsa.barrier
// CHECK:         dsa.return
// CHECK-LABEL: func.func @wide_conv
func.func @wide_conv(%x: tensor<2x16x32x32xf32>) -> tensor<2x16x32x32xf32> {
  // expected-remark@-1 {{weights copied to the GB before 1 of the 1 layers reading weights}}
  %w = graph.weight "w" : tensor<16x16x3x3xf32>
  %c = graph.conv2d %x, %w {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32>
  return %c : tensor<2x16x32x32xf32>
}

// -----

// Tests the weight prefetch across layers (GraphTurbo §4.4): two convolutions whose inputs are
// the model's, in DDR, so that each filter read from DDR by the tiles would share the DDR port
// with their input rows, and the second's epilogue reads a third model input from DDR. Without
// pipelining each copies its filter to the GB first, a step of its own, waited for and followed
// by a barrier. With it, the first convolution streams its filter chunks from DDR with its rows
// (a pipelined tiling), and the second filter's copy is issued inside the first convolution's
// tile loop, cut into pieces (one here: the filter is 9 KiB) dealt to the cores, which issue
// them between their tiles and do not wait for them; a core with fewer tiles than pieces issues
// the rest in a loop after it. The barrier ending the first convolution orders the copy before
// the second reads it. The results are multiplied, not added: a sum would start the second
// convolution's accumulator from the first one's result, whose smaller tiles stream the filter
// from DDR without a copy.
// CHECK-LABEL: dsa.kernel @two_wide_convs_0_g0
// CHECK:         dsa.dma {{.*}} : memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<ddr>>, memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d
// CHECK:         dsa.barrier
// CHECK:         dsa.dma {{.*}} : memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<ddr>>, memref<8x16x3x3xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d
// PIPE-LABEL: dsa.kernel @two_wide_convs_0_g0
// PIPE-NOT:     dsa.barrier
// PIPE:         scf.for
// PIPE-NOT:     dsa.barrier
// PIPE:         scf.if
// PIPE:           dsa.dma {{.*}} : memref<2304xf32, {{.*}}#dsa.memory_space<ddr>>, memref<2304xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE-NEXT:    }
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.conv2d
// PIPE-NOT:     dsa.barrier
// PIPE:         scf.for
// PIPE:           dsa.dma {{.*}} : memref<2304xf32, {{.*}}#dsa.memory_space<ddr>>, memref<2304xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.barrier
// PIPE-NOT:     #dsa.memory_space<ddr>>, memref<{{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.conv2d
// PIPE-LABEL: func.func @two_wide_convs
func.func @two_wide_convs(%x: tensor<2x16x32x32xf32>, %y: tensor<2x16x32x32xf32>, %z: tensor<2x16x32x32xf32>) -> tensor<2x16x32x32xf32> {
  // expected-remark@-1 {{weights copied to the GB before 2 of the 2 layers reading weights}}
  %w1 = graph.weight "w1" : tensor<16x16x3x3xf32>
  %w2 = graph.weight "w2" : tensor<16x16x3x3xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32>
  %c2 = graph.conv2d %y, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32>
  %m = graph.mul %c2, %z : tensor<2x16x32x32xf32>, tensor<2x16x32x32xf32> -> tensor<2x16x32x32xf32>
  %s = graph.mul %m, %c1 : tensor<2x16x32x32xf32>, tensor<2x16x32x32xf32> -> tensor<2x16x32x32xf32>
  return %s : tensor<2x16x32x32xf32>
}

// -----

// Tests a downsampling block (a 3x3 stride-2 convolution and a 1x1 stride-2 projection of the
// same activation): the projection reads 15 of the 16 rows and columns, which the instance's
// body says with a slice. The slice is a view of the first convolution's result in the GB, read
// in place by the projection's tiles (no copy of the window), and the projection reads every
// second row of it through a view of its own (stride 1 along H in the instruction).
// CHECK-LABEL: dsa.kernel @downsample_0_g0
// CHECK-NOT:     memref<1x8x15x15xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} {strides = array<i64: 1, 2>} : memref<1x8x{{[0-9]+}}x15xf32
// CHECK-LABEL: func.func @downsample
// CHECK:         %[[WINDOW:.*]] = memref.subview %{{.*}} [1, 8, 15, 15] [1, 1, 1, 1] : memref<1x8x16x16xf32, strided<[2048, 256, 16, 1], offset: ?>, #dsa.memory_space<gb>> to memref<1x8x15x15xf32, strided<[2048, 256, 16, 1], offset: ?>, #dsa.memory_space<gb>>
// CHECK:         memref.subview %[[WINDOW]]{{.*}} [1, 8, 8, 15] [1, 1, 2, 1] : {{.*}} to memref<1x8x8x15xf32, strided<[2048, 256, 32, 1], offset: ?>, #dsa.memory_space<gb>>
// CHECK:         dsa.launch @downsample_0_g0
// CHECK-NOT:     dsa.launch
func.func @downsample(%x: tensor<2x8x16x16xf32>) -> tensor<2x16x8x8xf32> {
  // expected-remark@-1 {{@downsample: 1 kernels on 2 cluster(s)}}
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %w2 = graph.weight "w2" : tensor<16x8x3x3xf32>
  %w3 = graph.weight "w3" : tensor<16x8x1x1xf32>
  %r = graph.conv2d %x, %w1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x16x16xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x16x16xf32>
  %a = graph.conv2d %r, %w2 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x8x8xf32>
  %p = graph.conv2d %r, %w3 {strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x8x8xf32>
  %s = graph.add %a, %p : tensor<2x16x8x8xf32>, tensor<2x16x8x8xf32> -> tensor<2x16x8x8xf32>
  return %s : tensor<2x16x8x8xf32>
}

// -----

// Tests the prefetch across instances: two pointwise convolutions at batch 8 on mini, one group
// split into four instances of one image each (per cluster), run in one kernel. Each instance's
// first convolution copies its input (the segment's, in DDR) to the GB, which its tiles re-read
// for every block of output channels, and the second its filter. Without pipelining
// each instance's copy is a step of its own after the instance before. With it, a copy is issued
// in pieces of 16 KiB between the chunks of the tiles of the layer before (no barrier between the
// copy and that layer's tiles; the pieces a core had no step for after its loop) and ordered
// before its readers by the barrier that ends that layer: the next instance's input and filter
// under the last layer of the instance before, and the second convolution's filter under the
// first, whose estimate leaves the DDR port idle long enough for it (the copy credited). Each
// core issues its first piece `core * stride / cores` steps into its share, so that the cores
// take turns on the port.
// CHECK-LABEL: dsa.kernel @instances_0_g0
// CHECK:         dsa.dma {{.*}} : memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<ddr>>, memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d
// CHECK:         dsa.barrier
// CHECK:         dsa.dma {{.*}} : memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<ddr>>, memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d
// PIPE-LABEL: dsa.kernel @instances_0_g0
// PIPE:         dsa.dma {{.*}} : memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<ddr>>, memref<1x32x16x16xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.barrier
// PIPE:         scf.for
// PIPE-NOT:     dsa.barrier
// PIPE:         %[[STRIDE:.*]] = arith.maxui
// PIPE-NEXT:    %[[TURNS:.*]] = arith.muli %{{.*}}, %[[STRIDE]] : index
// PIPE:         %[[SHIFT:.*]] = arith.divui %[[TURNS]]
// PIPE-NEXT:    arith.cmpi uge, %{{.*}}, %[[SHIFT]] : index
// PIPE:         dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.conv2d {{.*}} : memref<1x4x4x16xf32
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.barrier
// PIPE:         scf.for
// PIPE:         dsa.dma {{.*}} : memref<64x8x1x1xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.conv2d {{.*}} : memref<1x8x2x16xf32
// PIPE-NOT:     dsa.barrier
// PIPE:         dsa.dma {{.*}} : memref<4096xf32, {{.*}}#dsa.memory_space<ddr>>, memref<4096xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.barrier
// PIPE-NOT:     #dsa.memory_space<ddr>>, memref<1x32x16x16xf32
// PIPE:         dsa.conv2d {{.*}} : memref<1x64x1x8xf32
// PIPE-LABEL: func.func @instances
func.func @instances(%x: tensor<8x64x16x16xf32>) -> tensor<8x64x16x16xf32> {
  // expected-remark@-1 {{weights copied to the GB before 8 of the 8 layers reading weights}}
  %w1 = graph.weight "w1" : tensor<128x64x1x1xf32>
  %w2 = graph.weight "w2" : tensor<64x128x1x1xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>} : (tensor<8x64x16x16xf32>, tensor<128x64x1x1xf32>) -> tensor<8x128x16x16xf32>
  %c2 = graph.conv2d %c1, %w2 : (tensor<8x128x16x16xf32>, tensor<64x128x1x1xf32>) -> tensor<8x64x16x16xf32>
  return %c2 : tensor<8x64x16x16xf32>
}

// -----

// Tests a bottleneck block's projection absorbing its last 1x1 convolution (whose result only
// their residual sum reads) in a GraphTurbo kernel: three layers, the third's tiles first taking
// the absorbed product into the accumulator, then their own chunks accumulating onto it, the
// epilogue adding both biases before the relu; the absorbed result never goes to the GB. The
// projection reads its 128 input channels in chunks of 16, so the absorbed chunk (all of its 16
// channels) loads into the corner of the projection's own input buffer and into its filter
// buffer, which it has done with before the projection's first chunk loads there; PIPE, with
// double buffers, the absorbed chunks use both halves of the projection's.
// CHECK-LABEL: dsa.kernel @absorbed_projection_0_g0
// CHECK:         dsa.barrier
// CHECK:         dsa.barrier
// CHECK:         memref.reinterpret_cast %{{.*}} sizes: [1, 32, 1, 1]
// CHECK:         %[[INPUT:.*]] = memref.reinterpret_cast %{{.*}} sizes: [1, 16, 8, 8]
// CHECK:         %[[FILTER:.*]] = memref.reinterpret_cast %{{.*}} sizes: [32, 16, 1, 1]
// CHECK:         %[[ACC:.*]] = memref.reinterpret_cast %{{.*}} sizes: [1, 32, 8, 8]
// CHECK:         %[[CORNER:.*]] = memref.subview %[[INPUT]]
// CHECK:         dsa.dma %{{.*}} to %[[CORNER]] : memref<1x16x8x8xf32, {{.*}}#dsa.memory_space<gb>>
// CHECK:         dsa.dma %{{.*}} to %[[FILTER]] : memref<32x16x1x1xf32, strided<[16, 1, 1, 1]
// CHECK:         dsa.conv2d %[[CORNER]], %[[FILTER]] into %[[ACC]] after
// CHECK-NOT:     dsa.barrier
// CHECK:         %[[OWN:.*]] = memref.subview %[[INPUT]]
// CHECK:         dsa.dma %{{.*}} to %[[OWN]] : memref<1x16x8x8xf32, {{.*}}#dsa.memory_space<ddr>>
// CHECK:         dsa.dma %{{.*}} to %[[FILTER]] : memref<32x16x1x1xf32, strided<[128, 1, 1, 1]
// CHECK:         dsa.conv2d %{{.*}}, %[[FILTER]] into %[[ACC]] accumulate after
// CHECK:         dsa.binary  add %[[ACC]]
// CHECK-NEXT:    dsa.binary  add %[[ACC]]
// CHECK-NEXT:    dsa.unary  relu %[[ACC]]
// CHECK:         dsa.barrier
// CHECK-NOT:     dsa.conv2d
// CHECK-LABEL: func.func @absorbed_projection
// PIPE-LABEL: dsa.kernel @absorbed_projection_0_g0
// PIPE:         dsa.barrier
// PIPE:         dsa.barrier
// PIPE:         memref.reinterpret_cast %{{.*}} sizes: [1, 32, 1, 1]
// PIPE:         %[[INPUT:.*]] = memref.reinterpret_cast %{{.*}} sizes: [1, 8, 8, 8]
// PIPE:         %[[FILTER:.*]] = memref.reinterpret_cast %{{.*}} sizes: [32, 8, 1, 1]
// PIPE:         %[[ACC:.*]] = memref.reinterpret_cast %{{.*}} sizes: [1, 32, 8, 8]
// PIPE:         %[[INPUT2:.*]] = memref.reinterpret_cast %{{.*}} sizes: [1, 8, 8, 8]
// PIPE:         %[[FILTER2:.*]] = memref.reinterpret_cast %{{.*}} sizes: [32, 8, 1, 1]
// PIPE:         %[[CORNER:.*]] = memref.subview %[[INPUT]]
// PIPE:         %[[CORNER2:.*]] = memref.subview %[[INPUT2]]
// PIPE:         dsa.dma %{{.*}} to %[[CORNER]] : memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.dma %{{.*}} to %[[FILTER]] : memref<32x8x1x1xf32, strided<[16, 1, 1, 1]
// PIPE:         dsa.conv2d %[[CORNER]], %[[FILTER]] into %[[ACC]] after
// PIPE:         dsa.dma %{{.*}} to %[[CORNER2]] : memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.dma %{{.*}} to %[[FILTER2]] : memref<32x8x1x1xf32, strided<[16, 1, 1, 1]
// PIPE-NOT:     dsa.barrier
// PIPE:         %[[OWN:.*]] = memref.subview %[[INPUT]]
// PIPE:         dsa.dma %{{.*}} to %[[OWN]] : memref<1x8x8x8xf32, {{.*}}#dsa.memory_space<ddr>>
// PIPE:         dsa.dma %{{.*}} to %[[FILTER]] : memref<32x8x1x1xf32, strided<[128, 1, 1, 1]
// PIPE:         dsa.conv2d %{{.*}}, %[[FILTER]] into %[[ACC]] accumulate after
// PIPE:         dsa.barrier
// PIPE-LABEL: func.func @absorbed_projection
func.func @absorbed_projection(%x: tensor<2x128x8x8xf32>) -> tensor<2x64x8x8xf32> {
  // expected-remark@-1 {{@absorbed_projection: 1 kernels on 2 cluster(s)}}
  %w1 = graph.weight "w1" : tensor<16x128x1x1xf32>
  %w2 = graph.weight "w2" : tensor<16x16x3x3xf32>
  %w3 = graph.weight "w3" : tensor<64x16x1x1xf32>
  %b3 = graph.weight "b3" : tensor<64xf32>
  %wd = graph.weight "wd" : tensor<64x128x1x1xf32>
  %bd = graph.weight "bd" : tensor<64xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>} : (tensor<2x128x8x8xf32>, tensor<16x128x1x1xf32>) -> tensor<2x16x8x8xf32>
  %c2 = graph.conv2d %c1, %w2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x8x8xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x8x8xf32>
  %c3 = graph.conv2d %c2, %w3, %b3 : (tensor<2x16x8x8xf32>, tensor<64x16x1x1xf32>, tensor<64xf32>) -> tensor<2x64x8x8xf32>
  %d = graph.conv2d %x, %wd, %bd : (tensor<2x128x8x8xf32>, tensor<64x128x1x1xf32>, tensor<64xf32>) -> tensor<2x64x8x8xf32>
  %s = graph.add %c3, %d : tensor<2x64x8x8xf32>, tensor<2x64x8x8xf32> -> tensor<2x64x8x8xf32>
  %r = graph.relu %s : tensor<2x64x8x8xf32>
  return %r : tensor<2x64x8x8xf32>
}

// -----

// Tests that a global pool stands aside for the prefetch (GraphTurbo §4.4): the classifier after
// it (a segment of its own, cut along its channels) copies its bias share to the GB in pieces
// issued between the chunks of the convolution before the pool, not under the pool, whose short
// loop would leave the copy to the cores' wait.
// PIPE-LABEL: dsa.kernel @pooled_classifier_s0_0_g0
// PIPE:         dsa.barrier
// PIPE:         scf.for
// PIPE:         dsa.conv2d
// PIPE:         dsa.dma {{.*}} : memref<256xf32, {{.*}}#dsa.memory_space<ddr>>, memref<256xf32, {{.*}}#dsa.memory_space<gb>>
// PIPE:         dsa.barrier
// PIPE-NOT:     memref<256xf32, {{.*}}#dsa.memory_space<ddr>>, memref<256xf32
// PIPE:         dsa.reduce
// PIPE:         dsa.barrier
// PIPE:         dsa.matmul
// PIPE-LABEL: func.func @pooled_classifier
func.func @pooled_classifier(%x: tensor<2x64x8x8xf32>) -> tensor<2x512xf32> {
  // expected-remark@-1 {{@pooled_classifier: 1 kernels on 2 cluster(s); segments continuing the kernel before: 1}}
  %w1 = graph.weight "w1" : tensor<64x64x1x1xf32>
  %w2 = graph.weight "w2" : tensor<512x64xf32>
  %b2 = graph.weight "b2" : tensor<512xf32>
  %c = graph.conv2d %x, %w1 {activation = #graph<activation relu>} : (tensor<2x64x8x8xf32>, tensor<64x64x1x1xf32>) -> tensor<2x64x8x8xf32>
  %p = graph.global_avg_pool %c : tensor<2x64x8x8xf32> -> tensor<2x64x1x1xf32>
  %f = graph.flatten %p : tensor<2x64x1x1xf32> -> tensor<2x64xf32>
  %y = graph.gemm %f, %w2, %b2 {trans_b = true} : (tensor<2x64xf32>, tensor<512x64xf32>, tensor<512xf32>) -> tensor<2x512xf32>
  return %y : tensor<2x512xf32>
}
