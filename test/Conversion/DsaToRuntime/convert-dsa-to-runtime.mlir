// RUN: turbine-opt %s --split-input-file --convert-dsa-to-runtime | FileCheck %s

// Tests that a kernel becomes a private host function taking the device, its core and its
// position in the launch; that core_id and cluster_id read them; that an LB tile is allocated on
// the kernel's own core and released (deferred to the launch's end) by dealloc; that each
// instruction is one td_* call on the kernel's core with views whose offset is summed from the
// subview (which is then erased) and whose handle is the viewed buffer's, waits passed as an array; and that the entry function gets the C ABI i32(i64, ptr),
// calls its renamed body and returns the device's first error.
// CHECK-LABEL: func.func private @relu
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32, %[[ID:.*]]: index, %[[X:.*]]: memref<4x64xf32>, %[[Y:.*]]: memref<4x64xf32>)
// CHECK: %[[SCRATCH:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[CLUSTER:.*]] = arith.index_cast %[[CL]] : i32 to index
// CHECK: call @td_buffer_alloc(%[[DEV]], %{{.*}}, %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, i64, i32, !llvm.ptr) -> i32
// CHECK: %[[TILE:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<1x64xf32>
// CHECK-NOT: memref.subview
// CHECK: %[[ROW:.*]] = arith.muli %[[ID]], %{{.*}} : index
// CHECK: %[[OFFSET:.*]] = arith.addi %[[ROW]], %[[CLUSTER]] : index
// CHECK: %[[HANDLE:.*]] = memref.extract_aligned_pointer_as_index %[[X]] : memref<4x64xf32> -> index
// CHECK: %[[HANDLE64:.*]] = arith.index_cast %[[HANDLE]] : index to i64
// CHECK: llvm.store %[[HANDLE64]], %{{.*}} : i64, !llvm.ptr
// CHECK: %[[OFFSET64:.*]] = arith.index_cast %[[OFFSET]] : index to i64
// CHECK: llvm.store %[[OFFSET64]], %{{.*}} : i64, !llvm.ptr
// CHECK: %[[RANK:.*]] = arith.constant 2 : i64
// CHECK: llvm.store %[[RANK]], %{{.*}} : i64, !llvm.ptr
// CHECK: %[[T0:.*]] = call @td_dma(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[TOKEN:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: llvm.store %[[TOKEN]], %{{.*}} : i64, !llvm.ptr
// CHECK: call @td_unary(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, f32, f32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK: call @td_dma(
// CHECK: call @td_wait(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK: call @td_buffer_release(%[[DEV]], %{{.*}}) : (i64, i64) -> i32
// CHECK: return
// CHECK-LABEL: func.func @relu_4x64
// CHECK-SAME: (%[[D:.*]]: i64, %[[BUFFERS:.*]]: !llvm.ptr) -> i32
// CHECK-SAME: dsa.arguments = [{attributes = {dsa.input = 0 : i64}, type = memref<4x64xf32>}, {attributes = {dsa.output = 0 : i64}, type = memref<4x64xf32>}]
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i64
// CHECK: call @relu_4x64.impl(%[[D]], %{{.*}}, %{{.*}}) : (i64, memref<4x64xf32>, memref<4x64xf32>) -> ()
// CHECK: %[[STATUS:.*]] = call @td_device_take_error(%[[D]]) : (i64) -> i32
// CHECK: return %[[STATUS]] : i32
// CHECK-LABEL: func.func private @relu_4x64.impl
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[X:.*]]: memref<4x64xf32> {dsa.input = 0 : i64}, %[[Y:.*]]: memref<4x64xf32> {dsa.output = 0 : i64})
// CHECK: %[[NAME:.*]] = llvm.mlir.addressof @relu.name : !llvm.ptr
// CHECK: %[[CORES:.*]] = llvm.mlir.addressof @relu.cores.0 : !llvm.ptr
// CHECK: call @td_launch_begin(%[[DEV]], %[[NAME]], %[[CORES]], %{{.*}}) : (i64, !llvm.ptr, !llvm.ptr, i64) -> i32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: func.call @relu(%[[DEV]], %{{.*}}, %{{.*}}, %[[J]], %[[X]], %[[Y]])
// CHECK: call @td_launch_end(%[[DEV]], %{{.*}}) : (i64, !llvm.ptr) -> i32
// CHECK: func.func private @td_device_take_error(i64) -> i32
// CHECK: llvm.mlir.global internal constant @relu.name("relu\00")
// Cores 0..3 of 2 clusters x 2 cores as td_core {cluster, core} words: core << 32 | cluster.
// CHECK: llvm.mlir.global internal constant @relu.cores.0(dense<[0, 4294967296, 1, 4294967297]> : tensor<4xi64>)
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @relu(%x: memref<4x64xf32, #dsa.memory_space<ddr>>, %y: memref<4x64xf32, #dsa.memory_space<ddr>>) {
    %row = dsa.core_id : index
    %cluster = dsa.cluster_id : index
    %tile = dsa.alloc : memref<1x64xf32, #dsa.memory_space<lb>>
    %in = memref.subview %x[%row, %cluster] [1, 64] [1, 1] : memref<4x64xf32, #dsa.memory_space<ddr>> to memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    %t0 = dsa.dma %in to %tile : memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x64xf32, #dsa.memory_space<lb>>
    %t1 = dsa.unary relu %tile into %tile after %t0 : memref<1x64xf32, #dsa.memory_space<lb>>, memref<1x64xf32, #dsa.memory_space<lb>>
    %t2 = dsa.dma %tile to %in after %t1 : memref<1x64xf32, #dsa.memory_space<lb>>, memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    dsa.wait %t2
    dsa.dealloc %tile : memref<1x64xf32, #dsa.memory_space<lb>>
    dsa.return
  }
  func.func @relu_4x64(%x: memref<4x64xf32, #dsa.memory_space<ddr>> {dsa.input = 0}, %y: memref<4x64xf32, #dsa.memory_space<ddr>> {dsa.output = 0}) {
    dsa.launch @relu(%x, %y) on [0, 1, 2, 3] : memref<4x64xf32, #dsa.memory_space<ddr>>, memref<4x64xf32, #dsa.memory_space<ddr>>
    return
  }
}

