// Tests that computing an LB instance per core (GraphTurbo §3.4) is weighed against sharing its
// layers with the weight copies each lowering would make: shared, a layer's weights are copied
// while the layer before computes (§4.4); per core, the copy comes first. ResNet-18's first
// stage-4 block at batch 1 on stcp920, each layer cut along its channels over the four clusters:
// the second 3×3 convolution with the projection's sum follows the projection in one kernel, and
// with both copies priced it was estimated a little faster per core, where it ran 166,012 cycles
// against 141,233 shared. It is shared.
// RUN: turbine-opt %s --pass-pipeline='builtin.module(dsa-set-target{target=stcp920},func.func(instance-cluster-split,hw-group,instance-split,instance-order,instance-bind,instance-stitch),convert-instance-to-dsa{explain=true})' --verify-diagnostics -o /dev/null

func.func @basic_block(%x: tensor<1x256x14x14xf32>) -> tensor<1x512x7x7xf32> {
  // expected-remark@-1 {{0 of 3 LB instances computed per core, 0 intermediates spilled from LB to GB (lowered as GB instances: 1: its cores would recompute more than a tenth of its work; 2: sharing its layers is estimated to be faster)}}
  %w1 = graph.weight "w1" : tensor<512x256x3x3xf32>
  %w2 = graph.weight "w2" : tensor<512x512x3x3xf32>
  %w3 = graph.weight "w3" : tensor<512x256x1x1xf32>
  %c1 = graph.conv2d %x, %w1 {activation = #graph<activation relu>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<1x256x14x14xf32>, tensor<512x256x3x3xf32>) -> tensor<1x512x7x7xf32>
  %c2 = graph.conv2d %c1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x512x7x7xf32>, tensor<512x512x3x3xf32>) -> tensor<1x512x7x7xf32>
  %d = graph.conv2d %x, %w3 {strides = array<i64: 2, 2>} : (tensor<1x256x14x14xf32>, tensor<512x256x1x1xf32>) -> tensor<1x512x7x7xf32>
  %a = graph.add %c2, %d : tensor<1x512x7x7xf32>, tensor<1x512x7x7xf32> -> tensor<1x512x7x7xf32>
  %r = graph.relu %a : tensor<1x512x7x7xf32>
  return %r : tensor<1x512x7x7xf32>
}
