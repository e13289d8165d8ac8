// random-onnx.py seed 8973, reduced: GraphTurbo placed the pad's result in its kernel's GB arena,
// where the relu's result had been, and a pad writes only its input's window.
func.func @main(%x: tensor<1x1xf32>) -> tensor<4x1x1xf32> {
  %c = graph.constant dense<[[[-0.10395097]], [[0.702194095]]]> : tensor<2x1x1xf32>
  %m = graph.max %x, %c : tensor<1x1xf32>, tensor<2x1x1xf32> -> tensor<2x1x1xf32>
  %r = graph.relu %m : tensor<2x1x1xf32>
  %p = graph.pad %r {pads = array<i64: 2, 0, 0, 0, 0, 0>} : tensor<2x1x1xf32> -> tensor<4x1x1xf32>
  %a = graph.add %p, %x : tensor<4x1x1xf32>, tensor<1x1xf32> -> tensor<4x1x1xf32>
  return %a : tensor<4x1x1xf32>
}
