// RUN: turbine-opt %s --split-input-file --verify-diagnostics --convert-dsa-to-runtime
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(convert-dsa-to-runtime))' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// Tests that the lowering runs on the module only (it declares the runtime's functions there).
// ANCHOR: error: Can't add pass 'convert-dsa-to-runtime' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?

// Tests that the pass needs the target (its core numbering) on the module.
// expected-error@+1 {{convert-dsa-to-runtime needs the module's dsa.target; run dsa-set-target first}}
module {
  func.func @f() {
    return
  }
}

// -----

// Tests that a view of rank 5 is rejected: a td_view has at most 4 dimensions.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @k(%x: memref<1x1x2x2x2xf32, #dsa.memory_space<ddr>>, %y: memref<1x1x2x2x2xf32, #dsa.memory_space<lb>>) {
    // expected-error@+1 {{a runtime view has rank 1 to 4, got memref<1x1x2x2x2xf32, #dsa.memory_space<ddr>>}}
    %t = dsa.dma %x to %y : memref<1x1x2x2x2xf32, #dsa.memory_space<ddr>>, memref<1x1x2x2x2xf32, #dsa.memory_space<lb>>
    dsa.return
  }
}

// -----

// Tests that a buffer of an element type the runtime does not hold is rejected at its allocation.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @k() {
    // expected-error@+1 {{the runtime's buffers hold f32, f16, bf16, i64, i32, i8, ui8 or i1 elements, got memref<64xf64, #dsa.memory_space<lb>>}}
    %b = dsa.alloc : memref<64xf64, #dsa.memory_space<lb>>
    dsa.return
  }
}

// -----

// Tests that a scalar (rank 0) view is rejected.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @k(%x: memref<f32, #dsa.memory_space<ddr>>, %y: memref<f32, #dsa.memory_space<lb>>) {
    // expected-error@+1 {{a runtime view has rank 1 to 4, got memref<f32, #dsa.memory_space<ddr>>}}
    %t = dsa.dma %x to %y : memref<f32, #dsa.memory_space<ddr>>, memref<f32, #dsa.memory_space<lb>>
    dsa.return
  }
}

// -----

// Tests that an instruction outside a kernel has no core to be recorded on.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @host(%x: memref<16xf32, #dsa.memory_space<ddr>>, %y: memref<16xf32, #dsa.memory_space<ddr>>) {
    // expected-error@+1 {{'dsa.dma' outside a dsa.kernel has no core to record it on}}
    %t = dsa.dma %x to %y : memref<16xf32, #dsa.memory_space<ddr>>, memref<16xf32, #dsa.memory_space<ddr>>
    return
  }
}
