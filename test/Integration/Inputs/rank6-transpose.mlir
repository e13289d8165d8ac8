// Copies that stay above rank 4 after merging dimensions are cut into rank-4 copies, one per index
// of their leading dimensions: a transpose of a rank-6 tensor that keeps no two dimensions
// together, a rank-5 one, a concatenation of rank-6 pieces along an inner axis (its windows
// merge to two dimensions), and a rank-5 slice taking every other element of each dimension.
// For test/Integration/random-regressions.test.
func.func @main(%x: tensor<2x3x4x5x2x3xf32>, %y: tensor<3x2x2x4x5xf32>, %z: tensor<2x3x4x1x2x3xf32>, %w: tensor<4x4x4x4x4xf32>) -> (tensor<3x5x3x2x4x2xf32>, tensor<5x4x2x2x3xf32>, tensor<2x3x4x6x2x3xf32>, tensor<2x2x2x2x2xf32>) {
  %t = graph.transpose %x {permutation = array<i64: 5, 3, 1, 4, 2, 0>} : tensor<2x3x4x5x2x3xf32> -> tensor<3x5x3x2x4x2xf32>
  %u = graph.transpose %y {permutation = array<i64: 4, 3, 1, 2, 0>} : tensor<3x2x2x4x5xf32> -> tensor<5x4x2x2x3xf32>
  %c = graph.concat %x, %z {axis = 3 : i64} : (tensor<2x3x4x5x2x3xf32>, tensor<2x3x4x1x2x3xf32>) -> tensor<2x3x4x6x2x3xf32>
  %s = graph.slice %w {starts = array<i64: 0, 0, 0, 0, 0>, steps = array<i64: 2, 2, 2, 2, 2>} : tensor<4x4x4x4x4xf32> -> tensor<2x2x2x2x2xf32>
  return %t, %u, %c, %s : tensor<3x5x3x2x4x2xf32>, tensor<5x4x2x2x3xf32>, tensor<2x3x4x6x2x3xf32>, tensor<2x2x2x2x2xf32>
}
