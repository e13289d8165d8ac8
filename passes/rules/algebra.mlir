// Algebraic identities of elementwise ops.

// Tests that relu is idempotent.
module @relu_of_relu attributes {rule.summary = "relu(relu(x)) -> relu(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %a = graph.relu %x : tensor<2x3x4xf32>
    %b = graph.relu %a : tensor<2x3x4xf32>
    return %b : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %a = graph.relu %x : tensor<2x3x4xf32>
    return %a : tensor<2x3x4xf32>
  }
}

// Tests that negation twice is the identity.
module @neg_of_neg attributes {rule.summary = "neg(neg(x)) -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %a = graph.neg %x : tensor<2x3x4xf32>
    %b = graph.neg %a : tensor<2x3x4xf32>
    return %b : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that multiplying by a scalar one is the identity.
module @mul_by_one attributes {rule.summary = "x * 1 -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %one = graph.constant dense<1.0> : tensor<f32>
    %y = graph.mul %x, %one : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that adding a scalar negative zero is the identity. Adding +0.0 is not: it turns -0.0
// into +0.0 (IEEE 754), so only the constant -0.0 matches (constants match bit for bit).
module @add_zero attributes {rule.summary = "x + (-0) -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %zero = graph.constant dense<-0.0> : tensor<f32>
    %y = graph.add %x, %zero : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that dividing by a scalar one is the identity.
module @div_by_one attributes {rule.summary = "x / 1 -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %one = graph.constant dense<1.0> : tensor<f32>
    %y = graph.div %x, %one : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that x * sigmoid(x) is silu.
module @mul_sigmoid_to_silu attributes {rule.summary = "x * sigmoid(x) -> silu(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %s = graph.sigmoid %x : tensor<2x3x4xf32>
    %y = graph.mul %x, %s : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %y = graph.silu %x : tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}

// Tests that multiplying by a scalar one on the left is the identity.
module @one_times attributes {rule.summary = "1 * x -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %one = graph.constant dense<1.0> : tensor<f32>
    %y = graph.mul %one, %x : tensor<f32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that subtracting a scalar zero is the identity.
module @sub_zero attributes {rule.summary = "x - 0 -> x"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %zero = graph.constant dense<0.0> : tensor<f32>
    %y = graph.sub %x, %zero : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    return %x : tensor<2x3x4xf32>
  }
}

// Tests that sigmoid(x) * x is silu too.
module @sigmoid_times_x_to_silu attributes {rule.summary = "sigmoid(x) * x -> silu(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %s = graph.sigmoid %x : tensor<2x3x4xf32>
    %y = graph.mul %s, %x : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %y = graph.silu %x : tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}

// Tests that relu after a clip to [0, 6] changes nothing (MobileNet's relu6 exported twice).
module @relu_of_relu6 attributes {rule.summary = "relu(clip(x, 0, 6)) -> clip(x, 0, 6)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %c = graph.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3x4xf32>
    %y = graph.relu %c : tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %c = graph.clip %x {min = 0.0 : f32, max = 6.0 : f32} : tensor<2x3x4xf32>
    return %c : tensor<2x3x4xf32>
  }
}
