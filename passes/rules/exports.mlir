// What exporters write op by op and the dialect has as one op.

// Tests that the erf form of GELU that torch.onnx writes is graph.gelu:
// x * (erf(x / sqrt(2)) + 1) * 0.5.
module @gelu_erf attributes {rule.summary = "x * (erf(x / sqrt 2) + 1) * 0.5 -> gelu(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %sqrt2 = graph.constant dense<1.41421354> : tensor<f32>
    %one = graph.constant dense<1.0> : tensor<f32>
    %half = graph.constant dense<0.5> : tensor<f32>
    %d = graph.div %x, %sqrt2 : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    %e = graph.erf %d : tensor<2x3x4xf32>
    %a = graph.add %e, %one : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    %m = graph.mul %x, %a : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    %y = graph.mul %m, %half : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %y = graph.gelu %x : tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}

// Tests the same GELU written with a multiplication by 1/sqrt(2) and the half first.
module @gelu_erf_scaled attributes {rule.summary = "0.5 * x * (1 + erf(x * 0.70710677)) -> gelu(x)"} {
  func.func @source(%x: tensor<2x3x4xf32> {rule.dims = "*"}) -> tensor<2x3x4xf32> {
    %r = graph.constant dense<0.707106769> : tensor<f32>
    %one = graph.constant dense<1.0> : tensor<f32>
    %half = graph.constant dense<0.5> : tensor<f32>
    %h = graph.mul %x, %half : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    %d = graph.mul %x, %r : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    %e = graph.erf %d : tensor<2x3x4xf32>
    %a = graph.add %e, %one : tensor<2x3x4xf32>, tensor<f32> -> tensor<2x3x4xf32>
    %y = graph.mul %h, %a : tensor<2x3x4xf32>, tensor<2x3x4xf32> -> tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
  func.func @target(%x: tensor<2x3x4xf32>) -> tensor<2x3x4xf32> {
    %y = graph.gelu %x : tensor<2x3x4xf32>
    return %y : tensor<2x3x4xf32>
  }
}

// Tests that layer normalisation over the last dimension written op by op is graph.layer_norm.
module @layer_norm_decomposed attributes {rule.summary = "(x - mean) / sqrt(var + eps) * gamma + beta over the last axis -> layer_norm"} {
  func.func @source(%x: tensor<2x3x8xf32> {rule.dims = ["b", "s", "h"]}, %gamma: tensor<8xf32> {rule.dims = ["h"]}, %beta: tensor<8xf32> {rule.dims = ["h"]}) -> tensor<2x3x8xf32> {
    %two = graph.constant dense<2.0> : tensor<f32>
    %eps = graph.constant {rule.bind = {value = "eps"}} dense<1.0e-05> : tensor<f32>
    %m = graph.reduce_mean %x {axes = array<i64: -1>} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %d = graph.sub %x, %m : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
    %p = graph.pow %d, %two : tensor<2x3x8xf32>, tensor<f32> -> tensor<2x3x8xf32>
    %v = graph.reduce_mean %p {axes = array<i64: -1>} : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
    %a = graph.add %v, %eps : tensor<2x3x1xf32>, tensor<f32> -> tensor<2x3x1xf32>
    %s = graph.sqrt %a : tensor<2x3x1xf32>
    %n = graph.div %d, %s : tensor<2x3x8xf32>, tensor<2x3x1xf32> -> tensor<2x3x8xf32>
    %g = graph.mul %n, %gamma : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
    %y = graph.add %g, %beta : tensor<2x3x8xf32>, tensor<8xf32> -> tensor<2x3x8xf32>
    return %y : tensor<2x3x8xf32>
  }
  func.func @target(%x: tensor<2x3x8xf32>, %gamma: tensor<8xf32>, %beta: tensor<8xf32>) -> tensor<2x3x8xf32> {
    %y = graph.layer_norm %x, %gamma, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32, rule.bind = {epsilon = "eps"}} : (tensor<2x3x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>
    return %y : tensor<2x3x8xf32>
  }
}

// Tests that picking one slice with a constant index (attention's q, k, v out of one stacked
// projection, a ViT's class token) is a slice and a reshape, which need no integer tensor on the
// device. The example is the middle axis of a rank-3 tensor and a negative index; the groups
// "p..." and "q..." make the rule hold at every rank and axis, negative axes included (`k % r`
// is the axis counted from the front), and the checker draws both at random.
module @gather_constant_index attributes {rule.summary = "gather(x, constant i) on any axis -> reshape(slice(x)) at i % n", rule.where = ["k % (rank(p) + 1 + rank(q)) == rank(p)", "i >= -n", "i < n"]} {
  func.func @source(%x: tensor<2x3x5xf32> {rule.dims = ["p...", "n", "q..."]}) -> tensor<2x5xf32> {
    %i = graph.constant {rule.bind = {value = "i"}} dense<-1> : tensor<i64>
    %y = graph.gather %x, %i {axis = 1 : i64, rule.bind = {axis = "k"}} : (tensor<2x3x5xf32>, tensor<i64>) -> tensor<2x5xf32>
    return %y : tensor<2x5xf32>
  }
  func.func @target(%x: tensor<2x3x5xf32>) -> tensor<2x5xf32> {
    %s = graph.slice %x {starts = array<i64: 0, 2, 0>, rule.set = {starts = ["repeat(0, p)", "i % n", "repeat(0, q)"]}, rule.shape = ["p...", 1, "q..."]} : tensor<2x3x5xf32> -> tensor<2x1x5xf32>
    %y = graph.reshape %s : tensor<2x1x5xf32> -> tensor<2x5xf32>
    return %y : tensor<2x5xf32>
  }
}

// Tests the same for an index of one element (`x[:, [i]]`), which keeps the axis: a slice alone.
module @gather_constant_index_vector attributes {rule.summary = "gather(x, constant [i]) on any axis -> slice(x) at i % n", rule.where = ["k % (rank(p) + 1 + rank(q)) == rank(p)", "i >= -n", "i < n"]} {
  func.func @source(%x: tensor<4x3xf32> {rule.dims = ["p...", "n", "q..."]}) -> tensor<4x1xf32> {
    %i = graph.constant {rule.bind = {value = "i"}} dense<2> : tensor<1xi64>
    %y = graph.gather %x, %i {axis = -1 : i64, rule.bind = {axis = "k"}} : (tensor<4x3xf32>, tensor<1xi64>) -> tensor<4x1xf32>
    return %y : tensor<4x1xf32>
  }
  func.func @target(%x: tensor<4x3xf32>) -> tensor<4x1xf32> {
    %y = graph.slice %x {starts = array<i64: 0, 2>, rule.set = {starts = ["repeat(0, p)", "i % n", "repeat(0, q)"]}, rule.shape = ["p...", 1, "q..."]} : tensor<4x3xf32> -> tensor<4x1xf32>
    return %y : tensor<4x1xf32>
  }
}

// Shape arithmetic that exporters compute on i64 constants (Shape -> Gather -> Mul -> Concat ->
// Reshape), folded into constants. The ONNX importer folds what it sees; these fold what other
// rewrites leave.

// Tests that the sum of two scalar i64 constants is a constant.
module @fold_i64_add attributes {rule.summary = "a + b of i64 constants -> the constant a + b"} {
  func.func @source() -> tensor<i64> {
    %a = graph.constant {rule.bind = {value = "a"}} dense<2> : tensor<i64>
    %b = graph.constant {rule.bind = {value = "b"}} dense<3> : tensor<i64>
    %y = graph.add %a, %b : tensor<i64>, tensor<i64> -> tensor<i64>
    return %y : tensor<i64>
  }
  func.func @target() -> tensor<i64> {
    %y = graph.constant {rule.set = {value = ["a + b"]}} dense<5> : tensor<i64>
    return %y : tensor<i64>
  }
}

// Tests that the difference of two scalar i64 constants is a constant.
module @fold_i64_sub attributes {rule.summary = "a - b of i64 constants -> the constant a - b"} {
  func.func @source() -> tensor<i64> {
    %a = graph.constant {rule.bind = {value = "a"}} dense<7> : tensor<i64>
    %b = graph.constant {rule.bind = {value = "b"}} dense<3> : tensor<i64>
    %y = graph.sub %a, %b : tensor<i64>, tensor<i64> -> tensor<i64>
    return %y : tensor<i64>
  }
  func.func @target() -> tensor<i64> {
    %y = graph.constant {rule.set = {value = ["a - b"]}} dense<4> : tensor<i64>
    return %y : tensor<i64>
  }
}

// Tests that the product of two scalar i64 constants (batch x heads) is a constant.
module @fold_i64_mul attributes {rule.summary = "a * b of i64 constants -> the constant a * b"} {
  func.func @source() -> tensor<i64> {
    %a = graph.constant {rule.bind = {value = "a"}} dense<2> : tensor<i64>
    %b = graph.constant {rule.bind = {value = "b"}} dense<12> : tensor<i64>
    %y = graph.mul %a, %b : tensor<i64>, tensor<i64> -> tensor<i64>
    return %y : tensor<i64>
  }
  func.func @target() -> tensor<i64> {
    %y = graph.constant {rule.set = {value = ["a * b"]}} dense<24> : tensor<i64>
    return %y : tensor<i64>
  }
}

// Tests that two one-element i64 constants concatenated (a reshape target built piece by piece)
// are one two-element constant.
module @fold_i64_concat attributes {rule.summary = "concat of one-element i64 constants [a], [b] -> the constant [a, b]"} {
  func.func @source() -> tensor<2xi64> {
    %a = graph.constant {rule.bind = {value = "a"}} dense<16> : tensor<1xi64>
    %b = graph.constant {rule.bind = {value = "b"}} dense<64> : tensor<1xi64>
    %y = graph.concat %a, %b {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
    return %y : tensor<2xi64>
  }
  func.func @target() -> tensor<2xi64> {
    %y = graph.constant {rule.set = {value = ["a", "b"]}} dense<[16, 64]> : tensor<2xi64>
    return %y : tensor<2xi64>
  }
}

// Tests that a reshape of an i64 splat constant (a scalar made a one-element vector before a
// concatenation) is the constant with the new shape.
module @fold_i64_reshape attributes {rule.summary = "reshape of an i64 splat constant -> the constant with the new shape"} {
  func.func @source() -> tensor<1xi64> {
    %a = graph.constant {rule.bind = {value = "a"}} dense<24> : tensor<i64>
    %y = graph.reshape %a : tensor<i64> -> tensor<1xi64>
    return %y : tensor<1xi64>
  }
  func.func @target() -> tensor<1xi64> {
    %y = graph.constant {rule.set = {value = ["a"]}} dense<24> : tensor<1xi64>
    return %y : tensor<1xi64>
  }
}
