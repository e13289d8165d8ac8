// A convolution too wide for the LB of `mini` (see no-fit.mlir), at a name
// location as the ONNX importer makes them.
func.func @wide(%x: tensor<1x1x3x5000xf32>) -> tensor<1x1x1x4998xf32> {
  %w = graph.weight "w" : tensor<1x1x3x3xf32> loc("w")
  %y = graph.conv2d %x, %w : (tensor<1x1x3x5000xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x4998xf32> loc("/stem/Conv")
  return %y : tensor<1x1x1x4998xf32>
}
