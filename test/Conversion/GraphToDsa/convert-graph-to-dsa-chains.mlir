// Chains of two products in the layer-wise lowering (BOLT §3.1): fused into one kernel that keeps
// row blocks of the first result in the LB, where the cost model says it pays.
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa | FileCheck %s
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=fuse-chains=never | FileCheck %s --check-prefix=NEVER
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=fuse-chains=always | FileCheck %s --check-prefix=ALWAYS
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=explain=true --verify-diagnostics -o /dev/null

// Tests that a product whose result (after its bias and relu) only a second product reads runs
// with it as one kernel: per row block, the first product into a block buffer, its epilogue on
// that block, then the second product reading the block as its lhs, its epilogue and its store.
// Both weights fit whole, so each core loads them once, at its first row block. The host
// allocates nothing for the first result.
// CHECK-LABEL: dsa.kernel @ffn_0_matmul_chain
// CHECK:         scf.for
// CHECK:         dsa.dma %{{.*}} to %[[W0:[0-9]+]] : memref<16x32xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.dma %{{.*}} to %[[W1:[0-9]+]] : memref<32x16xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.matmul %[[A:[0-9]+]], %[[W0]] into %[[BLOCK:[0-9]+]] after
// CHECK:         dsa.binary  add %[[BLOCK]], %{{.*}} into %[[BLOCK]]
// CHECK:         dsa.unary  relu %[[BLOCK]] into %[[BLOCK]]
// CHECK:         dsa.matmul %[[BLOCK]], %[[W1]] into %[[ACC:[0-9]+]] :
// CHECK:         dsa.binary  add %[[ACC]], %{{.*}} into %[[ACC]]
// CHECK:         dsa.dma %[[ACC]] to %{{.*}} : memref<16x16xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @ffn
// CHECK-NOT:     dsa.alloc
// CHECK:         dsa.launch @ffn_0_matmul_chain
// CHECK-NOT:     dsa.launch
// NEVER-LABEL: func.func @ffn
// NEVER:         dsa.alloc : memref<64x32xf32, #dsa.memory_space<ddr>>
// NEVER:         dsa.launch @ffn_0_matmul
// NEVER:         dsa.launch @ffn_1_matmul
func.func @ffn(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %w0 = graph.weight "w0" : tensor<16x32xf32>
  %b0 = graph.weight "b0" : tensor<32xf32>
  %w1 = graph.weight "w1" : tensor<32x16xf32>
  %b1 = graph.weight "b1" : tensor<16xf32>
  // expected-remark@+1 {{chain of 'graph.matmul' and 'graph.matmul' fused: row blocks of 16x32 kept in the LB, second product in column blocks of 16; estimated 1584 cycles fused against 2692 as two layers}}
  %h = graph.matmul %x, %w0 : tensor<64x16xf32>, tensor<16x32xf32> -> tensor<64x32xf32>
  %hb = graph.add %h, %b0 : tensor<64x32xf32>, tensor<32xf32> -> tensor<64x32xf32>
  %a = graph.relu %hb : tensor<64x32xf32>
  %o = graph.matmul %a, %w1 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  %ob = graph.add %o, %b1 : tensor<64x16xf32>, tensor<16xf32> -> tensor<64x16xf32>
  return %ob : tensor<64x16xf32>
}

// -----

// Tests that the first product's reduction too long for one chunk is taken in chunks through
// double buffers (the chunk buffers alternate), and the second product's columns in blocks
// whose W1 tile each block loads.
// CHECK-LABEL: dsa.kernel @deep_0_matmul_chain
// CHECK:         dsa.matmul %{{.*}}, %{{.*}} into %[[BLOCK:[0-9]+]] after
// CHECK:         scf.for
// CHECK:         arith.select
// CHECK:         dsa.matmul %{{.*}}, %{{.*}} into %[[BLOCK]] accumulate
// CHECK:         dsa.unary  tanh %[[BLOCK]] into %[[BLOCK]]
// CHECK:         scf.for
// CHECK:         %[[TILE:[0-9]+]] = dsa.dma %{{.*}} to %[[W1:[0-9]+]] : memref<64x{{[0-9]+}}xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         dsa.matmul %[[BLOCK]], %[[W1]] into %{{.*}} after %[[TILE]]
func.func @deep(%y: tensor<256x512xf32>) -> tensor<256x64xf32> {
  %w0 = graph.weight "w0" : tensor<512x64xf32>
  %w1 = graph.weight "w1" : tensor<64x64xf32>
  // expected-remark@+1 {{chain of 'graph.matmul' and 'graph.matmul' fused}}
  %d = graph.matmul %y, %w0 : tensor<256x512xf32>, tensor<512x64xf32> -> tensor<256x64xf32>
  %t = graph.tanh %d : tensor<256x64xf32>
  %e = graph.matmul %t, %w1 : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  return %e : tensor<256x64xf32>
}

// -----

// Tests that a chain whose row blocks the LB holds only a few rows at a time (every block would
// stream both weights again) stays two layers by default, and is fused when asked.
// CHECK-LABEL: func.func @wide
// CHECK:         dsa.launch @wide_0_matmul
// CHECK:         dsa.launch @wide_1_matmul
// ALWAYS-LABEL: func.func @wide
// ALWAYS:        dsa.launch @wide_0_matmul_chain
// ALWAYS-NOT:    dsa.launch
func.func @wide(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %w0 = graph.weight "w0" : tensor<64x512xf32>
  %w1 = graph.weight "w1" : tensor<512x64xf32>
  // expected-remark@+1 {{chain of 'graph.matmul' and 'graph.matmul' not fused: row blocks of 4x512 kept in the LB, second product in column blocks of 2; estimated 264192 cycles fused against 67052 as two layers}}
  %h = graph.matmul %x, %w0 : tensor<64x64xf32>, tensor<64x512xf32> -> tensor<64x512xf32>
  %o = graph.matmul %h, %w1 : tensor<64x512xf32>, tensor<512x64xf32> -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}

