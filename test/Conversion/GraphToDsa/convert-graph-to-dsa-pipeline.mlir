// Software pipelining of the conv and matmul lowerings (GraphTurbo §4.4 within a layer), on
// stcp920 with a DDR port four times as wide as its GB bus (Inputs/fast-ddr.toml). The
// layer-wise schedule reads everything from DDR, whose port bounds these layers on stcp920
// itself, so that the estimates pick the tilings that move the fewest bytes in the fewest
// instructions there; with the port out of the way latency decides, as it does in GraphTurbo's
// kernels. A conv tile loop that keeps its filter in LB loads the next tile's input while the
// current tile computes, and a tile whose input channels (or K) come in chunks loads the next
// chunk while the current one computes; `pipeline=false` (the ablation) gives the serial loops.
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=%S/Inputs/fast-ddr.toml --convert-graph-to-dsa | FileCheck %s
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=%S/Inputs/fast-ddr.toml --convert-graph-to-dsa=pipeline=false | FileCheck %s --check-prefix=SERIAL

// Tests the tile pipeline on a 1x1 convolution whose filter stays in LB: two input buffers picked
// by the tile's parity; the core's first tile loads its own input (fenced); each tile's conv
// reads the current half and its store follows; then, when the core has a next tile, its input
// goes into the other half and the tile ends waiting for the store and that load, else for the
// store alone.
// CHECK-LABEL: dsa.kernel @tile_pipeline_0_conv2d
// CHECK:         %[[HALF0:.*]] = dsa.alloc : memref<1x64x1x56xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    dsa.alloc : memref<64x64x1x1xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[ACC:.*]] = dsa.alloc : memref<1x64x1x56xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[HALF1:.*]] = dsa.alloc : memref<1x64x1x56xf32, #dsa.memory_space<lb>>
// CHECK:         scf.for %[[TILE:.*]] = %[[LOW:.*]] to %[[HIGH:.*]] step
// CHECK:           %[[EVEN:.*]] = arith.cmpi eq
// CHECK-NEXT:      %[[CURRENT:.*]] = arith.select %[[EVEN]], %[[HALF0]], %[[HALF1]]
// CHECK-NEXT:      %[[NEXT:.*]] = arith.select %[[EVEN]], %[[HALF1]], %[[HALF0]]
// CHECK:           %[[HAS_NEXT:.*]] = arith.cmpi ult, %{{.*}}, %[[HIGH]] : index
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[TILE]], %[[LOW]] : index
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             memref.subview %[[CURRENT]]
// CHECK-NEXT:        %[[OWN:.*]] = dsa.dma
// CHECK-NEXT:        dsa.wait %[[OWN]]
// CHECK:           %[[INPUT:.*]] = memref.subview %[[CURRENT]]
// CHECK-NEXT:      %[[CONV:.*]] = dsa.conv2d %[[INPUT]], %{{.*}} into %[[ACC]] :
// CHECK:           %[[STORE:.*]] = dsa.dma %[[ACC]] to %{{.*}} after %[[CONV]]
// CHECK-NEXT:      scf.if %[[HAS_NEXT]] {
// CHECK:             memref.subview %[[NEXT]]
// CHECK-NEXT:        %[[LOAD:.*]] = dsa.dma
// CHECK-NEXT:        dsa.wait %[[STORE]], %[[LOAD]]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        dsa.wait %[[STORE]]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-LABEL: func.func @tile_pipeline
// SERIAL-LABEL: dsa.kernel @tile_pipeline_0_conv2d
// SERIAL-NOT:    arith.select
// SERIAL:        %[[CONV:.*]] = dsa.conv2d
// SERIAL:        dsa.wait %[[CONV]]
// SERIAL:        %[[STORE:.*]] = dsa.dma
// SERIAL-NEXT:   dsa.wait %[[STORE]]
// SERIAL-LABEL: func.func @tile_pipeline
func.func @tile_pipeline(%x: tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32> {
  %w = graph.weight "w" : tensor<64x64x1x1xf32>
  %c = graph.conv2d %x, %w {pads = array<i64: 0, 0, 0, 0>} : (tensor<8x64x56x56xf32>, tensor<64x64x1x1xf32>) -> tensor<8x64x56x56xf32>
  return %c : tensor<8x64x56x56xf32>
}

// -----

// Tests the chunk pipeline on a 3x3 convolution whose 64 input channels do not fit the LB at
// once: chunk 0 overwrites the accumulator, chunk 1 loads into the second input and filter
// buffers after it is issued, and the loop over the other chunks accumulates from the half the
// chunk's parity picks while the next chunk loads, if there is one.
// CHECK-LABEL: dsa.kernel @chunk_pipeline_0_conv2d
// CHECK:         scf.for
// CHECK:           %[[IN0:.*]] = dsa.dma
// CHECK:           %[[FILTER0:.*]] = dsa.dma
// CHECK:           %[[FIRST:.*]] = dsa.conv2d %{{.*}}, %{{.*}} into %[[ACC:[a-z0-9_]+]] after %[[IN0]], %[[FILTER0]] {
// CHECK:           %[[IN1:.*]] = dsa.dma
// CHECK:           %[[FILTER1:.*]] = dsa.dma
// CHECK-NEXT:      dsa.wait %[[IN1]], %[[FILTER1]], %[[FIRST]]
// CHECK:           scf.for %[[CHUNK:.*]] = %{{.*}} to %[[CHUNKS:.*]] step
// CHECK:             %[[INPUT:.*]] = arith.select
// CHECK-NEXT:        %[[FILTER:.*]] = arith.select
// CHECK:             %[[CONV:.*]] = dsa.conv2d %{{.*}}, %[[FILTER]] into %[[ACC]] accumulate {
// CHECK:             %[[MORE:.*]] = arith.cmpi ult, %{{.*}}, %[[CHUNKS]]
// CHECK-NEXT:        scf.if %[[MORE]] {
// CHECK:               %[[IN:.*]] = dsa.dma
// CHECK:               %[[NEXT:.*]] = dsa.dma
// CHECK-NEXT:          dsa.wait %[[IN]], %[[NEXT]], %[[CONV]]
// CHECK-NEXT:        } else {
// CHECK-NEXT:          dsa.wait %[[CONV]]
// CHECK-LABEL: func.func @chunk_pipeline
// SERIAL-LABEL: dsa.kernel @chunk_pipeline_0_conv2d
// SERIAL-NOT:    accumulate
// SERIAL:        %[[FIRST:.*]] = dsa.conv2d
// SERIAL-NEXT:   dsa.wait %[[FIRST]]
// SERIAL:        %[[NEXT:.*]] = dsa.conv2d {{.*}} accumulate
// SERIAL-NEXT:   dsa.wait %[[NEXT]]
// SERIAL-LABEL: func.func @chunk_pipeline
func.func @chunk_pipeline(%x: tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32> {
  %w = graph.weight "w" : tensor<64x64x3x3xf32>
  %c = graph.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>) -> tensor<8x64x56x56xf32>
  %r = graph.relu %c : tensor<8x64x56x56xf32>
  return %r : tensor<8x64x56x56xf32>
}

// -----

// Tests the chunk pipeline of a matrix product whose K of 4096 comes in chunks of 128: the two
// halves of the lhs and rhs buffers alternate, the first chunk overwrites the accumulator and the
// others accumulate while the next chunk loads.
// CHECK-LABEL: dsa.kernel @matmul_pipeline_0_matmul
// CHECK:         %[[LHS0:.*]] = dsa.alloc : memref<32x128xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[RHS0:.*]] = dsa.alloc : memref<128x16xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[ACC:.*]] = dsa.alloc : memref<32x16xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[LHS1:.*]] = dsa.alloc : memref<32x128xf32, #dsa.memory_space<lb>>
// CHECK-NEXT:    %[[RHS1:.*]] = dsa.alloc : memref<128x16xf32, #dsa.memory_space<lb>>
// CHECK:         %[[FIRST:.*]] = dsa.matmul %[[LHS0]], %[[RHS0]] into %[[ACC]] after
// CHECK:         dsa.dma %{{.*}} to %[[LHS1]]
// CHECK:         dsa.dma %{{.*}} to %[[RHS1]]
// CHECK-NEXT:    dsa.wait %{{.*}}, %{{.*}}, %[[FIRST]]
// CHECK:         scf.for
// CHECK:           %[[LHS:.*]] = arith.select %{{.*}}, %[[LHS0]], %[[LHS1]]
// CHECK-NEXT:      %[[RHS:.*]] = arith.select %{{.*}}, %[[RHS0]], %[[RHS1]]
// CHECK-NEXT:      %[[LHS_NEXT:.*]] = arith.select %{{.*}}, %[[LHS1]], %[[LHS0]]
// CHECK-NEXT:      %[[RHS_NEXT:.*]] = arith.select %{{.*}}, %[[RHS1]], %[[RHS0]]
// CHECK-NEXT:      %[[PRODUCT:.*]] = dsa.matmul %[[LHS]], %[[RHS]] into %[[ACC]] accumulate :
// CHECK:           scf.if
// CHECK:             dsa.dma %{{.*}} to %[[LHS_NEXT]]
// CHECK:             dsa.dma %{{.*}} to %[[RHS_NEXT]]
// CHECK-NEXT:        dsa.wait %{{.*}}, %{{.*}}, %[[PRODUCT]]
// CHECK-LABEL: func.func @matmul_pipeline
// SERIAL-LABEL: dsa.kernel @matmul_pipeline_0_matmul
// SERIAL-NOT:    arith.select
// SERIAL-LABEL: func.func @matmul_pipeline
func.func @matmul_pipeline(%a: tensor<128x4096xf32>, %b: tensor<4096x128xf32>) -> tensor<128x128xf32> {
  %c = graph.matmul %a, %b : tensor<128x4096xf32>, tensor<4096x128xf32> -> tensor<128x128xf32>
  return %c : tensor<128x128xf32>
}
