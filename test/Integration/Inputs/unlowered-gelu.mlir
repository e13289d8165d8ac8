// A GELU in its tanh approximation, which the software DSA lowering does not run (its erf form
// is lowered). For test/Integration/turbine-run-errors.test.
module {
  func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
    %y = graph.gelu %x {approximate = true} : tensor<4x8xf32> loc("gelu")
    return %y : tensor<4x8xf32>
  }
}
