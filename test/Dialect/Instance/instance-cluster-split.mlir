// Tests of instance-cluster-split (the data parallelism across clusters of GraphTurbo §2, §5.1):
// the function's body becomes one cluster's program on its share of the data.
// RUN: turbine-opt %s --split-input-file --instance-cluster-split=target=stcp920 | FileCheck %s
// RUN: turbine-opt %s --split-input-file --instance-cluster-split="target=stcp920 explain=true" --verify-diagnostics -o /dev/null
// RUN: turbine-opt %s --split-input-file --instance-cluster-split="target=stcp920 channel-cut=false" | FileCheck %s --check-prefix=NOCUT
// RUN: turbine-opt %s --split-input-file --instance-cluster-split="target=stcp920" --hw-group=target=stcp920 --instance-split --instance-order | FileCheck %s --check-prefix=SCHEDULE

// Tests that a batch of 8 is cut into 4 shares of 2 images: the image and the result are cut
// along dimension 0, the weights are read whole by every cluster, and the body has one
// cluster's types; the locations of the ops stay theirs.
// CHECK-LABEL: func.func @batch
// CHECK:         %[[C:.*]] = instance.clusters 4(%{{.*}}) split [0] -> [0] : (tensor<8x4x8x8xf32>) -> tensor<8x8x4x4xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x4x8x8xf32>):
// CHECK-NEXT:      %[[W:.*]] = graph.weight "w" : tensor<8x4x3x3xf32>
// CHECK-NEXT:      %[[Y:.*]] = graph.conv2d %[[X]], %[[W]] {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x8x8xf32>
// CHECK-NEXT:      %[[P:.*]] = graph.max_pool2d %[[Y]] {{.*}} : tensor<2x8x8x8xf32> -> tensor<2x8x4x4xf32>
// CHECK-NEXT:      instance.yield %[[P]] : tensor<2x8x4x4xf32>
// CHECK:         return %[[C]]
// Tests that the scheduling passes plan the cluster's body: the group of conv and pool, of one
// cluster's two images, fits stcp920's global buffer whole and becomes one instance inside it.
// SCHEDULE-LABEL: func.func @batch
// SCHEDULE:         instance.clusters 4
// SCHEDULE:           instance.instance "g0"[0 of 1 along 0] (%{{.*}}) {order = 0 : i64} : (tensor<2x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<2x8x4x4xf32>
// SCHEDULE:             instance.yield %{{.*}} : tensor<2x8x4x4xf32>
// SCHEDULE-NEXT:      }
// SCHEDULE-NEXT:      instance.yield
// SCHEDULE-NEXT:    }
// SCHEDULE-NEXT:    return
// The remark also gives what the cut costs in weight traffic: each cluster reads the 1152 bytes of
// the filter from DDR (36 cycles at 32 bytes per cycle) for the 73,728 flops of its two images
// (18 cycles on eight 512-flop matrix engines): the layer is bound by its weights.
// expected-remark@+1 {{@batch spread over 4 of 4 clusters along dimension 0 of the result [8, 8, 4, 4], 2 per cluster; each cluster reads 1152 bytes of weights from DDR (36 cycles of its port) for 18 cycles of matrix work, and layer by layer the larger of the two sums to 36 cycles}}
func.func @batch(%x: tensor<8x4x8x8xf32>) -> tensor<8x8x4x4xf32> {
  %w = graph.weight "w" : tensor<8x4x3x3xf32>
  %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<8x8x8x8xf32>
  %p = graph.max_pool2d %y {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<8x8x8x8xf32> -> tensor<8x8x4x4xf32>
  return %p : tensor<8x8x4x4xf32>
}

// -----

// Tests that a batch of 6 uses 3 clusters (the largest count up to 4 that divides it), and that
// a second result is cut along its own batch dimension. The columns would use 4 clusters but
// each would read other columns of the weight: refused.
// CHECK-LABEL: func.func @six
// CHECK:         instance.clusters 3(%{{.*}}) split [0] -> [0, 0] : (tensor<6x16xf32>) -> (tensor<6x16xf32>, tensor<6x16xf32>) {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<2x16xf32>):
// expected-remark@+1 {{@six spread over 3 of 4 clusters along dimension 0 of the result [6, 16], 2 per cluster; each cluster reads 1024 bytes of weights from DDR (32 cycles of its port) for 0 cycles of matrix work, and layer by layer the larger of the two sums to 32 cycles; refused: dimension 1 into 4: 'graph.matmul' would differ from cluster to cluster (the clusters would compute 0% more)}}
func.func @six(%x: tensor<6x16xf32>) -> (tensor<6x16xf32>, tensor<6x16xf32>) {
  %w = graph.weight "w" : tensor<16x16xf32>
  %m = graph.matmul %x, %w : tensor<6x16xf32>, tensor<16x16xf32> -> tensor<6x16xf32>
  %t = graph.tanh %x : tensor<6x16xf32>
  return %m, %t : tensor<6x16xf32>, tensor<6x16xf32>
}

// -----

// Tests the batch-1 CNN: the channels of the result would need every cluster to compute the first
// conv whole (the second reads all its channels), so it runs on one cluster; the body moves
// unchanged.
// CHECK-LABEL: func.func @one_image
// CHECK:         instance.clusters 1(%{{.*}}) split [-1] -> [-1] : (tensor<1x4x8x8xf32>) -> tensor<1x8xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<1x4x8x8xf32>):
// CHECK-NEXT:      graph.weight "w"
// CHECK-NEXT:      graph.conv2d %[[X]]
// expected-remark@+1 {{@one_image runs on one cluster of 4: no dimension of the result [1, 8] separates over the clusters; refused: dimension 1 into 4: every cluster would compute 'graph.conv2d' whole (the clusters would compute 148% more)}}
func.func @one_image(%x: tensor<1x4x8x8xf32>) -> tensor<1x8xf32> {
  %w = graph.weight "w" : tensor<8x4x3x3xf32>
  %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x8x8xf32>
  %v = graph.weight "v" : tensor<8x8x1x1xf32>
  %z = graph.conv2d %y, %v : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x8x8xf32>
  %g = graph.global_avg_pool %z : tensor<1x8x8x8xf32> -> tensor<1x8x1x1xf32>
  %f = graph.flatten %g {axis = 1 : i64} : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
  return %f : tensor<1x8xf32>
}

// -----

// Tests the next splittable dimension: a batch of 1 of a per-token MLP is cut along its tokens,
// which no op mixes.
// CHECK-LABEL: func.func @tokens
// CHECK:         instance.clusters 4(%{{.*}}) split [1] -> [1] : (tensor<1x128x64xf32>) -> tensor<1x128x32xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x32x64xf32>):
// expected-remark@+1 {{@tokens spread over 4 of 4 clusters along dimension 1 of the result [1, 128, 32], 32 per cluster}}
func.func @tokens(%x: tensor<1x128x64xf32>) -> tensor<1x128x32xf32> {
  %w = graph.weight "w" : tensor<64x32xf32>
  %y = graph.batch_matmul %x, %w : tensor<1x128x64xf32>, tensor<64x32xf32> -> tensor<1x128x32xf32>
  %r = graph.relu %y : tensor<1x128x32xf32>
  return %r : tensor<1x128x32xf32>
}

// -----

// Tests self-attention at batch 1: every query row reads the keys of all tokens, which come from
// the whole input, so the tokens do not separate and it runs on one cluster.
// CHECK-LABEL: func.func @attention
// CHECK:         instance.clusters 1
// expected-remark@+1 {{@attention runs on one cluster of 4: no dimension of the result [1, 16, 16] separates over the clusters; refused: dimension 1 into 4: every cluster would compute 'graph.transpose' whole}}
func.func @attention(%x: tensor<1x16x8xf32>) -> tensor<1x16x16xf32> {
  %k = graph.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<1x16x8xf32> -> tensor<1x8x16xf32>
  %s = graph.batch_matmul %x, %k : tensor<1x16x8xf32>, tensor<1x8x16xf32> -> tensor<1x16x16xf32>
  %p = graph.softmax %s {axis = -1 : i64} : tensor<1x16x16xf32>
  return %p : tensor<1x16x16xf32>
}

// -----

// Tests a function that returns one of its arguments beside its result, on one cluster: the
// yield passes the block's argument through (not the function's, which the region cannot see).
// CHECK-LABEL: func.func @passes_an_argument_through
// CHECK:         instance.clusters 1(%{{.*}}, %{{.*}}) split [-1, -1] -> [-1, -1]
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<4x1xf32>, %[[Y:.*]]: tensor<4x1xf32>):
// CHECK-NEXT:      %[[S:.*]] = graph.softmax %[[X]]
// CHECK-NEXT:      instance.yield %[[S]], %[[Y]] : tensor<4x1xf32>, tensor<4x1xf32>
// expected-remark@+1 {{@passes_an_argument_through runs on one cluster of 4: no dimension of the result [4, 1] separates over the clusters; refused: dimension 0 into 4: every cluster would compute 'graph.softmax' whole (the clusters would compute 300% more)}}
func.func @passes_an_argument_through(%x: tensor<4x1xf32>, %y: tensor<4x1xf32>) -> (tensor<4x1xf32>, tensor<4x1xf32>) {
  %s = graph.softmax %x {axis = 0 : i64} : tensor<4x1xf32>
  return %s, %y : tensor<4x1xf32>, tensor<4x1xf32>
}

