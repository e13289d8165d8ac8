// A convolution whose first output row reads only padding (a pad of 1 above a window of one
// row, stride 3; from tools/scripts/random-onnx.py seed 69): its tiles must each read an input
// row, so the lowering tiles both output rows together. For
// test/Integration/random-regressions.test.
module {
  func.func @main(%x: tensor<1x2x4x6xf32>) -> tensor<1x2x2x9xf32> {
    %w = graph.constant dense<[[[[0.5, -1.0]], [[0.25, 2.0]]], [[[1.5, 0.5]], [[-0.75, 1.0]]]]> : tensor<2x2x1x2xf32>
    %b = graph.constant dense<[0.125, -0.5]> : tensor<2xf32>
    %y = graph.conv2d %x, %w, %b {dilations = array<i64: 2, 1>, pads = array<i64: 1, 2, 0, 2>, strides = array<i64: 3, 1>} : (tensor<1x2x4x6xf32>, tensor<2x2x1x2xf32>, tensor<2xf32>) -> tensor<1x2x2x9xf32>
    return %y : tensor<1x2x2x9xf32>
  }
}
