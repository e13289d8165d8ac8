//! `func.call` in the reference interpreter: recursion under `graph.if`, call chains, calls in
//! loop bodies, and the bounds on call depth and loop iterations.

use super::{close, f32s, run, run_with};
use melior::ir::Module;
use turbine_interpreter::{
    interpret, Data, ElementType, Program, Tensor, Weights, MAX_CALL_DEPTH, MAX_LOOP_ITERATIONS,
};

/// `@main(n, x)` is `@pow2(n, x)`: x doubled n times, one recursive call per doubling, the
/// recursive call inside `graph.if` at location "recurse".
const POW2: &str = r#"module {
  func.func @main(%n: tensor<i64>, %x: tensor<4xf32>) -> tensor<4xf32> {
    %r = func.call @pow2(%n, %x) : (tensor<i64>, tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
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
}"#;

fn int(value: i64) -> Tensor {
    Tensor {
        shape: vec![],
        element_type: ElementType::I64,
        data: Data::I64(vec![value]),
    }
}

fn bools(tensor: &Tensor) -> Vec<bool> {
    match &tensor.data {
        Data::Bool(values) => values.clone(),
        other => panic!("an i1 result, not {other:?}"),
    }
}

/// Runs the function `name` of `source` on `inputs`.
fn run_named(source: &str, name: &str, inputs: Vec<Tensor>) -> Vec<Tensor> {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, source).expect("test IR parses and verifies");
    // SAFETY: the module is verified and alive for the call.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), Some(name)) };
    interpret(&program.unwrap(), inputs, &Weights::empty()).expect("interpretation succeeds")
}

#[test]
fn recursion_under_graph_if() {
    let x = || Tensor::f32(vec![4], vec![1.0, 2.0, -3.0, 0.5]);
    let results = run(POW2, vec![int(3), x()]);
    close(&f32s(&results[0]), &[8.0, 16.0, -24.0, 4.0]);
    let results = run(POW2, vec![int(0), x()]);
    close(&f32s(&results[0]), &[1.0, 2.0, -3.0, 0.5]);
    // The function run may be the recursive one itself.
    let results = run_named(POW2, "pow2", vec![int(5), x()]);
    close(&f32s(&results[0]), &[32.0, 64.0, -96.0, 16.0]);
}

#[test]
fn call_depth_is_bounded_at_the_call() {
    // @main's call and n recursive ones run n + 1 calls deep: n = MAX_CALL_DEPTH - 1 is the
    // deepest recursion that is evaluated.
    let deepest = MAX_CALL_DEPTH as i64 - 1;
    let x = Tensor::f32(vec![4], vec![0.0, 1.0, -1.0, 0.0]);
    let results = run(POW2, vec![int(deepest), x.clone()]);
    let doubled = f32s(&results[0]);
    assert_eq!(doubled, [0.0, f32::INFINITY, f32::NEG_INFINITY, 0.0]);
    let error = run_with(POW2, vec![int(deepest + 1), x.clone()], &Weights::empty()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"recurse\": 'func.call': call to @pow2 nested deeper than 1024 calls, \
         the interpreter's bound on the depth of calls"
    );
    // A recursion without a base case stops at the bound too.
    let error = run_with(POW2, vec![int(-1), x], &Weights::empty()).unwrap_err();
    assert!(
        error.to_string().contains("nested deeper than 1024 calls"),
        "{error}"
    );
}

