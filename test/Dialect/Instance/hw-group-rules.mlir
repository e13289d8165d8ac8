// RUN: turbine-opt %s --split-input-file --hw-group=target=stcp920 | FileCheck %s
// RUN: turbine-opt %s --split-input-file --hw-group="target=stcp920 explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

// Tests that a network without downsampling (three 3x3 convs keeping their shape) groups whole:
// every layer has the same split factor, so rule (i) accepts each straight merge.
// CHECK-LABEL: func.func @flat
// CHECK: instance.group "g0"
// CHECK-NOT: instance.group
// EXPLAIN: @flat: straight merge {{.*}} accepted by rule (i)
func.func @flat(%x: tensor<1x32x32x32xf32>) -> tensor<1x32x32x32xf32> {
  %w0 = graph.weight "w0" : tensor<32x32x3x3xf32>
  %w1 = graph.weight "w1" : tensor<32x32x3x3xf32>
  %w2 = graph.weight "w2" : tensor<32x32x3x3xf32>
  %a = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<1x32x32x32xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x32x32xf32>
  %b = graph.conv2d %a, %w1 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<1x32x32x32xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x32x32xf32>
  %c = graph.conv2d %b, %w2 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<1x32x32x32xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x32x32xf32>
  return %c : tensor<1x32x32x32xf32>
}

// -----

// Tests rule (i)'s first precondition at a downsampling op: the stride-2 conv's output is a
// quarter of its input, its split factor is smaller than its producer's, and merging would
// spread the large factor to it; the two stay apart.
// CHECK-LABEL: func.func @downsampling
// CHECK: instance.group "g0"
// CHECK: instance.group "g1"
// EXPLAIN: @downsampling: straight merge SG1 {conv2d@{{[0-9]+}}} (f=16 on dim 1 {{.*}}) + SG2 {conv2d@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i): SG2's factor 8 is smaller than SG1's 16
func.func @downsampling(%x: tensor<8x64x64x64xf32>) -> tensor<8x64x32x32xf32> {
  %w0 = graph.weight "w0" : tensor<64x64x1x1xf32>
  %w1 = graph.weight "w1" : tensor<64x64x1x1xf32>
  %a = graph.conv2d %x, %w0 : (tensor<8x64x64x64xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x64x64xf32>
  %b = graph.conv2d %a, %w1 {strides = array<i64: 2, 2>} : (tensor<8x64x64x64xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x32x32xf32>
  return %b : tensor<8x64x32x32xf32>
}


// -----

// Tests rule (i) mirrored across an upsampling edge (§3.6): the padding quadruples the spatial
// size, so its split factor is larger than the conv's before it; merging would spread that large
// factor back to the conv, and the mirrored precondition refuses.
// CHECK-LABEL: func.func @upsampling
// CHECK: instance.group "g0"
// CHECK: instance.group "g1"
// EXPLAIN: @upsampling: straight merge SG1 {conv2d@{{[0-9]+}}} (f=4 on dim 0 {{.*}}) + SG2 {pad@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i) mirrored for upsampling (§3.6): SG1's factor 4 is smaller than SG2's 8
func.func @upsampling(%x: tensor<8x64x32x32xf32>) -> tensor<8x64x64x64xf32> {
  %w = graph.weight "w" : tensor<64x64x1x1xf32>
  %a = graph.conv2d %x, %w : (tensor<8x64x32x32xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x32x32xf32>
  %b = graph.pad %a {pads = array<i64: 0, 0, 16, 16, 0, 0, 16, 16>} : tensor<8x64x32x32xf32> -> tensor<8x64x64x64xf32>
  return %b : tensor<8x64x64x64xf32>
}
