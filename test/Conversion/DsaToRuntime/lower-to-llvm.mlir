// RUN: turbine-opt %s --turbine-dsa-to-llvm > %t.mlir
// RUN: FileCheck %s < %t.mlir
// RUN: mlir-translate --allow-unregistered-dialect --mlir-to-llvmir %t.mlir | FileCheck %s --check-prefix=IR

// Tests that the registered pipeline the backend runs (turbine-dsa-to-llvm) takes a dsa
// module to the LLVM dialect alone, with no cast or memref left, and that upstream
// mlir-translate turns the result into LLVM IR (--allow-unregistered-dialect: the module keeps
// its dsa.target attribute). Loops over cores and tiles stay loops.
// CHECK-NOT: builtin.unrealized_conversion_cast
// CHECK-NOT: memref.
// CHECK-LABEL: llvm.func @scale_rows(%{{.*}}: i64, %{{.*}}: !llvm.ptr) -> i32
// IR-LABEL: define i32 @scale_rows(i64 %0, ptr %1)
// IR: call i32 @td_device_take_error(i64 %0)
// IR: declare i32 @td_binary(i64, i32, i32, i32, ptr, ptr, ptr, ptr, i64, ptr)
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @scale(%x: memref<4x64xf32, #dsa.memory_space<ddr>>) {
    %row = dsa.core_id : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c16 = arith.constant 16 : index
    %tile = dsa.alloc : memref<16xf32, #dsa.memory_space<lb>>
    scf.for %col = %c0 to %c64 step %c16 {
      %v = memref.subview %x[%row, %col] [1, 16] [1, 1] : memref<4x64xf32, #dsa.memory_space<ddr>> to memref<16xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>
      %t0 = dsa.dma %v to %tile : memref<16xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>, memref<16xf32, #dsa.memory_space<lb>>
      %t1 = dsa.binary add %tile, %tile into %tile after %t0 : memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, #dsa.memory_space<lb>>
      %t2 = dsa.dma %tile to %v after %t1 : memref<16xf32, #dsa.memory_space<lb>>, memref<16xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>
      dsa.wait %t2
    }
    dsa.dealloc %tile : memref<16xf32, #dsa.memory_space<lb>>
    dsa.return
  }
  func.func @scale_rows(%x: memref<4x64xf32, #dsa.memory_space<ddr>>) {
    dsa.launch @scale(%x) on [0, 1, 2, 3] : memref<4x64xf32, #dsa.memory_space<ddr>>
    return
  }
}