#[test]
fn deep_recursion_under_nested_regions_fits_the_stack() {
    // Each call sits under four regions; the deepest recursion must end in the depth error,
    // not in a stack overflow.
    let source = r#"func.func @main(%n: tensor<i64>) -> tensor<i64> {
          %zero = graph.constant dense<0> : tensor<i64>
          %one = graph.constant dense<1> : tensor<i64>
          %t = graph.constant dense<true> : tensor<i1>
          %done = graph.compare le, %n, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
          %r = graph.if %done -> (tensor<i64>) {
            graph.yield %zero : tensor<i64>
          } else {
            %a = graph.if %t -> (tensor<i64>) {
              %b = graph.loop %one, %t iter_args(%n : tensor<i64>) -> (tensor<i64>) {
              ^bb0(%i: tensor<i64>, %v: tensor<i64>):
                %c = graph.if %t -> (tensor<i64>) {
                  %m = graph.sub %v, %one : tensor<i64>, tensor<i64> -> tensor<i64>
                  %s = func.call @main(%m) : (tensor<i64>) -> tensor<i64> loc("deep")
                  %p = graph.add %s, %one : tensor<i64>, tensor<i64> -> tensor<i64>
                  graph.yield %p : tensor<i64>
                } else {
                  graph.yield %v : tensor<i64>
                }
                graph.yield %t, %c : tensor<i1>, tensor<i64>
              }
              graph.yield %b : tensor<i64>
            } else {
              graph.yield %n : tensor<i64>
            }
            graph.yield %a : tensor<i64>
          }
          return %r : tensor<i64>
        }"#;
    let depth = MAX_CALL_DEPTH as i64;
    let results = run(source, vec![int(depth)]);
    assert_eq!(results[0].data, Data::I64(vec![depth]));
    let error = run_with(source, vec![int(depth + 1)], &Weights::empty()).unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("\"deep\": 'func.call': call to @main nested deeper"),
        "{error}"
    );
}

#[test]
fn mutual_recursion_and_call_chains() {
    let parity = r#"module {
      func.func @main(%n: tensor<i64>) -> (tensor<i1>, tensor<i1>) {
        %e = func.call @even(%n) : (tensor<i64>) -> tensor<i1>
        %o = func.call @odd(%n) : (tensor<i64>) -> tensor<i1>
        return %e, %o : tensor<i1>, tensor<i1>
      }
      func.func @even(%n: tensor<i64>) -> tensor<i1> {
        %zero = graph.constant dense<0> : tensor<i64>
        %done = graph.compare eq, %n, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
        %r = graph.if %done -> (tensor<i1>) {
          %t = graph.constant dense<true> : tensor<i1>
          graph.yield %t : tensor<i1>
        } else {
          %one = graph.constant dense<1> : tensor<i64>
          %m = graph.sub %n, %one : tensor<i64>, tensor<i64> -> tensor<i64>
          %o = func.call @odd(%m) : (tensor<i64>) -> tensor<i1>
          graph.yield %o : tensor<i1>
        }
        return %r : tensor<i1>
      }
      func.func @odd(%n: tensor<i64>) -> tensor<i1> {
        %zero = graph.constant dense<0> : tensor<i64>
        %done = graph.compare eq, %n, %zero : tensor<i64>, tensor<i64> -> tensor<i1>
        %r = graph.if %done -> (tensor<i1>) {
          %f = graph.constant dense<false> : tensor<i1>
          graph.yield %f : tensor<i1>
        } else {
          %one = graph.constant dense<1> : tensor<i64>
          %m = graph.sub %n, %one : tensor<i64>, tensor<i64> -> tensor<i64>
          %e = func.call @even(%m) : (tensor<i64>) -> tensor<i1>
          graph.yield %e : tensor<i1>
        }
        return %r : tensor<i1>
      }
    }"#;
    for (n, even) in [(0, true), (1, false), (6, true), (77, false)] {
        let results = run(parity, vec![int(n)]);
        assert_eq!(bools(&results[0]), [even], "even({n})");
        assert_eq!(bools(&results[1]), [!even], "odd({n})");
    }
    // @main -> @affine (twice) -> @scale: each call has values of its own, so the second call
    // of @affine sees its own operands.
    let chain = r#"module {
      func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
        %a = func.call @affine(%x) : (tensor<2xf32>) -> tensor<2xf32>
        %b = func.call @affine(%a) : (tensor<2xf32>) -> tensor<2xf32>
        return %a, %b : tensor<2xf32>, tensor<2xf32>
      }
      func.func @affine(%x: tensor<2xf32>) -> tensor<2xf32> {
        %s = func.call @scale(%x) : (tensor<2xf32>) -> tensor<2xf32>
        %one = graph.constant dense<1.0> : tensor<f32>
        %y = graph.add %s, %one : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
        return %y : tensor<2xf32>
      }
      func.func @scale(%x: tensor<2xf32>) -> tensor<2xf32> {
        %three = graph.constant dense<3.0> : tensor<f32>
        %y = graph.mul %x, %three : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
        return %y : tensor<2xf32>
      }
      func.func @unused(%x: tensor<?xf32>) -> tensor<?xf32> {
        return %x : tensor<?xf32>
      }
    }"#;
    let results = run(chain, vec![Tensor::f32(vec![2], vec![1.0, -2.0])]);
    close(&f32s(&results[0]), &[4.0, -5.0]);
    close(&f32s(&results[1]), &[13.0, -14.0]);
}

