// Control flow in the layer-wise lowering, run by the host and by the device.
// RUN: turbine-opt %s --split-input-file --graph-outline-control-flow --dsa-set-target=target=mini --convert-graph-to-dsa=control=host | FileCheck %s --check-prefixes=CHECK,HOST
// RUN: turbine-opt %s --split-input-file --graph-outline-control-flow --dsa-set-target=target=mini --convert-graph-to-dsa=control=device | FileCheck %s --check-prefixes=CHECK,DEVICE
// RUN: turbine-opt %s --split-input-file --graph-outline-control-flow --dsa-set-target=target=mini --convert-graph-to-dsa=explain=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN

// Tests that each branch is a private host function taking its inputs and its output, and
// that the graph.if reads its condition and calls one of them, writing straight into the
// function's output buffer; the weight a branch reads is the caller's parameter, passed in.
// With control=device the branch sits in a dsa.persistent region.
// CHECK-LABEL: func.func private @branch_if0_then
// CHECK-SAME: (%{{.*}}: memref<4xf32, #dsa.memory_space<ddr>> {dsa.input = 0 : i64}, %{{.*}}: memref<4xf32, #dsa.memory_space<ddr>> {dsa.input = 1 : i64}, %{{.*}}: memref<4xf32, #dsa.memory_space<ddr>> {dsa.output = 0 : i64})
// CHECK: dsa.launch @branch_if0_then_0_add
// CHECK-LABEL: func.func private @branch_if0_else
// CHECK: dsa.launch @branch_if0_else_0_copy
// CHECK-LABEL: func.func @branch
// CHECK-SAME: (%[[C:.*]]: memref<1xi1, #dsa.memory_space<ddr>> {dsa.input = 0 : i64}, %[[X:.*]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.input = 1 : i64}, %[[OUT:.*]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.output = 0 : i64}, %[[W:.*]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.weight = "w"})
// DEVICE-NEXT: dsa.persistent {
// CHECK-NEXT: %[[V:.*]] = dsa.read_scalar %[[C]]
// CHECK: %[[TAKEN:.*]] = arith.cmpi ne, %[[V]], %{{.*}} : i64
// CHECK-NEXT: scf.if %[[TAKEN]] {
// CHECK-NEXT: func.call @branch_if0_then(%[[X]], %[[W]], %[[OUT]])
// CHECK-NEXT: } else {
// CHECK-NEXT: func.call @branch_if0_else(%[[X]], %[[OUT]])
// CHECK-NEXT: }
// DEVICE-NEXT: }
// CHECK-NEXT: return
func.func @branch(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %w = graph.weight "w" : tensor<4xf32>
  %r = graph.if %c -> (tensor<4xf32>) {
    %s = graph.add %x, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    graph.yield %s : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a loop copies its initial value into the first of two sets of carried buffers
// and runs an scf.while: before an iteration the count is below the limit (a constant here,
// read at compile time) and the condition holds, then the watchdog is asked; an iteration
// stores the counter, calls the body (the counter, the current set, then what it captured)
// into the condition buffer and the other set, reads that condition and swaps the sets. The
// result is the set the loop ended with, copied to the output buffer.
// CHECK-LABEL: func.func private @repeat_loop0_body
// CHECK-SAME: {dsa.input = 0 : i64}
// CHECK-SAME: {dsa.output = 0 : i64}, %{{.*}}: memref<4xf32, #dsa.memory_space<ddr>> {dsa.output = 1 : i64}
// CHECK-LABEL: func.func @repeat
// CHECK-SAME: (%[[GO:.*]]: memref<1xi1, #dsa.memory_space<ddr>> {dsa.input = 0 : i64}, %[[X:.*]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.input = 1 : i64}, %[[OUT:.*]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.output = 0 : i64}
// CHECK: %[[FIRST:.*]] = dsa.alloc : memref<4xf32, #dsa.memory_space<ddr>>
// CHECK: %[[SECOND:.*]] = dsa.alloc : memref<4xf32, #dsa.memory_space<ddr>>
// CHECK: dsa.launch @repeat_0_init(%[[X]], %[[FIRST]])
// CHECK: %[[COND:.*]] = dsa.alloc : memref<1xi1, #dsa.memory_space<ddr>>
// CHECK: %[[COUNTER:.*]] = dsa.alloc : memref<1xi64, #dsa.memory_space<ddr>>
// DEVICE: %[[R:.*]] = dsa.persistent -> memref<4xf32, #dsa.memory_space<ddr>> {
// CHECK: %[[LIMIT:.*]] = arith.constant 5 : i64
// CHECK: %[[V:.*]] = dsa.read_scalar %[[GO]]
// CHECK: %[[PROCEED:.*]] = arith.cmpi ne, %[[V]]
// CHECK: %[[W:.*]]:4 = scf.while (%[[I:.*]] = %{{.*}}, %[[P:.*]] = %[[PROCEED]], %[[A:.*]] = %[[FIRST]], %[[B:.*]] = %[[SECOND]])
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[I]], %[[LIMIT]] : i64
// CHECK: %[[WANTED:.*]] = arith.andi %[[BELOW]], %[[P]]
// CHECK: %[[MAY:.*]] = scf.if %[[WANTED]] -> (i1) {
// CHECK-NEXT: %[[OK:.*]] = dsa.loop_check %[[I]]
// CHECK-NEXT: scf.yield %[[OK]]
// CHECK: scf.condition(%[[MAY]]) %[[I]], %[[P]], %[[A]], %[[B]]
// CHECK: ^bb0(%[[J:.*]]: i64, %{{.*}}: i1, %[[CUR:.*]]: memref<4xf32, #dsa.memory_space<ddr>>, %[[NEXT:.*]]: memref<4xf32, #dsa.memory_space<ddr>>):
// CHECK-NEXT: dsa.write_scalar %[[J]], %[[COUNTER]]
// CHECK-NEXT: func.call @repeat_loop0_body(%[[COUNTER]], %[[CUR]], %[[GO]], %[[COND]], %[[NEXT]])
// CHECK-NEXT: %[[AGAIN:.*]] = dsa.read_scalar %[[COND]]
// CHECK: scf.yield %{{.*}}, %{{.*}}, %[[NEXT]], %[[CUR]]
// DEVICE: dsa.yield %[[W]]#2
// HOST: dsa.launch @repeat_1_copy(%[[W]]#2, %[[OUT]])
// DEVICE: dsa.launch @repeat_1_copy(%[[R]], %[[OUT]])
func.func @repeat(%go: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %n = graph.constant dense<5> : tensor<i64>
  %r = graph.loop %n, %go iter_args(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
    %d = graph.relu %v : tensor<4xf32>
    graph.yield %go, %d : tensor<i1>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a weight a body defines (as a body written by hand may) is a parameter of its
// caller too, which passes it on: only the entry function receives weights from the driver.
// CHECK-LABEL: func.func private @scale
// CHECK-SAME: %{{.*}}: memref<4xf32, #dsa.memory_space<ddr>> {dsa.weight = "s"}
// CHECK-LABEL: func.func @caller
// CHECK-SAME: %[[S:[a-z0-9]+]]: memref<4xf32, #dsa.memory_space<ddr>> {dsa.weight = "s"}
// CHECK: call @scale(%{{.*}}, %{{.*}}, %[[S]])
func.func private @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = graph.weight "s" : tensor<4xf32>
  %y = graph.mul %x, %s : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @scale(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Tests that a call of the model's that may recurse (a function calling itself under a branch)
// runs within the device's depth of nested calls: dsa.frame_push decides whether it may go on,
// dsa.frame_pop ends it. The call of the branch's outlined body is not counted.
// CHECK-LABEL: func.func private @countdown_if0_else
// CHECK: %[[ALLOWED:.*]] = dsa.frame_push
// CHECK-NEXT: scf.if %[[ALLOWED]] {
// CHECK-NEXT: func.call @countdown(
// CHECK-NEXT: dsa.frame_pop
// CHECK-LABEL: func.func @countdown
// CHECK-NOT: dsa.frame_push
// CHECK: return
func.func @countdown(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = graph.constant dense<0> : tensor<i64>
  %done = graph.compare eq, %n, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
  %r = graph.if %done -> (tensor<4xf32>) {
    graph.yield %x : tensor<4xf32>
  } else {
    %one = graph.constant dense<1> : tensor<i64>
    %m = graph.sub %n, %one : tensor<i64>, tensor<i64> -> tensor<i64>
    %y = func.call @countdown(%m, %x) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a branch on a constant calls the taken body only, with no condition read.
// CHECK-LABEL: func.func @constant_branch
// CHECK-NOT: dsa.read_scalar
// CHECK-NOT: scf.if
// CHECK: call @constant_branch_if0_else(
// CHECK-NOT: call @constant_branch_if0_then(
// CHECK: return
func.func @constant_branch(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = graph.constant dense<false> : tensor<i1>
  %r = graph.if %c -> (tensor<4xf32>) {
    %y = graph.relu %x : tensor<4xf32>
    graph.yield %y : tensor<4xf32>
  } else {
    %y = graph.neg %x : tensor<4xf32>
    graph.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a loop's invariant inputs stay on chip when the cost model says it pays (Cocktailer
// §5): the weight its body multiplies by is copied once, before the loop, into every cluster's
// GB (a kernel per cluster's cores filling its own), the body takes one GB buffer per cluster
// for it, and its kernels pick their cluster's by dsa.cluster_id; the buffers are freed after
// the loop.
// EXPLAIN: remark: loc("recur"): @resident_loop0_body keeps them in every cluster's GB: 2 loop-invariant input(s) of 16385 bytes; estimated {{[0-9]+}} cycles per iteration from the GB (the copy included) against {{[0-9]+}} from DDR
// CHECK-LABEL: dsa.kernel @resident_loop0_body_0_matmul
// CHECK-SAME: %[[W0:[a-z0-9]+]]: memref<64x64xf32, #dsa.memory_space<gb>>, %[[W1:[a-z0-9]+]]: memref<64x64xf32, #dsa.memory_space<gb>>
// CHECK: %[[CLUSTER:.*]] = dsa.cluster_id
// CHECK: %[[SECOND:.*]] = arith.cmpi eq, %[[CLUSTER]]
// CHECK: arith.select %[[SECOND]], %[[W1]], %[[W0]] : memref<64x64xf32, #dsa.memory_space<gb>>
// CHECK-LABEL: func.func private @resident_loop0_body
// CHECK-SAME: memref<64x64xf32, #dsa.memory_space<gb>> {dsa.input = 2 : i64}, %{{.*}}: memref<64x64xf32, #dsa.memory_space<gb>> {dsa.input = 2 : i64}
// CHECK-LABEL: func.func @resident
// CHECK-SAME: %[[W:[a-z0-9]+]]: memref<64x64xf32, #dsa.memory_space<ddr>> {dsa.weight = "w"}
// CHECK: %[[G0:.*]] = dsa.alloc {cluster = 0 : i64} : memref<64x64xf32, #dsa.memory_space<gb>>
// CHECK: %[[G1:.*]] = dsa.alloc {cluster = 1 : i64} : memref<64x64xf32, #dsa.memory_space<gb>>
// CHECK: dsa.launch @resident_{{[0-9]+}}_resident(%[[W]], %[[G0]], %[[G1]],
// CHECK: scf.while
// CHECK: func.call @resident_loop0_body(%{{.*}}, %{{.*}}, %[[G0]], %[[G1]],
// CHECK: dsa.dealloc %[[G0]]
// CHECK: dsa.dealloc %[[G1]]
func.func @resident(%x: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %w = graph.weight "w" : tensor<64x64xf32>
  %n = graph.constant dense<8> : tensor<i64>
  %t = graph.constant dense<true> : tensor<i1>
  %r = graph.loop %n, %t iter_args(%x : tensor<4x64xf32>) -> (tensor<4x64xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<4x64xf32>):
    %m = graph.matmul %v, %w : tensor<4x64xf32>, tensor<64x64xf32> -> tensor<4x64xf32>
    %y = graph.tanh %m : tensor<4x64xf32>
    graph.yield %t, %y : tensor<i1>, tensor<4x64xf32>
  } loc("recur")
  return %r : tensor<4x64xf32>
}
