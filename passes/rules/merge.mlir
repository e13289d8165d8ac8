// MetaFlow's relaxed rules: merging parallel anchor ops that read one input, and enlarging a
// kernel so that it can merge (which is slower on its own).

// Tests that two convolutions of one input with the same strides, pads and dilations become one
// with the filters and biases concatenated, split after.
module @merge_parallel_convs attributes {rule.summary = "conv2d(x, w1, b1), conv2d(x, w2, b2) -> split(conv2d(x, concat(w1, w2), concat(b1, b2)))"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w1: tensor<4x3x3x3xf32> {rule.dims = ["o1", "c", "kh", "kw"]},
                    %b1: tensor<4xf32> {rule.dims = ["o1"]}, %w2: tensor<5x3x3x3xf32> {rule.dims = ["o2", "c", "kh", "kw"]},
                    %b2: tensor<5xf32> {rule.dims = ["o2"]}) -> (tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>) {
    %y1 = graph.conv2d %x, %w1, %b1 {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x7x7xf32>
    %y2 = graph.conv2d %x, %w2, %b2 {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<5x3x3x3xf32>, tensor<5xf32>) -> tensor<2x5x7x7xf32>
    return %y1, %y2 : tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w1: tensor<4x3x3x3xf32>, %b1: tensor<4xf32>, %w2: tensor<5x3x3x3xf32>, %b2: tensor<5xf32>) -> (tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>) {
    %w = graph.concat %w1, %w2 {axis = 0 : i64} : (tensor<4x3x3x3xf32>, tensor<5x3x3x3xf32>) -> tensor<9x3x3x3xf32>
    %b = graph.concat %b1, %b2 {axis = 0 : i64} : (tensor<4xf32>, tensor<5xf32>) -> tensor<9xf32>
    %y = graph.conv2d %x, %w, %b {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<9x3x3x3xf32>, tensor<9xf32>) -> tensor<2x9x7x7xf32>
    %y1, %y2 = graph.split %y {axis = 1 : i64} : tensor<2x9x7x7xf32> -> tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
    return %y1, %y2 : tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
  }
}