// -----

// Tests the channel cut of a weight-bound layer: at 2 images per cluster the classifier reads a
// 1 MiB weight for 16 k flops, so it takes a segment of its own cut along its output channels
// (each cluster reads a quarter of the weight and the whole input, and computes a quarter of the
// classes with the relu fused after it), between segments cut along the batch; the weight and
// bias are operands cut along dimension 0, and the sigmoid crosses the classifier's segment.
// CHECK-LABEL: func.func @classifier
// CHECK-DAG:     %[[W:.*]] = graph.weight "fc.w" : tensor<1024x256xf32>
// CHECK-DAG:     %[[B:.*]] = graph.weight "fc.b" : tensor<1024xf32>
// CHECK:         %[[A:.*]]:2 = instance.clusters 4(%{{.*}}, %{{.*}}) split [0, 0] -> [0, 0] : (tensor<8x256xf32>, tensor<8x1024xf32>) -> (tensor<8x1024xf32>, tensor<8x256xf32>) {
// CHECK:         %[[L:.*]] = instance.clusters 4(%[[A]]#1, %[[W]], %[[B]]) split [-1, 0, 0] -> [1] : (tensor<8x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<8x1024xf32> {
// CHECK-NEXT:    ^bb0(%[[T:.*]]: tensor<8x256xf32>, %[[WS:.*]]: tensor<256x256xf32>, %[[BS:.*]]: tensor<256xf32>):
// CHECK-NEXT:      %[[Y:.*]] = graph.gemm %[[T]], %[[WS]], %[[BS]] {trans_b = true} : (tensor<8x256xf32>, tensor<256x256xf32>, tensor<256xf32>) -> tensor<8x256xf32>
// CHECK-NEXT:      %[[R:.*]] = graph.relu %[[Y]] : tensor<8x256xf32>
// CHECK-NEXT:      instance.yield %[[R]] : tensor<8x256xf32>
// CHECK:         %[[O:.*]] = instance.clusters 4(%[[L]], %[[A]]#0) split [0, 0] -> [0] : (tensor<8x1024xf32>, tensor<8x1024xf32>) -> tensor<8x1024xf32> {
// CHECK:           graph.softmax %{{.*}} : tensor<2x1024xf32>
// CHECK:         return %[[O]]
// With channel-cut=false the whole function is one batch segment.
// NOCUT-LABEL: func.func @classifier
// NOCUT-COUNT-1: instance.clusters 4
// NOCUT-NOT:     instance.clusters
// expected-remark@+1 {{@classifier spread over 4 of 4 clusters along dimension 0 of the result [8, 1024], 2 per cluster}}
func.func @classifier(%x: tensor<8x256xf32>, %z: tensor<8x1024xf32>) -> tensor<8x1024xf32> {
  %t = graph.tanh %x : tensor<8x256xf32>
  %u = graph.sigmoid %z : tensor<8x1024xf32>
  %w = graph.weight "fc.w" : tensor<1024x256xf32>
  %b = graph.weight "fc.b" : tensor<1024xf32>
  // expected-remark@+1 {{'graph.gemm' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 13056 cycles per cluster, against 32896 with the batch cut (its weights over the DDR port)}}
  %y = graph.gemm %t, %w, %b {trans_b = true} : (tensor<8x256xf32>, tensor<1024x256xf32>, tensor<1024xf32>) -> tensor<8x1024xf32>
  %r = graph.relu %y : tensor<8x1024xf32>
  %s = graph.softmax %r {axis = -1 : i64} : tensor<8x1024xf32>
  %o = graph.add %s, %u : tensor<8x1024xf32>, tensor<8x1024xf32> -> tensor<8x1024xf32>
  return %o : tensor<8x1024xf32>
}

