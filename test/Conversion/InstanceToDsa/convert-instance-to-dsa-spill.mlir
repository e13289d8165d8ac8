// Tests memory planning in convert-instance-to-dsa (GraphTurbo §4.3) on `solo`, whose 64 KiB GB
// cannot hold a 128 KiB feature map: the groups' instances are rows of it. Each kernel's
// intermediates (the rows an instance computes, with their halos, and the weights of its layers)
// need most of the GB, so the planner sends the first group's four 32 KiB row blocks and their
// concatenation to DDR (with either policy: they all overflow), and the kernels keep the GB as
// their arena, where their intermediates stay. @wide_rows, 72 columns wide, has intermediates
// that do not fit beside each other: those go to DDR.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=solo},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{spill=longest})' | FileCheck %s
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=solo},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{spill=largest})' | FileCheck %s
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=solo},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true})' --verify-diagnostics -o /dev/null
// CHECK-LABEL: func.func @rows
// CHECK:         dsa.alloc {cluster = 0 : i64} : memref<16384xf32, #dsa.memory_space<gb>>
// CHECK-COUNT-4: dsa.alloc : memref<1x8x{{1[678]}}x64xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.launch @rows_0_g0
// CHECK:         dsa.alloc : memref<1x8x64x64xf32, #dsa.memory_space<ddr>>
// CHECK:         dsa.launch @rows_1_copy
// CHECK:         dsa.launch @rows_2_g1
func.func @rows(%x: tensor<1x8x64x64xf32>) -> tensor<1x8x64x64xf32> {
  // expected-remark@-1 {{@rows: 3 kernels on 1 cluster(s); GB of a cluster (of 65536 bytes): instance outputs up to 0 bytes, a kernel's intermediates up to 41536 bytes; 5 of 5 instance outputs and 0 intermediates spilled to DDR}}
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %b1 = graph.weight "b1" : tensor<8xf32>
  %w2 = graph.weight "w2" : tensor<8x8x3x3xf32>
  %c1 = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x64x64xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x64x64xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x64x64xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x64x64xf32>
  %a = graph.add %c2, %x : tensor<1x8x64x64xf32>, tensor<1x8x64x64xf32> -> tensor<1x8x64x64xf32>
  %r = graph.relu %a : tensor<1x8x64x64xf32>
  return %r : tensor<1x8x64x64xf32>
}

func.func @wide_rows(%x: tensor<1x8x64x72xf32>) -> tensor<1x8x64x72xf32> {
  // expected-remark@-1 {{9 of 9 instance outputs and 6 intermediates spilled to DDR}}
  %w1 = graph.weight "w1" : tensor<8x8x3x3xf32>
  %b1 = graph.weight "b1" : tensor<8xf32>
  %w2 = graph.weight "w2" : tensor<8x8x3x3xf32>
  %c1 = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x64x72xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x64x72xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x64x72xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x64x72xf32>
  %a = graph.add %c2, %x : tensor<1x8x64x72xf32>, tensor<1x8x64x72xf32> -> tensor<1x8x64x72xf32>
  %r = graph.relu %a : tensor<1x8x64x72xf32>
  return %r : tensor<1x8x64x72xf32>
}
