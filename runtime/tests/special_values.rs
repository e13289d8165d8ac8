//! NaN, infinities, signed zeros and denormals through the instructions, each result checked bit
//! for bit against the value ONNX's operator gives (the semantics the interpreter implements on
//! its own): max-like operations propagate NaN, activations keep `-0.0`, the padding of a
//! convolution is a zero multiplied by the weights, and nothing flushes denormals.

mod common;

use common::*;
use turbine_runtime::{
    BinaryOp, Conv2dParams, Instr, Placement, Pool2dParams, PoolKind, ReduceKind, UnaryOp, View,
};

const NAN: f32 = f32::NAN;
const INF: f32 = f32::INFINITY;
const DENORMAL: f32 = 1e-40;

/// Bit-exact equality, any NaN matching any NaN.
fn same(actual: &[f32], expected: &[f32], what: &str) {
    let matches = actual.len() == expected.len()
        && actual
            .iter()
            .zip(expected)
            .all(|(a, e)| (a.is_nan() && e.is_nan()) || a.to_bits() == e.to_bits());
    assert!(matches, "{what}: {actual:?} vs {expected:?}");
}

/// `op` on `values` (one dimension) on core (0, 0), read back.
fn unary(op: UnaryOp, values: &[f32]) -> Vec<f32> {
    let mut rig = Rig::new(roomy());
    let n = values.len() as u64;
    let input = lb_with(&mut rig, C00, values);
    let out = rig.alloc(Placement::Lb(C00), values.len());
    run1(
        &mut rig,
        Instr::Unary {
            op,
            input: View::contiguous(input, 0, &[n]),
            out: View::contiguous(out, 0, &[n]),
        },
    );
    rig.contents(out)
}

#[test]
fn activations_keep_nan_negative_zero_and_denormals() {
    let values = [NAN, INF, -INF, -0.0, 0.0, DENORMAL, -DENORMAL, 7.0];
    let relu = [NAN, INF, 0.0, -0.0, 0.0, DENORMAL, 0.0, 7.0];
    same(&unary(UnaryOp::Relu, &values), &relu, "relu");
    let clip = UnaryOp::Clip { min: 0.0, max: 6.0 };
    let clipped = [NAN, 6.0, 0.0, -0.0, 0.0, DENORMAL, 0.0, 6.0];
    same(&unary(clip, &values), &clipped, "clip");
    // A NaN bound has nothing below it.
    let unbounded_below = UnaryOp::Clip { min: NAN, max: 6.0 };
    let clipped = [NAN, 6.0, -INF, -0.0, 0.0, DENORMAL, -DENORMAL, 6.0];
    same(
        &unary(unbounded_below, &values),
        &clipped,
        "clip with a NaN min",
    );
    let negated = [NAN, -INF, INF, 0.0, -0.0, -DENORMAL, DENORMAL, -7.0];
    same(&unary(UnaryOp::Neg, &values), &negated, "neg");
    same(
        &unary(UnaryOp::Sqrt, &[-1.0, -DENORMAL, -0.0]),
        &[NAN, NAN, -0.0],
        "sqrt",
    );
}

#[test]
fn max_and_min_propagate_nan_from_either_operand() {
    let mut rig = Rig::new(roomy());
    let a = lb_with(&mut rig, C00, &[NAN, 1.0, INF, -INF]);
    let b = lb_with(&mut rig, C00, &[1.0, NAN, NAN, 5.0]);
    let out = rig.alloc(Placement::Lb(C00), 4);
    for (op, expected) in [
        (BinaryOp::Max, [NAN, NAN, NAN, 5.0]),
        (BinaryOp::Min, [NAN, NAN, NAN, -INF]),
    ] {
        run1(
            &mut rig,
            Instr::Binary {
                op,
                a: View::contiguous(a, 0, &[4]),
                b: View::contiguous(b, 0, &[4]),
                out: View::contiguous(out, 0, &[4]),
            },
        );
        same(&rig.contents(out), &expected, &format!("{op:?}"));
    }
}

#[test]
fn max_pool_and_reductions_propagate_nan() {
    let mut rig = Rig::new(roomy());
    // 1x1x3x3, 2x2 windows: NaN at (0, 1) is in both upper windows; the lower right window
    // holds -inf and 4.
    let input = lb_with(
        &mut rig,
        C00,
        &[1.0, NAN, 2.0, 3.0, 4.0, -INF, 5.0, -INF, -INF],
    );
    let pooled = rig.alloc(Placement::Lb(C00), 4);
    let params = Pool2dParams {
        kernel: [2, 2],
        stride: [1, 1],
        pad: [0; 4],
        count_include_pad: false,
    };
    run1(
        &mut rig,
        Instr::Pool2d {
            kind: PoolKind::Max,
            input: View::contiguous(input, 0, &[1, 1, 3, 3]),
            out: View::contiguous(pooled, 0, &[1, 1, 2, 2]),
            params,
        },
    );
    same(&rig.contents(pooled), &[NAN, NAN, 5.0, 4.0], "max pool");
    let reduced = rig.alloc(Placement::Lb(C00), 3);
    for (kind, expected) in [
        (ReduceKind::Max, [NAN, 4.0, 5.0]),
        (ReduceKind::Min, [NAN, -INF, -INF]),
    ] {
        run1(
            &mut rig,
            Instr::Reduce {
                kind,
                axis: 1,
                input: View::contiguous(input, 0, &[3, 3]),
                out: View::contiguous(reduced, 0, &[3, 1]),
            },
        );
        same(&rig.contents(reduced), &expected, &format!("{kind:?}"));
    }
}

#[test]
fn products_multiply_padding_and_zeros_like_any_value() {
    let mut rig = Rig::new(roomy());
    // conv2d of a 1x1x1x1 input 2.0 with a 1x1x1x2 filter [inf, 1], one column of padding on
    // each side: the first output is 0 * inf + 2 * 1, the second 2 * inf + 0 * 1.
    let input = lb_with(&mut rig, C00, &[2.0]);
    let filter = lb_with(&mut rig, C00, &[INF, 1.0]);
    let output = rig.alloc(Placement::Lb(C00), 2);
    let params = Conv2dParams {
        pad: [0, 1, 0, 1],
        ..Conv2dParams::default()
    };
    run1(
        &mut rig,
        Instr::Conv2d {
            input: View::contiguous(input, 0, &[1, 1, 1, 1]),
            filter: View::contiguous(filter, 0, &[1, 1, 1, 2]),
            output: View::contiguous(output, 0, &[1, 1, 1, 2]),
            params,
            accumulate: false,
        },
    );
    same(&rig.contents(output), &[NAN, INF], "conv2d");
    // [NaN, 1] x [[0], [0]] and [inf, 1] x [[0], [0]]: NaN * 0 and inf * 0 are NaN.
    let a = lb_with(&mut rig, C00, &[NAN, 1.0, INF, 1.0]);
    let b = lb_with(&mut rig, C00, &[0.0, 0.0]);
    let c = rig.alloc(Placement::Lb(C00), 2);
    run1(
        &mut rig,
        Instr::Matmul {
            a: View::contiguous(a, 0, &[2, 2]),
            b: View::contiguous(b, 0, &[2, 1]),
            c: View::contiguous(c, 0, &[2, 1]),
            accumulate: false,
        },
    );
    same(&rig.contents(c), &[NAN, NAN], "matmul");
}
