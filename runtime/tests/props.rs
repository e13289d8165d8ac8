//! Property tests on random instruction streams over every instruction kind, on all four
//! cores of the `mini` target, with barriers:
//! - with every instruction ordered after the previous one of its core, every program runs
//!   and its results equal the sequential reference, on any number of host threads, with the
//!   same cycle count;
//! - with random tokens and waits, a program either runs (and then every pair of conflicting
//!   instructions of a core ran one after the other in the simulated schedule, so the
//!   accepted program is timing-safe, and results equal the reference) or is rejected as a
//!   race; nothing else, and never a crash; and a fair share of the programs run, so the
//!   timing-safety half is exercised.
//!
//! Each core writes only its own LBs, its own slice of its cluster's GB and its own slice of
//! an output DDR buffer, and in odd barrier phases writes no shared slice at all, while it may
//! read everyone's: so cores never race with each other, and within a core only the tokens
//! decide.

mod common;

use common::*;
use proptest::prelude::*;
use proptest::test_runner::{TestCaseError, TestRunner};
use std::cell::Cell;
use std::collections::HashSet;
use turbine_runtime::{
    BinaryOp, BufferId, CoreId, Instr, Placement, Pool2dParams, PoolKind, ReduceKind, RuntimeError,
    Target, TraceFormat, UnaryOp, View,
};

const CORES: [CoreId; 4] = [
    CoreId::new(0, 0),
    CoreId::new(0, 1),
    CoreId::new(1, 0),
    CoreId::new(1, 1),
];
const SLICE: u64 = 64;

/// Where an operand sits: which buffer (meaning depends on the operand), an offset seed and
/// a gap between rows.
#[derive(Debug, Clone, Copy)]
struct Place {
    buf: u8,
    off: u16,
    gap: u8,
}

#[derive(Debug, Clone)]
enum Op {
    DmaIn {
        rows: u8,
        cols: u8,
        src: Place,
        dst: Place,
    },
    DmaLocal {
        rows: u8,
        cols: u8,
        src: Place,
        dst: Place,
    },
    Binary {
        op: u8,
        rows: u8,
        cols: u8,
        bcast: u8,
        a: Place,
        b: Place,
        out: Place,
    },
    Unary {
        op: u8,
        rows: u8,
        cols: u8,
        input: Place,
        out: Place,
    },
    Reduce {
        kind: u8,
        axis: u8,
        rows: u8,
        cols: u8,
        input: Place,
        out: Place,
    },
    Matmul {
        m: u8,
        k: u8,
        n: u8,
        accumulate: bool,
        side: u8,
        a: Place,
        b: Place,
        c: Place,
    },
    Pool {
        max: bool,
        rows: u8,
        cols: u8,
        input: Place,
        out: Place,
    },
    Wait,
    Barrier,
}

fn place() -> impl Strategy<Value = Place> {
    (0u8..8, any::<u16>(), 0u8..3).prop_map(|(buf, off, gap)| Place { buf, off, gap })
}

fn op(with_wait: bool) -> impl Strategy<Value = Op> {
    let dim = 1u8..=4;
    let wide = 1u8..=8;
    prop_oneof![
        (dim.clone(), wide.clone(), place(), place()).prop_map(|(rows, cols, src, dst)| {
            Op::DmaIn {
                rows,
                cols,
                src,
                dst,
            }
        }),
        (dim.clone(), wide.clone(), place(), place()).prop_map(|(rows, cols, src, dst)| {
            Op::DmaLocal {
                rows,
                cols,
                src,
                dst,
            }
        }),
        (
            0u8..5,
            dim.clone(),
            wide.clone(),
            0u8..3,
            place(),
            place(),
            place()
        )
            .prop_map(|(op, rows, cols, bcast, a, b, out)| Op::Binary {
                op,
                rows,
                cols,
                bcast,
                a,
                b,
                out
            }),
        (0u8..6, dim.clone(), wide.clone(), place(), place()).prop_map(
            |(op, rows, cols, input, out)| Op::Unary {
                op,
                rows,
                cols,
                input,
                out
            }
        ),
        (0u8..3, 0u8..2, dim.clone(), wide.clone(), place(), place()).prop_map(
            |(kind, axis, rows, cols, input, out)| Op::Reduce {
                kind,
                axis,
                rows,
                cols,
                input,
                out
            }
        ),
        (
            dim.clone(),
            dim.clone(),
            dim.clone(),
            any::<bool>(),
            0u8..2,
            place(),
            place(),
            place()
        )
            .prop_map(|(m, k, n, accumulate, side, a, b, c)| Op::Matmul {
                m,
                k,
                n,
                accumulate,
                side,
                a,
                b,
                c
            }),
        (any::<bool>(), dim.clone(), wide, place(), place()).prop_map(
            |(max, rows, cols, input, out)| Op::Pool {
                max,
                rows,
                cols,
                input,
                out
            }
        ),
        Just(if with_wait { Op::Wait } else { Op::Barrier }),
        Just(Op::Barrier),
    ]
}