// -----

// Tests that tokens carried through scf.for iteration arguments become i64, that the scratch is
// allocated once in the entry block (not in the loop), and the calls of the other instructions:
// matmul with accumulate, conv2d and pool2d with their parameter structs stored into the
// scratch, binary, clip (min and max as p0, p1), copy (affine 1, 0), reduce with a negative
// axis made positive, and barrier.
// CHECK-LABEL: func.func private @instructions
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32, %{{.*}}: index,
// CHECK-NEXT: %[[WORDS:.*]] = arith.constant 55 : i64
// CHECK-NEXT: %[[SCRATCH:.*]] = llvm.alloca %[[WORDS]] x i64
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[T:.*]] = %{{.*}}) -> (i64) {
// CHECK-NOT: llvm.alloca
// CHECK: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK: call @td_matmul(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %[[ACC]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[NEXT:.*]] = llvm.load
// CHECK: scf.yield %[[NEXT]] : i64
// CHECK: call @td_conv2d(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[SUB:.*]] = arith.constant 1 : i32
// CHECK: call @td_binary(%[[DEV]], %[[CL]], %[[CO]], %[[SUB]],
// CHECK: %[[CLIP:.*]] = arith.constant 12 : i32
// CHECK: %[[MIN:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[MAX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK: call @td_unary(%[[DEV]], %[[CL]], %[[CO]], %[[CLIP]], %[[MIN]], %[[MAX]],
// CHECK: %[[AFFINE:.*]] = arith.constant 13 : i32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: call @td_unary(%[[DEV]], %[[CL]], %[[CO]], %[[AFFINE]], %[[ONE]], %[[ZERO]],
// CHECK: %[[AVG_NO_PAD:.*]] = arith.constant 1 : i64
// CHECK: call @td_pool2d(
// CHECK: %[[MEAN:.*]] = arith.constant 1 : i32
// CHECK: %[[AXIS:.*]] = arith.constant 3 : i32
// CHECK: call @td_reduce(%[[DEV]], %[[CL]], %[[CO]], %[[MEAN]], %[[AXIS]],
// CHECK: call @td_barrier(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}) : (i64, i32, i32, !llvm.ptr) -> i32
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @instructions(%a: memref<4x8xf32, #dsa.memory_space<lb>>, %b: memref<8x4xf32, #dsa.memory_space<lb>>, %c: memref<4x4xf32, #dsa.memory_space<lb>>,
                           %x: memref<1x2x6x6xf32, #dsa.memory_space<lb>>, %w: memref<3x2x3x3xf32, #dsa.memory_space<lb>>, %y: memref<1x3x6x6xf32, #dsa.memory_space<lb>>,
                           %p: memref<1x3x3x3xf32, #dsa.memory_space<lb>>, %r: memref<1x3x3x1xf32, #dsa.memory_space<lb>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %t0 = dsa.matmul %a, %b into %c : memref<4x8xf32, #dsa.memory_space<lb>>, memref<8x4xf32, #dsa.memory_space<lb>>, memref<4x4xf32, #dsa.memory_space<lb>>
    %last = scf.for %k = %c0 to %c4 step %c1 iter_args(%t = %t0) -> (!dsa.token) {
      %n = dsa.matmul %a, %b into %c accumulate after %t : memref<4x8xf32, #dsa.memory_space<lb>>, memref<8x4xf32, #dsa.memory_space<lb>>, memref<4x4xf32, #dsa.memory_space<lb>>
      scf.yield %n : !dsa.token
    }
    %t1 = dsa.conv2d %x, %w into %y after %last {pads = array<i64: 1, 1, 1, 1>} : memref<1x2x6x6xf32, #dsa.memory_space<lb>>, memref<3x2x3x3xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t2 = dsa.binary sub %y, %y into %y after %t1 : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t3 = dsa.unary clip %y into %y after %t2 {min = 0.0 : f32, max = 6.0 : f32} : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t4 = dsa.unary copy %y into %y after %t3 : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t5 = dsa.pool avg %y into %p after %t4 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x3x3xf32, #dsa.memory_space<lb>>
    %t6 = dsa.reduce mean %p into %r after %t5 {axis = -1 : i64} : memref<1x3x3x3xf32, #dsa.memory_space<lb>>, memref<1x3x3x1xf32, #dsa.memory_space<lb>>
    dsa.wait %t6
    dsa.barrier
    dsa.return
  }
}

