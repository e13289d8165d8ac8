// RUN: turbine-opt %s | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --mlir-print-op-generic | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --split-input-file | turbine-opt --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Types and buffers
//===----------------------------------------------------------------------===//

// Tests that !dsa.token round-trips as a function argument and result type.
// CHECK-LABEL: func.func @token
// CHECK-SAME: (%[[T:.*]]: !dsa.token) -> !dsa.token
// CHECK: return %[[T]] : !dsa.token
func.func @token(%t: !dsa.token) -> !dsa.token {
  return %t : !dsa.token
}

// -----

// Tests that buffers are allocated and freed in each #dsa.memory_space<...>:
// a core's LB tile, a cluster's GB feature map and a DDR input image.
// CHECK-LABEL: func.func @alloc_dealloc
// CHECK: %[[LB:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[GB:.*]] = dsa.alloc : memref<1x64x56x56xf16, #dsa.memory_space<gb>>
// CHECK: %[[DDR:.*]] = dsa.alloc : memref<1x3x224x224xf32, #dsa.memory_space<ddr>>
// CHECK: dsa.dealloc %[[LB]] : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: dsa.dealloc %[[GB]] : memref<1x64x56x56xf16, #dsa.memory_space<gb>>
// CHECK: dsa.dealloc %[[DDR]] : memref<1x3x224x224xf32, #dsa.memory_space<ddr>>
func.func @alloc_dealloc() {
  %lb = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
  %gb = dsa.alloc : memref<1x64x56x56xf16, #dsa.memory_space<gb>>
  %ddr = dsa.alloc : memref<1x3x224x224xf32, #dsa.memory_space<ddr>>
  dsa.dealloc %lb : memref<64x64xf32, #dsa.memory_space<lb>>
  dsa.dealloc %gb : memref<1x64x56x56xf16, #dsa.memory_space<gb>>
  dsa.dealloc %ddr : memref<1x3x224x224xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that the host places on-chip buffers: a GB buffer on cluster 2, an LB buffer on core 5
// of cluster 1 (kept across launches until their dealloc).
// CHECK-LABEL: func.func @placed
// CHECK: dsa.alloc {cluster = 2 : i64} : memref<2x256xf32, #dsa.memory_space<gb>>
// CHECK: dsa.alloc {cluster = 1 : i64, core = 5 : i64} : memref<64xf32, #dsa.memory_space<lb>>
func.func @placed() {
  %gb = dsa.alloc {cluster = 2 : i64} : memref<2x256xf32, #dsa.memory_space<gb>>
  %lb = dsa.alloc {cluster = 1 : i64, core = 5 : i64} : memref<64xf32, #dsa.memory_space<lb>>
  dsa.dealloc %lb : memref<64xf32, #dsa.memory_space<lb>>
  dsa.dealloc %gb : memref<2x256xf32, #dsa.memory_space<gb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// DMA and tokens
//===----------------------------------------------------------------------===//

// Tests that DMA between the memory levels round-trips with and without
// tokens to wait for: a strided DDR window (memref.subview) into LB, GB into
// LB after one token, LB to LB after two and back to DDR, then dsa.wait on the
// last token and on none.
// CHECK-LABEL: dsa.kernel @dma
// CHECK-SAME: (%[[ACT:.*]]: memref<64x224xf32, #dsa.memory_space<ddr>>, %[[G:.*]]: memref<64x64xf32, #dsa.memory_space<gb>>, %[[ROW:.*]]: index)
// CHECK: %[[V:.*]] = memref.subview %[[ACT]][0, %[[ROW]]] [64, 64] [1, 1] : memref<64x224xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK: %[[T:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[U:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T0:.*]] = dsa.dma %[[V]] to %[[T]] : memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.dma %[[G]] to %[[U]] after %[[T0]] : memref<64x64xf32, #dsa.memory_space<gb>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.dma %[[U]] to %[[T]] after %[[T0]], %[[T1]] : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T3:.*]] = dsa.dma %[[T]] to %[[V]] after %[[T2]] : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK: dsa.wait %[[T3]]
// CHECK: dsa.wait{{ *$}}
// CHECK: dsa.return
dsa.kernel @dma(%act: memref<64x224xf32, #dsa.memory_space<ddr>>, %g: memref<64x64xf32, #dsa.memory_space<gb>>, %row: index) {
  %v = memref.subview %act[0, %row] [64, 64] [1, 1] : memref<64x224xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>
  %t = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
  %u = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
  %t0 = dsa.dma %v to %t : memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
  %t1 = dsa.dma %g to %u after %t0 : memref<64x64xf32, #dsa.memory_space<gb>>, memref<64x64xf32, #dsa.memory_space<lb>>
  %t2 = dsa.dma %u to %t after %t0, %t1 : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>
  %t3 = dsa.dma %t to %v after %t2 : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, strided<[224, 1], offset: ?>, #dsa.memory_space<ddr>>
  dsa.wait %t3
  dsa.wait
  dsa.return
}

// -----

//===----------------------------------------------------------------------===//
// Compute instructions
//===----------------------------------------------------------------------===//

// Tests that matrix-engine tile products round-trip with and without
// accumulate and with and without tokens (the first K tile overwrites the
// accumulator, the next ones add to it).
// CHECK-LABEL: dsa.kernel @matmul
// CHECK-SAME: (%[[A:.*]]: memref<32x64xf32, #dsa.memory_space<lb>>, %[[B:.*]]: memref<64x32xf32, #dsa.memory_space<lb>>, %[[C:.*]]: memref<32x32xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.matmul %[[A]], %[[B]] into %[[C]] : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.matmul %[[A]], %[[B]] into %[[C]] accumulate after %[[T0]] : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.matmul %[[A]], %[[B]] into %[[C]] accumulate : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK: %[[T3:.*]] = dsa.matmul %[[A]], %[[B]] into %[[C]] after %[[T1]], %[[T2]] : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T3]]
dsa.kernel @matmul(%a: memref<32x64xf32, #dsa.memory_space<lb>>, %b: memref<64x32xf32, #dsa.memory_space<lb>>, %c: memref<32x32xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.matmul %a, %b into %c : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  %t1 = dsa.matmul %a, %b into %c accumulate after %t0 : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  %t2 = dsa.matmul %a, %b into %c accumulate : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  %t3 = dsa.matmul %a, %b into %c after %t1, %t2 : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  dsa.wait %t3
  dsa.return
}

// -----

// Tests that matrix-engine convolution tiles round-trip: a 3x3 tile of a
// ResNet-50 stage with default window attributes (elided) but its pads, a
// stride-2 MobileNet depthwise tile (groups = 16, (8 + 0 + 1 - 3) / 2 + 1 = 4)
// after a token, and a dilated tile accumulating into its output.
// CHECK-LABEL: dsa.kernel @conv2d
// CHECK-SAME: (%[[X:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %[[W:.*]]: memref<16x16x3x3xf32, #dsa.memory_space<lb>>, %[[Y:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %[[DW:.*]]: memref<16x1x3x3xf32, #dsa.memory_space<lb>>, %[[Z:.*]]: memref<1x16x4x4xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.conv2d %[[X]], %[[W]] into %[[Y]] {pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.conv2d %[[Y]], %[[DW]] into %[[Z]] after %[[T0]] {groups = 16 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x1x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.conv2d %[[X]], %[[W]] into %[[Y]] accumulate {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T1]], %[[T2]]
dsa.kernel @conv2d(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %w: memref<16x16x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>,
                   %dw: memref<16x1x3x3xf32, #dsa.memory_space<lb>>, %z: memref<1x16x4x4xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.conv2d %x, %w into %y {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>, dilations = array<i64: 1, 1>, groups = 1 : i64}
      : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t1 = dsa.conv2d %y, %dw into %z after %t0 {groups = 16 : i64, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>}
      : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x1x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
  %t2 = dsa.conv2d %x, %w into %y accumulate {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>}
      : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  dsa.wait %t1, %t2
  dsa.return
}

// -----

// Tests that every #dsa.binary kind round-trips on vector-engine tiles, with a
// per-channel [1, 16, 1, 1] operand broadcast over an 8x8 tile, with and
// without tokens.
// CHECK-LABEL: dsa.kernel @binary
// CHECK-SAME: (%[[X:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %[[B:.*]]: memref<1x16x1x1xf32, #dsa.memory_space<lb>>, %[[Y:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.binary add %[[X]], %[[B]] into %[[Y]] : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.binary sub %[[Y]], %[[B]] into %[[Y]] after %[[T0]] :
// CHECK: %[[T2:.*]] = dsa.binary mul %[[Y]], %[[X]] into %[[Y]] after %[[T1]] :
// CHECK: %[[T3:.*]] = dsa.binary div %[[Y]], %[[B]] into %[[Y]] after %[[T2]] :
// CHECK: %[[T4:.*]] = dsa.binary max %[[Y]], %[[X]] into %[[Y]] after %[[T3]] :
// CHECK: %[[T5:.*]] = dsa.binary min %[[Y]], %[[X]] into %[[Y]] after %[[T4]] :
// CHECK: %[[T6:.*]] = dsa.binary pow %[[Y]], %[[B]] into %[[Y]] after %[[T5]] :
// CHECK: dsa.wait %[[T6]]
dsa.kernel @binary(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %b: memref<1x16x1x1xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.binary add %x, %b into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t1 = dsa.binary sub %y, %b into %y after %t0 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t2 = dsa.binary mul %y, %x into %y after %t1 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t3 = dsa.binary div %y, %b into %y after %t2 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t4 = dsa.binary max %y, %x into %y after %t3 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t5 = dsa.binary min %y, %x into %y after %t4 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  %t6 = dsa.binary pow %y, %b into %y after %t5 : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  dsa.wait %t6
  dsa.return
}

// -----

// Tests that every #dsa.unary kind round-trips, clip with its min and max
// (relu6), with and without a token.
// CHECK-LABEL: dsa.kernel @unary
// CHECK-SAME: (%[[X:.*]]: memref<16x128xf32, #dsa.memory_space<lb>>, %[[Y:.*]]: memref<16x128xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.unary relu %[[X]] into %[[Y]] : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
// CHECK: dsa.unary sigmoid %[[X]] into %[[Y]] after %[[T0]] :
// CHECK: dsa.unary tanh %[[X]] into %[[Y]] :
// CHECK: dsa.unary exp %[[X]] into %[[Y]] :
// CHECK: dsa.unary log %[[X]] into %[[Y]] :
// CHECK: dsa.unary sqrt %[[X]] into %[[Y]] :
// CHECK: dsa.unary rsqrt %[[X]] into %[[Y]] :
// CHECK: dsa.unary erf %[[X]] into %[[Y]] :
// CHECK: dsa.unary gelu %[[X]] into %[[Y]] :
// CHECK: dsa.unary silu %[[X]] into %[[Y]] :
// CHECK: dsa.unary neg %[[X]] into %[[Y]] :
// CHECK: dsa.unary reciprocal %[[X]] into %[[Y]] :
// CHECK: dsa.unary clip %[[X]] into %[[Y]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
// CHECK: dsa.unary copy %[[X]] into %[[Y]] :
// CHECK: dsa.unary affine %[[X]] into %[[Y]] {scale = 2.000000e+00 : f32, shift = 9.99999974E-6 : f32} :
// CHECK: dsa.unary abs %[[X]] into %[[Y]] :
dsa.kernel @unary(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.unary relu %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t1 = dsa.unary sigmoid %x into %y after %t0 : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t2 = dsa.unary tanh %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t3 = dsa.unary exp %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t4 = dsa.unary log %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t5 = dsa.unary sqrt %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t6 = dsa.unary rsqrt %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t7 = dsa.unary erf %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t8 = dsa.unary gelu %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t9 = dsa.unary silu %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t10 = dsa.unary neg %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t11 = dsa.unary reciprocal %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t12 = dsa.unary clip %x into %y {min = 0.0 : f32, max = 6.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t13 = dsa.unary copy %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t14 = dsa.unary affine %x into %y {scale = 2.0 : f32, shift = 1.0e-5 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  %t15 = dsa.unary abs %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  dsa.wait %t1, %t2, %t3, %t4, %t5, %t6, %t7, %t8, %t9, %t10, %t11, %t12, %t13, %t14, %t15
  dsa.return
}

// -----

// Tests that both #dsa.pool kinds round-trip: a 2x2 stride-2 max pool, and an
// Inception 3x3 stride-1 average pool with pads and count_include_pad after a
// token.
// CHECK-LABEL: dsa.kernel @pool
// CHECK-SAME: (%[[X:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %[[Y:.*]]: memref<1x16x4x4xf32, #dsa.memory_space<lb>>, %[[Z:.*]]: memref<1x16x8x8xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.pool max %[[X]] into %[[Y]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.pool avg %[[X]] into %[[Z]] after %[[T0]] {count_include_pad = true, kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T1]]
dsa.kernel @pool(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x4x4xf32, #dsa.memory_space<lb>>, %z: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.pool max %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
  %t1 = dsa.pool avg %x into %z after %t0 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = true} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  dsa.wait %t1
  dsa.return
}

// -----

// Tests that every #dsa.reduce kind round-trips on a BERT attention tile (16
// queries by 128 keys): the softmax row max and sum, and a mean over the
// queries.
// CHECK-LABEL: dsa.kernel @reduce
// CHECK-SAME: (%[[S:.*]]: memref<16x128xf32, #dsa.memory_space<lb>>, %[[M:.*]]: memref<16x1xf32, #dsa.memory_space<lb>>, %[[C:.*]]: memref<1x128xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.reduce max %[[S]] into %[[M]] {axis = 1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.reduce sum %[[S]] into %[[M]] after %[[T0]] {axis = -1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.reduce mean %[[S]] into %[[C]] {axis = 0 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<1x128xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T1]], %[[T2]]
dsa.kernel @reduce(%s: memref<16x128xf32, #dsa.memory_space<lb>>, %m: memref<16x1xf32, #dsa.memory_space<lb>>, %c: memref<1x128xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.reduce max %s into %m {axis = 1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
  %t1 = dsa.reduce sum %s into %m after %t0 {axis = -1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
  %t2 = dsa.reduce mean %s into %c {axis = 0 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<1x128xf32, #dsa.memory_space<lb>>
  dsa.wait %t1, %t2
  dsa.return
}

// -----

// Tests that an embedding lookup round-trips: a DMA gather of BERT's word
// embeddings by i64 token ids in LB into a DDR buffer of rows, and the
// attention mask's conversion from i64 to f32 and from f32 to booleans.
// CHECK-LABEL: dsa.kernel @embedding
// CHECK-SAME: (%[[T:.*]]: memref<30522x768xf32, #dsa.memory_space<ddr>>, %[[I:.*]]: memref<128xi64, #dsa.memory_space<lb>>, %[[R:.*]]: memref<128x768xf32, #dsa.memory_space<ddr>>, %[[M:.*]]: memref<128xi64, #dsa.memory_space<lb>>, %[[F:.*]]: memref<128xf32, #dsa.memory_space<lb>>, %[[B:.*]]: memref<128xi1, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.gather %[[T]][%[[I]]] to %[[R]] {axis = 0 : i64} : memref<30522x768xf32, #dsa.memory_space<ddr>>, memref<128xi64, #dsa.memory_space<lb>>, memref<128x768xf32, #dsa.memory_space<ddr>>
// CHECK: %[[T1:.*]] = dsa.convert %[[M]] into %[[F]] : memref<128xi64, #dsa.memory_space<lb>>, memref<128xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.convert %[[F]] into %[[B]] after %[[T1]] : memref<128xf32, #dsa.memory_space<lb>>, memref<128xi1, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T0]], %[[T2]]
dsa.kernel @embedding(%table: memref<30522x768xf32, #dsa.memory_space<ddr>>, %ids: memref<128xi64, #dsa.memory_space<lb>>, %rows: memref<128x768xf32, #dsa.memory_space<ddr>>, %mask: memref<128xi64, #dsa.memory_space<lb>>, %f: memref<128xf32, #dsa.memory_space<lb>>, %b: memref<128xi1, #dsa.memory_space<lb>>) {
  %t0 = dsa.gather %table[%ids] to %rows {axis = 0 : i64} : memref<30522x768xf32, #dsa.memory_space<ddr>>, memref<128xi64, #dsa.memory_space<lb>>, memref<128x768xf32, #dsa.memory_space<ddr>>
  %t1 = dsa.convert %mask into %f : memref<128xi64, #dsa.memory_space<lb>>, memref<128xf32, #dsa.memory_space<lb>>
  %t2 = dsa.convert %f into %b after %t1 : memref<128xf32, #dsa.memory_space<lb>>, memref<128xi1, #dsa.memory_space<lb>>
  dsa.wait %t0, %t2
  dsa.return
}

// -----

// Tests that comparisons and selections round-trip: an attention mask built by
// comparing i64 positions, every #dsa.compare predicate, and a selection of
// f32 scores by the mask.
// CHECK-LABEL: dsa.kernel @masks
// CHECK-SAME: (%[[Q:.*]]: memref<16xi64, #dsa.memory_space<lb>>, %[[K:.*]]: memref<16xi64, #dsa.memory_space<lb>>, %[[M:.*]]: memref<16xi1, #dsa.memory_space<lb>>, %[[S:.*]]: memref<16xf32, #dsa.memory_space<lb>>, %[[F:.*]]: memref<16xf32, #dsa.memory_space<lb>>)
// CHECK: %[[T0:.*]] = dsa.compare ge %[[Q]], %[[K]] into %[[M]] : memref<16xi64, #dsa.memory_space<lb>>, memref<16xi64, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
// CHECK: dsa.compare eq %[[Q]], %[[K]] into %[[M]]
// CHECK: dsa.compare ne %[[Q]], %[[K]] into %[[M]]
// CHECK: dsa.compare lt %[[S]], %[[F]] into %[[M]]
// CHECK: dsa.compare le %[[S]], %[[F]] into %[[M]]
// CHECK: %[[T5:.*]] = dsa.compare gt %[[S]], %[[F]] into %[[M]]
// CHECK: %[[T6:.*]] = dsa.select %[[M]], %[[S]], %[[F]] into %[[S]] after %[[T0]], %[[T5]] : memref<16xi1, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T6]]
dsa.kernel @masks(%q: memref<16xi64, #dsa.memory_space<lb>>, %k: memref<16xi64, #dsa.memory_space<lb>>, %m: memref<16xi1, #dsa.memory_space<lb>>, %s: memref<16xf32, #dsa.memory_space<lb>>, %f: memref<16xf32, #dsa.memory_space<lb>>) {
  %t0 = dsa.compare ge %q, %k into %m : memref<16xi64, #dsa.memory_space<lb>>, memref<16xi64, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t1 = dsa.compare eq %q, %k into %m : memref<16xi64, #dsa.memory_space<lb>>, memref<16xi64, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t2 = dsa.compare ne %q, %k into %m : memref<16xi64, #dsa.memory_space<lb>>, memref<16xi64, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t3 = dsa.compare lt %s, %f into %m : memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t4 = dsa.compare le %s, %f into %m : memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t5 = dsa.compare gt %s, %f into %m : memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xi1, #dsa.memory_space<lb>>
  %t6 = dsa.select %m, %s, %f into %s after %t0, %t5 : memref<16xi1, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>
  dsa.wait %t6
  dsa.return
}

// -----

// Tests that a gather of elements round-trips: a loss picking each of 32
// samples' label score out of 1000 classes, and the same with i32 labels.
// CHECK-LABEL: dsa.kernel @label_scores
// CHECK: %[[T0:.*]] = dsa.gather_elements %{{.*}}[%{{.*}}] to %{{.*}} {axis = 1 : i64} : memref<32x1000xf32, #dsa.memory_space<ddr>>, memref<32x1xi64, #dsa.memory_space<ddr>>, memref<32x1xf32, #dsa.memory_space<ddr>>
// CHECK: dsa.gather_elements %{{.*}}[%{{.*}}] to %{{.*}} after %[[T0]] {axis = 1 : i64} : memref<32x1000xf32, #dsa.memory_space<ddr>>, memref<32x1xi32, #dsa.memory_space<ddr>>, memref<32x1xf32, #dsa.memory_space<ddr>>
dsa.kernel @label_scores(%s: memref<32x1000xf32, #dsa.memory_space<ddr>>, %l: memref<32x1xi64, #dsa.memory_space<ddr>>, %m: memref<32x1xi32, #dsa.memory_space<ddr>>, %p: memref<32x1xf32, #dsa.memory_space<ddr>>) {
  %t0 = dsa.gather_elements %s[%l] to %p {axis = 1 : i64} : memref<32x1000xf32, #dsa.memory_space<ddr>>, memref<32x1xi64, #dsa.memory_space<ddr>>, memref<32x1xf32, #dsa.memory_space<ddr>>
  %t1 = dsa.gather_elements %s[%m] to %p after %t0 {axis = 1 : i64} : memref<32x1000xf32, #dsa.memory_space<ddr>>, memref<32x1xi32, #dsa.memory_space<ddr>>, memref<32x1xf32, #dsa.memory_space<ddr>>
  dsa.wait %t1
  dsa.return
}

// -----

// Tests that a scatter of elements round-trips: corrections written back into 8
// rows of 100 at run-time positions, then added with i32 indices.
// CHECK-LABEL: dsa.kernel @corrections
// CHECK: %[[T0:.*]] = dsa.scatter_elements %{{.*}}[%{{.*}}] into %{{.*}} {axis = 1 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<8x4xi64, #dsa.memory_space<ddr>>, memref<8x100xf32, #dsa.memory_space<ddr>>
// CHECK: dsa.scatter_elements %{{.*}}[%{{.*}}] into %{{.*}} after %[[T0]] {axis = 1 : i64, reduction = #dsa<binary add>} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<8x4xi32, #dsa.memory_space<ddr>>, memref<8x100xf32, #dsa.memory_space<ddr>>
dsa.kernel @corrections(%u: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<8x4xi64, #dsa.memory_space<ddr>>, %j: memref<8x4xi32, #dsa.memory_space<ddr>>, %d: memref<8x100xf32, #dsa.memory_space<ddr>>) {
  %t0 = dsa.scatter_elements %u[%i] into %d {axis = 1 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<8x4xi64, #dsa.memory_space<ddr>>, memref<8x100xf32, #dsa.memory_space<ddr>>
  %t1 = dsa.scatter_elements %u[%j] into %d after %t0 {axis = 1 : i64, reduction = #dsa<binary add>} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<8x4xi32, #dsa.memory_space<ddr>>, memref<8x100xf32, #dsa.memory_space<ddr>>
  dsa.wait %t1
  dsa.return
}

// -----

// Tests that arg reductions round-trip: the class of each of 8 images' 1000
// scores, and the last smallest along the images.
// CHECK-LABEL: dsa.kernel @classes
// CHECK: %[[T0:.*]] = dsa.argmax %{{.*}} into %{{.*}} {axis = 1 : i64} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x1xi64, #dsa.memory_space<lb>>
// CHECK: dsa.argmin %{{.*}} into %{{.*}} after %[[T0]] {axis = 0 : i64, select_last} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<1x1000xi64, #dsa.memory_space<lb>>
dsa.kernel @classes(%s: memref<8x1000xf32, #dsa.memory_space<lb>>, %c: memref<8x1xi64, #dsa.memory_space<lb>>, %i: memref<1x1000xi64, #dsa.memory_space<lb>>) {
  %t0 = dsa.argmax %s into %c {axis = 1 : i64} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x1xi64, #dsa.memory_space<lb>>
  %t1 = dsa.argmin %s into %i after %t0 {axis = 0 : i64, select_last} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<1x1000xi64, #dsa.memory_space<lb>>
  dsa.wait %t1
  dsa.return
}

// -----

// Tests that top_k round-trips: the five best of each of 8 images' 1000 scores,
// and the two smallest along the images.
// CHECK-LABEL: dsa.kernel @best_classes
// CHECK: %[[T0:.*]] = dsa.top_k %{{.*}} into %{{.*}}, %{{.*}} {axis = 1 : i64, largest} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x5xf32, #dsa.memory_space<lb>>, memref<8x5xi64, #dsa.memory_space<lb>>
// CHECK: dsa.top_k %{{.*}} into %{{.*}}, %{{.*}} after %[[T0]] {axis = 0 : i64} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<2x1000xf32, #dsa.memory_space<lb>>, memref<2x1000xi64, #dsa.memory_space<lb>>
dsa.kernel @best_classes(%s: memref<8x1000xf32, #dsa.memory_space<lb>>, %v: memref<8x5xf32, #dsa.memory_space<lb>>, %c: memref<8x5xi64, #dsa.memory_space<lb>>, %w: memref<2x1000xf32, #dsa.memory_space<lb>>, %i: memref<2x1000xi64, #dsa.memory_space<lb>>) {
  %t0 = dsa.top_k %s into %v, %c {axis = 1 : i64, largest} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<8x5xf32, #dsa.memory_space<lb>>, memref<8x5xi64, #dsa.memory_space<lb>>
  %t1 = dsa.top_k %s into %w, %i after %t0 {axis = 0 : i64} : memref<8x1000xf32, #dsa.memory_space<lb>>, memref<2x1000xf32, #dsa.memory_space<lb>>, memref<2x1000xi64, #dsa.memory_space<lb>>
  dsa.wait %t1
  dsa.return
}

// -----

//===----------------------------------------------------------------------===//
// Kernels and launches
//===----------------------------------------------------------------------===//

// Tests that a module compiled for a #dsa.target round-trips: a kernel for
// BERT's attention output projection [512, 768] x [768, 768] in which each
// core finds its 64 rows with dsa.core_id, streams 64x64 tiles of DDR views
// (memref.subview) into LB and accumulates over K with dsa.matmul; and
// launches on the 8 cores of cluster 0 and, without arguments, on the last
// core (31) of the 4 x 8.
// CHECK: module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1.000000e+03, ddr_gb_bandwidth = 6.400000e+01, gb_lb_bandwidth = 1.280000e+02, lb_lb_bandwidth = 6.400000e+01, matrix_flops = 5.120000e+02, dma_setup = 100, compute_setup = 16, barrier = 50>}
// CHECK-LABEL: dsa.kernel @attention_output
// CHECK-SAME: (%[[A:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>, %[[W:.*]]: memref<768x768xf32, #dsa.memory_space<ddr>>, %[[C:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>)
// CHECK: %[[ID:.*]] = dsa.core_id : index
// CHECK: %[[ROW:.*]] = arith.muli %[[ID]], %{{.*}} : index
// CHECK: %[[TA:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[TB:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[ACC:.*]] = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: scf.for %[[N:.*]] =
// CHECK: %[[VA0:.*]] = memref.subview %[[A]][%[[ROW]], 0] [64, 64] [1, 1]
// CHECK: %[[VB0:.*]] = memref.subview %[[W]][0, %[[N]]] [64, 64] [1, 1]
// CHECK: %[[T0:.*]] = dsa.dma %[[VA0]] to %[[TA]] : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T1:.*]] = dsa.dma %[[VB0]] to %[[TB]] : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: %[[T2:.*]] = dsa.matmul %[[TA]], %[[TB]] into %[[ACC]] after %[[T0]], %[[T1]] :
// CHECK: dsa.wait %[[T2]]
// CHECK: scf.for %[[K:.*]] =
// CHECK: %[[VA:.*]] = memref.subview %[[A]][%[[ROW]], %[[K]]] [64, 64] [1, 1]
// CHECK: %[[VB:.*]] = memref.subview %[[W]][%[[K]], %[[N]]] [64, 64] [1, 1]
// CHECK: %[[T3:.*]] = dsa.dma %[[VA]] to %[[TA]] :
// CHECK: %[[T4:.*]] = dsa.dma %[[VB]] to %[[TB]] :
// CHECK: %[[T5:.*]] = dsa.matmul %[[TA]], %[[TB]] into %[[ACC]] accumulate after %[[T3]], %[[T4]] : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>
// CHECK: dsa.wait %[[T5]]
// CHECK: %[[VC:.*]] = memref.subview %[[C]][%[[ROW]], %[[N]]] [64, 64] [1, 1]
// CHECK: %[[T6:.*]] = dsa.dma %[[ACC]] to %[[VC]] : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK: dsa.wait %[[T6]]
// CHECK: dsa.dealloc %[[ACC]]
// CHECK: dsa.return
// CHECK-LABEL: func.func @bert_attention_output
// CHECK-SAME: (%[[X:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>, %[[WO:.*]]: memref<768x768xf32, #dsa.memory_space<ddr>>, %[[Y:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>)
// CHECK: dsa.launch @attention_output(%[[X]], %[[WO]], %[[Y]]) on [0, 1, 2, 3, 4, 5, 6, 7] : memref<512x768xf32, #dsa.memory_space<ddr>>, memref<768x768xf32, #dsa.memory_space<ddr>>, memref<512x768xf32, #dsa.memory_space<ddr>>
// CHECK: dsa.launch @sync() on [31]{{$}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8,
    matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1,
    lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000,
    ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {
  dsa.kernel @attention_output(%a: memref<512x768xf32, #dsa.memory_space<ddr>>, %w: memref<768x768xf32, #dsa.memory_space<ddr>>, %c: memref<512x768xf32, #dsa.memory_space<ddr>>) {
    %id = dsa.core_id : index
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c768 = arith.constant 768 : index
    %row = arith.muli %id, %c64 : index
    %ta = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
    %tb = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
    %acc = dsa.alloc : memref<64x64xf32, #dsa.memory_space<lb>>
    scf.for %n = %c0 to %c768 step %c64 {
      %va0 = memref.subview %a[%row, 0] [64, 64] [1, 1] : memref<512x768xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
      %vb0 = memref.subview %w[0, %n] [64, 64] [1, 1] : memref<768x768xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
      %t0 = dsa.dma %va0 to %ta : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
      %t1 = dsa.dma %vb0 to %tb : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
      %t2 = dsa.matmul %ta, %tb into %acc after %t0, %t1 : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>
      dsa.wait %t2
      scf.for %k = %c64 to %c768 step %c64 {
        %va = memref.subview %a[%row, %k] [64, 64] [1, 1] : memref<512x768xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
        %vb = memref.subview %w[%k, %n] [64, 64] [1, 1] : memref<768x768xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
        %t3 = dsa.dma %va to %ta : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
        %t4 = dsa.dma %vb to %tb : memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
        %t5 = dsa.matmul %ta, %tb into %acc accumulate after %t3, %t4 : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, #dsa.memory_space<lb>>
        dsa.wait %t5
      }
      %vc = memref.subview %c[%row, %n] [64, 64] [1, 1] : memref<512x768xf32, #dsa.memory_space<ddr>> to memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
      %t6 = dsa.dma %acc to %vc : memref<64x64xf32, #dsa.memory_space<lb>>, memref<64x64xf32, strided<[768, 1], offset: ?>, #dsa.memory_space<ddr>>
      dsa.wait %t6
    }
    dsa.dealloc %ta : memref<64x64xf32, #dsa.memory_space<lb>>
    dsa.dealloc %tb : memref<64x64xf32, #dsa.memory_space<lb>>
    dsa.dealloc %acc : memref<64x64xf32, #dsa.memory_space<lb>>
    dsa.return
  }

  dsa.kernel @sync() {
    dsa.barrier
    dsa.return
  }

  func.func @bert_attention_output(%x: memref<512x768xf32, #dsa.memory_space<ddr>>, %wo: memref<768x768xf32, #dsa.memory_space<ddr>>, %y: memref<512x768xf32, #dsa.memory_space<ddr>>) {
    dsa.launch @attention_output(%x, %wo, %y) on [0, 1, 2, 3, 4, 5, 6, 7] : memref<512x768xf32, #dsa.memory_space<ddr>>, memref<768x768xf32, #dsa.memory_space<ddr>>, memref<512x768xf32, #dsa.memory_space<ddr>>
    dsa.launch @sync() on [31]
    return
  }
}

// -----

// Tests that a kernel with scalar arguments (an index and an f32) that reads
// its cluster and core and synchronises the cores of its launch with
// dsa.barrier round-trips, and a launch in a module without a target (no core
// count to check the cores against).
// CHECK-LABEL: dsa.kernel @layer_norm_scale
// CHECK-SAME: (%[[X:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>, %[[N:.*]]: index, %[[EPS:.*]]: f32)
// CHECK: %[[CL:.*]] = dsa.cluster_id : index
// CHECK: %[[CO:.*]] = dsa.core_id : index
// CHECK: dsa.barrier
// CHECK: dsa.return
// CHECK-LABEL: func.func @launch_without_target
// CHECK-SAME: (%[[Y:.*]]: memref<512x768xf32, #dsa.memory_space<ddr>>, %[[M:.*]]: index, %[[E:.*]]: f32)
// CHECK: dsa.launch @layer_norm_scale(%[[Y]], %[[M]], %[[E]]) on [0, 8, 16, 24, 100] : memref<512x768xf32, #dsa.memory_space<ddr>>, index, f32
module {
  dsa.kernel @layer_norm_scale(%x: memref<512x768xf32, #dsa.memory_space<ddr>>, %n: index, %eps: f32) {
    %cluster = dsa.cluster_id : index
    %core = dsa.core_id : index
    dsa.barrier
    dsa.return
  }

  func.func @launch_without_target(%y: memref<512x768xf32, #dsa.memory_space<ddr>>, %m: index, %e: f32) {
    dsa.launch @layer_norm_scale(%y, %m, %e) on [0, 8, 16, 24, 100] : memref<512x768xf32, #dsa.memory_space<ddr>>, index, f32
    return
  }
}

// -----

// Tests half-precision tiles: a DMA converting f16 to f32 and back, and a product of f16
// tiles into an f32 accumulator (floats of different widths mix in compute instructions).
// CHECK-LABEL: func.func @half_precision
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<32x64xf16, #dsa.memory_space<ddr>>, memref<32x64xf32, #dsa.memory_space<lb>>
// CHECK: dsa.matmul %{{.*}}, %{{.*}} into %{{.*}} : memref<32x64xf16, #dsa.memory_space<lb>>, memref<64x32xbf16, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<32x32xf32, #dsa.memory_space<lb>>, memref<32x32xf16, #dsa.memory_space<ddr>>
func.func @half_precision(%x: memref<32x64xf16, #dsa.memory_space<ddr>>, %a: memref<32x64xf16, #dsa.memory_space<lb>>, %b: memref<64x32xbf16, #dsa.memory_space<lb>>, %staged: memref<32x64xf32, #dsa.memory_space<lb>>, %c: memref<32x32xf32, #dsa.memory_space<lb>>, %y: memref<32x32xf16, #dsa.memory_space<ddr>>) {
  %t0 = dsa.dma %x to %staged : memref<32x64xf16, #dsa.memory_space<ddr>>, memref<32x64xf32, #dsa.memory_space<lb>>
  %t1 = dsa.matmul %a, %b into %c : memref<32x64xf16, #dsa.memory_space<lb>>, memref<64x32xbf16, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  %t2 = dsa.dma %c to %y after %t1 : memref<32x32xf32, #dsa.memory_space<lb>>, memref<32x32xf16, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests the ops of control flow between launches: a condition read, a loop counter written,
// the watchdog consulted, a call that may recurse entered and left, and a persistent region
// yielding the buffer a loop chose.
// CHECK-LABEL: func.func @persistent_loop
// CHECK-SAME: (%[[C:.*]]: memref<1xi1, #dsa.memory_space<ddr>>, %[[N:.*]]: memref<1xi64, #dsa.memory_space<gb>>, %[[A:.*]]: memref<4xf32, #dsa.memory_space<ddr>>)
// CHECK: %[[R:.*]] = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
// CHECK-NEXT: %[[V:.*]] = dsa.read_scalar %[[C]] : memref<1xi1, #dsa.memory_space<ddr>>
// CHECK-NEXT: dsa.write_scalar %[[V]], %[[N]] : memref<1xi64, #dsa.memory_space<gb>>
// CHECK-NEXT: %{{.*}} = dsa.loop_check %[[V]]
// CHECK-NEXT: %[[ALLOWED:.*]] = dsa.frame_push
// CHECK-NEXT: scf.if %[[ALLOWED]] {
// CHECK-NEXT: dsa.frame_pop
// CHECK-NEXT: }
// CHECK-NEXT: dsa.yield %[[A]] : memref<4xf32, #dsa.memory_space<ddr>>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[R]]
func.func @persistent_loop(%c: memref<1xi1, #dsa.memory_space<ddr>>, %n: memref<1xi64, #dsa.memory_space<gb>>, %a: memref<4xf32, #dsa.memory_space<ddr>>) -> memref<4xf32, #dsa.memory_space<ddr>> {
  %r = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
    %v = dsa.read_scalar %c : memref<1xi1, #dsa.memory_space<ddr>>
    dsa.write_scalar %v, %n : memref<1xi64, #dsa.memory_space<gb>>
    %ok = dsa.loop_check %v
    %allowed = dsa.frame_push
    scf.if %allowed {
      dsa.frame_pop
    }
    dsa.yield %a : memref<4xf32, #dsa.memory_space<ddr>>
  }
  return %r : memref<4xf32, #dsa.memory_space<ddr>>
}
