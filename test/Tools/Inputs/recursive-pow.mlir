// Calls and recursion for test/Tools/turbine-run-interpret-calls.test: @pow2(n, x) doubles x n
// times, calling itself under graph.if once per doubling. @main doubles 3 times and 0 times,
// @too_deep 5000 times (deeper than the interpreter's call depth bound), and @forever runs a
// graph.loop whose condition never turns false.
module {
  func.func @main() -> (tensor<4xf32>, tensor<4xf32>) {
    %three = graph.constant dense<3> : tensor<i64>
    %zero = graph.constant dense<0> : tensor<i64>
    %x = graph.constant dense<[1.0, 2.0, -3.0, 0.5]> : tensor<4xf32>
    %r = func.call @pow2(%three, %x) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    %s = func.call @pow2(%zero, %x) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    return %r, %s : tensor<4xf32>, tensor<4xf32>
  }
  func.func @too_deep() -> tensor<4xf32> {
    %n = graph.constant dense<5000> : tensor<i64>
    %x = graph.constant dense<0.0> : tensor<4xf32>
    %r = func.call @pow2(%n, %x) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func @forever(%x: tensor<4xf32>) -> tensor<4xf32> {
    %n = graph.constant dense<9223372036854775807> : tensor<i64>
    %t = graph.constant dense<true> : tensor<i1>
    %l = graph.loop %n, %t iter_args(%x : tensor<4xf32>) -> (tensor<4xf32>) {
    ^bb0(%i: tensor<i64>, %v: tensor<4xf32>):
      %w = graph.neg %v : tensor<4xf32>
      graph.yield %t, %w : tensor<i1>, tensor<4xf32>
    } loc("spin")
    return %l : tensor<4xf32>
  }
  func.func @pow2(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %zero = graph.constant dense<0> : tensor<i64>
    %done = graph.compare eq, %n, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
    %r = graph.if %done -> (tensor<4xf32>) {
      graph.yield %x : tensor<4xf32>
    } else {
      %one = graph.constant dense<1> : tensor<i64>
      %m = graph.sub %n, %one : tensor<i64>, tensor<i64> -> tensor<i64>
      %twice = graph.add %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
      %y = func.call @pow2(%m, %twice) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
          loc("recurse")
      graph.yield %y : tensor<4xf32>
    }
    return %r : tensor<4xf32>
  }
}