// -----

// Tests the typed buffers of an embedding lookup: an LB buffer of i64 ids allocated with its
// element type (TD_DTYPE_I64 = 1, 8 bytes each) and of booleans (TD_DTYPE_BOOL = 5, one byte
// each), the gather's axis (an i32) passed before its views, and a conversion between element
// types.
// CHECK-LABEL: func.func private @lookup
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32,
// CHECK: %[[BYTES:.*]] = arith.constant 64 : i64
// CHECK-NEXT: %[[I64:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @td_buffer_alloc(%[[DEV]], %{{.*}}, %[[CL]], %[[CO]], %[[BYTES]], %[[I64]], %{{.*}})
// CHECK: builtin.unrealized_conversion_cast {{.*}} to memref<8xi64>
// CHECK: %[[FLAGS:.*]] = arith.constant 8 : i64
// CHECK-NEXT: %[[BOOL:.*]] = arith.constant 5 : i32
// CHECK-NEXT: call @td_buffer_alloc(%[[DEV]], %{{.*}}, %[[CL]], %[[CO]], %[[FLAGS]], %[[BOOL]], %{{.*}})
// CHECK: call @td_gather(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK: call @td_convert(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @lookup(%table: memref<16x4xf32, #dsa.memory_space<ddr>>, %ids: memref<8xi64, #dsa.memory_space<ddr>>, %rows: memref<8x4xf32, #dsa.memory_space<ddr>>) {
    %local = dsa.alloc : memref<8xi64, #dsa.memory_space<lb>>
    %flags = dsa.alloc : memref<8xi1, #dsa.memory_space<lb>>
    %t0 = dsa.dma %ids to %local : memref<8xi64, #dsa.memory_space<ddr>>, memref<8xi64, #dsa.memory_space<lb>>
    %t1 = dsa.gather %table[%local] to %rows after %t0 {axis = 0 : i64} : memref<16x4xf32, #dsa.memory_space<ddr>>, memref<8xi64, #dsa.memory_space<lb>>, memref<8x4xf32, #dsa.memory_space<ddr>>
    %t2 = dsa.convert %local into %flags after %t0 : memref<8xi64, #dsa.memory_space<lb>>, memref<8xi1, #dsa.memory_space<lb>>
    dsa.wait %t1, %t2
    dsa.dealloc %flags : memref<8xi1, #dsa.memory_space<lb>>
    dsa.dealloc %local : memref<8xi64, #dsa.memory_space<lb>>
    dsa.return
  }
}

// -----

// Tests a comparison (TD_COMPARE_GE = 5 before its views) and a selection by its booleans, whose
// four views fill the scratch's four view slots.
// CHECK-LABEL: func.func private @mask
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32,
// CHECK: %[[GE:.*]] = arith.constant 5 : i32
// CHECK-NEXT: call @td_compare(%[[DEV]], %[[CL]], %[[CO]], %[[GE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK: llvm.getelementptr %{{.*}}[33]
// CHECK: %[[VIEW3:.*]] = llvm.getelementptr %{{.*}}[33]
// CHECK-NEXT: call @td_select(%[[DEV]], %[[CL]], %[[CO]], %{{.*}}, %{{.*}}, %{{.*}}, %[[VIEW3]], %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @mask(%q: memref<8xi64, #dsa.memory_space<lb>>, %k: memref<8xi64, #dsa.memory_space<lb>>, %m: memref<8xi1, #dsa.memory_space<lb>>, %s: memref<8xf32, #dsa.memory_space<lb>>, %f: memref<8xf32, #dsa.memory_space<lb>>) {
    %t0 = dsa.compare ge %q, %k into %m : memref<8xi64, #dsa.memory_space<lb>>, memref<8xi64, #dsa.memory_space<lb>>, memref<8xi1, #dsa.memory_space<lb>>
    %t1 = dsa.select %m, %s, %f into %s after %t0 : memref<8xi1, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>, memref<8xf32, #dsa.memory_space<lb>>
    dsa.wait %t1
    dsa.return
  }
}