/// A program: per core, ops with a wait mask over the core's earlier instructions.
type Program = Vec<Vec<(Op, u64)>>;

fn program(with_wait: bool) -> impl Strategy<Value = Program> {
    prop::collection::vec(
        prop::collection::vec((op(with_wait), any::<u64>()), 0..10),
        4,
    )
}

/// The buffers of one test device.
struct Buffers {
    input: BufferId,
    out: BufferId,
    gb: [BufferId; 2],
    lb: Vec<[BufferId; 2]>,
}

impl Buffers {
    fn new(rig: &mut Rig, rng: &mut Lcg) -> Buffers {
        let input = rig.ddr_with(&rng.vec(256, -1.0, 1.0));
        let out = rig.alloc(Placement::Ddr, 4 * SLICE as usize);
        let gb = [
            rig.alloc(Placement::Gb(0), 2 * SLICE as usize),
            rig.alloc(Placement::Gb(1), 2 * SLICE as usize),
        ];
        let lb = CORES
            .iter()
            .map(|&c| {
                [
                    rig.alloc(Placement::Lb(c), 64),
                    rig.alloc(Placement::Lb(c), 64),
                ]
            })
            .collect();
        Buffers { input, out, gb, lb }
    }

    fn all(&self) -> Vec<BufferId> {
        let mut v = vec![self.input, self.out, self.gb[0], self.gb[1]];
        v.extend(self.lb.iter().flatten());
        v
    }
}

/// A `rows x cols` view in `[base, base + len)` of `buffer`, rows `gap` apart beyond dense.
fn fit(buffer: BufferId, base: u64, len: u64, rows: u64, cols: u64, p: Place) -> View {
    let mut stride = cols + p.gap as u64;
    if (rows - 1) * stride + cols > len {
        stride = cols;
    }
    let span = (rows - 1) * stride + cols;
    let offset = base + p.off as u64 % (len - span + 1);
    View::new(buffer, offset, &[rows, cols], &[stride, 1])
}

