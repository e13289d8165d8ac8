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

// A rule whose source constrains a shape its operand does not decide: a relu after the reshape
// of a vector into a column moves before it (rule.shape on the source's reshape; a reshape into
// another shape does not match).
module @relu_before_column attributes {rule.summary = "relu(reshape(x) to [n, 1]) -> reshape(relu(x)) to [n, 1]"} {
  func.func @source(%x: tensor<4xf32> {rule.dims = ["n"]}) -> tensor<4x1xf32> {
    %c = graph.reshape %x {rule.shape = ["n", 1]} : tensor<4xf32> -> tensor<4x1xf32>
    %r = graph.relu %c : tensor<4x1xf32>
    return %r : tensor<4x1xf32>
  }
  func.func @target(%x: tensor<4xf32>) -> tensor<4x1xf32> {
    %r = graph.relu %x : tensor<4xf32>
    %c = graph.reshape %r : tensor<4xf32> -> tensor<4x1xf32>
    return %c : tensor<4x1xf32>
  }
}
