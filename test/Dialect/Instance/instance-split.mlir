// Tests of instance-split (GraphTurbo §3.3): each group becomes the instances of its best split,
// each computing one slice of the group's output and reading exactly what that slice needs.

// RUN: turbine-opt %s --split-input-file --instance-split | FileCheck %s
// RUN: turbine-opt %s --split-input-file --instance-split=explain=true --verify-diagnostics -o /dev/null

// Tests halos and per-slice padding: two stacked 3x3 convolutions (padding 1) cut into 4 slices
// of 4 rows. Instance 1 (rows 4..8) needs rows 3..9 of the first convolution, which needs rows
// 2..10 of the input: a halo of 2 rows, read without padding. Instance 0 keeps the top padding
// and reads rows 0..6; instance 3 keeps the bottom padding. The halos recompute 6 of the first
// convolution's 16 rows: 18.8% of the group's 32.
// CHECK-LABEL: func.func @halo
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16x8xf32>, %[[W:.*]]: tensor<4x4x3x3xf32>)
// CHECK: %[[X0:.*]] = instance.slice %[[X]] [0, 0, 0, 0] : tensor<1x4x16x8xf32> -> tensor<1x4x6x8xf32>
// CHECK: %[[I0:.*]] = instance.instance "g0"[0 of 4 along 2] (%[[X0]], %[[W]]) : (tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x8xf32>
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 1, 1, 0, 1>} : (tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x5x8xf32>
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 1, 1, 0, 1>} : (tensor<1x4x5x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[X1:.*]] = instance.slice %[[X]] [0, 0, 2, 0] : tensor<1x4x16x8xf32> -> tensor<1x4x8x8xf32>
// CHECK: %[[I1:.*]] = instance.instance "g0"[1 of 4 along 2] (%[[X1]], %[[W]])
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x8xf32>
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x4x6x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x8xf32>
// CHECK: %[[I2:.*]] = instance.instance "g0"[2 of 4 along 2]
// CHECK: %[[X3:.*]] = instance.slice %[[X]] [0, 0, 10, 0] : tensor<1x4x16x8xf32> -> tensor<1x4x6x8xf32>
// CHECK: %[[I3:.*]] = instance.instance "g0"[3 of 4 along 2] (%[[X3]], %[[W]])
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 0, 1, 1, 1>}
// CHECK: %[[Y:.*]] = instance.concat %[[I0]], %[[I1]], %[[I2]], %[[I3]] along 2 : {{.*}} -> tensor<1x4x16x8xf32>
// CHECK-NOT: instance.group
// CHECK: return %[[Y]]
func.func @halo(%x: tensor<1x4x16x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32> {
  // expected-remark@+5 {{'g0' becomes 4 instances along dimension 2 of [1, 4, 16, 8], slices of 4; they compute 18.8% more elements than the group}}
  // expected-remark@+4 {{instance 0 of 'g0' reads operand 0 [0..1, 0..4, 0..6, 0..8]; operand 1 whole}}
  // expected-remark@+3 {{instance 1 of 'g0' reads operand 0 [0..1, 0..4, 2..10, 0..8]; operand 1 whole}}
  // expected-remark@+2 {{instance 2 of 'g0' reads operand 0 [0..1, 0..4, 6..14, 0..8]; operand 1 whole}}
  // expected-remark@+1 {{instance 3 of 'g0' reads operand 0 [0..1, 0..4, 10..16, 0..8]; operand 1 whole}}
  %y = instance.group "g0"(%x, %w) {best_split = #instance.split<dim = 2, factor = 4, ops = 2>, split_info = [#instance.split<dim = 2, factor = 4, ops = 2>]} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32> {
  ^bb0(%a: tensor<1x4x16x8xf32>, %b: tensor<4x4x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
    %d = graph.conv2d %c, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
    instance.yield %d : tensor<1x4x16x8xf32>
  }
  return %y : tensor<1x4x16x8xf32>
}

// -----

// Tests that redundant edges are gone (Fig. 6's grey edges): a consumer instance depends only on
// the producer instances whose slices it reads. g1's 3x3 convolution on rows 4..8 reads rows
// 3..9 of g0: its instances 0, 1 and 2, joined and sliced; its instance 0 reads rows 0..5, from
// g0's instances 0 and 1 only. A batch split reading a batch split takes its slice directly.
// CHECK-LABEL: func.func @edges
// CHECK: %[[P0:.*]] = instance.instance "g0"[0 of 4 along 2]
// CHECK: %[[P1:.*]] = instance.instance "g0"[1 of 4 along 2]
// CHECK: %[[P2:.*]] = instance.instance "g0"[2 of 4 along 2]
// CHECK: %[[P3:.*]] = instance.instance "g0"[3 of 4 along 2]
// CHECK: %[[J0:.*]] = instance.concat %[[P0]], %[[P1]] along 2 : (tensor<1x4x4x8xf32>, tensor<1x4x4x8xf32>) -> tensor<1x4x8x8xf32>
// CHECK: %[[S0:.*]] = instance.slice %[[J0]] [0, 0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x5x8xf32>
// CHECK: instance.instance "g1"[0 of 4 along 2] (%[[S0]], %{{.*}})
// CHECK: %[[J1:.*]] = instance.concat %[[P0]], %[[P1]], %[[P2]] along 2 : {{.*}} -> tensor<1x4x12x8xf32>
// CHECK: %[[S1:.*]] = instance.slice %[[J1]] [0, 0, 3, 0] : tensor<1x4x12x8xf32> -> tensor<1x4x6x8xf32>
// CHECK: instance.instance "g1"[1 of 4 along 2] (%[[S1]], %{{.*}})
func.func @edges(%x: tensor<1x4x16x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32> {
  // expected-remark@+5 {{'g0' becomes 4 instances along dimension 2 of [1, 4, 16, 8], slices of 4; they compute 0.0% more elements than the group}}
  // expected-remark@+4 {{instance 0 of 'g0' reads operand 0 [0..1, 0..4, 0..5, 0..8]; operand 1 whole}}
  // expected-remark@+3 {{instance 1 of 'g0' reads operand 0 [0..1, 0..4, 3..9, 0..8]; operand 1 whole}}
  // expected-remark@+2 {{instance 2 of 'g0' reads operand 0 [0..1, 0..4, 7..13, 0..8]; operand 1 whole}}
  // expected-remark@+1 {{instance 3 of 'g0' reads operand 0 [0..1, 0..4, 11..16, 0..8]; operand 1 whole}}
  %y = instance.group "g0"(%x, %w) {best_split = #instance.split<dim = 2, factor = 4, ops = 1>, split_info = [#instance.split<dim = 2, factor = 4, ops = 1>]} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32> {
  ^bb0(%a: tensor<1x4x16x8xf32>, %b: tensor<4x4x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
    instance.yield %c : tensor<1x4x16x8xf32>
  }
  // expected-remark@+5 {{'g1' becomes 4 instances}}
  // expected-remark@+4 {{instance 0 of 'g1' reads operand 0 from 'g0' #0, #1; operand 1 whole}}
  // expected-remark@+3 {{instance 1 of 'g1' reads operand 0 from 'g0' #0, #1, #2; operand 1 whole}}
  // expected-remark@+2 {{instance 2 of 'g1' reads operand 0 from 'g0' #1, #2, #3; operand 1 whole}}
  // expected-remark@+1 {{instance 3 of 'g1' reads operand 0 from 'g0' #2, #3; operand 1 whole}}
  %z = instance.group "g1"(%y, %w) {best_split = #instance.split<dim = 2, factor = 4, ops = 1>, split_info = [#instance.split<dim = 2, factor = 4, ops = 1>]} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32> {
  ^bb0(%a: tensor<1x4x16x8xf32>, %b: tensor<4x4x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x16x8xf32>
    instance.yield %c : tensor<1x4x16x8xf32>
  }
  return %z : tensor<1x4x16x8xf32>
}

// -----

// Tests a strided window: a 3x3 convolution with stride 2 halves 16 rows to 8; instance 1
// computes output rows 4..8 from input rows 7..16 with no padding on top and none needed below;
// the last column's window ends at column 8, so no slice keeps the right padding.
// CHECK-LABEL: func.func @stride
// CHECK: instance.slice %{{.*}} [0, 0, 0, 0] : tensor<1x4x16x8xf32> -> tensor<1x4x8x8xf32>
// CHECK: instance.instance "g0"[0 of 2 along 2]
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
// CHECK: instance.slice %{{.*}} [0, 0, 7, 0] : tensor<1x4x16x8xf32> -> tensor<1x4x9x8xf32>
// CHECK: instance.instance "g0"[1 of 2 along 2]
// CHECK: graph.conv2d %{{.*}} {pads = array<i64: 0, 1, 0, 0>, strides = array<i64: 2, 2>} : (tensor<1x4x9x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x4x4xf32>
func.func @stride(%x: tensor<1x4x16x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<1x4x8x4xf32> {
  // expected-remark@+3 {{'g0' becomes 2 instances along dimension 2 of [1, 4, 8, 4], slices of 4}}
  // expected-remark@+2 {{instance 0 of 'g0' reads operand 0 [0..1, 0..4, 0..8, 0..8]}}
  // expected-remark@+1 {{instance 1 of 'g0' reads operand 0 [0..1, 0..4, 7..16, 0..8]}}
  %y = instance.group "g0"(%x, %w) {best_split = #instance.split<dim = 2, factor = 2, ops = 1>, split_info = [#instance.split<dim = 2, factor = 2, ops = 1>]} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x4xf32> {
  ^bb0(%a: tensor<1x4x16x8xf32>, %b: tensor<4x4x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x4x16x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x8x4xf32>
    instance.yield %c : tensor<1x4x8x4xf32>
  }
  return %y : tensor<1x4x8x4xf32>
}

// -----

// Tests upsampling (§3.6): nearest resizing by 2 then a 1x1 convolution, in 2 slices of 8 rows:
// each reads its 4 rows of the input, no halo.
// CHECK-LABEL: func.func @upsample
// CHECK: instance.slice %{{.*}} [0, 0, 0, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x8xf32>
// CHECK: instance.instance "g0"[0 of 2 along 2]
// CHECK: graph.resize %{{.*}} : tensor<1x4x4x8xf32> -> tensor<1x4x8x16xf32>
// CHECK: instance.slice %{{.*}} [0, 0, 4, 0] : tensor<1x4x8x8xf32> -> tensor<1x4x4x8xf32>
// CHECK: instance.instance "g0"[1 of 2 along 2]
func.func @upsample(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x1x1xf32>) -> tensor<1x4x16x16xf32> {
  // expected-remark@+3 {{'g0' becomes 2 instances along dimension 2 of [1, 4, 16, 16], slices of 8}}
  // expected-remark@+2 {{instance 0 of 'g0' reads operand 0 [0..1, 0..4, 0..4, 0..8]}}
  // expected-remark@+1 {{instance 1 of 'g0' reads operand 0 [0..1, 0..4, 4..8, 0..8]}}
  %y = instance.group "g0"(%x, %w) {best_split = #instance.split<dim = 2, factor = 2, ops = 2>, split_info = [#instance.split<dim = 2, factor = 2, ops = 2>]} : (tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x16x16xf32> {
  ^bb0(%a: tensor<1x4x8x8xf32>, %b: tensor<4x4x1x1xf32>):
    %u = graph.resize %a {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x4x8x8xf32> -> tensor<1x4x16x16xf32>
    %c = graph.conv2d %u, %b : (tensor<1x4x16x16xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x16x16xf32>
    instance.yield %c : tensor<1x4x16x16xf32>
  }
  return %y : tensor<1x4x16x16xf32>
}

// -----

// Tests a group with two outputs split along the batch: each instance yields its image of both,
// and each output read whole is the concatenation of its instances' slices. A batch split
// reading a batch split of the same factor takes its producer's slice directly: one edge per
// instance, and no concatenation of the second output, which nobody reads whole.
// CHECK-LABEL: func.func @two_outputs
// CHECK: %[[A:.*]]:2 = instance.instance "g0"[0 of 2 along 0] ({{.*}}) : (tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>)
// CHECK: %[[B:.*]]:2 = instance.instance "g0"[1 of 2 along 0]
// CHECK: %[[R:.*]] = instance.concat %[[A]]#0, %[[B]]#0 along 0
// CHECK-NOT: instance.concat %[[A]]#1
// CHECK: instance.instance "g1"[0 of 2 along 0] (%[[A]]#1) : (tensor<1x4x4x4xf32>)
// CHECK: instance.instance "g1"[1 of 2 along 0] (%[[B]]#1) : (tensor<1x4x4x4xf32>)
// CHECK: return %[[R]], %{{.*}}
func.func @two_outputs(%x: tensor<2x4x4x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  // expected-remark@+3 {{'g0' becomes 2 instances along dimension 0}}
  // expected-remark@+2 {{instance 0 of 'g0' reads operand 0 [0..1, 0..4, 0..4, 0..4]}}
  // expected-remark@+1 {{instance 1 of 'g0' reads operand 0 [1..2, 0..4, 0..4, 0..4]}}
  %y:2 = instance.group "g0"(%x) {best_split = #instance.split<dim = 0, factor = 2, ops = 2>, split_info = [#instance.split<dim = 0, factor = 2, ops = 2>]} : (tensor<2x4x4x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) {
  ^bb0(%a: tensor<2x4x4x4xf32>):
    %s = graph.sigmoid %a : tensor<2x4x4x4xf32>
    %r = graph.relu %s : tensor<2x4x4x4xf32>
    instance.yield %r, %s : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
  }
  // expected-remark@+3 {{'g1' becomes 2 instances along dimension 0}}
  // expected-remark@+2 {{instance 0 of 'g1' reads operand 0 from 'g0' #0}}
  // expected-remark@+1 {{instance 1 of 'g1' reads operand 0 from 'g0' #1}}
  %z = instance.group "g1"(%y#1) {best_split = #instance.split<dim = 0, factor = 2, ops = 1>, split_info = [#instance.split<dim = 0, factor = 2, ops = 1>]} : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
  ^bb0(%a: tensor<2x4x4x4xf32>):
    %t = graph.tanh %a : tensor<2x4x4x4xf32>
    instance.yield %t : tensor<2x4x4x4xf32>
  }
  return %y#0, %z : tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>
}

// -----

// Tests that a group whose best split keeps it whole (factor 1, GraphTurbo Fig. 3b's last stage)
// becomes one instance holding the group's body as it was.
// CHECK-LABEL: func.func @whole
// CHECK: %[[I:.*]] = instance.instance "g0"[0 of 1 along 0] (%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
// CHECK: graph.softmax
// CHECK: return %[[I]]
func.func @whole(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark@+1 {{'g0' is one instance: it fits whole (best split factor 1)}}
  %y = instance.group "g0"(%x) {best_split = #instance.split<dim = 0, factor = 1, ops = 1>, split_info = [#instance.split<dim = 0, factor = 1, ops = 1>]} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %s = graph.softmax %a : tensor<2x8xf32>
    instance.yield %s : tensor<2x8xf32>
  }
  return %y : tensor<2x8xf32>
}

// -----

// Tests that a group without a best split (hw-group found no split along one dimension that fits
// its scope) becomes one instance too: its kernel tiles it, instance-bind picks its scope.
// CHECK-LABEL: func.func @no_best_split
// CHECK: %[[I:.*]] = instance.instance "g0"[0 of 1 along 0] (%arg0) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
// CHECK: graph.relu
// CHECK: return %[[I]]
func.func @no_best_split(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-remark@+1 {{'g0' stays one instance: hw-group found no split of it along one dimension that fits its scope; its kernel tiles it}}
  %y = instance.group "g0"(%x) : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %s = graph.relu %a : tensor<2x8xf32>
    instance.yield %s : tensor<2x8xf32>
  }
  return %y : tensor<2x8xf32>
}
