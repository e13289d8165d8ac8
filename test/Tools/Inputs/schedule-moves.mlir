// A stitched schedule for test/Tools/view-schedule.test: group g0 split in two instances over
// slices joined by a concatenation, then a copy and a redistribution into group g1.
func.func @moves(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %s0 = instance.slice %x [0, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
  %s1 = instance.slice %x [2, 0] : tensor<4x16xf32> -> tensor<2x16xf32>
  %a0 = instance.instance "g0"[0 of 2 along 0] (%s0) {bind = array<i64: 1, 8>, order = 0 : i64, scope = #instance<scope gb>} : (tensor<2x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<2x16xf32>):
    %r = graph.relu %p : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %a1 = instance.instance "g0"[1 of 2 along 0] (%s1) {bind = array<i64: 1, 8>, order = 1 : i64, scope = #instance<scope gb>} : (tensor<2x16xf32>) -> tensor<2x16xf32> {
  ^bb0(%p: tensor<2x16xf32>):
    %r = graph.relu %p : tensor<2x16xf32>
    instance.yield %r : tensor<2x16xf32>
  }
  %a = instance.concat %a0, %a1 along 0 : (tensor<2x16xf32>, tensor<2x16xf32>) -> tensor<4x16xf32>
  %c = instance.copy %a to lb : tensor<4x16xf32>
  %m = instance.redistribute %c from [1, 8] to [4, 2] : tensor<4x16xf32>
  %b = instance.instance "g1"[0 of 1 along 0] (%m) {bind = array<i64: 4, 2>, order = 2 : i64, scope = #instance<scope lb>} : (tensor<4x16xf32>) -> tensor<4x16xf32> {
  ^bb0(%p: tensor<4x16xf32>):
    %t = graph.tanh %p : tensor<4x16xf32>
    %e = graph.exp %t : tensor<4x16xf32>
    instance.yield %e : tensor<4x16xf32>
  }
  return %b : tensor<4x16xf32>
}
