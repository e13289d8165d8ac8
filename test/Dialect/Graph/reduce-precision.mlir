// RUN: turbine-opt %s --split-input-file --graph-reduce-precision | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-reduce-precision="precision=bf16" | FileCheck %s --check-prefix=BF16
// RUN: turbine-opt %s --split-input-file --graph-reduce-precision="keep-io-types=false" | FileCheck %s --check-prefix=NOIO
// RUN: turbine-opt %s --split-input-file --graph-reduce-precision="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-reduce-precision="precision=f8" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-reduce-precision)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: error: graph-reduce-precision: precision 'f8': expected 'f16' or 'bf16'
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-reduce-precision' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no reduce-precision-errors.mlir with expected-error cases: the pass never fails on
// valid IR; its only errors are the option errors above, raised before it sees any IR.

// Tests the policy on an attention-like block: the product, scaling, activation and sum compute
// in f16, the softmax stays in f32 between casts, the constant read only by f16 ops is stored in
// f16, the arguments and the result keep f32 (one cast each, right after the definition).
// CHECK-LABEL: func.func @attention
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[WH:.*]] = graph.cast %[[W]] : tensor<8x8xf32> -> tensor<8x8xf16>
// CHECK-NEXT: %[[XH:.*]] = graph.cast %[[X]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT: %[[Q:.*]] = graph.matmul %[[XH]], %[[WH]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[QF:.*]] = graph.cast %[[Q]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: %[[S:.*]] = graph.softmax %[[QF]] : tensor<4x8xf32>
// CHECK-NEXT: %[[SH:.*]] = graph.cast %[[S]] : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<2.000000e+00> : tensor<f16>
// CHECK-NEXT: %[[M:.*]] = graph.mul %[[SH]], %[[C]] : tensor<4x8xf16>, tensor<f16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[R:.*]] = graph.relu %[[Q]] : tensor<4x8xf16>
// CHECK-NEXT: %[[A:.*]] = graph.add %[[M]], %[[R]] : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
// CHECK-NEXT: %[[Y:.*]] = graph.cast %[[A]] : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK-NEXT: return %[[Y]]
// Without keep-io-types the interface takes the reduced type: no casts at the edges.
// NOIO-LABEL: func.func @attention
// NOIO-SAME: (%[[X:.*]]: tensor<4x8xf16>, %[[W:.*]]: tensor<8x8xf16>) -> tensor<4x8xf16>
// NOIO-NEXT: %[[Q:.*]] = graph.matmul %[[X]], %[[W]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// NOIO: %[[A:.*]] = graph.add %{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<4x8xf16> -> tensor<4x8xf16>
// NOIO-NEXT: return %[[A]] : tensor<4x8xf16>
// NOIO-LABEL: func.func @shared
// NOIO-SAME: (%{{.*}}: tensor<4x8xf16>) -> (tensor<4x8xi64>, tensor<8xf16>)
// BF16-LABEL: func.func @attention
// BF16: graph.matmul {{.*}} : tensor<4x8xbf16>, tensor<8x8xbf16> -> tensor<4x8xbf16>
// BF16: graph.softmax {{.*}} : tensor<4x8xf32>
// BF16: graph.constant dense<2.000000e+00> : tensor<bf16>
func.func @attention(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  // expected-remark@-1 {{4 ops compute in f16, 1 kept in f32; 5 casts; 1 weights and constants stored in f16}}
  %q = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  // expected-remark@+1 {{kept in f32: a softmax sums exponentials that overflow 16 bits}}
  %s = graph.softmax %q {axis = -1 : i64} : tensor<4x8xf32>
  %c = graph.constant dense<2.0> : tensor<f32>
  %m = graph.mul %s, %c : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %r = graph.relu %q : tensor<4x8xf32>
  %a = graph.add %m, %r : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  return %a : tensor<4x8xf32>
}

// -----

// Tests weights and constants read by both kinds of op: a weight read only by a product is
// stored in f16; a non-splat constant read by f16 and f32 ops stays f32 and is cast for the
// f16 one; integer ops and the integers a cast produces are left alone (the cast to i64 reads
// the f16 value back in f32, so the integers it truncates to do not change).
// CHECK-LABEL: func.func @shared
// CHECK-NEXT: graph.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf16>
// CHECK-NEXT: %[[W:.*]] = graph.weight "fc.weight" : tensor<8x8xf16>
// CHECK-NEXT: %[[C:.*]] = graph.constant dense<[1.000000e+00, 2.500000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<8xf32>
// CHECK-NEXT: %[[CH:.*]] = graph.cast %[[C]] : tensor<8xf32> -> tensor<8xf16>
// CHECK: graph.matmul {{.*}}, %[[W]] : tensor<4x8xf16>, tensor<8x8xf16> -> tensor<4x8xf16>
// CHECK: graph.add {{.*}}, %[[CH]] : tensor<4x8xf16>, tensor<8xf16> -> tensor<4x8xf16>
// CHECK: %[[BACK:.*]] = graph.cast %{{.*}} : tensor<4x8xf16> -> tensor<4x8xf32>
// CHECK: graph.exp %[[C]] : tensor<8xf32>
// CHECK: graph.cast %[[BACK]] : tensor<4x8xf32> -> tensor<4x8xi64>
func.func @shared(%x: tensor<4x8xf32>) -> (tensor<4x8xi64>, tensor<8xf32>) {
  // expected-remark@-1 {{2 ops compute in f16, 1 kept in f32; 3 casts; 1 weights and constants stored in f16}}
  %w = graph.weight "fc.weight" : tensor<8x8xf32>
  %c = graph.constant dense<[1.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %y = graph.matmul %x, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
  %b = graph.add %y, %c : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  // expected-remark@+1 {{kept in f32: its results overflow or lose their differences in 16 bits}}
  %e = graph.exp %c : tensor<8xf32>
  %i = graph.cast %b : tensor<4x8xf32> -> tensor<4x8xi64>
  return %i, %e : tensor<4x8xi64>, tensor<8xf32>
}

// -----

// Tests the ops the dialect or their meaning keeps in f32: top_k takes f32 only, and a
// quantization's scales stay f32; the product before them computes in f16.
// CHECK-LABEL: func.func @kept_by_type
// CHECK:       graph.matmul {{.*}} -> tensor<2x8xf16>
// CHECK:       %[[BACK:.*]] = graph.cast %{{.*}} : tensor<2x8xf16> -> tensor<2x8xf32>
// CHECK:       graph.top_k %[[BACK]] {{.*}} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
// CHECK:       graph.quantize %[[BACK]], %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<f32>, tensor<i8>) -> tensor<2x8xi8>
func.func @kept_by_type(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>, %scale: tensor<f32>, %zero: tensor<i8>) -> (tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x8xi8>) {
  // expected-remark@-1 {{1 ops compute in f16, 2 kept in f32; 3 casts; 0 weights and constants stored in f16}}
  %y = graph.matmul %x, %w : tensor<2x4xf32>, tensor<4x8xf32> -> tensor<2x8xf32>
  // expected-remark@+1 {{kept in f32: graph.top_k takes f32 only}}
  %values, %indices = graph.top_k %y {k = 3 : i64, axis = 1 : i64} : tensor<2x8xf32> -> tensor<2x3xf32>, tensor<2x3xi64>
  // expected-remark@+1 {{kept in f32: a quantization's scales keep f32}}
  %q = graph.quantize %y, %scale, %zero : (tensor<2x8xf32>, tensor<f32>, tensor<i8>) -> tensor<2x8xi8>
  return %values, %indices, %q : tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x8xi8>
}