// -----

// Tests a gather of elements: its axis (an i32) before its three views; an arg reduction:
// largest 0 (argmin), last 1, its axis made non-negative; and a scatter of elements: its axis and
// its reduction (1 + TD_BINARY_MUL) before its views, the indices' first.
// CHECK-LABEL: func.func private @labels
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32,
// CHECK: %[[AXIS:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @td_gather_elements(%[[DEV]], %[[CL]], %[[CO]], %[[AXIS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK-LABEL: func.func private @classes
// CHECK-SAME: (%[[DEV2:.*]]: i64, %[[CL2:.*]]: i32, %[[CO2:.*]]: i32,
// CHECK: %[[MIN:.*]] = arith.constant 0 : i32
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[LINE:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @td_arg_reduce(%[[DEV2]], %[[CL2]], %[[CO2]], %[[MIN]], %[[LAST]], %[[LINE]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
// CHECK-LABEL: func.func private @corrections
// CHECK-SAME: (%[[DEV3:.*]]: i64, %[[CL3:.*]]: i32, %[[CO3:.*]]: i32,
// CHECK: llvm.getelementptr %[[SCRATCH:.*]][8]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[UV:.*]] = llvm.getelementptr %[[SCRATCH]][0]
// CHECK: llvm.getelementptr %[[SCRATCH]][19]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[IV:.*]] = llvm.getelementptr %[[SCRATCH]][11]
// CHECK: llvm.getelementptr %[[SCRATCH]][30]
// CHECK-NEXT: llvm.store
// CHECK-NEXT: %[[DV:.*]] = llvm.getelementptr %[[SCRATCH]][22]
// CHECK-NEXT: %[[ROWS:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[MUL:.*]] = arith.constant 3 : i32
// CHECK-NEXT: call @td_scatter_elements(%[[DEV3]], %[[CL3]], %[[CO3]], %[[ROWS]], %[[MUL]], %[[IV]], %[[UV]], %[[DV]], %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @labels(%s: memref<8x10xf32, #dsa.memory_space<ddr>>, %l: memref<8x1xi64, #dsa.memory_space<ddr>>, %p: memref<8x1xf32, #dsa.memory_space<ddr>>) {
    %t = dsa.gather_elements %s[%l] to %p {axis = 1 : i64} : memref<8x10xf32, #dsa.memory_space<ddr>>, memref<8x1xi64, #dsa.memory_space<ddr>>, memref<8x1xf32, #dsa.memory_space<ddr>>
    dsa.wait %t
    dsa.return
  }
  dsa.kernel @classes(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %c: memref<8x1xi64, #dsa.memory_space<lb>>) {
    %t = dsa.argmin %s into %c {axis = -1 : i64, select_last} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x1xi64, #dsa.memory_space<lb>>
    dsa.wait %t
    dsa.return
  }
  dsa.kernel @corrections(%u: memref<8x4xf32, #dsa.memory_space<ddr>>, %i: memref<8x4xi64, #dsa.memory_space<ddr>>, %d: memref<8x100xf32, #dsa.memory_space<ddr>>) {
    %t = dsa.scatter_elements %u[%i] into %d {axis = 1 : i64, reduction = #dsa<binary mul>} : memref<8x4xf32, #dsa.memory_space<ddr>>, memref<8x4xi64, #dsa.memory_space<ddr>>, memref<8x100xf32, #dsa.memory_space<ddr>>
    dsa.wait %t
    dsa.return
  }
}

// -----

// Tests a top-k: largest 1, its axis made non-negative, then its three views (input, values,
// indices).
// CHECK-LABEL: func.func private @best_classes
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32,
// CHECK: %[[LARGEST:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[AXIS:.*]] = arith.constant 1 : i32
// CHECK-NEXT: call @td_top_k(%[[DEV]], %[[CL]], %[[CO]], %[[LARGEST]], %[[AXIS]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (i64, i32, i32, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr) -> i32
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @best_classes(%s: memref<8x10xf32, #dsa.memory_space<lb>>, %v: memref<8x3xf32, #dsa.memory_space<lb>>, %c: memref<8x3xi64, #dsa.memory_space<lb>>) {
    %t = dsa.top_k %s into %v, %c {axis = -1 : i64, largest} : memref<8x10xf32, #dsa.memory_space<lb>>, memref<8x3xf32, #dsa.memory_space<lb>>, memref<8x3xi64, #dsa.memory_space<lb>>
    dsa.wait %t
    dsa.return
  }
}

// -----

// Tests that a host buffer is allocated where it is placed: a GB buffer on cluster 1 (core 0),
// an LB buffer on core 1 of cluster 1.
// CHECK-LABEL: func.func private @placed.impl
// CHECK: %[[CL0:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[CO0:.*]] = arith.constant 0 : i32
// CHECK: call @td_buffer_alloc(%{{.*}}, %{{.*}}, %[[CL0]], %[[CO0]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[CL1:.*]] = arith.constant 1 : i32
// CHECK-NEXT: %[[CO1:.*]] = arith.constant 1 : i32
// CHECK: call @td_buffer_alloc(%{{.*}}, %{{.*}}, %[[CL1]], %[[CO1]], %{{.*}}, %{{.*}}, %{{.*}})
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func @placed() {
    %gb = dsa.alloc {cluster = 1 : i64} : memref<64xf32, #dsa.memory_space<gb>>
    %lb = dsa.alloc {cluster = 1 : i64, core = 1 : i64} : memref<64xf32, #dsa.memory_space<lb>>
    dsa.dealloc %lb : memref<64xf32, #dsa.memory_space<lb>>
    dsa.dealloc %gb : memref<64xf32, #dsa.memory_space<gb>>
    return
  }
}

