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

// A rule over any axis whose target slices the first axis: right at its example (axis 0 of a
// vector), wrong wherever random ranks and axes put the gathered axis elsewhere.
module @gather_any_axis_as_axis_0 attributes {rule.summary = "gather(x, constant i) -> slice on axis 0 (wrong)", rule.where = ["k % (rank(p) + 1 + rank(q)) == rank(p)", "i >= 0", "i < n"]} {
  func.func @source(%x: tensor<3xf32> {rule.dims = ["p...", "n", "q..."]}) -> tensor<f32> {
    %i = graph.constant {rule.bind = {value = "i"}} dense<1> : tensor<i64>
    %y = graph.gather %x, %i {axis = 0 : i64, rule.bind = {axis = "k"}} : (tensor<3xf32>, tensor<i64>) -> tensor<f32>
    return %y : tensor<f32>
  }
  func.func @target(%x: tensor<3xf32>) -> tensor<f32> {
    %s = graph.slice %x {starts = array<i64: 1>, rule.set = {starts = ["i", "repeat(0, p)", "repeat(0, q)"]}, rule.shape = [1, "p...", "q..."]} : tensor<3xf32> -> tensor<1xf32>
    %y = graph.reshape %s : tensor<1xf32> -> tensor<f32>
    return %y : tensor<f32>
  }
}
