// Tests what instance-order rejects.
// RUN: turbine-opt %s --instance-order --verify-diagnostics

// Tests that groups must be split into instances first.
func.func @unsplit(%x: tensor<8x32xf32>) -> tensor<8x32xf32> {
  %y = instance.instance "g1"[0 of 1 along 0] (%x) : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    instance.yield %a : tensor<8x32xf32>
  }
  // expected-error@+1 {{instance-order orders instances: run instance-split first}}
  %z = instance.group "g0"(%y) {best_split = #instance.split<dim = 0, factor = 1, ops = 1>, split_info = [#instance.split<dim = 0, factor = 1, ops = 1>]} : (tensor<8x32xf32>) -> tensor<8x32xf32> {
  ^bb0(%a: tensor<8x32xf32>):
    %r = graph.relu %a : tensor<8x32xf32>
    instance.yield %r : tensor<8x32xf32>
  }
  return %z : tensor<8x32xf32>
}
