// A model whose weights file does not exist, for test/Tools/turbine-run-interpret.test.
module attributes {graph.weights = "no-such-weights.safetensors"} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %w = graph.weight "scale" : tensor<2xf32>
    %y = graph.mul %x, %w : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
    return %y : tensor<2xf32>
  }
}
