// RUN: turbine-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// #dsa.target, #dsa.memory_space
//===----------------------------------------------------------------------===//

// Tests that a target has a name.
// expected-error@+1 {{target needs a name}}
module attributes {dsa.target = #dsa.target<name = "", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {}

// -----

// Tests that a target has at least one cluster.
// expected-error@+1 {{target 'stcp920': clusters must be positive, got 0}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 0, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {}

// -----

// Tests that a target's sizes are positive (an LB of no bytes).
// expected-error@+1 {{target 'stcp920': lb_bytes must be positive, got 0}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 0, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {}

// -----

// Tests that a target's bandwidths are positive, down to the last parameter.
// expected-error@+1 {{target 'stcp920': lb_lb_bandwidth must be positive, got -6.400000e+01}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = -64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {}

// -----

// Tests that a target's compute-unit counts may be zero but not negative.
// expected-error@+1 {{target 'stcp920': vector_cores_per_core must not be negative, got -1}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 0, vector_cores_per_core = -1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {}

// -----

// Tests that an unknown memory space is a parse error.
func.func @memory_space_unknown() {
  // expected-error@+2 {{expected ::turbine::dsa::MemorySpace to be one of: lb, gb, ddr}}
  // expected-error@+1 {{failed to parse Dsa_MemorySpaceAttr parameter 'value'}}
  %b = dsa.alloc : memref<64x64xf32, #dsa.memory_space<l2>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.alloc
//===----------------------------------------------------------------------===//

// Tests that a buffer is allocated in a dsa memory space.
func.func @alloc_no_memory_space() {
  // expected-error@+1 {{expects a buffer in a dsa memory space (#dsa.memory_space<lb|gb|ddr>), got 'memref<64x64xf32>'}}
  %b = dsa.alloc : memref<64x64xf32>
  return
}

// -----

// Tests that a DDR buffer has no placement: DDR belongs to no cluster.
func.func @alloc_placed_ddr() {
  // expected-error@+1 {{places a DDR buffer, which belongs to no cluster}}
  %b = dsa.alloc {cluster = 1 : i64} : memref<64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a GB buffer names no core.
func.func @alloc_gb_on_a_core() {
  // expected-error@+1 {{names a 'core' for a GB buffer, which belongs to a cluster}}
  %b = dsa.alloc {cluster = 0 : i64, core = 3 : i64} : memref<64xf32, #dsa.memory_space<gb>>
  return
}

// -----

// Tests that a placement is not negative.
func.func @alloc_negative_cluster() {
  // expected-error@+1 {{places a buffer at a negative cluster or core}}
  %b = dsa.alloc {cluster = -1 : i64} : memref<64xf32, #dsa.memory_space<gb>>
  return
}

// -----

// Tests that a placement names a cluster and a core of the module's target.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @alloc_beyond_the_target() {
    // expected-error@+1 {{places a buffer on cluster 2 but the target has 2 clusters}}
    %b = dsa.alloc {cluster = 2 : i64} : memref<64xf32, #dsa.memory_space<gb>>
    return
  }
  func.func @alloc_beyond_the_cluster() {
    // expected-error@+1 {{places a buffer on core 2 but the target's clusters have 2 cores}}
    %b = dsa.alloc {cluster = 1 : i64, core = 2 : i64} : memref<64xf32, #dsa.memory_space<lb>>
    return
  }
}

// -----

// Tests that a kernel places no buffer: its buffers belong to the running core or cluster.
dsa.kernel @alloc_placed_in_kernel() {
  // expected-error@+1 {{places buffers with 'cluster' and 'core' only on the host: inside a kernel a buffer belongs to the running core or its cluster}}
  %b = dsa.alloc {cluster = 0 : i64} : memref<64xf32, #dsa.memory_space<gb>>
  dsa.return
}

// -----

// Tests that a numeric memory space is not a dsa memory space.
func.func @alloc_numeric_memory_space() {
  // expected-error@+1 {{expects a buffer in a dsa memory space (#dsa.memory_space<lb|gb|ddr>), got 'memref<64x64xf32, 1>'}}
  %b = dsa.alloc : memref<64x64xf32, 1>
  return
}

// -----

// Tests that an allocation has a static shape.
func.func @alloc_dynamic() {
  // expected-error@+1 {{expects a static shape, got 'memref<?x64xf32, #dsa.memory_space<lb>>'}}
  %b = dsa.alloc : memref<?x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that an allocation is contiguous (a tile with padded rows).
func.func @alloc_strided() {
  // expected-error@+1 {{allocates contiguous buffers only, got layout strided<[72, 1]>}}
  %b = dsa.alloc : memref<64x64xf32, strided<[72, 1]>, #dsa.memory_space<lb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.dma
//===----------------------------------------------------------------------===//

// Tests that DMA copies between buffers of dsa memory spaces.
func.func @dma_no_memory_space(%src: memref<64x64xf32>, %dst: memref<64x64xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects buffers in dsa memory spaces, got 'memref<64x64xf32>' and 'memref<64x64xf32, #dsa.memory_space<lb>>'}}
  %t = dsa.dma %src to %dst : memref<64x64xf32>, memref<64x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that DMA converts between float types only.
func.func @dma_element_type(%src: memref<64x64xf32, #dsa.memory_space<ddr>>, %dst: memref<64x64xi32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{copies between element types 'f32' and 'i32'}}
  %t = dsa.dma %src to %dst : memref<64x64xf32, #dsa.memory_space<ddr>>, memref<64x64xi32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that DMA's target has the source's shape (a subview of the wrong
// width).
func.func @dma_shape(%act: memref<64x224xf32, #dsa.memory_space<ddr>>, %dst: memref<64x64xf32, #dsa.memory_space<lb>>) {
  %v = memref.subview %act[0, 0] [64, 32] [1, 1] : memref<64x224xf32, #dsa.memory_space<ddr>> to memref<64x32xf32, strided<[224, 1]>, #dsa.memory_space<ddr>>
  // expected-error@+1 {{target shape [64, 64] does not match the expected [64, 32]}}
  %t = dsa.dma %v to %dst : memref<64x32xf32, strided<[224, 1]>, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a dynamic size prints as '?' in a shape diagnostic.
func.func @dma_dynamic_shape(%src: memref<?x64xf32, #dsa.memory_space<ddr>>, %dst: memref<64x64xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{target shape [64, 64] does not match the expected [?, 64]}}
  %t = dsa.dma %src to %dst : memref<?x64xf32, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that an instruction waits on tokens only.
func.func @dma_after_not_token(%src: memref<64x64xf32, #dsa.memory_space<ddr>>, %dst: memref<64x64xf32, #dsa.memory_space<lb>>, %i: index) {
  // expected-note@-1 {{prior use here}}
  // expected-error@+1 {{use of value '%i' expects different type than prior uses: '!dsa.token' vs 'index'}}
  %t = dsa.dma %src to %dst after %i : memref<64x64xf32, #dsa.memory_space<ddr>>, memref<64x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Compute instructions: operands in LB only
//===----------------------------------------------------------------------===//

// Tests that the matrix engine reads LB only, not a DDR tile.
func.func @matmul_not_lb(%a: memref<32x64xf32, #dsa.memory_space<ddr>>, %b: memref<64x32xf32, #dsa.memory_space<lb>>, %c: memref<32x32xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #0 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<32x64xf32, #dsa.memory_space<ddr>>'}}
  %t = dsa.matmul %a, %b into %c : memref<32x64xf32, #dsa.memory_space<ddr>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a convolution writes LB only, not its cluster's GB.
func.func @conv2d_not_lb(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %w: memref<16x16x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<gb>>) {
  // expected-error@+1 {{operand #2 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<1x16x8x8xf32, #dsa.memory_space<gb>>'}}
  %t = dsa.conv2d %x, %w into %y {pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<gb>>
  return
}

// -----

// Tests that the vector engine reads LB only.
func.func @binary_not_lb(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %b: memref<1x16x1x1xf32, #dsa.memory_space<gb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #1 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<1x16x1x1xf32, #dsa.memory_space<gb>>'}}
  %t = dsa.binary add %x, %b into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<gb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that unary vector operations read LB only.
func.func @unary_not_lb(%x: memref<16x128xf32, #dsa.memory_space<ddr>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #0 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<16x128xf32, #dsa.memory_space<ddr>>'}}
  %t = dsa.unary relu %x into %y : memref<16x128xf32, #dsa.memory_space<ddr>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that pooling writes to LB only, not a plain memref.
func.func @pool_not_lb(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x4x4xf32>) {
  // expected-error@+1 {{operand #1 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<1x16x4x4xf32>'}}
  %t = dsa.pool max %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32>
  return
}

// -----

// Tests that reductions read LB only.
func.func @reduce_not_lb(%s: memref<16x128xf32, #dsa.memory_space<gb>>, %m: memref<16x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #0 must be in #dsa.memory_space<lb>, the only memory compute units read, but has type 'memref<16x128xf32, #dsa.memory_space<gb>>'}}
  %t = dsa.reduce max %s into %m {axis = 1 : i64} : memref<16x128xf32, #dsa.memory_space<gb>>, memref<16x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.matmul, dsa.conv2d
//===----------------------------------------------------------------------===//

// Tests that a matmul's inner dimensions agree.
func.func @matmul_inner(%a: memref<32x64xf32, #dsa.memory_space<lb>>, %b: memref<32x64xf32, #dsa.memory_space<lb>>, %c: memref<32x64xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{inner dimensions differ: [32, 64] x [32, 64]}}
  %t = dsa.matmul %a, %b into %c : memref<32x64xf32, #dsa.memory_space<lb>>, memref<32x64xf32, #dsa.memory_space<lb>>, memref<32x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a matmul's accumulator is [M, N].
func.func @matmul_accumulator(%a: memref<32x64xf32, #dsa.memory_space<lb>>, %b: memref<64x32xf32, #dsa.memory_space<lb>>, %c: memref<32x64xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{accumulator shape [32, 64] does not match the expected [32, 32]}}
  %t = dsa.matmul %a, %b into %c accumulate : memref<32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that the matrix engine multiplies 2-D tiles.
func.func @matmul_rank(%a: memref<1x32x64xf32, #dsa.memory_space<lb>>, %b: memref<64x32xf32, #dsa.memory_space<lb>>, %c: memref<32x32xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects 2-D tiles, got [1, 32, 64] and [64, 32]}}
  %t = dsa.matmul %a, %b into %c : memref<1x32x64xf32, #dsa.memory_space<lb>>, memref<64x32xf32, #dsa.memory_space<lb>>, memref<32x32xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a matmul's tiles are floats (of any widths) or share one element
// type (the token result is not a tile).
func.func @matmul_element_type(%a: memref<32x64xf16, #dsa.memory_space<lb>>, %b: memref<64x32xf16, #dsa.memory_space<lb>>, %c: memref<32x32xi32, #dsa.memory_space<lb>>, %t0: !dsa.token) {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f16' and 'i32'}}
  %t = dsa.matmul %a, %b into %c accumulate after %t0 : memref<32x64xf16, #dsa.memory_space<lb>>, memref<64x32xf16, #dsa.memory_space<lb>>, memref<32x32xi32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a convolution tile's output shape follows from input, filter and
// window, as for graph.conv2d: without pads a 3x3 filter shrinks 8x8 to 6x6.
func.func @conv2d_output(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %w: memref<16x16x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [1, 16, 8, 8] does not match the expected [1, 16, 6, 6]}}
  %t = dsa.conv2d %x, %w into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a convolution tile's groups divide its channels.
func.func @conv2d_groups(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %w: memref<16x1x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects 'groups' (6) to divide both the input channels (16) and the output channels (16)}}
  %t = dsa.conv2d %x, %w into %y {groups = 6 : i64, pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x1x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a convolution tile's window attributes are checked (strides).
func.func @conv2d_strides(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %w: memref<16x16x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x16x4x4xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects 'strides' to have 2 values, got 4}}
  %t = dsa.conv2d %x, %w into %y {strides = array<i64: 1, 1, 2, 2>, pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<16x16x3x3xf32, #dsa.memory_space<lb>>, memref<1x16x4x4xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a convolution tile's buffers are floats or share one element type.
func.func @conv2d_element_type(%x: memref<1x16x8x8xbf16, #dsa.memory_space<lb>>, %w: memref<16x16x3x3xbf16, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xi8, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects one element type for all operands and results, got 'bf16' and 'i8'}}
  %t = dsa.conv2d %x, %w into %y {pads = array<i64: 1, 1, 1, 1>} : memref<1x16x8x8xbf16, #dsa.memory_space<lb>>, memref<16x16x3x3xbf16, #dsa.memory_space<lb>>, memref<1x16x8x8xi8, #dsa.memory_space<lb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.binary, dsa.unary, dsa.pool, dsa.reduce
//===----------------------------------------------------------------------===//

// Tests that a binary operation's operands broadcast (a bias for 8 channels on
// a 16-channel tile).
func.func @binary_broadcast(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %b: memref<1x8x1x1xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand shapes [1, 16, 8, 8] and [1, 8, 1, 1] do not broadcast}}
  %t = dsa.binary add %x, %b into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x8x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a binary operation's output has the broadcast shape.
func.func @binary_output(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %b: memref<1x16x1x1xf32, #dsa.memory_space<lb>>, %y: memref<1x16x1x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [1, 16, 1, 1] does not match the expected [1, 16, 8, 8]}}
  %t = dsa.binary mul %x, %b into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a binary operation's buffers are floats or share one element type.
func.func @binary_element_type(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %b: memref<1x16x1x1xi64, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'i64'}}
  %t = dsa.binary sub %x, %b into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xi64, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that an unknown binary kind is a parse error.
func.func @binary_unknown_kind(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+2 {{expected ::turbine::dsa::BinaryKind to be one of: add, sub, mul, div, max, min, pow}}
  // expected-error@+1 {{failed to parse Dsa_BinaryKindAttr parameter 'value'}}
  %t = dsa.binary fma %x, %x into %y : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that clip needs both min and max.
func.func @unary_clip_without_max(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{'min' and 'max' are required by clip and only by clip}}
  %t = dsa.unary clip %x into %y {min = 0.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that kinds other than clip take no bounds.
func.func @unary_relu_with_max(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{'min' and 'max' are required by clip and only by clip}}
  %t = dsa.unary relu %x into %y {max = 6.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that affine needs both its scale and its shift.
func.func @unary_affine_without_shift(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{'scale' and 'shift' are required by affine and only by affine}}
  %t = dsa.unary affine %x into %y {scale = 2.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that kinds other than affine take no scale.
func.func @unary_relu_with_scale(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{'scale' and 'shift' are required by affine and only by affine}}
  %t = dsa.unary relu %x into %y {scale = 2.0 : f32, shift = 0.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that clip's bounds are ordered.
func.func @unary_clip_bounds(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects min <= max}}
  %t = dsa.unary clip %x into %y {min = 6.0 : f32, max = 0.0 : f32} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a unary operation's output has its input's shape.
func.func @unary_output(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x64xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [16, 64] does not match the expected [16, 128]}}
  %t = dsa.unary exp %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x64xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a unary operation keeps the element type.
func.func @unary_element_type(%x: memref<16x128xf32, #dsa.memory_space<lb>>, %y: memref<16x128xi32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'i32'}}
  %t = dsa.unary copy %x into %y : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x128xi32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a pool tile's output shape follows from its window.
func.func @pool_output(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [1, 16, 8, 8] does not match the expected [1, 16, 4, 4]}}
  %t = dsa.pool max %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a pool window fits in the padded tile.
func.func @pool_window(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x1x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{window of 9 (dilation 1) does not fit in padded height 8}}
  %t = dsa.pool avg %x into %y {kernel = array<i64: 9, 9>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x1x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a pool tile is 4-D NCHW.
func.func @pool_rank(%x: memref<16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<16x4x4xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects a 4-D NCHW input, got shape [16, 8, 8]}}
  %t = dsa.pool max %x into %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<16x8x8xf32, #dsa.memory_space<lb>>, memref<16x4x4xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a pool's pads are not negative.
func.func @pool_pads(%x: memref<1x16x8x8xf32, #dsa.memory_space<lb>>, %y: memref<1x16x8x8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects every value of 'pads' to be at least 0, got [1, 1, -1, -1]}}
  %t = dsa.pool avg %x into %y {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, -1, -1>} : memref<1x16x8x8xf32, #dsa.memory_space<lb>>, memref<1x16x8x8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a reduction keeps the reduced axis as size 1.
func.func @reduce_output(%s: memref<16x128xf32, #dsa.memory_space<lb>>, %m: memref<16xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [16] does not match the expected [16, 1]}}
  %t = dsa.reduce sum %s into %m {axis = 1 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a reduction's axis is within the tile's rank.
func.func @reduce_axis(%s: memref<16x128xf32, #dsa.memory_space<lb>>, %m: memref<16x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %t = dsa.reduce max %s into %m {axis = 2 : i64} : memref<16x128xf32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a reduction computes on floats.
func.func @reduce_element_type(%s: memref<16x128xi32, #dsa.memory_space<lb>>, %m: memref<16x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects one element type for all operands and results, got 'i32' and 'f32'}}
  %t = dsa.reduce mean %s into %m {axis = 1 : i64} : memref<16x128xi32, #dsa.memory_space<lb>>, memref<16x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.kernel, dsa.return, dsa.core_id, dsa.cluster_id, dsa.barrier
//===----------------------------------------------------------------------===//

// Tests that a kernel returns nothing.
// expected-error@+1 {{returns nothing: kernels write their results into buffers}}
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) -> index {
  dsa.return
}

// -----

// Tests that a kernel has a body.
// expected-error@+1 {{expects a body}}
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>)

// -----

// Tests that a kernel takes buffers and scalars, not graph tensors.
// expected-error@+1 {{argument #1 must be a buffer or a scalar, got 'tensor<8x64xf32>'}}
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>, %y: tensor<8x64xf32>) {
  dsa.return
}

// -----

// Tests that a kernel takes no tokens: instructions do not wait across cores.
// expected-error@+1 {{argument #0 must be a buffer or a scalar, got '!dsa.token'}}
dsa.kernel @relu(%t: !dsa.token) {
  dsa.return
}

// -----

// Tests that dsa.return only ends a kernel.
func.func @return_outside() {
  // expected-error@+1 {{expects parent op 'dsa.kernel'}}
  dsa.return
}

// -----

// Tests that dsa.core_id is only valid inside a kernel.
func.func @core_id_outside() -> index {
  // expected-error@+1 {{is only valid inside a dsa.kernel}}
  %id = dsa.core_id : index
  return %id : index
}

// -----

// Tests that dsa.cluster_id is only valid inside a kernel.
func.func @cluster_id_outside() -> index {
  // expected-error@+1 {{is only valid inside a dsa.kernel}}
  %id = dsa.cluster_id : index
  return %id : index
}

// -----

// Tests that dsa.barrier is only valid inside a kernel.
func.func @barrier_outside() {
  // expected-error@+1 {{is only valid inside a dsa.kernel}}
  dsa.barrier
  return
}

// -----

// Tests that dsa.core_id is an index.
dsa.kernel @core_id_type() {
  // expected-error@+1 {{invalid kind of type specified: expected builtin.index, but found 'i32'}}
  %id = dsa.core_id : i32
  dsa.return
}

// -----

//===----------------------------------------------------------------------===//
// dsa.launch
//===----------------------------------------------------------------------===//

// Tests that a launch names only cores that exist on the module's target: the
// stcp920 has 4 clusters of 8 cores, numbered 0 to 31.
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50>} {
  dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
    dsa.return
  }
  func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
    // expected-error@+1 {{core 32 does not exist on target 'stcp920', which has 32 cores (4 clusters of 8)}}
    dsa.launch @relu(%x) on [24, 28, 32] : memref<8x64xf32, #dsa.memory_space<ddr>>
    return
  }
}

// -----

// Tests that the target of an enclosing module applies to launches in nested
// modules too.
module attributes {dsa.target = #dsa.target<name = "tiny", clusters = 1, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 1048576, ddr_bytes = 1073741824, clock_mhz = 500, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  module {
    dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
      dsa.return
    }
    func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
      // expected-error@+1 {{core 2 does not exist on target 'tiny', which has 2 cores (1 clusters of 2)}}
      dsa.launch @relu(%x) on [0, 1, 2, 3] : memref<8x64xf32, #dsa.memory_space<ddr>>
      return
    }
  }
}

// -----

// Tests that a launch runs a dsa.kernel, not a host function.
// expected-note@+1 {{symbol defined here}}
func.func @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{'@relu' does not reference a dsa.kernel but a 'func.func'}}
  dsa.launch @relu(%x) on [0, 1, 2, 3] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a launch's kernel exists.
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{'@relu' does not reference a dsa.kernel: no such symbol}}
  dsa.launch @relu(%x) on [0, 1, 2, 3] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a launch passes the kernel's argument types (a GB buffer where
// the kernel takes DDR), with a note at the kernel.
// expected-note@+1 {{kernel defined here}}
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  dsa.return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<gb>>) {
  // expected-error@+1 {{passes ('memref<8x64xf32, #dsa.memory_space<gb>>') but @relu takes ('memref<8x64xf32, #dsa.memory_space<ddr>>')}}
  dsa.launch @relu(%x) on [0, 1, 2, 3] : memref<8x64xf32, #dsa.memory_space<gb>>
  return
}

// -----

// Tests that a launch passes as many arguments as the kernel takes.
// expected-note@+1 {{kernel defined here}}
dsa.kernel @scale(%x: memref<8x64xf32, #dsa.memory_space<ddr>>, %s: f32) {
  dsa.return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{passes ('memref<8x64xf32, #dsa.memory_space<ddr>>') but @scale takes ('memref<8x64xf32, #dsa.memory_space<ddr>>', 'f32')}}
  dsa.launch @scale(%x) on [0] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a launch runs on at least one core.
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  dsa.return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{expects at least one core}}
  dsa.launch @relu(%x) on [] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that core numbers are not negative.
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  dsa.return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{core -1 does not exist}}
  dsa.launch @relu(%x) on [-1, 0, 1, 2] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a launch names each core once.
dsa.kernel @relu(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  dsa.return
}
func.func @main(%x: memref<8x64xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{names core 3 twice}}
  dsa.launch @relu(%x) on [0, 1, 2, 3, 3] : memref<8x64xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a target's matrix throughput may be zero (no matrix engine) but not negative.
// expected-error@+1 {{target 'stcp920': matrix_flops must not be negative, got -5.120000e+02}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = -512, dma_setup = 100, compute_setup = 16, barrier = 50>} {}

// -----

// Tests that a target's latencies are not negative.
// expected-error@+1 {{target 'stcp920': dma_setup must not be negative, got -100}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = -100, compute_setup = 16, barrier = 50>} {}

// -----

// expected-error@+1 {{target 'stcp920': kernel_launch must not be negative, got -2000}}
module attributes {dsa.target = #dsa.target<name = "stcp920", clusters = 4, cores_per_cluster = 8, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 65536, gb_bytes = 8388608, ddr_bytes = 17179869184, clock_mhz = 1000, ddr_gb_bandwidth = 64, gb_lb_bandwidth = 128, lb_lb_bandwidth = 64, matrix_flops = 512, dma_setup = 100, compute_setup = 16, barrier = 50, kernel_launch = -2000>} {}

// -----

// Tests that a gather keeps the table's element type.
func.func @gather_other_element(%t: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<3xi64, #dsa.memory_space<lb>>, %r: memref<3x4xi32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{gathers 'f32' elements into 'i32' elements}}
  %t0 = dsa.gather %t[%i] to %r {axis = 0 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<3xi64, #dsa.memory_space<lb>>, memref<3x4xi32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a gather's indices are i64 or i32.
func.func @gather_float_indices(%t: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<3xf32, #dsa.memory_space<lb>>, %r: memref<3x4xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{expects i64 or i32 indices, got 'f32'}}
  %t0 = dsa.gather %t[%i] to %r {axis = 0 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<3xf32, #dsa.memory_space<lb>>, memref<3x4xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a gather's axis is a dimension of the table.
func.func @gather_axis(%t: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<3xi64, #dsa.memory_space<lb>>, %r: memref<3x4xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %t0 = dsa.gather %t[%i] to %r {axis = 2 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<3xi64, #dsa.memory_space<lb>>, memref<3x4xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a gather's target has one slice per index along the axis.
func.func @gather_shape(%t: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<2x3xi64, #dsa.memory_space<lb>>, %r: memref<8x3xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{target shape [8, 3] does not match the expected [8, 6]}}
  %t0 = dsa.gather %t[%i] to %r {axis = 1 : i64} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<2x3xi64, #dsa.memory_space<lb>>, memref<8x3xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a conversion keeps the shape.
func.func @convert_shape(%a: memref<4x2xi64, #dsa.memory_space<lb>>, %b: memref<8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [8] does not match the expected [4, 2]}}
  %t0 = dsa.convert %a into %b : memref<4x2xi64, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a conversion runs on the vector unit, in LB.
func.func @convert_in_ddr(%a: memref<8xi64, #dsa.memory_space<ddr>>, %b: memref<8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #0 must be in #dsa.memory_space<lb>}}
  %t0 = dsa.convert %a into %b : memref<8xi64, #dsa.memory_space<ddr>>, memref<8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a comparison compares one element type.
func.func @compare_mixed(%a: memref<8xf32, #dsa.memory_space<lb>>, %b: memref<8xi64, #dsa.memory_space<lb>>, %m: memref<8xi1, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{compares 'f32' with 'i64'}}
  %t = dsa.compare lt %a, %b into %m : memref<8xf32, #dsa.memory_space<lb>>, memref<8xi64, #dsa.memory_space<lb>>, memref<8xi1, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a comparison writes booleans.
func.func @compare_into_floats(%a: memref<8xf32, #dsa.memory_space<lb>>, %b: memref<8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects an i1 output, got 'f32'}}
  %t = dsa.compare lt %a, %b into %b : memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a comparison's operands have one shape.
func.func @compare_shapes(%a: memref<8xf32, #dsa.memory_space<lb>>, %b: memref<4xf32, #dsa.memory_space<lb>>, %m: memref<8xi1, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{rhs shape [4] does not match the expected [8]}}
  %t = dsa.compare lt %a, %b into %m : memref<8xf32, #dsa.memory_space<lb>>, memref<4xf32, #dsa.memory_space<lb>>, memref<8xi1, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a selection's condition is boolean.
func.func @select_condition(%c: memref<8xf32, #dsa.memory_space<lb>>, %a: memref<8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{expects an i1 condition, got 'f32'}}
  %t = dsa.select %c, %a, %a into %a : memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a selection keeps its inputs' element type.
func.func @select_element(%c: memref<8xi1, #dsa.memory_space<lb>>, %a: memref<8xf32, #dsa.memory_space<lb>>, %o: memref<8xi64, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{selects 'f32' elements into 'i64' elements}}
  %t = dsa.select %c, %a, %a into %o : memref<8xi1, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xi64, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a selection's operands have the output's shape.
func.func @select_shapes(%c: memref<4xi1, #dsa.memory_space<lb>>, %a: memref<8xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{condition shape [4] does not match the expected [8]}}
  %t = dsa.select %c, %a, %a into %a : memref<4xi1, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that comparisons run on the vector unit, in LB.
func.func @compare_in_gb(%a: memref<8xf32, #dsa.memory_space<gb>>, %m: memref<8xi1, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{operand #0 must be in #dsa.memory_space<lb>}}
  %t = dsa.compare lt %a, %a into %m : memref<8xf32, #dsa.memory_space<gb>>, memref<8xf32, #dsa.memory_space<gb>>, memref<8xi1, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a gather of elements writes the indices' shape.
func.func @gather_elements_target(%d: memref<4x8xf32, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x3xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{target shape [4, 3] does not match the expected [4, 2]}}
  %t0 = dsa.gather_elements %d[%i] to %t {axis = 1 : i64} : memref<4x8xf32, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x3xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a gather of elements' indices have the data's shape but along the axis.
func.func @gather_elements_indices(%d: memref<4x8xf32, #dsa.memory_space<ddr>>, %i: memref<3x2xi64, #dsa.memory_space<ddr>>, %t: memref<3x2xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{indices shape [3, 2] does not match the expected [4, 2]}}
  %t0 = dsa.gather_elements %d[%i] to %t {axis = 1 : i64} : memref<4x8xf32, #dsa.memory_space<ddr>>, memref<3x2xi64, #dsa.memory_space<ddr>>, memref<3x2xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a gather of elements keeps the data's element type.
func.func @gather_elements_type(%d: memref<4x8xf32, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x2xi64, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{gathers 'f32' elements into 'i64' elements}}
  %t0 = dsa.gather_elements %d[%i] to %t {axis = 1 : i64} : memref<4x8xf32, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a scatter of elements writes into the indices' shape but along the axis.
func.func @scatter_elements_target(%u: memref<4x2xf32, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<3x8xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{target shape [3, 8] does not match the expected [4, 8]}}
  %t0 = dsa.scatter_elements %u[%i] into %t {axis = 1 : i64} : memref<4x2xf32, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<3x8xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a scatter of elements' updates have the indices' shape.
func.func @scatter_elements_updates(%u: memref<4x3xf32, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x8xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{updates shape [4, 3] does not match the expected [4, 2]}}
  %t0 = dsa.scatter_elements %u[%i] into %t {axis = 1 : i64} : memref<4x3xf32, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x8xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a scatter of elements keeps the target's element type.
func.func @scatter_elements_type(%u: memref<4x2xi64, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x8xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{scatters 'i64' elements into 'f32' elements}}
  %t0 = dsa.scatter_elements %u[%i] into %t {axis = 1 : i64} : memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x8xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a scatter reduces by add, mul, max or min only.
func.func @scatter_elements_divides(%u: memref<4x2xf32, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x8xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{reduces by add, mul, max or min, not div}}
  %t0 = dsa.scatter_elements %u[%i] into %t {axis = 1 : i64, reduction = #dsa<binary div>} : memref<4x2xf32, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x8xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a scatter's reduction combines numbers only.
func.func @scatter_elements_boolean(%u: memref<4x2xi1, #dsa.memory_space<ddr>>, %i: memref<4x2xi64, #dsa.memory_space<ddr>>, %t: memref<4x8xi1, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{reduction max combines float, i64 or i32 elements, not 'i1'}}
  %t0 = dsa.scatter_elements %u[%i] into %t {axis = 1 : i64, reduction = #dsa<binary max>} : memref<4x2xi1, #dsa.memory_space<ddr>>, memref<4x2xi64, #dsa.memory_space<ddr>>, memref<4x8xi1, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that an arg reduction writes i64 indices.
func.func @argmax_into_floats(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %c: memref<8x1xf32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{reads floats into i64, not 'f32' into 'f32'}}
  %t = dsa.argmax %s into %c {axis = 1 : i64} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x1xf32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that an arg reduction keeps the axis as extent 1.
func.func @argmin_shape(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %c: memref<8xi64, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{output shape [8] does not match the expected [8, 1]}}
  %t = dsa.argmin %s into %c {axis = 1 : i64} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8xi64, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a top-k writes f32 values and i64 indices.
func.func @top_k_types(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %v: memref<8x3xf32, #dsa.memory_space<lb>>, %i: memref<8x3xi32, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{reads floats into float values and i64 indices, not 'f32' into 'f32' and 'i32'}}
  %t = dsa.top_k %s into %v, %i {axis = 1 : i64, largest} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x3xf32, #dsa.memory_space<lb>>, memref<8x3xi32, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a top-k picks no more elements than a line has.
func.func @top_k_too_many(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %v: memref<8x12xf32, #dsa.memory_space<lb>>, %i: memref<8x12xi64, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{picks 12 of the 10 elements of each line along axis 1}}
  %t = dsa.top_k %s into %v, %i {axis = -1 : i64} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x12xf32, #dsa.memory_space<lb>>, memref<8x12xi64, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a top-k's indices have the values' shape.
func.func @top_k_shape(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %v: memref<8x3xf32, #dsa.memory_space<lb>>, %i: memref<8x2xi64, #dsa.memory_space<lb>>) {
  // expected-error@+1 {{indices shape [8, 2] does not match the expected [8, 3]}}
  %t = dsa.top_k %s into %v, %i {axis = 1 : i64} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x3xf32, #dsa.memory_space<lb>>, memref<8x2xi64, #dsa.memory_space<lb>>
  return
}

// -----

// Tests that a condition is read from a one-element buffer.
func.func @read_scalar_of_a_vector(%c: memref<4xi1, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{must be a one-element memref of integers or booleans}}
  %v = dsa.read_scalar %c : memref<4xi1, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that a condition is an integer or a boolean, not a float.
func.func @read_scalar_of_a_float(%c: memref<1xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{must be a one-element memref of integers or booleans}}
  %v = dsa.read_scalar %c : memref<1xf32, #dsa.memory_space<ddr>>
  return
}

// -----

// Tests that control flow between launches is not an instruction of a core.
dsa.kernel @reads(%c: memref<1xi1, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{is control flow between launches and cannot be inside a dsa.kernel}}
  %v = dsa.read_scalar %c : memref<1xi1, #dsa.memory_space<ddr>>
  dsa.return
}

// -----

// Tests that persistent regions do not nest in the IR: their launches are already steps of
// one persistent kernel.
func.func @nested_persistent() {
  dsa.persistent {
    // expected-error@+1 {{cannot be nested in another dsa.persistent}}
    dsa.persistent {
      dsa.yield
    }
    dsa.yield
  }
  return
}

// -----

// Tests that a persistent region yields its results' types.
func.func @persistent_yield(%a: memref<4xf32, #dsa.memory_space<ddr>>) {
  // expected-error@+1 {{yields () but its results are ('memref<4xf32, #dsa.memory_space<ddr>>')}}
  %r = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
    dsa.yield
  }
  return
}
