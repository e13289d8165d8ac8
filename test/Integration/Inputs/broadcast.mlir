// Broadcasts (ONNX Expand): a column over a rank-6 result whose repeated and kept dimensions
// merge into three runs, and a single element over a vector (every stride 0: a subview of it
// keeps a static offset, as MLIR infers). For test/Integration/random-regressions.test.
module {
  func.func @main(%x: tensor<3x1xf32>, %s: tensor<1x1xf32>) -> (tensor<2x1x2x1x3x5xf32>, tensor<1x4xf32>) {
    %a = graph.broadcast %x : tensor<3x1xf32> -> tensor<2x1x2x1x3x5xf32>
    %b = graph.broadcast %s : tensor<1x1xf32> -> tensor<1x4xf32>
    return %a, %b : tensor<2x1x2x1x3x5xf32>, tensor<1x4xf32>
  }
}
