// Chains of two products that the layer-wise lowering fuses into one kernel each (BOLT §3.1,
// kernels::chain), with the epilogues, batch dimensions and gemm attributes they carry: a
// feed-forward pair over a batch of sequences with a gelu between and a residual after; a gemm
// pair with transposed weights, alpha, beta and a bias; a pair whose first product takes its
// reduction in chunks (pipelined through double buffers on mini); a padded 3x3 convolution with
// a relu6 feeding a 1x1 convolution with a bias; and a product whose result two ops read, which no
// chain takes. For test/Integration/chain-fusion.test (weights from
// Inputs/seed-weights.py).
func.func @main(%x: tensor<2x64x32xf32>, %y: tensor<256x512xf32>, %z: tensor<2x8x10x10xf32>) -> (tensor<128x16xf32>, tensor<128x48xf32>, tensor<256x64xf32>, tensor<2x8x10x10xf32>) {
  %w0 = graph.weight "ffn.w0" : tensor<32x96xf32>
  %b0 = graph.weight "ffn.b0" : tensor<96xf32>
  %w1 = graph.weight "ffn.w1" : tensor<96x32xf32>
  %b1 = graph.weight "ffn.b1" : tensor<32xf32>
  %h = graph.batch_matmul %x, %w0 : tensor<2x64x32xf32>, tensor<32x96xf32> -> tensor<2x64x96xf32>
  %hb = graph.add %h, %b0 : tensor<2x64x96xf32>, tensor<96xf32> -> tensor<2x64x96xf32>
  %g = graph.gelu %hb : tensor<2x64x96xf32>
  %o = graph.batch_matmul %g, %w1 : tensor<2x64x96xf32>, tensor<96x32xf32> -> tensor<2x64x32xf32>
  %ob = graph.add %o, %b1 : tensor<2x64x32xf32>, tensor<32xf32> -> tensor<2x64x32xf32>
  %r = graph.add %ob, %x : tensor<2x64x32xf32>, tensor<2x64x32xf32> -> tensor<2x64x32xf32>
  %flat = graph.reshape %r : tensor<2x64x32xf32> -> tensor<128x32xf32>
  %w2 = graph.weight "head.w2" : tensor<64x32xf32>
  %b2 = graph.weight "head.b2" : tensor<64xf32>
  %w3 = graph.weight "head.w3" : tensor<16x64xf32>
  %b3 = graph.weight "head.b3" : tensor<16xf32>
  %p = graph.gemm %flat, %w2, %b2 {alpha = 0.5 : f32, beta = 2.0 : f32, trans_b = true} : (tensor<128x32xf32>, tensor<64x32xf32>, tensor<64xf32>) -> tensor<128x64xf32>
  %pr = graph.relu %p : tensor<128x64xf32>
  %q = graph.gemm %pr, %w3, %b3 {trans_b = true} : (tensor<128x64xf32>, tensor<16x64xf32>, tensor<16xf32>) -> tensor<128x16xf32>
  %w4 = graph.weight "side.w4" : tensor<32x48xf32>
  %s = graph.matmul %flat, %w4 : tensor<128x32xf32>, tensor<32x48xf32> -> tensor<128x48xf32>
  %t = graph.sigmoid %s : tensor<128x48xf32>
  %w5 = graph.weight "side.w5" : tensor<48x48xf32>
  %u = graph.matmul %t, %w5 : tensor<128x48xf32>, tensor<48x48xf32> -> tensor<128x48xf32>
  %v = graph.add %u, %t : tensor<128x48xf32>, tensor<128x48xf32> -> tensor<128x48xf32>
  %w6 = graph.weight "deep.w6" : tensor<512x64xf32>
  %w7 = graph.weight "deep.w7" : tensor<64x64xf32>
  %d = graph.matmul %y, %w6 : tensor<256x512xf32>, tensor<512x64xf32> -> tensor<256x64xf32>
  %dt = graph.tanh %d : tensor<256x64xf32>
  %e = graph.matmul %dt, %w7 : tensor<256x64xf32>, tensor<64x64xf32> -> tensor<256x64xf32>
  %c0 = graph.weight "block.conv0.weight" : tensor<16x8x3x3xf32>
  %cb0 = graph.weight "block.conv0.bias" : tensor<16xf32>
  %c1 = graph.weight "block.conv1.weight" : tensor<8x16x1x1xf32>
  %cb1 = graph.weight "block.conv1.bias" : tensor<8xf32>
  %f = graph.conv2d %z, %c0, %cb0 {pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu6>} : (tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>
  %g2 = graph.conv2d %f, %c1, %cb1 : (tensor<2x16x10x10xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>) -> tensor<2x8x10x10xf32>
  %k = graph.add %g2, %z : tensor<2x8x10x10xf32>, tensor<2x8x10x10xf32> -> tensor<2x8x10x10xf32>
  return %q, %v, %e, %k : tensor<128x16xf32>, tensor<128x48xf32>, tensor<256x64xf32>, tensor<2x8x10x10xf32>
}
