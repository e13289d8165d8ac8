// A branch on a run-time condition, which GraphTurbo's lowering does not take (the layer-wise
// schedule's does). For test/Integration/turbine-run-errors.test.
module {
  func.func @main(%c: tensor<i1>, %x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %r = graph.if %c -> (tensor<4x8xf32>) {
      %n = graph.neg %x : tensor<4x8xf32>
      graph.yield %n : tensor<4x8xf32>
    } else {
      graph.yield %x : tensor<4x8xf32>
    } loc("branch")
    return %r : tensor<4x8xf32>
  }
}
