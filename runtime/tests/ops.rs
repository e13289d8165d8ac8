//! Every operation of the instruction set against the naive reference interpreter of
//! `common`: DMA (strided, 2-D to 4-D, every path), matmul and conv2d on the matrix engine,
//! element-wise, activation, pooling and reduction ops on the vector units, softmax and
//! layer norm composed from those pieces, and multi-core programs with barriers.

mod common;

use common::*;
use turbine_runtime::{
    BinaryOp, Conv2dParams, CoreId, Instr, Placement, Pool2dParams, PoolKind, ReduceKind, Target,
    UnaryOp, View,
};

#[test]
fn dma_copies_strided_views_on_every_path() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(1);
    let src = rig.ddr_with(&rng.vec(6 * 10, -1.0, 1.0));
    let gb = rig.alloc(Placement::Gb(0), 64);
    let lb = rig.alloc(Placement::Lb(C00), 64);
    let lb_peer = rig.alloc(Placement::Lb(CoreId::new(0, 1)), 64);
    let out = rig.alloc(Placement::Ddr, 160);
    let steps = [
        // A 4x5 window at (1,2) of a 6x10 matrix, into GB densely.
        step(
            C00,
            Instr::Dma {
                src: View::new(src, 12, &[4, 5], &[10, 1]),
                dst: View::contiguous(gb, 0, &[4, 5]),
            },
            &[],
        ),
        // GB to LB transposed: dst[j][i] = gb[i][j].
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(gb, 0, &[4, 5]),
                dst: View::new(lb, 0, &[4, 5], &[1, 4]),
            },
            &[0],
        ),
        // LB to the neighbour's LB as a 4-D view with a broadcast (stride-0) source dimension.
        step(
            C00,
            Instr::Dma {
                src: View::new(lb, 0, &[2, 2, 5, 2], &[0, 10, 2, 1]),
                dst: View::contiguous(lb_peer, 0, &[2, 2, 5, 2]),
            },
            &[1],
        ),
        // Neighbour's LB to DDR, every other element.
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(lb_peer, 0, &[40]),
                dst: View::new(out, 1, &[40], &[2]),
            },
            &[2],
        ),
        // DDR to DDR, reversed via a 3-D view.
        step(
            C00,
            Instr::Dma {
                src: View::new(src, 0, &[2, 3, 10], &[30, 10, 1]),
                dst: View::new(out, 81, &[2, 3, 10], &[3, 1, 6]),
            },
            &[],
        ),
    ];
    rig.run("dma", &steps);
    for (id, what) in [(gb, "gb"), (lb, "lb"), (lb_peer, "peer lb"), (out, "ddr")] {
        rig.check(id, 0.0, 0.0, what);
    }
}

#[test]
fn dma_within_one_buffer_has_memmove_semantics() {
    let mut rig = Rig::new(Target::builtin("mini").unwrap());
    let b = rig.ddr_with(&(0..16).map(|x| x as f32).collect::<Vec<_>>());
    run1(
        &mut rig,
        Instr::Dma {
            src: View::contiguous(b, 0, &[10]),
            dst: View::contiguous(b, 3, &[10]),
        },
    );
    let v = rig.contents(b);
    assert_eq!(
        &v[..13],
        &[0., 1., 2., 0., 1., 2., 3., 4., 5., 6., 7., 8., 9.]
    );
    rig.check(b, 0.0, 0.0, "memmove");
}

