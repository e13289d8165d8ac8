// ResNet-50 stage 2 (layer1): the conv block (with the 1x1 projection shortcut) followed by an
// identity block, batch 8, as in GraphTurbo Fig. 5. Weights are named tensors of a side file.
module attributes {graph.weights = "resnet50.safetensors"} {
func.func @resnet50_layer1(%x: tensor<8x64x56x56xf32>) -> tensor<8x256x56x56xf32> {
  %v1 = graph.weight "layer1.0.0.conv.weight" : tensor<64x64x1x1xf32>
  %v2 = graph.conv2d %x, %v1 {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  %v3 = graph.weight "layer1.0.0.bn.weight" : tensor<64xf32>
  %v4 = graph.weight "layer1.0.0.bn.bias" : tensor<64xf32>
  %v5 = graph.weight "layer1.0.0.bn.running_mean" : tensor<64xf32>
  %v6 = graph.weight "layer1.0.0.bn.running_var" : tensor<64xf32>
  %v7 = graph.batch_norm %v2, %v3, %v4, %v5, %v6 {epsilon = 1.0e-05 : f32} : (tensor<8x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x56x56xf32>
  %v8 = graph.relu %v7 : tensor<8x64x56x56xf32>
  %v9 = graph.weight "layer1.0.1.conv.weight" : tensor<64x64x3x3xf32>
  %v10 = graph.conv2d %v8, %v9 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %v11 = graph.weight "layer1.0.1.bn.weight" : tensor<64xf32>
  %v12 = graph.weight "layer1.0.1.bn.bias" : tensor<64xf32>
  %v13 = graph.weight "layer1.0.1.bn.running_mean" : tensor<64xf32>
  %v14 = graph.weight "layer1.0.1.bn.running_var" : tensor<64xf32>
  %v15 = graph.batch_norm %v10, %v11, %v12, %v13, %v14 {epsilon = 1.0e-05 : f32} : (tensor<8x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x56x56xf32>
  %v16 = graph.relu %v15 : tensor<8x64x56x56xf32>
  %v17 = graph.weight "layer1.0.2.conv.weight" : tensor<256x64x1x1xf32>
  %v18 = graph.conv2d %v16, %v17 {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x56x56xf32>
  %v19 = graph.weight "layer1.0.2.bn.weight" : tensor<256xf32>
  %v20 = graph.weight "layer1.0.2.bn.bias" : tensor<256xf32>
  %v21 = graph.weight "layer1.0.2.bn.running_mean" : tensor<256xf32>
  %v22 = graph.weight "layer1.0.2.bn.running_var" : tensor<256xf32>
  %v23 = graph.batch_norm %v18, %v19, %v20, %v21, %v22 {epsilon = 1.0e-05 : f32} : (tensor<8x256x56x56xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256x56x56xf32>
  %v24 = graph.weight "layer1.0.downsample.conv.weight" : tensor<256x64x1x1xf32>
  %v25 = graph.conv2d %x, %v24 {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x56x56xf32>
  %v26 = graph.weight "layer1.0.downsample.bn.weight" : tensor<256xf32>
  %v27 = graph.weight "layer1.0.downsample.bn.bias" : tensor<256xf32>
  %v28 = graph.weight "layer1.0.downsample.bn.running_mean" : tensor<256xf32>
  %v29 = graph.weight "layer1.0.downsample.bn.running_var" : tensor<256xf32>
  %v30 = graph.batch_norm %v25, %v26, %v27, %v28, %v29 {epsilon = 1.0e-05 : f32} : (tensor<8x256x56x56xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256x56x56xf32>
  %v31 = graph.add %v23, %v30 : tensor<8x256x56x56xf32>, tensor<8x256x56x56xf32> -> tensor<8x256x56x56xf32>
  %v32 = graph.relu %v31 : tensor<8x256x56x56xf32>
  %v33 = graph.weight "layer1.1.0.conv.weight" : tensor<64x256x1x1xf32>
  %v34 = graph.conv2d %v32, %v33 {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x256x56x56xf32>, tensor<64x256x1x1xf32>) -> tensor<8x64x56x56xf32>
  %v35 = graph.weight "layer1.1.0.bn.weight" : tensor<64xf32>
  %v36 = graph.weight "layer1.1.0.bn.bias" : tensor<64xf32>
  %v37 = graph.weight "layer1.1.0.bn.running_mean" : tensor<64xf32>
  %v38 = graph.weight "layer1.1.0.bn.running_var" : tensor<64xf32>
  %v39 = graph.batch_norm %v34, %v35, %v36, %v37, %v38 {epsilon = 1.0e-05 : f32} : (tensor<8x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x56x56xf32>
  %v40 = graph.relu %v39 : tensor<8x64x56x56xf32>
  %v41 = graph.weight "layer1.1.1.conv.weight" : tensor<64x64x3x3xf32>
  %v42 = graph.conv2d %v40, %v41 {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %v43 = graph.weight "layer1.1.1.bn.weight" : tensor<64xf32>
  %v44 = graph.weight "layer1.1.1.bn.bias" : tensor<64xf32>
  %v45 = graph.weight "layer1.1.1.bn.running_mean" : tensor<64xf32>
  %v46 = graph.weight "layer1.1.1.bn.running_var" : tensor<64xf32>
  %v47 = graph.batch_norm %v42, %v43, %v44, %v45, %v46 {epsilon = 1.0e-05 : f32} : (tensor<8x64x56x56xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<8x64x56x56xf32>
  %v48 = graph.relu %v47 : tensor<8x64x56x56xf32>
  %v49 = graph.weight "layer1.1.2.conv.weight" : tensor<256x64x1x1xf32>
  %v50 = graph.conv2d %v48, %v49 {pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : (tensor<8x64x56x56xf32>, tensor<256x64x1x1xf32>) -> tensor<8x256x56x56xf32>
  %v51 = graph.weight "layer1.1.2.bn.weight" : tensor<256xf32>
  %v52 = graph.weight "layer1.1.2.bn.bias" : tensor<256xf32>
  %v53 = graph.weight "layer1.1.2.bn.running_mean" : tensor<256xf32>
  %v54 = graph.weight "layer1.1.2.bn.running_var" : tensor<256xf32>
  %v55 = graph.batch_norm %v50, %v51, %v52, %v53, %v54 {epsilon = 1.0e-05 : f32} : (tensor<8x256x56x56xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) -> tensor<8x256x56x56xf32>
  %v56 = graph.add %v55, %v32 : tensor<8x256x56x56xf32>, tensor<8x256x56x56xf32> -> tensor<8x256x56x56xf32>
  %v57 = graph.relu %v56 : tensor<8x256x56x56xf32>
  return %v57 : tensor<8x256x56x56xf32>
}
}
