// RUN: turbine-opt %s --split-input-file --graph-substitute="search=all" | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-substitute="search=all explain=true" --verify-diagnostics > /dev/null
// RUN: turbine-opt %s --split-input-file --graph-substitute="search=all only=merge_parallel_convs" | FileCheck %s --check-prefix=MERGE
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=COST
// RUN: turbine-opt %s --split-input-file --graph-substitute="builtin-rules=false rules=%S/Inputs/user-rules.mlir search=all" | FileCheck %s --check-prefix=USER
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 explain=true split-threshold=4" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 search=egraph" | FileCheck %s --check-prefix=EGRAPH
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 search=egraph explain=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=SATURATE
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 prepared-weights=true weight-folds=true" | FileCheck %s --check-prefix=FOLD
// RUN: turbine-opt %s --split-input-file --graph-substitute="target=stcp920 prepared-weights=true" | FileCheck %s --check-prefix=TIE

// Tests the second engine, equality saturation (search=egraph): the same rules reach the same
// graphs where the cost model prefers them (the export clean-ups, the algebra), and leave the
// function as it is where no extracted graph is cheaper (@conv_bn_relu, and @siblings, whose
// merge the e-graph holds both ways round but the cost model does not take).
// EGRAPH-LABEL: func.func @conv_bn_relu
// EGRAPH: graph.batch_norm
// EGRAPH-LABEL: func.func @siblings
// EGRAPH-COUNT-3: graph.conv2d
// EGRAPH-LABEL: func.func @encoder_tail
// EGRAPH-NEXT: graph.layer_norm
// EGRAPH-NEXT: graph.gelu
// EGRAPH-NEXT: return
// EGRAPH-LABEL: func.func @qkv
// EGRAPH-NOT: graph.gather
// EGRAPH: return
// EGRAPH-LABEL: func.func @algebra
// EGRAPH-NEXT: graph.relu
// EGRAPH-NEXT: graph.silu
// EGRAPH-NEXT: graph.clip
// EGRAPH-NEXT: return
// SATURATE: remark: equality saturation: 3 rounds (Saturated), 21 e-nodes in 19 e-classes, 0 rules left out; merges: conv_relu_to_activation x1, fold_batch_norm_into_conv x1; extracted cost 596 -> 596 (not cheaper, function unchanged)
// SATURATE: remark: equality saturation: 2 rounds (Saturated), 21 e-nodes in 17 e-classes, 0 rules left out; merges: merge_parallel_convs x2; extracted cost 2081 -> 2081 (not cheaper, function unchanged)
// SATURATE: remark: equality saturation: 2 rounds (Saturated), 24 e-nodes in 22 e-classes, 0 rules left out; merges: gelu_erf x1, layer_norm_decomposed x1; extracted cost 1186 -> 341 (kept)

// Tests the flow-based split (MetaFlow §5.2) on @encoder_tail: cut into parts of at most 4 ops
// (constants aside) by minimum vertex cuts, each part searched alone; the layer norm spans cuts,
// so the local search across the cuts finds it, and the result is the whole search's.
// SPLIT: remark: split 14 ops into 7 parts of [1, 2, 4, 2, 0, 1, 4] ops by minimum vertex cuts separating [0, 2, 1, 0, 0, 1] matches
// SPLIT: remark: searching across the cuts in windows of [14] ops
// SPLIT: remark: applied 'layer_norm_decomposed': cost 1186 -> 343
// SPLIT: remark: applied 'gelu_erf': cost 343 -> 341
// SPLIT: remark: substitution: cost 1186 -> 341 (2 rewrites

// The backtracking search on stcp920's figures (the lowering's own layer estimate) keeps only
// the rewrites that pay: the batch norm and relu fuse into the convolution's kernel anyway, and
// folding them into the weights adds kernels on the weights; merging the siblings adds kernels
// that concatenate their weights; the layer norm written op by op is several row-wise kernels.
// A layer on i64 tensors (a gather's constant index), which the lowering refuses, costs 10^15.
// COST: remark: substitution: cost 596 -> 596 (0 rewrites
// COST: remark: substitution: cost 2081 -> 2081 (0 rewrites
// COST: remark: applied 'layer_norm_decomposed': cost 1186 -> 343
// COST: remark: applied 'gelu_erf': cost 343 -> 341
// COST: remark: substitution: cost 1186 -> 341 (2 rewrites
// COST: remark: applied 'gather_constant_index': cost 3000000000000000 -> 2000000000000174
// COST: remark: substitution: cost 3000000000000000 -> 522 (3 rewrites
// COST: remark: applied 'channels_last_round_trip': cost 1000000000000347 -> 1000000000000000

