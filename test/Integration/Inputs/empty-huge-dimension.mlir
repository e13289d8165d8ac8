// Empty tensors whose other dimension is huge: 2^40, and the prime 1099511627791 (whose only
// factors are itself and 1). Neither has an element, so no pass has anything to split or tile.
func.func @power_of_two(%x: tensor<1099511627776x0xf32>) -> tensor<1099511627776x0xf32> {
  %y = graph.relu %x : tensor<1099511627776x0xf32>
  return %y : tensor<1099511627776x0xf32>
}

func.func @prime(%x: tensor<0x1099511627791xf32>, %z: tensor<0x1099511627791xf32>)
    -> tensor<0x1099511627791xf32> {
  %y = graph.relu %x : tensor<0x1099511627791xf32>
  %s = graph.add %y, %z : tensor<0x1099511627791xf32>, tensor<0x1099511627791xf32>
      -> tensor<0x1099511627791xf32>
  %r = graph.relu %s : tensor<0x1099511627791xf32>
  return %r : tensor<0x1099511627791xf32>
}
