// Rules with the mistakes graph-substitute must name (file and line), one per rule.
module @no_target {
  func.func @source(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
}
module @other_signature {
  func.func @source(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<3xf32>) -> tensor<3xf32> {
    return %x : tensor<3xf32>
  }
}
module @unknown_attribute {
  func.func @source(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x {rule.bogus = 1} : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @repeat_in_dims {
  func.func @source(%x: tensor<2xf32> {rule.dims = ["repeat(1, p)"]}) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @unbound_size {
  func.func @source(%x: tensor<2xf32> {rule.dims = ["n"]}) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    %z = graph.constant {rule.shape = ["m"]} dense<0.0> : tensor<2xf32>
    return %z : tensor<2xf32>
  }
}
module @unread_argument {
  func.func @source(%x: tensor<2xf32>, %unused: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>, %unused: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @bad_expression attributes {rule.where = ["n +* 2 > 1"]} {
  func.func @source(%x: tensor<2xf32> {rule.dims = ["n"]}) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @wrong_rank_dims {
  func.func @source(%x: tensor<2xf32> {rule.dims = ["n", "m"]}) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    return %x : tensor<2xf32>
  }
}
module @unbound_attribute {
  func.func @source(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y : tensor<2xf32>
  }
  func.func @target(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.softmax %x {rule.bind = {axis = "a"}} : tensor<2xf32>
    return %y : tensor<2xf32>
  }
}
module @bad_group {
  func.func @source(%x: tensor<2x3xf32> {rule.dims = ["p...", "n"]}) -> tensor<2x3xf32> {
    %y = graph.relu %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %y = graph.relu %x {rule.shape = ["2 * p...", "n"]} : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
}
module @bad_rank attributes {rule.where = ["rank(2) > 0"]} {
  func.func @source(%x: tensor<2x3xf32> {rule.dims = ["p...", "n"]}) -> tensor<2x3xf32> {
    %y = graph.relu %x : tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    return %x : tensor<2x3xf32>
  }
}
module @unbound_group {
  func.func @source(%x: tensor<2x3xf32> {rule.dims = ["p...", "n"]}) -> tensor<2x3xf32> {
    %y = graph.transpose %x {permutation = array<i64: 0, 1>, rule.set = {permutation = ["range(0, rank(q))", "rank(p)"]}} : tensor<2x3xf32> -> tensor<2x3xf32>
    return %y : tensor<2x3xf32>
  }
  func.func @target(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
    return %x : tensor<2x3xf32>
  }
}
