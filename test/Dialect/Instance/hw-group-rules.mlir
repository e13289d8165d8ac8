// RUN: turbine-opt %s --split-input-file --hw-group=target=stcp920 | FileCheck %s
// RUN: turbine-opt %s --split-input-file --verify-diagnostics --hw-group="target=stcp920 explain=true" -o /dev/null
// RUN: turbine-opt %s --split-input-file --hw-group="target=stcp920 scope=lb explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=LB

// Tests that a network without downsampling (three 3x3 convs keeping their shape) groups whole:
// every layer has the same split factor (two instances of four images, each fitting one
// cluster's 8 MiB global buffer), so rule (i) accepts each straight merge.
// CHECK-LABEL: func.func @flat
// CHECK: instance.group "g0"
// CHECK-NOT: instance.group
// With scope=lb an instance must fit the local buffers of one cluster's cores (8 x 56 KiB), so
// the rows split 32 ways: two stacked 3x3 convs still merge, but a third would recompute too much
// of its two-row slices' halos.
// LB: hw-group-rules.mlir:[[# @LINE + 8]]:8: remark: straight merge {{.*}} -> f=32 on dim 2 reaching 2 ops: accepted by rule (i)
// LB: hw-group-rules.mlir:[[# @LINE + 9]]:8: remark: straight merge {{.*}} -> no split fits: refused by the cost check
func.func @flat(%x: tensor<8x48x64x64xf32>) -> tensor<8x48x64x64xf32> {
  %w0 = graph.weight "w0" : tensor<48x48x3x3xf32>
  %w1 = graph.weight "w1" : tensor<48x48x3x3xf32>
  %w2 = graph.weight "w2" : tensor<48x48x3x3xf32>
  %a = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<8x48x64x64xf32>, tensor<48x48x3x3xf32>) -> tensor<8x48x64x64xf32>
  // expected-remark-re @+1 {{straight merge SG1 {conv2d@{{[0-9]+}}} (f=2 on dim 0 reaching 1 ops) + SG2 {conv2d@{{[0-9]+}}} (f=2 on dim 0 reaching 1 ops) -> f=2 on dim 0 reaching 2 ops: accepted by rule (i)}}
  %b = graph.conv2d %a, %w1 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<8x48x64x64xf32>, tensor<48x48x3x3xf32>) -> tensor<8x48x64x64xf32>
  // expected-remark-re @+1 {{straight merge SG1 {conv2d@{{[0-9]+}}, conv2d@{{[0-9]+}}} ({{.*}}) + SG2 {conv2d@{{[0-9]+}}} ({{.*}}) -> f=2 on dim 0 reaching 3 ops: accepted by rule (i)}}
  %c = graph.conv2d %b, %w2 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<8x48x64x64xf32>, tensor<48x48x3x3xf32>) -> tensor<8x48x64x64xf32>
  return %c : tensor<8x48x64x64xf32>
}

// -----