#[test]
fn calls_inside_a_loop_body() {
    let source = r#"module {
      func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %n = graph.constant dense<4> : tensor<i64>
        %t = graph.constant dense<true> : tensor<i1>
        %l = graph.loop %n, %t iter_args(%x : tensor<2xf32>) -> (tensor<2xf32>) {
        ^bb0(%i: tensor<i64>, %v: tensor<2xf32>):
          %next = func.call @step(%i, %v) : (tensor<i64>, tensor<2xf32>) -> tensor<2xf32>
          graph.yield %t, %next : tensor<i1>, tensor<2xf32>
        }
        return %l : tensor<2xf32>
      }
      func.func @step(%i: tensor<i64>, %v: tensor<2xf32>) -> tensor<2xf32> {
        %f = graph.cast %i : tensor<i64> -> tensor<f32>
        %twice = graph.add %v, %v : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
        %y = graph.add %twice, %f : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
        return %y : tensor<2xf32>
      }
    }"#;
    let results = run(source, vec![Tensor::f32(vec![2], vec![1.0, 0.0])]);
    // v -> 2v + i for i = 0..3: 1 -> 2 -> 5 -> 12 -> 27 and 0 -> 0 -> 1 -> 4 -> 11.
    close(&f32s(&results[0]), &[27.0, 11.0]);
}

#[test]
fn calls_to_declarations_and_unreadable_callees_are_errors_naming_them() {
    let declared = r#"module {
      func.func private @external(tensor<2xf32>) -> tensor<2xf32>
      func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %y = func.call @external(%x) : (tensor<2xf32>) -> tensor<2xf32> loc("outside")
        return %y : tensor<2xf32>
      }
    }"#;
    let x = || vec![Tensor::f32(vec![2], vec![1.0, 2.0])];
    let error = run_with(declared, x(), &Weights::empty()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"outside\": unsupported by the interpreter: call to @external, which is \
         only a declaration (the interpreter runs functions with a body)"
    );
    let unreadable = r#"module {
      func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
        %y = func.call @wide(%x) : (tensor<2xf32>) -> tensor<2xf32>
        return %y : tensor<2xf32>
      }
      func.func @wide(%x: tensor<2xf32>) -> tensor<2xf32> {
        %c = graph.constant dense<1.0> : tensor<2xf64> loc("double")
        %d = graph.cast %c : tensor<2xf64> -> tensor<2xf32>
        return %d : tensor<2xf32>
      }
    }"#;
    let error = run_with(unreadable, x(), &Weights::empty()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"double\": unsupported by the interpreter: in @wide: element type f64 \
         (f32, f16, bf16, i64, i32, i8, ui8 and i1 are)"
    );
}

#[test]
fn loop_iterations_are_bounded_at_the_loop() {
    let counting = |trip_count: i64| {
        format!(
            r#"func.func @main(%c: tensor<i1>) -> tensor<i64> {{
              %n = graph.constant dense<{trip_count}> : tensor<i64>
              %zero = graph.constant dense<0> : tensor<i64>
              %l = graph.loop %n, %c iter_args(%zero : tensor<i64>) -> (tensor<i64>) {{
              ^bb0(%i: tensor<i64>, %v: tensor<i64>):
                %t = graph.constant dense<true> : tensor<i1>
                graph.yield %t, %i : tensor<i1>, tensor<i64>
              }} loc("forever")
              return %l : tensor<i64>
            }}"#
        )
    };
    let flag = Tensor {
        shape: vec![],
        element_type: ElementType::Bool,
        data: Data::Bool(vec![true]),
    };
    let bound = MAX_LOOP_ITERATIONS as i64;
    let results = run(&counting(bound), vec![flag.clone()]);
    assert_eq!(results[0].data, Data::I64(vec![bound - 1]));
    let error = run_with(&counting(i64::MAX), vec![flag], &Weights::empty()).unwrap_err();
    assert_eq!(
        error.to_string(),
        "\"forever\": 'graph.loop': the condition still holds after 1048576 \
         iterations, the interpreter's bound on the iterations of a loop"
    );
}