// -----

// Tests that a view's offset is summed over its chain of subviews, reinterpret_casts and casts
// (a reinterpret_cast sets it outright), whose ops are then erased; that a root whose offset is
// dynamic gives its offset through its strided metadata; and that a view whose strides are
// dynamic takes its whole layout from its metadata.
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  // CHECK-LABEL: func.func private @chains
  // CHECK-SAME: %[[X:[^:]*]]: memref<8x64xf32>, %[[Y:[^:]*]]: memref<256xf32, strided<[1], offset: ?>>, %[[S:[^:]*]]: index)
  dsa.kernel @chains(%x: memref<8x64xf32, #dsa.memory_space<ddr>>, %y: memref<256xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>, %s: index) {
    %tile = dsa.alloc : memref<2x32xf32, #dsa.memory_space<lb>>
    %rows = memref.subview %x[2, 0] [4, 64] [1, 1] : memref<8x64xf32, #dsa.memory_space<ddr>> to memref<4x64xf32, strided<[64, 1], offset: 128>, #dsa.memory_space<ddr>>
    %block = memref.subview %rows[1, %s] [2, 32] [1, 1] : memref<4x64xf32, strided<[64, 1], offset: 128>, #dsa.memory_space<ddr>> to memref<2x32xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    // CHECK: %[[C192:.*]] = arith.constant 192 : index
    // CHECK: %[[SUM:.*]] = arith.addi %[[C192]], %[[S]] : index
    // CHECK: memref.extract_aligned_pointer_as_index %[[X]]
    // CHECK: arith.index_cast %[[SUM]] : index to i64
    // CHECK: call @td_dma(
    %t0 = dsa.dma %block to %tile : memref<2x32xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<2x32xf32, #dsa.memory_space<lb>>
    %flat = memref.reinterpret_cast %x to offset: [%s], sizes: [2, 32], strides: [32, 1] : memref<8x64xf32, #dsa.memory_space<ddr>> to memref<2x32xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>
    %shifted = memref.subview %flat[1, 4] [1, 8] [1, 1] : memref<2x32xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>> to memref<1x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>
    %erased = memref.cast %shifted : memref<1x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>> to memref<1x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>
    %part = memref.subview %tile[0, 0] [1, 8] [1, 1] : memref<2x32xf32, #dsa.memory_space<lb>> to memref<1x8xf32, strided<[32, 1]>, #dsa.memory_space<lb>>
    // CHECK: %[[C36:.*]] = arith.constant 36 : index
    // CHECK: %[[FROM_CAST:.*]] = arith.addi %[[C36]], %[[S]] : index
    // CHECK: memref.extract_aligned_pointer_as_index %[[X]]
    // CHECK: arith.index_cast %[[FROM_CAST]] : index to i64
    // CHECK: call @td_dma(
    %t1 = dsa.dma %erased to %part after %t0 : memref<1x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>, memref<1x8xf32, strided<[32, 1]>, #dsa.memory_space<lb>>
    %tail = memref.subview %y[64] [64] [1] : memref<256xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>> to memref<64xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>
    %flat_tile = memref.reinterpret_cast %tile to offset: [0], sizes: [64], strides: [1] : memref<2x32xf32, #dsa.memory_space<lb>> to memref<64xf32, #dsa.memory_space<lb>>
    // CHECK: %[[BASE:.*]], %[[YOFF:.*]], %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[Y]]
    // CHECK: %[[C64:.*]] = arith.constant 64 : index
    // CHECK: arith.addi %[[C64]], %[[YOFF]] : index
    // CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
    // CHECK: call @td_dma(
    %t2 = dsa.dma %flat_tile to %tail after %t1 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, strided<[1], offset: ?>, #dsa.memory_space<ddr>>
    %strided = memref.subview %x[0, 0] [2, 32] [1, %s] : memref<8x64xf32, #dsa.memory_space<ddr>> to memref<2x32xf32, strided<[64, ?]>, #dsa.memory_space<ddr>>
    // CHECK: %[[VIEW:.*]] = memref.subview %[[X]][0, 0] [2, 32] [1, %[[S]]]
    // CHECK: memref.extract_strided_metadata %[[VIEW]]
    // CHECK: memref.extract_aligned_pointer_as_index %[[VIEW]]
    // CHECK: call @td_dma(
    %t3 = dsa.dma %strided to %tile after %t2 : memref<2x32xf32, strided<[64, ?]>, #dsa.memory_space<ddr>>, memref<2x32xf32, #dsa.memory_space<lb>>
    dsa.wait %t3
    dsa.dealloc %tile : memref<2x32xf32, #dsa.memory_space<lb>>
    // CHECK-NOT: memref.subview
    // CHECK-NOT: memref.reinterpret_cast
    // CHECK-NOT: memref.cast
    // CHECK: return
    dsa.return
  }
}