// -----

// Tests the channel cut of a function that runs on one cluster (batch 1): each 3x3 convolution
// spreads over the 4 clusters. The first two form a run of channel segments that hand over to
// each other through DDR (no segment between them); the pooling between the second and the third
// is a segment of its own, cut along the channels (each is pooled alone; the function's result has
// no dimension that separates it, the segment's has), so the third is a run of its own. The first's
// estimate carries the run's entry (the one-cluster program would write its input to DDR), the
// second's its exit (the pooling reads it back and loses the DDR port's idle time), the third
// both.
// CHECK-LABEL: func.func @one_cluster
// NOCUT-LABEL: func.func @one_cluster
// CHECK:         %[[A:.*]] = instance.clusters 4(%{{.*}}, %{{.*}}) split [-1, 0] -> [1] : (tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x28x28xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x256x28x28xf32>, %{{.*}}: tensor<64x256x3x3xf32>):
// CHECK:         %[[B:.*]] = instance.clusters 4(%[[A]], %{{.*}}) split [-1, 0] -> [1]
// CHECK:         %[[P:.*]] = instance.clusters 4(%[[B]]) split [1] -> [1] : (tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32> {
// CHECK:           graph.max_pool2d
// CHECK:         instance.clusters 4(%[[P]], %{{.*}}) split [-1, 0] -> [1]
// NOCUT:         instance.clusters 1(
// NOCUT-NOT:     instance.clusters
// expected-remark@+1 {{@one_cluster runs on one cluster of 4}}
func.func @one_cluster(%x: tensor<1x256x28x28xf32>) -> tensor<1x256x28x28xf32> {
  %w1 = graph.weight "w1" : tensor<256x256x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 108624 cycles per cluster, against 225792 with the batch cut}}
  %c1 = graph.conv2d %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x28x28xf32>
  %w2 = graph.weight "w2" : tensor<256x256x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 184352 cycles per cluster, against 225792 with the batch cut}}
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x28x28xf32>
  // expected-remark@+1 {{the segment from here to the next channel-cut layer is cut along dimension 1 of its first result over 4 clusters}}
  %p = graph.max_pool2d %c2 {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x256x28x28xf32> -> tensor<1x256x28x28xf32>
  %w3 = graph.weight "w3" : tensor<256x256x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 135712 cycles per cluster, against 225792 with the batch cut}}
  %c3 = graph.conv2d %p, %w3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x256x28x28xf32>, tensor<256x256x3x3xf32>) -> tensor<1x256x28x28xf32>
  return %c3 : tensor<1x256x28x28xf32>
}

