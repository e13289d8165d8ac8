// Tests of hw-group (GraphTurbo §3.1-3.2, Algorithms 1-2) on the paper's own example: ResNet-50's
// conv block followed by an identity block (Fig. 2 and Fig. 5), at the paper's batch of 8, for
// the stcp920 target (an instance's live tensors in one cluster's 8 MiB global buffer).

// RUN: turbine-opt %inputs/resnet50-bottleneck.mlir --hw-group=target=stcp920 | FileCheck %s
// RUN: turbine-opt %inputs/resnet50-bottleneck.mlir --hw-group="target=stcp920 explain=true" 2>&1 >/dev/null | FileCheck %s --check-prefix=EXPLAIN

// Tests that the two blocks end as one group, {1, 2, 3, 4, 5} of Fig. 5c: every op inside, the
// block's input and the 35 weights as operands, one result, and a best split on the batch that
// reaches all 22 ops: eight instances of one image each, the split of stage 1 in Fig. 3b.
// CHECK-LABEL: func.func @resnet50_layer1
// CHECK: %[[G:.*]] = instance.group "g0"(%arg0, {{.*}}) {best_split = #instance.split<dim = 0, factor = 8, ops = 22>, split_info = [{{.*}}#instance.split<dim = 0, factor = 8, ops = 22>{{.*}}]} : (tensor<8x64x56x56xf32>, {{.*}}) -> tensor<8x256x56x56xf32> {
// CHECK-COUNT-4: graph.conv2d
// CHECK: graph.add
// CHECK-COUNT-3: graph.conv2d
// CHECK: graph.add
// CHECK: instance.yield %{{.*}} : tensor<8x256x56x56xf32>
// CHECK-NEXT: }
// CHECK-NOT: instance.group
// CHECK: return %[[G]] : tensor<8x256x56x56xf32>

// Tests the merge sequence of Fig. 5. The layers (a conv with its batch norm and relu; an add with
// its relu) start as subgraphs. Straight merges join the three layers of the conv block's main
// path (subgraph 1) and of the identity block (subgraph 4) — the identity block's first layer
// (input and output of 256 and 64 channels live, factor 4) cannot take its second (factor 2) by
// rule (i), so the second joins the third first and the first joins them; the identity block is
// a diamond from the conv block's add to its own add (rule (ii)); branch merges take the shortcut
// conv into the conv block's add (2 into 3), then the main path (1 into {2, 3}); a last straight
// merge joins the two blocks.
// EXPLAIN: straight merge SG1 {conv2d@6, batch_norm@11, relu@12} (f=2 on dim 0 {{.*}}) + SG2 {conv2d@14, batch_norm@19, relu@20} (f=2 on dim 0 {{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: straight merge SG1 {conv2d@38, batch_norm@43, relu@44} (f=4 on dim 0 {{.*}}) + SG2 {conv2d@46, batch_norm@51, relu@52} (f=2 on dim 0 {{.*}}) -> {{.*}}: refused by rule (i): SG2's factor 2 is smaller than SG1's 4
// EXPLAIN: straight merge SG1 {conv2d@46, batch_norm@51, relu@52} ({{.*}}) + SG2 {conv2d@54, batch_norm@59} ({{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: straight merge SG1 {conv2d@6, batch_norm@11, relu@12, conv2d@14, batch_norm@19, relu@20} ({{.*}}) + SG2 {conv2d@22, batch_norm@27} ({{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: straight merge SG1 {conv2d@38, batch_norm@43, relu@44} ({{.*}}) + SG2 {conv2d@46, {{.*}}, batch_norm@59} ({{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: diamond merge from entry {add@35, relu@36} of {conv2d@38, {{.*}}, batch_norm@59} ({{.*}}) + {add@60, relu@61} ({{.*}}) -> {{.*}}: accepted by rule (ii)
// EXPLAIN: branch merge SG1 {conv2d@29, batch_norm@34} ({{.*}}) + SG2 {add@35, relu@36} ({{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: branch merge SG1 {conv2d@6, {{.*}}, batch_norm@27} ({{.*}}) + SG2 {conv2d@29, batch_norm@34, add@35, relu@36} ({{.*}}) -> {{.*}}: accepted by rule (i)
// EXPLAIN: straight merge SG1 {conv2d@6, {{.*}}, relu@36} ({{.*}}) + SG2 {conv2d@38, {{.*}}, relu@61} ({{.*}}) -> f=8 on dim 0 reaching 22 ops: accepted by rule (i)
// EXPLAIN-NOT: merge
