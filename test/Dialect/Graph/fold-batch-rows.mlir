// RUN: turbine-opt %s --split-input-file --graph-fold-batch-rows | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-fold-batch-rows="explain=true" --verify-diagnostics -o /dev/null
// RUN: not turbine-opt %s --graph-fold-batch-rows="explain=maybe" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(graph-fold-batch-rows)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// BADOPT: 'maybe' is invalid value for boolean argument
// Tests that the pass runs on functions only: the pass manager refuses it on the module.
// ANCHOR: error: Can't add pass 'graph-fold-batch-rows' restricted to 'func.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no fold-batch-rows-errors.mlir with expected-error cases: the pass never fails on
// valid IR (a verified batch_matmul with a shared right operand always has the rows it folds);
// its only errors are the option errors above, raised before it sees any IR.

// Tests that a sequence-first in-projection at batch 1 (128 batches of one row by one shared
// weight) becomes one product of 128 rows between reshapes.
// CHECK-LABEL: func.func @sequence_first
// CHECK-SAME: (%[[X:.*]]: tensor<128x1x768xf32>, %[[W:.*]]: tensor<768x2304xf32>)
// CHECK-NEXT: %[[ROWS:.*]] = graph.reshape %[[X]] : tensor<128x1x768xf32> -> tensor<128x768xf32>
// CHECK-NEXT: %[[P:.*]] = graph.matmul %[[ROWS]], %[[W]] : tensor<128x768xf32>, tensor<768x2304xf32> -> tensor<128x2304xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.reshape %[[P]] : tensor<128x2304xf32> -> tensor<128x1x2304xf32>
// CHECK-NEXT: return %[[Y]]
func.func @sequence_first(%x: tensor<128x1x768xf32>, %w: tensor<768x2304xf32>) -> tensor<128x1x2304xf32> {
  // expected-remark@+1 {{folds 128 batches × 1 rows into one product of 128 rows}}
  %y = graph.batch_matmul %x, %w : tensor<128x1x768xf32>, tensor<768x2304xf32> -> tensor<128x1x2304xf32>
  return %y : tensor<128x1x2304xf32>
}

// -----

// Tests that a right operand with batch dimensions of size 1 is shared too: it is reshaped to
// its matrix, and two batch dimensions fold into the rows.
// CHECK-LABEL: func.func @unit_batch_weight
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x8xf32>, %[[W:.*]]: tensor<1x8x5xf32>)
// CHECK-NEXT: %[[ROWS:.*]] = graph.reshape %[[X]] : tensor<2x3x4x8xf32> -> tensor<24x8xf32>
// CHECK-NEXT: %[[M:.*]] = graph.reshape %[[W]] : tensor<1x8x5xf32> -> tensor<8x5xf32>
// CHECK-NEXT: %[[P:.*]] = graph.matmul %[[ROWS]], %[[M]] : tensor<24x8xf32>, tensor<8x5xf32> -> tensor<24x5xf32>
// CHECK-NEXT: %[[Y:.*]] = graph.reshape %[[P]] : tensor<24x5xf32> -> tensor<2x3x4x5xf32>
// CHECK-NEXT: return %[[Y]]
func.func @unit_batch_weight(%x: tensor<2x3x4x8xf32>, %w: tensor<1x8x5xf32>) -> tensor<2x3x4x5xf32> {
  // expected-remark@+1 {{folds 6 batches × 4 rows into one product of 24 rows}}
  %y = graph.batch_matmul %x, %w : tensor<2x3x4x8xf32>, tensor<1x8x5xf32> -> tensor<2x3x4x5xf32>
  return %y : tensor<2x3x4x5xf32>
}

// -----

// Tests that attention's products, whose right operand differs per batch, are left alone.
// CHECK-LABEL: func.func @attention
// CHECK-NEXT: graph.batch_matmul
// CHECK-NOT: graph.matmul
func.func @attention(%q: tensor<12x128x64xf32>, %k: tensor<12x64x128xf32>) -> tensor<12x128x128xf32> {
  %s = graph.batch_matmul %q, %k : tensor<12x128x64xf32>, tensor<12x64x128xf32> -> tensor<12x128x128xf32>
  return %s : tensor<12x128x128xf32>
}

// -----

// Tests that a left operand broadcast over the right operand's batch is left alone: its rows do
// not fill the result's batch.
// CHECK-LABEL: func.func @broadcast_rows
// CHECK-NEXT: graph.batch_matmul
func.func @broadcast_rows(%x: tensor<1x4x8xf32>, %w: tensor<3x8x5xf32>) -> tensor<3x4x5xf32> {
  %y = graph.batch_matmul %x, %w : tensor<1x4x8xf32>, tensor<3x8x5xf32> -> tensor<3x4x5xf32>
  return %y : tensor<3x4x5xf32>
}

// -----

// Tests that a batch-first product (BERT-base at batch 8: more rows per batch than batches) keeps
// its batch, which the schedules cut over the clusters.
// CHECK-LABEL: func.func @batch_first
// CHECK-NEXT: graph.batch_matmul
func.func @batch_first(%x: tensor<8x128x768xf32>, %w: tensor<768x768xf32>) -> tensor<8x128x768xf32> {
  %y = graph.batch_matmul %x, %w : tensor<8x128x768xf32>, tensor<768x768xf32> -> tensor<8x128x768xf32>
  return %y : tensor<8x128x768xf32>
}