#[test]
fn matmul_matches_reference_for_plain_accumulating_and_strided_operands() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(2);
    for &(m, k, n) in &[
        (1, 1, 1),
        (3, 5, 7),
        (16, 16, 16),
        (33, 17, 65),
        (64, 128, 48),
    ] {
        let a = lb_with(&mut rig, C00, &rng.vec(m * k, -1.0, 1.0));
        let b = lb_with(&mut rig, C00, &rng.vec(k * n, -1.0, 1.0));
        let c = lb_with(&mut rig, C00, &rng.vec(m * n, -1.0, 1.0));
        let (m, k, n) = (m as u64, k as u64, n as u64);
        let mm = |accumulate| Instr::Matmul {
            a: View::contiguous(a, 0, &[m, k]),
            b: View::contiguous(b, 0, &[k, n]),
            c: View::contiguous(c, 0, &[m, n]),
            accumulate,
        };
        run1(&mut rig, mm(false));
        rig.check(c, 1e-5, 1e-5, &format!("matmul {m}x{k}x{n}"));
        run1(&mut rig, mm(true));
        rig.check(c, 1e-5, 1e-5, &format!("accumulating matmul {m}x{k}x{n}"));
    }
    // Transposed A (read through strides) and a C tile inside a wider row-major matrix.
    let at = lb_with(&mut rig, C00, &rng.vec(8 * 6, -1.0, 1.0)); // A^T stored as [K=8, M=6]
    let b = lb_with(&mut rig, C00, &rng.vec(8 * 5, -1.0, 1.0));
    let c = lb_with(&mut rig, C00, &vec![0.5; 10 * 12]);
    run1(
        &mut rig,
        Instr::Matmul {
            a: View::new(at, 0, &[6, 8], &[1, 6]),
            b: View::contiguous(b, 0, &[8, 5]),
            c: View::new(c, 12 * 2 + 3, &[6, 5], &[12, 1]),
            accumulate: true,
        },
    );
    rig.check(c, 1e-5, 1e-5, "strided matmul");
}

#[test]
fn conv2d_matches_reference_for_strides_pads_dilations_and_groups() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(3);
    let p = |s: u64, pad: [u64; 4], d: u64, g: u64| Conv2dParams {
        stride: [s, s],
        pad,
        dilation: [d, d],
        groups: g,
    };
    // (N, C, H, W, O, KH, KW, params)
    let cases = [
        (1, 3, 8, 8, 4, 3, 3, p(1, [1, 1, 1, 1], 1, 1)),
        (2, 4, 9, 7, 6, 3, 3, p(2, [1, 0, 0, 1], 1, 1)),
        (1, 4, 10, 10, 4, 3, 3, p(1, [2, 2, 2, 2], 2, 1)),
        (1, 8, 6, 6, 4, 3, 3, p(1, [1, 1, 1, 1], 1, 2)),
        (1, 6, 7, 7, 6, 3, 3, p(1, [1, 1, 1, 1], 1, 6)), // depthwise
        (2, 16, 5, 5, 8, 1, 1, p(1, [0; 4], 1, 1)),      // pointwise: no im2col
        (1, 3, 12, 12, 8, 7, 7, p(2, [3, 3, 3, 3], 1, 1)),
    ];
    for (n, c, h, w, o, kh, kw, params) in cases {
        let oh = (h + params.pad[0] + params.pad[2] - params.dilation[0] * (kh - 1) - 1)
            / params.stride[0]
            + 1;
        let ow = (w + params.pad[1] + params.pad[3] - params.dilation[1] * (kw - 1) - 1)
            / params.stride[1]
            + 1;
        let cg = c / params.groups;
        let x = lb_with(&mut rig, C00, &rng.vec((n * c * h * w) as usize, -1.0, 1.0));
        let f = lb_with(
            &mut rig,
            C00,
            &rng.vec((o * cg * kh * kw) as usize, -1.0, 1.0),
        );
        let y = lb_with(
            &mut rig,
            C00,
            &rng.vec((n * o * oh * ow) as usize, -1.0, 1.0),
        );
        for accumulate in [false, true] {
            run1(
                &mut rig,
                Instr::Conv2d {
                    input: View::contiguous(x, 0, &[n, c, h, w]),
                    filter: View::contiguous(f, 0, &[o, cg, kh, kw]),
                    output: View::contiguous(y, 0, &[n, o, oh, ow]),
                    params,
                    accumulate,
                },
            );
            rig.check(
                y,
                1e-4,
                1e-5,
                &format!(
                    "conv {:?} accumulate={accumulate}",
                    (n, c, h, w, o, kh, kw, params)
                ),
            );
        }
    }
    // An output tile written through strides into a larger NCHW buffer (channels 2..6 of 8).
    let x = lb_with(&mut rig, C00, &rng.vec(3 * 5 * 5, -1.0, 1.0));
    let f = lb_with(&mut rig, C00, &rng.vec(4 * 3 * 9, -1.0, 1.0));
    let y = lb_with(&mut rig, C00, &vec![0.0; 8 * 25]);
    run1(
        &mut rig,
        Instr::Conv2d {
            input: View::contiguous(x, 0, &[1, 3, 5, 5]),
            filter: View::contiguous(f, 0, &[4, 3, 3, 3]),
            output: View::new(y, 2 * 25, &[1, 4, 5, 5], &[200, 25, 5, 1]),
            params: p(1, [1, 1, 1, 1], 1, 1),
            accumulate: false,
        },
    );
    rig.check(y, 1e-4, 1e-5, "conv into a channel slice");
    // Operands that are not dense (a column window of a wider image, every other filter, an
    // output of every other column) and an input in the output's buffer, with accumulation:
    // the paths that gather and scatter instead of working in place.
    let arena = lb_with(&mut rig, C00, &rng.vec(2 * 5 * 8 + 4 * 5 * 6, -1.0, 1.0));
    let f = lb_with(&mut rig, C00, &rng.vec(4 * 2 * 9, -1.0, 1.0));
    for accumulate in [false, true] {
        run1(
            &mut rig,
            Instr::Conv2d {
                input: View::new(arena, 1, &[1, 2, 5, 6], &[80, 40, 8, 1]),
                filter: View::new(f, 0, &[2, 2, 3, 3], &[36, 9, 3, 1]),
                output: View::new(arena, 80, &[1, 2, 3, 3], &[120, 30, 6, 2]),
                params: p(2, [1, 1, 1, 0], 1, 1),
                accumulate,
            },
        );
        rig.check(
            arena,
            1e-4,
            1e-5,
            &format!("strided conv, accumulate={accumulate}"),
        );
    }
}