// -----

// Tests a run through a residual block with a projection (ResNet-50's first stage-4 block at
// batch 1): the projection sits between the third convolution and the residual add that the
// third one takes as its epilogue, so it is a layer of its own inside the run, and the four
// channel segments follow each other with no segment on one cluster between them. The add reads
// the projection's result by the same channel share as the third convolution's.
// CHECK-LABEL: func.func @projection_block
// NOCUT-LABEL: func.func @projection_block
// CHECK:         %[[C1:.*]] = instance.clusters 4(%{{.*}}, %{{.*}}) split [-1, 0] -> [1]
// CHECK:           graph.conv2d
// CHECK-NEXT:      graph.relu
// CHECK:         %[[C2:.*]] = instance.clusters 4(%[[C1]], %{{.*}}) split [-1, 0] -> [1]
// CHECK:         %[[D:.*]] = instance.clusters 4(%{{.*}}, %{{.*}}) split [-1, 0] -> [1] : (tensor<1x1024x7x7xf32>, tensor<2048x1024x1x1xf32>) -> tensor<1x2048x7x7xf32>
// CHECK:         instance.clusters 4(%[[C2]], %{{.*}}, %[[D]]) split [-1, 0, 1] -> [1]
// CHECK:           graph.conv2d
// CHECK-NEXT:      graph.add
// CHECK-NEXT:      graph.relu
// expected-remark@+1 {{@projection_block runs on one cluster of 4}}
func.func @projection_block(%x: tensor<1x1024x7x7xf32>) -> tensor<1x2048x7x7xf32> {
  %w1 = graph.weight "w1" : tensor<512x1024x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 31712 cycles per cluster, against 65536 with the batch cut}}
  %c1 = graph.conv2d %x, %w1 : (tensor<1x1024x7x7xf32>, tensor<512x1024x1x1xf32>) -> tensor<1x512x7x7xf32>
  %r1 = graph.relu %c1 : tensor<1x512x7x7xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 79648 cycles per cluster, against 294912 with the batch cut}}
  %c2 = graph.conv2d %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %r2 = graph.relu %c2 : tensor<1x512x7x7xf32>
  %w3 = graph.weight "w3" : tensor<2048x512x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 44176 cycles per cluster, against 131072 with the batch cut}}
  %c3 = graph.conv2d %r2, %w3 : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %wd = graph.weight "wd" : tensor<2048x1024x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 91488 cycles per cluster, against 262144 with the batch cut}}
  %d = graph.conv2d %x, %wd : (tensor<1x1024x7x7xf32>, tensor<2048x1024x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %s = graph.add %c3, %d : tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32> -> tensor<1x2048x7x7xf32>
  %o = graph.relu %s : tensor<1x2048x7x7xf32>
  return %o : tensor<1x2048x7x7xf32>
}

