// The tuner's options of the layer-wise lowering (BOLT §3.2): with `tuning-rank` every layer
// takes its candidate tiling of that rank by estimate, with `tuning-fusion-rank` every chain its
// fusion decision of that rank, and each kernel records how its layers' choices were made, the
// module the compiler and target the choices hold for.
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa | FileCheck %s --check-prefix=PLAIN
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-rank=0 | FileCheck %s --check-prefixes=CHECK,RANK0,FUSION
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-rank=1 | FileCheck %s --check-prefixes=CHECK,RANK1
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-rank=99 | FileCheck %s --check-prefixes=CHECK,RANK0
// RUN: turbine-opt %s --split-input-file --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-fusion-rank=1 | FileCheck %s --check-prefix=APART

// Tests that rank 0 is the estimate's pick (tiles of 16x16 with all of K), that rank 1 is the
// next candidate by estimate (K in two chunks), that a rank past the layer's candidates falls back to the estimate's pick,
// and that without a tuning option nothing is recorded.
// CHECK: module attributes {dsa.target = {{.*}}, dsa.tuning = {compiler = "turbine {{.*}}", figures = "{{[0-9a-f]+}}", format = "turbine-tuning-cache-1", pipeline = true, target = "mini"}}
// CHECK-LABEL: dsa.kernel @product_0_matmul
// CHECK-SAME: attributes {dsa.tuning = [{choice =
// RANK0-SAME: "([16, 16, 16], false)"
// RANK1-SAME: "([16, 16, 8], false)"
// CHECK-SAME: key = "product mnk=[64, 16, 16] batch=1 rank=2 spaces=[Ddr, Ddr, Ddr] epilogue=[Binary { kind: Add }(chain,[16]@Ddr)->chain] pipeline=true"
// CHECK-SAME: ranked = {{[1-9][0-9]*}}
// CHECK: dsa.matmul
// PLAIN-NOT: dsa.tuning
func.func @product(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %w = graph.weight "w" : tensor<16x16xf32>
  %b = graph.weight "b" : tensor<16xf32>
  %p = graph.matmul %x, %w : tensor<64x16xf32>, tensor<16x16xf32> -> tensor<64x16xf32>
  %o = graph.add %p, %b : tensor<64x16xf32>, tensor<16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}

// -----

// Tests that a chain's fusion is a decision of the tuner too: estimated faster fused, it is one
// kernel recording its tiling and the fusion decision; with `tuning-fusion-rank=1` it is two
// layers, each recording the decision (the tuner times them together).
// FUSION-LABEL: dsa.kernel @chain_0_matmul_chain
// FUSION-SAME: attributes {dsa.tuning = [{choice = "({{.*}})", {{.*}}key = "chain dims={{.*}}}, {choice = "Fused", {{.*}}key = "fusion chain dims={{.*}}, ranked = 2 : i64}]}
// APART-LABEL: dsa.kernel @chain_0_matmul
// APART-SAME: {choice = "Apart", {{.*}}key = "fusion chain dims=
// APART-LABEL: dsa.kernel @chain_1_matmul
// APART-SAME: {choice = "Apart", {{.*}}key = "fusion chain dims=
func.func @chain(%x: tensor<64x16xf32>) -> tensor<64x16xf32> {
  %w0 = graph.weight "w0" : tensor<16x32xf32>
  %w1 = graph.weight "w1" : tensor<32x16xf32>
  %h = graph.matmul %x, %w0 : tensor<64x16xf32>, tensor<16x32xf32> -> tensor<64x32xf32>
  %a = graph.relu %h : tensor<64x32xf32>
  %o = graph.matmul %a, %w1 : tensor<64x32xf32>, tensor<32x16xf32> -> tensor<64x16xf32>
  return %o : tensor<64x16xf32>
}
