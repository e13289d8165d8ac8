// Data-movement chains that cancel or collapse.

// Tests that swapping two neighbouring dimensions twice is the identity, at every rank and place
// (attention's head transposes [0, 2, 1, 3], a transposed key [0, 1, 3, 2]).
module @swap_neighbours_twice attributes {rule.summary = "transpose swapping dimensions d and d + 1, twice -> the input"} {
  func.func @source(%x: tensor<2x3x4x5xf32> {rule.dims = ["p...", "a", "b", "q..."]}) -> tensor<2x3x4x5xf32> {
    %t = graph.transpose %x {permutation = array<i64: 0, 2, 1, 3>, rule.set = {permutation = ["range(0, rank(p))", "rank(p) + 1", "rank(p)", "range(rank(p) + 2, rank(p) + 2 + rank(q))"]}} : tensor<2x3x4x5xf32> -> tensor<2x4x3x5xf32>
    %u = graph.transpose %t {permutation = array<i64: 0, 2, 1, 3>, rule.set = {permutation = ["range(0, rank(p))", "rank(p) + 1", "rank(p)", "range(rank(p) + 2, rank(p) + 2 + rank(q))"]}} : tensor<2x4x3x5xf32> -> tensor<2x3x4x5xf32>
    return %u : tensor<2x3x4x5xf32>
  }
  func.func @target(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
    return %x : tensor<2x3x4x5xf32>
  }
}

// Tests that channels-first -> channels-last -> channels-first is the identity, for any number
// of spatial dimensions (1-D, 2-D and 3-D convolutions' layouts).
module @channels_last_round_trip attributes {rule.summary = "transpose [0, 2, ..., 1] then [0, r - 1, 1, ..., r - 2] -> the input"} {
  func.func @source(%x: tensor<2x3x4x5xf32> {rule.dims = ["n", "c", "s..."]}) -> tensor<2x3x4x5xf32> {
    %t = graph.transpose %x {permutation = array<i64: 0, 2, 3, 1>, rule.set = {permutation = [0, "range(2, 2 + rank(s))", 1]}} : tensor<2x3x4x5xf32> -> tensor<2x4x5x3xf32>
    %u = graph.transpose %t {permutation = array<i64: 0, 3, 1, 2>, rule.set = {permutation = [0, "1 + rank(s)", "range(1, 1 + rank(s))"]}} : tensor<2x4x5x3xf32> -> tensor<2x3x4x5xf32>
    return %u : tensor<2x3x4x5xf32>
  }
  func.func @target(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
    return %x : tensor<2x3x4x5xf32>
  }
}

// Tests that a reshape of a reshape is one reshape (the intermediate shape does not matter).
module @reshape_of_reshape attributes {rule.summary = "reshape(reshape(x)) -> reshape(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<4x6xf32> {
    %t = graph.reshape %x : tensor<2x3x4xf32> -> tensor<24xf32>
    %u = graph.reshape %t : tensor<24xf32> -> tensor<4x6xf32>
    return %u : tensor<4x6xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
    %u = graph.reshape %x : tensor<2x3x4xf32> -> tensor<4x6xf32>
    return %u : tensor<4x6xf32>
  }
}

// Tests that concatenating the two pieces of a split along its axis gives the input back.
module @concat_of_split attributes {rule.summary = "concat(split(x)) along one axis -> x"} {
  func.func @source(%x: tensor<2x7x3xf32> {rule.dims = ["a", "b", "c"]}) -> tensor<2x7x3xf32> {
    %p, %q = graph.split %x {axis = 1 : i64} : tensor<2x7x3xf32> -> tensor<2x3x3xf32>, tensor<2x4x3xf32>
    %y = graph.concat %p, %q {axis = 1 : i64} : (tensor<2x3x3xf32>, tensor<2x4x3xf32>) -> tensor<2x7x3xf32>
    return %y : tensor<2x7x3xf32>
  }
  func.func @target(%x: tensor<2x7x3xf32>) -> tensor<2x7x3xf32> {
    return %x : tensor<2x7x3xf32>
  }
}

// Tests that a flatten of an NCHW tensor with 1x1 planes is the reshape it is.
module @flatten_to_reshape attributes {rule.summary = "flatten at axis 1 -> reshape"} {
  func.func @source(%x: tensor<2x3x1x1xf32> {rule.dims = ["n", "c", 1, 1]}) -> tensor<2x3xf32> {
    %y = graph.flatten %x {axis = 1 : i64} : tensor<2x3x1x1xf32> -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3x1x1xf32>) -> tensor<2x3xf32> {
    %y = graph.reshape %x : tensor<2x3x1x1xf32> -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}