/// Turns generated ops into steps. `writable_shared` is false in odd phases.
fn build(bufs: &Buffers, slot: usize, op: &Op, odd_phase: bool) -> Instr {
    let core = CORES[slot];
    let own_gb = (bufs.gb[core.cluster as usize], core.core as u64 * SLICE);
    let own_out = (bufs.out, slot as u64 * SLICE);
    let lb = |p: Place| bufs.lb[slot][(p.buf % 2) as usize];
    let local = |p: Place, rows, cols| fit(lb(p), 0, 64, rows, cols, p);
    // Sources anywhere the core may read in this phase; destinations it may write.
    let src = |p: Place, rows, cols| {
        let (b, base) = match p.buf % 6 {
            0 | 1 => return local(p, rows, cols),
            2 => own_gb,
            3 => own_out,
            4 if odd_phase => (
                bufs.gb[core.cluster as usize],
                (1 - core.core as u64) * SLICE,
            ),
            5 if odd_phase => (bufs.out, (p.off as u64 % 4) * SLICE),
            _ => return local(p, rows, cols),
        };
        fit(b, base, SLICE, rows, cols, p)
    };
    let dst = |p: Place, rows, cols| match (p.buf % 4, odd_phase) {
        (2, false) => fit(own_gb.0, own_gb.1, SLICE, rows, cols, p),
        (3, false) => fit(own_out.0, own_out.1, SLICE, rows, cols, p),
        _ => local(p, rows, cols),
    };
    match *op {
        Op::DmaIn {
            rows,
            cols,
            src: s,
            dst: d,
        } => {
            let (r, c) = (rows as u64, cols as u64);
            Instr::Dma {
                src: fit(bufs.input, 0, 256, r, c, s),
                dst: dst(d, r, c),
            }
        }
        Op::DmaLocal {
            rows,
            cols,
            src: s,
            dst: d,
        } => {
            let (r, c) = (rows as u64, cols as u64);
            Instr::Dma {
                src: src(s, r, c),
                dst: dst(d, r, c),
            }
        }
        Op::Binary {
            op,
            rows,
            cols,
            bcast,
            a,
            b,
            out,
        } => {
            let (r, c) = (rows as u64, cols as u64);
            let bv = match bcast {
                0 => local(b, r, c),
                1 => local(b, 1, c),
                _ => local(b, r, 1),
            };
            let op = [
                BinaryOp::Add,
                BinaryOp::Sub,
                BinaryOp::Mul,
                BinaryOp::Max,
                BinaryOp::Min,
            ][op as usize];
            Instr::Binary {
                op,
                a: local(a, r, c),
                b: bv,
                out: local(out, r, c),
            }
        }
        Op::Unary {
            op,
            rows,
            cols,
            input,
            out,
        } => {
            let op = [
                UnaryOp::Relu,
                UnaryOp::Neg,
                UnaryOp::Affine {
                    scale: 0.5,
                    shift: 0.25,
                },
                UnaryOp::Clip {
                    min: -0.5,
                    max: 0.5,
                },
                UnaryOp::Tanh,
                UnaryOp::Sigmoid,
            ][op as usize];
            let (r, c) = (rows as u64, cols as u64);
            Instr::Unary {
                op,
                input: local(input, r, c),
                out: local(out, r, c),
            }
        }
        Op::Reduce {
            kind,
            axis,
            rows,
            cols,
            input,
            out,
        } => {
            let (r, c) = (rows as u64, cols as u64);
            let kind = [ReduceKind::Sum, ReduceKind::Max, ReduceKind::Min][kind as usize];
            let (or, oc) = if axis == 0 { (1, c) } else { (r, 1) };
            Instr::Reduce {
                kind,
                axis: axis as usize,
                input: local(input, r, c),
                out: local(out, or, oc),
            }
        }
        Op::Matmul {
            m,
            k,
            n,
            accumulate,
            side,
            a,
            b,
            c,
        } => {
            let (m, k, n) = (m as u64, k as u64, n as u64);
            let inputs = bufs.lb[slot][side as usize];
            let output = bufs.lb[slot][1 - side as usize];
            Instr::Matmul {
                a: fit(inputs, 0, 64, m, k, a),
                b: fit(inputs, 0, 64, k, n, b),
                c: fit(output, 0, 64, m, n, c),
                accumulate,
            }
        }
        Op::Pool {
            max,
            rows,
            cols,
            input,
            out,
        } => {
            let (r, c) = (rows as u64, cols as u64);
            let (kh, kw) = (r.min(2), c.min(2));
            let iv = local(input, r, c);
            let ov = local(out, r - kh + 1, c - kw + 1);
            let four = |v: View| {
                View::new(
                    v.buffer,
                    v.offset,
                    &[1, 1, v.shape[0], v.shape[1]],
                    &[0, 0, v.strides[0], 1],
                )
            };
            Instr::Pool2d {
                kind: if max { PoolKind::Max } else { PoolKind::Avg },
                input: four(iv),
                out: four(ov),
                params: Pool2dParams {
                    kernel: [kh, kw],
                    stride: [1, 1],
                    pad: [0; 4],
                    count_include_pad: false,
                },
            }
        }
        Op::Wait => Instr::Wait,
        Op::Barrier => Instr::Barrier,
    }
}