#[test]
fn binary_ops_broadcast_like_numpy() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(4);
    let shapes: [(&[u64], &[u64], &[u64]); 5] = [
        (&[2, 3, 4], &[2, 3, 4], &[2, 3, 4]),
        (&[2, 3, 4], &[3, 1], &[2, 3, 4]),
        (&[4], &[2, 1, 1], &[2, 1, 4]),
        (&[1, 5], &[3, 1], &[3, 5]),
        (&[2, 1, 3, 1], &[4, 1, 2], &[2, 4, 3, 2]),
    ];
    let ops = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Max,
        BinaryOp::Min,
        BinaryOp::Pow,
        BinaryOp::Fmod,
        BinaryOp::Mod,
    ];
    for (sa, sb, so) in shapes {
        let len = |s: &[u64]| s.iter().product::<u64>() as usize;
        let a = lb_with(&mut rig, C00, &rng.vec(len(sa), 0.1, 2.0));
        let b = lb_with(&mut rig, C00, &rng.vec(len(sb), -2.0, 2.0));
        let out = rig.alloc(Placement::Lb(C00), len(so));
        for op in ops {
            run1(
                &mut rig,
                Instr::Binary {
                    op,
                    a: View::contiguous(a, 0, sa),
                    b: View::contiguous(b, 0, sb),
                    out: View::contiguous(out, 0, so),
                },
            );
            rig.check(out, 1e-6, 1e-6, &format!("{op:?} {sa:?} {sb:?}"));
        }
    }
    // NaN propagates through max and min.
    let a = lb_with(&mut rig, C00, &[f32::NAN, 1.0]);
    let b = lb_with(&mut rig, C00, &[0.0, f32::NAN]);
    let out = rig.alloc(Placement::Lb(C00), 2);
    run1(
        &mut rig,
        Instr::Binary {
            op: BinaryOp::Max,
            a: View::contiguous(a, 0, &[2]),
            b: View::contiguous(b, 0, &[2]),
            out: View::contiguous(out, 0, &[2]),
        },
    );
    assert!(rig.contents(out).iter().all(|x| x.is_nan()));
}

