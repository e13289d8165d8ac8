// random-onnx.py seed 7990: spread over the clusters by the batch, the returned rank-6 argument is
// copied into its result by GraphTurbo's yield, whose copy kept all six dimensions (the runtime's
// views have at most four): its dimensions are merged now, as the layer-wise copies' are.
func.func @main(%x1: tensor<4x4x2x3x5x5xf32>, %x2: tensor<4x4x2x3x5x5xf32>) -> (tensor<3x160x5xf32>, tensor<4x4x2x3x5x5xf32>) {
  %r = graph.reshape %x2 : tensor<4x4x2x3x5x5xf32> -> tensor<3x160x5xf32>
  return %r, %x2 : tensor<3x160x5xf32>, tensor<4x4x2x3x5x5xf32>
}
