// A rule set a user writes: x - x is zero (not a built-in: it is wrong for inf and NaN).
module @sub_self attributes {rule.summary = "x - x -> 0"} {
  func.func @source(%x: tensor<2x3xf32> {rule.dims = ["a", "b"]}) -> tensor<2x3xf32> {
    %y = graph.sub %x, %x : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %z = graph.constant {rule.shape = ["a", "b"]} dense<0.0> : tensor<2x3xf32>
    return %z : tensor<2x3xf32>
  }
}
