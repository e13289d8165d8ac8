// random-onnx.py seed 8657: spread over three clusters (the first result's three elements), the
// returned argument was copied into the second result by every cluster at once (the runtime's
// race check refused the launch).
func.func @main(%x1: tensor<1xf32>, %x2: tensor<1xf32>) -> (tensor<3xf32>, tensor<1xf32>) {
  %b = graph.broadcast %x2 : tensor<1xf32> -> tensor<3xf32>
  %a = graph.add %b, %x1 : tensor<3xf32>, tensor<1xf32> -> tensor<3xf32>
  return %a, %x2 : tensor<3xf32>, tensor<1xf32>
}
