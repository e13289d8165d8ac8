// A rank-1 slice stepping by 3 from an odd start, and a scalar's slice and pad (no starts, steps
// or pads; its buffer is one element of rank 1), which crashed the lowering. For
// test/Integration/stepped-slice.test.
func.func @main(%x: tensor<100xf32>, %s: tensor<f32>) -> (tensor<33xf32>, tensor<f32>, tensor<f32>) {
  %y = graph.slice %x {starts = array<i64: 1>, steps = array<i64: 3>} : tensor<100xf32> -> tensor<33xf32>
  %z = graph.slice %s {starts = array<i64>, steps = array<i64>} : tensor<f32> -> tensor<f32>
  %p = graph.pad %s {pads = array<i64>} : tensor<f32> -> tensor<f32>
  return %y, %z, %p : tensor<33xf32>, tensor<f32>, tensor<f32>
}
