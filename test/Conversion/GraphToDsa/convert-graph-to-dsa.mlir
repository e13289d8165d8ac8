// The kernels' structure without software pipelining (convert-graph-to-dsa-pipeline.mlir has it).
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=pipeline=false | FileCheck %s

// Tests that a conv with its bias, fused activation, a residual add and a relu
// becomes one kernel: the epilogue runs on the output tile in LB, and the host
// function launches it once with the inputs, output and weights as arguments.
// The filter tile of an output-channel block is loaded (and fenced) only when
// the block differs from the previous tile's, so it stays in LB over a run of
// tiles; the conv then waits for its input rows only.
// CHECK-LABEL: dsa.kernel @residual_0_conv2d
// CHECK: %[[SAME:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : index
// CHECK: %[[LOAD:.*]] = arith.ori %{{.*}}, %[[SAME]] : i1
// CHECK-NEXT: scf.if %[[LOAD]] {
// CHECK: %[[FILTER:.*]] = dsa.dma %{{.*}} to %{{.*}} : memref<8x8x3x3xf32, strided<[72, 9, 3, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<8x8x3x3xf32, #dsa.memory_space<lb>>
// CHECK-NEXT: dsa.wait %[[FILTER]]
// CHECK-NEXT: }
// CHECK: %[[ROWS:.*]] = dsa.dma
// CHECK-NOT: dsa.dma
// CHECK: dsa.conv2d %{{.*}}, %{{.*}} into %[[ACC:[a-z0-9_]+]] after %[[ROWS]] {pads = array<i64: 1, 1, 1, 1>}
// CHECK: dsa.binary add %[[ACC]], %{{.*}} into %[[ACC]]
// CHECK-NEXT: dsa.unary relu %[[ACC]] into %[[ACC]]
// CHECK-NEXT: dsa.binary add %[[ACC]], %{{.*}} into %[[ACC]]
// CHECK-NEXT: dsa.unary relu %[[ACC]] into %[[ACC]]
// CHECK: dsa.dma %[[ACC]] to
// CHECK-NOT: dsa.kernel
// CHECK-LABEL: func.func @residual
// CHECK-SAME: %[[X:.*]]: memref<2x8x10x10xf32, #dsa.memory_space<ddr>> {dsa.input = 0 : i64}
// CHECK-SAME: %[[Y:.*]]: memref<2x16x10x10xf32, #dsa.memory_space<ddr>> {dsa.input = 1 : i64}
// CHECK-SAME: %[[OUT:.*]]: memref<2x16x10x10xf32, #dsa.memory_space<ddr>> {dsa.output = 0 : i64}
// CHECK-SAME: %[[W:.*]]: memref<16x8x3x3xf32, #dsa.memory_space<ddr>> {dsa.weight = "w"}
// CHECK-SAME: %[[B:.*]]: memref<16xf32, #dsa.memory_space<ddr>> {dsa.weight = "b"}
// CHECK: %[[BIAS:.*]] = memref.reinterpret_cast %[[B]] to offset: [0], sizes: [1, 16, 1, 1]
// CHECK: dsa.launch @residual_0_conv2d(%[[BIAS]], %[[Y]], %[[X]], %[[W]], %[[OUT]]) on [0, 1, 2, 3]
// CHECK-NEXT: return
func.func @residual(%x: tensor<2x8x10x10xf32>, %y: tensor<2x16x10x10xf32>) -> tensor<2x16x10x10xf32> {
  %w = graph.weight "w" : tensor<16x8x3x3xf32>
  %b = graph.weight "b" : tensor<16xf32>
  %c = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>
  %a = graph.add %c, %y : tensor<2x16x10x10xf32>, tensor<2x16x10x10xf32> -> tensor<2x16x10x10xf32>
  %r = graph.relu %a : tensor<2x16x10x10xf32>
  return %r : tensor<2x16x10x10xf32>
}

// -----

// Tests that a conv whose output does not fit the 16 KiB LB of `mini` in one
// tile is split into row tiles, and that the padding is resolved per row
// class: the first tile pads above, the last below, the middle ones not at all,
// each with the input rows it really reads.
// CHECK-LABEL: dsa.kernel @rows_0_conv2d
// CHECK: scf.if
// CHECK: dsa.conv2d %{{.*}} into %{{.*}} after %{{.*}} {pads = array<i64: 1, 1, 0, 1>} : memref<1x{{[0-9]+}}x[[FIRST:[0-9]+]]x32xf32
// CHECK: } else {
// CHECK: scf.if
// CHECK: {pads = array<i64: 0, 1, 0, 1>}
// CHECK: } else {
// CHECK: {pads = array<i64: 0, 1, 1, 1>} : memref<1x{{[0-9]+}}x[[FIRST]]x32xf32
// CHECK-LABEL: func.func @rows
func.func @rows(%x: tensor<1x4x32x32xf32>) -> tensor<1x16x32x32xf32> {
  %w = graph.weight "w" : tensor<16x4x3x3xf32>
  %c = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x32x32xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x32x32xf32>
  return %c : tensor<1x16x32x32xf32>
}

// -----

// Tests that a matmul whose K does not fit one tile accumulates over K chunks:
// the first chunk overwrites the accumulator, the loop over the others adds.
// CHECK-LABEL: dsa.kernel @chunks_0_matmul
// CHECK: dsa.matmul %[[A:.*]], %[[B:.*]] into %[[C:.*]] after
// CHECK: scf.for
// CHECK: dsa.matmul %[[A]], %[[B]] into %[[C]] accumulate after
// CHECK-LABEL: func.func @chunks
func.func @chunks(%a: tensor<64x512xf32>, %b: tensor<512x64xf32>) -> tensor<64x64xf32> {
  %c = graph.matmul %a, %b : tensor<64x512xf32>, tensor<512x64xf32> -> tensor<64x64xf32>
  return %c : tensor<64x64xf32>
}

// -----