/// Steps of a program. Barriers are equalised across cores (extra ones appended), as the
/// launch requires. With `serial`, each instruction waits on the previous one of its core;
/// otherwise on a random subset of its earlier ones (from the mask).
fn steps(bufs: &Buffers, program: &Program, serial: bool) -> Vec<Step> {
    let barriers = program
        .iter()
        .map(|ops| ops.iter().filter(|(o, _)| matches!(o, Op::Barrier)).count())
        .max()
        .unwrap_or(0);
    let mut steps = Vec::new();
    for (slot, ops) in program.iter().enumerate() {
        let mut phase = 0;
        let tail = barriers - ops.iter().filter(|(o, _)| matches!(o, Op::Barrier)).count();
        let all = ops
            .iter()
            .map(|(o, m)| (o.clone(), *m))
            .chain((0..tail).map(|_| (Op::Barrier, 0)));
        for (n, (op, mask)) in all.enumerate() {
            let instr = build(bufs, slot, &op, phase % 2 == 1);
            let waits: Vec<usize> = if instr == Instr::Barrier {
                vec![]
            } else if serial {
                n.checked_sub(1).into_iter().collect()
            } else {
                (0..n.min(64))
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| n - 1 - i)
                    .collect()
            };
            if instr == Instr::Barrier {
                phase += 1;
            }
            steps.push(step(CORES[slot], instr, &waits));
        }
    }
    steps
}

/// Compares every buffer of the device with the reference, with a tolerance scaled by the
/// largest value the program produced (f32 on the device, f64 in the reference).
fn check_all(rig: &mut Rig, bufs: &Buffers) {
    let scale = rig.mem.peak.max(1.0);
    for id in bufs.all() {
        let expected = rig.mem.bufs[&id].clone();
        let actual = rig.contents(id);
        assert_close(&actual, &expected, 1e-5, 1e-5 * scale, &format!("{id}"));
    }
}

/// Elements of buffers.
type Elements = HashSet<(BufferId, usize)>;

/// Elements read and written by an instruction.
fn accesses(instr: &Instr) -> (Elements, Elements) {
    let mut reads = HashSet::new();
    let mut writes = HashSet::new();
    let ops = instr_operands(instr);
    for (view, write) in ops {
        for i in indices(view) {
            if write {
                writes.insert((view.buffer, i));
            } else {
                reads.insert((view.buffer, i));
            }
        }
    }
    (reads, writes)
}

