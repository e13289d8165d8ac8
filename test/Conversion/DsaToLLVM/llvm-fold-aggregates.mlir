// RUN: turbine-opt %s --split-input-file --llvm-fold-aggregates | FileCheck %s
// RUN: not turbine-opt %s --split-input-file --pass-pipeline='builtin.module(llvm-fold-aggregates)' 2>&1 | FileCheck %s --check-prefix=ANCHOR

// ANCHOR: error: Can't add pass 'llvm-fold-aggregates' restricted to 'llvm.func' on a PassManager intended to run on 'builtin.module', did you intend to nest?

// There is no llvm-fold-aggregates-errors.mlir with expected-error cases: the pass only forwards
// values that verified IR already computes, and leaves alone what it cannot forward; it has no
// options to get wrong.

// Tests that a field is read where it was inserted, through inserts of other fields, and that
// the descriptor is erased once nothing reads it.
// CHECK-LABEL: llvm.func @forward
// CHECK-SAME: (%[[P:.*]]: !llvm.ptr, %[[O:.*]]: i64, %[[S:.*]]: i64)
// CHECK-NOT: llvm.mlir.poison
// CHECK-NOT: llvm.insertvalue
// CHECK-NOT: llvm.extractvalue
// CHECK: llvm.call @use(%[[P]], %[[S]])
llvm.func @use(!llvm.ptr, i64)
llvm.func @forward(%p: !llvm.ptr, %o: i64, %s: i64) {
  %0 = llvm.mlir.poison : !llvm.struct<(ptr, i64, array<2 x i64>)>
  %1 = llvm.insertvalue %p, %0[0] : !llvm.struct<(ptr, i64, array<2 x i64>)>
  %2 = llvm.insertvalue %o, %1[1] : !llvm.struct<(ptr, i64, array<2 x i64>)>
  %3 = llvm.insertvalue %s, %2[2, 1] : !llvm.struct<(ptr, i64, array<2 x i64>)>
  %4 = llvm.extractvalue %3[0] : !llvm.struct<(ptr, i64, array<2 x i64>)>
  %5 = llvm.extractvalue %3[2, 1] : !llvm.struct<(ptr, i64, array<2 x i64>)>
  llvm.call @use(%4, %5) : (!llvm.ptr, i64) -> ()
  llvm.return
}

// -----

// Tests that a field of a select of two descriptors is the select of the two fields, each read
// where it was inserted.
// CHECK-LABEL: llvm.func @select
// CHECK-SAME: (%[[C:.*]]: i1, %[[A:.*]]: i64, %[[B:.*]]: i64)
// CHECK-NEXT: %[[F:.*]] = llvm.select %[[C]], %[[A]], %[[B]] : i1, i64
// CHECK-NEXT: llvm.call @use(%[[F]])
// CHECK-NEXT: llvm.return
llvm.func @use(i64)
llvm.func @select(%c: i1, %a: i64, %b: i64) {
  %0 = llvm.mlir.poison : !llvm.struct<(i64, i64)>
  %1 = llvm.insertvalue %a, %0[1] : !llvm.struct<(i64, i64)>
  %2 = llvm.insertvalue %b, %0[1] : !llvm.struct<(i64, i64)>
  %3 = llvm.select %c, %1, %2 : i1, !llvm.struct<(i64, i64)>
  %4 = llvm.extractvalue %3[1] : !llvm.struct<(i64, i64)>
  llvm.call @use(%4) : (i64) -> ()
  llvm.return
}

// -----

// Tests that an aggregate field holding the inserted scalar, and fields of arguments, are left
// as they are.
// CHECK-LABEL: llvm.func @kept
// CHECK: %[[I:.*]] = llvm.insertvalue %{{.*}}, %{{.*}}[1, 0]
// CHECK: llvm.extractvalue %[[I]][1] : !llvm.struct<(i64, array<2 x i64>)>
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i64, array<2 x i64>)>
llvm.func @use(!llvm.array<2 x i64>, i64)
llvm.func @kept(%d: !llvm.struct<(i64, array<2 x i64>)>, %x: i64) {
  %0 = llvm.insertvalue %x, %d[1, 0] : !llvm.struct<(i64, array<2 x i64>)>
  %1 = llvm.extractvalue %0[1] : !llvm.struct<(i64, array<2 x i64>)>
  %2 = llvm.extractvalue %0[0] : !llvm.struct<(i64, array<2 x i64>)>
  llvm.call @use(%1, %2) : (!llvm.array<2 x i64>, i64) -> ()
  llvm.return
}