// Tests that a residual added to a product becomes its accumulator's first value, as a
// convolution's does: the tile loads it into the accumulator, every chunk accumulates (the
// first after that load), and no epilogue step is left.
// CHECK-LABEL: dsa.kernel @matmul_residual_0_matmul
// CHECK:         %[[RESIDUAL:[0-9]+]] = dsa.dma %{{.*}} to %[[ACCUMULATOR:[0-9]+]] : memref<32x32xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<32x32xf32, #dsa.memory_space<lb>>
// CHECK:         dsa.matmul %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after %{{.*}}, %{{.*}}, %[[RESIDUAL]]
// CHECK:         scf.for
// CHECK:         dsa.matmul %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after
// CHECK-NOT:     dsa.binary
// CHECK:         dsa.dma %[[ACCUMULATOR]] to
// CHECK-LABEL: func.func @matmul_residual
func.func @matmul_residual(%a: tensor<64x512xf32>, %r: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %w = graph.weight "w" : tensor<512x64xf32>
  %c = graph.matmul %a, %w : tensor<64x512xf32>, tensor<512x64xf32> -> tensor<64x64xf32>
  %s = graph.add %c, %r : tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
  return %s : tensor<64x64xf32>
}

// -----

// Tests that a gemm with a transposed weight reads it through a transposed
// view (no transpose kernel), that with K whole the weight tile is loaded only
// when the column block changes, and that its bias joins the epilogue.
// CHECK-LABEL: dsa.kernel @classifier_0_gemm
// CHECK-SAME: memref<32x10xf32, strided<[1, 32]>, #dsa.memory_space<ddr>>
// CHECK: scf.if
// CHECK-NEXT: memref.subview %{{.*}} : memref<32x10xf32, strided<[1, 32]>, #dsa.memory_space<ddr>> to
// CHECK-NEXT: dsa.dma
// CHECK-NEXT: dsa.wait
// CHECK: dsa.matmul
// CHECK: dsa.binary add
// CHECK-LABEL: func.func @classifier
// CHECK: memref.transpose %{{.*}} (d0, d1) -> (d1, d0) : memref<10x32xf32, #dsa.memory_space<ddr>> to memref<32x10xf32, strided<[1, 32]>, #dsa.memory_space<ddr>>
func.func @classifier(%x: tensor<4x32xf32>) -> tensor<4x10xf32> {
  %w = graph.weight "fc.weight" : tensor<10x32xf32>
  %b = graph.weight "fc.bias" : tensor<10xf32>
  %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<4x32xf32>, tensor<10x32xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %y : tensor<4x10xf32>
}

// -----

// Tests that a batch norm after a conv is fused as a per-channel epilogue
// (rsqrt(var + eps) prepared in place on the variance tile), and that a
// returned reshape is a view: the conv writes straight into the output buffer
// viewed with its own shape, and nothing is copied.
// CHECK-LABEL: dsa.kernel @normalized_0_conv2d
// CHECK: dsa.conv2d
// CHECK: dsa.unary affine %[[VAR:[a-z0-9_]+]] into %[[VAR]] after %{{.*}} {scale = 1.000000e+00 : f32, shift = 9.99999974E-6 : f32}
// CHECK-NEXT: dsa.unary rsqrt %[[VAR]] into %[[VAR]]
// CHECK-NEXT: dsa.binary sub
// CHECK-NEXT: dsa.binary mul %{{.*}}, %[[VAR]]
// CHECK-NOT: dsa.kernel
// CHECK-LABEL: func.func @normalized
// CHECK-SAME: %[[OUT:[a-z0-9_]+]]: memref<1x512xf32, #dsa.memory_space<ddr>> {dsa.output = 0 : i64}
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[OUT]] to offset: [0], sizes: [1, 8, 8, 8]
// CHECK: dsa.launch @normalized_0_conv2d({{.*}}, %[[VIEW]])
// CHECK-NEXT: return
func.func @normalized(%x: tensor<1x4x8x8xf32>) -> tensor<1x512xf32> {
  %w = graph.weight "w" : tensor<8x4x1x1xf32>
  %c = graph.conv2d %x, %w : (tensor<1x4x8x8xf32>, tensor<8x4x1x1xf32>) -> tensor<1x8x8x8xf32>
  %g = graph.weight "g" : tensor<8xf32>
  %b = graph.weight "b" : tensor<8xf32>
  %m = graph.weight "m" : tensor<8xf32>
  %v = graph.weight "v" : tensor<8xf32>
  %n = graph.batch_norm %c, %g, %b, %m, %v {epsilon = 1.0e-05 : f32} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %r = graph.reshape %n : tensor<1x8x8x8xf32> -> tensor<1x512xf32>
  return %r : tensor<1x512xf32>
}

// -----

// Tests the row-wise layers of a transformer: softmax is max, subtract, exp,
// sum and divide on whole rows; layer norm loads its scale and bias once per
// core before the tile loop.
// CHECK-LABEL: dsa.kernel @attention_0_softmax
// CHECK: dsa.reduce max
// CHECK-NEXT: dsa.binary sub
// CHECK-NEXT: dsa.unary exp
// CHECK-NEXT: dsa.reduce sum
// CHECK-NEXT: dsa.binary div
// CHECK-LABEL: dsa.kernel @attention_1_layer_norm
// CHECK: dsa.dma
// CHECK: dsa.dma
// CHECK: dsa.wait
// CHECK: scf.for
// CHECK: dsa.reduce mean
// CHECK: dsa.unary rsqrt
// CHECK-LABEL: func.func @attention
func.func @attention(%s: tensor<2x4x16x16xf32>, %x: tensor<2x16x64xf32>) -> (tensor<2x4x16x16xf32>, tensor<2x16x64xf32>) {
  %p = graph.softmax %s {axis = -1 : i64} : tensor<2x4x16x16xf32>
  %g = graph.weight "ln.weight" : tensor<64xf32>
  %b = graph.weight "ln.bias" : tensor<64xf32>
  %n = graph.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
  return %p, %n : tensor<2x4x16x16xf32>, tensor<2x16x64xf32>
}

// -----