// -----

// Tests a strided projection cut along its channels reading its input subsampled (ResNet-50's
// first stage-4 block at batch 8): under the batch cut its 8 MiB filter is read by every
// cluster, cut along its channels it would read the 6.4 MB block input whole; the batch segment
// that computes the input also makes its subsampled copy (a window and a 2x2-stepped slice, each
// cluster its two images), the projection runs at stride 1 on the 1.6 MB copy. The batch
// segment then ends in two results computed from the block input, which `hw-group` joins into
// one instance with two results (a fork merge). At the default `channel-cut-gain` the run starts
// at the 3×3 layer (estimated 4 % slower than under the batch cut, measured faster in ResNet-50
// b8: docs/Scheduling.md), so the batch segment ends with the first 1×1 layer.
// CHECK-LABEL: func.func @subsampled_projection
// CHECK:         %[[B:.*]]:2 = instance.clusters 4(%{{.*}}) split [0] -> [0, 0] : (tensor<8x1024x14x14xf32>) -> (tensor<8x512x14x14xf32>, tensor<8x1024x7x7xf32>) {
// CHECK:           %[[R:.*]] = graph.relu
// CHECK:           %[[W:.*]] = graph.slice %[[R]] {starts = array<i64: 0, 0, 0, 0>} : tensor<2x1024x14x14xf32> -> tensor<2x1024x13x13xf32>
// CHECK-NEXT:      %[[S:.*]] = graph.slice %[[W]] {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<2x1024x13x13xf32> -> tensor<2x1024x7x7xf32>
// CHECK:           instance.yield %{{.*}}, %[[S]]
// CHECK:         %[[C2:.*]] = instance.clusters 4(%[[B]]#0, %{{.*}}) split [-1, 0] -> [1]
// CHECK:           graph.conv2d {{.*}}strides = array<i64: 2, 2>
// CHECK:         %[[D:.*]] = instance.clusters 4(%[[B]]#1, %{{.*}}) split [-1, 0] -> [1]
// CHECK-NEXT:    ^bb0(%[[I:.*]]: tensor<8x1024x7x7xf32>, %[[F:.*]]: tensor<512x1024x1x1xf32>):
// CHECK-NEXT:      graph.conv2d %[[I]], %[[F]] : (tensor<8x1024x7x7xf32>, tensor<512x1024x1x1xf32>) -> tensor<8x512x7x7xf32>
// CHECK:         instance.clusters 4(%[[C2]], %{{.*}}, %[[D]]) split [-1, 0, 1] -> [1]
// SCHEDULE-LABEL: func.func @subsampled_projection
// SCHEDULE:         instance.clusters 4(%{{.*}}) split [0] -> [0, 0]
// SCHEDULE:           %{{.*}}:2 = instance.instance "g0"[0 of 1 along 0]
// SCHEDULE-NOT:       instance.instance
// SCHEDULE:         instance.clusters 4
// NOCUT-LABEL: func.func @subsampled_projection
// NOCUT:         graph.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>}
// expected-remark@+1 {{@subsampled_projection spread over 4 of 4 clusters along dimension 0 of the result [8, 2048, 7, 7], 2 per cluster}}
func.func @subsampled_projection(%x: tensor<8x1024x14x14xf32>) -> tensor<8x2048x7x7xf32> {
  %r = graph.relu %x : tensor<8x1024x14x14xf32>
  %w1 = graph.weight "w1" : tensor<512x1024x1x1xf32>
  %c1 = graph.conv2d %r, %w1 {activation = #graph<activation relu>} : (tensor<8x1024x14x14xf32>, tensor<512x1024x1x1xf32>) -> tensor<8x512x14x14xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 305872 cycles per cluster, against 294912 with the batch cut}}
  %c2 = graph.conv2d %c1, %w2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x512x14x14xf32>, tensor<512x512x3x3xf32>) -> tensor<8x512x7x7xf32>
  %w3 = graph.weight "w3" : tensor<2048x512x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 110032 cycles per cluster, against 131072 with the batch cut}}
  %c3 = graph.conv2d %c2, %w3 : (tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<8x2048x7x7xf32>
  %wd = graph.weight "wd" : tensor<2048x1024x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own, its input subsampled 2x2 by the segment before: estimated 179616 cycles per cluster, against 262144 with the batch cut}}
  %d = graph.conv2d %r, %wd {strides = array<i64: 2, 2>} : (tensor<8x1024x14x14xf32>, tensor<2048x1024x1x1xf32>) -> tensor<8x2048x7x7xf32>
  %s = graph.add %c3, %d : tensor<8x2048x7x7xf32>, tensor<8x2048x7x7xf32> -> tensor<8x2048x7x7xf32>
  %o = graph.relu %s : tensor<8x2048x7x7xf32>
  return %o : tensor<8x2048x7x7xf32>
}

