//! The reference interpreter, op by op, against values computed by hand from each operator's
//! definition (ONNX semantics).

mod calls;

use melior::ir::Module;
use turbine_interpreter::{
    interpret, npy, Data, ElementType, InterpretError, Program, Tensor, Weights,
};

fn run_with(
    source: &str,
    inputs: Vec<Tensor>,
    weights: &Weights,
) -> Result<Vec<Tensor>, InterpretError> {
    let context = turbine_dialects::create_context();
    let module = Module::parse(&context, source).expect("test IR parses and verifies");
    // SAFETY: the module is verified and alive for the call.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }?;
    interpret(&program, inputs, weights)
}

fn run(source: &str, inputs: Vec<Tensor>) -> Vec<Tensor> {
    run_with(source, inputs, &Weights::empty()).expect("interpretation succeeds")
}

fn f32s(tensor: &Tensor) -> Vec<f32> {
    tensor.as_f32().expect("an f32 result").to_vec()
}

fn close(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len(), "{actual:?} vs {expected:?}");
    for (a, e) in actual.iter().zip(expected) {
        assert!(
            (a - e).abs() <= 1e-5 * e.abs().max(1.0),
            "{actual:?} vs {expected:?}"
        );
    }
}

fn iota(shape: &[usize]) -> Tensor {
    let count = shape.iter().product::<usize>();
    Tensor::f32(shape.to_vec(), (1..=count).map(|v| v as f32).collect())
}

#[test]
fn conv2d_with_padding_stride_bias_and_relu() {
    let results = run(
        r#"func.func @main(%x: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
          %w = graph.constant dense<1.0> : tensor<1x1x2x2xf32>
          %b = graph.constant dense<-6.0> : tensor<1xf32>
          %plain = graph.conv2d %x, %w : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) ->
              tensor<1x1x2x2xf32>
          %padded = graph.conv2d %x, %w, %b {strides = array<i64: 2, 2>,
              pads = array<i64: 1, 1, 1, 1>, activation = #graph<activation relu>}
              : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
          return %plain, %padded : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
        }"#,
        vec![iota(&[1, 1, 3, 3])],
    );
    close(&f32s(&results[0]), &[12.0, 16.0, 24.0, 28.0]);
    // Windows at (-1,-1), (-1,1), (1,-1), (1,1): sums 1, 5, 11, 28; minus 6; relu.
    close(&f32s(&results[1]), &[0.0, 0.0, 5.0, 22.0]);
}

#[test]
fn conv2d_grouped_and_dilated() {
    let results = run(
        r#"func.func @main(%x: tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>) {
          %dw = graph.constant dense<[[[[2.0]]], [[[-1.0]]]]> : tensor<2x1x1x1xf32>
          %depthwise = graph.conv2d %x, %dw {groups = 2 : i64}
              : (tensor<1x2x3x3xf32>, tensor<2x1x1x1xf32>) -> tensor<1x2x3x3xf32>
          %w = graph.constant dense<1.0> : tensor<1x2x2x2xf32>
          %dilated = graph.conv2d %x, %w {dilations = array<i64: 2, 2>}
              : (tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>) -> tensor<1x1x1x1xf32>
          return %depthwise, %dilated : tensor<1x2x3x3xf32>, tensor<1x1x1x1xf32>
        }"#,
        vec![iota(&[1, 2, 3, 3])],
    );
    let expected: Vec<f32> = (1..=18)
        .map(|v| if v <= 9 { 2.0 * v as f32 } else { -(v as f32) })
        .collect();
    close(&f32s(&results[0]), &expected);
    // Corners of both channels: (1 + 3 + 7 + 9) + (10 + 12 + 16 + 18).
    close(&f32s(&results[1]), &[76.0]);
}