fn instr_operands(instr: &Instr) -> Vec<(&View, bool)> {
    match instr {
        Instr::Dma { src, dst } => vec![(src, false), (dst, true)],
        Instr::Matmul { a, b, c, .. } => vec![(a, false), (b, false), (c, true)],
        Instr::Binary { a, b, out, .. } => vec![(a, false), (b, false), (out, true)],
        Instr::Unary { input, out, .. }
        | Instr::Reduce { input, out, .. }
        | Instr::Pool2d { input, out, .. } => {
            vec![(input, false), (out, true)]
        }
        _ => vec![],
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn serial_programs_run_and_match_the_reference(
        program in program(false),
        threads in 1usize..4,
        seed in any::<u64>(),
    ) {
        // A launch needs a core, and `Rig::run` launches on the cores that have instructions.
        prop_assume!(program.iter().any(|ops| !ops.is_empty()));
        let mut outcomes = Vec::new();
        for t in [1, threads] {
            let mut rig = Rig::new(Target::builtin("mini").unwrap());
            rig.dev.set_threads(t).unwrap();
            let bufs = Buffers::new(&mut rig, &mut Lcg::new(seed));
            let steps = steps(&bufs, &program, true);
            let summary = rig.run("random", &steps);
            check_all(&mut rig, &bufs);
            let contents: Vec<Vec<f32>> =
                bufs.all().into_iter().map(|b| rig.contents(b)).collect();
            outcomes.push((summary, contents));
        }
        prop_assert_eq!(
            &outcomes[0].0,
            &outcomes[1].0,
            "cycle counts differ between thread counts"
        );
        let same = outcomes[0].1.iter().flatten()
            .zip(outcomes[1].1.iter().flatten())
            .all(|(a, b)| a.to_bits() == b.to_bits());
        prop_assert!(same, "results differ between thread counts");
    }
}

/// One case of the random-token property: `Ok(true)` when the program ran (and then was
/// timing-safe and matched the reference), `Ok(false)` when it was rejected as a race.
fn random_tokens_case(program: &Program, seed: u64) -> Result<bool, TestCaseError> {
    let mut rig = Rig::new(Target::builtin("mini").unwrap());
    rig.dev.set_tracing(true);
    let bufs = Buffers::new(&mut rig, &mut Lcg::new(seed));
    let steps = steps(&bufs, program, false);
    match launch(&mut rig.dev, "random", &CORES, &steps) {
        Err(RuntimeError::Race { .. }) => return Ok(false),
        Err(e) => return Err(TestCaseError::fail(format!("unexpected error: {e}"))),
        Ok(_) => {}
    }
    rig.mem.run(&steps);
    check_all(&mut rig, &bufs);

    // Simulated (start, end) of every instruction, from the trace.
    let trace: serde_json::Value =
        serde_json::from_str(&rig.dev.trace_text(TraceFormat::Instructions).unwrap()).unwrap();
    let per_core = 3 + 2; // units + DMA channels of mini
    let mut times = std::collections::HashMap::new();
    for e in trace["traceEvents"].as_array().unwrap() {
        if e["ph"] == "X" && e["args"]["launch"] == "random" && e["cat"] != "link" {
            let core = CoreId::new(
                e["pid"].as_u64().unwrap() as u32,
                e["tid"].as_u64().unwrap() as u32 / per_core,
            );
            let index = e["args"]["instruction"].as_u64().unwrap() as usize;
            times.insert(
                (core, index),
                (
                    e["args"]["start_cycle"].as_u64().unwrap(),
                    e["args"]["end_cycle"].as_u64().unwrap(),
                ),
            );
        }
    }
    for core in CORES {
        let mine: Vec<&Step> = steps.iter().filter(|s| s.core == core).collect();
        for j in 0..mine.len() {
            let (rj, wj) = accesses(&mine[j].instr);
            for i in 0..j {
                let (ri, wi) = accesses(&mine[i].instr);
                let conflict = !wi.is_disjoint(&wj) || !wi.is_disjoint(&rj) || !ri.is_disjoint(&wj);
                if conflict {
                    let (_, end_i) = times[&(core, i)];
                    let (start_j, _) = times[&(core, j)];
                    prop_assert!(
                        end_i <= start_j,
                        "{core}: #{i} ends at {end_i} after conflicting #{j} starts at {start_j}"
                    );
                }
            }
        }
    }
    Ok(true)
}

/// The random-token property over generated programs (`random_tokens_case`), counting the programs
/// the runtime accepts: tokens and waits are random, so many programs race, but if (almost) all of
/// them were rejected the timing-safety half of the property would go untested.
#[test]
fn random_tokens_give_a_race_error_or_a_timing_safe_run() {
    let (accepted, rejected) = (Cell::new(0usize), Cell::new(0usize));
    // About a fifth of the programs run: with 192 cases, fewer than 1 in 16 accepted is more than
    // five standard deviations off, so this does not flake on a random seed.
    let config = ProptestConfig {
        cases: 192,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&(program(true), any::<u64>()), |(program, seed)| {
        let counter = if random_tokens_case(&program, seed)? {
            &accepted
        } else {
            &rejected
        };
        counter.set(counter.get() + 1);
        Ok(())
    });
    if let Err(error) = result {
        panic!("{error}\n{runner}");
    }
    let (accepted, rejected) = (accepted.get(), rejected.get());
    assert!(
        rejected > 0,
        "none of {accepted} random-token programs raced: the race check went untested"
    );
    assert!(
        accepted * 16 >= accepted + rejected,
        "only {accepted} of {} random-token programs were accepted (rejected as races: {rejected})",
        accepted + rejected
    );
}