// -----

// Tests that a function on one cluster (batch 1) does not subsample a projection's input:
// measured on ResNet-50 b1 the choice the subsampled estimate led to was slower (2.98 M cycles
// against 2.94 M). The projection keeps its strides. The relu before the channel layers is a
// segment cut along its channels.
// CHECK-LABEL: func.func @projection_on_one_cluster
// CHECK-NOT:     steps
// CHECK:         instance.clusters 4(%{{.*}}, %{{.*}}) split [-1, 0] -> [1] : (tensor<1x1024x14x14xf32>, tensor<2048x1024x1x1xf32>) -> tensor<1x2048x7x7xf32>
// CHECK:           graph.conv2d %{{.*}}, %{{.*}} {strides = array<i64: 2, 2>}
// expected-remark@+1 {{@projection_on_one_cluster runs on one cluster of 4}}
func.func @projection_on_one_cluster(%x: tensor<1x1024x14x14xf32>) -> tensor<1x2048x7x7xf32> {
  // expected-remark@+1 {{the segment from here to the next channel-cut layer is cut along dimension 1 of its first result over 4 clusters}}
  %r = graph.relu %x : tensor<1x1024x14x14xf32>
  %w1 = graph.weight "w1" : tensor<512x1024x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 71696 cycles per cluster}}
  %c1 = graph.conv2d %r, %w1 {activation = #graph<activation relu>} : (tensor<1x1024x14x14xf32>, tensor<512x1024x1x1xf32>) -> tensor<1x512x14x14xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 89056 cycles per cluster}}
  %c2 = graph.conv2d %c1, %w2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x512x14x14xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %w3 = graph.weight "w3" : tensor<2048x512x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 44176 cycles per cluster}}
  %c3 = graph.conv2d %c2, %w3 : (tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %wd = graph.weight "wd" : tensor<2048x1024x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 110304 cycles per cluster}}
  %d = graph.conv2d %r, %wd {strides = array<i64: 2, 2>} : (tensor<1x1024x14x14xf32>, tensor<2048x1024x1x1xf32>) -> tensor<1x2048x7x7xf32>
  %s = graph.add %c3, %d : tensor<1x2048x7x7xf32>, tensor<1x2048x7x7xf32> -> tensor<1x2048x7x7xf32>
  %o = graph.relu %s : tensor<1x2048x7x7xf32>
  return %o : tensor<1x2048x7x7xf32>
}

