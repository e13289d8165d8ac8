// One function per graph operator with a zero-size dimension, for test/Integration/zero-size-ops.test.
// ONNX semantics: a result with a zero-size dimension is empty; a product over K = 0 is zero (plus
// its bias); a reduction over nothing is its identity (sum 0, max -inf) or NaN (mean); a constant
// pad of an empty tensor is all padding.
module {
  func.func @conv_batch(%x: tensor<0x3x5x5xf32>) -> tensor<0x4x3x3xf32> {
    %w = graph.constant dense<1.0> : tensor<4x3x3x3xf32>
    %y = graph.conv2d %x, %w : (tensor<0x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<0x4x3x3xf32>
    return %y : tensor<0x4x3x3xf32>
  }
  func.func @conv_in_channels(%x: tensor<1x0x5x5xf32>) -> tensor<1x4x3x3xf32> {
    %w = graph.constant dense<1.0> : tensor<4x0x3x3xf32>
    %b = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %y = graph.conv2d %x, %w, %b : (tensor<1x0x5x5xf32>, tensor<4x0x3x3xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
    return %y : tensor<1x4x3x3xf32>
  }
  func.func @conv_out_channels(%x: tensor<1x3x5x5xf32>) -> tensor<1x0x5x5xf32> {
    %w = graph.constant dense<1.0> : tensor<0x3x3x3xf32>
    %y = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x3x5x5xf32>, tensor<0x3x3x3xf32>) -> tensor<1x0x5x5xf32>
    return %y : tensor<1x0x5x5xf32>
  }
  func.func @conv_padded_plane(%x: tensor<1x2x0x3xf32>, %b: tensor<4xf32>) -> tensor<1x4x2x5xf32> {
    %w = graph.constant dense<1.0> : tensor<4x2x3x3xf32>
    %y = graph.conv2d %x, %w, %b {pads = array<i64: 2, 2, 2, 2>, activation = #graph<activation relu>} : (tensor<1x2x0x3xf32>, tensor<4x2x3x3xf32>, tensor<4xf32>) -> tensor<1x4x2x5xf32>
    return %y : tensor<1x4x2x5xf32>
  }
  func.func @matmul_k(%a: tensor<3x0xf32>, %b: tensor<0x4xf32>) -> tensor<3x4xf32> {
    %c = graph.matmul %a, %b : tensor<3x0xf32>, tensor<0x4xf32> -> tensor<3x4xf32>
    return %c : tensor<3x4xf32>
  }
  func.func @matmul_m(%a: tensor<0x5xf32>, %b: tensor<5x4xf32>) -> tensor<0x4xf32> {
    %c = graph.matmul %a, %b : tensor<0x5xf32>, tensor<5x4xf32> -> tensor<0x4xf32>
    return %c : tensor<0x4xf32>
  }
  func.func @batch_matmul_k(%a: tensor<2x3x0xf32>, %b: tensor<2x0x4xf32>) -> tensor<2x3x4xf32> {
    %c = graph.batch_matmul %a, %b : tensor<2x3x0xf32>, tensor<2x0x4xf32> -> tensor<2x3x4xf32>
    return %c : tensor<2x3x4xf32>
  }
  func.func @batch_matmul_batch(%a: tensor<0x3x2xf32>, %b: tensor<2x4xf32>) -> tensor<0x3x4xf32> {
    %c = graph.batch_matmul %a, %b : tensor<0x3x2xf32>, tensor<2x4xf32> -> tensor<0x3x4xf32>
    return %c : tensor<0x3x4xf32>
  }
  func.func @gemm_k(%a: tensor<3x0xf32>, %b: tensor<4x0xf32>) -> tensor<3x4xf32> {
    %c = graph.constant dense<[2.0, 4.0, 6.0, 8.0]> : tensor<4xf32>
    %y = graph.gemm %a, %b, %c {trans_b = true, beta = 0.5 : f32} : (tensor<3x0xf32>, tensor<4x0xf32>, tensor<4xf32>) -> tensor<3x4xf32>
    return %y : tensor<3x4xf32>
  }
  func.func @gemm_c_argument(%a: tensor<0x3xf32>, %b: tensor<0x4xf32>, %c: tensor<3x1xf32>) -> tensor<3x4xf32> {
    %y = graph.gemm %a, %b, %c {trans_a = true, beta = 2.0 : f32} : (tensor<0x3xf32>, tensor<0x4xf32>, tensor<3x1xf32>) -> tensor<3x4xf32>
    return %y : tensor<3x4xf32>
  }
  func.func @binary(%a: tensor<0x3xf32>, %b: tensor<1x3xf32>) -> (tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>) {
    %0 = graph.add %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %1 = graph.sub %b, %a : tensor<1x3xf32>, tensor<0x3xf32> -> tensor<0x3xf32>
    %2 = graph.mul %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %3 = graph.div %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %4 = graph.pow %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %5 = graph.max %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %6 = graph.min %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>, tensor<0x3xf32>
  }
  func.func @mod(%a: tensor<2x0xf32>, %b: tensor<2x1xf32>) -> tensor<2x0xf32> {
    %0 = graph.mod %a, %b {fmod = true} : tensor<2x0xf32>, tensor<2x1xf32> -> tensor<2x0xf32>
    return %0 : tensor<2x0xf32>
  }
  func.func @unary(%x: tensor<2x0x3xf32>) -> tensor<2x0x3xf32> {
    %0 = graph.sqrt %x : tensor<2x0x3xf32>
    %1 = graph.erf %0 : tensor<2x0x3xf32>
    %2 = graph.relu %1 : tensor<2x0x3xf32>
    %3 = graph.sigmoid %2 : tensor<2x0x3xf32>
    %4 = graph.tanh %3 : tensor<2x0x3xf32>
    %5 = graph.silu %4 : tensor<2x0x3xf32>
    %6 = graph.exp %5 : tensor<2x0x3xf32>
    %7 = graph.log %6 : tensor<2x0x3xf32>
    %8 = graph.neg %7 : tensor<2x0x3xf32>
    %9 = graph.abs %8 : tensor<2x0x3xf32>
    %10 = graph.reciprocal %9 : tensor<2x0x3xf32>
    %11 = graph.gelu %10 : tensor<2x0x3xf32>
    %12 = graph.gelu %11 {approximate = true} : tensor<2x0x3xf32>
    %13 = graph.clip %12 {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x0x3xf32>
    return %13 : tensor<2x0x3xf32>
  }
  func.func @batch_norm(%x: tensor<0x3x2x2xf32>) -> tensor<0x3x2x2xf32> {
    %s = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
    %y = graph.batch_norm %x, %s, %s, %s, %s : (tensor<0x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<0x3x2x2xf32>
    return %y : tensor<0x3x2x2xf32>
  }
  func.func @layer_norm(%x: tensor<0x4xf32>, %y: tensor<2x0xf32>) -> (tensor<0x4xf32>, tensor<2x0xf32>) {
    %s = graph.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %a = graph.layer_norm %x, %s : (tensor<0x4xf32>, tensor<4xf32>) -> tensor<0x4xf32>
    %e = graph.constant dense<> : tensor<0xf32>
    %b = graph.layer_norm %y, %e : (tensor<2x0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
    return %a, %b : tensor<0x4xf32>, tensor<2x0xf32>
  }
  func.func @softmax(%x: tensor<0x5xf32>, %y: tensor<3x0xf32>) -> (tensor<0x5xf32>, tensor<3x0xf32>, tensor<0x5xf32>) {
    %a = graph.softmax %x : tensor<0x5xf32>
    %b = graph.softmax %y : tensor<3x0xf32>
    %c = graph.softmax %x {axis = 0 : i64} : tensor<0x5xf32>
    return %a, %b, %c : tensor<0x5xf32>, tensor<3x0xf32>, tensor<0x5xf32>
  }
  func.func @pools(%x: tensor<0x2x4x4xf32>, %y: tensor<2x0x4x4xf32>) -> (tensor<0x2x2x2xf32>, tensor<2x0x2x2xf32>, tensor<0x2x1x1xf32>) {
    %a = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<0x2x4x4xf32> -> tensor<0x2x2x2xf32>
    %b = graph.avg_pool2d %y {kernel = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x0x4x4xf32> -> tensor<2x0x2x2xf32>
    %c = graph.global_avg_pool %x : tensor<0x2x4x4xf32> -> tensor<0x2x1x1xf32>
    return %a, %b, %c : tensor<0x2x2x2xf32>, tensor<2x0x2x2xf32>, tensor<0x2x1x1xf32>
  }
  func.func @global_avg_pool_plane(%x: tensor<2x3x0x4xf32>) -> tensor<2x3x1x1xf32> {
    %g = graph.global_avg_pool %x : tensor<2x3x0x4xf32> -> tensor<2x3x1x1xf32>
    return %g : tensor<2x3x1x1xf32>
  }
  func.func @movement(%x: tensor<2x0x3xf32>) -> (tensor<0x6xf32>, tensor<3x2x0xf32>, tensor<2x0xf32>, tensor<4x0x3xf32>) {
    %a = graph.reshape %x : tensor<2x0x3xf32> -> tensor<0x6xf32>
    %b = graph.transpose %x {permutation = array<i64: 2, 0, 1>} : tensor<2x0x3xf32> -> tensor<3x2x0xf32>
    %c = graph.flatten %x {axis = 1 : i64} : tensor<2x0x3xf32> -> tensor<2x0xf32>
    %d = graph.concat %x, %x {axis = 0 : i64} : (tensor<2x0x3xf32>, tensor<2x0x3xf32>) -> tensor<4x0x3xf32>
    return %a, %b, %c, %d : tensor<0x6xf32>, tensor<3x2x0xf32>, tensor<2x0xf32>, tensor<4x0x3xf32>
  }
  func.func @split(%x: tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<0x3xf32>, tensor<4x0xf32>) {
    %a, %b = graph.split %x {axis = 0 : i64} : tensor<4x3xf32> -> tensor<4x3xf32>, tensor<0x3xf32>
    %c, %d = graph.split %x {axis = 1 : i64} : tensor<4x3xf32> -> tensor<4x0xf32>, tensor<4x3xf32>
    return %a, %b, %c : tensor<4x3xf32>, tensor<0x3xf32>, tensor<4x0xf32>
  }
  func.func @slice(%x: tensor<3x4xf32>, %y: tensor<0x4xf32>) -> (tensor<3x0xf32>, tensor<0x2xf32>) {
    %a = graph.slice %x {starts = array<i64: 0, 2>} : tensor<3x4xf32> -> tensor<3x0xf32>
    %b = graph.slice %y {starts = array<i64: 0, 1>, steps = array<i64: 1, 2>} : tensor<0x4xf32> -> tensor<0x2xf32>
    return %a, %b : tensor<3x0xf32>, tensor<0x2xf32>
  }
  func.func @pad(%x: tensor<0x3xf32>) -> (tensor<2x5xf32>, tensor<0x7xf32>) {
    %a = graph.pad %x {pads = array<i64: 1, 1, 1, 1>, value = 1.5 : f32} : tensor<0x3xf32> -> tensor<2x5xf32>
    %b = graph.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #graph<pad_mode edge>} : tensor<0x3xf32> -> tensor<0x7xf32>
    return %a, %b : tensor<2x5xf32>, tensor<0x7xf32>
  }
  func.func @resize(%x: tensor<0x3x2x2xf32>, %z: tensor<1x1x2x3xf32>) -> (tensor<0x3x4x4xf32>, tensor<1x1x2x0xf32>) {
    %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 2.0, 2.0>} : tensor<0x3x2x2xf32> -> tensor<0x3x4x4xf32>
    %e = graph.resize %z {scales = array<f32: 1.0, 1.0, 1.0, 0.25>, mode = #graph<resize_mode linear>} : tensor<1x1x2x3xf32> -> tensor<1x1x2x0xf32>
    return %y, %e : tensor<0x3x4x4xf32>, tensor<1x1x2x0xf32>
  }
  func.func @lrn(%x: tensor<2x0x3x3xf32>) -> tensor<2x0x3x3xf32> {
    %y = graph.lrn %x {size = 3 : i64} : tensor<2x0x3x3xf32>
    return %y : tensor<2x0x3x3xf32>
  }
  func.func @gather(%x: tensor<5x3xf32>, %y: tensor<0x3xf32>) -> (tensor<0x3xf32>, tensor<0x2xf32>) {
    %i = graph.constant dense<> : tensor<0xi64>
    %a = graph.gather %x, %i {axis = 0 : i64} : (tensor<5x3xf32>, tensor<0xi64>) -> tensor<0x3xf32>
    %j = graph.constant dense<[0, 2]> : tensor<2xi64>
    %b = graph.gather %y, %j {axis = 1 : i64} : (tensor<0x3xf32>, tensor<2xi64>) -> tensor<0x2xf32>
    return %a, %b : tensor<0x3xf32>, tensor<0x2xf32>
  }
  func.func @compare_where_cast(%a: tensor<0x3xf32>, %b: tensor<1x3xf32>) -> (tensor<0x3xf32>, tensor<0x3xf32>) {
    %m = graph.compare lt, %a, %b : tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xi1>
    %w = graph.where %m, %a, %b : tensor<0x3xi1>, tensor<0x3xf32>, tensor<1x3xf32> -> tensor<0x3xf32>
    %c = graph.cast %m : tensor<0x3xi1> -> tensor<0x3xf32>
    return %w, %c : tensor<0x3xf32>, tensor<0x3xf32>
  }
  func.func @broadcast(%x: tensor<1x3xf32>, %y: tensor<0x1xf32>) -> (tensor<0x3xf32>, tensor<0x4xf32>) {
    %a = graph.broadcast %x : tensor<1x3xf32> -> tensor<0x3xf32>
    %b = graph.broadcast %y : tensor<0x1xf32> -> tensor<0x4xf32>
    return %a, %b : tensor<0x3xf32>, tensor<0x4xf32>
  }
  func.func @reduce_empty_axis(%x: tensor<2x0x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>) {
    %a = graph.reduce_sum %x {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
    %b = graph.reduce_mean %x {axes = array<i64: 1>, keepdims = false} : tensor<2x0x3xf32> -> tensor<2x3xf32>
    %c = graph.reduce_max %x {axes = array<i64: 1>} : tensor<2x0x3xf32> -> tensor<2x1x3xf32>
    return %a, %b, %c : tensor<2x1x3xf32>, tensor<2x3xf32>, tensor<2x1x3xf32>
  }
  func.func @reduce_other_axis(%x: tensor<2x0x3xf32>) -> (tensor<2x0x1xf32>, tensor<0x3xf32>, tensor<1x0x1xf32>) {
    %a = graph.reduce_sum %x {axes = array<i64: 2>} : tensor<2x0x3xf32> -> tensor<2x0x1xf32>
    %b = graph.reduce_mean %x {axes = array<i64: 0>, keepdims = false} : tensor<2x0x3xf32> -> tensor<0x3xf32>
    %c = graph.reduce_max %x {axes = array<i64: 0, 2>} : tensor<2x0x3xf32> -> tensor<1x0x1xf32>
    return %a, %b, %c : tensor<2x0x1xf32>, tensor<0x3xf32>, tensor<1x0x1xf32>
  }
}