#[test]
fn matrix_products() {
    let results = run(
        r#"func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2xf32>) ->
            (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1x2xf32>) {
          %m = graph.matmul %a, %b : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
          %g = graph.gemm %a, %a, %c {trans_b = true, alpha = 2.0 : f32, beta = 0.5 : f32}
              : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x2xf32>
          %a3 = graph.reshape %a : tensor<2x3xf32> -> tensor<2x1x3xf32>
          %bm = graph.batch_matmul %a3, %b : tensor<2x1x3xf32>, tensor<3x2xf32> -> tensor<2x1x2xf32>
          return %m, %g, %bm : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x1x2xf32>
        }"#,
        vec![
            iota(&[2, 3]),
            iota(&[3, 2]),
            Tensor::f32(vec![2], vec![10.0, 20.0]),
        ],
    );
    // [1 2 3; 4 5 6] x [1 2; 3 4; 5 6] = [22 28; 49 64].
    close(&f32s(&results[0]), &[22.0, 28.0, 49.0, 64.0]);
    // 2 * A A^T + 0.5 * c: A A^T = [14 32; 32 77].
    close(&f32s(&results[1]), &[33.0, 74.0, 69.0, 164.0]);
    close(&f32s(&results[2]), &[22.0, 28.0, 49.0, 64.0]);
}

#[test]
fn elementwise_broadcasting_and_activations() {
    let results = run(
        r#"func.func @main(%a: tensor<2x1xf32>, %b: tensor<3xf32>) ->
            (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
          %s = graph.add %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
          %p = graph.pow %a, %b : tensor<2x1xf32>, tensor<3xf32> -> tensor<2x3xf32>
          %c = graph.clip %b {min = 1.5 : f32, max = 2.5 : f32} : tensor<3xf32>
          %g = graph.gelu %b : tensor<3xf32>
          %e = graph.erf %b : tensor<3xf32>
          return %s, %p, %c, %g, %e : tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>,
              tensor<3xf32>, tensor<3xf32>
        }"#,
        vec![
            Tensor::f32(vec![2, 1], vec![1.0, 2.0]),
            Tensor::f32(vec![3], vec![1.0, 2.0, 3.0]),
        ],
    );
    close(&f32s(&results[0]), &[2.0, 3.0, 4.0, 3.0, 4.0, 5.0]);
    close(&f32s(&results[1]), &[1.0, 1.0, 1.0, 2.0, 4.0, 8.0]);
    close(&f32s(&results[2]), &[1.5, 2.0, 2.5]);
    // erf(1/sqrt2) = 0.682689, erf(sqrt2) = 0.954500, erf(3/sqrt2) = 0.997300.
    close(&f32s(&results[3]), &[0.841345, 1.9545, 2.99595]);
    close(&f32s(&results[4]), &[0.842701, 0.995322, 0.999978]);
}

#[test]
fn normalisations() {
    let results = run(
        r#"func.func @main(%x: tensor<1x2x1x2xf32>, %r: tensor<1x4xf32>) ->
            (tensor<1x2x1x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>) {
          %scale = graph.constant dense<[2.0, 1.0]> : tensor<2xf32>
          %bias = graph.constant dense<[0.0, 1.0]> : tensor<2xf32>
          %mean = graph.constant dense<[1.0, 3.0]> : tensor<2xf32>
          %var = graph.constant dense<[4.0, 1.0]> : tensor<2xf32>
          %bn = graph.batch_norm %x, %scale, %bias, %mean, %var {epsilon = 0.0 : f32}
              : (tensor<1x2x1x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) ->
              tensor<1x2x1x2xf32>
          %gamma = graph.constant dense<1.0> : tensor<4xf32>
          %ln = graph.layer_norm %r, %gamma {epsilon = 0.0 : f32} : (tensor<1x4xf32>, tensor<4xf32>)
              -> tensor<1x4xf32>
          %sm = graph.softmax %r : tensor<1x4xf32>
          return %bn, %ln, %sm : tensor<1x2x1x2xf32>, tensor<1x4xf32>, tensor<1x4xf32>
        }"#,
        vec![iota(&[1, 2, 1, 2]), iota(&[1, 4])],
    );
    // Channel 0: (x - 1) / 2 * 2; channel 1: (x - 3) / 1 + 1.
    close(&f32s(&results[0]), &[0.0, 1.0, 1.0, 2.0]);
    // Mean 2.5, variance 1.25.
    let d = 1.25f32.sqrt();
    close(&f32s(&results[1]), &[-1.5 / d, -0.5 / d, 0.5 / d, 1.5 / d]);
    let total: f32 = (1..=4).map(|v| (v as f32).exp()).sum();
    close(
        &f32s(&results[2]),
        &(1..=4)
            .map(|v| (v as f32).exp() / total)
            .collect::<Vec<_>>(),
    );
}