#[test]
fn unary_ops_match_their_definitions() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(5);
    let mut values = rng.vec(200, -6.0, 6.0);
    values.extend([0.0, -0.0, 1.0, -1.0, 30.0, -30.0]);
    let positive: Vec<f32> = values.iter().map(|x| x.abs() + 0.01).collect();
    let x = lb_with(&mut rig, C00, &values);
    let xp = lb_with(&mut rig, C00, &positive);
    let out = rig.alloc(Placement::Lb(C00), values.len());
    let n = values.len() as u64;
    let ops = [
        (UnaryOp::Relu, x),
        (UnaryOp::Sigmoid, x),
        (UnaryOp::Tanh, x),
        (UnaryOp::Exp, x),
        (UnaryOp::Log, xp),
        (UnaryOp::Sqrt, xp),
        (UnaryOp::Rsqrt, xp),
        (UnaryOp::Erf, x),
        (UnaryOp::Gelu, x),
        (UnaryOp::GeluTanh, x),
        (UnaryOp::Silu, x),
        (UnaryOp::Neg, x),
        (UnaryOp::Abs, x),
        (UnaryOp::Reciprocal, xp),
        (
            UnaryOp::Clip {
                min: -1.5,
                max: 0.5,
            },
            x,
        ),
        (
            UnaryOp::Affine {
                scale: 0.25,
                shift: -3.0,
            },
            x,
        ),
    ];
    for (op, input) in ops {
        run1(
            &mut rig,
            Instr::Unary {
                op,
                input: View::contiguous(input, 0, &[n]),
                out: View::contiguous(out, 0, &[n]),
            },
        );
        rig.check(out, 2e-6, 1e-6, &format!("{op:?}"));
    }
    // In place, through a 2-D strided view.
    run1(
        &mut rig,
        Instr::Unary {
            op: UnaryOp::Relu,
            input: View::new(x, 1, &[10, 5], &[20, 3]),
            out: View::new(x, 1, &[10, 5], &[20, 3]),
        },
    );
    rig.check(x, 0.0, 0.0, "in-place relu");
}

#[test]
fn pooling_matches_reference() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(6);
    let x = lb_with(&mut rig, C00, &rng.vec(2 * 3 * 9 * 8, -1.0, 1.0));
    let cases = [
        ([3, 3], [2, 2], [1, 1, 1, 1]),
        ([2, 2], [2, 2], [0, 0, 0, 0]),
        ([3, 2], [1, 2], [2, 0, 1, 1]),
        ([9, 8], [1, 1], [0, 0, 0, 0]), // global pooling
    ];
    for (kernel, stride, pad) in cases {
        for kind in [PoolKind::Max, PoolKind::Avg] {
            for count_include_pad in [false, true] {
                let oh = (9 + pad[0] + pad[2] - kernel[0]) / stride[0] + 1;
                let ow = (8 + pad[1] + pad[3] - kernel[1]) / stride[1] + 1;
                let out = rig.alloc(Placement::Lb(C00), (6 * oh * ow) as usize);
                run1(
                    &mut rig,
                    Instr::Pool2d {
                        kind,
                        input: View::contiguous(x, 0, &[2, 3, 9, 8]),
                        out: View::contiguous(out, 0, &[2, 3, oh, ow]),
                        params: Pool2dParams {
                            kernel,
                            stride,
                            pad,
                            count_include_pad,
                        },
                    },
                );
                rig.check(
                    out,
                    1e-6,
                    1e-6,
                    &format!("{kind:?} {kernel:?} {stride:?} {pad:?} {count_include_pad}"),
                );
            }
        }
    }
}

#[test]
fn reductions_match_reference_on_every_axis() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(7);
    let shape = [2u64, 3, 4, 5];
    let x = lb_with(&mut rig, C00, &rng.vec(120, -1.0, 1.0));
    for axis in 0..4 {
        let mut oshape = shape;
        oshape[axis] = 1;
        let out = rig.alloc(Placement::Lb(C00), oshape.iter().product::<u64>() as usize);
        for kind in [
            ReduceKind::Sum,
            ReduceKind::Mean,
            ReduceKind::Max,
            ReduceKind::Min,
            ReduceKind::Prod,
        ] {
            run1(
                &mut rig,
                Instr::Reduce {
                    kind,
                    axis,
                    input: View::contiguous(x, 0, &shape),
                    out: View::contiguous(out, 0, &oshape),
                },
            );
            rig.check(out, 1e-5, 1e-6, &format!("{kind:?} axis {axis}"));
        }
    }
}

