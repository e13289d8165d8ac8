// An instance computed per core (scope lb) whose body reads a scalar constant: each core reads
// the scalar whole (its box has no dimensions to place).
func.func @main(%x: tensor<4xf32>, %w: tensor<2x4x5xf32>) -> tensor<2x5xf32> {
  %0 = graph.reshape %x : tensor<4xf32> -> tensor<1x4xf32>
  %1 = graph.batch_matmul %0, %w : tensor<1x4xf32>, tensor<2x4x5xf32> -> tensor<2x1x5xf32>
  %2 = graph.reshape %1 : tensor<2x1x5xf32> -> tensor<2x5xf32>
  %3 = graph.constant dense<0.25> : tensor<f32>
  %4 = graph.min %2, %3 : tensor<2x5xf32>, tensor<f32> -> tensor<2x5xf32>
  %5 = graph.add %4, %2 : tensor<2x5xf32>, tensor<2x5xf32> -> tensor<2x5xf32>
  return %5 : tensor<2x5xf32>
}
