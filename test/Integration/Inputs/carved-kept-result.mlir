func.func @carved(%x: tensor<8x512x32x32xf32>) -> tensor<8x512x4x4xf32> {
  %a0 = graph.relu %x : tensor<8x512x32x32xf32>
  %a1 = graph.sigmoid %a0 : tensor<8x512x32x32xf32>
  %a2 = graph.add %a1, %a0 : tensor<8x512x32x32xf32>, tensor<8x512x32x32xf32> -> tensor<8x512x32x32xf32>
  %a = graph.max_pool2d %a2 {kernel = array<i64: 8, 8>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 8, 8>} : tensor<8x512x32x32xf32> -> tensor<8x512x4x4xf32>
  %w1 = graph.weight "w1" : tensor<512x512x3x3xf32>
  %b1 = graph.weight "b1" : tensor<512xf32>
  %y = graph.conv2d %a, %w1, %b1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  %b2 = graph.weight "b2" : tensor<512xf32>
  %p = graph.conv2d %y, %w2, %b2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %w3 = graph.weight "w3" : tensor<512x512x3x3xf32>
  %b3 = graph.weight "b3" : tensor<512xf32>
  %c = graph.conv2d %p, %w3, %b3 {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x512x4x4xf32>, tensor<512x512x3x3xf32>, tensor<512xf32>) -> tensor<8x512x4x4xf32>
  %s = graph.add %c, %y : tensor<8x512x4x4xf32>, tensor<8x512x4x4xf32> -> tensor<8x512x4x4xf32>
  %r = graph.relu %s : tensor<8x512x4x4xf32>
  return %r : tensor<8x512x4x4xf32>
}