#[test]
fn pooling_with_padding_and_ceil_mode() {
    let results = run(
        r#"func.func @main(%x: tensor<1x1x3x3xf32>) ->
            (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>,
            tensor<1x1x1x1xf32>) {
          %max = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
              pads = array<i64: 1, 1, 0, 0>} : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
          %avg = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
              pads = array<i64: 1, 1, 0, 0>} : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
          %avgpad = graph.avg_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
              pads = array<i64: 1, 1, 0, 0>, count_include_pad = true} : tensor<1x1x3x3xf32> ->
              tensor<1x1x2x2xf32>
          %ceil = graph.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>,
              ceil_mode = true} : tensor<1x1x3x3xf32> -> tensor<1x1x2x2xf32>
          %global = graph.global_avg_pool %x : tensor<1x1x3x3xf32> -> tensor<1x1x1x1xf32>
          return %max, %avg, %avgpad, %ceil, %global : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>,
              tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>
        }"#,
        vec![iota(&[1, 1, 3, 3])],
    );
    // Windows: {1}, {2,3}, {4,7}, {5,6,8,9}.
    close(&f32s(&results[0]), &[1.0, 3.0, 7.0, 9.0]);
    close(&f32s(&results[1]), &[1.0, 2.5, 5.5, 7.0]);
    close(&f32s(&results[2]), &[0.25, 1.25, 2.75, 7.0]);
    // Ceil mode adds partial windows {3,6}, {7,8}, {9}.
    close(&f32s(&results[3]), &[5.0, 6.0, 8.0, 9.0]);
    close(&f32s(&results[4]), &[5.0]);
}