// -----

// Tests the layer marks for the report: the kernel's function tells the runtime the layer of
// its core's next instructions where it changes: before an instruction whose location names
// another model op than the instruction before it, and before a loop whose instructions are all
// of another layer (once, not at every iteration); after the loop, the layer is the loop's.
// Waits keep the layer before them. A loop mixing layers is marked inside, at its body's first
// instruction and wherever the layer changes. The entry function names the module's layers,
// numbered in the order they are met, with one call on their names back to back.
// CHECK-LABEL: func.func private @layers
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32,
// CHECK: call @td_layer(%[[DEV]], %[[CL]], %[[CO]], %c0_i32{{[_0-9]*}}) : (i64, i32, i32, i32) -> i32
// CHECK: call @td_dma(
// CHECK-NOT: call @td_layer(
// CHECK: call @td_unary(
// CHECK: call @td_layer(%[[DEV]], %[[CL]], %[[CO]], %c1_i32{{[_0-9]*}})
// CHECK-NEXT: scf.for
// CHECK-NOT: call @td_layer(
// CHECK: call @td_dma(
// CHECK: }
// CHECK: call @td_layer(%[[DEV]], %[[CL]], %[[CO]], %c0_i32{{[_0-9]*}})
// CHECK: call @td_dma(
// CHECK-NOT: call @td_layer(
// CHECK: call @td_wait(
// CHECK: scf.for
// CHECK: call @td_layer(%[[DEV]], %[[CL]], %[[CO]], %c1_i32{{[_0-9]*}})
// CHECK: call @td_dma(
// CHECK: call @td_layer(%[[DEV]], %[[CL]], %[[CO]], %c0_i32{{[_0-9]*}})
// CHECK: call @td_dma(
// CHECK: }
// CHECK: return
// CHECK-LABEL: func.func private @layers_entry.impl
// CHECK: %[[NAMES:.*]] = llvm.mlir.addressof @layer.names : !llvm.ptr
// CHECK: call @td_layer_names(%{{.*}}, %c2_i32{{[_0-9]*}}, %[[NAMES]]) : (i64, i32, !llvm.ptr) -> i32
// CHECK-NOT: call @td_layer_names(
// CHECK: call @td_launch_begin(
// CHECK: llvm.mlir.global internal constant @layer.names("conv1\00relu1\00")
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @layers(%x: memref<64xf32, #dsa.memory_space<ddr>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tile = dsa.alloc : memref<64xf32, #dsa.memory_space<lb>>
    %t0 = dsa.dma %x to %tile : memref<64xf32, #dsa.memory_space<ddr>>, memref<64xf32, #dsa.memory_space<lb>> loc("conv1")
    %t1 = dsa.unary relu %tile into %tile after %t0 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("conv1")
    dsa.wait %t1
    scf.for %i = %c0 to %c2 step %c1 {
      %t = dsa.dma %tile to %x : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<ddr>> loc("relu1")
      dsa.wait %t loc("relu1")
    }
    %t2 = dsa.dma %x to %tile : memref<64xf32, #dsa.memory_space<ddr>>, memref<64xf32, #dsa.memory_space<lb>> loc("conv1")
    dsa.wait %t2 loc("elsewhere")
    scf.for %i = %c0 to %c2 step %c1 {
      %a = dsa.dma %tile to %x : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<ddr>> loc("relu1")
      dsa.wait %a
      %b = dsa.dma %x to %tile : memref<64xf32, #dsa.memory_space<ddr>>, memref<64xf32, #dsa.memory_space<lb>> loc("conv1")
      dsa.wait %b
    }
    dsa.dealloc %tile : memref<64xf32, #dsa.memory_space<lb>>
    dsa.return
  }
  func.func @layers_entry(%x: memref<64xf32, #dsa.memory_space<ddr>> {dsa.input = 0}) {
    dsa.launch @layers(%x) on [0] : memref<64xf32, #dsa.memory_space<ddr>>
    return
  }
}

// -----

