// RUN: turbine-opt %s | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --mlir-print-op-generic | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --split-input-file | turbine-opt --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// instance.group
//===----------------------------------------------------------------------===//

// Tests that a group round-trips with its SplitInfo and its best split: a
// ResNet-50 bottleneck 3x3 convolution with batch norm and relu, splittable
// along H (4 instances, reaching all 3 ops) and along C (2, reaching 1).
// CHECK-LABEL: func.func @group_split
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x56x56xf32>, %[[W:.*]]: tensor<64x64x3x3xf32>, %[[S:.*]]: tensor<64xf32>)
// CHECK: %[[Y:.*]] = instance.group "layer1.0.conv2"(%[[X]], %[[W]], %[[S]]) {best_split = #instance.split<dim = 2, factor = 4, ops = 3>, split_info = [#instance.split<dim = 2, factor = 4, ops = 3>, #instance.split<dim = 1, factor = 2, ops = 1>]} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x64x56x56xf32>, %[[B:.*]]: tensor<64x64x3x3xf32>, %[[P:.*]]: tensor<64xf32>):
// CHECK-NEXT: %[[C:.*]] = graph.conv2d %[[A]], %[[B]] {pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT: %[[N:.*]] = graph.batch_norm %[[C]], %[[P]], %[[P]], %[[P]], %[[P]]
// CHECK-NEXT: %[[R:.*]] = graph.relu %[[N]] : tensor<1x64x56x56xf32>
// CHECK-NEXT: instance.yield %[[R]] : tensor<1x64x56x56xf32>
// CHECK-NEXT: }
// CHECK: return %[[Y]]
func.func @group_split(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>, %s: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  %y = instance.group "layer1.0.conv2" (%x, %w, %s) {
      split_info = [#instance.split<dim = 2, factor = 4, ops = 3>, #instance.split<dim = 1, factor = 2, ops = 1>],
      best_split = #instance.split<dim = 2, factor = 4, ops = 3>}
      : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>, %b: tensor<64x64x3x3xf32>, %p: tensor<64xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
    %n = graph.batch_norm %c, %p, %p, %p, %p : (tensor<1x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
    %r = graph.relu %n : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group nobody could split (the ResNet-50 classifier head) has
// neither split_info nor best_split, and so no attribute dictionary.
// CHECK-LABEL: func.func @group_unsplit
// CHECK-SAME: (%[[X:.*]]: tensor<8x2048x7x7xf32>, %[[W:.*]]: tensor<1000x2048xf32>, %[[B:.*]]: tensor<1000xf32>)
// CHECK: %[[Y:.*]] = instance.group "head"(%[[X]], %[[W]], %[[B]]) : (tensor<8x2048x7x7xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<8x2048x7x7xf32>, %[[V:.*]]: tensor<1000x2048xf32>, %[[C:.*]]: tensor<1000xf32>):
// CHECK-NEXT: %[[P:.*]] = graph.global_avg_pool %[[A]]
// CHECK-NEXT: %[[F:.*]] = graph.flatten %[[P]]
// CHECK-NEXT: %[[G:.*]] = graph.gemm %[[F]], %[[V]], %[[C]] {trans_b = true}
// CHECK-NEXT: instance.yield %[[G]] : tensor<8x1000xf32>
// CHECK-NEXT: }
// CHECK: return %[[Y]]
func.func @group_unsplit(%x: tensor<8x2048x7x7xf32>, %w: tensor<1000x2048xf32>, %b: tensor<1000xf32>) -> tensor<8x1000xf32> {
  %y = instance.group "head" (%x, %w, %b) : (tensor<8x2048x7x7xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32> {
  ^bb0(%a: tensor<8x2048x7x7xf32>, %v: tensor<1000x2048xf32>, %c: tensor<1000xf32>):
    %p = graph.global_avg_pool %a : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
    %f = graph.flatten %p : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
    %g = graph.gemm %f, %v, %c {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32>
    instance.yield %g : tensor<8x1000xf32>
  }
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that a group may carry split_info before a best split is chosen, and
// may have several outputs: BERT attention scores and probabilities, split
// over the 12 heads or the 128 queries.
// CHECK-LABEL: func.func @group_split_info_only
// CHECK-SAME: (%[[Q:.*]]: tensor<1x12x128x64xf32>, %[[K:.*]]: tensor<1x12x64x128xf32>)
// CHECK: %[[Y:.*]]:2 = instance.group "encoder.layer.0.attention"(%[[Q]], %[[K]]) {split_info = [#instance.split<dim = 1, factor = 12, ops = 2>, #instance.split<dim = 2, factor = 4, ops = 2>]} : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x12x128x64xf32>, %[[B:.*]]: tensor<1x12x64x128xf32>):
// CHECK-NEXT: %[[S:.*]] = graph.batch_matmul %[[A]], %[[B]]
// CHECK-NEXT: %[[P:.*]] = graph.softmax %[[S]]
// CHECK-NEXT: instance.yield %[[S]], %[[P]] : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
// CHECK-NEXT: }
// CHECK: return %[[Y]]#0, %[[Y]]#1
func.func @group_split_info_only(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x64x128xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
  %y:2 = instance.group "encoder.layer.0.attention" (%q, %k) {
      split_info = [#instance.split<dim = 1, factor = 12, ops = 2>, #instance.split<dim = 2, factor = 4, ops = 2>]}
      : (tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>) {
  ^bb0(%a: tensor<1x12x128x64xf32>, %b: tensor<1x12x64x128xf32>):
    %s = graph.batch_matmul %a, %b : tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32> -> tensor<1x12x128x128xf32>
    %p = graph.softmax %s : tensor<1x12x128x128xf32>
    instance.yield %s, %p : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
  }
  return %y#0, %y#1 : tensor<1x12x128x128xf32>, tensor<1x12x128x128xf32>
}

// -----

// Tests that a group without operands round-trips: its body reads its weight
// itself.
// CHECK-LABEL: func.func @group_no_inputs
// CHECK: %[[Y:.*]] = instance.group "embeddings.position"() : () -> tensor<512x768xf32> {
// CHECK-NEXT: %[[W:.*]] = graph.weight "embeddings.position_embeddings.weight" : tensor<512x768xf32>
// CHECK-NEXT: instance.yield %[[W]] : tensor<512x768xf32>
// CHECK-NEXT: }
// CHECK: return %[[Y]]
func.func @group_no_inputs() -> tensor<512x768xf32> {
  %y = instance.group "embeddings.position" () : () -> tensor<512x768xf32> {
    %w = graph.weight "embeddings.position_embeddings.weight" : tensor<512x768xf32>
    instance.yield %w : tensor<512x768xf32>
  }
  return %y : tensor<512x768xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.instance, instance.concat
//===----------------------------------------------------------------------===//

// Tests that the instances of a group split along H round-trip with every
// optional attribute present, each #instance<scope ...> case, and are joined
// by instance.concat: the 3x3 convolution of layer1.0 cut into 4 slices of 14
// rows, each reading its rows plus a halo (15 rows with the image border
// padded, 16 inside).
// CHECK-LABEL: func.func @instances
// CHECK-SAME: (%[[X0:.*]]: tensor<1x64x15x56xf32>, %[[X1:.*]]: tensor<1x64x16x56xf32>, %[[X2:.*]]: tensor<1x64x16x56xf32>, %[[X3:.*]]: tensor<1x64x15x56xf32>, %[[W:.*]]: tensor<64x64x3x3xf32>)
// CHECK: %[[S0:.*]] = instance.instance "layer1.0.conv2"[0 of 4 along 2] (%[[X0]], %[[W]]) {bind = array<i64: 1, 8, 1, 1>, order = 0 : i64, scope = #instance<scope lb>} : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<1x64x15x56xf32>, %[[B:.*]]: tensor<64x64x3x3xf32>):
// CHECK-NEXT: %[[C:.*]] = graph.conv2d %[[A]], %[[B]] {pads = array<i64: 1, 1, 0, 1>}
// CHECK-NEXT: instance.yield %[[C]] : tensor<1x64x14x56xf32>
// CHECK-NEXT: }
// CHECK: %[[S1:.*]] = instance.instance "layer1.0.conv2"[1 of 4 along 2] (%[[X1]], %[[W]]) {bind = array<i64: 1, 8, 1, 1>, order = 1 : i64, scope = #instance<scope gb>}
// CHECK: %[[S2:.*]] = instance.instance "layer1.0.conv2"[2 of 4 along 2] (%[[X2]], %[[W]]) {bind = array<i64: 1, 4, 2, 1>, order = 2 : i64, scope = #instance<scope ddr>}
// CHECK: %[[S3:.*]] = instance.instance "layer1.0.conv2"[3 of 4 along 2] (%[[X3]], %[[W]]) : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
// CHECK: %[[Y:.*]] = instance.concat %[[S0]], %[[S1]], %[[S2]], %[[S3]] along 2 : (tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32>
// CHECK: return %[[Y]]
func.func @instances(%x0: tensor<1x64x15x56xf32>, %x1: tensor<1x64x16x56xf32>, %x2: tensor<1x64x16x56xf32>, %x3: tensor<1x64x15x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %s0 = instance.instance "layer1.0.conv2" [0 of 4 along 2] (%x0, %w)
      {order = 0 : i64, bind = array<i64: 1, 8, 1, 1>, scope = #instance<scope lb>}
      : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x15x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 0, 1>} : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  %s1 = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x1, %w)
      {order = 1 : i64, bind = array<i64: 1, 8, 1, 1>, scope = #instance<scope gb>}
      : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  %s2 = instance.instance "layer1.0.conv2" [2 of 4 along 2] (%x2, %w)
      {order = 2 : i64, bind = array<i64: 1, 4, 2, 1>, scope = #instance<scope ddr>}
      : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  %s3 = instance.instance "layer1.0.conv2" [3 of 4 along 2] (%x3, %w)
      : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x15x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 1, 1>} : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  %y = instance.concat %s0, %s1, %s2, %s3 along 2
      : (tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that the one instance of an attention group (count 1: it covers the
// output alone) round-trips with two outputs, and that instance.concat takes a
// negative axis.
// CHECK-LABEL: func.func @instance_two_outputs
// CHECK-SAME: (%[[Q:.*]]: tensor<1x6x128x64xf32>, %[[K:.*]]: tensor<1x6x64x128xf32>, %[[O:.*]]: tensor<1x6x128x128xf32>)
// CHECK: %[[S:.*]]:2 = instance.instance "encoder.layer.0.attention"[0 of 1 along 1] (%[[Q]], %[[K]]) {order = 0 : i64} : (tensor<1x6x128x64xf32>, tensor<1x6x64x128xf32>) -> (tensor<1x6x128x128xf32>, tensor<1x6x128x128xf32>) {
// CHECK: %[[Y:.*]] = instance.concat %[[S]]#1, %[[O]] along -3 : (tensor<1x6x128x128xf32>, tensor<1x6x128x128xf32>) -> tensor<1x12x128x128xf32>
// CHECK: return %[[S]]#0, %[[Y]]
func.func @instance_two_outputs(%q: tensor<1x6x128x64xf32>, %k: tensor<1x6x64x128xf32>, %other: tensor<1x6x128x128xf32>) -> (tensor<1x6x128x128xf32>, tensor<1x12x128x128xf32>) {
  %s:2 = instance.instance "encoder.layer.0.attention" [0 of 1 along 1] (%q, %k) {order = 0 : i64}
      : (tensor<1x6x128x64xf32>, tensor<1x6x64x128xf32>) -> (tensor<1x6x128x128xf32>, tensor<1x6x128x128xf32>) {
  ^bb0(%a: tensor<1x6x128x64xf32>, %b: tensor<1x6x64x128xf32>):
    %sc = graph.batch_matmul %a, %b : tensor<1x6x128x64xf32>, tensor<1x6x64x128xf32> -> tensor<1x6x128x128xf32>
    %p = graph.softmax %sc : tensor<1x6x128x128xf32>
    instance.yield %sc, %p : tensor<1x6x128x128xf32>, tensor<1x6x128x128xf32>
  }
  %y = instance.concat %s#1, %other along -3 : (tensor<1x6x128x128xf32>, tensor<1x6x128x128xf32>) -> tensor<1x12x128x128xf32>
  return %s#0, %y : tensor<1x6x128x128xf32>, tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.slice
//===----------------------------------------------------------------------===//

// Tests that the box an instance reads round-trips: rows 13 to 29 (a slice of
// 14 rows and its halo) of a stage-1 activation.
// CHECK-LABEL: func.func @slice
// CHECK: instance.slice %{{.*}} [0, 0, 13, 0] : tensor<1x64x56x56xf32> -> tensor<1x64x16x56xf32>
func.func @slice(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x16x56xf32> {
  %s = instance.slice %x [0, 0, 13, 0] : tensor<1x64x56x56xf32> -> tensor<1x64x16x56xf32>
  return %s : tensor<1x64x16x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.copy, instance.redistribute
//===----------------------------------------------------------------------===//

// Tests that copies to each memory scope round-trip (the scope prints as a
// bare keyword in the custom form).
// CHECK-LABEL: func.func @copy
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x14x56xf32>)
// CHECK: %[[G:.*]] = instance.copy %[[X]] to gb : tensor<1x64x14x56xf32>
// CHECK: %[[D:.*]] = instance.copy %[[G]] to ddr : tensor<1x64x14x56xf32>
// CHECK: %[[L:.*]] = instance.copy %[[D]] to lb : tensor<1x64x14x56xf32>
// CHECK: return %[[L]]
func.func @copy(%x: tensor<1x64x14x56xf32>) -> tensor<1x64x14x56xf32> {
  %g = instance.copy %x to gb : tensor<1x64x14x56xf32>
  %d = instance.copy %g to ddr : tensor<1x64x14x56xf32>
  %l = instance.copy %d to lb : tensor<1x64x14x56xf32>
  return %l : tensor<1x64x14x56xf32>
}

// -----

// Tests that a redistribution from a channel binding to a row binding over 8
// cores round-trips.
// CHECK-LABEL: func.func @redistribute
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x56x56xf32>)
// CHECK: %[[R:.*]] = instance.redistribute %[[X]] from [1, 8, 1, 1] to [1, 1, 8, 1] : tensor<1x64x56x56xf32>
// CHECK: return %[[R]]
func.func @redistribute(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %r = instance.redistribute %x from [1, 8, 1, 1] to [1, 1, 8, 1] : tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}
