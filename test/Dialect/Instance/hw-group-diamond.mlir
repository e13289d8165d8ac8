// RUN: turbine-opt %s --hw-group="target=mini explain=true" 2>&1 | FileCheck %s
// RUN: turbine-opt %s --hw-group="target=mini scope=lb explain=true" 2>&1 | FileCheck %s --check-prefix=LB

// Tests rule (ii) of hw-group (GraphTurbo §3.2) on a diamond whose merged subgraph needs a larger
// split factor than any of its parts. The rule keeps the LB well used, so it refuses the merge
// when the instances are sized for the LB; sized for the GB (the default scope) the factor only
// sets how many instances share the GB, and the merge, which saves the kernel boundaries between
// the branches, is taken (BERT-base's FFN at batch 32: 11.49 M cycles refused, 8.30 M merged).
// CHECK: remark: diamond merge from entry {conv2d@{{.*}}} of {sigmoid@{{.*}}} ({{.*}}) + {conv2d@{{.*}}} ({{.*}}) + {mul@{{.*}}} ({{.*}}) -> f=2 on dim 0 reaching 3 ops: accepted: the merged factor 2 exceeds the largest part's 1, which rule (ii) refuses only for instances sized for the LB
// CHECK: remark: straight merge {{.*}}: accepted by rule (i)
// CHECK-LABEL: func.func @diamond
// CHECK:         instance.group "g0"
// CHECK-COUNT-2:   graph.conv2d
// CHECK:           instance.yield
// CHECK-NOT:     instance.group
// LB: remark: diamond merge {{.*}} -> f=32 on dim 2 reaching 3 ops: refused by rule (ii): the merged factor 32 exceeds the largest part's 16
// LB-LABEL: func.func @diamond
func.func @diamond(%x: tensor<2x16x32x32xf32>) -> tensor<2x16x32x32xf32> {
  %w = graph.weight "w" : tensor<16x16x3x3xf32>
  %e = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32>
  %a = graph.sigmoid %e : tensor<2x16x32x32xf32>
  %v = graph.weight "v" : tensor<16x16x3x3xf32>
  %b = graph.conv2d %e, %v {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32>
  %o = graph.mul %a, %b : tensor<2x16x32x32xf32>, tensor<2x16x32x32xf32> -> tensor<2x16x32x32xf32>
  return %o : tensor<2x16x32x32xf32>
}
