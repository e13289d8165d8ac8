// A residual block at batch 4 whose instance GraphTurbo binds to the cores by image (scope lb):
// each core runs both convolutions on its image with the first one's result in its local buffer.
func.func @main(%x: tensor<4x8x8x8xf32>, %w1: tensor<8x8x3x3xf32>, %b1: tensor<8xf32>, %w2: tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32> {
  %c1 = graph.conv2d %x, %w1, %b1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>, tensor<8xf32>) -> tensor<4x8x8x8xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<4x8x8x8xf32>
  %a = graph.add %c2, %x : tensor<4x8x8x8xf32>, tensor<4x8x8x8xf32> -> tensor<4x8x8x8xf32>
  %r = graph.relu %a : tensor<4x8x8x8xf32>
  return %r : tensor<4x8x8x8xf32>
}
