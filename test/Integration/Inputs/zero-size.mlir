// Tensors with a zero-size dimension (ONNX allows them): every layer's result is empty. For
// test/Integration/zero-size.test.
module {
  func.func @main(%x: tensor<0x4xf32>, %y: tensor<0x4xf32>) -> tensor<0x4xf32> {
    %a = graph.add %x, %y : tensor<0x4xf32>, tensor<0x4xf32> -> tensor<0x4xf32>
    %r = graph.relu %a : tensor<0x4xf32>
    return %r : tensor<0x4xf32>
  }
}
