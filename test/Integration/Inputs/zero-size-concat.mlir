// A zero-size tensor transposed (an empty result) and concatenated with a full one (an empty
// piece). For test/Integration/zero-size.test.
module {
  func.func @main(%x: tensor<2x0x3xf32>, %y: tensor<2x4x3xf32>) -> (tensor<3x0x2xf32>, tensor<2x4x3xf32>) {
    %t = graph.transpose %x {permutation = array<i64: 2, 1, 0>} : tensor<2x0x3xf32> -> tensor<3x0x2xf32>
    %c = graph.concat %x, %y {axis = 1 : i64} : (tensor<2x0x3xf32>, tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
    return %t, %c : tensor<3x0x2xf32>, tensor<2x4x3xf32>
  }
}
