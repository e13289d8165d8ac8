// Copies of rank-5 tensors (concat, pad, split): the dimensions each copy steps through as one run
// merge, so that every DMA view has at most 4. For test/Integration/random-regressions.test.
func.func @main(%x: tensor<2x3x4x5x2xf32>, %y: tensor<2x3x1x5x2xf32>) -> (tensor<2x3x5x5x2xf32>, tensor<2x3x6x5x3xf32>, tensor<2x3x2x5x2xf32>, tensor<2x3x2x5x2xf32>) {
  %c = graph.concat %x, %y {axis = 2 : i64} : (tensor<2x3x4x5x2xf32>, tensor<2x3x1x5x2xf32>) -> tensor<2x3x5x5x2xf32>
  %p = graph.pad %x {pads = array<i64: 0, 0, 1, 0, 0, 0, 0, 1, 0, 1>} : tensor<2x3x4x5x2xf32> -> tensor<2x3x6x5x3xf32>
  %s:2 = graph.split %x {axis = 2 : i64} : tensor<2x3x4x5x2xf32> -> tensor<2x3x2x5x2xf32>, tensor<2x3x2x5x2xf32>
  return %c, %p, %s#0, %s#1 : tensor<2x3x5x5x2xf32>, tensor<2x3x6x5x3xf32>, tensor<2x3x2x5x2xf32>, tensor<2x3x2x5x2xf32>
}
