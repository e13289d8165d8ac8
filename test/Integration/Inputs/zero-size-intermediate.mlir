// An empty slice feeding elementwise ops, one broadcasting a full operand (from a random ONNX
// model, tools/scripts/random-onnx.py seed 12): every view of an empty tensor is a plain
// contiguous one (memref.subview would infer dynamic strides outside its zero-size dimension),
// and the runtime allocates empty buffers. For test/Integration/zero-size.test.
module {
  func.func @main(%x: tensor<3x1xf32>) -> tensor<3x0xf32> {
    %0 = graph.slice %x {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : tensor<3x1xf32> -> tensor<3x0xf32>
    %1 = graph.abs %0 : tensor<3x0xf32>
    %2 = graph.constant dense<1.000000e+00> : tensor<f32>
    %3 = graph.add %1, %2 : tensor<3x0xf32>, tensor<f32> -> tensor<3x0xf32>
    %4 = graph.add %3, %x : tensor<3x0xf32>, tensor<3x1xf32> -> tensor<3x0xf32>
    return %4 : tensor<3x0xf32>
  }
}