/// Softmax along the last axis from the vector pieces, each piece waiting on the previous
/// one's token: max (vector core), x - max (vector engine), exp (vector core), sum (vector
/// core), divide (vector engine).
#[test]
fn softmax_and_layer_norm_compose_from_vector_pieces() {
    let mut rig = Rig::new(roomy());
    let mut rng = Lcg::new(8);
    let (rows, cols) = (6u64, 10u64);
    let data = rng.vec((rows * cols) as usize, -4.0, 4.0);
    let x = lb_with(&mut rig, C00, &data);
    let t = rig.alloc(Placement::Lb(C00), (rows * cols) as usize);
    let r = rig.alloc(Placement::Lb(C00), rows as usize);
    let full = |b| View::contiguous(b, 0, &[rows, cols]);
    let col = |b| View::contiguous(b, 0, &[rows, 1]);
    let softmax = [
        step(
            C00,
            Instr::Reduce {
                kind: ReduceKind::Max,
                axis: 1,
                input: full(x),
                out: col(r),
            },
            &[],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Sub,
                a: full(x),
                b: col(r),
                out: full(t),
            },
            &[0],
        ),
        step(
            C00,
            Instr::Unary {
                op: UnaryOp::Exp,
                input: full(t),
                out: full(t),
            },
            &[1],
        ),
        step(
            C00,
            Instr::Reduce {
                kind: ReduceKind::Sum,
                axis: 1,
                input: full(t),
                out: col(r),
            },
            &[2],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Div,
                a: full(t),
                b: col(r),
                out: full(t),
            },
            &[3],
        ),
    ];
    rig.run("softmax", &softmax);
    rig.check(t, 1e-5, 1e-7, "softmax vs reference pieces");
    let probs = rig.contents(t);
    for i in 0..rows as usize {
        let row = &data[i * cols as usize..][..cols as usize];
        let m = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64;
        let s: f64 = row.iter().map(|&v| (v as f64 - m).exp()).sum();
        let expect: Vec<f32> = row
            .iter()
            .map(|&v| ((v as f64 - m).exp() / s) as f32)
            .collect();
        assert_close(
            &probs[i * cols as usize..][..cols as usize],
            &expect,
            1e-5,
            1e-7,
            "softmax row",
        );
    }

    // Layer norm with gamma and beta: (x - mean) * rsqrt(var + eps) * gamma + beta.
    let gamma = lb_with(&mut rig, C00, &rng.vec(cols as usize, 0.5, 1.5));
    let beta = lb_with(&mut rig, C00, &rng.vec(cols as usize, -0.5, 0.5));
    let d = rig.alloc(Placement::Lb(C00), (rows * cols) as usize);
    let sq = rig.alloc(Placement::Lb(C00), (rows * cols) as usize);
    let v = rig.alloc(Placement::Lb(C00), rows as usize);
    let vecv = |b| View::contiguous(b, 0, &[cols]);
    let ln = [
        step(
            C00,
            Instr::Reduce {
                kind: ReduceKind::Mean,
                axis: 1,
                input: full(x),
                out: col(r),
            },
            &[],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Sub,
                a: full(x),
                b: col(r),
                out: full(d),
            },
            &[0],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Mul,
                a: full(d),
                b: full(d),
                out: full(sq),
            },
            &[1],
        ),
        step(
            C00,
            Instr::Reduce {
                kind: ReduceKind::Mean,
                axis: 1,
                input: full(sq),
                out: col(v),
            },
            &[2],
        ),
        step(
            C00,
            Instr::Unary {
                op: UnaryOp::Affine {
                    scale: 1.0,
                    shift: 1e-5,
                },
                input: col(v),
                out: col(v),
            },
            &[3],
        ),
        step(
            C00,
            Instr::Unary {
                op: UnaryOp::Rsqrt,
                input: col(v),
                out: col(v),
            },
            &[4],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Mul,
                a: full(d),
                b: col(v),
                out: full(d),
            },
            &[5],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Mul,
                a: full(d),
                b: vecv(gamma),
                out: full(d),
            },
            &[6],
        ),
        step(
            C00,
            Instr::Binary {
                op: BinaryOp::Add,
                a: full(d),
                b: vecv(beta),
                out: full(d),
            },
            &[7],
        ),
    ];
    rig.run("layer_norm", &ln);
    rig.check(d, 1e-5, 1e-5, "layer norm");
}