// Tests that a block too long for the backend is cut into chunks: the body of a tile loop
// recording a chain of 60 instructions (about fifty lowered ops each) moves, but for its last
// instructions, into a private function `@chain.chunk0` that the loop calls in its place with the
// kernel's leading arguments, the scratch, the token carried by the loop (an i64 by now) and the
// tile; constants and scratch addresses are built again inside. The cut falls where one value is
// live: the chunk returns the token of its last instruction, which the rest of the body waits on.
// CHECK-LABEL: func.func private @chain.chunk0
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[CL:.*]]: i32, %[[CO:.*]]: i32, %{{.*}}: index, %[[SCRATCH:.*]]: !llvm.ptr, %[[TOKEN:.*]]: i64, %{{.*}}: memref<64xf32>) -> i64
// CHECK: %[[WAIT:.*]] = llvm.getelementptr %[[SCRATCH]][54]
// CHECK: llvm.store %[[TOKEN]], %[[WAIT]]
// CHECK: call @td_unary(%[[DEV]], %[[CL]], %[[CO]],
// CHECK-NOT: call @chain.chunk
// CHECK: return %{{.*}} : i64
// CHECK-LABEL: func.func private @chain(
// CHECK-SAME: %[[DEV:[a-z0-9]+]]: i64, %[[CL:[a-z0-9]+]]: i32, %[[CO:[a-z0-9]+]]: i32, %[[ID:[a-z0-9]+]]: index,
// CHECK: %[[SCRATCH:.*]] = llvm.alloca
// CHECK: %[[TILE:.*]] = builtin.unrealized_conversion_cast
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[CARRIED:.*]] = %{{.*}}) -> (i64) {
// CHECK-NEXT: %[[CHAINED:.*]] = func.call @chain.chunk0(%[[DEV]], %[[CL]], %[[CO]], %[[ID]], %[[SCRATCH]], %[[CARRIED]], %[[TILE]])
// CHECK-SAME: : (i64, i32, i32, index, !llvm.ptr, i64, memref<64xf32>) -> i64
// CHECK: llvm.store %[[CHAINED]],
// CHECK: call @td_unary(
// CHECK: scf.yield %{{.*}} : i64
// CHECK-NOT: @chain.chunk1
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000, ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  dsa.kernel @chain(%x: memref<64xf32, #dsa.memory_space<ddr>>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %tile = dsa.alloc : memref<64xf32, #dsa.memory_space<lb>>
    %t0 = dsa.dma %x to %tile : memref<64xf32, #dsa.memory_space<ddr>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
    %last = scf.for %i = %c0 to %c2 step %c1 iter_args(%t = %t0) -> (!dsa.token) {
      %u0 = dsa.unary relu %tile into %tile after %t : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u1 = dsa.unary relu %tile into %tile after %u0 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u2 = dsa.unary relu %tile into %tile after %u1 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u3 = dsa.unary relu %tile into %tile after %u2 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u4 = dsa.unary relu %tile into %tile after %u3 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u5 = dsa.unary relu %tile into %tile after %u4 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u6 = dsa.unary relu %tile into %tile after %u5 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u7 = dsa.unary relu %tile into %tile after %u6 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u8 = dsa.unary relu %tile into %tile after %u7 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u9 = dsa.unary relu %tile into %tile after %u8 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u10 = dsa.unary relu %tile into %tile after %u9 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u11 = dsa.unary relu %tile into %tile after %u10 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u12 = dsa.unary relu %tile into %tile after %u11 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u13 = dsa.unary relu %tile into %tile after %u12 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u14 = dsa.unary relu %tile into %tile after %u13 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u15 = dsa.unary relu %tile into %tile after %u14 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u16 = dsa.unary relu %tile into %tile after %u15 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u17 = dsa.unary relu %tile into %tile after %u16 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u18 = dsa.unary relu %tile into %tile after %u17 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u19 = dsa.unary relu %tile into %tile after %u18 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u20 = dsa.unary relu %tile into %tile after %u19 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u21 = dsa.unary relu %tile into %tile after %u20 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u22 = dsa.unary relu %tile into %tile after %u21 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u23 = dsa.unary relu %tile into %tile after %u22 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u24 = dsa.unary relu %tile into %tile after %u23 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u25 = dsa.unary relu %tile into %tile after %u24 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u26 = dsa.unary relu %tile into %tile after %u25 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u27 = dsa.unary relu %tile into %tile after %u26 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u28 = dsa.unary relu %tile into %tile after %u27 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u29 = dsa.unary relu %tile into %tile after %u28 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u30 = dsa.unary relu %tile into %tile after %u29 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u31 = dsa.unary relu %tile into %tile after %u30 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u32 = dsa.unary relu %tile into %tile after %u31 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u33 = dsa.unary relu %tile into %tile after %u32 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u34 = dsa.unary relu %tile into %tile after %u33 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u35 = dsa.unary relu %tile into %tile after %u34 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u36 = dsa.unary relu %tile into %tile after %u35 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u37 = dsa.unary relu %tile into %tile after %u36 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u38 = dsa.unary relu %tile into %tile after %u37 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u39 = dsa.unary relu %tile into %tile after %u38 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u40 = dsa.unary relu %tile into %tile after %u39 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u41 = dsa.unary relu %tile into %tile after %u40 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u42 = dsa.unary relu %tile into %tile after %u41 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u43 = dsa.unary relu %tile into %tile after %u42 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u44 = dsa.unary relu %tile into %tile after %u43 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u45 = dsa.unary relu %tile into %tile after %u44 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u46 = dsa.unary relu %tile into %tile after %u45 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u47 = dsa.unary relu %tile into %tile after %u46 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u48 = dsa.unary relu %tile into %tile after %u47 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u49 = dsa.unary relu %tile into %tile after %u48 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u50 = dsa.unary relu %tile into %tile after %u49 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u51 = dsa.unary relu %tile into %tile after %u50 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u52 = dsa.unary relu %tile into %tile after %u51 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u53 = dsa.unary relu %tile into %tile after %u52 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u54 = dsa.unary relu %tile into %tile after %u53 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u55 = dsa.unary relu %tile into %tile after %u54 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u56 = dsa.unary relu %tile into %tile after %u55 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u57 = dsa.unary relu %tile into %tile after %u56 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u58 = dsa.unary relu %tile into %tile after %u57 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      %u59 = dsa.unary relu %tile into %tile after %u58 : memref<64xf32, #dsa.memory_space<lb>>, memref<64xf32, #dsa.memory_space<lb>> loc("relu")
      scf.yield %u59 : !dsa.token
    }
    dsa.wait %last
    dsa.dealloc %tile : memref<64xf32, #dsa.memory_space<lb>>
    dsa.return
  }
}