// -----

// Tests that a global pooling (and the flatten after it) joins the channel-cut layer before it:
// each cluster pools its share of the channels and hands over a [8, 512] share instead of its
// 8x512x7x7 result (ResNet-50's head after stage 4).
// CHECK-LABEL: func.func @pooled_head
// CHECK:         instance.clusters 4(%{{.*}}, %{{.*}}) split [-1, 0] -> [1] : (tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<8x2048xf32> {
// CHECK:           graph.conv2d
// CHECK-NEXT:      graph.global_avg_pool %{{.*}} : tensor<8x512x7x7xf32> -> tensor<8x512x1x1xf32>
// CHECK-NEXT:      graph.flatten %{{.*}} : tensor<8x512x1x1xf32> -> tensor<8x512xf32>
// CHECK:         instance.clusters 4(%{{.*}}) split [0] -> [0] : (tensor<8x2048xf32>) -> tensor<8x2048xf32>
// CHECK:           graph.tanh
// expected-remark@+1 {{@pooled_head spread over 4 of 4 clusters along dimension 0 of the result [8, 2048], 2 per cluster}}
func.func @pooled_head(%x: tensor<8x512x7x7xf32>) -> tensor<8x2048xf32> {
  %r = graph.relu %x : tensor<8x512x7x7xf32>
  %w = graph.weight "w" : tensor<2048x512x1x1xf32>
  // expected-remark@+1 {{'graph.conv2d' cut along dimension 1 of its result over 4 clusters in a segment of its own: estimated 86048 cycles per cluster, against 131072 with the batch cut}}
  %c = graph.conv2d %r, %w {activation = #graph<activation relu>} : (tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) -> tensor<8x2048x7x7xf32>
  %p = graph.global_avg_pool %c : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
  %f = graph.flatten %p : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
  %t = graph.tanh %f : tensor<8x2048xf32>
  return %t : tensor<8x2048xf32>
}

// -----

// Tests that a function holding control flow is left whole: GraphTurbo's pipeline lowers it
// layer-wise, calling its bodies, which the instance passes schedule like any function.
// CHECK-LABEL: func.func @looped
// CHECK-NOT: instance.clusters
// CHECK: graph.loop
// NOCUT-LABEL: func.func @looped
// SCHEDULE-LABEL: func.func @looped
// SCHEDULE-NOT: instance.
// SCHEDULE: graph.loop
func.func @looped(%n: tensor<i64>, %go: tensor<i1>, %x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  // expected-remark@+1 {{@looped is left whole: 'graph.loop' (control flow) is lowered layer-wise}}
  %r = graph.loop %n, %go iter_args(%x : tensor<8x64xf32>) -> (tensor<8x64xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<8x64xf32>):
    %w = graph.neg %v : tensor<8x64xf32>
    graph.yield %go, %w : tensor<i1>, tensor<8x64xf32>
  }
  return %r : tensor<8x64xf32>
}

// -----

