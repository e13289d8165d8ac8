// RUN: turbine-opt %s --split-input-file --verify-diagnostics --convert-graph-to-dsa
// RUN: turbine-opt %S/Inputs/no-fit.mlir --verify-diagnostics --dsa-set-target=target=mini --convert-graph-to-dsa
// RUN: not turbine-opt %s --convert-graph-to-dsa=schedule=greedy 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(convert-graph-to-dsa))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// RUN: not turbine-opt %s --convert-graph-to-dsa=control=maybe 2>&1 | FileCheck %s --check-prefix=CONTROL
// SCHEDULE: unknown schedule 'greedy' (available: layerwise)
// RUN: not turbine-opt %s --convert-graph-to-dsa=fuse-chains=sometimes 2>&1 | FileCheck %s --check-prefix=CHAINS
// CONTROL: unknown mode 'maybe' (available: device, host)
// CHAINS: option 'fuse-chains': unknown choice 'sometimes' (available: auto, always, never)
// RUN: not turbine-opt %s --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-cache=%S/Inputs/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not turbine-opt %s --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-cache=%S/Inputs/no-fit.mlir 2>&1 | FileCheck %s --check-prefix=FOREIGN
// RUN: not turbine-opt %s --dsa-set-target=target=mini --convert-graph-to-dsa=tuning-cache=%S/Inputs/stale-tuning-cache.json 2>&1 | FileCheck %s --check-prefix=STALE
// RUN: not turbine-opt %s --dsa-set-target=target=mini --convert-graph-to-dsa="tuning-cache=%S/Inputs/stale-tuning-cache.json tuning-rank=1" 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not turbine-opt %s --convert-graph-to-dsa=tuning-rank=-2 2>&1 | FileCheck %s --check-prefix=RANK
// Tests that a tuning cache that cannot be read, is not one, or was made by another compiler is
// refused, naming it; that a compile reads a cache or explores a rank, not both; and that a
// rank is 0 or more.
// MISSING: error: cannot read the tuning cache {{.*}}missing.json: No such file or directory
// FOREIGN: error: '{{.*}}no-fit.mlir' is not a tuning cache
// STALE: error: tuning cache '{{.*}}stale-tuning-cache.json' was made by turbine 0.0.1 (000000000000), not by this compiler (turbine {{.*}}): tune again with turbine-run --tune --tuning-cache
// BOTH: error: options 'tuning-cache' and 'tuning-rank' exclude each other
// RANK: option 'tuning-rank': a rank is 0 or more (or -1 for none)
// Tests that the lowering runs on the module only (it adds kernels beside the functions).
// ANCHOR: error: Can't add pass 'convert-graph-to-dsa' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?

// Tests that the lowering needs the target: tile sizes depend on its LB.
// expected-error@+1 {{convert-graph-to-dsa needs the module's dsa.target; run dsa-set-target first}}
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = graph.relu %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}

// -----

// Tests that an op without a lowering is named at its location (a resize by a fractional scale,
// which graph-decompose-resize rewrites before this pass in the pipelines).
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x6xf32> {
    // expected-error@+1 {{'graph.resize' is not supported by the software DSA lowering yet}}
    %y = graph.resize %x {scales = array<f32: 1.0, 1.0, 1.0, 1.5>, mode = #graph<resize_mode linear>} : tensor<1x8x4x4xf32> -> tensor<1x8x4x6xf32>
    return %y : tensor<1x8x4x6xf32>
  }
}

// -----

// Tests that a pad of integers is refused: its fill value is a float, and the software DSA
// pads in f32.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<4xi32>) -> tensor<6xi32> {
    // expected-error@+1 {{operand #0 of 'graph.pad' has element type I32, which is not supported here: the software DSA computes this on floats only (f32, f16, bf16; integer and boolean tensors are moved, gathered, cast, compared and selected, i64 and i32 also added, multiplied, divided and taken modulo)}}
    %y = graph.pad %x {pads = array<i64: 1, 1>, value = 0.0 : f32} : tensor<4xi32> -> tensor<6xi32>
    return %y : tensor<6xi32>
  }
}



// -----

// Tests that control flow must be outlined first: the lowering calls each region's body.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
    // expected-error@+1 {{the regions of 'graph.if' must each be a call and a yield of its results: run graph-outline-control-flow first}}
    %y = graph.if %c -> (tensor<4xf32>) {
      graph.yield %x : tensor<4xf32>
    } else {
      graph.yield %x : tensor<4xf32>
    }
    return %y : tensor<4xf32>
  }
}

// -----

