// Tests that a run of instances whose kernel would take too many buffer arguments continues in a
// new launch of the same kernel. On mini with scope=lb this chain of elementwise layers and a
// pooling is cut into hundreds of row instances of one group, each adding its own output buffers
// (one per cluster; the views of a buffer are made in the kernel) to the kernel's arguments; past
// 2048 the run goes on in
// `_part1`, launched after the first part (a call with tens of thousands of memref fields is
// more than LLVM's instruction selection can pass, and the kernel read garbage handles).
// RUN: turbine-opt %s --pass-pipeline='builtin.module(turbine-graphturbo{target=mini scope=lb})' | FileCheck %s
// The copy kernel joining the row instances' outputs into one tensor goes on in a new launch
// the same way, between copy layers of at most 256 pairs.
// CHECK-LABEL: dsa.kernel @main_0_g0(
// CHECK-LABEL: dsa.kernel @main_0_g0_part1(
// CHECK-LABEL: dsa.kernel @main_1_copy(
// CHECK-LABEL: dsa.kernel @main_1_copy_part1(
// CHECK-LABEL: func.func @main(
// CHECK:         dsa.launch @main_0_g0(
// CHECK:         dsa.launch @main_0_g0_part1(
// CHECK:         dsa.launch @main_1_copy(
// CHECK:         dsa.launch @main_1_copy_part1(
func.func @main(%x: tensor<1x4x32768x64xf32>) -> tensor<1x4x32768x64xf32> {
  %0 = graph.relu %x : tensor<1x4x32768x64xf32>
  %1 = graph.exp %0 : tensor<1x4x32768x64xf32>
  %2 = graph.max_pool2d %1 {kernel = array<i64: 3, 1>, pads = array<i64: 1, 0, 1, 0>, strides = array<i64: 1, 1>} : tensor<1x4x32768x64xf32> -> tensor<1x4x32768x64xf32>
  %3 = graph.tanh %2 : tensor<1x4x32768x64xf32>
  return %3 : tensor<1x4x32768x64xf32>
}
