// Weights computed from weights (graph-prepare-weights): three projections of one input merged
// into one product by a concatenation of their weights (MetaFlow's merge of parallel products),
// a transposed and scaled filter, and a weight reshaped (a view that stays in the function), each
// read by an op of the data.
module attributes {graph.weights = "prepared-weights.safetensors"} {
  func.func @main(%x: tensor<2x16x32xf32>) -> (tensor<2x16x96xf32>, tensor<2x16x32xf32>, tensor<2x16x8xf32>) {
    %q = graph.weight "q" : tensor<32x32xf32>
    %k = graph.weight "k" : tensor<32x32xf32>
    %v = graph.weight "v" : tensor<32x32xf32>
    %kv = graph.concat %k, %v {axis = 1 : i64} : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x64xf32>
    %qkv = graph.concat %q, %kv {axis = 1 : i64} : (tensor<32x32xf32>, tensor<32x64xf32>) -> tensor<32x96xf32>
    %y = graph.batch_matmul %x, %qkv : tensor<2x16x32xf32>, tensor<32x96xf32> -> tensor<2x16x96xf32>
    %f = graph.weight "f" : tensor<32x32xf32>
    %half = graph.constant dense<0.5> : tensor<32x32xf32>
    %t = graph.transpose %f {permutation = array<i64: 1, 0>} : tensor<32x32xf32> -> tensor<32x32xf32>
    %s = graph.mul %t, %half : tensor<32x32xf32>, tensor<32x32xf32> -> tensor<32x32xf32>
    %z = graph.batch_matmul %x, %s : tensor<2x16x32xf32>, tensor<32x32xf32> -> tensor<2x16x32xf32>
    %r = graph.weight "r" : tensor<4x8x8xf32>
    %rv = graph.reshape %r : tensor<4x8x8xf32> -> tensor<32x8xf32>
    %u = graph.batch_matmul %x, %rv : tensor<2x16x32xf32>, tensor<32x8xf32> -> tensor<2x16x8xf32>
    return %y, %z, %u : tensor<2x16x96xf32>, tensor<2x16x32xf32>, tensor<2x16x8xf32>
  }
}
