//! NaN, infinities, signed zeros and denormals through the kernels, against ONNX's definitions
//! (and onnxruntime where ONNX says nothing): the semantics `tools/scripts/special-values.py`
//! checks end to end, pinned here without Python. The kernels are called directly, so this test
//! links no MLIR.

use turbine_interpreter::kernels::{
    conv::conv2d,
    elementwise::{binary, compare, select, unary, Binary, Predicate, Unary},
    matmul::gemm,
    normalization::{lrn, softmax},
    pooling::pool2d,
    reduction::{reduce, Reduction},
    Window,
};
use turbine_interpreter::{Data, ElementType, Tensor};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;
const DENORMAL: f32 = 1e-40;

/// Bit-exact equality, any NaN matching any NaN: the sign of zero and denormals count.
fn same(actual: &[f32], expected: &[f32]) {
    let matches = actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(a, e)| (a.is_nan() && e.is_nan()) || a.to_bits() == e.to_bits());
    assert!(matches, "{actual:?} vs {expected:?}");
}

fn floats(data: Data) -> Vec<f32> {
    match data {
        Data::F32(values) => values,
        other => panic!("expected f32 values, got {other:?}"),
    }
}

fn window(kernel: usize, pads: [usize; 4]) -> Window {
    Window {
        kernel: [kernel, kernel],
        strides: [1, 1],
        pads,
        dilations: [1, 1],
    }
}

#[test]
fn relu_keeps_nan_and_negative_zero() {
    let values = [NAN, INF, -INF, -0.0, 0.0, DENORMAL, -DENORMAL, -2.0];
    let expected = [NAN, INF, 0.0, -0.0, 0.0, DENORMAL, 0.0, 0.0];
    same(&unary(Unary::Relu, &values), &expected);
}

#[test]
fn clip_replaces_only_values_outside_its_bounds() {
    let values = [NAN, INF, -INF, -0.0, DENORMAL, 7.0];
    let clip = Unary::Clip { min: 0.0, max: 6.0 };
    same(&unary(clip, &values), &[NAN, 6.0, 0.0, -0.0, DENORMAL, 6.0]);
    // A NaN bound has nothing below or above it.
    let unbounded_below = Unary::Clip { min: NAN, max: 6.0 };
    same(
        &unary(unbounded_below, &values),
        &[NAN, 6.0, -INF, -0.0, DENORMAL, 6.0],
    );
}

#[test]
fn max_and_min_propagate_nan_from_either_operand() {
    let a = Tensor::f32(vec![4], vec![NAN, 1.0, INF, -INF]);
    let b = Tensor::f32(vec![4], vec![1.0, NAN, NAN, 5.0]);
    let max = floats(binary(Binary::Max, &a, &b, &[4]).unwrap());
    same(&max, &[NAN, NAN, NAN, 5.0]);
    let min = floats(binary(Binary::Min, &a, &b, &[4]).unwrap());
    same(&min, &[NAN, NAN, NAN, -INF]);
}

#[test]
fn arithmetic_follows_ieee_and_keeps_denormals() {
    let a = Tensor::f32(vec![6], vec![1.0, -1.0, 0.0, INF, -0.0, DENORMAL]);
    let b = Tensor::f32(vec![6], vec![0.0, 0.0, 0.0, 0.0, 1.0, 2.0]);
    let quotient = floats(binary(Binary::Div, &a, &b, &[6]).unwrap());
    same(&quotient, &[INF, -INF, NAN, INF, -0.0, DENORMAL / 2.0]);
    let product = floats(binary(Binary::Mul, &a, &b, &[6]).unwrap());
    same(&product, &[0.0, -0.0, 0.0, NAN, -0.0, DENORMAL * 2.0]);
    let roots = unary(Unary::Sqrt, &[-1.0, -DENORMAL, -0.0, DENORMAL]);
    same(&roots, &[NAN, NAN, -0.0, DENORMAL.sqrt()]);
    let logarithms = unary(Unary::Log, &[-1.0, 0.0, -0.0, INF]);
    same(&logarithms, &[NAN, -INF, -INF, INF]);
    same(&unary(Unary::Erf, &[NAN, -INF]), &[NAN, -1.0]);
}