// Tests that a relu after a convolution becomes its activation and a batch-norm after a
// convolution folds into its filter and bias (fusion rules).
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<4x3x3x3xf32>, %[[B:.*]]: tensor<4xf32>, %[[S:.*]]: tensor<4xf32>, %[[T:.*]]: tensor<4xf32>, %[[M:.*]]: tensor<4xf32>, %[[V:.*]]: tensor<4xf32>)
// CHECK: %[[EPS:.*]] = graph.constant dense<1.000000e-03> : tensor<f32>
// CHECK: %[[VE:.*]] = graph.add %[[V]], %[[EPS]]
// CHECK: %[[K:.*]] = graph.div %[[S]]
// CHECK: %[[K4:.*]] = graph.reshape %[[K]] : tensor<4xf32> -> tensor<4x1x1x1xf32>
// CHECK: %[[W2:.*]] = graph.mul %[[W]], %[[K4]]
// CHECK: %[[B2:.*]] = graph.add
// CHECK: %[[Y:.*]] = graph.conv2d %[[X]], %[[W2]], %[[B2]] {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>}
// CHECK-NOT: graph.batch_norm
// CHECK-NOT: graph.relu
// CHECK: return %[[Y]]
func.func @conv_bn_relu(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x8x8xf32> {
  %y = graph.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark@+1 {{applied 'fold_batch_norm_into_conv'}}
  %z = graph.batch_norm %y, %s, %t, %m, %v {epsilon = 1.0e-03 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark@+1 {{applied 'conv_relu_to_activation'}}
  %r = graph.relu %z : tensor<1x4x8x8xf32>
  return %r : tensor<1x4x8x8xf32>
}

// -----

// Tests that two convolutions of one input merge into one whose result is split, and that the
// merge needs equal strides (the third convolution stays).
// MERGE-LABEL: func.func @siblings
// MERGE-SAME: (%[[X:.*]]: tensor<1x8x10x10xf32>, %[[W1:.*]]: tensor<16x8x3x3xf32>, %[[B1:.*]]: tensor<16xf32>, %[[W2:.*]]: tensor<8x8x3x3xf32>, %[[B2:.*]]: tensor<8xf32>
// MERGE: %[[W:.*]] = graph.concat %[[W1]], %[[W2]] {axis = 0 : i64} : (tensor<16x8x3x3xf32>, tensor<8x8x3x3xf32>) -> tensor<24x8x3x3xf32>
// MERGE: %[[B:.*]] = graph.concat %[[B1]], %[[B2]] {axis = 0 : i64}
// MERGE: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] {{.*}} -> tensor<1x24x10x10xf32>
// MERGE: %[[P:.*]]:2 = graph.split %[[Y]] {axis = 1 : i64} : tensor<1x24x10x10xf32> -> tensor<1x16x10x10xf32>, tensor<1x8x10x10xf32>
// MERGE: %[[Z:.*]] = graph.conv2d %[[X]], {{.*}}strides = array<i64: 2, 2>
// MERGE: return %[[P]]#0, %[[P]]#1, %[[Z]]
// CHECK-LABEL: func.func @siblings
func.func @siblings(%x: tensor<1x8x10x10xf32>, %w1: tensor<16x8x3x3xf32>, %b1: tensor<16xf32>, %w2: tensor<8x8x3x3xf32>, %b2: tensor<8xf32>, %w3: tensor<8x8x3x3xf32>) -> (tensor<1x16x10x10xf32>, tensor<1x8x10x10xf32>, tensor<1x8x5x5xf32>) {
  // expected-remark@+1 {{applied 'merge_parallel_convs'}}
  %y1 = graph.conv2d %x, %w1, %b1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<1x16x10x10xf32>
  %y2 = graph.conv2d %x, %w2, %b2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<1x8x10x10xf32>
  %y3 = graph.conv2d %x, %w3 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x8x10x10xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x5x5xf32>
  return %y1, %y2, %y3 : tensor<1x16x10x10xf32>, tensor<1x8x10x10xf32>, tensor<1x8x5x5xf32>
}

// -----

// Tests the export clean-ups: the erf form of GELU and a layer norm written op by op.
// CHECK-LABEL: func.func @encoder_tail
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16xf32>, %[[G:.*]]: tensor<16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK-NEXT: %[[N:.*]] = graph.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 9.99999996E-13 : f32}
// CHECK-NEXT: %[[Y:.*]] = graph.gelu %[[N]]
// CHECK-NEXT: return %[[Y]]
func.func @encoder_tail(%x: tensor<1x4x16xf32>, %gamma: tensor<16xf32>, %beta: tensor<16xf32>) -> tensor<1x4x16xf32> {
  %two = graph.constant dense<2.0> : tensor<f32>
  %eps = graph.constant dense<9.99999996E-13> : tensor<f32>
  %m = graph.reduce_mean %x {axes = array<i64: -1>} : tensor<1x4x16xf32> -> tensor<1x4x1xf32>
  %d = graph.sub %x, %m : tensor<1x4x16xf32>, tensor<1x4x1xf32> -> tensor<1x4x16xf32>
  %p = graph.pow %d, %two : tensor<1x4x16xf32>, tensor<f32> -> tensor<1x4x16xf32>
  %v = graph.reduce_mean %p {axes = array<i64: -1>} : tensor<1x4x16xf32> -> tensor<1x4x1xf32>
  %a = graph.add %v, %eps : tensor<1x4x1xf32>, tensor<f32> -> tensor<1x4x1xf32>
  %s = graph.sqrt %a : tensor<1x4x1xf32>
  %n = graph.div %d, %s : tensor<1x4x16xf32>, tensor<1x4x1xf32> -> tensor<1x4x16xf32>
  %g = graph.mul %n, %gamma : tensor<1x4x16xf32>, tensor<16xf32> -> tensor<1x4x16xf32>
  // expected-remark@+1 {{applied 'layer_norm_decomposed'}}
  %ln = graph.add %g, %beta : tensor<1x4x16xf32>, tensor<16xf32> -> tensor<1x4x16xf32>
  %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
  %one = graph.constant dense<1.0> : tensor<f32>
  %half = graph.constant dense<0.5> : tensor<f32>
  %q = graph.div %ln, %sqrt2 : tensor<1x4x16xf32>, tensor<f32> -> tensor<1x4x16xf32>
  %e = graph.erf %q : tensor<1x4x16xf32>
  %ea = graph.add %e, %one : tensor<1x4x16xf32>, tensor<f32> -> tensor<1x4x16xf32>
  %xm = graph.mul %ln, %ea : tensor<1x4x16xf32>, tensor<1x4x16xf32> -> tensor<1x4x16xf32>
  // expected-remark@+1 {{applied 'gelu_erf'}}
  %y = graph.mul %xm, %half : tensor<1x4x16xf32>, tensor<f32> -> tensor<1x4x16xf32>
  return %y : tensor<1x4x16xf32>
}

// -----

// Tests that q, k and v picked out of one stacked projection by constant indices become slices
// (the i64 indices are gone), and that a constant shared by two gathers stays until both went.
// CHECK-LABEL: func.func @qkv
// CHECK-SAME: (%[[X:.*]]: tensor<3x1x2x4x8xf32>)
// CHECK-NOT: graph.gather
// CHECK-DAG: graph.slice %[[X]] {starts = array<i64: 0, 0, 0, 0, 0>} : tensor<3x1x2x4x8xf32> -> tensor<1x1x2x4x8xf32>
// CHECK-DAG: graph.slice %[[X]] {starts = array<i64: 1, 0, 0, 0, 0>} : tensor<3x1x2x4x8xf32> -> tensor<1x1x2x4x8xf32>
// CHECK-DAG: graph.slice %[[X]] {starts = array<i64: 2, 0, 0, 0, 0>} : tensor<3x1x2x4x8xf32> -> tensor<1x1x2x4x8xf32>
// CHECK-NOT: graph.constant
// CHECK: return
func.func @qkv(%x: tensor<3x1x2x4x8xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %i0 = graph.constant dense<0> : tensor<i64>
  %i1 = graph.constant dense<1> : tensor<i64>
  %i2 = graph.constant dense<2> : tensor<i64>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %q = graph.gather %x, %i0 {axis = 0 : i64} : (tensor<3x1x2x4x8xf32>, tensor<i64>) -> tensor<1x2x4x8xf32>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %k = graph.gather %x, %i1 {axis = 0 : i64} : (tensor<3x1x2x4x8xf32>, tensor<i64>) -> tensor<1x2x4x8xf32>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %v = graph.gather %x, %i2 {axis = 0 : i64} : (tensor<3x1x2x4x8xf32>, tensor<i64>) -> tensor<1x2x4x8xf32>
  return %q, %k, %v : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}

// -----

// Tests that an index out of range does not match (rule.where), and that movement chains that
// cancel disappear.
// CHECK-LABEL: func.func @movement
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>)
// CHECK-NEXT: %[[I:.*]] = graph.constant dense<7>
// CHECK-NEXT: %[[G:.*]] = graph.gather %[[X]], %[[I]]
// CHECK-NEXT: return %[[X]], %[[G]]
func.func @movement(%x: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<3x4x5xf32>) {
  %t = graph.transpose %x {permutation = array<i64: 0, 2, 3, 1>} : tensor<2x3x4x5xf32> -> tensor<2x4x5x3xf32>
  // expected-remark@+1 {{applied 'channels_last_round_trip'}}
  %u = graph.transpose %t {permutation = array<i64: 0, 3, 1, 2>} : tensor<2x4x5x3xf32> -> tensor<2x3x4x5xf32>
  %seven = graph.constant dense<7> : tensor<i64>
  %g = graph.gather %x, %seven {axis = 0 : i64} : (tensor<2x3x4x5xf32>, tensor<i64>) -> tensor<3x4x5xf32>
  return %u, %g : tensor<2x3x4x5xf32>, tensor<3x4x5xf32>
}

