// Empty planes through the interpreter's global pooling (the mean of nothing is NaN) and layer
// normalization (both panicked on a zero-size dimension: chunks of 0 elements). For
// test/Integration/zero-size.test.
module {
  func.func @main(%x: tensor<2x3x0x4xf32>, %y: tensor<2x0xf32>) -> (tensor<2x3x1x1xf32>, tensor<2x0xf32>) {
    %g = graph.global_avg_pool %x : tensor<2x3x0x4xf32> -> tensor<2x3x1x1xf32>
    %s = graph.constant dense<> : tensor<0xf32>
    %n = graph.layer_norm %y, %s {axis = 1 : i64, epsilon = 1.000000e-05 : f32} : (tensor<2x0xf32>, tensor<0xf32>) -> tensor<2x0xf32>
    return %g, %n : tensor<2x3x1x1xf32>, tensor<2x0xf32>
  }
}
