// Tests what instance-stitch rejects.
// RUN: turbine-opt %s --verify-diagnostics --instance-stitch

// Tests that stitching needs the bindings and scopes of instance-bind.
func.func @unbound(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-error@+1 {{instance 'g0' #0 has no bind and scope: run instance-bind first}}
  %a = instance.instance "g0"[0 of 1 along 0] (%x) {order = 0 : i64} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %r = graph.relu %p : tensor<4x16xf32>
    instance.yield %r : tensor<4x16xf32>
  }
  return %a : tensor<4x16xf32>
}
