// Control flow for test/Integration/control-flow.test: a branch on a condition computed from the
// input, a loop whose condition its body computes (it stops once the carried value's squared
// sum reaches 100, or after 10 iterations), and a loop whose body multiplies by a weight large
// enough for the lowering to keep it in the clusters' GBs.
module {
  func.func @resident(%x: tensor<4x64xf32>, %w: tensor<64x64xf32>) -> tensor<4x64xf32> {
    %n = graph.constant dense<8> : tensor<i64>
    %t = graph.constant dense<true> : tensor<i1>
    %r = graph.loop %n, %t iter_args(%x : tensor<4x64xf32>) -> (tensor<4x64xf32>) {
    ^bb0(%i: tensor<i64>, %v: tensor<4x64xf32>):
      %m = graph.matmul %v, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
      %y = graph.tanh %m : tensor<4x64xf32>
      graph.yield %t, %y : tensor<i1>, tensor<4x64xf32>
    } loc("recur")
    return %r : tensor<4x64xf32>
  }
  func.func @branch(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %zero = graph.constant dense<0.0> : tensor<f32>
    %s = graph.reduce_sum %x {axes = array<i64: 0, 1>, keepdims = false} : tensor<4x8xf32> -> tensor<f32>
    %positive = graph.compare gt, %s, %zero : tensor<f32>, tensor<f32> -> tensor<i1>
    %r = graph.if %positive -> (tensor<4x8xf32>) {
      %a = graph.relu %x : tensor<4x8xf32>
      %b = graph.add %a, %a : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      graph.yield %b : tensor<4x8xf32>
    } else {
      %n = graph.neg %x : tensor<4x8xf32>
      graph.yield %n : tensor<4x8xf32>
    } loc("choose")
    return %r : tensor<4x8xf32>
  }
  func.func @until(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    %n = graph.constant dense<10> : tensor<i64>
    %t = graph.constant dense<true> : tensor<i1>
    %limit = graph.constant dense<100.0> : tensor<f32>
    %r:2 = graph.loop %n, %t iter_args(%x, %x : tensor<4x8xf32>, tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
    ^bb0(%i: tensor<i64>, %a: tensor<4x8xf32>, %b: tensor<4x8xf32>):
      %m = graph.matmul %a, %w : tensor<4x8xf32>, tensor<8x8xf32> -> tensor<4x8xf32>
      %s = graph.add %m, %b : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %sq = graph.mul %s, %s : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
      %sum = graph.reduce_sum %sq {axes = array<i64: 0, 1>, keepdims = false} : tensor<4x8xf32> -> tensor<f32>
      %go = graph.compare lt, %sum, %limit : tensor<f32>, tensor<f32> -> tensor<i1>
      graph.yield %go, %s, %a : tensor<i1>, tensor<4x8xf32>, tensor<4x8xf32>
    } loc("until")
    return %r#0, %r#1 : tensor<4x8xf32>, tensor<4x8xf32>
  }
}
