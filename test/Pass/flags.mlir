// Tests of the remaining mlir-opt flags that turbine-opt inherits: debug locations, unregistered
// dialects, -o, stdin, and crash reproducers for a failing Turbine pass.

// RUN: turbine-opt %s --allow-unregistered-dialect --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// RUN: not turbine-opt %s 2>&1 | FileCheck %s --check-prefix=UNREGISTERED
// RUN: turbine-opt --allow-unregistered-dialect < %s -o %t.out && FileCheck %s --check-prefix=OUTPUT < %t.out
// RUN: not turbine-opt %s --allow-unregistered-dialect --dsa-set-target="target=no-such-target" --mlir-pass-pipeline-crash-reproducer=%t.repro 2>&1 | FileCheck %s --check-prefix=REPRO
// RUN: FileCheck %s --check-prefix=REPRO-FILE < %t.repro
// RUN: not turbine-opt %t.repro --allow-unregistered-dialect --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY

// DEBUG: "test.opaque"() : () -> () loc([[LOC:#loc[0-9]*]])
// DEBUG: [[LOC]] = loc("named")
// UNREGISTERED: flags.mlir:[[# @LINE + 8]]:16: error: operation being parsed with an unregistered dialect
// OUTPUT: func.func @f
// REPRO: cannot use target 'no-such-target'
// REPRO: reproducer generated at
// REPRO-FILE: pipeline: "builtin.module(dsa-set-target{target=no-such-target})"
// REPLAY: cannot use target 'no-such-target'

func.func @f() {
  "test.opaque"() : () -> () loc("named")
  return
}