// -----

// Tests that a chain whose first result has more columns than a row of it and its tiles leave
// room for in the LB is not fused, even when asked.
// CHECK-LABEL: func.func @too_wide
// CHECK:         dsa.launch @too_wide_0_matmul
// CHECK:         dsa.launch @too_wide_1_matmul
// ALWAYS-LABEL: func.func @too_wide
// ALWAYS:        dsa.launch @too_wide_0_matmul
// ALWAYS:        dsa.launch @too_wide_1_matmul
func.func @too_wide(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %w0 = graph.weight "w0" : tensor<16x4096xf32>
  %w1 = graph.weight "w1" : tensor<4096x16xf32>
  // expected-remark@+1 {{chain of 'graph.matmul' and 'graph.matmul' not fused: no block of the first result fits the LB with the tiles that feed it and read it (BOLT §3.1)}}
  %h = graph.matmul %x, %w0 : tensor<64x16xf32>, tensor<16x4096xf32> -> tensor<64x4096xf32>
  %o = graph.matmul %h, %w1 : tensor<64x4096xf32>, tensor<4096x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

// Tests that no chain forms where the first result is also read elsewhere, is returned, or is
// the second product's rhs: each product is a layer of its own, and nothing is explained.
// CHECK-LABEL: func.func @not_chains
// CHECK-COUNT-6: dsa.launch @not_chains_{{[0-9]+}}_matmul(
// CHECK-NOT:     _chain
func.func @not_chains(%x: tensor<64x16xf32>) -> (tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<16x16xf32>) {
  %w = graph.weight "w" : tensor<16x16xf32>
  %a = graph.matmul %x, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %b = graph.matmul %a, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %c = graph.add %b, %a : tensor<64x16xf32>, tensor<64x16xf32> -> tensor<64x16xf32>
  %d = graph.matmul %x, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %e = graph.matmul %d, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %s = graph.matmul %w, %w : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  %t = graph.matmul %w, %s : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  return %c, %d, %e, %t : tensor<64x16xf32>, tensor<64x16xf32>, tensor<64x16xf32>, tensor<16x16xf32>
}

// -----

// Tests that a convolution whose result only a 1x1 convolution reads (stride 1, no padding)
// feeds it tile by tile: each tile of the first holds all its 16 channels, gets its bias and
// relu6 in the LB, and is the input of the 1x1 convolution, whose filter fits whole (loaded once
// per core), whose bias is its epilogue, and whose result is the only store.
// CHECK-LABEL: dsa.kernel @block_0_conv2d_chain
// CHECK:         scf.for
// CHECK:         dsa.dma %{{.*}} to %[[W1:[0-9]+]] : memref<8x16x1x1xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[TILE:[0-9]+]] after
// CHECK:         dsa.binary  add %[[TILE]], %{{.*}} into %[[TILE]]
// CHECK:         dsa.unary  clip %[[TILE]] into %[[TILE]]
// CHECK:         dsa.conv2d %[[TILE]], %[[W1]] into %[[ACC:[0-9]+]] : memref<1x16x5x10xf32
// CHECK:         dsa.binary  add %[[ACC]], %{{.*}} into %[[ACC]]
// CHECK:         dsa.dma %[[ACC]] to %{{.*}} : memref<1x8x5x10xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @block
// CHECK-NOT:     dsa.alloc
// CHECK:         dsa.launch @block_0_conv2d_chain
// CHECK-NOT:     dsa.launch
// NEVER-LABEL: func.func @block
// NEVER:         dsa.launch @block_0_conv2d
// NEVER:         dsa.launch @block_1_conv2d
func.func @block(%x: tensor<2x8x10x10xf32>) -> tensor<2x8x10x10xf32> {
  %w0 = graph.weight "w0" : tensor<16x8x3x3xf32>
  %b0 = graph.weight "b0" : tensor<16xf32>
  %w1 = graph.weight "w1" : tensor<8x16x1x1xf32>
  %b1 = graph.weight "b1" : tensor<8xf32>
  // expected-remark@+1 {{chain of 'graph.conv2d' and 'graph.conv2d' fused: tiles of all its channels kept in the LB; estimated 2471 cycles fused against 4014 as two layers}}
  %a = graph.conv2d %x, %w0, %b0 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu6>} : (tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>
  %o = graph.conv2d %a, %w1, %b1 : (tensor<2x16x10x10xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>
  return %o : tensor<2x8x10x10xf32>
}

// -----

// Tests that no chain forms where the second convolution is not a 1x1 convolution of stride 1
// without padding: each convolution is a layer of its own, and nothing is explained.
// CHECK-LABEL: func.func @not_conv_chains
// CHECK-COUNT-6: dsa.launch @not_conv_chains_{{[0-9]+}}_conv2d(
// CHECK-NOT:     _chain
func.func @not_conv_chains(%x: tensor<1x8x8x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>) {
  %w0 = graph.weight "w0" : tensor<8x8x3x3xf32>
  %w1 = graph.weight "w1" : tensor<8x8x1x1xf32>
  %a = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %s = graph.conv2d %a, %w1 {strides = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %b = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %p = graph.conv2d %b, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x10x10xf32>
  %c = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %t = graph.conv2d %c, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  return %s, %p, %t : tensor<1x8x4x4xf32>, tensor<1x8x10x10xf32>, tensor<1x8x8x8xf32>
}
