// RUN: turbine-opt %s --split-input-file --graph-split-reductions | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-split-reductions="max-view-rank=3" | FileCheck %s --check-prefix=RANK3
// RUN: turbine-opt %s --split-input-file --graph-split-reductions="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-split-reductions="max-view-rank=2" 2>&1 | FileCheck %s --check-prefix=BADRANK
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-split-reductions)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADRANK: max-view-rank must be 3 to 4 (a single run needs 3), got 2
// ANCHOR: error: Can't add pass 'graph-split-reductions' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no split-reductions-errors.mlir with expected-error cases: every reduction of a valid
// graph splits into reductions over single runs of axes, which always fit a view of rank 3; the
// pass's only errors are the option errors above.

// Tests that three runs of reduced axes between kept ones ([2, R3, 4, R5, 6, R7]: a view of 6
// dimensions) become a chain, the last run first, and a reshape for keepdims = false.
// CHECK-LABEL: func.func @alternating_mean
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5x6x7xf32>)
// CHECK-NEXT: %[[A:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: 5>} : tensor<2x3x4x5x6x7xf32> -> tensor<2x3x4x5x6x1xf32>
// CHECK-NEXT: %[[B:.*]] = graph.reduce_mean %[[A]] {axes = array<i64: 3>} : tensor<2x3x4x5x6x1xf32> -> tensor<2x3x4x1x6x1xf32>
// CHECK-NEXT: %[[C:.*]] = graph.reduce_mean %[[B]] {axes = array<i64: 1>} : tensor<2x3x4x1x6x1xf32> -> tensor<2x1x4x1x6x1xf32>
// CHECK-NEXT: %[[R:.*]] = graph.reshape %[[C]] : tensor<2x1x4x1x6x1xf32> -> tensor<2x4x6xf32>
// CHECK-NEXT: return %[[R]]
func.func @alternating_mean(%x: tensor<2x3x4x5x6x7xf32>) -> tensor<2x4x6xf32> {
  // expected-remark@+1 {{split over axes [1, 3, 5] into 3 reductions over [[5], [3], [1]]: one view would have 6 dimensions, more than 4}}
  %a = graph.reduce_mean %x {axes = array<i64: 1, 3, 5>, keepdims = false} : tensor<2x3x4x5x6x7xf32> -> tensor<2x4x6xf32>
  return %a : tensor<2x4x6xf32>
}

// -----

// Tests that the remaining axes stay together once they fit (an outer of 1 leaves the view),
// negative axes counted from the end, and keepdims needing no reshape.
// CHECK-LABEL: func.func @leading_max
// CHECK-NEXT: %[[A:.*]] = graph.reduce_max %{{.*}} {axes = array<i64: 4>} : tensor<2x3x4x5x6x7xf32> -> tensor<2x3x4x5x1x7xf32>
// CHECK-NEXT: %[[B:.*]] = graph.reduce_max %[[A]] {axes = array<i64: 0, 2>} : tensor<2x3x4x5x1x7xf32> -> tensor<1x3x1x5x1x7xf32>
// CHECK-NEXT: return %[[B]]
// RANK3-LABEL: func.func @leading_max
// RANK3-NEXT: graph.reduce_max %{{.*}} {axes = array<i64: 4>}
// RANK3-NEXT: graph.reduce_max %{{.*}} {axes = array<i64: 2>}
// RANK3-NEXT: graph.reduce_max %{{.*}} {axes = array<i64: 0>}
func.func @leading_max(%x: tensor<2x3x4x5x6x7xf32>) -> tensor<1x3x1x5x1x7xf32> {
  // expected-remark@+1 {{split over axes [0, 2, 4] into 2 reductions over [[4], [0, 2]]}}
  %b = graph.reduce_max %x {axes = array<i64: 0, 2, -2>} : tensor<2x3x4x5x6x7xf32> -> tensor<1x3x1x5x1x7xf32>
  return %b : tensor<1x3x1x5x1x7xf32>
}

// -----

// Tests that a product is split like the other reductions (a product of products is the
// product).
// CHECK-LABEL: func.func @leading_product
// CHECK-NEXT: %[[A:.*]] = graph.reduce_prod %{{.*}} {axes = array<i64: 4>} : tensor<2x3x4x5x6x7xf32> -> tensor<2x3x4x5x1x7xf32>
// CHECK-NEXT: %[[B:.*]] = graph.reduce_prod %[[A]] {axes = array<i64: 0, 2>} : tensor<2x3x4x5x1x7xf32> -> tensor<1x3x1x5x1x7xf32>
// CHECK-NEXT: return %[[B]]
// RANK3-LABEL: func.func @leading_product
func.func @leading_product(%x: tensor<2x3x4x5x6x7xf32>) -> tensor<1x3x1x5x1x7xf32> {
  // expected-remark@+1 {{split over axes [0, 2, 4] into 2 reductions over [[4], [0, 2]]}}
  %b = graph.reduce_prod %x {axes = array<i64: 0, 2, -2>} : tensor<2x3x4x5x6x7xf32> -> tensor<1x3x1x5x1x7xf32>
  return %b : tensor<1x3x1x5x1x7xf32>
}

// -----

// Tests that reductions a view holds are left alone: contiguous axes, two runs with an outer of
// 1, every axis (axes empty).
// CHECK-LABEL: func.func @fits
// CHECK-NEXT: graph.reduce_sum %{{.*}} {axes = array<i64: 1, 2>}
// CHECK-NEXT: graph.reduce_sum %{{.*}} {axes = array<i64: 0, 2>}
// CHECK-NEXT: graph.reduce_sum %{{.*}} {axes = array<i64>}
// CHECK-NEXT: return
func.func @fits(%x: tensor<2x3x4x5xf32>) -> (tensor<2x1x1x5xf32>, tensor<1x3x1x5xf32>, tensor<1x1x1x1xf32>) {
  %a = graph.reduce_sum %x {axes = array<i64: 1, 2>} : tensor<2x3x4x5xf32> -> tensor<2x1x1x5xf32>
  %b = graph.reduce_sum %x {axes = array<i64: 0, 2>} : tensor<2x3x4x5xf32> -> tensor<1x3x1x5xf32>
  %c = graph.reduce_sum %x {axes = array<i64>} : tensor<2x3x4x5xf32> -> tensor<1x1x1x1xf32>
  return %a, %b, %c : tensor<2x1x1x5xf32>, tensor<1x3x1x5xf32>, tensor<1x1x1x1xf32>
}
