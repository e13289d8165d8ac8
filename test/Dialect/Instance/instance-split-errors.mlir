// Tests what instance-split rejects.
// RUN: turbine-opt %s --split-input-file --instance-split --verify-diagnostics

// Tests that a group with a SplitInfo but no best split (hw-group always picks one then) is
// refused.
func.func @no_best_split(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{group 'g0' has a split_info but no best split: run hw-group, which picks one (Eq. 1) whenever a split fits}}
  %y = instance.group "g0"(%x) {split_info = [#instance.split<dim = 1, factor = 2, ops = 1>]} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %s = graph.relu %a : tensor<2x8xf32>
    instance.yield %s : tensor<2x8xf32>
  }
  return %y : tensor<2x8xf32>
}

// -----

// Tests that a best split whose slices do not divide the output is refused.
func.func @unsplittable(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  // expected-error@+1 {{group 'g0': its best split cuts dimension 1 into 3 slices, which do not divide it (size 8)}}
  %y = instance.group "g0"(%x) {best_split = #instance.split<dim = 1, factor = 3, ops = 1>, split_info = [#instance.split<dim = 1, factor = 3, ops = 1>]} : (tensor<2x8xf32>) -> tensor<2x8xf32> {
  ^bb0(%a: tensor<2x8xf32>):
    %s = graph.relu %a : tensor<2x8xf32>
    instance.yield %s : tensor<2x8xf32>
  }
  return %y : tensor<2x8xf32>
}
