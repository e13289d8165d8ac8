// RUN: turbine-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// graph.constant, graph.weight
//===----------------------------------------------------------------------===//

// Tests that a constant's value and result must have the same type.
func.func @constant_type_mismatch() -> tensor<8xf32> {
  // expected-error@+1 {{failed to verify that all of {value, result} have same type}}
  %c = "graph.constant"() <{value = dense<1.0> : tensor<4xf32>}> : () -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// Tests that a weight must name its tensor.
func.func @weight_empty_name() -> tensor<64xf32> {
  // expected-error@+1 {{expects a non-empty weight name}}
  %w = graph.weight "" : tensor<64xf32>
  return %w : tensor<64xf32>
}

// -----

// Tests that graph tensors must have static shapes (a dynamic batch size).
func.func @weight_dynamic_shape() -> tensor<?x64xf32> {
  // expected-error@+1 {{result #0 must be statically shaped tensor of any type values, but got 'tensor<?x64xf32>'}}
  %w = graph.weight "fc.weight" : tensor<?x64xf32>
  return %w : tensor<?x64xf32>
}

// -----

//===----------------------------------------------------------------------===//
// graph.conv2d
//===----------------------------------------------------------------------===//

// Tests that a convolution's result shape must follow from input, filter,
// strides and pads: the ResNet-50 stem without its pads of 3 gives
// (224 - 7) / 2 + 1 = 109, not 112.
func.func @conv2d_result_shape(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{result shape [1, 64, 112, 112] does not match the expected [1, 64, 109, 109]}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that dilations count in the result shape: a 3x3 filter with dilation
// 2 and pads 1 on 28x28 gives (28 + 2 - 5) + 1 = 26.
func.func @conv2d_result_shape_dilated(%x: tensor<1x512x28x28xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32> {
  // expected-error@+1 {{result shape [1, 512, 28, 28] does not match the expected [1, 512, 26, 26]}}
  %y = graph.conv2d %x, %w {dilations = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x28x28xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32>
  return %y : tensor<1x512x28x28xf32>
}

// -----

// Tests that groups must divide the input channels: 32 MobileNet channels in 3
// groups.
func.func @conv2d_groups_not_dividing(%x: tensor<1x32x112x112xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32> {
  // expected-error@+1 {{expects 'groups' (3) to divide both the input channels (32) and the output channels (32)}}
  %y = graph.conv2d %x, %w {groups = 3 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x112x112xf32>
  return %y : tensor<1x32x112x112xf32>
}

// -----

// Tests that groups must divide the output channels too: ResNeXt with 32
// groups but 100 filters.
func.func @conv2d_groups_not_dividing_output(%x: tensor<1x128x56x56xf32>, %w: tensor<100x4x3x3xf32>) -> tensor<1x100x56x56xf32> {
  // expected-error@+1 {{expects 'groups' (32) to divide both the input channels (128) and the output channels (100)}}
  %y = graph.conv2d %x, %w {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x128x56x56xf32>, tensor<100x4x3x3xf32>) -> tensor<1x100x56x56xf32>
  return %y : tensor<1x100x56x56xf32>
}

// -----

// Tests that groups must be positive.
func.func @conv2d_groups_zero(%x: tensor<1x32x112x112xf32>, %w: tensor<32x1x3x3xf32>) -> tensor<1x32x110x110xf32> {
  // expected-error@+1 {{expects 'groups' to be positive, got 0}}
  %y = graph.conv2d %x, %w {groups = 0 : i64} : (tensor<1x32x112x112xf32>, tensor<32x1x3x3xf32>) -> tensor<1x32x110x110xf32>
  return %y : tensor<1x32x110x110xf32>
}

// -----

// Tests that the filter's input channels times groups must be the input's
// channels: a depthwise convolution given a dense 3-channel filter.
func.func @conv2d_filter_channels(%x: tensor<1x32x112x112xf32>, %w: tensor<32x3x3x3xf32>) -> tensor<1x32x112x112xf32> {
  // expected-error@+1 {{filter expects 3 input channels per group (96 in all) but the input has 32}}
  %y = graph.conv2d %x, %w {groups = 32 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x32x112x112xf32>, tensor<32x3x3x3xf32>) -> tensor<1x32x112x112xf32>
  return %y : tensor<1x32x112x112xf32>
}

// -----

// Tests that a convolution's input must be 4-D NCHW (a missing batch
// dimension).
func.func @conv2d_input_rank(%x: tensor<3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects a 4-D NCHW input, got shape [3, 224, 224]}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that a convolution's filter must be 4-D OIHW.
func.func @conv2d_filter_rank(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects a 4-D OIHW filter, got shape [64, 3, 7]}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that the filter window must fit in the padded input.
func.func @conv2d_filter_too_large(%x: tensor<1x512x4x4xf32>, %w: tensor<512x512x7x7xf32>) -> tensor<1x512x1x1xf32> {
  // expected-error@+1 {{filter of 7 (dilation 1) does not fit in padded height 4}}
  %y = graph.conv2d %x, %w : (tensor<1x512x4x4xf32>, tensor<512x512x7x7xf32>) -> tensor<1x512x1x1xf32>
  return %y : tensor<1x512x1x1xf32>
}

// -----

// Tests that the dilated filter window must fit along the width too.
func.func @conv2d_dilated_too_wide(%x: tensor<1x64x8x8xf32>, %w: tensor<64x64x1x3xf32>) -> tensor<1x64x8x1xf32> {
  // expected-error@+1 {{filter of 3 (dilation 4) does not fit in padded width 8}}
  %y = graph.conv2d %x, %w {dilations = array<i64: 1, 4>} : (tensor<1x64x8x8xf32>, tensor<64x64x1x3xf32>) -> tensor<1x64x8x1xf32>
  return %y : tensor<1x64x8x1xf32>
}

// -----

// Tests that strides must have two values.
func.func @conv2d_strides_size(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects 'strides' to have 2 values, got 1}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that strides must be positive.
func.func @conv2d_strides_zero(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects every value of 'strides' to be at least 1, got [2, 0]}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 0>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that pads must not be negative.
func.func @conv2d_pads_negative(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects every value of 'pads' to be at least 0, got [1, 1, -1, 3]}}
  %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, -1, 3>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that dilations must have two values.
func.func @conv2d_dilations_size(%x: tensor<1x512x28x28xf32>, %w: tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32> {
  // expected-error@+1 {{expects 'dilations' to have 2 values, got 3}}
  %y = graph.conv2d %x, %w {dilations = array<i64: 2, 2, 2>, pads = array<i64: 2, 2, 2, 2>} : (tensor<1x512x28x28xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x28x28xf32>
  return %y : tensor<1x512x28x28xf32>
}

// -----

// Tests that the bias has one value per output channel.
func.func @conv2d_bias_shape(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<3xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects a 1-D bias of 64 values (one per output channel), got shape [3]}}
  %y = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<3xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that input, filter and result share one element type.
func.func @conv2d_element_type(%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf16>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that convolution is on floating-point tensors only (an int8 input).
func.func @conv2d_integer(%x: tensor<1x3x224x224xi8>, %w: tensor<64x3x7x7xi8>) -> tensor<1x64x112x112xi8> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<1x3x224x224xi8>'}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<1x3x224x224xi8>, tensor<64x3x7x7xi8>) -> tensor<1x64x112x112xi8>
  return %y : tensor<1x64x112x112xi8>
}

// -----

// Tests that a convolution rejects a dynamic batch size.
func.func @conv2d_dynamic(%x: tensor<?x3x224x224xf32>, %w: tensor<64x3x7x7xf32>) -> tensor<?x64x112x112xf32> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<?x3x224x224xf32>'}}
  %y = graph.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 3, 3, 3, 3>} : (tensor<?x3x224x224xf32>, tensor<64x3x7x7xf32>) -> tensor<?x64x112x112xf32>
  return %y : tensor<?x64x112x112xf32>
}

// -----

// Tests that an unknown activation is a parse error.
func.func @conv2d_unknown_activation(%x: tensor<1x32x56x56xf32>, %w: tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32> {
  // expected-error@+2 {{expected ::turbine::graph::Activation to be one of: relu, relu6, sigmoid, tanh, silu, gelu}}
  // expected-error@+1 {{failed to parse Graph_ActivationAttr parameter 'value'}}
  %y = graph.conv2d %x, %w {activation = #graph<activation swish>} : (tensor<1x32x56x56xf32>, tensor<32x32x1x1xf32>) -> tensor<1x32x56x56xf32>
  return %y : tensor<1x32x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// graph.matmul, graph.batch_matmul, graph.gemm
//===----------------------------------------------------------------------===//

// Tests that a matmul's inner dimensions must agree: a BERT feed-forward
// weight used untransposed.
func.func @matmul_inner(%a: tensor<128x768xf32>, %b: tensor<3072x768xf32>) -> tensor<128x768xf32> {
  // expected-error@+1 {{inner dimensions differ: [128, 768] x [3072, 768]}}
  %c = graph.matmul %a, %b : tensor<128x768xf32>, tensor<3072x768xf32> -> tensor<128x768xf32>
  return %c : tensor<128x768xf32>
}

// -----

// Tests that graph.matmul takes 2-D operands only.
func.func @matmul_rank(%a: tensor<1x128x768xf32>, %b: tensor<768x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{expects 2-D operands (use graph.batch_matmul for batches), got shapes [1, 128, 768] and [768, 768]}}
  %c = graph.matmul %a, %b : tensor<1x128x768xf32>, tensor<768x768xf32> -> tensor<1x128x768xf32>
  return %c : tensor<1x128x768xf32>
}

// -----

// Tests that a matmul's result is [M, N].
func.func @matmul_result(%a: tensor<128x768xf32>, %b: tensor<768x3072xf32>) -> tensor<128x768xf32> {
  // expected-error@+1 {{result shape [128, 768] does not match the expected [128, 3072]}}
  %c = graph.matmul %a, %b : tensor<128x768xf32>, tensor<768x3072xf32> -> tensor<128x768xf32>
  return %c : tensor<128x768xf32>
}

// -----

// Tests that a matmul's operands share one element type.
func.func @matmul_element_type(%a: tensor<128x768xf16>, %b: tensor<768x3072xf32>) -> tensor<128x3072xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f16' and 'f32'}}
  %c = graph.matmul %a, %b : tensor<128x768xf16>, tensor<768x3072xf32> -> tensor<128x3072xf32>
  return %c : tensor<128x3072xf32>
}

// -----

// Tests that batch_matmul's inner dimensions must agree: attention scores
// Q x K without transposing K.
func.func @batch_matmul_inner(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x128x64xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{inner dimensions differ: [1, 12, 128, 64] x [1, 12, 128, 64]}}
  %s = graph.batch_matmul %q, %k : tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32> -> tensor<1x12x128x128xf32>
  return %s : tensor<1x12x128x128xf32>
}

// -----

// Tests that batch_matmul's batch dimensions must broadcast (12 heads against
// 8).
func.func @batch_matmul_batch(%q: tensor<1x12x128x64xf32>, %k: tensor<1x8x64x128xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{batch dimensions do not broadcast: [1, 12] and [1, 8]}}
  %s = graph.batch_matmul %q, %k : tensor<1x12x128x64xf32>, tensor<1x8x64x128xf32> -> tensor<1x12x128x128xf32>
  return %s : tensor<1x12x128x128xf32>
}

// -----

// Tests that batch_matmul needs operands of rank at least 2.
func.func @batch_matmul_rank(%x: tensor<768xf32>, %w: tensor<768x768xf32>) -> tensor<768xf32> {
  // expected-error@+1 {{expects operands of rank at least 2, got shapes [768] and [768, 768]}}
  %y = graph.batch_matmul %x, %w : tensor<768xf32>, tensor<768x768xf32> -> tensor<768xf32>
  return %y : tensor<768xf32>
}

// -----

// Tests that batch_matmul's result is the broadcast batch, then [M, N].
func.func @batch_matmul_result(%x: tensor<1x128x768xf32>, %w: tensor<768x768xf32>) -> tensor<128x768xf32> {
  // expected-error@+1 {{result shape [128, 768] does not match the expected [1, 128, 768]}}
  %y = graph.batch_matmul %x, %w : tensor<1x128x768xf32>, tensor<768x768xf32> -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}

// -----

// Tests that batch_matmul's operands share one element type.
func.func @batch_matmul_element_type(%q: tensor<1x12x128x64xbf16>, %k: tensor<1x12x64x128xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'bf16' and 'f32'}}
  %s = graph.batch_matmul %q, %k : tensor<1x12x128x64xbf16>, tensor<1x12x64x128xf32> -> tensor<1x12x128x128xf32>
  return %s : tensor<1x12x128x128xf32>
}

// -----

// Tests that gemm's inner dimensions must agree after transposition: the
// ResNet-50 classifier weight is [1000, 2048] and needs trans_b.
func.func @gemm_inner(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{inner dimensions differ: op(A) is [8, 2048] and op(B) is [1000, 2048]}}
  %y = graph.gemm %x, %w : (tensor<8x2048xf32>, tensor<1000x2048xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that gemm takes 2-D A and B.
func.func @gemm_rank(%x: tensor<8x2048x1x1xf32>, %w: tensor<1000x2048xf32>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{expects 2-D A and B, got shapes [8, 2048, 1, 1] and [1000, 2048]}}
  %y = graph.gemm %x, %w {trans_b = true} : (tensor<8x2048x1x1xf32>, tensor<1000x2048xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that gemm's C must broadcast to [M, N] (a bias over the batch instead
// of the classes).
func.func @gemm_c_shape(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>, %b: tensor<8xf32>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{expects C to broadcast to [8, 1000], got shape [8]}}
  %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<8xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that gemm's C must broadcast to [M, N] without growing it: a rank-3 C
// would broadcast to [1, 8, 1000].
func.func @gemm_c_rank(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>, %b: tensor<1x1x1000xf32>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{expects C to broadcast to [8, 1000], got shape [1, 1, 1000]}}
  %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1x1x1000xf32>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

// Tests that gemm's result is [M, N] of op(A) x op(B).
func.func @gemm_result(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>) -> tensor<1000x8xf32> {
  // expected-error@+1 {{result shape [1000, 8] does not match the expected [8, 1000]}}
  %y = graph.gemm %x, %w {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>) -> tensor<1000x8xf32>
  return %y : tensor<1000x8xf32>
}

// -----

// Tests that gemm's operands share one element type.
func.func @gemm_element_type(%x: tensor<8x2048xf32>, %w: tensor<1000x2048xf32>, %b: tensor<1000xf16>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.gemm %x, %w, %b {trans_b = true} : (tensor<8x2048xf32>, tensor<1000x2048xf32>, tensor<1000xf16>) -> tensor<8x1000xf32>
  return %y : tensor<8x1000xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Elementwise operators
//===----------------------------------------------------------------------===//

// Tests that an add's operands must broadcast: a BERT-base residual added to
// a BERT-large hidden state.
func.func @add_no_broadcast(%x: tensor<1x128x768xf32>, %r: tensor<1x128x1024xf32>) -> tensor<1x128x1024xf32> {
  // expected-error@+1 {{operand shapes [1, 128, 768] and [1, 128, 1024] do not broadcast}}
  %y = graph.add %x, %r : tensor<1x128x768xf32>, tensor<1x128x1024xf32> -> tensor<1x128x1024xf32>
  return %y : tensor<1x128x1024xf32>
}

// -----

// Tests that a sub's result is the broadcast shape of its operands.
func.func @sub_result(%x: tensor<1x128x768xf32>, %m: tensor<1x128x1xf32>) -> tensor<1x128x1xf32> {
  // expected-error@+1 {{result shape [1, 128, 1] does not match the expected [1, 128, 768]}}
  %y = graph.sub %x, %m : tensor<1x128x768xf32>, tensor<1x128x1xf32> -> tensor<1x128x1xf32>
  return %y : tensor<1x128x1xf32>
}

// -----

// Tests that a mul's operands share one element type.
func.func @mul_element_type(%x: tensor<1x128x768xf32>, %c: tensor<f16>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.mul %x, %c : tensor<1x128x768xf32>, tensor<f16> -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that div broadcasts from the trailing dimensions: a [12] per-head
// scale does not broadcast against the last (key) dimension of 128.
func.func @div_no_broadcast(%s: tensor<1x12x128x128xf32>, %c: tensor<12xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{operand shapes [1, 12, 128, 128] and [12] do not broadcast}}
  %y = graph.div %s, %c : tensor<1x12x128x128xf32>, tensor<12xf32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

// Tests that a pow's result may not broadcast further than its operands.
func.func @pow_result(%x: tensor<1x128x768xf32>, %c: tensor<f32>) -> tensor<8x128x768xf32> {
  // expected-error@+1 {{result shape [8, 128, 768] does not match the expected [1, 128, 768]}}
  %y = graph.pow %x, %c : tensor<1x128x768xf32>, tensor<f32> -> tensor<8x128x768xf32>
  return %y : tensor<8x128x768xf32>
}

// -----

// Tests that clip's bounds must be ordered (relu6 written backwards).
func.func @clip_bounds(%x: tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32> {
  // expected-error@+1 {{expects min <= max, got min = 6.000000e+00 and max = 0.000000e+00}}
  %y = graph.clip %x {min = 6.0 : f32, max = 0.0 : f32} : tensor<1x32x112x112xf32>
  return %y : tensor<1x32x112x112xf32>
}

// -----

// Tests that clip requires both bounds.
func.func @clip_missing_max(%x: tensor<1x32x112x112xf32>) -> tensor<1x32x112x112xf32> {
  // expected-error@+1 {{requires attribute 'max'}}
  %y = graph.clip %x {min = 0.0 : f32} : tensor<1x32x112x112xf32>
  return %y : tensor<1x32x112x112xf32>
}

// -----

// Tests that a unary operator keeps its operand's type.
func.func @relu_type(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %y = "graph.relu"(%x) : (tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that unary operators are on floating-point tensors only.
func.func @sigmoid_integer(%x: tensor<1x256x1x1xi32>) -> tensor<1x256x1x1xi32> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<1x256x1x1xi32>'}}
  %y = graph.sigmoid %x : tensor<1x256x1x1xi32>
  return %y : tensor<1x256x1x1xi32>
}

// -----

// Tests that max's operands must broadcast.
func.func @max_no_broadcast(%s: tensor<1x12x128x128xf32>, %b: tensor<1x12x64xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{operand shapes [1, 12, 128, 128] and [1, 12, 64] do not broadcast}}
  %y = graph.max %s, %b : tensor<1x12x128x128xf32>, tensor<1x12x64xf32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

// Tests that min's result is the broadcast shape.
func.func @min_result(%s: tensor<1x12x128x128xf32>, %b: tensor<f32>) -> tensor<f32> {
  // expected-error@+1 {{result shape [] does not match the expected [1, 12, 128, 128]}}
  %y = graph.min %s, %b : tensor<1x12x128x128xf32>, tensor<f32> -> tensor<f32>
  return %y : tensor<f32>
}

// -----

// Tests that mod's operands share one element type.
func.func @mod_element_type(%ids: tensor<1x128xi64>, %n: tensor<i32>) -> tensor<1x128xi64> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'i64' and 'i32'}}
  %y = graph.mod %ids, %n : tensor<1x128xi64>, tensor<i32> -> tensor<1x128xi64>
  return %y : tensor<1x128xi64>
}

// -----

// Tests that the new unary operators are on floating-point tensors only.
func.func @abs_integer(%x: tensor<1x128xi64>) -> tensor<1x128xi64> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of floating-point values, but got 'tensor<1x128xi64>'}}
  %y = graph.abs %x : tensor<1x128xi64>
  return %y : tensor<1x128xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Normalisation
//===----------------------------------------------------------------------===//

// Tests that batch_norm's parameters have one value per channel (dimension 1).
func.func @batch_norm_scale(%x: tensor<1x64x112x112xf32>, %s: tensor<112xf32>, %b: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<64xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{scale shape [112] does not match the expected [64]}}
  %y = graph.batch_norm %x, %s, %b, %m, %v : (tensor<1x64x112x112xf32>, tensor<112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that every batch_norm parameter is checked, down to the variance.
func.func @batch_norm_variance(%x: tensor<1x64x112x112xf32>, %s: tensor<64xf32>, %b: tensor<64xf32>, %m: tensor<64xf32>, %v: tensor<1x64xf32>) -> tensor<1x64x112x112xf32> {
  // expected-error@+1 {{variance shape [1, 64] does not match the expected [64]}}
  %y = graph.batch_norm %x, %s, %b, %m, %v : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<1x64xf32>) -> tensor<1x64x112x112xf32>
  return %y : tensor<1x64x112x112xf32>
}

// -----

// Tests that batch_norm needs a channel dimension.
func.func @batch_norm_rank(%x: tensor<64xf32>, %s: tensor<64xf32>) -> tensor<64xf32> {
  // expected-error@+1 {{expects an input of rank at least 2 (N, C, ...), got shape [64]}}
  %y = graph.batch_norm %x, %s, %s, %s, %s : (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<64xf32>
  return %y : tensor<64xf32>
}

// -----

// Tests that batch_norm's result has the input's shape.
func.func @batch_norm_result(%x: tensor<1x64x112x112xf32>, %s: tensor<64xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{result shape [1, 64, 56, 56] does not match the expected [1, 64, 112, 112]}}
  %y = graph.batch_norm %x, %s, %s, %s, %s : (tensor<1x64x112x112xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that batch_norm's operands share one element type.
func.func @batch_norm_element_type(%x: tensor<1x64x112x112xf16>, %s: tensor<64xf32>) -> tensor<1x64x112x112xf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f16' and 'f32'}}
  %y = graph.batch_norm %x, %s, %s, %s, %s : (tensor<1x64x112x112xf16>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf16>
  return %y : tensor<1x64x112x112xf16>
}

// -----

// Tests that layer_norm's scale has the normalised shape: BERT-large's gamma on
// a BERT-base hidden state.
func.func @layer_norm_scale(%x: tensor<1x128x768xf32>, %g: tensor<1024xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{scale shape [1024] does not match the expected [768]}}
  %y = graph.layer_norm %x, %g : (tensor<1x128x768xf32>, tensor<1024xf32>) -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that layer_norm's bias has the normalised shape shape[axis:].
func.func @layer_norm_bias(%x: tensor<1x128x768xf32>, %g: tensor<128x768xf32>, %b: tensor<768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{bias shape [768] does not match the expected [128, 768]}}
  %y = graph.layer_norm %x, %g, %b {axis = -2 : i64} : (tensor<1x128x768xf32>, tensor<128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that layer_norm's axis is within the input's rank.
func.func @layer_norm_axis(%x: tensor<1x128x768xf32>, %g: tensor<768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{axis 3 is out of range for rank 3}}
  %y = graph.layer_norm %x, %g {axis = 3 : i64} : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that layer_norm's result has the input's shape.
func.func @layer_norm_result(%x: tensor<1x128x768xf32>, %g: tensor<768xf32>) -> tensor<128x768xf32> {
  // expected-error@+1 {{result shape [128, 768] does not match the expected [1, 128, 768]}}
  %y = graph.layer_norm %x, %g : (tensor<1x128x768xf32>, tensor<768xf32>) -> tensor<128x768xf32>
  return %y : tensor<128x768xf32>
}

// -----

// Tests that layer_norm's operands share one element type.
func.func @layer_norm_element_type(%x: tensor<1x128x768xf32>, %g: tensor<768xbf16>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'bf16'}}
  %y = graph.layer_norm %x, %g : (tensor<1x128x768xf32>, tensor<768xbf16>) -> tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that softmax's axis is within the input's rank, counting from the end.
func.func @softmax_axis(%s: tensor<1x12x128x128xf32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{axis -5 is out of range for rank 4}}
  %p = graph.softmax %s {axis = -5 : i64} : tensor<1x12x128x128xf32>
  return %p : tensor<1x12x128x128xf32>
}

// -----

// Tests that softmax's axis is within the input's rank, counting from the
// start.
func.func @softmax_axis_positive(%l: tensor<8x1000xf32>) -> tensor<8x1000xf32> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %p = graph.softmax %l {axis = 2 : i64} : tensor<8x1000xf32>
  return %p : tensor<8x1000xf32>
}

// -----

// Tests that local response normalisation is over the channels of an NCHW
// tensor (not a BERT hidden state).
func.func @lrn_rank(%x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{expects a 4-D NCHW input, got shape [1, 128, 768]}}
  %y = graph.lrn %x {size = 5 : i64} : tensor<1x128x768xf32>
  return %y : tensor<1x128x768xf32>
}

// -----

// Tests that local response normalisation sums over a positive number of
// channels.
func.func @lrn_size(%x: tensor<1x96x55x55xf32>) -> tensor<1x96x55x55xf32> {
  // expected-error@+1 {{expects a positive size, got 0}}
  %y = graph.lrn %x {size = 0 : i64} : tensor<1x96x55x55xf32>
  return %y : tensor<1x96x55x55xf32>
}

// -----

// Tests that local response normalisation requires its size.
func.func @lrn_no_size(%x: tensor<1x96x55x55xf32>) -> tensor<1x96x55x55xf32> {
  // expected-error@+1 {{requires attribute 'size'}}
  %y = graph.lrn %x : tensor<1x96x55x55xf32>
  return %y : tensor<1x96x55x55xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

// Tests that a max pool's result shape follows ceil_mode: without it GoogLeNet's
// 3x3 stride-2 pool on 112 gives 55, not 56.
func.func @max_pool2d_ceil_mode(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{result shape [1, 64, 56, 56] does not match the expected [1, 64, 55, 55]}}
  %y = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that with ceil_mode a last window starting inside the right padding is
// dropped (ONNX): 5 + 1 padded with k = 2, s = 2 gives 3, not 4.
func.func @max_pool2d_ceil_mode_drops_padding_window(%x: tensor<1x8x5x5xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error@+1 {{result shape [1, 8, 4, 4] does not match the expected [1, 8, 3, 3]}}
  %y = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 1, 1>, ceil_mode = true} : tensor<1x8x5x5xf32> -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

// Tests that a pool's window must fit in the padded input: a 9x9 window on
// the 7x7 ResNet-50 feature map.
func.func @max_pool2d_window_too_large(%x: tensor<1x2048x7x7xf32>) -> tensor<1x2048x1x1xf32> {
  // expected-error@+1 {{window of 9 (dilation 1) does not fit in padded height 7}}
  %y = graph.max_pool2d %x {kernel = array<i64: 9, 9>} : tensor<1x2048x7x7xf32> -> tensor<1x2048x1x1xf32>
  return %y : tensor<1x2048x1x1xf32>
}

// -----

// Tests that a dilated pool window must fit along the width too.
func.func @max_pool2d_window_too_wide(%x: tensor<1x64x8x8xf32>) -> tensor<1x64x7x1xf32> {
  // expected-error@+1 {{window of 2 (dilation 8) does not fit in padded width 8}}
  %y = graph.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 1, 8>} : tensor<1x64x8x8xf32> -> tensor<1x64x7x1xf32>
  return %y : tensor<1x64x7x1xf32>
}

// -----

// Tests that a pool's kernel has two values.
func.func @max_pool2d_kernel_size(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects 'kernel' to have 2 values, got 3}}
  %y = graph.max_pool2d %x {kernel = array<i64: 3, 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a pool's kernel values are positive.
func.func @max_pool2d_kernel_zero(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects every value of 'kernel' to be at least 1, got [0, 3]}}
  %y = graph.max_pool2d %x {kernel = array<i64: 0, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a pool's dilations are positive.
func.func @max_pool2d_dilations_zero(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x55x55xf32> {
  // expected-error@+1 {{expects every value of 'dilations' to be at least 1, got [0, 0]}}
  %y = graph.max_pool2d %x {kernel = array<i64: 2, 2>, dilations = array<i64: 0, 0>} : tensor<1x64x56x56xf32> -> tensor<1x64x55x55xf32>
  return %y : tensor<1x64x55x55xf32>
}

// -----

// Tests that a pool's input is 4-D NCHW.
func.func @max_pool2d_rank(%x: tensor<64x112x112xf32>) -> tensor<64x56x56xf32> {
  // expected-error@+1 {{expects a 4-D NCHW input, got shape [64, 112, 112]}}
  %y = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<64x112x112xf32> -> tensor<64x56x56xf32>
  return %y : tensor<64x56x56xf32>
}

// -----

// Tests that a pool requires its kernel.
func.func @max_pool2d_no_kernel(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{requires attribute 'kernel'}}
  %y = graph.max_pool2d %x {strides = array<i64: 2, 2>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a pool's input and result share one element type.
func.func @max_pool2d_element_type(%x: tensor<1x64x112x112xf32>) -> tensor<1x64x56x56xf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.max_pool2d %x {kernel = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x64x112x112xf32> -> tensor<1x64x56x56xf16>
  return %y : tensor<1x64x56x56xf16>
}

// -----

// Tests that an average pool's pads have four values.
func.func @avg_pool2d_pads_size(%x: tensor<1x192x35x35xf32>) -> tensor<1x192x35x35xf32> {
  // expected-error@+1 {{expects 'pads' to have 4 values, got 2}}
  %y = graph.avg_pool2d %x {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1>} : tensor<1x192x35x35xf32> -> tensor<1x192x35x35xf32>
  return %y : tensor<1x192x35x35xf32>
}

// -----

// Tests that an average pool's result shape follows from its window: the
// Inception pool without its pads shrinks to 33.
func.func @avg_pool2d_result(%x: tensor<1x192x35x35xf32>) -> tensor<1x192x35x35xf32> {
  // expected-error@+1 {{result shape [1, 192, 35, 35] does not match the expected [1, 192, 33, 33]}}
  %y = graph.avg_pool2d %x {kernel = array<i64: 3, 3>} : tensor<1x192x35x35xf32> -> tensor<1x192x35x35xf32>
  return %y : tensor<1x192x35x35xf32>
}

// -----

// Tests that an average pool's strides are positive.
func.func @avg_pool2d_strides_negative(%x: tensor<1x128x56x56xf32>) -> tensor<1x128x28x28xf32> {
  // expected-error@+1 {{expects every value of 'strides' to be at least 1, got [-2, 2]}}
  %y = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: -2, 2>} : tensor<1x128x56x56xf32> -> tensor<1x128x28x28xf32>
  return %y : tensor<1x128x28x28xf32>
}

// -----

// Tests that an average pool's input is 4-D.
func.func @avg_pool2d_rank(%x: tensor<1x128x56x56x2xf32>) -> tensor<1x128x28x28x2xf32> {
  // expected-error@+1 {{expects a 4-D NCHW input, got shape [1, 128, 56, 56, 2]}}
  %y = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x128x56x56x2xf32> -> tensor<1x128x28x28x2xf32>
  return %y : tensor<1x128x28x28x2xf32>
}

// -----

// Tests that a global average pool keeps the spatial dimensions as ones.
func.func @global_avg_pool_result(%x: tensor<8x2048x7x7xf32>) -> tensor<8x2048xf32> {
  // expected-error@+1 {{result shape [8, 2048] does not match the expected [8, 2048, 1, 1]}}
  %y = graph.global_avg_pool %x : tensor<8x2048x7x7xf32> -> tensor<8x2048xf32>
  return %y : tensor<8x2048xf32>
}

// -----

// Tests that a global average pool needs a spatial dimension.
func.func @global_avg_pool_rank(%x: tensor<8x2048xf32>) -> tensor<8x2048xf32> {
  // expected-error@+1 {{expects an input of rank at least 3 (N, C, spatial...), got shape [8, 2048]}}
  %y = graph.global_avg_pool %x : tensor<8x2048xf32> -> tensor<8x2048xf32>
  return %y : tensor<8x2048xf32>
}

// -----

// Tests that a global average pool's input and result share one element type.
func.func @global_avg_pool_element_type(%x: tensor<8x2048x7x7xf32>) -> tensor<8x2048x1x1xf64> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f64'}}
  %y = graph.global_avg_pool %x : tensor<8x2048x7x7xf32> -> tensor<8x2048x1x1xf64>
  return %y : tensor<8x2048x1x1xf64>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

// Tests that a reshape keeps the element count: 12 heads of 64 are 768, not
// 512.
func.func @reshape_count(%x: tensor<1x128x768xf32>) -> tensor<1x128x8x64xf32> {
  // expected-error@+1 {{cannot reshape 98304 elements ([1, 128, 768]) into 65536 ([1, 128, 8, 64])}}
  %y = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x8x64xf32>
  return %y : tensor<1x128x8x64xf32>
}

// -----

// Tests that a reshape keeps the element type.
func.func @reshape_element_type(%x: tensor<1x128x768xf32>) -> tensor<1x128x12x64xf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.reshape %x : tensor<1x128x768xf32> -> tensor<1x128x12x64xf16>
  return %y : tensor<1x128x12x64xf16>
}

// -----

// Tests that a transpose permutes every dimension.
func.func @transpose_size(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32> {
  // expected-error@+1 {{expects a permutation of 4 dimensions, got [0, 2, 1]}}
  %y = graph.transpose %x {permutation = array<i64: 0, 2, 1>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
  return %y : tensor<1x12x128x64xf32>
}

// -----

// Tests that a transpose's permutation names each dimension once.
func.func @transpose_repeated(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x12x64xf32> {
  // expected-error@+1 {{[0, 2, 2, 3] is not a permutation of 0..3}}
  %y = graph.transpose %x {permutation = array<i64: 0, 2, 2, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x12x64xf32>
  return %y : tensor<1x12x12x64xf32>
}

// -----

// Tests that a transpose's permutation stays within the rank.
func.func @transpose_out_of_range(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x128x64xf32> {
  // expected-error@+1 {{[0, 2, 1, 4] is not a permutation of 0..3}}
  %y = graph.transpose %x {permutation = array<i64: 0, 2, 1, 4>} : tensor<1x128x12x64xf32> -> tensor<1x12x128x64xf32>
  return %y : tensor<1x12x128x64xf32>
}

// -----

// Tests that a transpose's result follows its permutation (K^T written with
// Q's permutation).
func.func @transpose_result(%x: tensor<1x128x12x64xf32>) -> tensor<1x12x64x128xf32> {
  // expected-error@+1 {{result shape [1, 12, 64, 128] does not match the expected [1, 12, 128, 64]}}
  %y = graph.transpose %x {permutation = array<i64: 0, 2, 1, 3>} : tensor<1x128x12x64xf32> -> tensor<1x12x64x128xf32>
  return %y : tensor<1x12x64x128xf32>
}

// -----

// Tests that flatten's axis is within [-rank, rank].
func.func @flatten_axis(%x: tensor<8x2048x1x1xf32>) -> tensor<8x2048xf32> {
  // expected-error@+1 {{axis 5 is out of range for rank 4}}
  %y = graph.flatten %x {axis = 5 : i64} : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
  return %y : tensor<8x2048xf32>
}

// -----

// Tests that flatten's result is [prod(shape[:axis]), prod(shape[axis:])].
func.func @flatten_result(%x: tensor<8x2048x1x1xf32>) -> tensor<8x2048xf32> {
  // expected-error@+1 {{result shape [8, 2048] does not match the expected [16384, 1]}}
  %y = graph.flatten %x {axis = 2 : i64} : tensor<8x2048x1x1xf32> -> tensor<8x2048xf32>
  return %y : tensor<8x2048xf32>
}

// -----

// Tests that concat's operands agree off the axis: a DenseNet layer output at
// 28x28 joined to a 56x56 block input.
func.func @concat_non_axis_dim(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x28x28xf32>) -> tensor<1x96x56x56xf32> {
  // expected-error@+1 {{operand #1 has shape [1, 32, 28, 28], which differs from the result [1, 96, 56, 56] in dimension 2 (only the axis 1 may differ)}}
  %y = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x28x28xf32>) -> tensor<1x96x56x56xf32>
  return %y : tensor<1x96x56x56xf32>
}

// -----

// Tests that concat's operand sizes along the axis add up to the result's.
func.func @concat_axis_sum(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x56x56xf32>) -> tensor<1x128x56x56xf32> {
  // expected-error@+1 {{operand sizes along axis 1 add up to 96 but the result has 128}}
  %y = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>) -> tensor<1x128x56x56xf32>
  return %y : tensor<1x128x56x56xf32>
}

// -----

// Tests that concat's operands have the result's rank.
func.func @concat_rank(%a: tensor<1x64x56x56xf32>, %b: tensor<32x56x56xf32>) -> tensor<1x96x56x56xf32> {
  // expected-error@+1 {{operand #1 has rank 3 but the result has rank 4}}
  %y = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<32x56x56xf32>) -> tensor<1x96x56x56xf32>
  return %y : tensor<1x96x56x56xf32>
}

// -----

// Tests that concat's axis is within the result's rank.
func.func @concat_axis(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x56x56xf32>) -> tensor<1x96x56x56xf32> {
  // expected-error@+1 {{axis 4 is out of range for rank 4}}
  %y = graph.concat %a, %b {axis = 4 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf32>) -> tensor<1x96x56x56xf32>
  return %y : tensor<1x96x56x56xf32>
}

// -----

// Tests that concat's operands share the result's element type.
func.func @concat_element_type(%a: tensor<1x64x56x56xf32>, %b: tensor<1x32x56x56xf16>) -> tensor<1x96x56x56xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.concat %a, %b {axis = 1 : i64} : (tensor<1x64x56x56xf32>, tensor<1x32x56x56xf16>) -> tensor<1x96x56x56xf32>
  return %y : tensor<1x96x56x56xf32>
}

// -----

// Tests that concat needs at least one operand.
func.func @concat_empty() -> tensor<1x96x56x56xf32> {
  // expected-error@+1 {{expects at least one operand}}
  %y = graph.concat {axis = 1 : i64} : () -> tensor<1x96x56x56xf32>
  return %y : tensor<1x96x56x56xf32>
}

// -----

// Tests that split's result sizes along the axis add up to the input's.
func.func @split_sum(%x: tensor<1x116x28x28xf32>) -> tensor<1x56x28x28xf32> {
  // expected-error@+1 {{result sizes along axis 1 add up to 114 but the input has 116}}
  %a, %b = graph.split %x {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x56x28x28xf32>
  return %b : tensor<1x56x28x28xf32>
}

// -----

// Tests that split's results agree with the input off the axis.
func.func @split_result_shape(%x: tensor<1x116x28x28xf32>) -> tensor<1x58x14x28xf32> {
  // expected-error@+1 {{result #1 shape [1, 58, 14, 28] does not match the expected [1, 58, 28, 28]}}
  %a, %b = graph.split %x {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x14x28xf32>
  return %b : tensor<1x58x14x28xf32>
}

// -----

// Tests that split's axis is within the input's rank.
func.func @split_axis(%x: tensor<1x116x28x28xf32>) -> tensor<1x58x28x28xf32> {
  // expected-error@+1 {{axis -5 is out of range for rank 4}}
  %a, %b = graph.split %x {axis = -5 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x28x28xf32>
  return %b : tensor<1x58x28x28xf32>
}

// -----

// Tests that split needs at least one result.
func.func @split_no_results(%x: tensor<1x116x28x28xf32>) {
  // expected-error@+1 {{expects at least one result}}
  "graph.split"(%x) <{axis = 1 : i64}> : (tensor<1x116x28x28xf32>) -> ()
  return
}

// -----

// Tests that split's results keep the input's element type.
func.func @split_element_type(%x: tensor<1x116x28x28xf32>) -> tensor<1x58x28x28xf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %a, %b = graph.split %x {axis = 1 : i64} : tensor<1x116x28x28xf32> -> tensor<1x58x28x28xf32>, tensor<1x58x28x28xf16>
  return %b : tensor<1x58x28x28xf16>
}

// -----

// Tests that a slice's window stays inside the input: 128 position ids from
// 400 run past the 512 of BERT's table.
func.func @slice_past_end(%p: tensor<1x512xi64>) -> tensor<1x128xi64> {
  // expected-error@+1 {{window of 128 elements from 400 with step 1 runs past dimension 1 of size 512}}
  %y = graph.slice %p {starts = array<i64: 0, 400>} : tensor<1x512xi64> -> tensor<1x128xi64>
  return %y : tensor<1x128xi64>
}

// -----

// Tests that a strided slice's last index stays inside the input: from row 1
// with step 2, 113 rows would read row 225 of 224.
func.func @slice_strided_past_end(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x113x112xf32> {
  // expected-error@+1 {{window of 113 elements from 1 with step 2 runs past dimension 2 of size 224}}
  %y = graph.slice %x {starts = array<i64: 0, 0, 1, 0>, steps = array<i64: 1, 1, 2, 2>} : tensor<1x3x224x224xf32> -> tensor<1x3x113x112xf32>
  return %y : tensor<1x3x113x112xf32>
}

// -----

// Tests that a slice's starts, steps and result have the input's rank.
func.func @slice_rank(%p: tensor<1x512xi64>) -> tensor<1x128xi64> {
  // expected-error@+1 {{expects input, result, starts and steps of one rank, got 2, 2, 1 and 2}}
  %y = graph.slice %p {starts = array<i64: 0>} : tensor<1x512xi64> -> tensor<1x128xi64>
  return %y : tensor<1x128xi64>
}

// -----

// Tests that a slice's steps are positive.
func.func @slice_steps(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x112x112xf32> {
  // expected-error@+1 {{expects positive steps, got [1, 1, 0, 2]}}
  %y = graph.slice %x {starts = array<i64: 0, 0, 0, 0>, steps = array<i64: 1, 1, 0, 2>} : tensor<1x3x224x224xf32> -> tensor<1x3x112x112xf32>
  return %y : tensor<1x3x112x112xf32>
}

// -----

// Tests that a slice's starts are not negative.
func.func @slice_starts(%p: tensor<1x512xi64>) -> tensor<1x128xi64> {
  // expected-error@+1 {{expects non-negative starts, got [0, -128]}}
  %y = graph.slice %p {starts = array<i64: 0, -128>} : tensor<1x512xi64> -> tensor<1x128xi64>
  return %y : tensor<1x128xi64>
}

// -----

// Tests that a slice keeps the element type.
func.func @slice_element_type(%p: tensor<1x512xi64>) -> tensor<1x128xi32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'i64' and 'i32'}}
  %y = graph.slice %p {starts = array<i64: 0, 0>} : tensor<1x512xi64> -> tensor<1x128xi32>
  return %y : tensor<1x128xi32>
}

// -----

// Tests that pad lists an amount before and after every dimension (a 2-D
// [top, left, bottom, right] list on a 4-D tensor).
func.func @pad_count(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32> {
  // expected-error@+1 {{expects 8 pad amounts (before and after each dimension), got 4}}
  %y = graph.pad %x {pads = array<i64: 3, 3, 3, 3>} : tensor<1x3x224x224xf32> -> tensor<1x3x230x230xf32>
  return %y : tensor<1x3x230x230xf32>
}

// -----

// Tests that reflect padding is smaller than the dimension it reflects.
func.func @pad_reflect(%x: tensor<1x64x2x2xf32>) -> tensor<1x64x6x6xf32> {
  // expected-error@+1 {{reflect padding of dimension 2 must be smaller than its size 2}}
  %y = graph.pad %x {pads = array<i64: 0, 0, 2, 2, 0, 0, 2, 2>, mode = #graph<pad_mode reflect>} : tensor<1x64x2x2xf32> -> tensor<1x64x6x6xf32>
  return %y : tensor<1x64x6x6xf32>
}

// -----

// Tests that negative pads do not crop more than a dimension holds.
func.func @pad_crop_too_much(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x0x4xf32> {
  // expected-error@+1 {{pads [0, 0, -3, 0, 0, 0, -3, 0] remove more than dimension 2 holds}}
  %y = graph.pad %x {pads = array<i64: 0, 0, -3, 0, 0, 0, -3, 0>} : tensor<1x3x4x4xf32> -> tensor<1x3x0x4xf32>
  return %y : tensor<1x3x0x4xf32>
}

// -----

// Tests that pad's result grows by the pads in ONNX order (all begins, then
// all ends): [0, 0, 0, 0, 3, 3, 3, 3] pads the end of every dimension, N and C
// included, rather than both sides of H and W.
func.func @pad_result(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xf32> {
  // expected-error@+1 {{result shape [1, 3, 230, 230] does not match the expected [4, 6, 227, 227]}}
  %y = graph.pad %x {pads = array<i64: 0, 0, 0, 0, 3, 3, 3, 3>} : tensor<1x3x224x224xf32> -> tensor<1x3x230x230xf32>
  return %y : tensor<1x3x230x230xf32>
}

// -----

// Tests that pad keeps the element type.
func.func @pad_element_type(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x230x230xbf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'bf16'}}
  %y = graph.pad %x {pads = array<i64: 0, 0, 3, 3, 0, 0, 3, 3>} : tensor<1x3x224x224xf32> -> tensor<1x3x230x230xbf16>
  return %y : tensor<1x3x230x230xbf16>
}

// -----

// Tests that an unknown pad mode is a parse error.
func.func @pad_unknown_mode(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x58x58xf32> {
  // expected-error@+2 {{expected ::turbine::graph::PadMode to be one of: constant, reflect, edge}}
  // expected-error@+1 {{failed to parse Graph_PadModeAttr parameter 'value'}}
  %y = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = #graph<pad_mode symmetric>} : tensor<1x64x56x56xf32> -> tensor<1x64x58x58xf32>
  return %y : tensor<1x64x58x58xf32>
}

// -----

// Tests that gather_elements' indices have the data's rank.
func.func @gather_elements_rank(%probs: tensor<4x10xf32>, %labels: tensor<4xi64>) -> tensor<4xf32> {
  // expected-error@+1 {{indices of rank 1 for data of rank 2}}
  %g = graph.gather_elements %probs, %labels {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4xi64>) -> tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// Tests that gather_elements' indices stay within the data along the other axes.
func.func @gather_elements_past(%probs: tensor<4x10xf32>, %labels: tensor<5x1xi64>) -> tensor<5x1xf32> {
  // expected-error@+1 {{indices [5, 1] reach past the data [4, 10] along dimension 0}}
  %g = graph.gather_elements %probs, %labels {axis = 1 : i64} : (tensor<4x10xf32>, tensor<5x1xi64>) -> tensor<5x1xf32>
  return %g : tensor<5x1xf32>
}

// -----

// Tests that gather_elements' result has the indices' shape.
func.func @gather_elements_result(%probs: tensor<4x10xf32>, %labels: tensor<4x1xi64>) -> tensor<4x10xf32> {
  // expected-error@+1 {{result shape [4, 10] does not match the expected [4, 1]}}
  %g = graph.gather_elements %probs, %labels {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x1xi64>) -> tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}

// -----

// Tests that scatter_elements' updates have the indices' shape.
func.func @scatter_elements_updates(%data: tensor<2x5xf32>, %indices: tensor<2x2xi64>, %updates: tensor<2x3xf32>) -> tensor<2x5xf32> {
  // expected-error@+1 {{updates [2, 3] differ from the indices [2, 2]}}
  %s = graph.scatter_elements %data, %indices, %updates {axis = 1 : i64} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x3xf32>) -> tensor<2x5xf32>
  return %s : tensor<2x5xf32>
}

// -----

// Tests that scatter_elements' indices stay within the data along the other axes.
func.func @scatter_elements_past(%data: tensor<2x5xf32>, %indices: tensor<3x2xi64>, %updates: tensor<3x2xf32>) -> tensor<2x5xf32> {
  // expected-error@+1 {{indices [3, 2] reach past the data [2, 5] along dimension 0}}
  %s = graph.scatter_elements %data, %indices, %updates {axis = 1 : i64} : (tensor<2x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<2x5xf32>
  return %s : tensor<2x5xf32>
}

// -----

// Tests that scatter_elements' result is the data's type.
func.func @scatter_elements_result(%data: tensor<2x5xf32>, %indices: tensor<2x2xi64>, %updates: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error@+1 {{result type 'tensor<2x2xf32>' differs from the data's 'tensor<2x5xf32>'}}
  %s = graph.scatter_elements %data, %indices, %updates {axis = 1 : i64} : (tensor<2x5xf32>, tensor<2x2xi64>, tensor<2x2xf32>) -> tensor<2x2xf32>
  return %s : tensor<2x2xf32>
}

// -----

// Tests that scatter_elements reduces numbers only.
func.func @scatter_elements_boolean(%data: tensor<2x5xi1>, %indices: tensor<2x2xi64>, %updates: tensor<2x2xi1>) -> tensor<2x5xi1> {
  // expected-error@+1 {{reduction 'max' on booleans}}
  %s = graph.scatter_elements %data, %indices, %updates {axis = 1 : i64, reduction = #graph<reduction max>} : (tensor<2x5xi1>, tensor<2x2xi64>, tensor<2x2xi1>) -> tensor<2x5xi1>
  return %s : tensor<2x5xi1>
}

// -----

// Tests that argmax's axis is within the input's rank.
func.func @argmax_axis(%x: tensor<8x1000xf32>) -> tensor<8xi64> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %a = graph.argmax %x {axis = 2 : i64, keepdims = false} : tensor<8x1000xf32> -> tensor<8xi64>
  return %a : tensor<8xi64>
}

// -----

// Tests that argmin over an empty axis, which has no extreme, is refused.
func.func @argmin_empty(%x: tensor<8x0xf32>) -> tensor<8x1xi64> {
  // expected-error@+1 {{axis 1 is empty: it has no extreme element}}
  %a = graph.argmin %x {axis = 1 : i64} : tensor<8x0xf32> -> tensor<8x1xi64>
  return %a : tensor<8x1xi64>
}

// -----

// Tests that argmax keeps the reduced axis as 1 under keepdims.
func.func @argmax_keepdims(%x: tensor<8x1000xf32>) -> tensor<8xi64> {
  // expected-error@+1 {{result shape [8] does not match the expected [8, 1]}}
  %a = graph.argmax %x {axis = 1 : i64} : tensor<8x1000xf32> -> tensor<8xi64>
  return %a : tensor<8xi64>
}

// -----

// Tests that argmax's result holds i64 indices.
func.func @argmax_result_type(%x: tensor<8x1000xf32>) -> tensor<8xi32> {
  // expected-error@+1 {{result #0 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<8xi32>'}}
  %a = graph.argmax %x {axis = 1 : i64, keepdims = false} : tensor<8x1000xf32> -> tensor<8xi32>
  return %a : tensor<8xi32>
}

// -----

// Tests that gather's result shape is data[:axis] + indices + data[axis+1:]:
// the BERT embedding lookup written as if the table were indexed on axis 1.
func.func @gather_result(%table: tensor<30522x768xf32>, %ids: tensor<1x128xi64>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{result shape [1, 128, 768] does not match the expected [30522, 1, 128]}}
  %e = graph.gather %table, %ids {axis = 1 : i64} : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  return %e : tensor<1x128x768xf32>
}

// -----

// Tests that gather's axis is within the data's rank.
func.func @gather_axis(%table: tensor<30522x768xf32>, %ids: tensor<1x128xi64>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %e = graph.gather %table, %ids {axis = 2 : i64} : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf32>
  return %e : tensor<1x128x768xf32>
}

// -----

// Tests that gather keeps the data's element type.
func.func @gather_element_type(%table: tensor<30522x768xf32>, %ids: tensor<1x128xi64>) -> tensor<1x128x768xf16> {
  // expected-error@+1 {{result element type 'f16' differs from the data's 'f32'}}
  %e = graph.gather %table, %ids : (tensor<30522x768xf32>, tensor<1x128xi64>) -> tensor<1x128x768xf16>
  return %e : tensor<1x128x768xf16>
}

// -----

// Tests that gather's indices are i32 or i64.
func.func @gather_float_indices(%table: tensor<30522x768xf32>, %ids: tensor<1x128xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{operand #1 must be statically shaped tensor of 32-bit signless integer or 64-bit signless integer values, but got 'tensor<1x128xf32>'}}
  %e = graph.gather %table, %ids : (tensor<30522x768xf32>, tensor<1x128xf32>) -> tensor<1x128x768xf32>
  return %e : tensor<1x128x768xf32>
}

// -----

// Tests that a cast keeps the shape.
func.func @cast_shape(%m: tensor<1x128xi64>) -> tensor<1x1x1x128xf32> {
  // expected-error@+1 {{result shape [1, 1, 1, 128] does not match the expected [1, 128]}}
  %f = graph.cast %m : tensor<1x128xi64> -> tensor<1x1x1x128xf32>
  return %f : tensor<1x1x1x128xf32>
}

// -----

// Tests that broadcast only grows dimensions of size 1 (12 heads to 8).
func.func @broadcast_incompatible(%x: tensor<1x12x128xf32>) -> tensor<1x8x128xf32> {
  // expected-error@+1 {{cannot broadcast [1, 12, 128] to [1, 8, 128]}}
  %y = graph.broadcast %x : tensor<1x12x128xf32> -> tensor<1x8x128xf32>
  return %y : tensor<1x8x128xf32>
}

// -----

// Tests that broadcast does not drop dimensions.
func.func @broadcast_lower_rank(%x: tensor<1x12x128xf32>) -> tensor<12x128xf32> {
  // expected-error@+1 {{cannot broadcast [1, 12, 128] to [12, 128]}}
  %y = graph.broadcast %x : tensor<1x12x128xf32> -> tensor<12x128xf32>
  return %y : tensor<12x128xf32>
}

// -----

// Tests that broadcast keeps the element type.
func.func @broadcast_element_type(%x: tensor<1x1x128xf32>) -> tensor<1x12x128xf16> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = graph.broadcast %x : tensor<1x1x128xf32> -> tensor<1x12x128xf16>
  return %y : tensor<1x12x128xf16>
}

// -----

//===----------------------------------------------------------------------===//
// graph.compare, graph.where
//===----------------------------------------------------------------------===//

// Tests that compare's operands share one element type.
func.func @compare_element_type(%ids: tensor<1x128xi64>, %pad: tensor<i32>) -> tensor<1x128xi1> {
  // expected-error@+1 {{compares different element types 'i64' and 'i32'}}
  %m = graph.compare eq, %ids, %pad : tensor<1x128xi64>, tensor<i32> -> tensor<1x128xi1>
  return %m : tensor<1x128xi1>
}

// -----

// Tests that compare's operands broadcast.
func.func @compare_no_broadcast(%a: tensor<1x128xi64>, %b: tensor<1x512xi64>) -> tensor<1x128xi1> {
  // expected-error@+1 {{operand shapes [1, 128] and [1, 512] do not broadcast}}
  %m = graph.compare ne, %a, %b : tensor<1x128xi64>, tensor<1x512xi64> -> tensor<1x128xi1>
  return %m : tensor<1x128xi1>
}

// -----

// Tests that compare's result has the broadcast shape.
func.func @compare_result(%ids: tensor<1x128xi64>, %pad: tensor<i64>) -> tensor<128xi1> {
  // expected-error@+1 {{result shape [128] does not match the expected [1, 128]}}
  %m = graph.compare eq, %ids, %pad : tensor<1x128xi64>, tensor<i64> -> tensor<128xi1>
  return %m : tensor<128xi1>
}

// -----

// Tests that compare gives i1.
func.func @compare_result_type(%ids: tensor<1x128xi64>, %pad: tensor<i64>) -> tensor<1x128xi64> {
  // expected-error@+1 {{result #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<1x128xi64>'}}
  %m = graph.compare eq, %ids, %pad : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi64>
  return %m : tensor<1x128xi64>
}

// -----

// Tests that an unknown comparison predicate is a parse error.
func.func @compare_unknown_predicate(%ids: tensor<1x128xi64>, %pad: tensor<i64>) -> tensor<1x128xi1> {
  // expected-error@+2 {{expected ::turbine::graph::ComparePredicate to be one of: eq, ne, lt, le, gt, ge}}
  // expected-error@+1 {{failed to parse Graph_ComparePredicateAttr parameter 'value'}}
  %m = graph.compare neq, %ids, %pad : tensor<1x128xi64>, tensor<i64> -> tensor<1x128xi1>
  return %m : tensor<1x128xi1>
}

// -----

// Tests that where's choices and result share one element type.
func.func @where_element_type(%m: tensor<1x1x1x128xi1>, %s: tensor<1x12x128x128xf32>, %ninf: tensor<f16>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{expects both choices and the result to share one element type, got 'f32', 'f16' and 'f32'}}
  %y = graph.where %m, %s, %ninf : tensor<1x1x1x128xi1>, tensor<1x12x128x128xf32>, tensor<f16> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

// Tests that where's condition broadcasts with the choices (a mask over 512
// keys on 128-key scores).
func.func @where_no_broadcast(%m: tensor<1x1x1x512xi1>, %s: tensor<1x12x128x128xf32>, %ninf: tensor<f32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{shapes [1, 1, 1, 512], [1, 12, 128, 128] and [] do not broadcast}}
  %y = graph.where %m, %s, %ninf : tensor<1x1x1x512xi1>, tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

// Tests that where's result has the broadcast shape of its operands, no
// larger: scores of one head do not select into 12.
func.func @where_result(%m: tensor<1x1x1x128xi1>, %s: tensor<1x1x128x128xf32>, %ninf: tensor<f32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{result shape [1, 12, 128, 128] does not match the expected [1, 1, 128, 128]}}
  %y = graph.where %m, %s, %ninf : tensor<1x1x1x128xi1>, tensor<1x1x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

// Tests that where's condition is a boolean tensor.
func.func @where_condition_type(%m: tensor<1x1x1x128xf32>, %s: tensor<1x12x128x128xf32>, %ninf: tensor<f32>) -> tensor<1x12x128x128xf32> {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of 1-bit signless integer values, but got 'tensor<1x1x1x128xf32>'}}
  %y = graph.where %m, %s, %ninf : tensor<1x1x1x128xf32>, tensor<1x12x128x128xf32>, tensor<f32> -> tensor<1x12x128x128xf32>
  return %y : tensor<1x12x128x128xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

// Tests that a reduction's axes are within the input's rank.
func.func @reduce_mean_axis(%x: tensor<1x128x768xf32>) -> tensor<1x128x1xf32> {
  // expected-error@+1 {{axis 3 is out of range for rank 3}}
  %m = graph.reduce_mean %x {axes = array<i64: 3>} : tensor<1x128x768xf32> -> tensor<1x128x1xf32>
  return %m : tensor<1x128x1xf32>
}

// -----

// Tests that a reduction names each axis once, after normalising negative
// axes.
func.func @reduce_max_twice(%x: tensor<1x2048x7x7xf32>) -> tensor<1x2048xf32> {
  // expected-error@+1 {{reduces axis 3 twice}}
  %m = graph.reduce_max %x {axes = array<i64: 2, 3, -1>, keepdims = false} : tensor<1x2048x7x7xf32> -> tensor<1x2048xf32>
  return %m : tensor<1x2048xf32>
}

// -----

// Tests that without keepdims the reduced dimensions are dropped.
func.func @reduce_sum_keepdims(%s: tensor<1x12x128x128xf32>) -> tensor<1x12x128x1xf32> {
  // expected-error@+1 {{result shape [1, 12, 128, 1] does not match the expected [1, 12, 128]}}
  %d = graph.reduce_sum %s {axes = array<i64: 3>, keepdims = false} : tensor<1x12x128x128xf32> -> tensor<1x12x128x1xf32>
  return %d : tensor<1x12x128x1xf32>
}

// -----

// Tests that with keepdims (the default) the reduced dimensions stay as ones.
func.func @reduce_mean_keepdims(%x: tensor<1x128x768xf32>) -> tensor<1x128xf32> {
  // expected-error@+1 {{result shape [1, 128] does not match the expected [1, 128, 1]}}
  %m = graph.reduce_mean %x {axes = array<i64: -1>} : tensor<1x128x768xf32> -> tensor<1x128xf32>
  return %m : tensor<1x128xf32>
}

// -----

// Tests that a reduction keeps the element type.
func.func @reduce_sum_element_type(%x: tensor<1x128x768xf16>) -> tensor<1x128x1xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f16' and 'f32'}}
  %m = graph.reduce_sum %x {axes = array<i64: -1>} : tensor<1x128x768xf16> -> tensor<1x128x1xf32>
  return %m : tensor<1x128x1xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

// Tests that graph.if's then region yields the result types.
func.func @if_then_yield(%c: tensor<i1>, %x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{then region yields ('tensor<1x64x28x28xf32>') but ('tensor<1x64x56x56xf32>') is expected}}
  %r = graph.if %c -> (tensor<1x64x56x56xf32>) {
    %p = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x64x56x56xf32> -> tensor<1x64x28x28xf32>
    // expected-note@+1 {{yield is here}}
    graph.yield %p : tensor<1x64x28x28xf32>
  } else {
    graph.yield %x : tensor<1x64x56x56xf32>
  }
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Tests that graph.if's else region yields the result types too.
func.func @if_else_yield(%c: tensor<i1>, %x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{else region yields () but ('tensor<1x64x56x56xf32>') is expected}}
  %r = graph.if %c -> (tensor<1x64x56x56xf32>) {
    graph.yield %x : tensor<1x64x56x56xf32>
  } else {
    // expected-note@+1 {{yield is here}}
    graph.yield
  }
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Tests that graph.if's condition is a boolean scalar tensor, not an integer.
func.func @if_condition_type(%c: tensor<i32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<i32>'}}
  %r = "graph.if"(%c) ({
    graph.yield %x : tensor<4xf32>
  }, {
    graph.yield %x : tensor<4xf32>
  }) : (tensor<i32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that graph.if's condition is a 0-D tensor, not a 1-element one.
func.func @if_condition_rank(%c: tensor<1xi1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{operand #0 must be 0D tensor of 1-bit signless integer values, but got 'tensor<1xi1>'}}
  %r = "graph.if"(%c) ({
    graph.yield %x : tensor<4xf32>
  }, {
    graph.yield %x : tensor<4xf32>
  }) : (tensor<1xi1>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Tests that a region of graph.if without a terminator is reported as such,
// not as a yield of the last op's operands.
func.func @if_no_terminator(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %r = graph.if %c -> (tensor<4xf32>) {
    // expected-error@+1 {{block with no terminator}}
    %y = graph.relu %x : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that an empty block in graph.if is reported as missing its terminator.
func.func @if_empty_block(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{empty block: expect at least a terminator}}
  %r = graph.if %c -> (tensor<4xf32>) {
  ^bb0:
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that graph.if's regions take no arguments.
func.func @if_region_arguments(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error@+1 {{region #0 should have no arguments}}
  %r = graph.if %c -> (tensor<4xf32>) {
  ^bb0(%a: tensor<4xf32>):
    graph.yield %a : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that graph.yield only ends graph.if and graph.loop regions.
func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error@+1 {{expects parent op to be one of 'graph.if, graph.loop'}}
  graph.yield %x : tensor<4xf32>
}

// -----

// Tests that graph.loop's results are its loop-carried values.
func.func @loop_results(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<1x128x768xf32>) -> tensor<1x128x1024xf32> {
  // expected-error@+1 {{result types ('tensor<1x128x1024xf32>') differ from the loop-carried types ('tensor<1x128x768xf32>')}}
  %r = graph.loop %n, %c iter_args(%x : tensor<1x128x768xf32>) -> (tensor<1x128x1024xf32>) {
  ^bb0(%i: tensor<i64>, %h: tensor<1x128x768xf32>):
    graph.yield %c, %h : tensor<i1>, tensor<1x128x768xf32>
  }
  return %r : tensor<1x128x1024xf32>
}

// -----

// Tests that graph.loop's body takes the iteration number first.
func.func @loop_body_arguments(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{body arguments ('tensor<1x128x768xf32>') must be the iteration number and the carried values ('tensor<i64>', 'tensor<1x128x768xf32>')}}
  %r = graph.loop %n, %c iter_args(%x : tensor<1x128x768xf32>) -> (tensor<1x128x768xf32>) {
  ^bb0(%h: tensor<1x128x768xf32>):
    graph.yield %c, %h : tensor<i1>, tensor<1x128x768xf32>
  }
  return %r : tensor<1x128x768xf32>
}

// -----

// Tests that graph.loop's body yields the next condition before the carried
// values.
func.func @loop_yield(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  // expected-error@+1 {{body yields ('tensor<1x128x768xf32>') but ('tensor<i1>', 'tensor<1x128x768xf32>') is expected}}
  %r = graph.loop %n, %c iter_args(%x : tensor<1x128x768xf32>) -> (tensor<1x128x768xf32>) {
  ^bb0(%i: tensor<i64>, %h: tensor<1x128x768xf32>):
    %t = graph.tanh %h : tensor<1x128x768xf32>
    // expected-note@+1 {{yield is here}}
    graph.yield %t : tensor<1x128x768xf32>
  }
  return %r : tensor<1x128x768xf32>
}

// -----

// Tests that a graph.loop body without a terminator is reported as such.
func.func @loop_no_terminator(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
  %r = graph.loop %n, %c iter_args(%x : tensor<1x128x768xf32>) -> (tensor<1x128x768xf32>) {
  ^bb0(%i: tensor<i64>, %h: tensor<1x128x768xf32>):
    // expected-error@+1 {{block with no terminator}}
    %t = graph.tanh %h : tensor<1x128x768xf32>
  }
  return %r : tensor<1x128x768xf32>
}

// -----

// Tests that graph.loop's trip count is an i64 scalar tensor.
func.func @loop_trip_count_type(%n: tensor<i32>, %c: tensor<i1>) {
  // expected-error@+1 {{operand #0 must be 0D tensor of 64-bit signless integer values, but got 'tensor<i32>'}}
  "graph.loop"(%n, %c) ({
  ^bb0(%i: tensor<i64>):
    graph.yield %c : tensor<i1>
  }) : (tensor<i32>, tensor<i1>) -> ()
  return
}

// -----

// Tests that resize gives one scale per dimension.
func.func @resize_scale_count(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error@+1 {{expects one scale per dimension (4), got 2}}
  %y = graph.resize %x {scales = array<f32: 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x8x8xf32>
  return %y : tensor<1x3x8x8xf32>
}

// -----

// Tests that resize's scales are positive.
func.func @resize_scale_sign(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32> {
  // expected-error@+1 {{scale of dimension 2 must be positive, got -1}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, -1.0, 1.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// -----

// Tests that resize's result is the input scaled (a 2x upsampling of 4 rows is 8, not 9).
func.func @resize_result(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x9x8xf32> {
  // expected-error@+1 {{result dimension 2 is 9 but 4 scaled by 2 is 8}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xf32> -> tensor<1x3x9x8xf32>
  return %y : tensor<1x3x9x8xf32>
}

// -----

// Tests that resize interpolates floats only.
func.func @resize_integer(%x: tensor<1x3x4x4xi64>) -> tensor<1x3x8x8xi64> {
  // expected-error@+1 {{operand #0 must be}}
  %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<1x3x4x4xi64> -> tensor<1x3x8x8xi64>
  return %y : tensor<1x3x8x8xi64>
}

// -----

// Tests that top_k's axis is within the input's rank.
func.func @top_k_axis(%x: tensor<8x10xf32>) -> (tensor<8x3xf32>, tensor<8x3xi64>) {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %v, %i = graph.top_k %x {axis = 2 : i64, k = 3 : i64} : tensor<8x10xf32> -> tensor<8x3xf32>, tensor<8x3xi64>
  return %v, %i : tensor<8x3xf32>, tensor<8x3xi64>
}

// -----

// Tests that top_k picks no more elements than a line has.
func.func @top_k_too_many(%x: tensor<8x10xf32>) -> (tensor<8x11xf32>, tensor<8x11xi64>) {
  // expected-error@+1 {{k = 11 is not within the size 10 of axis 1}}
  %v, %i = graph.top_k %x {axis = 1 : i64, k = 11 : i64} : tensor<8x10xf32> -> tensor<8x11xf32>, tensor<8x11xi64>
  return %v, %i : tensor<8x11xf32>, tensor<8x11xi64>
}

// -----

// Tests that top_k's results have k at the axis.
func.func @top_k_values(%x: tensor<8x10xf32>) -> (tensor<8x4xf32>, tensor<8x3xi64>) {
  // expected-error@+1 {{values shape [8, 4] does not match the expected [8, 3]}}
  %v, %i = graph.top_k %x {axis = -1 : i64, k = 3 : i64} : tensor<8x10xf32> -> tensor<8x4xf32>, tensor<8x3xi64>
  return %v, %i : tensor<8x4xf32>, tensor<8x3xi64>
}

// -----

// Tests that top_k's indices have the values' shape.
func.func @top_k_indices(%x: tensor<8x10xf32>) -> (tensor<8x3xf32>, tensor<3x8xi64>) {
  // expected-error@+1 {{indices shape [3, 8] does not match the expected [8, 3]}}
  %v, %i = graph.top_k %x {axis = 1 : i64, k = 3 : i64} : tensor<8x10xf32> -> tensor<8x3xf32>, tensor<3x8xi64>
  return %v, %i : tensor<8x3xf32>, tensor<3x8xi64>
}

// -----

// Tests that top_k's indices are i64.
func.func @top_k_index_type(%x: tensor<8x10xf32>) -> (tensor<8x3xf32>, tensor<8x3xi32>) {
  // expected-error@+1 {{result #1 must be statically shaped tensor of 64-bit signless integer values, but got 'tensor<8x3xi32>'}}
  %v, %i = graph.top_k %x {axis = 1 : i64, k = 3 : i64} : tensor<8x10xf32> -> tensor<8x3xf32>, tensor<8x3xi32>
  return %v, %i : tensor<8x3xf32>, tensor<8x3xi32>
}

// -----

// Tests that top_k orders floats only.
func.func @top_k_integers(%x: tensor<8x10xi64>) -> (tensor<8x3xi64>, tensor<8x3xi64>) {
  // expected-error@+1 {{operand #0 must be statically shaped tensor of 32-bit float values}}
  %v, %i = graph.top_k %x {axis = 1 : i64, k = 3 : i64} : tensor<8x10xi64> -> tensor<8x3xi64>, tensor<8x3xi64>
  return %v, %i : tensor<8x3xi64>, tensor<8x3xi64>
}

// -----

// Tests that a per-axis scale has the size of the quantization axis.
func.func @quantize_scale_size(%x: tensor<2x3xf32>, %s: tensor<2xf32>, %zp: tensor<ui8>) -> tensor<2x3xui8> {
  // expected-error@+1 {{expects a scale of one element or 1-D of 3 (the size of axis 1), got shape [2]}}
  %q = graph.quantize %x, %s, %zp : (tensor<2x3xf32>, tensor<2xf32>, tensor<ui8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}

// -----

// Tests that a per-axis quantization names an axis within the input's rank.
func.func @quantize_axis(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %zp: tensor<ui8>) -> tensor<2x3xui8> {
  // expected-error@+1 {{axis 2 is out of range for rank 2}}
  %q = graph.quantize %x, %s, %zp {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<ui8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}

// -----

// Tests that the zero point has the quantized type.
func.func @quantize_zero_point_type(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<2x3xui8> {
  // expected-error@+1 {{zero point has element type 'i8', expected 'ui8'}}
  %q = graph.quantize %x, %s, %zp : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xui8>
  return %q : tensor<2x3xui8>
}

// -----

// Tests that the scale has the input's float type.
func.func @quantize_scale_type(%x: tensor<2x3xf16>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<2x3xi8> {
  // expected-error@+1 {{scale has element type 'f32', expected 'f16'}}
  %q = graph.quantize %x, %s, %zp : (tensor<2x3xf16>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %q : tensor<2x3xi8>
}

// -----

// Tests that quantization keeps the shape.
func.func @quantize_shape(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<3x2xi8> {
  // expected-error@+1 {{result shape [3, 2] does not match the expected [2, 3]}}
  %q = graph.quantize %x, %s, %zp : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<3x2xi8>
  return %q : tensor<3x2xi8>
}

// -----

// Tests that only 8-bit integers are quantized values.
func.func @quantize_to_i32(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i32>) -> tensor<2x3xi32> {
  // expected-error@+1 {{operand #2 must be statically shaped tensor of 8-bit signless integer or 8-bit unsigned integer values}}
  %q = graph.quantize %x, %s, %zp : (tensor<2x3xf32>, tensor<f32>, tensor<i32>) -> tensor<2x3xi32>
  return %q : tensor<2x3xi32>
}

// -----

// Tests that dequantization's result has the scale's type.
func.func @dequantize_type(%x: tensor<4xi8>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<4xf16> {
  // expected-error@+1 {{scale has element type 'f32', expected 'f16'}}
  %d = graph.dequantize %x, %s, %zp : (tensor<4xi8>, tensor<f32>, tensor<i8>) -> tensor<4xf16>
  return %d : tensor<4xf16>
}

// -----

// Tests that a per-axis zero point has the size of the axis.
func.func @dequantize_zero_point_size(%x: tensor<4x2xi8>, %s: tensor<4xf32>, %zp: tensor<3xi8>) -> tensor<4x2xf32> {
  // expected-error@+1 {{expects a zero point of one element or 1-D of 4 (the size of axis 0), got shape [3]}}
  %d = graph.dequantize %x, %s, %zp {axis = 0 : i64} : (tensor<4x2xi8>, tensor<4xf32>, tensor<3xi8>) -> tensor<4x2xf32>
  return %d : tensor<4x2xf32>
}

// -----

// Tests that requantization's zero point has the result's type.
func.func @requantize_type(%x: tensor<4xi32>, %m: tensor<f32>, %zp: tensor<ui8>) -> tensor<4xi8> {
  // expected-error@+1 {{zero point has element type 'ui8', expected 'i8'}}
  %r = graph.requantize %x, %m, %zp : (tensor<4xi32>, tensor<f32>, tensor<ui8>) -> tensor<4xi8>
  return %r : tensor<4xi8>
}

// -----

// Tests that an integer product's inner dimensions agree.
func.func @matmul_integer_inner(%a: tensor<2x3xi8>, %b: tensor<4x2xi8>, %z: tensor<i8>) -> tensor<2x2xi32> {
  // expected-error@+1 {{inner dimensions differ: [2, 3] x [4, 2]}}
  %p = graph.matmul_integer %a, %b, %z, %z : (tensor<2x3xi8>, tensor<4x2xi8>, tensor<i8>, tensor<i8>) -> tensor<2x2xi32>
  return %p : tensor<2x2xi32>
}

// -----

// Tests that the left zero point has one value per row.
func.func @matmul_integer_zero_point(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %az: tensor<3xi8>, %z: tensor<i8>) -> tensor<2x4xi32> {
  // expected-error@+1 {{expects lhs_zero_point to be a scalar or 1-D of 2 values (one per row of lhs), got shape [3]}}
  %p = graph.matmul_integer %a, %b, %az, %z : (tensor<2x3xi8>, tensor<3x4xi8>, tensor<3xi8>, tensor<i8>) -> tensor<2x4xi32>
  return %p : tensor<2x4xi32>
}

// -----

// Tests that an integer product's zero points have their operands' types.
func.func @matmul_integer_zero_type(%a: tensor<2x3xui8>, %b: tensor<3x4xi8>, %z: tensor<i8>) -> tensor<2x4xi32> {
  // expected-error@+1 {{lhs zero point has element type 'i8', expected 'ui8'}}
  %p = graph.matmul_integer %a, %b, %z, %z : (tensor<2x3xui8>, tensor<3x4xi8>, tensor<i8>, tensor<i8>) -> tensor<2x4xi32>
  return %p : tensor<2x4xi32>
}

// -----

// Tests that an integer convolution's filter zero points are one per output channel.
func.func @conv_integer_zero_point(%x: tensor<1x3x4x4xi8>, %w: tensor<2x3x3x3xi8>, %z: tensor<i8>, %wz: tensor<3xi8>) -> tensor<1x2x2x2xi32> {
  // expected-error@+1 {{expects filter_zero_point to be a scalar or 1-D of 2 values (one per output channel), got shape [3]}}
  %c = graph.conv_integer %x, %w, %z, %wz : (tensor<1x3x4x4xi8>, tensor<2x3x3x3xi8>, tensor<i8>, tensor<3xi8>) -> tensor<1x2x2x2xi32>
  return %c : tensor<1x2x2x2xi32>
}

// -----

// Tests that an integer convolution's result has the window's shape.
func.func @conv_integer_shape(%x: tensor<1x3x4x4xi8>, %w: tensor<2x3x3x3xi8>, %z: tensor<i8>) -> tensor<1x2x4x4xi32> {
  // expected-error@+1 {{result shape [1, 2, 4, 4] does not match the expected [1, 2, 2, 2]}}
  %c = graph.conv_integer %x, %w, %z, %z : (tensor<1x3x4x4xi8>, tensor<2x3x3x3xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x4x4xi32>
  return %c : tensor<1x2x4x4xi32>
}