#[test]
fn data_movement() {
    let results = run(
        r#"func.func @main(%x: tensor<2x3xf32>) ->
            (tensor<3x2xf32>, tensor<2x5xf32>, tensor<2x1xf32>, tensor<1x2xf32>, tensor<2x7xf32>,
            tensor<2x7xf32>, tensor<2x2x3xf32>, tensor<2x3xf32>) {
          %t = graph.transpose %x {permutation = array<i64: 1, 0>} : tensor<2x3xf32> ->
              tensor<3x2xf32>
          %a, %b = graph.split %x {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x1xf32>,
              tensor<2x2xf32>
          %c = graph.concat %b, %x {axis = 1 : i64} : (tensor<2x2xf32>, tensor<2x3xf32>) ->
              tensor<2x5xf32>
          %s = graph.slice %x {starts = array<i64: 1, 0>, steps = array<i64: 1, 2>}
              : tensor<2x3xf32> -> tensor<1x2xf32>
          %reflect = graph.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #graph<pad_mode reflect>}
              : tensor<2x3xf32> -> tensor<2x7xf32>
          %edge = graph.pad %x {pads = array<i64: 0, 2, 0, 2>, mode = #graph<pad_mode edge>}
              : tensor<2x3xf32> -> tensor<2x7xf32>
          %bc = graph.broadcast %x : tensor<2x3xf32> -> tensor<2x2x3xf32>
          %i = graph.constant dense<[[-1, 0, 1], [2, 2, 0]]> : tensor<2x3xi64>
          %row = graph.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
          %gathered = graph.gather %row, %i : (tensor<3xf32>, tensor<2x3xi64>) -> tensor<2x3xf32>
          return %t, %c, %a, %s, %reflect, %edge, %bc, %gathered : tensor<3x2xf32>, tensor<2x5xf32>,
              tensor<2x1xf32>, tensor<1x2xf32>, tensor<2x7xf32>, tensor<2x7xf32>, tensor<2x2x3xf32>,
              tensor<2x3xf32>
        }"#,
        vec![iota(&[2, 3])],
    );
    close(&f32s(&results[0]), &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    close(
        &f32s(&results[1]),
        &[2.0, 3.0, 1.0, 2.0, 3.0, 5.0, 6.0, 4.0, 5.0, 6.0],
    );
    close(&f32s(&results[2]), &[1.0, 4.0]);
    close(&f32s(&results[3]), &[4.0, 6.0]);
    close(
        &f32s(&results[4]),
        &[
            3.0, 2.0, 1.0, 2.0, 3.0, 2.0, 1.0, 6.0, 5.0, 4.0, 5.0, 6.0, 5.0, 4.0,
        ],
    );
    close(
        &f32s(&results[5]),
        &[
            1.0, 1.0, 1.0, 2.0, 3.0, 3.0, 3.0, 4.0, 4.0, 4.0, 5.0, 6.0, 6.0, 6.0,
        ],
    );
    // Numpy aligns shapes from the right: the whole [2, 3] repeats along the new leading dimension.
    close(
        &f32s(&results[6]),
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
    );
    close(&f32s(&results[7]), &[3.0, 1.0, 2.0, 3.0, 3.0, 1.0]);
}

#[test]
fn reductions_comparisons_and_casts() {
    let results = run(
        r#"func.func @main(%x: tensor<2x3xf32>) ->
            (tensor<2xf32>, tensor<1x3xf32>, tensor<2x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) {
          %mean = graph.reduce_mean %x {axes = array<i64: -1>, keepdims = false} : tensor<2x3xf32>
              -> tensor<2xf32>
          %max = graph.reduce_max %x {axes = array<i64: 0>} : tensor<2x3xf32> -> tensor<1x3xf32>
          %three = graph.constant dense<3.0> : tensor<f32>
          %big = graph.compare gt, %x, %three : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
          %zero = graph.constant dense<0.0> : tensor<f32>
          %w = graph.where %big, %x, %zero : tensor<2x3xi1>, tensor<2x3xf32>, tensor<f32> ->
              tensor<2x3xf32>
          %n = graph.neg %x : tensor<2x3xf32>
          %half = graph.constant dense<0.5> : tensor<f32>
          %shifted = graph.sub %n, %half : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
          %i = graph.cast %shifted : tensor<2x3xf32> -> tensor<2x3xi64>
          %seven = graph.constant dense<7.0> : tensor<f32>
          %m = graph.mod %seven, %x : tensor<f32>, tensor<2x3xf32> -> tensor<2x3xf32>
          return %mean, %max, %w, %i, %m : tensor<2xf32>, tensor<1x3xf32>, tensor<2x3xf32>,
              tensor<2x3xi64>, tensor<2x3xf32>
        }"#,
        vec![iota(&[2, 3])],
    );
    close(&f32s(&results[0]), &[2.0, 5.0]);
    close(&f32s(&results[1]), &[4.0, 5.0, 6.0]);
    close(&f32s(&results[2]), &[0.0, 0.0, 0.0, 4.0, 5.0, 6.0]);
    // Truncation toward zero: -1.5 -> -1, ...
    assert_eq!(results[3].data, Data::I64(vec![-1, -2, -3, -4, -5, -6]));
    close(&f32s(&results[4]), &[0.0, 1.0, 1.0, 3.0, 2.0, 1.0]);
}

#[test]
fn control_flow() {
    let source = r#"func.func @main(%c: tensor<i1>, %x: tensor<2xf32>) ->
        (tensor<2xf32>, tensor<2xf32>) {
          %r = graph.if %c -> (tensor<2xf32>) {
            %d = graph.add %x, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
            graph.yield %d : tensor<2xf32>
          } else {
            graph.yield %x : tensor<2xf32>
          }
          %n = graph.constant dense<3> : tensor<i64>
          %l = graph.loop %n, %c iter_args(%x : tensor<2xf32>) -> (tensor<2xf32>) {
          ^bb0(%i: tensor<i64>, %v: tensor<2xf32>):
            %f = graph.cast %i : tensor<i64> -> tensor<f32>
            %next = graph.add %v, %f : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
            %t = graph.constant dense<true> : tensor<i1>
            graph.yield %t, %next : tensor<i1>, tensor<2xf32>
          }
          return %r, %l : tensor<2xf32>, tensor<2xf32>
        }"#;
    let flag = |value| Tensor {
        shape: vec![],
        element_type: ElementType::Bool,
        data: Data::Bool(vec![value]),
    };
    let taken = run(
        source,
        vec![flag(true), Tensor::f32(vec![2], vec![1.0, 2.0])],
    );
    close(&f32s(&taken[0]), &[2.0, 4.0]);
    // Iterations 0, 1, 2 add 0 + 1 + 2.
    close(&f32s(&taken[1]), &[4.0, 5.0]);
    let skipped = run(
        source,
        vec![flag(false), Tensor::f32(vec![2], vec![1.0, 2.0])],
    );
    close(&f32s(&skipped[0]), &[1.0, 2.0]);
    close(&f32s(&skipped[1]), &[1.0, 2.0]);
}

#[test]
fn weights_come_from_the_side_file_and_are_checked() {
    let source = r#"module attributes {graph.weights = "w.safetensors"} {
        func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
          %w = graph.weight "scale" : tensor<2xf32>
          %y = graph.mul %x, %w : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
          return %y : tensor<2xf32>
        }
      }"#;
    let mut weights = Weights::empty();
    weights.insert("scale", Tensor::f32(vec![2], vec![3.0, -1.0]));
    let results = run_with(source, vec![Tensor::f32(vec![2], vec![1.0, 2.0])], &weights).unwrap();
    close(&f32s(&results[0]), &[3.0, -2.0]);

    let mut wrong = Weights::empty();
    wrong.insert("scale", Tensor::f32(vec![3], vec![1.0, 1.0, 1.0]));
    let error = run_with(source, vec![Tensor::f32(vec![2], vec![1.0, 2.0])], &wrong).unwrap_err();
    assert!(
        error
            .to_string()
            .contains("weight 'scale' is F32 of shape [3] in the weights file"),
        "{error}"
    );
    let missing = run_with(
        source,
        vec![Tensor::f32(vec![2], vec![1.0, 2.0])],
        &Weights::empty(),
    )
    .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("weight 'scale' is not in the weights file"),
        "{missing}"
    );
}

