// Reductions whose reduced and kept axes alternate in up to three runs each (random-onnx.py refused
// 28 of 10,000 models for it): graph-split-reductions chains them. For
// test/Integration/random-regressions.test.
func.func @main(%x: tensor<2x3x4x5x6x7xf32>) -> (tensor<2x4x6xf32>, tensor<1x3x1x5x1x7xf32>, tensor<2x1x4x1x6x1xf32>) {
  %a = graph.reduce_mean %x {axes = array<i64: 1, 3, 5>, keepdims = false} : tensor<2x3x4x5x6x7xf32> -> tensor<2x4x6xf32>
  %b = graph.reduce_max %x {axes = array<i64: 0, 2, -2>} : tensor<2x3x4x5x6x7xf32> -> tensor<1x3x1x5x1x7xf32>
  %c = graph.reduce_sum %x {axes = array<i64: 1, 3, 5>} : tensor<2x3x4x5x6x7xf32> -> tensor<2x1x4x1x6x1xf32>
  return %a, %b, %c : tensor<2x4x6xf32>, tensor<1x3x1x5x1x7xf32>, tensor<2x1x4x1x6x1xf32>
}
