// Tests what instance-bind rejects.
// RUN: turbine-opt %s --split-input-file --verify-diagnostics --instance-bind=target=stcp920
// RUN: not turbine-opt %s --split-input-file --instance-bind 2>&1 | FileCheck %s --check-prefix=TARGET
// Tests that the cores come from a target (@needs_target has instances to bind).
// TARGET: instance-bind needs a target: set the module's dsa.target (dsa-set-target) or the 'target' option

// Tests that binding follows the order of Algorithm 3.
func.func @unordered(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{instance 'g0' #0 has no order: run instance-order first}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  return %a : tensor<4x16xf32>
}

// -----

// Tests that groups must become instances first.
func.func @grouped(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{instance-bind binds instances: run instance-split and instance-order first}}
  %a = instance.group "g0"(%x) : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  return %a : tensor<4x16xf32>
}

// -----

// Bound with the target of the first RUN line; without a target, the TARGET error.
func.func @needs_target(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  return %a : tensor<4x16xf32>
}