#[test]
fn runtime_errors_name_the_op() {
    let source = r#"func.func @main(%i: tensor<1xi64>) -> tensor<1xf32> {
          %row = graph.constant dense<[1.0, 2.0]> : tensor<2xf32>
          %g = graph.gather %row, %i : (tensor<2xf32>, tensor<1xi64>) ->
              tensor<1xf32> loc("embedding")
          return %g : tensor<1xf32>
        }"#;
    let index = Tensor {
        shape: vec![1],
        element_type: ElementType::I64,
        data: Data::I64(vec![5]),
    };
    let error = run_with(source, vec![index], &Weights::empty()).unwrap_err();
    insta::assert_snapshot!(
        error,
        @"\"embedding\": 'graph.gather': gather index 5 is out of range for a dimension of size 2"
    );
    let wrong_shape = run_with(
        source,
        vec![Tensor::f32(vec![1], vec![0.0])],
        &Weights::empty(),
    )
    .unwrap_err();
    insta::assert_snapshot!(
        wrong_shape,
        @"inputs: input #0 is F32 of shape [1] but @main expects I64 of shape [1]"
    );
}

#[test]
fn npy_round_trip_and_bad_files() {
    let tensor = Tensor::f32(vec![2, 3], vec![1.0, -2.0, 3.5, 0.0, 1e-3, 7.0]);
    assert_eq!(npy::parse(&npy::serialize(&tensor)).unwrap(), tensor);
    let ints = Tensor {
        shape: vec![],
        element_type: ElementType::I64,
        data: Data::I64(vec![42]),
    };
    assert_eq!(npy::parse(&npy::serialize(&ints)).unwrap(), ints);
    let bytes = npy::serialize(&tensor);
    assert!(npy::parse(&bytes[..bytes.len() - 1])
        .unwrap_err()
        .contains("bytes of data"));
    assert!(npy::parse(b"not numpy")
        .unwrap_err()
        .contains("not a .npy file"));
    let mut huge = npy::serialize(&tensor);
    let header = String::from_utf8_lossy(&huge[10..]).replace("(2, 3)", "(99999999, 99999999)");
    huge.truncate(10);
    huge.extend(header.as_bytes());
    assert!(npy::parse(&huge).is_err());
}

