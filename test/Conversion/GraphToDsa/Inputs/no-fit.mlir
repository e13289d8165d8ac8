// A convolution whose single output row, with the three input rows it reads,
// needs more than the 16 KiB LB of `mini`: rows are not split, so it cannot be
// tiled and the error names the op.
func.func @wide(%x: tensor<1x1x3x5000xf32>) -> tensor<1x1x1x4998xf32> {
  %w = graph.weight "w" : tensor<1x1x3x3xf32>
  // expected-error@+1 {{'graph.conv2d' does not fit the local buffer of target 'mini' (16384 bytes): even a tile of one output row needs 80028 bytes (rows of 5000 elements would have to be split, which is not supported)}}
  %y = graph.conv2d %x, %w : (tensor<1x1x3x5000xf32>, tensor<1x1x3x3xf32>) -> tensor<1x1x1x4998xf32>
  return %y : tensor<1x1x1x4998xf32>
}
