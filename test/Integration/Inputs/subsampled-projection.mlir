// A bottleneck block with a stride-2 projection, ResNet-50's first stage-4 block at a quarter of
// its channels, batch 8: with `channel-cut-gain=3` on stcp920 the 3x3 layer, the third 1x1 layer
// and the projection take the channel cut, and the batch segment before ends with the block
// input's subsampled copy beside the first layer's result (a fork merge in hw-group); the global
// pooling after the block joins its third layer's channel segment. For
// test/Integration/subsampled-projection.test (weights from Inputs/seed-weights.py).
func.func @main(%x: tensor<8x256x14x14xf32>) -> tensor<8x512xf32> {
  %w1 = graph.weight "conv1.weight" : tensor<128x256x1x1xf32>
  %b1 = graph.weight "conv1.bias" : tensor<128xf32>
  %w2 = graph.weight "conv2.weight" : tensor<128x128x3x3xf32>
  %b2 = graph.weight "conv2.bias" : tensor<128xf32>
  %w3 = graph.weight "conv3.weight" : tensor<512x128x1x1xf32>
  %b3 = graph.weight "conv3.bias" : tensor<512xf32>
  %wd = graph.weight "downsample.weight" : tensor<512x256x1x1xf32>
  %bd = graph.weight "downsample.bias" : tensor<512xf32>
  %r = graph.relu %x : tensor<8x256x14x14xf32>
  %c1 = graph.conv2d %r, %w1, %b1 {activation = #graph<activation relu>} : (tensor<8x256x14x14xf32>, tensor<128x256x1x1xf32>, tensor<128xf32>) -> tensor<8x128x14x14xf32>
  %c2 = graph.conv2d %c1, %w2, %b2 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x128x14x14xf32>, tensor<128x128x3x3xf32>, tensor<128xf32>) -> tensor<8x128x7x7xf32>
  %c3 = graph.conv2d %c2, %w3, %b3 : (tensor<8x128x7x7xf32>, tensor<512x128x1x1xf32>, tensor<512xf32>) -> tensor<8x512x7x7xf32>
  %d = graph.conv2d %r, %wd, %bd {strides = array<i64: 2, 2>} : (tensor<8x256x14x14xf32>, tensor<512x256x1x1xf32>, tensor<512xf32>) -> tensor<8x512x7x7xf32>
  %s = graph.add %c3, %d : tensor<8x512x7x7xf32>, tensor<8x512x7x7xf32> -> tensor<8x512x7x7xf32>
  %y = graph.relu %s : tensor<8x512x7x7xf32>
  %p = graph.global_avg_pool %y : tensor<8x512x7x7xf32> -> tensor<8x512x1x1xf32>
  %f = graph.flatten %p : tensor<8x512x1x1xf32> -> tensor<8x512xf32>
  return %f : tensor<8x512xf32>
}