#[test]
// The expected values are written to the digits of their exact (f64) values, which round to
// the f32 the interpreter gives; the shortest f32 literals would misstate the last digit.
#[allow(clippy::excessive_precision)]
fn arithmetic_activations_flatten_lrn_and_reduce_sum() {
    let results = run(
        r#"func.func @main(%a: tensor<2x2xf32>, %b: tensor<2xf32>, %x: tensor<5xf32>,
            %p: tensor<3xf32>) -> (tensor<2x2xf32>, tensor<5xf32>, tensor<5xf32>, tensor<3xf32>,
            tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>,
            tensor<3xf32>, tensor<5xf32>, tensor<3xf32>) {
          %div = graph.div %a, %b : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
          %half = graph.constant dense<0.5> : tensor<f32>
          %max = graph.max %x, %half : tensor<5xf32>, tensor<f32> -> tensor<5xf32>
          %min = graph.min %x, %half : tensor<5xf32>, tensor<f32> -> tensor<5xf32>
          %sqrt = graph.sqrt %p : tensor<3xf32>
          %relu = graph.relu %x : tensor<5xf32>
          %sigmoid = graph.sigmoid %x : tensor<5xf32>
          %tanh = graph.tanh %x : tensor<5xf32>
          %silu = graph.silu %x : tensor<5xf32>
          %exp = graph.exp %x : tensor<5xf32>
          %log = graph.log %p : tensor<3xf32>
          %abs = graph.abs %x : tensor<5xf32>
          %reciprocal = graph.reciprocal %p : tensor<3xf32>
          return %div, %max, %min, %sqrt, %relu, %sigmoid, %tanh, %silu, %exp, %log, %abs,
              %reciprocal : tensor<2x2xf32>, tensor<5xf32>, tensor<5xf32>, tensor<3xf32>,
              tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>,
              tensor<3xf32>, tensor<5xf32>, tensor<3xf32>
        }"#,
        vec![
            iota(&[2, 2]),
            Tensor::f32(vec![2], vec![2.0, -4.0]),
            Tensor::f32(vec![5], vec![-2.0, -0.5, 0.0, 1.0, 4.0]),
            Tensor::f32(vec![3], vec![1.0, 4.0, 0.25]),
        ],
    );
    // [1 2; 3 4] / [2 -4], the divisor broadcast along the rows.
    close(&f32s(&results[0]), &[0.5, -0.5, 1.5, -1.0]);
    close(&f32s(&results[1]), &[0.5, 0.5, 0.5, 1.0, 4.0]);
    close(&f32s(&results[2]), &[-2.0, -0.5, 0.0, 0.5, 0.5]);
    close(&f32s(&results[3]), &[1.0, 2.0, 0.5]);
    close(&f32s(&results[4]), &[0.0, 0.0, 0.0, 1.0, 4.0]);
    // 1 / (1 + e^-x): 1 / (1 + e^2), 1 / (1 + e^0.5), 1/2, e / (e + 1), 1 / (1 + e^-4).
    close(
        &f32s(&results[5]),
        &[0.11920292, 0.37754067, 0.5, 0.73105858, 0.98201379],
    );
    close(
        &f32s(&results[6]),
        &[-0.96402758, -0.46211716, 0.0, 0.76159416, 0.99932930],
    );
    // x * sigmoid(x).
    close(
        &f32s(&results[7]),
        &[-0.23840584, -0.18877033, 0.0, 0.73105858, 3.92805516],
    );
    close(
        &f32s(&results[8]),
        &[
            0.13533528,
            0.60653066,
            1.0,
            std::f32::consts::E,
            54.59815003,
        ],
    );
    // ln 1, ln 4 = 2 ln 2, ln 1/4.
    close(&f32s(&results[9]), &[0.0, 1.38629436, -1.38629436]);
    close(&f32s(&results[10]), &[2.0, 0.5, 0.0, 1.0, 4.0]);
    close(&f32s(&results[11]), &[1.0, 0.25, 4.0]);

    let results = run(
        r#"func.func @main(%x: tensor<2x3x2xf32>, %c: tensor<1x3x1x1xf32>, %r: tensor<2x3xf32>) ->
            (tensor<2x6xf32>, tensor<1x12xf32>, tensor<6x2xf32>, tensor<1x3x1x1xf32>,
            tensor<1x3x1x1xf32>, tensor<2xf32>, tensor<1x3xf32>, tensor<1x1xf32>) {
          %f1 = graph.flatten %x {axis = 1 : i64} : tensor<2x3x2xf32> -> tensor<2x6xf32>
          %f0 = graph.flatten %x {axis = 0 : i64} : tensor<2x3x2xf32> -> tensor<1x12xf32>
          %f2 = graph.flatten %x {axis = 2 : i64} : tensor<2x3x2xf32> -> tensor<6x2xf32>
          %even = graph.lrn %c {size = 2 : i64, alpha = 2.0 : f32, beta = 1.0 : f32,
              bias = 1.0 : f32} : tensor<1x3x1x1xf32>
          %odd = graph.lrn %c {size = 3 : i64, alpha = 3.0 : f32, beta = 0.5 : f32,
              bias = 4.0 : f32} : tensor<1x3x1x1xf32>
          %rows = graph.reduce_sum %r {axes = array<i64: 1>, keepdims = false} : tensor<2x3xf32> ->
              tensor<2xf32>
          %columns = graph.reduce_sum %r {axes = array<i64: 0>, keepdims = true} : tensor<2x3xf32>
              -> tensor<1x3xf32>
          %all = graph.reduce_sum %r {axes = array<i64: 0, -1>} : tensor<2x3xf32> -> tensor<1x1xf32>
          return %f1, %f0, %f2, %even, %odd, %rows, %columns, %all : tensor<2x6xf32>,
              tensor<1x12xf32>, tensor<6x2xf32>, tensor<1x3x1x1xf32>, tensor<1x3x1x1xf32>,
              tensor<2xf32>, tensor<1x3xf32>, tensor<1x1xf32>
        }"#,
        vec![iota(&[2, 3, 2]), iota(&[1, 3, 1, 1]), iota(&[2, 3])],
    );
    // Flatten keeps the element order and only changes the shape.
    let order: Vec<f32> = (1..=12).map(|v| v as f32).collect();
    for (result, shape) in results[..3].iter().zip([[2, 6], [1, 12], [6, 2]]) {
        assert_eq!(result.shape, shape);
        close(&f32s(result), &order);
    }
    // Size 2 sums channels [c, c + 1] (ceil above, floor below), alpha / size = 1:
    // 1 / (1 + 1 + 4), 2 / (1 + 4 + 9), 3 / (1 + 9) at the clipped top channel.
    close(&f32s(&results[3]), &[1.0 / 6.0, 1.0 / 7.0, 0.3]);
    // Size 3 sums channels [c - 1, c + 1], alpha / size = 1, square root:
    // 1 / sqrt(4 + 1 + 4), 2 / sqrt(4 + 1 + 4 + 9), 3 / sqrt(4 + 4 + 9).
    close(
        &f32s(&results[4]),
        &[1.0 / 3.0, 2.0 / 18f32.sqrt(), 3.0 / 17f32.sqrt()],
    );
    // [1 2 3; 4 5 6]: rows 6 and 15, columns 5 7 9, everything 21 (keepdims by default).
    close(&f32s(&results[5]), &[6.0, 15.0]);
    assert_eq!(results[6].shape, [1, 3]);
    close(&f32s(&results[6]), &[5.0, 7.0, 9.0]);
    assert_eq!(results[7].shape, [1, 1]);
    close(&f32s(&results[7]), &[21.0]);
}
