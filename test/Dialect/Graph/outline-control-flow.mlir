// RUN: turbine-opt %s --split-input-file --graph-outline-control-flow | FileCheck %s
// RUN: turbine-opt %s --split-input-file --graph-outline-control-flow --graph-outline-control-flow | FileCheck %s
// RUN: turbine-opt %s --split-input-file --verify-diagnostics --graph-outline-control-flow=explain -o /dev/null
// RUN: not turbine-opt %s --pass-pipeline='builtin.module(func.func(graph-outline-control-flow))' 2>&1 | FileCheck %s --check-prefix=ANCHOR
// Tests that the pass runs on the module only (it adds functions beside the one it outlines from).
// ANCHOR: error: Can't add pass 'graph-outline-control-flow' restricted to 'builtin.module' on a PassManager intended to run on 'func.func', did you intend to nest?

// Tests that each branch of a graph.if becomes a private function taking the values it used
// from outside, in the order of first use, and that a weight defined inside a branch moves
// before the graph.if so that the body receives it from its caller.
// CHECK-LABEL: func.func private @choose_if0_then
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[N:.*]] = graph.neg %[[X]]
// CHECK: %[[S:.*]] = graph.add %[[N]], %[[W]]
// CHECK: return %[[S]]
// CHECK-LABEL: func.func private @choose_if0_else
// CHECK-SAME: (%[[Y:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
// CHECK-LABEL: func.func @choose
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[A:.*]]: tensor<4xf32>)
// CHECK: %[[WEIGHT:.*]] = graph.weight "w"
// CHECK: graph.if %[[C]]
// CHECK-NEXT: %[[T:.*]] = func.call @choose_if0_then(%[[A]], %[[WEIGHT]])
// CHECK-NEXT: graph.yield %[[T]]
// CHECK: %[[E:.*]] = func.call @choose_if0_else(%[[A]])
// CHECK-NEXT: graph.yield %[[E]]
func.func @choose(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark@+2 {{outlined the then region into @choose_if0_then (2 captured values)}}
  // expected-remark@+1 {{outlined the else region into @choose_if0_else (1 captured value)}}
  %r = graph.if %c -> (tensor<4xf32>) {
    %w = graph.weight "w" : tensor<4xf32>
    %n = graph.neg %x : tensor<4xf32>
    %s = graph.add %n, %w : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    graph.yield %s : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that a loop body takes the iteration number and the carried values first, then the
// values it used from outside, and returns the condition and the next carried values.
// CHECK-LABEL: func.func private @accumulate_loop0_body
// CHECK-SAME: (%[[I:.*]]: tensor<i64>, %[[ACC:.*]]: tensor<4xf32>, %[[STEP:.*]]: tensor<4xf32>, %[[GO:.*]]: tensor<i1>) -> (tensor<i1>, tensor<4xf32>)
// CHECK: %[[NEXT:.*]] = graph.add %[[ACC]], %[[STEP]]
// CHECK: return %[[GO]], %[[NEXT]]
// CHECK-LABEL: func.func @accumulate
// CHECK: graph.loop
// CHECK-NEXT: ^bb0(%[[BI:.*]]: tensor<i64>, %[[BX:.*]]: tensor<4xf32>):
// CHECK-NEXT: %[[R:.*]]:2 = func.call @accumulate_loop0_body(%[[BI]], %[[BX]], %{{.*}}, %{{.*}})
// CHECK-NEXT: graph.yield %[[R]]#0, %[[R]]#1
func.func @accumulate(%n: tensor<i64>, %go: tensor<i1>, %x: tensor<4xf32>, %step: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark@+1 {{outlined the body region into @accumulate_loop0_body (2 captured values)}}
  %r = graph.loop %n, %go iter_args(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %acc: tensor<4xf32>):
    %next = graph.add %acc, %step : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
    graph.yield %go, %next : tensor<i1>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that regions nested in regions are outlined first: the inner branch's bodies are
// called from the outer loop's body, which captures what the inner branch used.
// CHECK-LABEL: func.func private @nested_if1_then
// CHECK-LABEL: func.func private @nested_if1_else
// CHECK-LABEL: func.func private @nested_loop0_body
// CHECK-SAME: (%{{.*}}: tensor<i64>, %[[V:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<i1>)
// CHECK: graph.if %[[C]]
// CHECK: func.call @nested_if1_then(%[[V]])
// CHECK: func.call @nested_if1_else(%[[V]])
// CHECK-LABEL: func.func @nested
func.func @nested(%n: tensor<i64>, %c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark@+1 {{outlined the body region into @nested_loop0_body (1 captured value)}}
  %r = graph.loop %n, %c iter_args(%x : tensor<4xf32>) -> (tensor<4xf32>) {
  ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
    // expected-remark@+2 {{outlined the then region into @nested_if1_then (1 captured value)}}
    // expected-remark@+1 {{outlined the else region into @nested_if1_else (1 captured value)}}
    %b = graph.if %c -> (tensor<4xf32>) {
      %d = graph.relu %v : tensor<4xf32>
      graph.yield %d : tensor<4xf32>
    } else {
      %e = graph.neg %v : tensor<4xf32>
      graph.yield %e : tensor<4xf32>
    }
    graph.yield %c, %b : tensor<i1>, tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Tests that recursion stays a call: a branch that only calls a function (here the function
// itself, once its constant moved out) already is a task reference and is left as it is.
// CHECK-LABEL: func.func private @halve_if0_else
// CHECK-LABEL: func.func @halve
// CHECK-SAME: (%[[C:.*]]: tensor<i1>, %[[X:.*]]: tensor<4xf32>)
// CHECK: %[[F:.*]] = graph.constant dense<false>
// CHECK: graph.if %[[C]]
// CHECK-NEXT: %[[H:.*]] = func.call @halve(%[[F]], %[[X]])
// CHECK-NEXT: graph.yield %[[H]]
// CHECK: func.call @halve_if0_else(%[[X]])
func.func @halve(%c: tensor<i1>, %x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-remark@+1 {{outlined the else region into @halve_if0_else (1 captured value)}}
  %r = graph.if %c -> (tensor<4xf32>) {
    %f = graph.constant dense<false> : tensor<i1>
    %h = func.call @halve(%f, %x) : (tensor<i1>, tensor<4xf32>) -> tensor<4xf32>
    graph.yield %h : tensor<4xf32>
  } else {
    graph.yield %x : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
