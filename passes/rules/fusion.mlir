// Rules that fold an op into the anchor op (convolution, matrix product) before it.

// Tests that a batch-norm after a convolution folds into its filter and bias:
// k = scale / sqrt(var + eps), w' = w * k, b' = (b - mean) * k + shift.
module @fold_batch_norm_into_conv attributes {rule.summary = "conv2d + batch_norm -> conv2d with the scaled filter and shifted bias", rule.weight_fold} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x3x3xf32> {rule.dims = ["o", "c", "kh", "kw"]},
                    %b: tensor<4xf32> {rule.dims = ["o"]}, %scale: tensor<4xf32> {rule.dims = ["o"]}, %shift: tensor<4xf32> {rule.dims = ["o"]},
                    %mean: tensor<4xf32> {rule.dims = ["o"]}, %var: tensor<4xf32> {rule.dims = ["o"]}) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w, %b {rule.bind = {strides = "s", pads = "p", dilations = "d"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    %z = graph.batch_norm %y, %scale, %shift, %mean, %var {rule.bind = {epsilon = "eps"}} : (tensor<2x4x7x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %z : tensor<2x4x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>, %scale: tensor<4xf32>, %shift: tensor<4xf32>,
                    %mean: tensor<4xf32>, %var: tensor<4xf32>) -> tensor<2x4x7x7xf32> {
    %eps = graph.constant {rule.bind = {value = "eps"}} dense<1.0e-05> : tensor<f32>
    %ve = graph.add %var, %eps : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    %sd = graph.sqrt %ve : tensor<4xf32>
    %k = graph.div %scale, %sd : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %k4 = graph.reshape %k {rule.shape = ["o", 1, 1, 1]} : tensor<4xf32> -> tensor<4x1x1x1xf32>
    %w2 = graph.mul %w, %k4 : tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32> -> tensor<4x3x3x3xf32>
    %bm = graph.sub %b, %mean : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %bk = graph.mul %bm, %k : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %b2 = graph.add %bk, %shift : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %y = graph.conv2d %x, %w2, %b2 {rule.bind = {strides = "s", pads = "p", dilations = "d"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %y : tensor<2x4x7x7xf32>
  }
}

// Tests that a batch-norm after a convolution without bias folds into its filter and a new bias:
// k = scale / sqrt(var + eps), w' = w * k, b' = shift - mean * k.
module @fold_batch_norm_into_conv_without_bias attributes {rule.summary = "conv2d without bias + batch_norm -> conv2d with the scaled filter and a bias", rule.weight_fold} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x3x3xf32> {rule.dims = ["o", "c", "kh", "kw"]},
                    %scale: tensor<4xf32> {rule.dims = ["o"]}, %shift: tensor<4xf32> {rule.dims = ["o"]},
                    %mean: tensor<4xf32> {rule.dims = ["o"]}, %var: tensor<4xf32> {rule.dims = ["o"]}) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w {rule.bind = {strides = "s", pads = "p", dilations = "d"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32>
    %z = graph.batch_norm %y, %scale, %shift, %mean, %var {rule.bind = {epsilon = "eps"}} : (tensor<2x4x7x7xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %z : tensor<2x4x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %scale: tensor<4xf32>, %shift: tensor<4xf32>,
                    %mean: tensor<4xf32>, %var: tensor<4xf32>) -> tensor<2x4x7x7xf32> {
    %eps = graph.constant {rule.bind = {value = "eps"}} dense<1.0e-05> : tensor<f32>
    %ve = graph.add %var, %eps : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
    %sd = graph.sqrt %ve : tensor<4xf32>
    %k = graph.div %scale, %sd : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %k4 = graph.reshape %k {rule.shape = ["o", 1, 1, 1]} : tensor<4xf32> -> tensor<4x1x1x1xf32>
    %w2 = graph.mul %w, %k4 : tensor<4x3x3x3xf32>, tensor<4x1x1x1xf32> -> tensor<4x3x3x3xf32>
    %mk = graph.mul %mean, %k : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %b2 = graph.sub %shift, %mk : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    %y = graph.conv2d %x, %w2, %b2 {rule.bind = {strides = "s", pads = "p", dilations = "d"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %y : tensor<2x4x7x7xf32>
  }
}

// Tests that an add of a per-channel vector after a convolution without bias becomes its bias.
module @conv_add_to_bias attributes {rule.summary = "conv2d + add of a [1, O, 1, 1] tensor -> conv2d with that bias"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x3x3xf32> {rule.dims = ["o", "c", "kh", "kw"]},
                    %b: tensor<1x4x1x1xf32> {rule.dims = [1, "o", 1, 1]}) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w {rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32>
    %z = graph.add %y, %b : tensor<2x4x7x7xf32>, tensor<1x4x1x1xf32> -> tensor<2x4x7x7xf32>
    return %z : tensor<2x4x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4x1x1xf32>) -> tensor<2x4x7x7xf32> {
    %b1 = graph.reshape %b {rule.shape = ["o"]} : tensor<1x4x1x1xf32> -> tensor<4xf32>
    %y = graph.conv2d %x, %w, %b1 {rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %y : tensor<2x4x7x7xf32>
  }
}

// Tests that a relu after a convolution becomes the convolution's activation.
module @conv_relu_to_activation attributes {rule.summary = "relu(conv2d) -> conv2d with a relu activation"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x3x3xf32> {rule.dims = ["o", "c", "kh", "kw"]},
                    %b: tensor<4xf32> {rule.dims = ["o"]}) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w, %b {rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    %z = graph.relu %y : tensor<2x4x7x7xf32>
    return %z : tensor<2x4x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<4xf32>) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w, %b {activation = #graph<activation relu>, rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %y : tensor<2x4x7x7xf32>
  }
}

// Tests that a matrix product followed by the add of a row vector is one gemm.
module @matmul_add_to_gemm attributes {rule.summary = "matmul + add of an [N] vector -> gemm with C"} {
  func.func @source(%a: tensor<5x3xf32> {rule.dims = ["m", "k"]}, %b: tensor<3x4xf32> {rule.dims = ["k", "n"]}, %c: tensor<4xf32> {rule.dims = ["n"]}) -> tensor<5x4xf32> {
    %y = graph.matmul %a, %b : tensor<5x3xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
    %z = graph.add %y, %c : tensor<5x4xf32>, tensor<4xf32> -> tensor<5x4xf32>
    return %z : tensor<5x4xf32>
  }
  func.func @target(%a: tensor<5x3xf32>, %b: tensor<3x4xf32>, %c: tensor<4xf32>) -> tensor<5x4xf32> {
    %y = graph.gemm %a, %b, %c : (tensor<5x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<5x4xf32>
    return %y : tensor<5x4xf32>
  }
}

// Tests the same with the bias on the left of the add.
module @conv_add_to_bias_commuted attributes {rule.summary = "add of a [1, O, 1, 1] tensor + conv2d -> conv2d with that bias"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x3x3xf32> {rule.dims = ["o", "c", "kh", "kw"]},
                    %b: tensor<1x4x1x1xf32> {rule.dims = [1, "o", 1, 1]}) -> tensor<2x4x7x7xf32> {
    %y = graph.conv2d %x, %w {rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32>
    %z = graph.add %b, %y : tensor<1x4x1x1xf32>, tensor<2x4x7x7xf32> -> tensor<2x4x7x7xf32>
    return %z : tensor<2x4x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x3x3xf32>, %b: tensor<1x4x1x1xf32>) -> tensor<2x4x7x7xf32> {
    %b1 = graph.reshape %b {rule.shape = ["o"]} : tensor<1x4x1x1xf32> -> tensor<4xf32>
    %y = graph.conv2d %x, %w, %b1 {rule.bind = {strides = "s", pads = "p", dilations = "d", groups = "g"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    return %y : tensor<2x4x7x7xf32>
  }
}

// Tests that a product with a transposed right-hand side is a gemm that reads it transposed.
module @matmul_transposed_to_gemm attributes {rule.summary = "matmul(a, transpose(b)) -> gemm(a, b) with trans_b"} {
  func.func @source(%a: tensor<5x3xf32> {rule.dims = ["m", "k"]}, %b: tensor<4x3xf32> {rule.dims = ["n", "k"]}) -> tensor<5x4xf32> {
    %t = graph.transpose %b {permutation = array<i64: 1, 0>} : tensor<4x3xf32> -> tensor<3x4xf32>
    %y = graph.matmul %a, %t : tensor<5x3xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
    return %y : tensor<5x4xf32>
  }
  func.func @target(%a: tensor<5x3xf32>, %b: tensor<4x3xf32>) -> tensor<5x4xf32> {
    %y = graph.gemm %a, %b {trans_b = true} : (tensor<5x3xf32>, tensor<4x3xf32>) -> tensor<5x4xf32>
    return %y : tensor<5x4xf32>
  }
}
