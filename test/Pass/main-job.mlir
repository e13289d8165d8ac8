// RUN: turbine-opt %inputs/resnet50-bottleneck.mlir \
// RUN:   --pass-pipeline='builtin.module(func.func(graph-fold-reshapes,canonicalize,cse))' > %t
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=COUNT < %t
// RUN: FileCheck %s --check-prefix=BN < %t
// RUN: FileCheck %s --check-prefix=RELU < %t
// RUN: FileCheck %s --check-prefix=ADD < %t

// Tests that the main job of tools/scripts/run (the README's pipeline on the ResNet-50 bottleneck
// stage) succeeds and keeps the model's structure: the weights file, both blocks, the projection
// shortcut reading the input, and the identity shortcut reading the first block's output.
// CHECK: module attributes {graph.weights = "resnet50.safetensors"}
// CHECK-LABEL: func.func @resnet50_layer1
// CHECK-SAME: (%[[X:.*]]: tensor<8x64x56x56xf32>) -> tensor<8x256x56x56xf32>
// The conv block's main path: 1x1, 3x3 (padded), 1x1 to 256 channels.
// CHECK: %[[C1:.*]] = graph.conv2d %[[X]], %{{.*}} : (tensor<8x64x56x56xf32>, tensor<64x64x1x1xf32>)
// CHECK: graph.batch_norm %[[C1]]
// CHECK: %[[R1:.*]] = graph.relu
// CHECK: %[[C2:.*]] = graph.conv2d %[[R1]], %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>)
// CHECK: %[[R2:.*]] = graph.relu
// CHECK: %[[C3:.*]] = graph.conv2d %[[R2]], %{{.*}} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x56x56xf32>
// CHECK: %[[B3:.*]] = graph.batch_norm %[[C3]]
// The projection shortcut reads the block's input.
// CHECK: %[[CS:.*]] = graph.conv2d %[[X]], %{{.*}} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x56x56xf32>
// CHECK: %[[BS:.*]] = graph.batch_norm %[[CS]]
// CHECK: %[[SUM1:.*]] = graph.add %[[B3]], %[[BS]] : tensor<8x256x56x56xf32>, tensor<8x256x56x56xf32> -> tensor<8x256x56x56xf32>
// CHECK: %[[BLOCK1:.*]] = graph.relu %[[SUM1]] : tensor<8x256x56x56xf32>
// The identity block: 1x1 from 256 channels, 3x3, 1x1, and the shortcut from the first block.
// CHECK: graph.conv2d %[[BLOCK1]], %{{.*}} : (tensor<8x256x56x56xf32>, tensor<64x256x1x1xf32>)
// CHECK: graph.conv2d %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>}
// CHECK: %[[C6:.*]] = graph.conv2d %{{.*}}, %{{.*}} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>)
// CHECK: %[[B6:.*]] = graph.batch_norm %[[C6]]
// CHECK: %[[SUM2:.*]] = graph.add %[[B6]], %[[BLOCK1]]
// CHECK: %[[OUT:.*]] = graph.relu %[[SUM2]]
// CHECK: return %[[OUT]] : tensor<8x256x56x56xf32>

// Tests that nothing is lost or duplicated: 7 convolutions, 7 batch norms, 6 relus, 2 adds.
// COUNT-COUNT-7: graph.conv2d
// COUNT-NOT: graph.conv2d
// BN-COUNT-7: graph.batch_norm
// BN-NOT: graph.batch_norm
// RELU-COUNT-6: graph.relu
// RELU-NOT: graph.relu
// ADD-COUNT-2: graph.add
// ADD-NOT: graph.add