// Tests rule (i)'s first precondition at a downsampling op: the stride-2 conv's output is a
// quarter of its input, its split factor is smaller than its producer's, and merging would
// spread the large factor to it; the two stay apart.
// CHECK-LABEL: func.func @downsampling
// CHECK: instance.group "g0"
// CHECK: instance.group "g1"
func.func @downsampling(%x: tensor<8x64x96x96xf32>) -> tensor<8x64x48x48xf32> {
  %w0 = graph.weight "w0" : tensor<64x64x1x1xf32>
  %w1 = graph.weight "w1" : tensor<64x64x1x1xf32>
  %a = graph.conv2d %x, %w0 : (tensor<8x64x96x96xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x96x96xf32>
  // expected-remark-re @+1 {{straight merge SG1 {conv2d@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) + SG2 {conv2d@{{[0-9]+}}} (f=4 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i): SG2's factor 4 is smaller than SG1's 8}}
  %b = graph.conv2d %a, %w1 {strides = array<i64: 2, 2>} : (tensor<8x64x96x96xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x48x48xf32>
  return %b : tensor<8x64x48x48xf32>
}


// -----

// Tests rule (i) mirrored across an upsampling edge (§3.6): the 2x bilinear upsampling (a
// decoder's, as in FPN or U-Net) quadruples the spatial size, so its split factor is larger than
// the conv's before it; merging would spread that large factor back to the conv, and the mirrored
// precondition refuses.
// CHECK-LABEL: func.func @upsampling
// CHECK: instance.group "g0"
// CHECK: instance.group "g1"
func.func @upsampling(%x: tensor<8x96x64x64xf32>) -> tensor<8x96x128x128xf32> {
  %w = graph.weight "w" : tensor<96x96x1x1xf32>
  %a = graph.conv2d %x, %w : (tensor<8x96x64x64xf32>, tensor<96x96x1x1xf32>) -> tensor<8x96x64x64xf32>
  // expected-remark-re @+1 {{straight merge SG1 {conv2d@{{[0-9]+}}} (f=4 on dim 0 {{.*}}) + SG2 {resize@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i) mirrored for upsampling (§3.6): SG1's factor 4 is smaller than SG2's 8}}
  %b = graph.resize %a {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = #graph<resize_mode linear>} : tensor<8x96x64x64xf32> -> tensor<8x96x128x128xf32>
  return %b : tensor<8x96x128x128xf32>
}

// -----

// Tests that a split reaches through an upsampling op: a decoder's 2x nearest upsampling and the
// 3x3 conv after it (same spatial size, so rule (i) applies unmirrored) merge, and the merged
// group splits the rows of both: a slice of the conv's output rows reads half as many rows of
// the upsampling's input, plus a neighbour.
// CHECK-LABEL: func.func @upsample_then_conv
// CHECK: instance.group "g0"{{.*}}best_split = #instance.split<dim = 2, factor = 2, ops = 2>
// CHECK: graph.resize
// CHECK: graph.conv2d
// CHECK-NOT: instance.group
func.func @upsample_then_conv(%x: tensor<1x80x64x64xf32>) -> tensor<1x80x128x128xf32> {
  %w = graph.weight "w" : tensor<80x80x3x3xf32>
  %u = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x80x64x64xf32> -> tensor<1x80x128x128xf32>
  // expected-remark-re @+1 {{straight merge SG1 {resize@{{[0-9]+}}} (f=1 {{.*}}) + SG2 {conv2d@{{[0-9]+}}} (f=2 on dim 1 {{.*}}) -> f=2 on dim 2 reaching 2 ops: accepted by rule (i)}}
  %y = graph.conv2d %u, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x80x128x128xf32>, tensor<80x80x3x3xf32>) -> tensor<1x80x128x128xf32>
  return %y : tensor<1x80x128x128xf32>
}

// Tests that an op on integer tensors is a group of its own with no split (an empty SplitInfo:
// its kernel keeps its tensors out of the f32 arenas of GraphTurbo's kernels), while the same
// 2 M-element add in f32 (8 MiB live, in place) fits the 8 MiB global buffer whole.
// CHECK-LABEL: func.func @integer_op_alone
// CHECK: instance.group "g0"(%{{.*}}) : (tensor<8x64x64x64xi64>) -> tensor<8x64x64x64xi64> {
// CHECK: instance.group "g1"{{.*}}best_split = #instance.split<dim = 0, factor = 1, ops = 1>{{.*}}tensor<8x64x64x64xf32>
func.func @integer_op_alone(%x: tensor<8x64x64x64xi64>, %y: tensor<8x64x64x64xf32>) -> (tensor<8x64x64x64xi64>, tensor<8x64x64x64xf32>) {
  %a = graph.add %x, %x : tensor<8x64x64x64xi64>, tensor<8x64x64x64xi64> -> tensor<8x64x64x64xi64>
  %b = graph.add %y, %y : tensor<8x64x64x64xf32>, tensor<8x64x64x64xf32> -> tensor<8x64x64x64xf32>
  return %a, %b : tensor<8x64x64x64xi64>, tensor<8x64x64x64xf32>
}

// -----

// Tests the fork merge: a value read by two ops that both end the function (its subsampled copy
// and a convolution, as the batch segment ends before ResNet-50's stage-4 projection cut along
// its channels) has no exit joining the paths, so no pattern of Algorithm 2 applies; the entry
// merges with both under rule (i) (every factor 1 here) into one group with two results.
// CHECK-LABEL: func.func @fork
// CHECK: %[[G:.*]]:2 = instance.group "g0"
// CHECK: graph.conv2d
// CHECK: graph.slice
// CHECK: graph.conv2d
// CHECK: instance.yield
// CHECK-NOT: instance.group
// CHECK: return %[[G]]#1, %[[G]]#0
func.func @fork(%x: tensor<2x48x32x32xf32>) -> (tensor<2x48x16x16xf32>, tensor<2x48x32x32xf32>) {
  %w0 = graph.weight "w0" : tensor<48x48x3x3xf32>
  %w1 = graph.weight "w1" : tensor<48x48x3x3xf32>
  %a = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>} : (tensor<2x48x32x32xf32>, tensor<48x48x3x3xf32>) -> tensor<2x48x32x32xf32>
  // expected-remark-re @+1 {{fork merge of entry {conv2d@{{[0-9]+}}} (f=1 on dim 0 reaching 1 ops) with {slice@{{[0-9]+}}} (f=1 {{.*}}) + {conv2d@{{[0-9]+}}} (f=1 {{.*}}) -> f=1 on dim 0 {{.*}}: accepted by rule (i)}}
  %s = graph.slice %a {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<2x48x32x32xf32> -> tensor<2x48x16x16xf32>
  %b = graph.conv2d %a, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x48x32x32xf32>, tensor<48x48x3x3xf32>) -> tensor<2x48x32x32xf32>
  return %s, %b : tensor<2x48x16x16xf32>, tensor<2x48x32x32xf32>
}

// -----

// Tests rule (i) in a fork merge: the stride-2 branch's factor is smaller than the entry's, so
// merging would spread the entry's large factor to it; the three stay apart.
// CHECK-LABEL: func.func @fork_downsampling
// CHECK: instance.group "g0"
// CHECK: instance.group "g1"
// CHECK: instance.group "g2"
func.func @fork_downsampling(%x: tensor<8x64x96x96xf32>) -> (tensor<8x64x48x48xf32>, tensor<8x64x96x96xf32>) {
  %w0 = graph.weight "w0" : tensor<64x64x1x1xf32>
  %w1 = graph.weight "w1" : tensor<64x64x1x1xf32>
  %w2 = graph.weight "w2" : tensor<64x64x1x1xf32>
  %a = graph.conv2d %x, %w0 : (tensor<8x64x96x96xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x96x96xf32>
  // expected-remark-re @+1 {{fork merge of entry {conv2d@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) with {conv2d@{{[0-9]+}}} (f=4 on dim 0 {{.*}}) + {conv2d@{{[0-9]+}}} (f=8 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i): a branch's factor 4 is smaller than the entry's 8}}
  %b = graph.conv2d %a, %w1 {strides = array<i64: 2, 2>} : (tensor<8x64x96x96xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x48x48xf32>
  %c = graph.conv2d %a, %w2 : (tensor<8x64x96x96xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x96x96xf32>
  return %b, %c : tensor<8x64x48x48xf32>, tensor<8x64x96x96xf32>
}

// -----

// Tests that a function with control flow is left ungrouped (GraphTurbo's lowering does not
// take a loop or a branch), with a remark saying why.
// CHECK-LABEL: func.func @looped
// CHECK-NOT: instance.group
// CHECK: graph.loop
func.func @looped(%n: tensor<i64>, %go: tensor<i1>, %x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %y = graph.relu %x : tensor<8x64xf32>
  // expected-remark@+1 {{@looped is not grouped: 'graph.loop' (control flow) is not grouped yet}}
  %r = graph.loop %n, %go iter_args(%y : tensor<8x64xf32>) -> (tensor<8x64xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<8x64xf32>):
    %w = graph.neg %v : tensor<8x64xf32>
    graph.yield %go, %w : tensor<i1>, tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}