// Tests the channel cut of a transformer's feed-forward products at batch 1: the attention keeps
// the function on one cluster (every query reads all keys), and the products by a 2-D weight that
// `graph.batch_matmul` broadcasts over the batch each take a segment cut along their output
// columns over the 4 clusters, the weights cut along dimension 1.
// CHECK-LABEL: func.func @feed_forward_at_batch_one
// CHECK:         %[[A:.*]] = instance.clusters 1(%{{.*}}) split [-1] -> [-1] : (tensor<1x128x64xf32>) -> tensor<1x128x64xf32> {
// CHECK:         %[[H:.*]] = instance.clusters 4(%[[A]], %{{.*}}) split [-1, 1] -> [2] : (tensor<1x128x64xf32>, tensor<64x3072xf32>) -> tensor<1x128x3072xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x128x64xf32>, %{{.*}}: tensor<64x768xf32>):
// CHECK:         instance.clusters 4(%[[H]], %{{.*}}) split [-1, 1] -> [2] : (tensor<1x128x3072xf32>, tensor<3072x768xf32>) -> tensor<1x128x768xf32> {
// CHECK-NEXT:    ^bb0(%{{.*}}: tensor<1x128x3072xf32>, %{{.*}}: tensor<3072x192xf32>):
// NOCUT-LABEL: func.func @feed_forward_at_batch_one
// NOCUT:         instance.clusters 1(
// NOCUT-NOT:     instance.clusters
// expected-remark@+1 {{@feed_forward_at_batch_one runs on one cluster of 4}}
func.func @feed_forward_at_batch_one(%x: tensor<1x128x64xf32>) -> tensor<1x128x768xf32> {
  %k = graph.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<1x128x64xf32> -> tensor<1x64x128xf32>
  %s = graph.batch_matmul %x, %k : tensor<1x128x64xf32>, tensor<1x64x128xf32> -> tensor<1x128x128xf32>
  %p = graph.softmax %s {axis = -1 : i64} : tensor<1x128x128xf32>
  %a = graph.batch_matmul %p, %x : tensor<1x128x128xf32>, tensor<1x128x64xf32> -> tensor<1x128x64xf32>
  %w = graph.weight "up" : tensor<64x3072xf32>
  // expected-remark@+1 {{'graph.batch_matmul' cut along dimension 2 of its result over 4 clusters in a segment of its own: estimated 22480 cycles per cluster, against 24576 with the batch cut}}
  %h = graph.batch_matmul %a, %w : tensor<1x128x64xf32>, tensor<64x3072xf32> -> tensor<1x128x3072xf32>
  %r = graph.relu %h : tensor<1x128x3072xf32>
  %w2 = graph.weight "down" : tensor<3072x768xf32>
  // expected-remark@+1 {{'graph.batch_matmul' cut along dimension 2 of its result over 4 clusters in a segment of its own: estimated 142240 cycles per cluster, against 294912 with the batch cut}}
  %y = graph.batch_matmul %r, %w2 : tensor<1x128x3072xf32>, tensor<3072x768xf32> -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests a value the function needs in part: a ViT's head reads the class token alone (a slice of
// one row), so each cluster needs row 0 of its two images of the products before it. Those boxes
// are shares along the batch holding the same part of the rows on every cluster, which the cut
// takes: each cluster computes its images' first row only.
// CHECK-LABEL: func.func @class_token
// NOCUT-LABEL: func.func @class_token
// CHECK:         instance.clusters 4(%{{.*}}) split [0] -> [0] : (tensor<8x16x32xf32>) -> tensor<8x32xf32> {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: tensor<2x16x32xf32>):
// CHECK:           %[[ROW:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0, 0>} : tensor<2x16x32xf32> -> tensor<2x1x32xf32>
// CHECK:           graph.batch_matmul %[[ROW]], %{{.*}} : tensor<2x1x32xf32>, tensor<32x32xf32> -> tensor<2x1x32xf32>
// expected-remark@+1 {{@class_token spread over 4 of 4 clusters along dimension 0 of the result [8, 32], 2 per cluster}}
func.func @class_token(%x: tensor<8x16x32xf32>) -> tensor<8x32xf32> {
  %w = graph.weight "w" : tensor<32x32xf32>
  %y = graph.batch_matmul %x, %w : tensor<8x16x32xf32>, tensor<32x32xf32> -> tensor<8x16x32xf32>
  %r = graph.relu %y : tensor<8x16x32xf32>
  %t = graph.slice %r {starts = array<i64: 0, 0, 0>} : tensor<8x16x32xf32> -> tensor<8x1x32xf32>
  %f = graph.reshape %t : tensor<8x1x32xf32> -> tensor<8x32xf32>
  return %f : tensor<8x32xf32>
}
