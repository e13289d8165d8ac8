// A scalar result (a reduction over every axis) beside an argument returned unchanged.
func.func @main(%x: tensor<2x3xf32>, %y: tensor<4x1xf32>) -> (tensor<f32>, tensor<4x1xf32>) {
  %0 = graph.reduce_max %x {axes = array<i64: 0, 1>, keepdims = false} : tensor<2x3xf32> -> tensor<f32>
  return %0, %y : tensor<f32>, tensor<4x1xf32>
}