// Tests that a softmax whose rows (the axis and everything after it) do not fit
// the local buffer is refused naming the op.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<2x64x128xf32>) -> tensor<2x64x128xf32> {
    // expected-error@+1 {{'graph.softmax' does not fit the local buffer of target 'mini' (16384 bytes): its rows of 8192 elements would have to be split, which is not supported}}
    %y = graph.softmax %x {axis = 1 : i64} : tensor<2x64x128xf32>
    return %y : tensor<2x64x128xf32>
  }
}

// -----

// Tests that a reduction whose reduced and kept axes alternate more often than a
// 4-dimensional view holds is refused naming the op and the pass that splits it (the
// pipelines run graph-split-reductions first).
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<2x3x2x3x2x3xf32>) -> tensor<2x1x2x1x2x1xf32> {
    // expected-error@+1 {{'graph.reduce_sum' over axes [1, 3, 5] needs a 6-dimensional view (DMA views have at most 4): run graph-split-reductions first}}
    %y = graph.reduce_sum %x {axes = array<i64: 1, 3, 5>, keepdims = true} : tensor<2x3x2x3x2x3xf32> -> tensor<2x1x2x1x2x1xf32>
    return %y : tensor<2x1x2x1x2x1xf32>
  }
}

// -----

// Tests that a rank-6 copy whose views share no run of dimensions (a slice taking
// every other element of each) is refused naming the op when cutting it into rank-4
// copies would take more than 64 of them (10 x 10 here).
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<20x20x4x4x4x4xf32>) -> tensor<10x10x2x2x2x2xf32> {
    // expected-error@+1 {{'graph.slice': a copy of rank 6 (after merging dimensions) would be 100 copies of rank 4; more than 64 are not supported}}
    %y = graph.slice %x {starts = array<i64: 0, 0, 0, 0, 0, 0>, steps = array<i64: 2, 2, 2, 2, 2, 2>} : tensor<20x20x4x4x4x4xf32> -> tensor<10x10x2x2x2x2xf32>
    return %y : tensor<10x10x2x2x2x2xf32>
  }
}

// -----

// Tests that padding other than zeros is refused.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x6x6xf32> {
    // expected-error@+1 {{padding other than with zeros is not supported}}
    %y = graph.pad %x {pads = array<i64: 0, 0, 1, 1, 0, 0, 1, 1>, mode = #graph<pad_mode reflect>} : tensor<1x1x4x4xf32> -> tensor<1x1x6x6xf32>
    return %y : tensor<1x1x6x6xf32>
  }
}

// -----

// Tests that a model whose buffers do not fit the target's DDR is refused at
// compile time: here the input alone is 16 MiB + 4 bytes and the 16 MiB DDR
// of `mini` cannot also hold the output.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  // expected-error@+1 {{the model's inputs, outputs and weights need 33554440 bytes of DDR but target 'mini' has 16777216}}
  func.func @f(%x: tensor<4194305xf32>) -> tensor<4194305xf32> {
    %y = graph.relu %x : tensor<4194305xf32>
    return %y : tensor<4194305xf32>
  }
}

// -----

// Tests that an intermediate buffer that would overflow DDR is named at the op
// that needs it: 8 MiB of input, 8 MiB for the relu, 4 bytes of output.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @f(%x: tensor<2048x1024xf32>) -> tensor<1x1xf32> {
    // expected-error@+1 {{'graph.relu' needs a DDR buffer of 8388608 bytes, beyond the 16777216 bytes of target 'mini' (16777220 bytes are live at this point)}}
    %y = graph.relu %x : tensor<2048x1024xf32>
    %s = graph.reduce_sum %y {axes = array<i64>} : tensor<2048x1024xf32> -> tensor<1x1xf32>
    return %s : tensor<1x1xf32>
  }
}

// -----

// A convolution whose only output row reads padding alone (random-onnx.py seed 4287): the error
// says what is not supported instead of claiming that a 24-byte tile does not fit the LB.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
func.func @padding_only_row(%x: tensor<4x4x1x2xf32>, %w: tensor<8x4x1x2xf32>) -> tensor<4x8x1x2xf32> {
  // expected-error@+1 {{a 'graph.conv2d' whose output rows cannot be tiled without a tile reading only padding (its value would be the bias alone) is not supported}}
  %c = graph.conv2d %x, %w {pads = array<i64: 2, 2, 0, 2>, strides = array<i64: 3, 3>} : (tensor<4x4x1x2xf32>, tensor<8x4x1x2xf32>) -> tensor<4x8x1x2xf32>
  return %c : tensor<4x8x1x2xf32>
}
}
