// A rule that parses and verifies but is wrong: sigmoid is not tanh.
module @sigmoid_is_tanh attributes {rule.summary = "sigmoid(x) -> tanh(x) (wrong)"} {
  func.func @source(%x: tensor<2x3xf32> {rule.dims = "*"}) -> tensor<2x3xf32> {
    %y = graph.sigmoid %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = graph.tanh %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}

// A rule whose target is wrong only for some shapes: a 2x2 transpose is the identity only on
// symmetric matrices, and never for non-square ones (which the example does not show).
module @transpose_is_identity attributes {rule.summary = "transpose of a matrix -> the matrix (wrong)"} {
  func.func @source(%x: tensor<1x1xf32> {rule.dims = ["a", "b"]}) -> tensor<1x1xf32> {
    %y = graph.transpose %x {permutation = array<i64: 1, 0>} : tensor<1x1xf32> -> tensor<1x1xf32>
    return %y : tensor<1x1xf32>
  }
  func.func @target(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
    return %x : tensor<1x1xf32>
  }
}