// Tests the same merge for convolutions without bias.
module @merge_parallel_convs_without_bias attributes {rule.summary = "conv2d(x, w1), conv2d(x, w2) -> split(conv2d(x, concat(w1, w2)))"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w1: tensor<4x3x3x3xf32> {rule.dims = ["o1", "c", "kh", "kw"]},
                    %w2: tensor<5x3x3x3xf32> {rule.dims = ["o2", "c", "kh", "kw"]}) -> (tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>) {
    %y1 = graph.conv2d %x, %w1 {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x7x7xf32>
    %y2 = graph.conv2d %x, %w2 {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<5x3x3x3xf32>) -> tensor<2x5x7x7xf32>
    return %y1, %y2 : tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w1: tensor<4x3x3x3xf32>, %w2: tensor<5x3x3x3xf32>) -> (tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>) {
    %w = graph.concat %w1, %w2 {axis = 0 : i64} : (tensor<4x3x3x3xf32>, tensor<5x3x3x3xf32>) -> tensor<9x3x3x3xf32>
    %y = graph.conv2d %x, %w {rule.bind = {strides = "s", pads = "p", dilations = "d", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<9x3x3x3xf32>) -> tensor<2x9x7x7xf32>
    %y1, %y2 = graph.split %y {axis = 1 : i64} : tensor<2x9x7x7xf32> -> tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
    return %y1, %y2 : tensor<2x4x7x7xf32>, tensor<2x5x7x7xf32>
  }
}

// Tests that a 1x1 convolution without padding is the 3x3 one with a zero border and padding 1
// (MetaFlow's relaxed example: slower alone, it lets the 1x1 merge with a sibling 3x3).
module @enlarge_conv_1x1_to_3x3 attributes {rule.summary = "1x1 conv2d -> 3x3 conv2d with a zero-padded filter and padding 1"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x1x1xf32> {rule.dims = ["o", "c", 1, 1]},
                    %b: tensor<4xf32> {rule.dims = ["o"]}) -> tensor<2x4x9x9xf32> {
    %y = graph.conv2d %x, %w, %b {rule.bind = {strides = "s", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x1x1xf32>, tensor<4xf32>) -> tensor<2x4x9x9xf32>
    return %y : tensor<2x4x9x9xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x1x1xf32>, %b: tensor<4xf32>) -> tensor<2x4x9x9xf32> {
    %w3 = graph.pad %w {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<4x3x1x1xf32> -> tensor<4x3x3x3xf32>
    %y = graph.conv2d %x, %w3, %b {pads = array<i64: 1, 1, 1, 1>, rule.bind = {strides = "s", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x9x9xf32>
    return %y : tensor<2x4x9x9xf32>
  }
}

// Tests that two products of one matrix are one product with the right-hand sides side by side.
module @merge_parallel_matmuls attributes {rule.summary = "matmul(x, w1), matmul(x, w2) -> split(matmul(x, concat(w1, w2)))"} {
  func.func @source(%x: tensor<5x3xf32> {rule.dims = ["m", "k"]}, %w1: tensor<3x4xf32> {rule.dims = ["k", "n1"]}, %w2: tensor<3x6xf32> {rule.dims = ["k", "n2"]}) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
    %y1 = graph.matmul %x, %w1 : tensor<5x3xf32>, tensor<3x4xf32> -> tensor<5x4xf32>
    %y2 = graph.matmul %x, %w2 : tensor<5x3xf32>, tensor<3x6xf32> -> tensor<5x6xf32>
    return %y1, %y2 : tensor<5x4xf32>, tensor<5x6xf32>
  }
  func.func @target(%x: tensor<5x3xf32>, %w1: tensor<3x4xf32>, %w2: tensor<3x6xf32>) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
    %w = graph.concat %w1, %w2 {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x6xf32>) -> tensor<3x10xf32>
    %y = graph.matmul %x, %w : tensor<5x3xf32>, tensor<3x10xf32> -> tensor<5x10xf32>
    %y1, %y2 = graph.split %y {axis = 1 : i64} : tensor<5x10xf32> -> tensor<5x4xf32>, tensor<5x6xf32>
    return %y1, %y2 : tensor<5x4xf32>, tensor<5x6xf32>
  }
}

// Tests the merge of a transformer's projections: [B, S, K] x [K, N] products of one input.
module @merge_parallel_projections attributes {rule.summary = "batch_matmul(x, w1), batch_matmul(x, w2) with 2-D weights -> split(batch_matmul(x, concat(w1, w2)))"} {
  func.func @source(%x: tensor<2x5x3xf32> {rule.dims = ["b", "s", "k"]}, %w1: tensor<3x4xf32> {rule.dims = ["k", "n1"]}, %w2: tensor<3x6xf32> {rule.dims = ["k", "n2"]}) -> (tensor<2x5x4xf32>, tensor<2x5x6xf32>) {
    %y1 = graph.batch_matmul %x, %w1 : tensor<2x5x3xf32>, tensor<3x4xf32> -> tensor<2x5x4xf32>
    %y2 = graph.batch_matmul %x, %w2 : tensor<2x5x3xf32>, tensor<3x6xf32> -> tensor<2x5x6xf32>
    return %y1, %y2 : tensor<2x5x4xf32>, tensor<2x5x6xf32>
  }
  func.func @target(%x: tensor<2x5x3xf32>, %w1: tensor<3x4xf32>, %w2: tensor<3x6xf32>) -> (tensor<2x5x4xf32>, tensor<2x5x6xf32>) {
    %w = graph.concat %w1, %w2 {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x6xf32>) -> tensor<3x10xf32>
    %y = graph.batch_matmul %x, %w : tensor<2x5x3xf32>, tensor<3x10xf32> -> tensor<2x5x10xf32>
    %y1, %y2 = graph.split %y {axis = 2 : i64} : tensor<2x5x10xf32> -> tensor<2x5x4xf32>, tensor<2x5x6xf32>
    return %y1, %y2 : tensor<2x5x4xf32>, tensor<2x5x6xf32>
  }
}

// Tests the enlargement for a 1x1 convolution without bias.
module @enlarge_conv_1x1_to_3x3_without_bias attributes {rule.summary = "1x1 conv2d without bias -> 3x3 conv2d with a zero-padded filter and padding 1"} {
  func.func @source(%x: tensor<2x3x9x9xf32> {rule.dims = ["n", "c", "h", "w"]}, %w: tensor<4x3x1x1xf32> {rule.dims = ["o", "c", 1, 1]}) -> tensor<2x4x9x9xf32> {
    %y = graph.conv2d %x, %w {rule.bind = {strides = "s", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x1x1xf32>) -> tensor<2x4x9x9xf32>
    return %y : tensor<2x4x9x9xf32>
  }
  func.func @target(%x: tensor<2x3x9x9xf32>, %w: tensor<4x3x1x1xf32>) -> tensor<2x4x9x9xf32> {
    %w3 = graph.pad %w {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>} : tensor<4x3x1x1xf32> -> tensor<4x3x3x3xf32>
    %y = graph.conv2d %x, %w3 {pads = array<i64: 1, 1, 1, 1>, rule.bind = {strides = "s", activation = "a"}} : (tensor<2x3x9x9xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x9x9xf32>
    return %y : tensor<2x4x9x9xf32>
  }
}

// Tests the merge of two ONNX linear layers (gemm with a transposed [N, K] weight) of one input.
module @merge_parallel_linear attributes {rule.summary = "gemm(x, w1, b1), gemm(x, w2, b2) with trans_b -> split(gemm(x, concat(w1, w2), concat(b1, b2)))"} {
  func.func @source(%x: tensor<5x3xf32> {rule.dims = ["m", "k"]}, %w1: tensor<4x3xf32> {rule.dims = ["n1", "k"]}, %b1: tensor<4xf32> {rule.dims = ["n1"]},
                    %w2: tensor<6x3xf32> {rule.dims = ["n2", "k"]}, %b2: tensor<6xf32> {rule.dims = ["n2"]}) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
    %y1 = graph.gemm %x, %w1, %b1 {trans_b = true, rule.bind = {alpha = "alpha", beta = "beta"}} : (tensor<5x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<5x4xf32>
    %y2 = graph.gemm %x, %w2, %b2 {trans_b = true, rule.bind = {alpha = "alpha", beta = "beta"}} : (tensor<5x3xf32>, tensor<6x3xf32>, tensor<6xf32>) -> tensor<5x6xf32>
    return %y1, %y2 : tensor<5x4xf32>, tensor<5x6xf32>
  }
  func.func @target(%x: tensor<5x3xf32>, %w1: tensor<4x3xf32>, %b1: tensor<4xf32>, %w2: tensor<6x3xf32>, %b2: tensor<6xf32>) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
    %w = graph.concat %w1, %w2 {axis = 0 : i64} : (tensor<4x3xf32>, tensor<6x3xf32>) -> tensor<10x3xf32>
    %b = graph.concat %b1, %b2 {axis = 0 : i64} : (tensor<4xf32>, tensor<6xf32>) -> tensor<10xf32>
    %y = graph.gemm %x, %w, %b {trans_b = true, rule.bind = {alpha = "alpha", beta = "beta"}} : (tensor<5x3xf32>, tensor<10x3xf32>, tensor<10xf32>) -> tensor<5x10xf32>
    %y1, %y2 = graph.split %y {axis = 1 : i64} : tensor<5x10xf32> -> tensor<5x4xf32>, tensor<5x6xf32>
    return %y1, %y2 : tensor<5x4xf32>, tensor<5x6xf32>
  }
}