/// Four cores of two clusters each compute one column block of C = A·B (A and B loaded from
/// DDR), write it into their cluster's GB, and after a barrier core 0 of each cluster sends
/// the cluster's GB to DDR.
#[test]
fn multi_core_gemm_with_barrier() {
    let mut rig = Rig::new(Target::builtin("mini").unwrap());
    let mut rng = Lcg::new(9);
    let (m, k, n) = (8u64, 16u64, 32u64);
    let a = rig.ddr_with(&rng.vec((m * k) as usize, -1.0, 1.0));
    let b = rig.ddr_with(&rng.vec((k * n) as usize, -1.0, 1.0));
    let out = rig.alloc(Placement::Ddr, (m * n) as usize);
    let gbs = [
        rig.alloc(Placement::Gb(0), (m * n) as usize),
        rig.alloc(Placement::Gb(1), (m * n) as usize),
    ];
    let cores = [
        CoreId::new(0, 0),
        CoreId::new(0, 1),
        CoreId::new(1, 0),
        CoreId::new(1, 1),
    ];
    let nb = n / 4;
    let mut steps = Vec::new();
    for (i, &c) in cores.iter().enumerate() {
        let (la, lb_, lc) = (
            rig.alloc(Placement::Lb(c), (m * k) as usize),
            rig.alloc(Placement::Lb(c), (k * nb) as usize),
            rig.alloc(Placement::Lb(c), (m * nb) as usize),
        );
        let col0 = i as u64 * nb;
        let gb = gbs[c.cluster as usize];
        steps.push(step(
            c,
            Instr::Dma {
                src: View::contiguous(a, 0, &[m, k]),
                dst: View::contiguous(la, 0, &[m, k]),
            },
            &[],
        ));
        steps.push(step(
            c,
            Instr::Dma {
                src: View::new(b, col0, &[k, nb], &[n, 1]),
                dst: View::contiguous(lb_, 0, &[k, nb]),
            },
            &[],
        ));
        steps.push(step(
            c,
            Instr::Matmul {
                a: View::contiguous(la, 0, &[m, k]),
                b: View::contiguous(lb_, 0, &[k, nb]),
                c: View::contiguous(lc, 0, &[m, nb]),
                accumulate: false,
            },
            &[0, 1],
        ));
        steps.push(step(
            c,
            Instr::Unary {
                op: UnaryOp::Relu,
                input: View::contiguous(lc, 0, &[m, nb]),
                out: View::contiguous(lc, 0, &[m, nb]),
            },
            &[2],
        ));
        steps.push(step(
            c,
            Instr::Dma {
                src: View::contiguous(lc, 0, &[m, nb]),
                dst: View::new(gb, col0, &[m, nb], &[n, 1]),
            },
            &[3],
        ));
        steps.push(step(c, Instr::Barrier, &[]));
    }
    for cl in 0..2u32 {
        let c = CoreId::new(cl, 0);
        let half = n / 2 * cl as u64;
        steps.push(step(
            c,
            Instr::Dma {
                src: View::new(gbs[cl as usize], half, &[m, n / 2], &[n, 1]),
                dst: View::new(out, half, &[m, n / 2], &[n, 1]),
            },
            &[],
        ));
    }
    rig.run("gemm4", &steps);
    rig.check(out, 1e-5, 1e-5, "4-core gemm");
}