#[test]
fn comparisons_with_nan_are_false_and_where_keeps_signed_zero() {
    let a = Tensor::f32(vec![3], vec![NAN, -0.0, INF]);
    let b = Tensor::f32(vec![3], vec![NAN, 0.0, INF]);
    let equal = compare(Predicate::Eq, &a, &b, &[3]);
    assert!(matches!(equal, Data::Bool(ref v) if v == &[false, true, true]));
    let less_or_equal = compare(Predicate::Le, &a, &b, &[3]);
    assert!(matches!(less_or_equal, Data::Bool(ref v) if v == &[false, true, true]));
    let condition = Tensor {
        shape: vec![3],
        element_type: ElementType::Bool,
        data: Data::Bool(vec![true, true, false]),
    };
    same(&floats(select(&condition, &a, &b, &[3])), &[NAN, -0.0, INF]);
}

#[test]
fn max_pool_of_a_window_with_nan_is_nan() {
    // 1x1x3x3, 2x2 windows: NaN at (0, 1) is second in the upper left window and first in the
    // upper right one; the lower right window holds 4 and three -inf. Then windows of -inf and
    // padding: padding never wins.
    let input = [1.0, NAN, 2.0, 3.0, 4.0, -INF, 5.0, -INF, -INF];
    let pooled = pool2d(
        &input,
        [1, 1, 3, 3],
        window(2, [0; 4]),
        [1, 1, 2, 2],
        true,
        false,
    );
    same(&pooled, &[NAN, NAN, 5.0, 4.0]);
    let corner = [-INF, -INF, -INF, -INF];
    let padded = pool2d(
        &corner,
        [1, 1, 2, 2],
        window(2, [1, 1, 0, 0]),
        [1, 1, 2, 2],
        true,
        false,
    );
    same(&padded, &[-INF, -INF, -INF, -INF]);
}

#[test]
fn reduce_max_propagates_nan() {
    let input = [1.0, NAN, 2.0, -INF, -INF, -INF, 3.0, 4.0, NAN];
    same(
        &reduce(&input, &[3, 3], &[1], Reduction::Max),
        &[NAN, -INF, NAN],
    );
    same(
        &reduce(&input, &[3, 3], &[0], Reduction::Max),
        &[3.0, NAN, NAN],
    );
}

#[test]
fn softmax_of_a_row_with_nan_or_infinity_is_nan() {
    let rows = [
        1.0, NAN, 2.0, INF, 1.0, 2.0, -INF, -INF, -INF, -INF, 0.0, 1.0,
    ];
    let result = softmax(&rows, &[4, 3], 1);
    assert!(result[..9].iter().all(|v| v.is_nan()), "{result:?}");
    same(&result[9..10], &[0.0]);
}

#[test]
fn lrn_sums_each_window_on_its_own() {
    // size 3 over 4 channels: NaN in channel 0 reaches channels 0 and 1 only.
    let input = [NAN, 1.0, 2.0, 3.0];
    let result = lrn(&input, &[1, 4, 1, 1], 3, 1e-4, 0.75, 1.0);
    assert!(result[0].is_nan() && result[1].is_nan(), "{result:?}");
    assert!(result[2..].iter().all(|v| v.is_finite()), "{result:?}");
}

#[test]
fn convolution_multiplies_the_padding_by_the_weights() {
    // 1x1x1x1 input 2.0, 1x1x1x2 filter [inf, 1], a column of padding on each side: the first
    // output reads padding under the infinite weight (0 * inf), the second the input under it.
    let window = Window {
        kernel: [1, 2],
        strides: [1, 1],
        pads: [0, 1, 0, 1],
        dilations: [1, 1],
    };
    let output = conv2d(
        (&[2.0], [1, 1, 1, 1]),
        (&[INF, 1.0], [1, 1, 1, 2]),
        None,
        window,
        1,
        [1, 1, 1, 2],
    );
    same(&output, &[NAN, INF]);
}

#[test]
fn gemm_with_beta_zero_does_not_read_c() {
    let c: (&[f32], &[usize]) = (&[NAN, INF], &[2]);
    let product = gemm(
        &[1.0, 2.0],
        [1, 2],
        &[1.0, 0.0, 1.0, 0.0],
        [2, 2],
        Some(c),
        1.0,
        0.0,
        false,
        false,
    );
    same(&product, &[3.0, 0.0]);
    let with_c = gemm(
        &[1.0, 2.0],
        [1, 2],
        &[1.0, 0.0, 1.0, 0.0],
        [2, 2],
        Some(c),
        1.0,
        1.0,
        false,
        false,
    );
    same(&with_c, &[NAN, INF]);
}