// Tests a softmax across a middle axis: the tensor is seen as [outer, length,
// inner] with the axis in the middle, and the maximum and the sum are reduced
// along it (into [1, 1, 4] for a tile of one row of 8 x 4) and broadcast back
// over it.
// CHECK-LABEL: dsa.kernel @middle_axis_0_softmax
// CHECK: dsa.reduce max %{{.*}} into %{{.*}} after %{{.*}} {axis = 1 : i64} : memref<1x8x4xf32, #dsa.memory_space<lb>>, memref<1x1x4xf32, #dsa.memory_space<lb>>
// CHECK-NEXT: dsa.binary sub %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} : memref<1x8x4xf32, #dsa.memory_space<lb>>, memref<1x1x4xf32, #dsa.memory_space<lb>>
// CHECK-NEXT: dsa.unary exp
// CHECK-NEXT: dsa.reduce sum %{{.*}} {axis = 1 : i64}
// CHECK-NEXT: dsa.binary div
// CHECK-LABEL: func.func @middle_axis
func.func @middle_axis(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %y = graph.softmax %x {axis = 1 : i64} : tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// Tests a reduction over separate axes (1 and 3, keeping 2): the tile of one
// image is reduced along its last run, then along the first, in LB.
// CHECK-LABEL: dsa.kernel @separate_axes_0_reduce_mean
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<1x5x3x4xf32, {{.*}}#dsa.memory_space<ddr>>, memref<1x5x3x4xf32, #dsa.memory_space<lb>>
// CHECK: dsa.reduce mean %{{.*}} into %{{.*}} after %{{.*}} {axis = 3 : i64} : memref<1x5x3x4xf32, #dsa.memory_space<lb>>, memref<1x5x3x1xf32, #dsa.memory_space<lb>>
// CHECK-NEXT: dsa.reduce mean %{{.*}} into %{{.*}} after %{{.*}} {axis = 1 : i64} : memref<1x5x3x1xf32, #dsa.memory_space<lb>>, memref<1x1x3x1xf32, #dsa.memory_space<lb>>
// CHECK: dsa.dma
// CHECK-LABEL: func.func @separate_axes
func.func @separate_axes(%x: tensor<2x5x3x4xf32>) -> tensor<2x1x3x1xf32> {
  %a = graph.reduce_mean %x {axes = array<i64: 1, 3>, keepdims = true} : tensor<2x5x3x4xf32> -> tensor<2x1x3x1xf32>
  return %a : tensor<2x1x3x1xf32>
}

// -----

// Tests ONNX Mod: on floats a remainder with the dividend's sign under fmod (C's fmod), on
// integers with the divisor's (Python's %), the integer one a selection layer of its own.
// CHECK-LABEL: dsa.kernel @remainders_0_mod
// CHECK: dsa.binary fmod
// CHECK-LABEL: dsa.kernel @remainders_1_mod
// CHECK: dsa.binary mod %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} : {{.*}}xi64
// CHECK-LABEL: func.func @remainders
func.func @remainders(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %i: tensor<4x8xi64>, %j: tensor<4x8xi64>) -> (tensor<4x8xf32>, tensor<4x8xi64>) {
  %f = graph.mod %x, %y {fmod = true} : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %m = graph.mod %i, %j : tensor<4x8xi64>, tensor<4x8xi64> -> tensor<4x8xi64>
  return %f, %m : tensor<4x8xf32>, tensor<4x8xi64>
}

// -----

// Tests GELU's two forms, each one unary instruction of its own: the exact one (with erf) and
// ONNX's tanh approximation.
// CHECK-LABEL: dsa.kernel @gelus_0_gelu
// CHECK: dsa.unary gelu %{{.*}} into %{{.*}} after %{{.*}} : memref<32xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: dsa.kernel @gelus_1_gelu
// CHECK: dsa.unary gelu_tanh %{{.*}} into %{{.*}} after %{{.*}} : memref<32xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @gelus
func.func @gelus(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = graph.gelu %x : tensor<4x8xf32>
  %b = graph.gelu %x {approximate = true} : tensor<4x8xf32>
  return %a, %b : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// Tests a product over separate axes, reduced run by run as the sum and the mean
// are (a product of products is the product).
// CHECK-LABEL: dsa.kernel @product_0_reduce_prod
// CHECK: dsa.reduce prod %{{.*}} into %{{.*}} after %{{.*}} {axis = 3 : i64} : memref<1x5x3x4xf32, #dsa.memory_space<lb>>, memref<1x5x3x1xf32, #dsa.memory_space<lb>>
// CHECK-NEXT: dsa.reduce prod %{{.*}} into %{{.*}} after %{{.*}} {axis = 1 : i64} : memref<1x5x3x1xf32, #dsa.memory_space<lb>>, memref<1x1x3x1xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @product
func.func @product(%x: tensor<2x5x3x4xf32>) -> tensor<2x1x3x1xf32> {
  %a = graph.reduce_prod %x {axes = array<i64: 1, 3>, keepdims = true} : tensor<2x5x3x4xf32> -> tensor<2x1x3x1xf32>
  return %a : tensor<2x1x3x1xf32>
}

// -----

// Tests that a broadcast (ONNX Expand) is a DMA copy from the input seen with
// the output's shape, stride 0 along the repeated dimensions.
// CHECK-LABEL: dsa.kernel @expand_0_broadcast
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<{{.*}}strided<[0, 1, 0], offset: ?>, #dsa.memory_space<ddr>>, memref<{{.*}}, #dsa.memory_space<ddr>>
// CHECK-LABEL: func.func @expand
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 3, 4], strides: [0, 1, 0] : memref<3x1xf32, #dsa.memory_space<ddr>> to memref<2x3x4xf32, strided<[0, 1, 0]>, #dsa.memory_space<ddr>>
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %a = graph.broadcast %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  return %a : tensor<2x3x4xf32>
}

// -----

