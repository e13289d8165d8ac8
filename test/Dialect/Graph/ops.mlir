// RUN: turbine-opt %s | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --mlir-print-op-generic | turbine-opt | FileCheck %s
// RUN: turbine-opt %s --split-input-file | turbine-opt --split-input-file | FileCheck %s

//===----------------------------------------------------------------------===//
// Constants and weights
//===----------------------------------------------------------------------===//

// Tests that inline constants of several element types and shapes round-trip:
// the BERT attention scale, a reshape target and a causal-mask row.
// CHECK-LABEL: func.func @constant
// CHECK: %[[SCALE:.*]] = graph.constant dense<1.250000e-01> : tensor<f32>
// CHECK: %[[SHAPE:.*]] = graph.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
// CHECK: %[[MASK:.*]] = graph.constant dense<[true, true, false, false]> : tensor<4xi1>
// CHECK: return %[[SCALE]], %[[SHAPE]], %[[MASK]]
func.func @constant() -> (tensor<f32>, tensor<4xi64>, tensor<4xi1>) {
  %scale = graph.constant dense<0.125> : tensor<f32>
  %shape = graph.constant dense<[1, 128, 12, 64]> : tensor<4xi64>
  %mask = graph.constant dense<[true, true, false, false]> : tensor<4xi1>
  return %scale, %shape, %mask : tensor<f32>, tensor<4xi64>, tensor<4xi1>
}

// -----

// Tests that a weight names its tensor in the side file and carries its type.
// CHECK-LABEL: func.func @weight
// CHECK: %[[W:.*]] = graph.weight "conv1.weight" : tensor<64x3x7x7xf32>
// CHECK: return %[[W]]
func.func @weight() -> tensor<64x3x7x7xf32> {
  %w = graph.weight "conv1.weight" : tensor<64x3x7x7xf32>
  return %w : tensor<64x3x7x7xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Anchor operators
//===----------------------------------------------------------------------===//

// Tests that the ResNet-50 stem, a 7x7 stride-2 convolution with bias and a
// fused relu ((224 + 3 + 3 - 7) / 2 + 1 = 112), round-trips.
// CHECK-LABEL: func.func @conv2d_resnet_stem
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x224x224xf32>, %[[W:.*]]: tensor<64x3x7x7xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]], %[[B]] {activation = #graph<activation relu>, pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: return %[[Y]]
func.func @conv2d_resnet_stem(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %y = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>, activation = #graph<activation relu>}
      : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that a ResNet-50 bottleneck 1x1 convolution without bias and with every
// attribute at its default value prints without an attribute dictionary.
// CHECK-LABEL: func.func @conv2d_defaults
// CHECK-SAME: (%[[X:.*]]: tensor<1x256x56x56xf32>, %[[W:.*]]: tensor<64x256x1x1xf32>)
// CHECK: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]] : (tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>) -> tensor<1x64x56x56xf32>
// CHECK: return %[[Y]]
func.func @conv2d_defaults(%x: tensor<1x256x56x56xf32>, %w: tensor<64x256x1x1xf32>) -> tensor<1x64x56x56xf32> {
  %y = graph.conv2d %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, groups = 1 : i64}
      : (tensor<1x256x56x56xf32>, tensor<64x256x1x1xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that MobileNet-V2 depthwise convolutions (groups = channels, one input
// channel per filter) with relu6 round-trip, including a stride-2 one with
// TF-style asymmetric padding: (112 + 0 + 1 - 3) / 2 + 1 = 56.
// CHECK-LABEL: func.func @conv2d_depthwise
// CHECK-SAME: (%[[X:.*]]: tensor<1x32x112x112xf32>, %[[W:.*]]: tensor<32x1x3x3xf32>, %[[X2:.*]]: tensor<1x96x112x112xf32>, %[[W2:.*]]: tensor<96x1x3x3xf32>)
// CHECK: %[[A:.*]] = graph.conv2d %[[X]], %[[W]] {activation = #graph<activation relu6>, groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32>
// CHECK: %[[B:.*]] = graph.conv2d %[[X2]], %[[W2]] {activation = #graph<activation relu6>, groups = 96 : i64, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x96x112x112xf32>, tensor<96x1x3x3xf32>) -> tensor<1x96x56x56xf32>
// CHECK: return %[[A]], %[[B]]
func.func @conv2d_depthwise(%x: tensor<1x32x112x112xf32>, %w: tensor<32x1x3x3xf32>, %x2: tensor<1x96x112x112xf32>, %w2: tensor<96x1x3x3xf32>) -> (tensor<1x32x112x112xf32>, tensor<1x96x56x56xf32>) {
  %a = graph.conv2d %x, %w {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu6>}
      : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32>
  %b = graph.conv2d %x2, %w2 {groups = 96 : i64, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, activation = #graph<activation relu6>}
      : (tensor<1x96x112x112xf32>, tensor<96x1x3x3xf32>) -> tensor<1x96x56x56xf32>
  return %a, %b : tensor<1x32x112x112xf32>, tensor<1x96x56x56xf32>
}

// -----

// Tests that a grouped convolution (ResNeXt-50 32x4d, 4 input channels per
// group) and a dilated one (DeepLab-v3, dilation 2 keeps 28x28 with pads 2)
// round-trip.
// CHECK-LABEL: func.func @conv2d_grouped_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x56x56xf32>, %[[W:.*]]: tensor<128x4x3x3xf32>, %[[X2:.*]]: tensor<1x512x28x28xf32>, %[[W2:.*]]: tensor<512x512x3x3xf32>)
// CHECK: %[[A:.*]] = graph.conv2d %[[X]], %[[W]] {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x128x56x56xf32>, tensor<128x4x3x3xf32>) -> tensor<1x128x56x56xf32>
// CHECK: %[[B:.*]] = graph.conv2d %[[X2]], %[[W2]] {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x512x28x28xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32>
// CHECK: return %[[A]], %[[B]]
func.func @conv2d_grouped_dilated(%x: tensor<1x128x56x56xf32>, %w: tensor<128x4x3x3xf32>, %x2: tensor<1x512x28x28xf32>, %w2: tensor<512x512x3x3xf32>) -> (tensor<1x128x56x56xf32>, tensor<1x512x28x28xf32>) {
  %a = graph.conv2d %x, %w {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>}
      : (tensor<1x128x56x56xf32>, tensor<128x4x3x3xf32>) -> tensor<1x128x56x56xf32>
  %b = graph.conv2d %x2, %w2 {dilations = array<i64: 2, 2>, pads = array<i64: 2, 2, 2, 2>}
      : (tensor<1x512x28x28xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32>
  return %a, %b : tensor<1x128x56x56xf32>, tensor<1x512x28x28xf32>
}

// -----

// Tests that every #graph<activation ...> case round-trips on a 1x1 convolution.
// CHECK-LABEL: func.func @conv2d_activations
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation relu>}
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation relu6>}
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation sigmoid>}
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation tanh>}
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation silu>}
// CHECK: graph.conv2d {{.*}} {activation = #graph<activation gelu>}
func.func @conv2d_activations(%x: tensor<1x32x56x56xf32>, %w: tensor<32x32x1x1xf32>) {
  %0 = graph.conv2d %x, %w {activation = #graph<activation relu>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %1 = graph.conv2d %x, %w {activation = #graph<activation relu6>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %2 = graph.conv2d %x, %w {activation = #graph<activation sigmoid>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %3 = graph.conv2d %x, %w {activation = #graph<activation tanh>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %4 = graph.conv2d %x, %w {activation = #graph<activation silu>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  %5 = graph.conv2d %x, %w {activation = #graph<activation gelu>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  return
}

// -----

// Tests that a BERT-base feed-forward up-projection round-trips as a 2-D matmul.
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<128x768xf32>, %[[B:.*]]: tensor<768x3072xf32>)
// CHECK: %[[C:.*]] = graph.matmul %[[A]], %[[B]] : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x3072xf32>
// CHECK: return %[[C]]
func.func @matmul(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  %c = graph.matmul %a, %b : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x3072xf32>
  return %c : tensor<128x3072xf32>
}

// -----

// Tests that BERT attention scores Q x K^T over 12 heads round-trip, and a
// projection whose rank-2 weight broadcasts over [batch, sequence].
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[Q:.*]]: tensor<1x12x128x64xf32>, %[[K:.*]]: tensor<1x12x64x128xf32>, %[[X:.*]]: tensor<1x128x768xf32>, %[[W:.*]]: tensor<768x768xf32>)
// CHECK: %[[S:.*]] = graph.batch_matmul %[[Q]], %[[K]] : tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32> -> tensor<1x12x128x128xf32>
// CHECK: %[[P:.*]] = graph.batch_matmul %[[X]], %[[W]] : tensor<1x128x768xf32>, tensor<768x768xf32> -> tensor<1x128x768xf32>
// CHECK: return %[[S]], %[[P]]
func.func @batch_matmul(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x64x128xf32>, %x: tensor<1x128x768xf32>, %w: tensor<768x768xf32>) -> (tensor<1x12x128x128xf32>, tensor<1x128x768xf32>) {
  %s = graph.batch_matmul %q, %k : tensor<1x12x128x64xf32>, tensor<1x12x64x128xf32> -> tensor<1x12x128x128xf32>
  %p = graph.batch_matmul %x, %w : tensor<1x128x768xf32>, tensor<768x768xf32> -> tensor<1x128x768xf32>
  return %s, %p : tensor<1x12x128x128xf32>, tensor<1x128x768xf32>
}

