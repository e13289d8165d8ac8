// RUN: turbine-opt %s --split-input-file --verify-diagnostics

//===----------------------------------------------------------------------===//
// #instance.split
//===----------------------------------------------------------------------===//

// Tests that a split dimension is not negative.
func.func @split_dim_negative(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{split dimension must be non-negative, got -1}}
  %y = instance.group "layer1.0.relu" (%x) {split_info = [#instance.split<dim = -1, factor = 4, ops = 1>]} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a split factor is positive.
func.func @split_factor_zero(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{split factor must be positive, got 0}}
  %y = instance.group "layer1.0.relu" (%x) {split_info = [#instance.split<dim = 2, factor = 0, ops = 1>]} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a split reaches at least one operator.
func.func @split_ops_zero(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{a split must reach at least one operator, got 0}}
  %y = instance.group "layer1.0.relu" (%x) {best_split = #instance.split<dim = 2, factor = 4, ops = 0>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.group
//===----------------------------------------------------------------------===//

// Tests that a group's split_info names dimensions of its output: dimension 4
// of a rank-4 NCHW tensor.
func.func @group_split_dim_out_of_range(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{split_info names dimension 4 but the output has rank 4}}
  %y = instance.group "layer1.0.relu" (%x) {split_info = [#instance.split<dim = 2, factor = 4, ops = 1>, #instance.split<dim = 4, factor = 2, ops = 1>]} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group's best split is one of its split_info tuples (Eq. 1
// chooses among them): same dimension, different factor.
func.func @group_best_split_not_in_info(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{best_split #instance.split<dim = 2, factor = 8, ops = 1> is not one of the split_info tuples}}
  %y = instance.group "layer1.0.relu" (%x) {split_info = [#instance.split<dim = 2, factor = 4, ops = 1>], best_split = #instance.split<dim = 2, factor = 8, ops = 1>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group with a best split must have split_info.
func.func @group_best_split_without_info(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{best_split #instance.split<dim = 2, factor = 4, ops = 1> is not one of the split_info tuples}}
  %y = instance.group "layer1.0.relu" (%x) {best_split = #instance.split<dim = 2, factor = 4, ops = 1>} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group's block arguments are its operands.
func.func @group_body_arguments(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{body arguments ('tensor<1x64x56x56xf32>') differ from the operands ('tensor<1x64x56x56xf32>', 'tensor<64x64x3x3xf32>')}}
  %y = instance.group "layer1.0.relu" (%x, %w) : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group yields its results, with a note at the yield.
func.func @group_yield(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{body yields ('tensor<1x64x28x28xf32>') but the results are ('tensor<1x64x56x56xf32>')}}
  %y = instance.group "layer1.0.pool" (%x) : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %p = graph.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x64x56x56xf32> -> tensor<1x64x28x28xf32>
    // expected-note@+1 {{yield is here}}
    instance.yield %p : tensor<1x64x28x28xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group body without a terminator is reported as such, not as a
// yield of the last op's operands.
func.func @group_no_terminator(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  %y = instance.group "layer1.0.pool" (%x) : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    // expected-error@+1 {{block with no terminator}}
    %p = graph.max_pool2d %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : tensor<1x64x56x56xf32> -> tensor<1x64x28x28xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group's body has a block.
func.func @group_empty_body(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects a non-empty block}}
  %y = instance.group "layer1.0.pool" (%x) : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group is isolated from above: its body may not use a value of
// the enclosing function that is not an operand.
func.func @group_isolated(%x: tensor<1x64x56x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32> {
  // expected-note@+1 {{required by region isolation constraints}}
  %y = instance.group "layer1.0.conv2" (%x) : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    // expected-error@+1 {{using value defined outside the region}}
    %c = graph.conv2d %a, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x56x56xf32>
    instance.yield %c : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that a group's outputs have static shapes.
func.func @group_dynamic_result(%x: tensor<1x64x56x56xf32>) -> tensor<?x64x56x56xf32> {
  // expected-error@+1 {{result #0 must be variadic of statically shaped tensor of any type values, but got 'tensor<?x64x56x56xf32>'}}
  %y = "instance.group"(%x) <{name = "layer1.0.relu"}> ({
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %c = tensor.cast %a : tensor<1x64x56x56xf32> to tensor<?x64x56x56xf32>
    instance.yield %c : tensor<?x64x56x56xf32>
  }) : (tensor<1x64x56x56xf32>) -> tensor<?x64x56x56xf32>
  return %y : tensor<?x64x56x56xf32>
}

// -----

// Tests that a split_info holds only #instance.split tuples.
func.func @group_split_info_type(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{attribute 'split_info' failed to satisfy constraint: array of SplitInfo tuples}}
  %y = instance.group "layer1.0.relu" (%x) {split_info = [2, 4, 1]} : (tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  ^bb0(%a: tensor<1x64x56x56xf32>):
    %r = graph.relu %a : tensor<1x64x56x56xf32>
    instance.yield %r : tensor<1x64x56x56xf32>
  }
  return %y : tensor<1x64x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.instance
//===----------------------------------------------------------------------===//

// Tests that an instance's index is below its count.
func.func @instance_index(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{index 4 is not in [0, 4)}}
  %s = instance.instance "layer1.0.conv2" [4 of 4 along 2] (%x, %w) : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance's index is not negative.
func.func @instance_index_negative(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{index -1 is not in [0, 4)}}
  %s = instance.instance "layer1.0.conv2" [-1 of 4 along 2] (%x, %w) : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance count is positive.
func.func @instance_count(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{expects a positive instance count, got 0}}
  %s = instance.instance "layer1.0.conv2" [0 of 0 along 2] (%x, %w) : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance's split dimension is a dimension of its output.
func.func @instance_dim(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{split dimension 4 is out of range for an output of rank 4}}
  %s = instance.instance "layer1.0.conv2" [0 of 4 along 4] (%x, %w) : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that a scalar output is one instance: there is no dimension to split it along.
func.func @instance_scalar(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error@+1 {{a scalar output is computed by one instance along dimension 0}}
  %s = instance.instance "sum" [0 of 2 along 0] (%x) : (tensor<4xf32>) -> tensor<f32> {
  ^bb0(%a: tensor<4xf32>):
    %c = graph.reduce_sum %a {axes = array<i64: 0>, keepdims = false} : tensor<4xf32> -> tensor<f32>
    instance.yield %c : tensor<f32>
  }
  return %s : tensor<f32>
}

// -----

// Tests that an instance's binding has one factor per output dimension.
func.func @instance_bind_size(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{bind has 2 factors but the output has rank 4}}
  %s = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x, %w) {bind = array<i64: 1, 8>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance's binding factors are positive.
func.func @instance_bind_zero(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{bind factors must be positive, got [1, 8, 0, 1]}}
  %s = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x, %w) {bind = array<i64: 1, 8, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance's block arguments are its operands.
func.func @instance_body_arguments(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{body arguments ('tensor<1x64x15x56xf32>', 'tensor<64x64x3x3xf32>') differ from the operands ('tensor<1x64x16x56xf32>', 'tensor<64x64x3x3xf32>')}}
  %s = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x, %w) : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x15x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 1, 1, 0, 1>} : (tensor<1x64x15x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance yields its results (a slice computed without its
// halo is 2 rows short), with a note at the yield.
func.func @instance_yield(%x: tensor<1x64x14x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{body yields ('tensor<1x64x12x56xf32>') but the results are ('tensor<1x64x14x56xf32>')}}
  %s = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x, %w) : (tensor<1x64x14x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x14x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x14x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x12x56xf32>
    // expected-note@+1 {{yield is here}}
    instance.yield %c : tensor<1x64x12x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that an instance's scope is an #instance<scope ...>.
func.func @instance_scope_type(%x: tensor<1x64x16x56xf32>, %w: tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+1 {{attribute 'scope' failed to satisfy constraint: Memory scope of an instance's output: LB, GB or DDR (Algorithm 4).}}
  %s = instance.instance "layer1.0.conv2" [1 of 4 along 2] (%x, %w) {scope = #dsa.memory_space<lb>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32> {
  ^bb0(%a: tensor<1x64x16x56xf32>, %b: tensor<64x64x3x3xf32>):
    %c = graph.conv2d %a, %b {pads = array<i64: 0, 1, 0, 1>} : (tensor<1x64x16x56xf32>, tensor<64x64x3x3xf32>) -> tensor<1x64x14x56xf32>
    instance.yield %c : tensor<1x64x14x56xf32>
  }
  return %s : tensor<1x64x14x56xf32>
}

// -----

// Tests that instance.yield only ends the clusters' program, groups and instances.
func.func @yield_outside(%x: tensor<4xf32>) {
  // expected-error@+1 {{expects parent op to be one of 'instance.clusters, instance.group, instance.instance'}}
  instance.yield %x : tensor<4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.clusters
//===----------------------------------------------------------------------===//

// Tests that the cluster count is positive.
func.func @clusters_zero(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{expects a positive cluster count, got 0}}
  %y = instance.clusters 0(%x) split [0] -> [0] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    instance.yield %a : tensor<2x4xf32>
  }
  return %y : tensor<8x4xf32>
}

// -----

// Tests that every operand says how it is cut.
func.func @clusters_dims(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{input_dims has 2 entries for 1 operands}}
  %y = instance.clusters 4(%x) split [0, 0] -> [0] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    instance.yield %a : tensor<2x4xf32>
  }
  return %y : tensor<8x4xf32>
}

// -----

// Tests that a block argument is the operand's share: 8 rows in 4 shares are 2 rows, not 4.
func.func @clusters_share(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{operand 0 of type 'tensor<8x4xf32>' is cut along dimension 0 into 4 shares but the body has 'tensor<4x4xf32>'}}
  %y = instance.clusters 4(%x) split [0] -> [0] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<4x4xf32>):
    instance.yield %a : tensor<4x4xf32>
  }
  return %y : tensor<8x4xf32>
}

// -----

// Tests that a result read whole has the body's type, and that dimensions are in range.
func.func @clusters_whole(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{result 0 of type 'tensor<8x4xf32>' is read whole but the body has 'tensor<2x4xf32>'}}
  %y = instance.clusters 4(%x) split [0] -> [-1] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    instance.yield %a : tensor<2x4xf32>
  }
  return %y : tensor<8x4xf32>
}

// -----

func.func @clusters_range(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-error@+1 {{operand 0: dimension 2 is out of range for rank 2}}
  %y = instance.clusters 4(%x) split [2] -> [0] : (tensor<8x4xf32>) -> tensor<8x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    instance.yield %a : tensor<2x4xf32>
  }
  return %y : tensor<8x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.concat
//===----------------------------------------------------------------------===//

// Tests that instance slices joined along H agree on the other dimensions.
func.func @concat_non_axis_dim(%a: tensor<1x64x14x56xf32>, %b: tensor<1x64x14x28xf32>) -> tensor<1x64x28x56xf32> {
  // expected-error@+1 {{operand #1 has shape [1, 64, 14, 28], which differs from the result [1, 64, 28, 56] in dimension 3 (only the axis 2 may differ)}}
  %y = instance.concat %a, %b along 2 : (tensor<1x64x14x56xf32>, tensor<1x64x14x28xf32>) -> tensor<1x64x28x56xf32>
  return %y : tensor<1x64x28x56xf32>
}

// -----

// Tests that instance slices add up to the result along the axis (a missing
// fourth slice).
func.func @concat_axis_sum(%a: tensor<1x64x14x56xf32>, %b: tensor<1x64x14x56xf32>, %c: tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{operand sizes along axis 2 add up to 42 but the result has 56}}
  %y = instance.concat %a, %b, %c along 2 : (tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>, tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that instance.concat's axis is within the result's rank.
func.func @concat_axis(%a: tensor<1x64x28x56xf32>, %b: tensor<1x64x28x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{axis -5 is out of range for rank 4}}
  %y = instance.concat %a, %b along -5 : (tensor<1x64x28x56xf32>, tensor<1x64x28x56xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that instance.concat's operands have the result's rank.
func.func @concat_rank(%a: tensor<1x64x28x56xf32>, %b: tensor<64x28x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{operand #1 has rank 3 but the result has rank 4}}
  %y = instance.concat %a, %b along 2 : (tensor<1x64x28x56xf32>, tensor<64x28x56xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that instance.concat's operands share the result's element type.
func.func @concat_element_type(%a: tensor<1x64x28x56xf32>, %b: tensor<1x64x28x56xf16>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects one element type for all operands and results, got 'f32' and 'f16'}}
  %y = instance.concat %a, %b along 2 : (tensor<1x64x28x56xf32>, tensor<1x64x28x56xf16>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that instance.concat needs at least one operand.
func.func @concat_empty() -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{expects at least one operand}}
  %y = instance.concat along 2 : () -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.copy, instance.redistribute
//===----------------------------------------------------------------------===//

// Tests that a copy keeps the tensor's type.
func.func @copy_type(%x: tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{requires the same type for all operands and results}}
  %y = "instance.copy"(%x) <{scope = #instance<scope gb>}> : (tensor<1x64x14x56xf32>) -> tensor<1x64x56x56xf32>
  return %y : tensor<1x64x56x56xf32>
}

// -----

// Tests that an unknown scope keyword is a parse error.
func.func @copy_unknown_scope(%x: tensor<1x64x14x56xf32>) -> tensor<1x64x14x56xf32> {
  // expected-error@+2 {{expected ::turbine::instance::Scope to be one of: lb, gb, ddr}}
  // expected-error@+1 {{failed to parse Instance_ScopeAttr parameter 'value'}}
  %y = instance.copy %x to l2 : tensor<1x64x14x56xf32>
  return %y : tensor<1x64x14x56xf32>
}

// -----

// Tests that a redistribution changes the binding.
func.func @redistribute_same(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{redistributes to the binding it already has, [1, 8, 1, 1]}}
  %r = instance.redistribute %x from [1, 8, 1, 1] to [1, 8, 1, 1] : tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Tests that both bindings have one factor per dimension.
func.func @redistribute_rank(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{binding [1, 8, 1] has 3 factors but the tensor has rank 4}}
  %r = instance.redistribute %x from [1, 8, 1, 1] to [1, 8, 1] : tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

// Tests that binding factors are positive.
func.func @redistribute_zero(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x56x56xf32> {
  // expected-error@+1 {{binding factors must be positive, got [1, 0, 8, 1]}}
  %r = instance.redistribute %x from [1, 8, 1, 1] to [1, 0, 8, 1] : tensor<1x64x56x56xf32>
  return %r : tensor<1x64x56x56xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Coverage: the instances of a group cover its output exactly once
//===----------------------------------------------------------------------===//

// Tests that a group whose instance 1 of 2 is missing is refused at instance 0.
func.func @coverage_missing(%x: tensor<2x4xf32>) -> tensor<1x4xf32> {
  // expected-error@+1 {{group 'g0' has no instance 1 of 2: its output would not be covered}}
  %s = instance.instance "g0" [0 of 2 along 0] (%x) : (tensor<2x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    %c = graph.slice %a {starts = array<i64: 0, 0>} : tensor<2x4xf32> -> tensor<1x4xf32>
    instance.yield %c : tensor<1x4xf32>
  }
  return %s : tensor<1x4xf32>
}

// -----

// Tests that two instances computing the same slice are refused.
func.func @coverage_twice(%x: tensor<1x4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
  // expected-error@+1 {{group 'g0' has two instances 0 of 2: they would compute one slice twice}}
  %s = instance.instance "g0" [0 of 2 along 0] (%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    instance.yield %a : tensor<1x4xf32>
  }
  // expected-note@+1 {{the second is here}}
  %t = instance.instance "g0" [0 of 2 along 0] (%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    instance.yield %a : tensor<1x4xf32>
  }
  return %s, %t : tensor<1x4xf32>, tensor<1x4xf32>
}

// -----

// Tests that the instances of a group are equal slices.
func.func @coverage_unequal(%x: tensor<1x4xf32>, %y: tensor<2x4xf32>) -> (tensor<1x4xf32>, tensor<2x4xf32>) {
  // expected-error@+1 {{instances of group 'g0' differ in their count, dimension or result types: they must be equal slices of one output}}
  %s = instance.instance "g0" [0 of 2 along 0] (%x) : (tensor<1x4xf32>) -> tensor<1x4xf32> {
  ^bb0(%a: tensor<1x4xf32>):
    instance.yield %a : tensor<1x4xf32>
  }
  // expected-note@+1 {{this instance differs}}
  %t = instance.instance "g0" [1 of 2 along 0] (%y) : (tensor<2x4xf32>) -> tensor<2x4xf32> {
  ^bb0(%a: tensor<2x4xf32>):
    instance.yield %a : tensor<2x4xf32>
  }
  return %s, %t : tensor<1x4xf32>, tensor<2x4xf32>
}

// -----

//===----------------------------------------------------------------------===//
// instance.slice
//===----------------------------------------------------------------------===//

// Tests that a slice stays inside its source.
func.func @slice_outside(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x16x56xf32> {
  // expected-error@+1 {{the box at [0, 0, 41, 0] of shape [1, 64, 16, 56] leaves the source [1, 64, 56, 56] in dimension 2}}
  %s = instance.slice %x [0, 0, 41, 0] : tensor<1x64x56x56xf32> -> tensor<1x64x16x56xf32>
  return %s : tensor<1x64x16x56xf32>
}

// -----

// Tests that a slice has one offset per dimension.
func.func @slice_rank(%x: tensor<1x64x56x56xf32>) -> tensor<1x64x16x56xf32> {
  // expected-error@+1 {{offsets [0, 13] and result [1, 64, 16, 56] must have the source's rank 4}}
  %s = instance.slice %x [0, 13] : tensor<1x64x56x56xf32> -> tensor<1x64x16x56xf32>
  return %s : tensor<1x64x16x56xf32>
}
