// Tests of instance-stitch (GraphTurbo §3.5, Fig. 9): copies where scopes differ,
// redistributions where bindings differ, on instances bound by hand.
// RUN: turbine-opt %s --split-input-file --instance-stitch | FileCheck %s
// RUN: turbine-opt %s --split-input-file --instance-stitch=explain=true --verify-diagnostics -o /dev/null
// Stitching twice moves nothing more: an operand arriving through a copy or redistribution has
// the scope and binding these give it.
// RUN: turbine-opt %s --split-input-file --instance-stitch --instance-stitch | FileCheck %s

// Tests Fig. 9 left: g0's output is in the global buffer, g1 runs out of the local buffers; the
// bindings agree, so only a copy moves what g1 reads.
// CHECK-LABEL: func.func @scopes
// CHECK:         %[[A:.*]] = instance.instance "g0"
// CHECK:         %[[C:.*]] = instance.copy %[[A]] to lb : tensor<4x16xf32>
// CHECK-NEXT:    instance.instance "g1"[0 of 1 along 0] (%[[C]])
// CHECK-NOT:     instance.redistribute
// expected-remark@+1 {{2 instances stitched by 0 concatenations and 0 slices (from instance-split), 1 copies and 0 redistributions}}
func.func @scopes(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {bind = array<i64: 4, 2>, order = 0 : i64, scope = #instance<scope gb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  // expected-remark@+1 {{'g1' #0 (8 cores, lb): operand 0 copied gb -> lb}}
  %b = instance.instance "g1"[0 of 1 along 0] (%a) {bind = array<i64: 4, 2>, order = 1 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    instance.yield %t : tensor<4x16xf32>
  }
  return %b : tensor<4x16xf32>
}

// -----

// Tests Fig. 9 right: g0 spreads the columns over 8 cores, g1 needs 4 row shares of 2 column
// shares; the redistribution keeps the smaller factor per dimension, [1, 2].
// CHECK-LABEL: func.func @bindings
// CHECK:         %[[A:.*]] = instance.instance "g0"
// CHECK:         %[[R:.*]] = instance.redistribute %[[A]] from [1, 8] to [1, 2] : tensor<4x16xf32>
// CHECK-NEXT:    instance.instance "g1"[0 of 1 along 0] (%[[R]])
// CHECK-NOT:     instance.copy
// expected-remark@+1 {{2 instances stitched by 0 concatenations and 0 slices (from instance-split), 0 copies and 1 redistributions}}
func.func @bindings(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {bind = array<i64: 1, 8>, order = 0 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  // expected-remark@+1 {{'g1' #0 (8 cores, lb): operand 0 redistributed [1, 8] -> [1, 2]}}
  %b = instance.instance "g1"[0 of 1 along 0] (%a) {bind = array<i64: 4, 2>, order = 1 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    instance.yield %t : tensor<4x16xf32>
  }
  return %b : tensor<4x16xf32>
}

// -----

// Tests instances of a split group read through the concatenation instance-split made: both
// movements go on what the consumer reads, after the join; a function argument needs none.
// CHECK-LABEL: func.func @joined
// CHECK:         %[[J:.*]] = instance.concat
// CHECK:         %[[R:.*]] = instance.redistribute %[[J]] from [1, 8] to [1, 1] : tensor<4x16xf32>
// CHECK-NEXT:    %[[C:.*]] = instance.copy %[[R]] to gb : tensor<4x16xf32>
// CHECK-NEXT:    instance.instance "g1"[0 of 1 along 0] (%[[C]], %{{.*}})
// expected-remark@+1 {{3 instances stitched by 1 concatenations and 0 slices (from instance-split), 1 copies and 1 redistributions}}
func.func @joined(%x: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> tensor<4x8xf32> {
  %a = instance.instance "g0"[0 of 2 along 0] (%x) {bind = array<i64: 1, 8>, order = 0 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %s = graph.slice %p {starts = array<i64: 0, 0>} : tensor<4x16xf32> -> tensor<2x16xf32>
    %r = graph.relu %s : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %b = instance.instance "g0"[1 of 2 along 0] (%x) {bind = array<i64: 1, 8>, order = 1 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %s = graph.slice %p {starts = array<i64: 2, 0>} : tensor<4x16xf32> -> tensor<2x16xf32>
    %r = graph.relu %s : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %j = instance.concat %a, %b along 0 : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
  // expected-remark@+1 {{'g1' #0 (8 cores, gb): operand 0 redistributed [1, 8] -> [1, 1]; operand 0 copied lb -> gb}}
  %c = instance.instance "g1"[0 of 1 along 0] (%j, %w) {bind = array<i64: 1, 8>, order = 2 : i64, scope = #instance<scope gb>} : (tensor<4x16xf32>, tensor<16x8xf32>) -> tensor<4x8xf32> {
  ^bb0(%p: tensor<4x16xf32>, %q: tensor<16x8xf32>):
    %m = graph.matmul %p, %q : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
    instance.yield %m : tensor<4x8xf32>
  }
  return %c : tensor<4x8xf32>
}