// -----

// Tests that the rules over dimension groups hold at any rank and axis: gathers of constant
// indices on a middle, a last and a negative axis, with a negative index and a one-element
// index; neighbouring swaps at ranks 3 and 5; channels-last round trips of 1-D and 3-D layouts.
// CHECK-LABEL: func.func @any_axis
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4x5xf32>, %[[V:.*]]: tensor<6xf32>, %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<1x2x3x4x5xf32>)
// CHECK-NOT: graph.gather
// CHECK-NOT: graph.transpose
// CHECK-DAG: %[[S1:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0, 2, 0>} : tensor<2x3x4x5xf32> -> tensor<2x3x1x5xf32>
// CHECK-DAG: %[[G1:.*]] = graph.reshape %[[S1]] : tensor<2x3x1x5xf32> -> tensor<2x3x5xf32>
// CHECK-DAG: %[[S2:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0, 0, 4>} : tensor<2x3x4x5xf32> -> tensor<2x3x4x1xf32>
// CHECK-DAG: %[[G2:.*]] = graph.reshape %[[S2]] : tensor<2x3x4x1xf32> -> tensor<2x3x4xf32>
// CHECK-DAG: %[[S3:.*]] = graph.slice %[[V]] {starts = array<i64: 5>} : tensor<6xf32> -> tensor<1xf32>
// CHECK-DAG: %[[G3:.*]] = graph.reshape %[[S3]] : tensor<1xf32> -> tensor<f32>
// CHECK-DAG: %[[G4:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 1, 0, 0>} : tensor<2x3x4x5xf32> -> tensor<2x1x4x5xf32>
// CHECK: return %[[G1]], %[[G2]], %[[G3]], %[[G4]], %[[A]], %[[B]], %[[A]], %[[B]]
func.func @any_axis(%x: tensor<2x3x4x5xf32>, %v: tensor<6xf32>, %a: tensor<2x3x4xf32>, %b: tensor<1x2x3x4x5xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<f32>, tensor<2x1x4x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4x5xf32>) {
  %two = graph.constant dense<2> : tensor<i64>
  %minus_one = graph.constant dense<-1> : tensor<i64>
  %one = graph.constant dense<1> : tensor<1xi64>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %g1 = graph.gather %x, %two {axis = 2 : i64} : (tensor<2x3x4x5xf32>, tensor<i64>) -> tensor<2x3x5xf32>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %g2 = graph.gather %x, %minus_one {axis = -1 : i64} : (tensor<2x3x4x5xf32>, tensor<i64>) -> tensor<2x3x4xf32>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %g3 = graph.gather %v, %minus_one {axis = 0 : i64} : (tensor<6xf32>, tensor<i64>) -> tensor<f32>
  // expected-remark@+1 {{applied 'gather_constant_index_vector'}}
  %g4 = graph.gather %x, %one {axis = -3 : i64} : (tensor<2x3x4x5xf32>, tensor<1xi64>) -> tensor<2x1x4x5xf32>
  %t1 = graph.transpose %a {permutation = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  // expected-remark@+1 {{applied 'swap_neighbours_twice'}}
  %u1 = graph.transpose %t1 {permutation = array<i64: 1, 0, 2>} : tensor<3x2x4xf32> -> tensor<2x3x4xf32>
  %t2 = graph.transpose %b {permutation = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x3x4x5xf32> -> tensor<1x2x3x5x4xf32>
  // expected-remark@+1 {{applied 'swap_neighbours_twice'}}
  %u2 = graph.transpose %t2 {permutation = array<i64: 0, 1, 2, 4, 3>} : tensor<1x2x3x5x4xf32> -> tensor<1x2x3x4x5xf32>
  // A 1-D layout's round trip is a swap of neighbours too (the first rule that matches applies).
  %t3 = graph.transpose %a {permutation = array<i64: 0, 2, 1>} : tensor<2x3x4xf32> -> tensor<2x4x3xf32>
  // expected-remark@+1 {{applied 'swap_neighbours_twice'}}
  %u3 = graph.transpose %t3 {permutation = array<i64: 0, 2, 1>} : tensor<2x4x3xf32> -> tensor<2x3x4xf32>
  %t4 = graph.transpose %b {permutation = array<i64: 0, 2, 3, 4, 1>} : tensor<1x2x3x4x5xf32> -> tensor<1x3x4x5x2xf32>
  // expected-remark@+1 {{applied 'channels_last_round_trip'}}
  %u4 = graph.transpose %t4 {permutation = array<i64: 0, 4, 1, 2, 3>} : tensor<1x3x4x5x2xf32> -> tensor<1x2x3x4x5xf32>
  return %g1, %g2, %g3, %g4, %u1, %u2, %u3, %u4 : tensor<2x3x5xf32>, tensor<2x3x4xf32>, tensor<f32>, tensor<2x1x4x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4x5xf32>, tensor<2x3x4xf32>, tensor<1x2x3x4x5xf32>
}

// -----

// Tests a rule from a user's file (Inputs/user-rules.mlir): x - x -> 0.
// USER-LABEL: func.func @user
// USER-NEXT: %[[Z:.*]] = graph.constant dense<0.000000e+00> : tensor<3x5xf32>
// USER-NEXT: return %[[Z]]
func.func @user(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %y = graph.sub %x, %x : tensor<3x5xf32>, tensor<3x5xf32> -> tensor<3x5xf32>
  return %y : tensor<3x5xf32>
}

// -----

// Tests the algebra family: identities disappear, relu is idempotent, x * sigmoid(x) is silu,
// and a relu after relu6 changes nothing.
// CHECK-LABEL: func.func @algebra
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// CHECK-NEXT: %[[R:.*]] = graph.relu %[[X]] : tensor<2x5xf32>
// CHECK-NEXT: %[[S:.*]] = graph.silu %[[R]] : tensor<2x5xf32>
// CHECK-NEXT: %[[C:.*]] = graph.clip %[[S]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<2x5xf32>
// CHECK-NEXT: return %[[C]]
func.func @algebra(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %one = graph.constant dense<1.0> : tensor<f32>
  %zero = graph.constant dense<-0.0> : tensor<f32>
  // expected-remark@+1 {{applied 'mul_by_one'}}
  %a = graph.mul %x, %one : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  // expected-remark@+1 {{applied 'add_zero'}}
  %b = graph.add %a, %zero : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %n1 = graph.neg %b : tensor<2x5xf32>
  // expected-remark@+1 {{applied 'neg_of_neg'}}
  %n2 = graph.neg %n1 : tensor<2x5xf32>
  %r1 = graph.relu %n2 : tensor<2x5xf32>
  // expected-remark@+1 {{applied 'relu_of_relu'}}
  %r2 = graph.relu %r1 : tensor<2x5xf32>
  %s = graph.sigmoid %r2 : tensor<2x5xf32>
  // expected-remark@+1 {{applied 'mul_sigmoid_to_silu'}}
  %m = graph.mul %r2, %s : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
  %c = graph.clip %m {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x5xf32>
  // expected-remark@+1 {{applied 'relu_of_relu6'}}
  %y = graph.relu %c : tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// Tests that adding +0.0 stays: it is not the identity, since -0.0 + 0.0 is +0.0.
// CHECK-LABEL: func.func @add_positive_zero
// CHECK: graph.add
func.func @add_positive_zero(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %zero = graph.constant dense<0.0> : tensor<f32>
  %y = graph.add %x, %zero : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  return %y : tensor<2x5xf32>
}

// -----

// Tests that control flow stays: the backtracking search rewrites around a graph.if (whose
// regions it does not enter), and the e-graph engine, whose e-graph cannot hold regions, leaves
// such a function as it is.
// CHECK-LABEL: func.func @control_flow
// CHECK: graph.if
// CHECK: graph.neg
// CHECK: graph.relu
// CHECK-NOT: graph.relu
// EGRAPH-LABEL: func.func @control_flow
// EGRAPH: graph.relu
// EGRAPH-NEXT: graph.relu
// SATURATE: remark: equality saturation: 0 rounds (ControlFlow)
func.func @control_flow(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c -> (tensor<4xf32>) {
    graph.yield %x : tensor<4xf32>
  } else {
    %n = graph.neg %x : tensor<4xf32>
    graph.yield %n : tensor<4xf32>
  }
  %a = graph.relu %r : tensor<4xf32>
  // expected-remark@+1 {{applied 'relu_of_relu'}}
  %b = graph.relu %a : tensor<4xf32>
  return %b : tensor<4xf32>
}

// -----

// Tests shape arithmetic folded to constants (an index computed as 1 + 1 from one constant read
// twice, a shape piece as 2 * 12 made a vector, two pieces concatenated), after which the gather
// of the computed index is a slice.
// CHECK-LABEL: func.func @shape_arithmetic
// CHECK-SAME: (%[[X:.*]]: tensor<3x2x4xf32>)
// CHECK-DAG: %[[SHAPE:.*]] = graph.constant dense<[24, 4]> : tensor<2xi64>
// CHECK-DAG: %[[S:.*]] = graph.slice %[[X]] {starts = array<i64: 2, 0, 0>} : tensor<3x2x4xf32> -> tensor<1x2x4xf32>
// CHECK-DAG: %[[R:.*]] = graph.reshape %[[S]] : tensor<1x2x4xf32> -> tensor<2x4xf32>
// CHECK: return %[[R]], %[[SHAPE]]
func.func @shape_arithmetic(%x: tensor<3x2x4xf32>) -> (tensor<2x4xf32>, tensor<2xi64>) {
  %one = graph.constant dense<1> : tensor<i64>
  // expected-remark@+1 {{applied 'fold_i64_add'}}
  %i = graph.add %one, %one : tensor<i64>, tensor<i64> -> tensor<i64>
  // expected-remark@+1 {{applied 'gather_constant_index'}}
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<3x2x4xf32>, tensor<i64>) -> tensor<2x4xf32>
  %two = graph.constant dense<2> : tensor<i64>
  %twelve = graph.constant dense<12> : tensor<i64>
  // expected-remark@+1 {{applied 'fold_i64_mul'}}
  %n = graph.mul %two, %twelve : tensor<i64>, tensor<i64> -> tensor<i64>
  // expected-remark@+1 {{applied 'fold_i64_reshape'}}
  %n1 = graph.reshape %n : tensor<i64> -> tensor<1xi64>
  %d = graph.constant dense<4> : tensor<1xi64>
  // expected-remark@+1 {{applied 'fold_i64_concat'}}
  %shape = graph.concat %n1, %d {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  return %g, %shape : tensor<2x4xf32>, tensor<2xi64>
}

// -----

// Tests that a constant whose value a rule binds matches only constants of its own type: the
// splat index [1, 1] gathers two slices and is no scalar 1 (random ONNX model 147 was
// miscompiled so).
// CHECK-LABEL: func.func @splat_index
// CHECK: graph.gather
// EGRAPH-LABEL: func.func @splat_index
// EGRAPH: graph.gather
func.func @splat_index(%x: tensor<2x4x3xf32>) -> tensor<2x4x3xf32> {
  %i = graph.constant dense<1> : tensor<2xi64>
  %g = graph.gather %x, %i {axis = 0 : i64} : (tensor<2x4x3xf32>, tensor<2xi64>) -> tensor<2x4x3xf32>
  return %g : tensor<2x4x3xf32>
}

// -----

// Tests a source's rule.shape (Inputs/user-rules.mlir, relu_before_column): the reshape into a
// column matches, the reshape into a square does not.
// USER-LABEL: func.func @column
// USER-NEXT: %[[R:.*]] = graph.relu %{{.*}} : tensor<4xf32>
// USER-NEXT: %[[C:.*]] = graph.reshape %[[R]] : tensor<4xf32> -> tensor<4x1xf32>
// USER-NEXT: %[[S:.*]] = graph.reshape %{{.*}} : tensor<4xf32> -> tensor<2x2xf32>
// USER-NEXT: %[[Q:.*]] = graph.relu %[[S]] : tensor<2x2xf32>
// USER-NEXT: return %[[C]], %[[Q]]
func.func @column(%x: tensor<4xf32>) -> (tensor<4x1xf32>, tensor<2x2xf32>) {
  %c = graph.reshape %x : tensor<4xf32> -> tensor<4x1xf32>
  %r = graph.relu %c : tensor<4x1xf32>
  %s = graph.reshape %x : tensor<4xf32> -> tensor<2x2xf32>
  %q = graph.relu %s : tensor<2x2xf32>
  return %r, %q : tensor<4x1xf32>, tensor<2x2xf32>
}

// -----

// Tests the weight folds (`weight-folds`, which the pipelines set with prepare-weights): a batch
// norm after a convolution without bias folds into the convolution's filter and a new bias before
// the search, whatever the cost model says, its weight math prepared at load time; without them
// the search leaves it (the batch norm fuses into the convolution's kernel, the same cost).
// CHECK-LABEL: func.func @conv_bn_weights
// CHECK-NOT: graph.batch_norm
// FOLD-LABEL: func.func @conv_bn_weights
// FOLD-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>)
// FOLD-DAG: %[[W:.*]] = graph.weight "w"
// FOLD-DAG: %[[MEAN:.*]] = graph.weight "mean"
// FOLD: %[[W2:.*]] = graph.mul %[[W]], %{{.*}} : tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32>
// FOLD: %[[MK:.*]] = graph.mul %[[MEAN]], %{{.*}} : tensor<4xf32>, tensor<4xf32>
// FOLD: %[[B2:.*]] = graph.sub %{{.*}}, %[[MK]]
// FOLD: %[[Y:.*]] = graph.conv2d %[[X]], %[[W2]], %[[B2]] {pads = array<i64: 1, 1, 1, 1>}
// FOLD-NOT: graph.batch_norm
// FOLD: return %[[Y]]
// TIE-LABEL: func.func @conv_bn_weights
// TIE: graph.batch_norm
func.func @conv_bn_weights(%x: tensor<1x3x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = graph.weight "w" : tensor<4x3x3x3xf32>
  %s = graph.weight "scale" : tensor<4xf32>
  %t = graph.weight "shift" : tensor<4xf32>
  %m = graph.weight "mean" : tensor<4xf32>
  %v = graph.weight "var" : tensor<4xf32>
  %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x8x8xf32>
  // expected-remark@+1 {{applied 'fold_batch_norm_into_conv_without_bias'}}
  %z = graph.batch_norm %y, %s, %t, %m, %v {epsilon = 1.0e-03 : f32} : (tensor<1x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x8x8xf32>
  return %z : tensor<1x4x8x8xf32>
}