// -----

// Tests that the ResNet-50 classifier, ONNX Gemm with trans_b and a bias C,
// round-trips.
// CHECK-LABEL: func.func @gemm_classifier
// CHECK-SAME: (%[[X:.*]]: tensor<8x2048xf32>, %[[W:.*]]: tensor<1000x2048xf32>, %[[B:.*]]: tensor<1000xf32>)
// CHECK: %[[Y:.*]] = graph.gemm %[[X]], %[[W]], %[[B]] {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32>
// CHECK: return %[[Y]]
func.func @gemm_classifier(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>, %b: tensor<1000xf32>) -> tensor<8x1000xf32> {
  %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that a gemm without C, with trans_a and non-default alpha and beta,
// round-trips.
// CHECK-LABEL: func.func @gemm_no_c
// CHECK-SAME: (%[[A:.*]]: tensor<2048x8xf32>, %[[B:.*]]: tensor<2048x1000xf32>)
// CHECK: %[[Y:.*]] = graph.gemm %[[A]], %[[B]] {alpha = 5.000000e-01 : f32, beta = 0.000000e+00 : f32, trans_a = true} : (tensor<2048x8xf32>, tensor<2048x1000xf32>) -> tensor<8x1000xf32>
// CHECK: return %[[Y]]
func.func @gemm_no_c(%a: tensor<2048x8xf32>, %b: tensor<2048x1000xf32>) -> tensor<8x1000xf32> {
  %y = graph.gemm %a, %b {alpha = 0.5 : f32, beta = 0.0 : f32, trans_a = true} : (tensor<2048x8xf32>, tensor<2048x1000xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise operators
//===----------------------------------------------------------------------===//

// Tests that every binary operator round-trips with numpy broadcasting, as in
// a BERT layer: the residual add, the bias add over the hidden size, the
// attention mask over heads and queries, centring by the mean, scaling by a
// 0-D scalar, squaring.
// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>, %[[R:.*]]: tensor<1x128x768xf32>, %[[BIAS:.*]]: tensor<768xf32>, %[[S:.*]]: tensor<1x12x128x128xf32>, %[[MASK:.*]]: tensor<1x1x1x128xf32>, %[[MEAN:.*]]: tensor<1x128x1xf32>, %[[C:.*]]: tensor<f32>)
// CHECK: %[[ADD:.*]] = graph.add %[[X]], %[[R]] : tensor<1x128x768xf32>, tensor<1x128x768xf32> -> tensor<1x128x768xf32>
// CHECK: %[[BADD:.*]] = graph.add %[[ADD]], %[[BIAS]] : tensor<1x128x768xf32>, tensor<768xf32> -> tensor<1x128x768xf32>
// CHECK: %[[MADD:.*]] = graph.add %[[S]], %[[MASK]] : tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32> -> tensor<1x12x128x128xf32>
// CHECK: %[[SUB:.*]] = graph.sub %[[BADD]], %[[MEAN]] : tensor<1x128x768xf32>, tensor<1x128x1xf32> -> tensor<1x128x768xf32>
// CHECK: %[[MUL:.*]] = graph.mul %[[SUB]], %[[C]] : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
// CHECK: %[[DIV:.*]] = graph.div %[[MADD]], %[[C]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
// CHECK: %[[POW:.*]] = graph.pow %[[MUL]], %[[C]] : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
// CHECK: return %[[POW]], %[[DIV]]
func.func @binary(%x: tensor<1x128x768xf32>, %r: tensor<1x128x768xf32>, %bias: tensor<768xf32>,
                  %s: tensor<1x12x128x128xf32>, %mask: tensor<1x1x1x128xf32>,
                  %mean: tensor<1x128x1xf32>, %c: tensor<f32>) -> (tensor<1x128x768xf32>, tensor<1x12x128x128xf32>) {
  %add = graph.add %x, %r : tensor<1x128x768xf32>, tensor<1x128x768xf32> -> tensor<1x128x768xf32>
  %badd = graph.add %add, %bias : tensor<1x128x768xf32>, tensor<768xf32> -> tensor<1x128x768xf32>
  %madd = graph.add %s, %mask : tensor<1x12x128x128xf32>, tensor<1x1x1x128xf32> -> tensor<1x12x128x128xf32>
  %sub = graph.sub %badd, %mean : tensor<1x128x768xf32>, tensor<1x128x1xf32> -> tensor<1x128x768xf32>
  %mul = graph.mul %sub, %c : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
  %div = graph.div %madd, %c : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  %pow = graph.pow %mul, %c : tensor<1x128x768xf32>, tensor<f32> -> tensor<1x128x768xf32>
  return %pow, %div : tensor<1x128x768xf32>, tensor<1x12x128x128xf32>
}

// -----

// Tests that binary operators also take integer tensors (shape arithmetic).
// CHECK-LABEL: func.func @binary_integer
// CHECK-SAME: (%[[A:.*]]: tensor<4xi64>, %[[B:.*]]: tensor<i64>)
// CHECK: %[[Y:.*]] = graph.mul %[[A]], %[[B]] : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
// CHECK: return %[[Y]]
func.func @binary_integer(%a: tensor<4xi64>, %b: tensor<i64>) -> tensor<4xi64> {
  %y = graph.mul %a, %b : tensor<4xi64>, tensor<i64> -> tensor<4xi64>
  return %y : tensor<4xi64>
}

// -----

// Tests that max, min and mod round-trip: clamping attention scores from
// below and above with 0-D bounds, Python-style mod of position ids (fmod =
// false, the default, elided) and C-style fmod of floats.
// CHECK-LABEL: func.func @binary_max_min_mod
// CHECK-SAME: (%[[S:.*]]: tensor<1x12x128x128xf32>, %[[LO:.*]]: tensor<f32>, %[[HI:.*]]: tensor<f32>, %[[IDS:.*]]: tensor<1x128xi64>, %[[N:.*]]: tensor<i64>)
// CHECK: %[[A:.*]] = graph.max %[[S]], %[[LO]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
// CHECK: %[[B:.*]] = graph.min %[[A]], %[[HI]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
// CHECK: %[[M:.*]] = graph.mod %[[IDS]], %[[N]] : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi64>
// CHECK: %[[F:.*]] = graph.mod %[[B]], %[[HI]] {fmod = true} : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
// CHECK: return %[[F]], %[[M]]
func.func @binary_max_min_mod(%s: tensor<1x12x128x128xf32>, %lo: tensor<f32>, %hi: tensor<f32>, %ids: tensor<1x128xi64>, %n: tensor<i64>) -> (tensor<1x12x128x128xf32>, tensor<1x128xi64>) {
  %a = graph.max %s, %lo : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  %b = graph.min %a, %hi : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  %m = graph.mod %ids, %n {fmod = false} : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi64>
  %f = graph.mod %b, %hi {fmod = true} : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %f, %m : tensor<1x12x128x128xf32>, tensor<1x128xi64>
}

// -----

// Tests that every unary operator round-trips: sqrt of a layer-norm variance,
// erf in an exact GELU, relu, an SE-block sigmoid, the BERT pooler tanh,
// EfficientNet silu, gelu exact (default, elided) and approximate, MobileNet
// relu6 as clip, and exp, log, neg, abs and reciprocal.
// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[V:.*]]: tensor<1x128x1xf32>, %[[H:.*]]: tensor<1x128x3072xf32>, %[[F:.*]]: tensor<1x64x112x112xf32>, %[[SE:.*]]: tensor<1x256x1x1xf32>, %[[P:.*]]: tensor<1x768xf32>)
// CHECK: %{{.*}} = graph.sqrt %[[V]] : tensor<1x128x1xf32>
// CHECK: %{{.*}} = graph.erf %[[H]] : tensor<1x128x3072xf32>
// CHECK: %{{.*}} = graph.relu %[[F]] : tensor<1x64x112x112xf32>
// CHECK: %{{.*}} = graph.sigmoid %[[SE]] : tensor<1x256x1x1xf32>
// CHECK: %{{.*}} = graph.tanh %[[P]] : tensor<1x768xf32>
// CHECK: %{{.*}} = graph.silu %[[F]] : tensor<1x64x112x112xf32>
// CHECK: %{{.*}} = graph.gelu %[[H]] : tensor<1x128x3072xf32>
// CHECK: %{{.*}} = graph.gelu %[[H]] {approximate = true} : tensor<1x128x3072xf32>
// CHECK: %{{.*}} = graph.clip %[[F]] {max = 6.000000e+00 : f32, min = 0.000000e+00 : f32} : tensor<1x64x112x112xf32>
// CHECK: %{{.*}} = graph.exp %[[H]] : tensor<1x128x3072xf32>
// CHECK: %{{.*}} = graph.log %[[H]] : tensor<1x128x3072xf32>
// CHECK: %{{.*}} = graph.neg %[[P]] : tensor<1x768xf32>
// CHECK: %{{.*}} = graph.abs %[[P]] : tensor<1x768xf32>
// CHECK: %{{.*}} = graph.reciprocal %[[V]] : tensor<1x128x1xf32>
func.func @unary(%v: tensor<1x128x1xf32>, %h: tensor<1x128x3072xf32>, %f: tensor<1x64x112x112xf32>,
                 %se: tensor<1x256x1x1xf32>, %p: tensor<1x768xf32>) {
  %0 = graph.sqrt %v : tensor<1x128x1xf32>
  %1 = graph.erf %h : tensor<1x128x3072xf32>
  %2 = graph.relu %f : tensor<1x64x112x112xf32>
  %3 = graph.sigmoid %se : tensor<1x256x1x1xf32>
  %4 = graph.tanh %p : tensor<1x768xf32>
  %5 = graph.silu %f : tensor<1x64x112x112xf32>
  %6 = graph.gelu %h {approximate = false} : tensor<1x128x3072xf32>
  %7 = graph.gelu %h {approximate = true} : tensor<1x128x3072xf32>
  %8 = graph.clip %f {min = 0.0 : f32, max = 6.0 : f32} : tensor<1x64x112x112xf32>
  %9 = graph.exp %h : tensor<1x128x3072xf32>
  %10 = graph.log %h : tensor<1x128x3072xf32>
  %11 = graph.neg %p : tensor<1x768xf32>
  %12 = graph.abs %p : tensor<1x768xf32>
  %13 = graph.reciprocal %v : tensor<1x128x1xf32>
  return
}

// -----

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

// Tests that inference batch norms round-trip, after the ResNet-50 stem
// (default epsilon, elided) and in MobileNet-V2 (epsilon 1e-3).
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x112x112xf32>, %[[S:.*]]: tensor<64xf32>, %[[B:.*]]: tensor<64xf32>, %[[M:.*]]: tensor<64xf32>, %[[V:.*]]: tensor<64xf32>)
// CHECK: %[[Y:.*]] = graph.batch_norm %[[X]], %[[S]], %[[B]], %[[M]], %[[V]] : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: %[[Z:.*]] = graph.batch_norm %[[Y]], %[[S]], %[[B]], %[[M]], %[[V]] {epsilon = 1.000000e-03 : f32} : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
// CHECK: return %[[Z]]
func.func @batch_norm(%x: tensor<1x64x112x112xf32>, %scale: tensor<64xf32>, %bias: tensor<64xf32>, %mean: tensor<64xf32>, %var: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  %y = graph.batch_norm %x, %scale, %bias, %mean, %var
      : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  %z = graph.batch_norm %y, %scale, %bias, %mean, %var {epsilon = 1.0e-03 : f32}
      : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  return %z : tensor<1x64x112x112xf32>
}

// -----

// Tests that the BERT layer norm (bias present, epsilon 1e-12, default axis
// elided) round-trips, and one without a bias over the last two dimensions.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>, %[[G:.*]]: tensor<768xf32>, %[[B:.*]]: tensor<768xf32>, %[[G2:.*]]: tensor<128x768xf32>)
// CHECK: %[[Y:.*]] = graph.layer_norm %[[X]], %[[G]], %[[B]] {epsilon = 9.99999996E-13 : f32} : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
// CHECK: %[[Z:.*]] = graph.layer_norm %[[Y]], %[[G2]] {axis = 1 : i64} : (tensor<1x128x768xf32>, tensor<128x768xf32>) -> tensor<1x128x768xf32>
// CHECK: return %[[Z]]
func.func @layer_norm(%x: tensor<1x128x768xf32>, %gamma: tensor<768xf32>, %beta: tensor<768xf32>, %gamma2: tensor<128x768xf32>) -> tensor<1x128x768xf32> {
  %y = graph.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-12 : f32}
      : (tensor<1x128x768xf32>, tensor<768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  %z = graph.layer_norm %y, %gamma2 {axis = 1 : i64}
      : (tensor<1x128x768xf32>, tensor<128x768xf32>) -> tensor<1x128x768xf32>
  return %z : tensor<1x128x768xf32>
}

// -----

// Tests that BERT attention softmax over the keys (default axis, elided) and
// the ResNet-50 classifier softmax with an explicit axis round-trip.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[S:.*]]: tensor<1x12x128x128xf32>, %[[L:.*]]: tensor<8x1000xf32>)
// CHECK: %[[P:.*]] = graph.softmax %[[S]] : tensor<1x12x128x128xf32>
// CHECK: %[[Q:.*]] = graph.softmax %[[L]] {axis = 1 : i64} : tensor<8x1000xf32>
// CHECK: return %[[P]], %[[Q]]
func.func @softmax(%s: tensor<1x12x128x128xf32>, %l: tensor<8x1000xf32>) -> (tensor<1x12x128x128xf32>, tensor<8x1000xf32>) {
  %p = graph.softmax %s {axis = -1 : i64} : tensor<1x12x128x128xf32>
  %q = graph.softmax %l {axis = 1 : i64} : tensor<8x1000xf32>
  return %p, %q : tensor<1x12x128x128xf32>, tensor<8x1000xf32>
}

// -----

// Tests that local response normalisation round-trips: AlexNet's (bias 2,
// alpha and beta at their defaults, elided) and GoogLeNet's with every
// attribute given.
// CHECK-LABEL: func.func @lrn
// CHECK-SAME: (%[[X:.*]]: tensor<1x96x55x55xf32>, %[[G:.*]]: tensor<1x64x56x56xf32>)
// CHECK: %[[A:.*]] = graph.lrn %[[X]] {bias = 2.000000e+00 : f32, size = 5 : i64} : tensor<1x96x55x55xf32>
// CHECK: %[[B:.*]] = graph.lrn %[[G]] {alpha = 2.000000e-04 : f32, beta = 5.000000e-01 : f32, size = 3 : i64} : tensor<1x64x56x56xf32>
// CHECK: return %[[A]], %[[B]]
func.func @lrn(%x: tensor<1x96x55x55xf32>, %g: tensor<1x64x56x56xf32>) -> (tensor<1x96x55x55xf32>, tensor<1x64x56x56xf32>) {
  %a = graph.lrn %x {size = 5 : i64, bias = 2.0 : f32} : tensor<1x96x55x55xf32>
  %b = graph.lrn %g {size = 3 : i64, alpha = 2.0e-4 : f32, beta = 0.5 : f32, bias = 1.0 : f32} : tensor<1x64x56x56xf32>
  return %a, %b : tensor<1x96x55x55xf32>, tensor<1x64x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Tests that the ResNet-50 stem max pool, (112 + 1 + 1 - 3) / 2 + 1 = 56,
// round-trips.
// CHECK-LABEL: func.func @max_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x112x112xf32>)
// CHECK: %[[Y:.*]] = graph.max_pool2d %[[X]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
// CHECK: return %[[Y]]
func.func @max_pool2d(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  %y = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
      : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that GoogLeNet's unpadded max pool with ceil_mode round-trips:
// ceil((112 - 3) / 2) + 1 = 56 where floor gives 55 (ceil_mode = false is the
// default and elided); and a dilated window (span 3 on 56 -> 54).
// CHECK-LABEL: func.func @max_pool2d_ceil_dilated
// CHECK-SAME: (%[[X:.*]]: tensor<1x64x112x112xf32>, %[[X2:.*]]: tensor<1x64x56x56xf32>)
// CHECK: %[[A:.*]] = graph.max_pool2d %[[X]] {ceil_mode = true, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
// CHECK: %[[B:.*]] = graph.max_pool2d %[[X]] {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x55x55xf32>
// CHECK: %[[C:.*]] = graph.max_pool2d %[[X2]] {dilations = array<i64: 2, 2>, kernel = array<i64: 2, 2>} : tensor<1x64x56x56xf32> -> tensor<1x64x54x54xf32>
// CHECK: return %[[A]], %[[B]], %[[C]]
func.func @max_pool2d_ceil_dilated(%x: tensor<1x64x112x112xf32>, %x2: tensor<1x64x56x56xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x55x55xf32>, tensor<1x64x54x54xf32>) {
  %a = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true}
      : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  %b = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = false}
      : tensor<1x64x112x112xf32> -> tensor<1x64x55x55xf32>
  %c = graph.max_pool2d %x2 {kernel = array<i64: 2, 2>, dilations = array<i64: 2, 2>}
      : tensor<1x64x56x56xf32> -> tensor<1x64x54x54xf32>
  return %a, %b, %c : tensor<1x64x56x56xf32>, tensor<1x64x55x55xf32>, tensor<1x64x54x54xf32>
}

// -----

// Tests that average pools round-trip: Inception-v3's 3x3 stride-1 pool with
// pads keeping 35x35, the DenseNet transition 2x2 stride-2 pool, and a
// ceil_mode pool that counts padding (ceil((14 - 3) / 2) + 1 = 7).
// CHECK-LABEL: func.func @avg_pool2d
// CHECK-SAME: (%[[X:.*]]: tensor<1x192x35x35xf32>, %[[D:.*]]: tensor<1x128x56x56xf32>, %[[C:.*]]: tensor<1x256x14x14xf32>)
// CHECK: %[[A:.*]] = graph.avg_pool2d %[[X]] {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x192x35x35xf32> -> tensor<1x192x35x35xf32>
// CHECK: %[[B:.*]] = graph.avg_pool2d %[[D]] {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x128x56x56xf32> -> tensor<1x128x28x28xf32>
// CHECK: %[[E:.*]] = graph.avg_pool2d %[[C]] {ceil_mode = true, count_include_pad = true, kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x256x14x14xf32> -> tensor<1x256x7x7xf32>
// CHECK: return %[[A]], %[[B]], %[[E]]
func.func @avg_pool2d(%x: tensor<1x192x35x35xf32>, %d: tensor<1x128x56x56xf32>, %c: tensor<1x256x14x14xf32>) -> (tensor<1x192x35x35xf32>, tensor<1x128x28x28xf32>, tensor<1x256x7x7xf32>) {
  %a = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, count_include_pad = false}
      : tensor<1x192x35x35xf32> -> tensor<1x192x35x35xf32>
  %b = graph.avg_pool2d %d {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
      : tensor<1x128x56x56xf32> -> tensor<1x128x28x28xf32>
  %e = graph.avg_pool2d %c {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode = true, count_include_pad = true}
      : tensor<1x256x14x14xf32> -> tensor<1x256x7x7xf32>
  return %a, %b, %e : tensor<1x192x35x35xf32>, tensor<1x128x28x28xf32>, tensor<1x256x7x7xf32>
}

// -----

// Tests that the ResNet-50 global average pool round-trips.
// CHECK-LABEL: func.func @global_avg_pool
// CHECK-SAME: (%[[X:.*]]: tensor<8x2048x7x7xf32>)
// CHECK: %[[Y:.*]] = graph.global_avg_pool %[[X]] : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
// CHECK: return %[[Y]]
func.func @global_avg_pool(%x: tensor<8x2048x7x7xf32>) -> tensor<8x2048x1x1xf32> {
  %y = graph.global_avg_pool %x : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf32>
  return %y : tensor<8x2048x1x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// Tests that splitting BERT's hidden size into heads, a reshape then a
// transpose, round-trips.
// CHECK-LABEL: func.func @reshape_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>)
// CHECK: %[[R:.*]] = graph.reshape %[[X]] : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
// CHECK: %[[T:.*]] = graph.transpose %[[R]] {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
// CHECK: return %[[T]]
func.func @reshape_transpose(%x: tensor<1x128x768xf32>) -> tensor<1x12x128x64xf32> {
  %r = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf32>
  %t = graph.transpose %r {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
  return %t : tensor<1x12x128x64xf32>
}

// -----

// Tests that flatten round-trips with the default axis (1, elided) before the
// ResNet-50 classifier, and with axis 0.
// CHECK-LABEL: func.func @flatten
// CHECK-SAME: (%[[X:.*]]: tensor<8x2048x1x1xf32>)
// CHECK: %[[A:.*]] = graph.flatten %[[X]] : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
// CHECK: %[[B:.*]] = graph.flatten %[[X]] {axis = 0 : i64} : tensor<8x2048x1x1xf32> -> tensor<1x16384xf32>
// CHECK: return %[[A]], %[[B]]
func.func @flatten(%x: tensor<8x2048x1x1xf32>) -> (tensor<8x2048xf32>, tensor<1x16384xf32>) {
  %a = graph.flatten %x {axis = 1 : i64} : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
  %b = graph.flatten %x {axis = 0 : i64} : tensor<8x2048x1x1xf32> -> tensor<1x16384xf32>
  return %a, %b : tensor<8x2048xf32>, tensor<1x16384xf32>
}

// -----

// Tests that a DenseNet-121 dense-block concat, 64 input channels plus two
// layers of growth 32 along the channel axis, round-trips.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<1x64x56x56xf32>, %[[B:.*]]: tensor<1x32x56x56xf32>, %[[C:.*]]: tensor<1x32x56x56xf32>)
// CHECK: %[[Y:.*]] = graph.concat %[[A]], %[[B]], %[[C]] {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>, tensor<1x32x56x56xf32>) -> tensor<1x128x56x56xf32>
// CHECK: return %[[Y]]
func.func @concat(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x56x56xf32>, %c: tensor<1x32x56x56xf32>) -> tensor<1x128x56x56xf32> {
  %y = graph.concat %a, %b, %c {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>, tensor<1x32x56x56xf32>) -> tensor<1x128x56x56xf32>
  return %y : tensor<1x128x56x56xf32>
}

// -----

// Tests that the ShuffleNet-V2 channel split of 116 channels into two halves,
// and the BERT fused QKV projection split in three along a negative axis,
// round-trip. The result types print as a bare list, without parentheses.
// CHECK-LABEL: func.func @split
// CHECK-SAME: (%[[X:.*]]: tensor<1x116x28x28xf32>, %[[Q:.*]]: tensor<1x128x2304xf32>)
// CHECK: %[[S:.*]]:2 = graph.split %[[X]] {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>
// CHECK: %[[T:.*]]:3 = graph.split %[[Q]] {axis = -1 : i64} : tensor<1x128x2304xf32> -> tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>
// CHECK: return %[[S]]#0, %[[S]]#1, %[[T]]#2
func.func @split(%x: tensor<1x116x28x28xf32>, %qkv: tensor<1x128x2304xf32>) -> (tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>, tensor<1x128x768xf32>) {
  %a, %b = graph.split %x {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>
  %q, %k, %v = graph.split %qkv {axis = -1 : i64} : tensor<1x128x2304xf32> -> tensor<1x128x768xf32>, tensor<1x128x768xf32>, tensor<1x128x768xf32>
  return %a, %b, %v : tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>, tensor<1x128x768xf32>
}

// -----

// Tests that slices round-trip with steps absent (BERT position ids for 128
// tokens) and present (YOLOv5 Focus: every other pixel from row 1, the last
// read at 1 + 111 * 2 = 223).
// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[P:.*]]: tensor<1x512xi64>, %[[X:.*]]: tensor<1x3x224x224xf32>)
// CHECK: %[[A:.*]] = graph.slice %[[P]] {starts = array<i64: 0, 0>} : tensor<1x512xi64> -> tensor<1x128xi64>
// CHECK: %[[B:.*]] = graph.slice %[[X]] {starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<1x3x224x224xf32> -> tensor<1x3x112x112xf32>
// CHECK: return %[[A]], %[[B]]
func.func @slice(%p: tensor<1x512xi64>, %x: tensor<1x3x224x224xf32>) -> (tensor<1x128xi64>, tensor<1x3x112x112xf32>) {
  %a = graph.slice %p {starts = array<i64: 0, 0>} : tensor<1x512xi64> -> tensor<1x128xi64>
  %b = graph.slice %x {starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<1x3x224x224xf32> -> tensor<1x3x112x112xf32>
  return %a, %b : tensor<1x128xi64>, tensor<1x3x112x112xf32>
}

// -----

// Tests that every #graph<pad_mode ...> case round-trips: the default
// constant mode (elided) padding the ResNet stem input by 3, constant with a
// fill value, reflect (CycleGAN) and edge, and a negative pad that crops.
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x224x224xf32>, %[[F:.*]]: tensor<1x64x56x56xf32>)
// CHECK: %[[A:.*]] = graph.pad %[[X]] {pads = array<i64: 0, 0, 3, 3, 0, 0, 3, 3>} : tensor<1x3x224x224xf32> -> tensor<1x3x230x230xf32>
// CHECK: %[[B:.*]] = graph.pad %[[X]] {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -1.000000e+00 : f32} : tensor<1x3x224x224xf32> -> tensor<1x3x226x226xf32>
// CHECK: %[[C:.*]] = graph.pad %[[F]] {mode = #graph<pad_mode reflect>, pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<1x64x56x56xf32> -> tensor<1x64x58x58xf32>
// CHECK: %[[D:.*]] = graph.pad %[[F]] {mode = #graph<pad_mode edge>, pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>} : tensor<1x64x56x56xf32> -> tensor<1x64x57x57xf32>
// CHECK: %[[E:.*]] = graph.pad %[[F]] {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>} : tensor<1x64x56x56xf32> -> tensor<1x64x54x54xf32>
// CHECK: return %[[A]], %[[B]], %[[C]], %[[D]], %[[E]]
func.func @pad(%x: tensor<1x3x224x224xf32>, %f: tensor<1x64x56x56xf32>) -> (tensor<1x3x230x230xf32>, tensor<1x3x226x226xf32>, tensor<1x64x58x58xf32>, tensor<1x64x57x57xf32>, tensor<1x64x54x54xf32>) {
  %a = graph.pad %x {pads = array<i64: 0, 0, 3, 3, 0, 0, 3, 3>, mode = #graph<pad_mode constant>} : tensor<1x3x224x224xf32> -> tensor<1x3x230x230xf32>
  %b = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, value = -1.0 : f32} : tensor<1x3x224x224xf32> -> tensor<1x3x226x226xf32>
  %c = graph.pad %f {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = #graph<pad_mode reflect>} : tensor<1x64x56x56xf32> -> tensor<1x64x58x58xf32>
  %d = graph.pad %f {pads = array<i64: 0, 0, 0, 0, 0, 0, 1, 1>, mode = #graph<pad_mode edge>} : tensor<1x64x56x56xf32> -> tensor<1x64x57x57xf32>
  %e = graph.pad %f {pads = array<i64: 0, 0, -1, -1, 0, 0, -1, -1>} : tensor<1x64x56x56xf32> -> tensor<1x64x54x54xf32>
  return %a, %b, %c, %d, %e : tensor<1x3x230x230xf32>, tensor<1x3x226x226xf32>, tensor<1x64x58x58xf32>, tensor<1x64x57x57xf32>, tensor<1x64x54x54xf32>
}

// -----

// Tests that gather_elements round-trips: the probability of each sample's label,
// picked along the class axis (as a cross-entropy loss reads it).
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[P:.*]]: tensor<4x10xf32>, %[[L:.*]]: tensor<4x1xi64>)
// CHECK: %[[G:.*]] = graph.gather_elements %[[P]], %[[L]] {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
// CHECK: return %[[G]]
func.func @gather_elements(%probs: tensor<4x10xf32>, %labels: tensor<4x1xi64>) -> tensor<4x1xf32> {
  %g = graph.gather_elements %probs, %labels {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x1xf32>
  return %g : tensor<4x1xf32>
}

// -----

// Tests that scatter_elements round-trips: updates written back along the last
// axis (the default reduction, none, elided), and added along the first axis with
// i32 indices.
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME: (%[[D:.*]]: tensor<2x5xf32>, %[[I:.*]]: tensor<2x2xi64>, %[[U:.*]]: tensor<2x2xf32>, %[[J:.*]]: tensor<2x2xi32>)
// CHECK: %[[S:.*]] = graph.scatter_elements %[[D]], %[[I]], %[[U]] {axis = -1 : i64} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
// CHECK: %[[A:.*]] = graph.scatter_elements %[[S]], %[[J]], %[[U]] {reduction = #graph<reduction add>} : (tensor<2x5xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x5xf32>
// CHECK: return %[[A]]
func.func @scatter_elements(%data: tensor<2x5xf32>, %indices: tensor<2x2xi64>, %updates: tensor<2x2xf32>, %narrow: tensor<2x2xi32>) -> tensor<2x5xf32> {
  %s = graph.scatter_elements %data, %indices, %updates {axis = -1 : i64, reduction = #graph<reduction none>} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x5xf32>
  %a = graph.scatter_elements %s, %narrow, %updates {axis = 0 : i64, reduction = #graph<reduction add>} : (tensor<2x5xf32>, tensor<2x2xi32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %a : tensor<2x5xf32>
}

// -----

// Tests that argmax and argmin round-trip: a classifier's predicted class (the
// axis dropped) and the first minimum kept as a size-1 axis (keepdims, the
// default, elided), counted from the end.
// CHECK-LABEL: func.func @arg_extremes
// CHECK-SAME: (%[[X:.*]]: tensor<8x1000xf32>)
// CHECK: %[[A:.*]] = graph.argmax %[[X]] {axis = 1 : i64, keepdims = false} : tensor<8x1000xf32> -> tensor<8xi64>
// CHECK: %[[B:.*]] = graph.argmin %[[X]] {axis = -1 : i64, select_last_index = true} : tensor<8x1000xf32> -> tensor<8x1xi64>
// CHECK: return %[[A]], %[[B]]
func.func @arg_extremes(%x: tensor<8x1000xf32>) -> (tensor<8xi64>, tensor<8x1xi64>) {
  %a = graph.argmax %x {axis = 1 : i64, keepdims = false} : tensor<8x1000xf32> -> tensor<8xi64>
  %b = graph.argmin %x {axis = -1 : i64, keepdims = true, select_last_index = true} : tensor<8x1000xf32> -> tensor<8x1xi64>
  return %a, %b : tensor<8xi64>, tensor<8x1xi64>
}

// -----

// Tests that gather round-trips: the BERT word-embedding lookup (axis 0, the
// default, elided) and the pooler's [CLS] token picked by a 0-D i32 index.
// CHECK-LABEL: func.func @gather
// CHECK-SAME: (%[[T:.*]]: tensor<30522x768xf32>, %[[IDS:.*]]: tensor<1x128xi64>, %[[H:.*]]: tensor<1x128x768xf32>, %[[I:.*]]: tensor<i32>)
// CHECK: %[[E:.*]] = graph.gather %[[T]], %[[IDS]] : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
// CHECK: %[[C:.*]] = graph.gather %[[H]], %[[I]] {axis = 1 : i64} : (tensor<1x128x768xf32>, tensor<i32>) -> tensor<1x768xf32>
// CHECK: return %[[E]], %[[C]]
func.func @gather(%table: tensor<30522x768xf32>, %ids: tensor<1x128xi64>, %h: tensor<1x128x768xf32>, %i: tensor<i32>) -> (tensor<1x128x768xf32>, tensor<1x768xf32>) {
  %e = graph.gather %table, %ids {axis = 0 : i64} : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  %c = graph.gather %h, %i {axis = 1 : i64} : (tensor<1x128x768xf32>, tensor<i32>) -> tensor<1x768xf32>
  return %e, %c : tensor<1x128x768xf32>, tensor<1x768xf32>
}

// -----

// Tests that casts round-trip: a BERT attention mask from i64 to f32 and to
// i1.
// CHECK-LABEL: func.func @cast
// CHECK-SAME: (%[[M:.*]]: tensor<1x128xi64>)
// CHECK: %[[F:.*]] = graph.cast %[[M]] : tensor<1x128xi64> -> tensor<1x128xf32>
// CHECK: %[[B:.*]] = graph.cast %[[M]] : tensor<1x128xi64> -> tensor<1x128xi1>
// CHECK: return %[[F]], %[[B]]
func.func @cast(%m: tensor<1x128xi64>) -> (tensor<1x128xf32>, tensor<1x128xi1>) {
  %f = graph.cast %m : tensor<1x128xi64> -> tensor<1x128xf32>
  %b = graph.cast %m : tensor<1x128xi64> -> tensor<1x128xi1>
  return %f, %b : tensor<1x128xf32>, tensor<1x128xi1>
}

// -----

// Tests that broadcasts round-trip: a mask row over 12 heads, and a rank-1
// bias grown to the rank-4 attention scores.
// CHECK-LABEL: func.func @broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x128xf32>, %[[B:.*]]: tensor<128xf32>)
// CHECK: %[[Y:.*]] = graph.broadcast %[[X]] : tensor<1x1x128xf32> -> tensor<1x12x128xf32>
// CHECK: %[[Z:.*]] = graph.broadcast %[[B]] : tensor<128xf32> -> tensor<1x12x128x128xf32>
// CHECK: return %[[Y]], %[[Z]]
func.func @broadcast(%x: tensor<1x1x128xf32>, %b: tensor<128xf32>) -> (tensor<1x12x128xf32>, tensor<1x12x128x128xf32>) {
  %y = graph.broadcast %x : tensor<1x1x128xf32> -> tensor<1x12x128xf32>
  %z = graph.broadcast %b : tensor<128xf32> -> tensor<1x12x128x128xf32>
  return %y, %z : tensor<1x12x128xf32>, tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Comparison and selection
//===----------------------------------------------------------------------===//

// Tests that every comparison predicate round-trips, with broadcasting: the
// BERT padding mask (ids equal to the pad id) and comparisons of scores.
// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%[[IDS:.*]]: tensor<1x128xi64>, %[[PAD:.*]]: tensor<i64>, %[[S:.*]]: tensor<1x12x128x128xf32>, %[[T:.*]]: tensor<f32>)
// CHECK: %{{.*}} = graph.compare eq, %[[IDS]], %[[PAD]] : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi1>
// CHECK: %{{.*}} = graph.compare ne, %[[IDS]], %[[PAD]] : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi1>
// CHECK: %{{.*}} = graph.compare lt, %[[S]], %[[T]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
// CHECK: %{{.*}} = graph.compare le, %[[S]], %[[T]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
// CHECK: %{{.*}} = graph.compare gt, %[[S]], %[[T]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
// CHECK: %{{.*}} = graph.compare ge, %[[S]], %[[T]] : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
func.func @compare(%ids: tensor<1x128xi64>, %pad: tensor<i64>, %s: tensor<1x12x128x128xf32>, %t: tensor<f32>) {
  %0 = graph.compare eq, %ids, %pad : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi1>
  %1 = graph.compare ne, %ids, %pad : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi1>
  %2 = graph.compare lt, %s, %t : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
  %3 = graph.compare le, %s, %t : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
  %4 = graph.compare gt, %s, %t : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
  %5 = graph.compare ge, %s, %t : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xi1>
  return
}

// -----

// Tests that where round-trips with all three operands broadcast: masking
// BERT attention scores with a 0-D -inf.
// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[M:.*]]: tensor<1x1x1x128xi1>, %[[S:.*]]: tensor<1x12x128x128xf32>, %[[NINF:.*]]: tensor<f32>)
// CHECK: %[[Y:.*]] = graph.where %[[M]], %[[S]], %[[NINF]] : tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
// CHECK: return %[[Y]]
func.func @where(%m: tensor<1x1x1x128xi1>, %s: tensor<1x12x128x128xf32>, %ninf: tensor<f32>) -> tensor<1x12x128x128xf32> {
  %y = graph.where %m, %s, %ninf : tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Tests that the reductions round-trip: the layer-norm mean over the hidden
// size (keepdims by default, elided), a softmax denominator without keepdims,
// a global max pool over both spatial axes, and a product over every axis.
// CHECK-LABEL: func.func @reduce
// CHECK-SAME: (%[[X:.*]]: tensor<1x128x768xf32>, %[[S:.*]]: tensor<1x12x128x128xf32>, %[[F:.*]]: tensor<1x2048x7x7xf32>)
// CHECK: %[[M:.*]] = graph.reduce_mean %[[X]] {axes = array<i64: -1>} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
// CHECK: %[[D:.*]] = graph.reduce_sum %[[S]] {axes = array<i64: 3>, keepdims = false} : tensor<1x12x128x128xf32> -> tensor<1x12x128xf32>
// CHECK: %[[G:.*]] = graph.reduce_max %[[F]] {axes = array<i64: 2, 3>, keepdims = false} : tensor<1x2048x7x7xf32> -> tensor<1x2048xf32>
// CHECK: %[[P:.*]] = graph.reduce_prod %[[F]] {axes = array<i64>, keepdims = false} : tensor<1x2048x7x7xf32> -> tensor<f32>
// CHECK: return %[[M]], %[[D]], %[[G]], %[[P]]
func.func @reduce(%x: tensor<1x128x768xf32>, %s: tensor<1x12x128x128xf32>, %f: tensor<1x2048x7x7xf32>) -> (tensor<1x128x1xf32>, tensor<1x12x128xf32>, tensor<1x2048xf32>, tensor<f32>) {
  %m = graph.reduce_mean %x {axes = array<i64: -1>, keepdims = true} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
  %d = graph.reduce_sum %s {axes = array<i64: 3>, keepdims = false} : tensor<1x12x128x128xf32> -> tensor<1x12x128xf32>
  %g = graph.reduce_max %f {axes = array<i64: 2, 3>, keepdims = false} : tensor<1x2048x7x7xf32> -> tensor<1x2048xf32>
  %p = graph.reduce_prod %f {axes = array<i64>, keepdims = false} : tensor<1x2048x7x7xf32> -> tensor<f32>
  return %m, %d, %g, %p : tensor<1x128x1xf32>, tensor<1x12x128xf32>, tensor<1x2048xf32>, tensor<f32>
}

// -----

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// Tests that graph.if with results round-trips: a dynamic early exit that
// either runs another bottleneck convolution or passes the features through.
// CHECK-LABEL: func.func @if
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<1x64x56x56xf32>, %[[W:.*]]: tensor<64x64x3x3xf32>)
// CHECK: %[[R:.*]]:2 = graph.if %[[C]] -> (tensor<1x64x56x56xf32>, tensor<i1>) {
// CHECK-NEXT: %[[Y:.*]] = graph.conv2d %[[X]], %[[W]] {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>}
// CHECK-NEXT: graph.yield %[[Y]], %[[C]] : tensor<1x64x56x56xf32>, tensor<i1>
// CHECK-NEXT: } else {
// CHECK-NEXT: graph.yield %[[X]], %[[C]] : tensor<1x64x56x56xf32>, tensor<i1>
// CHECK-NEXT: }
// CHECK: return %[[R]]#0
func.func @if(%c: tensor<i1>, %x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  %r:2 = graph.if %c -> (tensor<1x64x56x56xf32>, tensor<i1>) {
    %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>}
        : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
    graph.yield %y, %c : tensor<1x64x56x56xf32>, tensor<i1>
  } else {
    graph.yield %x, %c : tensor<1x64x56x56xf32>, tensor<i1>
  }
  return %r#0 : tensor<1x64x56x56xf32>
}

// -----

// Tests that graph.if without results (the optional result list absent)
// round-trips, both regions ending in an empty graph.yield.
// CHECK-LABEL: func.func @if_no_results
// CHECK-SAME: (%[[C:.*]]: tensor<i1>)
// CHECK: graph.if %[[C]] {
// CHECK-NEXT: graph.yield
// CHECK-NEXT: } else {
// CHECK-NEXT: graph.yield
// CHECK-NEXT: }
func.func @if_no_results(%c: tensor<i1>) {
  graph.if %c {
    graph.yield
  } else {
    graph.yield
  }
  return
}

// -----

// Tests that graph.loop with loop-carried values round-trips: a weight-shared
// recurrent block applied up to %n times while the condition holds, counting
// its iterations.
// CHECK-LABEL: func.func @loop
// CHECK-SAME: (%[[N:.*]]: tensor<i64>, %[[COND:.*]]: tensor<i1>, %[[X:.*]]: tensor<1x128x768xf32>, %[[W:.*]]: tensor<768x768xf32>)
// CHECK: %[[R:.*]]:2 = graph.loop %[[N]], %[[COND]] iter_args(%[[X]], %[[N]] : tensor<1x128x768xf32>, tensor<i64>) -> (tensor<1x128x768xf32>, tensor<i64>) {
// CHECK-NEXT: ^bb0(%[[I:.*]]: tensor<i64>, %[[H:.*]]: tensor<1x128x768xf32>, %[[K:.*]]: tensor<i64>):
// CHECK-NEXT: %[[P:.*]] = graph.batch_matmul %[[H]], %[[W]]
// CHECK-NEXT: %[[T:.*]] = graph.tanh %[[P]]
// CHECK-NEXT: graph.yield %[[COND]], %[[T]], %[[I]] : tensor<i1>, tensor<1x128x768xf32>, tensor<i64>
// CHECK-NEXT: }
// CHECK: return %[[R]]#0
func.func @loop(%n: tensor<i64>, %cond: tensor<i1>, %x: tensor<1x128x768xf32>, %w: tensor<768x768xf32>) -> tensor<1x128x768xf32> {
  %r:2 = graph.loop %n, %cond iter_args(%x, %n : tensor<1x128x768xf32>, tensor<i64>) -> (tensor<1x128x768xf32>, tensor<i64>) {
  ^bb0(%i: tensor<i64>, %h: tensor<1x128x768xf32>, %k: tensor<i64>):
    %p = graph.batch_matmul %h, %w : tensor<1x128x768xf32>, tensor<768x768xf32> -> tensor<1x128x768xf32>
    %t = graph.tanh %p : tensor<1x128x768xf32>
    graph.yield %cond, %t, %i : tensor<i1>, tensor<1x128x768xf32>, tensor<i64>
  }
  return %r#0 : tensor<1x128x768xf32>
}

// -----

// Tests that graph.loop without loop-carried values or results (both optional
// groups absent) round-trips: the body gets only the iteration number.
// CHECK-LABEL: func.func @loop_no_carried
// CHECK-SAME: (%[[N:.*]]: tensor<i64>, %[[COND:.*]]: tensor<i1>)
// CHECK: graph.loop %[[N]], %[[COND]] {
// CHECK-NEXT: ^bb0(%{{.*}}: tensor<i64>):
// CHECK-NEXT: graph.yield %[[COND]] : tensor<i1>
// CHECK-NEXT: }
func.func @loop_no_carried(%n: tensor<i64>, %cond: tensor<i1>) {
  graph.loop %n, %cond {
  ^bb0(%i: tensor<i64>):
    graph.yield %cond : tensor<i1>
  }
  return
}

// -----

// Tests that graph.resize round-trips with its defaults elided and its enums
// printed by name (a decoder's bilinear 2x upsampling, and a bicubic one with
// its coefficient and exclude_outside).
// CHECK-LABEL: func.func @resize
// CHECK: graph.resize %{{.*}} {scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x256x14x14xf32> -> tensor<1x256x28x28xf32>
// CHECK: graph.resize %{{.*}} {coordinates = #graph<resize_coordinates align_corners>, mode = #graph<resize_mode linear>, scales = array<f32: 1.000000e+00, 1.000000e+00, 5.000000e-01, 5.000000e-01>} : tensor<1x256x14x14xf32> -> tensor<1x256x7x7xf32>
// CHECK: graph.resize %{{.*}} {cubic_coeff_a = -5.000000e-01 : f32, exclude_outside = true, mode = #graph<resize_mode cubic>, scales = array<f32: 1.000000e+00, 1.000000e+00, 2.000000e+00, 2.000000e+00>} : tensor<1x256x14x14xf32> -> tensor<1x256x28x28xf32>
func.func @resize(%x: tensor<1x256x14x14xf32>) -> (tensor<1x256x28x28xf32>, tensor<1x256x7x7xf32>, tensor<1x256x28x28xf32>) {
  %a = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x256x14x14xf32> -> tensor<1x256x28x28xf32>
  %b = graph.resize %x {scales = array<f32: 1.0, 1.0, 0.5, 0.5>, mode = #graph<resize_mode linear>, coordinates = #graph<resize_coordinates align_corners>} : tensor<1x256x14x14xf32> -> tensor<1x256x7x7xf32>
  %c = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>, mode = #graph<resize_mode cubic>, cubic_coeff_a = -0.5 : f32, exclude_outside = true} : tensor<1x256x14x14xf32> -> tensor<1x256x28x28xf32>
  return %a, %b, %c : tensor<1x256x28x28xf32>, tensor<1x256x7x7xf32>, tensor<1x256x28x28xf32>
}

// -----

// Tests that graph.top_k round-trips: a classifier's five best classes (largest
// and sorted, the defaults, elided) and the two smallest along the batch axis.
// CHECK-LABEL: func.func @top_k
// CHECK-SAME: (%[[X:.*]]: tensor<8x1000xf32>)
// CHECK: %[[V:.*]], %[[I:.*]] = graph.top_k %[[X]] {axis = -1 : i64, k = 5 : i64} : tensor<8x1000xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
// CHECK: %{{.*}}, %[[S:.*]] = graph.top_k %[[X]] {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : tensor<8x1000xf32> -> tensor<2x1000xf32>, tensor<2x1000xi64>
// CHECK: return %[[V]], %[[I]], %[[S]]
func.func @top_k(%x: tensor<8x1000xf32>) -> (tensor<8x5xf32>, tensor<8x5xi64>, tensor<2x1000xi64>) {
  %v, %i = graph.top_k %x {axis = -1 : i64, k = 5 : i64, largest = true} : tensor<8x1000xf32> -> tensor<8x5xf32>, tensor<8x5xi64>
  %sv, %si = graph.top_k %x {axis = 0 : i64, k = 2 : i64, largest = false, sorted = false} : tensor<8x1000xf32> -> tensor<2x1000xf32>, tensor<2x1000xi64>
  return %v, %i, %si : tensor<8x5xf32>, tensor<8x5xi64>, tensor<2x1000xi64>
}

// -----

// Tests that the quantization ops round-trip: a per-channel quantize (the
// default axis 1 elided), a per-tensor dequantize on another axis, an integer
// product with a per-row zero point requantized per column, and an integer
// convolution with per-channel filter zero points.
// CHECK-LABEL: func.func @quantization
// CHECK: %[[Q:.*]] = graph.quantize %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x4x4xi8>
// CHECK: graph.dequantize %[[Q]], %{{.*}}, %{{.*}} {axis = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
// CHECK: %[[P:.*]] = graph.matmul_integer %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xui8>, tensor<3x4xi8>, tensor<2xui8>, tensor<i8>) -> tensor<2x4xi32>
// CHECK: graph.requantize %[[P]], %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<2x4xi32>, tensor<4xf32>, tensor<ui8>) -> tensor<2x4xui8>
// CHECK: graph.conv_integer %[[Q]], %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x3x3xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x2x4x4xi32>
func.func @quantization(%x: tensor<1x3x4x4xf32>, %s: tensor<3xf32>, %zp: tensor<3xi8>,
    %s1: tensor<f32>, %zp1: tensor<i8>, %a: tensor<2x3xui8>, %b: tensor<3x4xi8>,
    %azp: tensor<2xui8>, %m: tensor<4xf32>, %yzp: tensor<ui8>, %w: tensor<2x3x3x3xi8>,
    %wzp: tensor<2xi8>)
    -> (tensor<1x3x4x4xf32>, tensor<2x4xui8>, tensor<1x2x4x4xi32>) {
  %q = graph.quantize %x, %s, %zp {axis = 1 : i64} : (tensor<1x3x4x4xf32>, tensor<3xf32>, tensor<3xi8>) -> tensor<1x3x4x4xi8>
  %d = graph.dequantize %q, %s1, %zp1 {axis = 0 : i64} : (tensor<1x3x4x4xi8>, tensor<f32>, tensor<i8>) -> tensor<1x3x4x4xf32>
  %p = graph.matmul_integer %a, %b, %azp, %zp1 : (tensor<2x3xui8>, tensor<3x4xi8>, tensor<2xui8>, tensor<i8>) -> tensor<2x4xi32>
  %r = graph.requantize %p, %m, %yzp {axis = -1 : i64} : (tensor<2x4xi32>, tensor<4xf32>, tensor<ui8>) -> tensor<2x4xui8>
  %c = graph.conv_integer %q, %w, %zp1, %wzp {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x4x4xi8>, tensor<2x3x3x3xi8>, tensor<i8>, tensor<2xi8>) -> tensor<1x2x4x4xi32>
  return %d, %r, %c : tensor<1x3x4x4xf32>, tensor<2x4xui8>, tensor<1x2x4x4xi32>
}