// Tests a concatenation of rank-5 tensors along dimension 2: each piece and its
// window of the result step through dimensions 0-1 and 2-4 as one run each, so
// the copies are of [6, 40] and [6, 10] (rows of 50 in the result).
// CHECK-LABEL: dsa.kernel @rank5_concat_0_concat
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<1x40xf32, strided<[40, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x40xf32, strided<[50, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<1x10xf32, strided<[10, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x10xf32, strided<[50, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK-LABEL: func.func @rank5_concat
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [%{{.*}}], sizes: [6, 40], strides: [50, 1] : memref<2x3x4x5x2xf32, strided<[150, 50, 10, 2, 1], offset: ?>, #dsa.memory_space<ddr>> to memref<6x40xf32, strided<[50, 1], offset: ?>, #dsa.memory_space<ddr>>
func.func @rank5_concat(%x: tensor<2x3x4x5x2xf32>, %y: tensor<2x3x1x5x2xf32>) -> tensor<2x3x5x5x2xf32> {
  %c = graph.concat %x, %y {axis = 2 : i64} : (tensor<2x3x4x5x2xf32>, tensor<2x3x1x5x2xf32>) -> tensor<2x3x5x5x2xf32>
  return %c : tensor<2x3x5x5x2xf32>
}

// -----

// Tests that a transpose is a DMA copy from a permuted view, and that a
// returned weight is copied into its output buffer.
// CHECK-LABEL: dsa.kernel @movement_0_transpose
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<{{.*}}strided<[{{.*}}], offset: ?>, #dsa.memory_space<ddr>>, memref<{{.*}}, #dsa.memory_space<ddr>>
// CHECK-LABEL: dsa.kernel @movement_1_copy
// CHECK-LABEL: func.func @movement
// CHECK: memref.transpose %{{.*}} (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: dsa.launch @movement_0_transpose
// CHECK: dsa.launch @movement_1_copy
func.func @movement(%x: tensor<1x16x4x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<8xf32>) {
  %t = graph.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x16x4x8xf32> -> tensor<1x4x16x8xf32>
  %w = graph.weight "w" : tensor<8xf32>
  return %t, %w : tensor<1x4x16x8xf32>, tensor<8xf32>
}

// -----

// Tests that a slice stepping through its last dimension stages each tile in
// LB: the load takes whole runs of the kept rows (the rows step, the columns
// do not: the span of 11 columns for 6), and the store out of LB picks every
// second column, after the load.
// CHECK-LABEL: dsa.kernel @stepped_0_slice
// CHECK: %[[STAGED:.*]] = dsa.alloc : memref<1x4x5x11xf32, #dsa.memory_space<lb>>
// CHECK: scf.for
// CHECK: %[[LOADED:.*]] = dsa.dma %{{.*}} to %[[STAGED]] : memref<1x4x5x11xf32, strided<[880, 110, 22, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x4x5x11xf32, #dsa.memory_space<lb>>
// CHECK: %[[PICKED:.*]] = memref.subview %[[STAGED]]{{.*}} [1, 4, 5, 6] [1, 1, 1, 2]
// CHECK: dsa.dma %[[PICKED]] to %{{.*}} after %[[LOADED]] : memref<1x4x5x6xf32, strided<[220, 55, 11, 2], offset: ?>, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @stepped
// CHECK: memref.subview %{{.*}} [2, 8, 5, 11] [1, 1, 2, 1]
func.func @stepped(%x: tensor<2x8x10x11xf32>) -> tensor<2x8x5x6xf32> {
  %y = graph.slice %x {starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<2x8x10x11xf32> -> tensor<2x8x5x6xf32>
  return %y : tensor<2x8x5x6xf32>
}

// -----

// Tests that a local response normalisation pools the squares over a window of
// channels (the tensor viewed as [N, 1, C, positions], a size x 1 average that
// counts its padding) and raises with exp(-beta * log(bias + alpha * mean)).
// CHECK-LABEL: dsa.kernel @normalize_0_lrn
// CHECK: dsa.binary mul %[[X:[a-z0-9_]+]], %[[X]] into %[[SQ:[a-z0-9_]+]]
// CHECK-NEXT: dsa.pool avg %[[SQ]] into %[[S:[a-z0-9_]+]] after %{{.*}} {count_include_pad = true, kernel = array<i64: 5, 1>, pads = array<i64: 2, 0, 2, 0>} : memref<1x1x16x{{[0-9]+}}xf32
// CHECK-NEXT: dsa.unary affine %[[S]] into %[[S]]
// CHECK-NEXT: dsa.unary log
// CHECK-NEXT: dsa.unary affine
// CHECK-NEXT: dsa.unary exp
// CHECK-NEXT: dsa.binary mul %[[X]], %[[S]] into %[[X]]
// CHECK-LABEL: func.func @normalize
func.func @normalize(%x: tensor<2x16x6x6xf32>) -> tensor<2x16x6x6xf32> {
  %y = graph.lrn %x {size = 5 : i64, alpha = 1.0e-04 : f32, beta = 0.75 : f32, bias = 1.0 : f32} : tensor<2x16x6x6xf32>
  return %y : tensor<2x16x6x6xf32>
}

// -----

// Tests a 1x1 convolution with stride 2 (a ResNet projection): the rows between its windows
// are never read, so the host passes the kernel a view of every second row and the tiles load
// only those (the instruction's stride along H becomes 1). Columns are loaded whole: every
// load moves runs of whole rows.
// CHECK-LABEL: dsa.kernel @projection_0_conv2d
// CHECK-SAME:    %{{.*}}: memref<2x8x8x16xf32, strided<[2048, 256, 32, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<2x8x2x16xf32, strided<[2048, 256, 32, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<2x8x2x16xf32, {{.*}}#dsa.memory_space<lb>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} {strides = array<i64: 1, 2>} : memref<2x8x2x16xf32
// CHECK-LABEL: func.func @projection
// CHECK:         %[[ROWS:.*]] = memref.subview %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] [2, 8, 8, 16] [1, 1, 2, 1] : memref<2x8x16x16xf32, #dsa.memory_space<ddr>> to memref<2x8x8x16xf32, strided<[2048, 256, 32, 1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK:         dsa.launch @projection_0_conv2d(%[[ROWS]],
func.func @projection(%x: tensor<2x8x16x16xf32>) -> tensor<2x16x8x8xf32> {
  %w = graph.weight "w" : tensor<16x8x1x1xf32>
  %p = graph.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x8x8xf32>
  return %p : tensor<2x16x8x8xf32>
}

// -----

// Tests that a strided convolution whose windows overlap (3x3, stride 2) or whose rows would
// read padding keeps its input whole: no view of every second row.
// CHECK-LABEL: dsa.kernel @strided_window_0_conv2d
// CHECK-SAME:    %{{.*}}: memref<2x8x16x16xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.conv2d {{.*}}strides = array<i64: 2, 2>
// CHECK-LABEL: dsa.kernel @strided_window_1_conv2d
// CHECK-SAME:    %{{.*}}: memref<2x8x16x16xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.conv2d {{.*}}strides = array<i64: 2, 2>
// CHECK-LABEL: func.func @strided_window
// CHECK-NOT:     [1, 1, 2, 1]
// CHECK:         return
func.func @strided_window(%x: tensor<2x8x16x16xf32>) -> (tensor<2x16x8x8xf32>, tensor<2x16x9x9xf32>) {
  %w = graph.weight "w" : tensor<16x8x3x3xf32>
  %v = graph.weight "v" : tensor<16x8x1x1xf32>
  %c = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x8x8xf32>
  %p = graph.conv2d %x, %v {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x16x16xf32>, tensor<16x8x1x1xf32>) -> tensor<2x16x9x9xf32>
  return %c, %p : tensor<2x16x8x8xf32>, tensor<2x16x9x9xf32>
}

// -----

// Tests that a pointwise convolution (1x1, no stride or padding) may see its images as rows of
// fewer pixels than theirs (here 8 of a 32-pixel row, a tile of 2 such rows by 64 channels),
// where its own rows would leave the LB room for too few output channels: the host views the
// input, the output and the operand its result is multiplied by as [N, C, H*W/8, 8] with the
// same strides per channel, the per-channel bias stays [1, C, 1, 1].
// CHECK-LABEL: dsa.kernel @pointwise_0_conv2d
// CHECK-SAME:    memref<1x64x128x8xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.dma %{{.*}} to %{{.*}} : memref<1x16x2x8xf32, strided<[16384, 1024, 8, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x16x2x8xf32
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} : memref<1x16x2x8xf32, {{.*}}>, memref<64x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x64x2x8xf32, #dsa.memory_space<lb>>
// CHECK:         dsa.binary  add %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}} : memref<1x64x2x8xf32, #dsa.memory_space<lb>>, memref<1x64x1x1xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @pointwise
// CHECK:         memref.reinterpret_cast %arg0 to offset: [0], sizes: [1, 16, 128, 8], strides: [16384, 1024, 8, 1]
// CHECK:         memref.reinterpret_cast %arg2 to offset: [0], sizes: [1, 64, 128, 8], strides: [65536, 1024, 8, 1]
// CHECK:         memref.reinterpret_cast %arg1 to offset: [0], sizes: [1, 64, 128, 8], strides: [65536, 1024, 8, 1]
// CHECK:         dsa.launch @pointwise_0_conv2d
func.func @pointwise(%x: tensor<1x16x32x32xf32>, %s: tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32> {
  %w = graph.weight "w" : tensor<64x16x1x1xf32>
  %b = graph.weight "b" : tensor<64xf32>
  %y = graph.conv2d %x, %w, %b : (tensor<1x16x32x32xf32>, tensor<64x16x1x1xf32>, tensor<64xf32>) -> tensor<1x64x32x32xf32>
  %a = graph.mul %y, %s : tensor<1x64x32x32xf32>, tensor<1x64x32x32xf32> -> tensor<1x64x32x32xf32>
  %r = graph.relu %a : tensor<1x64x32x32xf32>
  return %r : tensor<1x64x32x32xf32>
}

// -----

// Tests that a residual added after the bias becomes the accumulator's first value: each tile
// loads its residual into the accumulator, the first product accumulates onto it (after that
// load), and the epilogue adds the bias and applies the relu only, with no LB buffer for the
// residual (which leaves room for whole 32-pixel rows by 64 channels here).
// CHECK-LABEL: dsa.kernel @accumulated_residual_0_conv2d
// CHECK:         %[[RESIDUAL:[0-9]+]] = dsa.dma %{{.*}} to %[[ACCUMULATOR:[0-9]+]] : memref<1x64x1x32xf32, strided<[65536, 1024, 32, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x64x1x32xf32, #dsa.memory_space<lb>>
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after %{{.*}}, %[[RESIDUAL]]
// CHECK:         dsa.binary  add %[[ACCUMULATOR]], %{{.*}} into %[[ACCUMULATOR]] after %{{.*}} : memref<1x64x1x32xf32, #dsa.memory_space<lb>>, memref<1x64x1x1xf32
// CHECK-NEXT:    dsa.unary  relu %[[ACCUMULATOR]] into %[[ACCUMULATOR]]
// CHECK:         dsa.dma %[[ACCUMULATOR]] to
// CHECK-LABEL: func.func @accumulated_residual
func.func @accumulated_residual(%x: tensor<1x16x32x32xf32>, %s: tensor<1x64x32x32xf32>) -> tensor<1x64x32x32xf32> {
  %w = graph.weight "w" : tensor<64x16x1x1xf32>
  %b = graph.weight "b" : tensor<64xf32>
  %y = graph.conv2d %x, %w, %b : (tensor<1x16x32x32xf32>, tensor<64x16x1x1xf32>, tensor<64xf32>) -> tensor<1x64x32x32xf32>
  %a = graph.add %s, %y : tensor<1x64x32x32xf32>, tensor<1x64x32x32xf32> -> tensor<1x64x32x32xf32>
  %r = graph.relu %a : tensor<1x64x32x32xf32>
  return %r : tensor<1x64x32x32xf32>
}

// -----

// Tests that a projection absorbs the block's last 1x1 convolution, whose result only their sum
// reads: one kernel, where each tile's accumulator first takes that convolution's product (its
// chunk's input rows and filter slice loaded, the product overwriting the accumulator), then the
// projection's own products accumulate onto it (stride 2 along the columns, the rows it skips
// left out of its view), and the epilogue adds both biases before the relu.
// CHECK-LABEL: dsa.kernel @absorbed_projection_0_conv2d
// CHECK:         %[[ROWS:[0-9]+]] = dsa.dma %{{.*}} to %[[ABSORBED:[0-9]+]] : memref<1x16x2x16xf32, {{.*}}#dsa.memory_space<ddr>>, memref<1x16x2x16xf32, #dsa.memory_space<lb>>
// CHECK:         %[[SLICE:[0-9]+]] = dsa.dma %{{.*}} to %[[FILTER:[0-9]+]] : memref<32x16x1x1xf32, {{.*}}, memref<32x16x1x1xf32, #dsa.memory_space<lb>>
// CHECK:         %[[PRODUCT:[0-9]+]] = dsa.conv2d %[[ABSORBED]], %[[FILTER]] into %[[ACCUMULATOR:[0-9]+]] after %[[ROWS]], %[[SLICE]]
// CHECK-NEXT:    dsa.wait %[[PRODUCT]]
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after %{{.*}} {strides = array<i64: 1, 2>}
// CHECK:         dsa.binary  add %[[ACCUMULATOR]], %{{.*}} into %[[ACCUMULATOR]]
// CHECK-NEXT:    dsa.binary  add %[[ACCUMULATOR]], %{{.*}} into %[[ACCUMULATOR]]
// CHECK-NEXT:    dsa.unary  relu %[[ACCUMULATOR]] into %[[ACCUMULATOR]]
// CHECK:         dsa.dma %[[ACCUMULATOR]] to
// CHECK-NOT:   dsa.kernel
// CHECK-LABEL: func.func @absorbed_projection
func.func @absorbed_projection(%y: tensor<1x16x16x16xf32>, %x: tensor<1x8x32x32xf32>) -> tensor<1x32x16x16xf32> {
  %w3 = graph.weight "w3" : tensor<32x16x1x1xf32>
  %b3 = graph.weight "b3" : tensor<32xf32>
  %p = graph.conv2d %y, %w3, %b3 : (tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %wd = graph.weight "wd" : tensor<32x8x1x1xf32>
  %bd = graph.weight "bd" : tensor<32xf32>
  %d = graph.conv2d %x, %wd, %bd {strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<32x8x1x1xf32>, tensor<32xf32>) -> tensor<1x32x16x16xf32>
  %a = graph.add %p, %d : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32> -> tensor<1x32x16x16xf32>
  %r = graph.relu %a : tensor<1x32x16x16xf32>
  return %r : tensor<1x32x16x16xf32>
}

// -----

// Tests that a convolution whose result is also returned, or that applies an activation, stays a
// layer of its own: the later convolution's tiles start from it as a residual instead.
// CHECK-LABEL: dsa.kernel @kept_apart_0_conv2d
// CHECK-LABEL: dsa.kernel @kept_apart_1_conv2d
// CHECK:         %[[RESIDUAL:[0-9]+]] = dsa.dma %{{.*}} to %[[ACCUMULATOR:[0-9]+]] : memref<1x32x4x16xf32
// CHECK:         dsa.conv2d %{{.*}}, %{{.*}} into %[[ACCUMULATOR]] accumulate after %{{.*}}, %[[RESIDUAL]]
// CHECK-LABEL: dsa.kernel @kept_apart_2_conv2d
// CHECK-LABEL: dsa.kernel @kept_apart_3_conv2d
// CHECK:         %[[RESIDUAL:[0-9]+]] = dsa.dma %{{.*}} to %[[ACCUMULATOR:[0-9]+]] : memref<1x32x4x16xf32
// CHECK-LABEL: func.func @kept_apart
func.func @kept_apart(%y: tensor<1x16x16x16xf32>, %x: tensor<1x8x32x32xf32>) -> (tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>) {
  %w3 = graph.weight "w3" : tensor<32x16x1x1xf32>
  %p = graph.conv2d %y, %w3 : (tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x16x16xf32>
  %wd = graph.weight "wd" : tensor<32x8x1x1xf32>
  %d = graph.conv2d %x, %wd {strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x16x16xf32>
  %a = graph.add %p, %d : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32> -> tensor<1x32x16x16xf32>
  %q = graph.conv2d %y, %w3 {activation = #graph<activation relu>} : (tensor<1x16x16x16xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x16x16xf32>
  %e = graph.conv2d %x, %wd {strides = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>, tensor<32x8x1x1xf32>) -> tensor<1x32x16x16xf32>
  %s = graph.add %q, %e : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32> -> tensor<1x32x16x16xf32>
  return %a, %p, %s : tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>, tensor<1x32x16x16xf32>
}

// -----

// Tests integer tensors: an embedding lookup by i64 ids is a DMA gather from the table in DDR,
// each core gathering the rows of its share of the ids (no compute unit, no one-hot product);
// the attention mask's i64 values, reshaped as a view, are cast to f32 through typed LB tiles;
// the host function takes the i64 inputs as i64 DDR buffers.
// CHECK-LABEL: dsa.kernel @lookup_0_gather
// CHECK-SAME: (%[[TABLE:.*]]: memref<1x100x8xf32, #dsa.memory_space<ddr>>, %[[IDS:.*]]: memref<12xi64, #dsa.memory_space<ddr>>, %[[ROWS:.*]]: memref<1x12x8xf32, #dsa.memory_space<ddr>>)
// CHECK: scf.for
// CHECK: %[[SHARE:.*]] = memref.subview %[[IDS]][%{{.*}}] [3] [1]
// CHECK: %[[OUT:.*]] = memref.subview %[[ROWS]][%{{.*}}, %{{.*}}, %{{.*}}] [1, 3, 8] [1, 1, 1]
// CHECK: %[[T:.*]] = dsa.gather %[[TABLE]][%[[SHARE]]] to %[[OUT]] {axis = 1 : i64}
// CHECK-NEXT: dsa.wait %[[T]]
// CHECK-LABEL: dsa.kernel @lookup_1_cast
// CHECK-SAME: (%[[IN:.*]]: memref<12xi64, #dsa.memory_space<ddr>>, %[[F:.*]]: memref<12xf32, #dsa.memory_space<ddr>>)
// CHECK: %[[A:.*]] = dsa.alloc : memref<3xi64, #dsa.memory_space<lb>>
// CHECK: %[[B:.*]] = dsa.alloc : memref<3xf32, #dsa.memory_space<lb>>
// CHECK: %[[LOAD:.*]] = dsa.dma %{{.*}} to %[[A]]
// CHECK: %[[CONVERT:.*]] = dsa.convert %[[A]] into %[[B]] after %[[LOAD]] : memref<3xi64, #dsa.memory_space<lb>>, memref<3xf32, #dsa.memory_space<lb>>
// CHECK: dsa.dma %[[B]] to %{{.*}} after %[[CONVERT]]
// CHECK-LABEL: func.func @lookup
// CHECK-SAME: %{{.*}}: memref<2x6xi64, #dsa.memory_space<ddr>> {dsa.input = 0 : i64}
// CHECK-SAME: %{{.*}}: memref<2x6xi64, #dsa.memory_space<ddr>> {dsa.input = 1 : i64}
// CHECK: dsa.launch @lookup_0_gather
// CHECK: dsa.launch @lookup_1_cast
func.func @lookup(%ids: tensor<2x6xi64>, %mask: tensor<2x6xi64>) -> (tensor<2x6x8xf32>, tensor<2x1x6xf32>) {
  %table = graph.weight "words" : tensor<100x8xf32>
  %e = graph.gather %table, %ids {axis = 0 : i64} : (tensor<100x8xf32>, tensor<2x6xi64>) -> tensor<2x6x8xf32>
  %u = graph.reshape %mask : tensor<2x6xi64> -> tensor<2x1x6xi64>
  %m = graph.cast %u : tensor<2x1x6xi64> -> tensor<2x1x6xf32>
  return %e, %m : tensor<2x6x8xf32>, tensor<2x1x6xf32>
}

// -----

// Tests comparisons and selections: a causal mask compares i64 query positions [4, 1] with key
// positions [4] broadcast to [4, 4] (stride-0 views of each, loaded into typed LB tiles) into
// booleans; the scores are picked where the mask holds, else a scalar fill read with stride 0
// (the dimensions the three operands keep or repeat alike merged into one).
// CHECK-LABEL: dsa.kernel @causal_0_compare
// CHECK: dsa.alloc : memref<1x4xi64, #dsa.memory_space<lb>>
// CHECK: dsa.alloc : memref<1x4xi64, #dsa.memory_space<lb>>
// CHECK: dsa.alloc : memref<1x4xi1, #dsa.memory_space<lb>>
// CHECK: %[[Q:.*]] = dsa.dma %{{.*}} to %{{.*}} : memref<1x4xi64, strided<[1, 0], offset: ?>, #dsa.memory_space<ddr>>, memref<1x4xi64, #dsa.memory_space<lb>>
// CHECK: %[[K:.*]] = dsa.dma %{{.*}} to %{{.*}} : memref<1x4xi64, strided<[0, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x4xi64, #dsa.memory_space<lb>>
// CHECK: %[[M:.*]] = dsa.compare ge %{{.*}}, %{{.*}} into %{{.*}} after %[[Q]], %[[K]] : memref<1x4xi64, #dsa.memory_space<lb>>, memref<1x4xi64, #dsa.memory_space<lb>>, memref<1x4xi1, #dsa.memory_space<lb>>
// CHECK: dsa.dma %{{.*}} to %{{.*}} after %[[M]] : memref<1x4xi1, #dsa.memory_space<lb>>
// CHECK-LABEL: dsa.kernel @causal_1_where
// CHECK: dsa.dma %{{.*}} to %{{.*}} : memref<4xf32, strided<[0]>, #dsa.memory_space<ddr>>, memref<4xf32, #dsa.memory_space<lb>>
// CHECK: dsa.select %{{.*}}, %{{.*}}, %{{.*}} into %{{.*}} after %{{.*}}, %{{.*}}, %{{.*}} : memref<4xi1, #dsa.memory_space<lb>>, memref<4xf32, #dsa.memory_space<lb>>, memref<4xf32, #dsa.memory_space<lb>>, memref<4xf32, #dsa.memory_space<lb>>
// CHECK-LABEL: func.func @causal
func.func @causal(%scores: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %q = graph.constant dense<[[0], [1], [2], [3]]> : tensor<4x1xi64>
  %k = graph.constant dense<[0, 1, 2, 3]> : tensor<4xi64>
  %m = graph.compare ge, %q, %k : tensor<4x1xi64>, tensor<4xi64> -> tensor<4x4xi1>
  %fill = graph.constant dense<-1.0e+04> : tensor<f32>
  %w = graph.where %m, %scores, %fill : tensor<4x4xi1>, tensor<4x4xf32>, tensor<f32> -> tensor<4x4xf32>
  return %w : tensor<4x4xf32>
}

// -----

// Tests a gather of elements (a loss picking each sample's label score): the output is tiled
// over the cores, each tile one DMA gather from the window of the scores its rows span, whole
// along the classes.
// CHECK-LABEL: dsa.kernel @labels_0_gather_elements
// CHECK-SAME: (%[[S:.*]]: memref<8x10xf32, #dsa.memory_space<ddr>>, %[[L:.*]]: memref<8x1xi64, #dsa.memory_space<ddr>>, %[[P:.*]]: memref<8x1xf32, #dsa.memory_space<ddr>>)
// CHECK: %[[W:.*]] = memref.subview %[[S]][%{{.*}}, %{{.*}}] [2, 10] [1, 1]
// CHECK: %[[I:.*]] = memref.subview %[[L]][%{{.*}}, %{{.*}}] [2, 1] [1, 1]
// CHECK: %[[O:.*]] = memref.subview %[[P]][%{{.*}}, %{{.*}}] [2, 1] [1, 1]
// CHECK: dsa.gather_elements %[[W]][%[[I]]] to %[[O]] {axis = 1 : i64}
func.func @labels(%scores: tensor<8x10xf32>, %labels: tensor<8x1xi64>) -> tensor<8x1xf32> {
  %p = graph.gather_elements %scores, %labels {axis = 1 : i64} : (tensor<8x10xf32>, tensor<8x1xi64>) -> tensor<8x1xf32>
  return %p : tensor<8x1xf32>
}

// -----

// Tests a scatter of elements (corrections added at run-time positions): the updates are tiled
// over the cores in whole rows, each tile copies the rows of the data its updates can land on
// into the output, then scatters into them after that copy.
// CHECK-LABEL: dsa.kernel @corrections_0_scatter_elements
// CHECK-SAME: (%[[D:.*]]: memref<8x10xf32, #dsa.memory_space<ddr>>, %[[I:.*]]: memref<8x3xi64, #dsa.memory_space<ddr>>, %[[U:.*]]: memref<8x3xf32, #dsa.memory_space<ddr>>, %[[R:.*]]: memref<8x10xf32, #dsa.memory_space<ddr>>)
// CHECK: %[[OUT:.*]] = memref.subview %[[R]][%[[ROW:.*]], %[[ZERO:.*]]] [2, 10] [1, 1]
// CHECK: %[[IN:.*]] = memref.subview %[[D]][%[[ROW]], %[[ZERO]]] [2, 10] [1, 1]
// CHECK: %[[COPY:.*]] = dsa.dma %[[IN]] to %[[OUT]]
// CHECK: %[[AT:.*]] = memref.subview %[[I]][%[[ROW]], %{{.*}}] [2, 3] [1, 1]
// CHECK: %[[VALUES:.*]] = memref.subview %[[U]][%[[ROW]], %{{.*}}] [2, 3] [1, 1]
// CHECK: dsa.scatter_elements %[[VALUES]][%[[AT]]] into %[[OUT]] after %[[COPY]] {axis = 1 : i64, reduction = #dsa<binary add>}
func.func @corrections(%data: tensor<8x10xf32>, %at: tensor<8x3xi64>, %values: tensor<8x3xf32>) -> tensor<8x10xf32> {
  %s = graph.scatter_elements %data, %at, %values {axis = 1 : i64, reduction = #graph<reduction add>} : (tensor<8x10xf32>, tensor<8x3xi64>, tensor<8x3xf32>) -> tensor<8x10xf32>
  return %s : tensor<8x10xf32>
}

// -----

// Tests integer arithmetic: position ids offset by a past length (i64) are one layer of their
// own, a dsa.binary on i64 LB tiles with the scalar read with stride 0, never an f32 step.
// CHECK-LABEL: dsa.kernel @positions_0_add
// CHECK: %[[A:.*]] = dsa.dma %{{.*}} to %{{.*}} : memref<{{.*}}xi64, strided<[1], offset: ?>, #dsa.memory_space<ddr>>
// CHECK: %[[B:.*]] = dsa.dma %{{.*}} to %{{.*}} : memref<{{.*}}xi64, strided<[0]>, #dsa.memory_space<ddr>>
// CHECK: dsa.binary add %{{.*}}, %{{.*}} into %{{.*}} after %[[A]], %[[B]] : memref<{{.*}}xi64, #dsa.memory_space<lb>>, memref<{{.*}}xi64, #dsa.memory_space<lb>>, memref<{{.*}}xi64, #dsa.memory_space<lb>>
func.func @positions(%past: tensor<i64>) -> tensor<1x16xi64> {
  %range = graph.constant dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<1x16xi64>
  %ids = graph.add %range, %past : tensor<1x16xi64>, tensor<i64> -> tensor<1x16xi64>
  return %ids : tensor<1x16xi64>
}

// -----

// Tests an arg reduction: the scores seen as [outer, axis, inner] = [8, 10, 1], tiles of whole
// lines loaded into an f32 LB tile, dsa.argmax on the vector core into an i64 tile, stored.
// CHECK-LABEL: dsa.kernel @classes_0_argmax
// CHECK: %[[IN:.*]] = dsa.alloc : memref<2x10x1xf32, #dsa.memory_space<lb>>
// CHECK: %[[OUT:.*]] = dsa.alloc : memref<2x1x1xi64, #dsa.memory_space<lb>>
// CHECK: %[[LOAD:.*]] = dsa.dma %{{.*}} to %[[IN]]
// CHECK: %[[ARG:.*]] = dsa.argmax %[[IN]] into %[[OUT]] after %[[LOAD]] {axis = 1 : i64}
// CHECK: dsa.dma %[[OUT]] to %{{.*}} after %[[ARG]]
func.func @classes(%scores: tensor<8x10xf32>) -> tensor<8xi64> {
  %c = graph.argmax %scores {axis = 1 : i64, keepdims = false} : tensor<8x10xf32> -> tensor<8xi64>
  return %c : tensor<8xi64>
}

// -----

// Tests a top-k: the scores seen as [outer, axis, inner] = [8, 10, 1], tiles of whole lines
// loaded into an f32 LB tile, dsa.top_k on the vector core into an f32 tile of values and an i64
// tile of indices, each stored.
// CHECK-LABEL: dsa.kernel @best_classes_0_top_k
// CHECK: %[[IN:.*]] = dsa.alloc : memref<2x10x1xf32, #dsa.memory_space<lb>>
// CHECK: %[[VALUES:.*]] = dsa.alloc : memref<2x3x1xf32, #dsa.memory_space<lb>>
// CHECK: %[[INDICES:.*]] = dsa.alloc : memref<2x3x1xi64, #dsa.memory_space<lb>>
// CHECK: %[[LOAD:.*]] = dsa.dma %{{.*}} to %[[IN]]
// CHECK: %[[TOP:.*]] = dsa.top_k %[[IN]] into %[[VALUES]], %[[INDICES]] after %[[LOAD]] {axis = 1 : i64, largest}
// CHECK: dsa.dma %[[VALUES]] to %{{.*}} after %[[TOP]]
// CHECK: dsa.dma %[[INDICES]] to %{{.*}} after %[[TOP]]
func.func @best_classes(%scores: tensor<8x10xf32>) -> (tensor<8x3xf32>, tensor<8x3xi64>) {
  %v, %i = graph.top_k %scores {axis = 1 : i64, k = 3 : i64} : tensor<8x10xf32> -> tensor<8x3xf32>, tensor<8x3xi64>
  return %v, %i : tensor<8x3xf32>, tensor<8x3xi64>
}
