// RUN: turbine-opt %s --dsa-set-target=target=mini --convert-graph-to-dsa --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s
// RUN: not turbine-opt %S/Inputs/named-layer-no-fit.mlir --dsa-set-target=target=mini --convert-graph-to-dsa 2>&1 | FileCheck %s --check-prefix=ERROR

// Tests that every op the lowering creates carries the location of the graph
// op it computes (for ONNX input, the node's name): the instructions of a
// kernel, its fused epilogue steps (the relu's own name), the launch, and the
// host function's parameters (the graph parameter, weight and return).
// CHECK-LABEL: dsa.kernel @block_0_conv2d
// CHECK-SAME: loc("/layer1/conv/Conv")
// CHECK: dsa.core_id : index loc("/layer1/conv/Conv")
// CHECK: scf.for
// CHECK: dsa.dma {{.*}} loc("/layer1/conv/Conv")
// CHECK: dsa.conv2d {{.*}} loc("/layer1/conv/Conv")
// CHECK: dsa.unary relu {{.*}} loc("/layer1/relu/Relu")
// CHECK: dsa.return loc("/layer1/conv/Conv")
// CHECK-LABEL: dsa.kernel @block_1_max_pool2d
// CHECK: dsa.pool max {{.*}} loc("/layer1/pool/MaxPool")
// CHECK-LABEL: func.func @block
// CHECK-SAME: {dsa.input = 0 : i64} loc("input")
// CHECK-SAME: {dsa.output = 0 : i64} loc("output")
// CHECK-SAME: {dsa.weight = "conv.weight"} loc("conv.weight")
// CHECK: dsa.alloc : {{.*}} loc("/layer1/conv/Conv")
// CHECK: dsa.launch @block_0_conv2d({{.*}} loc("/layer1/conv/Conv")
// CHECK: dsa.launch @block_1_max_pool2d({{.*}} loc("/layer1/pool/MaxPool")
// CHECK: return loc("output")
func.func @block(%x: tensor<1x8x8x8xf32> loc("input")) -> tensor<1x8x8x8xf32> {
  %w = graph.weight "conv.weight" : tensor<8x8x3x3xf32> loc("conv.weight")
  %c = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32> loc("/layer1/conv/Conv")
  %r = graph.relu %c : tensor<1x8x8x8xf32> loc("/layer1/relu/Relu")
  %p = graph.max_pool2d %r {kernel = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>} : tensor<1x8x8x8xf32> -> tensor<1x8x8x8xf32> loc("/layer1/pool/MaxPool")
  return %p : tensor<1x8x8x8xf32> loc("output")
}

// Tests that a lowering error names the model's layer (the input is a conv
// too wide for mini's LB, at the location an ONNX import gives it).
// ERROR: error: loc("/stem/Conv"): 'graph.conv2d' does not fit the local buffer of target 'mini'