// -----

// Tests control flow between launches: a persistent region is inlined between
// td_persistent_begin and td_persistent_end, its result replaced by what it yielded; a condition
// read zeroes the scratch word it is read into (a failed read reads false) and loads it; a counter
// is written with td_write_scalar; the watchdog's status (given the loop's layer, which its
// error names) says whether the loop may go on.
// CHECK-LABEL: func.func private @control
// CHECK-SAME: (%[[DEV:.*]]: i64, %[[C:.*]]: memref<1xi1>, %[[N:.*]]: memref<1xi64>, %[[A:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK: %[[SCRATCH:.*]] = llvm.alloca
// CHECK: call @td_persistent_begin(%[[DEV]])
// CHECK: %[[HANDLE:.*]] = memref.extract_aligned_pointer_as_index %[[C]]
// CHECK: %[[WORD:.*]] = llvm.getelementptr %[[SCRATCH]]
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: llvm.store %[[ZERO]], %[[WORD]]
// CHECK-NEXT: call @td_read_scalar(%[[DEV]], %{{.*}}, %{{.*}}, %[[WORD]]) : (i64, i64, i64, !llvm.ptr) -> i32
// CHECK-NEXT: %[[V:.*]] = llvm.load %[[WORD]] : !llvm.ptr -> i64
// CHECK: call @td_write_scalar(%[[DEV]], %{{.*}}, %{{.*}}, %[[V]]) : (i64, i64, i64, i64) -> i32
// CHECK: %[[STATUS:.*]] = call @td_loop_check(%[[DEV]], %[[V]], %{{.*}}) : (i64, i64, i32) -> i32
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[STATUS]], %{{.*}} : i32
// CHECK: scf.if %[[OK]]
// CHECK: call @td_persistent_end(%[[DEV]])
// CHECK-NEXT: return %[[A]]
module attributes {dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2, matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1, lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 16777216, clock_mhz = 1000, ddr_gb_bandwidth = 8, gb_lb_bandwidth = 16, lb_lb_bandwidth = 16, matrix_flops = 64, dma_setup = 10, compute_setup = 2, barrier = 5>} {
  func.func private @control(%c: memref<1xi1, #dsa.memory_space<ddr>>, %n: memref<1xi64, #dsa.memory_space<ddr>>, %a: memref<4xf32, #dsa.memory_space<ddr>>) -> memref<4xf32, #dsa.memory_space<ddr>> {
    %r = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
      %v = dsa.read_scalar %c : memref<1xi1, #dsa.memory_space<ddr>>
      dsa.write_scalar %v, %n : memref<1xi64, #dsa.memory_space<ddr>>
      %ok = dsa.loop_check %v
      scf.if %ok {
        dsa.write_scalar %v, %n : memref<1xi64, #dsa.memory_space<ddr>>
      }
      dsa.yield %a : memref<4xf32, #dsa.memory_space<ddr>>
    }
    return %r : memref<4xf32, #dsa.memory_space<ddr>>
  }
}
