// Two functions for test/Tools/turbine-run-interpret.test: @main runs by default, @scale with
// --function scale.
module {
  func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = graph.relu %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @scale(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %p = graph.mul %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %s = graph.add %x, %y : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    return %p, %s : tensor<4xf32>, tensor<4xf32>
  }
}
