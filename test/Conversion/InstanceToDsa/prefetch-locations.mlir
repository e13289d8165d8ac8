// Tests that a weight copy prefetched under the layer before (GraphTurbo §4.4, in pieces issued
// between that layer's tiles) carries the location of the layer whose weights it copies, not the
// one it runs under: the runtime's per-layer report and trace attribute DMAs by location.
// RUN: turbine-opt %s --mlir-print-debuginfo --pass-pipeline='builtin.module(dsa-set-target{target=mini},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa)' | FileCheck %s

// The location aliases come first in the output.
// CHECK-DAG:   #[[FIRST:loc[0-9]+]] = loc("first")
// CHECK-DAG:   #[[SECOND:loc[0-9]+]] = loc("second")
// CHECK-LABEL: dsa.kernel @two_wide_convs_0_g0
// CHECK:         scf.for
// CHECK:           dsa.dma {{.*}} : memref<2304xf32, {{.*}}#dsa.memory_space<ddr>>, memref<2304xf32, {{.*}}#dsa.memory_space<gb>> loc(#[[SECOND]])
// CHECK:         dsa.conv2d {{.*}} loc(#[[FIRST]])
// CHECK:         scf.for
// CHECK:           dsa.dma {{.*}} : memref<2304xf32, {{.*}}#dsa.memory_space<ddr>>, memref<2304xf32, {{.*}}#dsa.memory_space<gb>> loc(#[[SECOND]])
// CHECK:         dsa.barrier
// CHECK:         dsa.conv2d {{.*}} loc(#[[SECOND]])
func.func @two_wide_convs(%x: tensor<2x16x32x32xf32>, %y: tensor<2x16x32x32xf32>, %z: tensor<2x16x32x32xf32>) -> tensor<2x16x32x32xf32> {
  %w1 = graph.weight "w1" : tensor<16x16x3x3xf32>
  %w2 = graph.weight "w2" : tensor<16x16x3x3xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32> loc("first")
  %c2 = graph.conv2d %y, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x32x32xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x32x32xf32> loc("second")
  %m = graph.mul %c2, %z : tensor<2x16x32x32xf32>, tensor<2x16x32x32xf32> -> tensor<2x16x32x32xf32>
  %s = graph.mul %m, %c1 : tensor<2x16x32x32xf32>, tensor<2x16x32x32xf32> -> tensor<2x16x32x32xf32>
  return %s : tensor<2x16x32x32xf32>
}
