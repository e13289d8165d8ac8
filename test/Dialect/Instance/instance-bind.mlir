// Tests of instance-bind (GraphTurbo §3.4, Algorithm 4) for stcp920's clusters of 8 cores with
// 64 KiB local buffers: the plain strategy, bindings inferred by producers, scope GB on a
// conflict and for outputs too large for the local buffers.
// RUN: turbine-opt %s --split-input-file --instance-bind=target=stcp920 | FileCheck %s
// RUN: turbine-opt %s --split-input-file --instance-bind="target=stcp920 explain=true" --verify-diagnostics -o /dev/null

// Tests the plain strategy (factors 8, 4, 2, 1 of the free cores, outer dimensions first: 4 rows
// on 4 cores, then the columns on the 2 left) and its inference for the producer, whose matching
// dimensions take the same factors; the producer keeps them (the plain binding uses no more
// cores) and its output stays in the local buffers.
// CHECK-LABEL: func.func @chain
// CHECK:         instance.instance "g0"{{.*}} {bind = array<i64: 4, 2>, order = 0 : i64, scope = #instance<scope lb>}
// CHECK:         instance.instance "g1"{{.*}} {bind = array<i64: 4, 2>, order = 1 : i64, scope = #instance<scope lb>}
func.func @chain(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark@+1 {{'g0' #0 bound [4, 2] (8 cores), scope lb: inferred [4, 2] from 'g1' #0}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  // expected-remark@+1 {{'g1' #0 bound [4, 2] (8 cores), scope lb: plain [4, 2]}}
  %b = instance.instance "g1"[0 of 1 along 0] (%a) {order = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    instance.yield %t : tensor<4x16xf32>
  }
  return %b : tensor<4x16xf32>
}

// -----

// Tests a conflict (Algorithm 4, lines 11-12): the transpose (visited first) needs g0 bound
// [1, 8] — its 16 rows are g0's columns — and the tanh needs [4, 2]; g0 goes to the global
// buffer and, no longer in LB, takes the plain binding.
// CHECK-LABEL: func.func @conflict
// CHECK:         instance.instance "g0"{{.*}} {bind = array<i64: 4, 2>, order = 0 : i64, scope = #instance<scope gb>}
// CHECK:         instance.instance "g1"{{.*}} {bind = array<i64: 4, 2>, order = 1 : i64, scope = #instance<scope lb>}
// CHECK:         instance.instance "g2"{{.*}} {bind = array<i64: 8, 1>, order = 2 : i64, scope = #instance<scope lb>}
func.func @conflict(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<16x4xf32>) {
  // expected-remark@+1 {{'g0' #0 bound [4, 2] (8 cores), scope gb: inferred [1, 8] from 'g2' #0; scope gb: 'g1' #0 needs it bound [4, 2] but it is bound [1, 8]; plain [4, 2] (in GB, the inferred binding does not hold)}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  // expected-remark@+1 {{'g1' #0 bound [4, 2] (8 cores), scope lb: plain [4, 2]}}
  %b = instance.instance "g1"[0 of 1 along 0] (%a) {order = 1 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    instance.yield %t : tensor<4x16xf32>
  }
  // expected-remark@+1 {{'g2' #0 bound [8, 1] (8 cores), scope lb: plain [8, 1]}}
  %c = instance.instance "g2"[0 of 1 along 0] (%a) {order = 2 : i64} : (tensor<4x16xf32>) -> tensor<16x4xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.transpose %p {permutation = array<i64: 1, 0>} : tensor<4x16xf32> -> tensor<16x4xf32>
    instance.yield %t : tensor<16x4xf32>
  }
  return %b, %c : tensor<4x16xf32>, tensor<16x4xf32>
}

// -----

// Tests a dimension that must not be bound: a core cannot compute a share of the softmax's axis
// on its own, so only the 2 rows are spread, over 2 cores.
// CHECK-LABEL: func.func @softmax
// CHECK:         {bind = array<i64: 2, 1>, order = 0 : i64, scope = #instance<scope lb>}
func.func @softmax(%x: tensor<2x64xf32>) -> tensor<2x64xf32> {
  // expected-remark@+1 {{'g0' #0 bound [2, 1] (2 cores), scope lb: plain [2, 1]}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<2x64xf32>) -> tensor<2x64xf32> {
  ^bb0(%p: tensor<2x64xf32>):
    %s = graph.softmax %p {axis = 1 : i64} : tensor<2x64xf32>
    instance.yield %s : tensor<2x64xf32>
  }
  return %a : tensor<2x64xf32>
}

// -----

// Tests an output whose share per core (1 MiB over 8 cores) exceeds a 64 KiB local buffer: GB.
// CHECK-LABEL: func.func @too_big
// CHECK:         {bind = array<i64: 8, 1>, order = 0 : i64, scope = #instance<scope gb>}
func.func @too_big(%x: tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  // expected-remark@+1 {{'g0' #0 bound [8, 1] (8 cores), scope gb: plain [8, 1]; scope gb: its share of 131072 bytes per core exceeds the 65536 bytes of a local buffer}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<64x4096xf32>) -> tensor<64x4096xf32> {
  ^bb0(%p: tensor<64x4096xf32>):
    %r = graph.relu %p : tensor<64x4096xf32>
    instance.yield %r : tensor<64x4096xf32>
  }
  return %a : tensor<64x4096xf32>
}
