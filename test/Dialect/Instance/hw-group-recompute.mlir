// RUN: turbine-opt %s --verify-diagnostics --hw-group="target=stcp920 explain=true" -o /dev/null
// RUN: turbine-opt %s --hw-group="target=stcp920 explain=true max-recompute=0.1" 2>&1 | FileCheck %s --check-prefix=STRICT

// Tests the cost check that keeps recomputation from cancelling the benefit of fusion (§3.1):
// two stacked 3x3 convs split into 8 slices of 8 rows make each slice recompute the first conv's
// two halo rows (10 rows for 8, 12.5 % of the pair's work). The default bound (50 %) accepts the
// merge; a 10 % bound rejects every split of the pair, so the merge is refused and each conv
// stays its own group.
// STRICT: hw-group-recompute.mlir:[[# @LINE + 9]]:8: remark: straight merge {{.*}} -> no split fits: refused by the cost check
// STRICT-LABEL: func.func @halo
// STRICT: instance.group "g0"
// STRICT: instance.group "g1"
func.func @halo(%x: tensor<1x1536x64x64xf32>) -> tensor<1x1536x64x64xf32> {
  %w0 = graph.weight "w0" : tensor<1536x1536x3x3xf32>
  %w1 = graph.weight "w1" : tensor<1536x1536x3x3xf32>
  %a = graph.conv2d %x, %w0 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1536x64x64xf32>, tensor<1536x1536x3x3xf32>) -> tensor<1x1536x64x64xf32>
  // expected-remark-re @+1 {{straight merge SG1 {conv2d@{{[0-9]+}}} (f=8 on dim 1 reaching 1 ops) + SG2 {conv2d@{{[0-9]+}}} (f=8 on dim 1 reaching 1 ops) -> f=8 on dim 2 reaching 2 ops: accepted by rule (i)}}
  %b = graph.conv2d %a, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x1536x64x64xf32>, tensor<1536x1536x3x3xf32>) -> tensor<1x1536x64x64xf32>
  return %b : tensor<1x1536x64x64xf32>
}
