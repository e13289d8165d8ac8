// A rule file that is not MLIR.
module @broken {
  func.func @source(%x: tensor<2xf32>) -> tensor<2xf32> {
    %y = graph.relu %x : tensor<2xf32>
    return %y
  }
}
