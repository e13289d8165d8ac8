//! Every misuse comes back as a typed error whose message names the culprit, and a rejected
//! launch changes nothing on the device.

mod common;

use common::*;
use turbine_runtime::{
    BufferId, CoreId, Device, Instr, Placement, ReduceKind, RuntimeError, Target, Token, UnaryOp,
    UnitKind, View,
};

const C01: CoreId = CoreId::new(0, 1);
const C10: CoreId = CoreId::new(1, 0);

fn mini() -> Device {
    Device::new(Target::builtin("mini").unwrap())
}

fn v(b: BufferId, n: u64) -> View {
    View::contiguous(b, 0, &[n])
}

fn dma(src: BufferId, dst: BufferId, n: u64) -> Instr {
    Instr::Dma {
        src: v(src, n),
        dst: v(dst, n),
    }
}

fn relu(b: BufferId, n: u64) -> Instr {
    Instr::Unary {
        op: UnaryOp::Relu,
        input: v(b, n),
        out: v(b, n),
    }
}

/// Records one instruction in a fresh launch and returns the error it gets (from recording
/// or from `launch_end`).
fn reject(dev: &mut Device, cores: &[CoreId], steps: &[Step]) -> RuntimeError {
    launch(dev, "bad", cores, steps).expect_err("the launch should be rejected")
}

/// Runs a launch that checks and times fine and returns the fault its execution meets, which
/// the next wait for the device reports.
fn fault(dev: &mut Device, cores: &[CoreId], steps: &[Step]) -> RuntimeError {
    launch(dev, "bad", cores, steps).expect("the launch is well formed");
    dev.synchronize()
        .expect_err("the launch should fault while it executes")
}

fn assert_mentions(e: &RuntimeError, needles: &[&str]) {
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} lacks {n:?}");
    }
}

#[test]
fn allocations_beyond_capacity_are_refused_and_name_the_memory() {
    let mut dev = mini();
    let a = dev.alloc(Placement::Lb(C00), 16_000).unwrap();
    let e = dev.alloc(Placement::Lb(C00), 1024).unwrap_err();
    assert!(matches!(
        e,
        RuntimeError::OutOfMemory {
            requested: 1024,
            in_use: 16_000,
            capacity: 16_384,
            ..
        }
    ));
    assert_mentions(&e, &["lb of core (0,0)", "1024 bytes requested"]);
    // Another core's LB is separate; freeing makes room again.
    dev.alloc(Placement::Lb(C01), 16_384).unwrap();
    dev.free(a).unwrap();
    dev.alloc(Placement::Lb(C00), 16_384).unwrap();
    assert_mentions(
        &dev.alloc(Placement::Gb(1), 1 << 20).unwrap_err(),
        &["gb of cluster 1"],
    );
    assert_mentions(&dev.alloc(Placement::Ddr, 32 << 20).unwrap_err(), &["ddr"]);
}

#[test]
fn bad_sizes_cores_clusters_and_handles_are_refused() {
    let mut dev = mini();
    assert_mentions(
        &dev.alloc(Placement::Ddr, 6).unwrap_err(),
        &["multiple of 4"],
    );
    // An empty buffer is a tensor with a zero-size dimension: allowed, and it holds nothing.
    let empty = dev.alloc(Placement::Ddr, 0).unwrap();
    assert_eq!(dev.read(empty, 0, 0).unwrap(), Vec::<f32>::new());
    dev.free(empty).unwrap();
    let e = dev.alloc(Placement::Lb(CoreId::new(0, 7)), 64).unwrap_err();
    assert!(matches!(e, RuntimeError::NoSuchCore { .. }));
    assert_mentions(&e, &["core (0,7)", "mini", "2 clusters x 2 cores"]);
    assert_mentions(
        &dev.alloc(Placement::Gb(2), 64).unwrap_err(),
        &["cluster 2"],
    );
    let b = dev.alloc(Placement::Ddr, 64).unwrap();
    dev.free(b).unwrap();
    assert_eq!(dev.free(b).unwrap_err(), RuntimeError::UnknownBuffer(b));
    assert_mentions(&dev.write(b, 0, &[1.0]).unwrap_err(), &["buffer"]);
    assert_mentions(&dev.set_threads(0).unwrap_err(), &["thread"]);
    assert!(matches!(
        Device::open("nope").unwrap_err(),
        RuntimeError::Target(_)
    ));
}

#[test]
fn the_host_reaches_only_ddr_and_only_in_bounds() {
    let mut dev = mini();
    let lb = dev.alloc(Placement::Lb(C00), 64).unwrap();
    let e = dev.read(lb, 0, 1).unwrap_err();
    assert!(matches!(e, RuntimeError::HostAccess { .. }));
    assert_mentions(&e, &["only ddr", "lb"]);
    let d = dev.alloc(Placement::Ddr, 64).unwrap();
    assert!(matches!(
        dev.write(d, 10, &[0.0; 7]).unwrap_err(),
        RuntimeError::OutOfBounds {
            end: 17,
            len: 16,
            ..
        }
    ));
    assert!(dev.read(d, u64::MAX, 2).is_err());
}

#[test]
fn launches_on_missing_cores_and_instructions_on_foreign_cores_are_refused() {
    let mut dev = mini();
    let e = dev.launch_begin("k", &[CoreId::new(2, 0)]).unwrap_err();
    assert_mentions(&e, &["core (2,0) does not exist"]);
    assert_mentions(&dev.launch_begin("k", &[]).unwrap_err(), &["no cores"]);
    let b = dev.alloc(Placement::Lb(C01), 64).unwrap();
    let e = reject(&mut dev, &[C00], &[step(C01, relu(b, 16), &[])]);
    assert!(matches!(e, RuntimeError::CoreNotInLaunch { .. }));
    assert_mentions(&e, &["core (0,1)", "launch 'bad'"]);
    dev.launch_begin("k", &[C00]).unwrap();
    let e = dev
        .enqueue(CoreId::new(0, 9), Instr::Wait, &[])
        .unwrap_err();
    assert!(matches!(e, RuntimeError::NoSuchCore { .. }));
}

#[test]
fn launch_state_errors() {
    let mut dev = mini();
    assert!(matches!(
        dev.enqueue(C00, Instr::Wait, &[]),
        Err(RuntimeError::NoOpenLaunch(_))
    ));
    assert!(matches!(
        dev.launch_end(),
        Err(RuntimeError::NoOpenLaunch(_))
    ));
    let b = dev.alloc(Placement::Lb(C00), 64).unwrap();
    dev.launch_begin("first", &[C00]).unwrap();
    assert_mentions(
        &dev.launch_begin("second", &[C00]).unwrap_err(),
        &["'first' is still being recorded"],
    );
    dev.enqueue(C00, relu(b, 16), &[]).unwrap();
    let e = dev.free(b).unwrap_err();
    assert!(matches!(e, RuntimeError::BufferInUse { .. }));
    assert_mentions(&e, &["buffer", "first"]);
    // Allocation during recording is fine.
    dev.alloc(Placement::Lb(C00), 64).unwrap();
    dev.launch_end().unwrap();
    dev.free(b).unwrap();
}

#[test]
fn unknown_foreign_and_stale_tokens_are_refused() {
    let mut dev = mini();
    let b = dev.alloc(Placement::Lb(C00), 64).unwrap();
    let c = dev.alloc(Placement::Lb(C01), 64).unwrap();
    dev.launch_begin("k", &[C00, C01]).unwrap();
    let e = dev.enqueue(C00, Instr::Wait, &[Token(999)]).unwrap_err();
    assert!(matches!(e, RuntimeError::UnknownToken { .. }));
    assert_mentions(&e, &["token 999", "core (0,0)"]);
    assert!(matches!(
        dev.launch_end(),
        Err(RuntimeError::LaunchAborted { .. })
    ));

    dev.launch_begin("k", &[C00, C01]).unwrap();
    let t = dev.enqueue(C01, relu(c, 16), &[]).unwrap();
    let e = dev.enqueue(C00, relu(b, 16), &[t]).unwrap_err();
    assert!(matches!(e, RuntimeError::ForeignToken { .. }));
    assert_mentions(&e, &["core (0,1) produced", "barrier"]);
    let _ = dev.launch_end();

    dev.launch_begin("k", &[C00]).unwrap();
    let old = dev.enqueue(C00, relu(b, 16), &[]).unwrap();
    dev.launch_end().unwrap();
    dev.launch_begin("k2", &[C00]).unwrap();
    assert!(matches!(
        dev.enqueue(C00, relu(b, 16), &[old]),
        Err(RuntimeError::UnknownToken { .. })
    ));
}

#[test]
fn a_recording_error_discards_the_whole_launch() {
    let mut dev = mini();
    let d = dev.alloc(Placement::Ddr, 64).unwrap();
    dev.write(d, 0, &[-1.0; 16]).unwrap();
    let l = dev.alloc(Placement::Lb(C00), 64).unwrap();
    dev.launch_begin("k", &[C00]).unwrap();
    dev.enqueue(C00, dma(d, l, 16), &[]).unwrap();
    assert!(dev.enqueue(C00, dma(l, d, 17), &[]).is_err());
    // Later calls keep failing with the first error as the cause.
    let e = dev.enqueue(C00, Instr::Wait, &[]).unwrap_err();
    assert!(matches!(e, RuntimeError::LaunchAborted { .. }));
    assert_mentions(&e, &["discarded", "operand src"]);
    assert!(dev.launch_end().is_err());
    assert_eq!(dev.now(), 0, "nothing ran");
    assert_eq!(dev.report().kernel_launches, 0);
}

#[test]
fn out_of_bounds_and_malformed_views_name_the_operand() {
    let mut dev = mini();
    let a = dev.alloc(Placement::Lb(C00), 64).unwrap();
    let e = reject(
        &mut dev,
        &[C00],
        &[step(
            C00,
            Instr::Unary {
                op: UnaryOp::Relu,
                input: View::new(a, 8, &[3, 3], &[3, 1]),
                out: v(a, 9),
            },
            &[],
        )],
    );
    assert!(matches!(
        e,
        RuntimeError::OutOfBounds {
            end: 17,
            len: 16,
            ..
        }
    ));
    assert_mentions(
        &e,
        &[
            "relu on core (0,0), operand input",
            "element 16",
            "16 elements",
        ],
    );
    let huge = View::new(a, 0, &[2, 2], &[u64::MAX / 2, 1]);
    assert!(matches!(
        reject(
            &mut dev,
            &[C00],
            &[step(
                C00,
                Instr::Unary {
                    op: UnaryOp::Neg,
                    input: huge,
                    out: v(a, 4)
                },
                &[]
            )]
        ),
        RuntimeError::OutOfBounds { .. }
    ));
    let e = reject(
        &mut dev,
        &[C00],
        &[step(
            C00,
            Instr::Unary {
                op: UnaryOp::Neg,
                input: View::new(a, 0, &[1, 1, 1, 1, 1], &[1; 5]),
                out: v(a, 1),
            },
            &[],
        )],
    );
    assert_mentions(&e, &["rank must be 1 to 4"]);
    let e = reject(
        &mut dev,
        &[C00],
        &[step(
            C00,
            Instr::Unary {
                op: UnaryOp::Neg,
                input: v(a, 4),
                out: View::new(a, 0, &[2, 2], &[0, 1]),
            },
            &[],
        )],
    );
    assert_mentions(&e, &["operand out", "more than once"]);
    let e = reject(
        &mut dev,
        &[C00],
        &[step(C00, relu(BufferId(12345), 4), &[])],
    );
    assert_eq!(e, RuntimeError::UnknownBuffer(BufferId(12345)));
}

#[test]
fn operands_must_be_reachable_from_the_core() {
    let mut dev = mini();
    let other_lb = dev.alloc(Placement::Lb(C01), 64).unwrap();
    let gb = dev.alloc(Placement::Gb(0), 64).unwrap();
    let far_gb = dev.alloc(Placement::Gb(1), 64).unwrap();
    let far_lb = dev.alloc(Placement::Lb(C10), 64).unwrap();
    let mine = dev.alloc(Placement::Lb(C00), 64).unwrap();
    let e = reject(&mut dev, &[C00], &[step(C00, relu(other_lb, 16), &[])]);
    assert_mentions(&e, &["operand input", "lb of core (0,1)", "own core's lb"]);
    assert_mentions(
        &reject(&mut dev, &[C00], &[step(C00, relu(gb, 16), &[])]),
        &["gb of cluster 0"],
    );
    assert_mentions(
        &reject(&mut dev, &[C00], &[step(C00, dma(mine, far_gb, 16), &[])]),
        &["operand dst", "gb of cluster 1", "own cluster"],
    );
    assert_mentions(
        &reject(&mut dev, &[C00], &[step(C00, dma(far_lb, mine, 16), &[])]),
        &["operand src", "lb of core (1,0)"],
    );
    // Within the cluster, DMA reaches the neighbour's LB and the GB.
    launch(
        &mut dev,
        "ok",
        &[C00],
        &[
            step(C00, dma(mine, other_lb, 16), &[]),
            step(C00, dma(mine, gb, 16), &[]),
        ],
    )
    .unwrap();
}

#[test]
fn shape_rules_are_enforced() {
    let mut dev = mini();
    let a = dev.alloc(Placement::Lb(C00), 4096).unwrap();
    let b = dev.alloc(Placement::Lb(C00), 4096).unwrap();
    let c = dev.alloc(Placement::Lb(C00), 4096).unwrap();
    let m = |buf, r, k| View::contiguous(buf, 0, &[r, k]);
    let cases: Vec<(Instr, &str)> = vec![
        (
            Instr::Dma {
                src: v(a, 8),
                dst: m(b, 2, 4),
            },
            "differs from dst shape",
        ),
        (
            Instr::Matmul {
                a: m(a, 4, 5),
                b: m(b, 6, 4),
                c: m(c, 4, 4),
                accumulate: false,
            },
            "do not form",
        ),
        (
            Instr::Matmul {
                a: v(a, 4),
                b: m(b, 4, 4),
                c: m(c, 1, 4),
                accumulate: false,
            },
            "rank 2",
        ),
        (
            Instr::Conv2d {
                input: View::contiguous(a, 0, &[1, 4, 8, 8]),
                filter: View::contiguous(b, 0, &[8, 4, 3, 3]),
                output: View::contiguous(c, 0, &[1, 8, 8, 8]),
                params: Default::default(),
                accumulate: false,
            },
            "should be [1, 8, 6, 6]",
        ),
        (
            Instr::Conv2d {
                input: View::contiguous(a, 0, &[1, 4, 8, 8]),
                filter: View::contiguous(b, 0, &[6, 2, 3, 3]),
                output: View::contiguous(c, 0, &[1, 6, 6, 6]),
                params: turbine_runtime::Conv2dParams {
                    groups: 3,
                    ..Default::default()
                },
                accumulate: false,
            },
            "groups 3",
        ),
        (
            Instr::Binary {
                op: turbine_runtime::BinaryOp::Add,
                a: m(a, 2, 3),
                b: m(b, 2, 4),
                out: m(c, 2, 4),
            },
            "do not broadcast",
        ),
        (
            Instr::Binary {
                op: turbine_runtime::BinaryOp::Add,
                a: m(a, 2, 3),
                b: v(b, 3),
                out: m(c, 3, 2),
            },
            "broadcast shape [2, 3]",
        ),
        (
            Instr::Unary {
                op: UnaryOp::Clip { min: 1.0, max: 0.0 },
                input: v(a, 4),
                out: v(c, 4),
            },
            "not an interval",
        ),
        (
            Instr::Reduce {
                kind: ReduceKind::Sum,
                axis: 2,
                input: m(a, 2, 3),
                out: m(c, 2, 1),
            },
            "axis 2 is out of range",
        ),
        (
            Instr::Reduce {
                kind: ReduceKind::Sum,
                axis: 1,
                input: m(a, 2, 3),
                out: m(c, 1, 3),
            },
            "should be [2, 1]",
        ),
        (
            Instr::Pool2d {
                kind: turbine_runtime::PoolKind::Max,
                input: View::contiguous(a, 0, &[1, 1, 4, 4]),
                out: View::contiguous(c, 0, &[1, 1, 2, 2]),
                params: turbine_runtime::Pool2dParams {
                    kernel: [2, 2],
                    stride: [2, 2],
                    pad: [2, 0, 0, 0],
                    count_include_pad: false,
                },
            },
            "smaller than the kernel",
        ),
        (
            Instr::Matmul {
                a: m(a, 4, 4),
                b: m(b, 4, 4),
                c: View::contiguous(a, 8, &[4, 4]),
                accumulate: false,
            },
            "overlaps input a",
        ),
    ];
    for (instr, needle) in cases {
        let e = reject(&mut dev, &[C00], &[step(C00, instr.clone(), &[])]);
        assert!(
            matches!(e, RuntimeError::BadOperand { .. }),
            "{instr:?}: {e}"
        );
        assert_mentions(&e, &[needle]);
    }
    // Disjoint parts of one buffer are fine for a matmul.
    launch(
        &mut dev,
        "ok",
        &[C00],
        &[step(
            C00,
            Instr::Matmul {
                a: m(a, 4, 4),
                b: m(b, 4, 4),
                c: View::contiguous(a, 16, &[4, 4]),
                accumulate: false,
            },
            &[],
        )],
    )
    .unwrap();
}

#[test]
fn a_missing_unit_kind_is_reported() {
    let mut t = Target::builtin("mini").unwrap();
    t.core.units = vec![UnitKind::VectorEngine, UnitKind::MatrixEngine];
    t.throughput.remove(&UnitKind::VectorCore);
    let mut dev = Device::new(t);
    let a = dev.alloc(Placement::Lb(C00), 64).unwrap();
    let e = reject(
        &mut dev,
        &[C00],
        &[step(
            C00,
            Instr::Unary {
                op: UnaryOp::Exp,
                input: v(a, 4),
                out: v(a, 4),
            },
            &[],
        )],
    );
    assert_mentions(&e, &["exp on core (0,0)", "no vector_core unit"]);
}

#[test]
fn unequal_barrier_counts_are_refused() {
    let mut dev = mini();
    let e = reject(&mut dev, &[C00, C01], &[step(C00, Instr::Barrier, &[])]);
    assert!(matches!(e, RuntimeError::BarrierMismatch { .. }));
    assert_mentions(&e, &["core (0,0) recorded 1", "core (0,1) recorded 0"]);
    dev.launch_begin("k", &[C00]).unwrap();
    let t = dev.enqueue(C00, Instr::Wait, &[]).unwrap();
    assert_mentions(
        &dev.enqueue(C00, Instr::Barrier, &[t]).unwrap_err(),
        &["barrier takes no tokens"],
    );
}

#[test]
fn races_within_a_core_are_refused_and_change_nothing() {
    let mut dev = mini();
    let d = dev.alloc(Placement::Ddr, 1024).unwrap();
    dev.write(d, 0, &[2.0; 256]).unwrap();
    let l = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    // The relu reads what the DMA writes, with no token between them.
    let steps = [step(C00, dma(d, l, 256), &[]), step(C00, relu(l, 256), &[])];
    let e = reject(&mut dev, &[C00], &steps);
    assert!(matches!(e, RuntimeError::Race { .. }));
    assert_mentions(
        &e,
        &[
            "race on buffer",
            "core (0,0) instruction #0 (dma, writes)",
            "instruction #1 (relu, writes)",
        ],
    );
    assert_eq!(dev.now(), 0);
    // With the token it runs.
    launch(
        &mut dev,
        "ok",
        &[C00],
        &[
            step(C00, dma(d, l, 256), &[]),
            step(C00, relu(l, 256), &[0]),
        ],
    )
    .unwrap();
    // Two DMAs on different channels writing the same elements race too; a `wait` fixes it.
    let steps = [
        step(C00, dma(d, l, 256), &[]),
        step(C00, dma(d, l, 256), &[]),
    ];
    assert!(matches!(
        reject(&mut dev, &[C00], &steps),
        RuntimeError::Race { .. }
    ));
    let steps = [
        step(C00, dma(d, l, 256), &[]),
        step(C00, Instr::Wait, &[0]),
        step(C00, dma(d, l, 256), &[]),
    ];
    launch(&mut dev, "ok", &[C00], &steps).unwrap();
    // Two instructions of one compute unit are ordered by its queue: no token needed.
    let steps = [
        step(C00, relu(l, 256), &[]),
        step(
            C00,
            Instr::Unary {
                op: UnaryOp::Neg,
                input: v(l, 256),
                out: v(l, 256),
            },
            &[],
        ),
    ];
    launch(&mut dev, "ok", &[C00], &steps).unwrap();
}

#[test]
fn without_the_race_check_a_racing_launch_runs_and_the_report_says_so() {
    let mut dev = mini();
    assert!(dev.race_check() && dev.report().race_check);
    let d = dev.alloc(Placement::Ddr, 1024).unwrap();
    dev.write(d, 0, &[2.0; 256]).unwrap();
    let l = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let steps = [step(C00, dma(d, l, 256), &[]), step(C00, relu(l, 256), &[])];
    dev.set_race_check(false);
    launch(&mut dev, "unchecked", &[C00], &steps).unwrap();
    let report = dev.report();
    assert!(!report.race_check);
    assert!(report
        .to_string()
        .contains("race check                      off"));
    dev.set_race_check(true);
    assert!(matches!(
        reject(&mut dev, &[C00], &steps),
        RuntimeError::Race { .. }
    ));
}

#[test]
fn races_across_cores_are_refused_but_disjoint_blocks_are_not() {
    let mut dev = mini();
    let g = dev.alloc(Placement::Gb(0), 4 * 64).unwrap();
    let l0 = dev.alloc(Placement::Lb(C00), 4 * 32).unwrap();
    let l1 = dev.alloc(Placement::Lb(C01), 4 * 32).unwrap();
    // Both cores write rows 0..4 of an 8x8 GB matrix, 4 columns each: overlapping column 3.
    let block = |c0| View::new(g, c0, &[4, 4], &[8, 1]);
    let steps = [
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(l0, 0, &[4, 4]),
                dst: block(0),
            },
            &[],
        ),
        step(
            C01,
            Instr::Dma {
                src: View::contiguous(l1, 0, &[4, 4]),
                dst: block(3),
            },
            &[],
        ),
    ];
    let e = reject(&mut dev, &[C00, C01], &steps);
    assert_mentions(
        &e,
        &[
            "element 3",
            "core (0,0) instruction #0",
            "core (0,1) instruction #0",
        ],
    );
    // Interleaved but disjoint column blocks are not a race.
    let steps = [
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(l0, 0, &[4, 4]),
                dst: block(0),
            },
            &[],
        ),
        step(
            C01,
            Instr::Dma {
                src: View::contiguous(l1, 0, &[4, 4]),
                dst: block(4),
            },
            &[],
        ),
    ];
    launch(&mut dev, "ok", &[C00, C01], &steps).unwrap();
    // Reading what another core writes needs a barrier between them.
    let steps = [
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(l0, 0, &[4, 4]),
                dst: block(0),
            },
            &[],
        ),
        step(
            C01,
            Instr::Dma {
                src: block(0),
                dst: View::contiguous(l1, 0, &[4, 4]),
            },
            &[],
        ),
    ];
    assert!(matches!(
        reject(&mut dev, &[C00, C01], &steps),
        RuntimeError::Race { .. }
    ));
    let steps = [
        step(
            C00,
            Instr::Dma {
                src: View::contiguous(l0, 0, &[4, 4]),
                dst: block(0),
            },
            &[],
        ),
        step(C00, Instr::Barrier, &[]),
        step(C01, Instr::Barrier, &[]),
        step(
            C01,
            Instr::Dma {
                src: block(0),
                dst: View::contiguous(l1, 0, &[4, 4]),
            },
            &[],
        ),
    ];
    launch(&mut dev, "ok", &[C00, C01], &steps).unwrap();
}

#[test]
fn a_large_launch_reports_the_same_race_on_one_or_several_threads() {
    // Enough instructions for the race check to use its threads; two buffers with a race each,
    // behind hundreds of race-free copies and reads of a buffer no one writes.
    let steps_for = |dev: &mut Device| {
        let shared = dev.alloc(Placement::Gb(0), 4 * 64).unwrap();
        let racy = [
            dev.alloc(Placement::Gb(0), 4 * 64).unwrap(),
            dev.alloc(Placement::Gb(0), 4 * 64).unwrap(),
        ];
        let l0 = dev.alloc(Placement::Lb(C00), 4 * 64).unwrap();
        let l1 = dev.alloc(Placement::Lb(C01), 4 * 64).unwrap();
        let mut steps = Vec::new();
        for i in 0..400 {
            for (core, lb) in [(C00, l0), (C01, l1)] {
                steps.push(step(
                    core,
                    Instr::Dma {
                        src: View::contiguous(shared, (i % 8) * 8, &[8]),
                        dst: View::contiguous(lb, (i % 8) * 8, &[8]),
                    },
                    &[],
                ));
            }
        }
        for buffer in racy {
            for (core, lb) in [(C00, l0), (C01, l1)] {
                steps.push(step(
                    core,
                    Instr::Dma {
                        src: View::contiguous(lb, 0, &[8]),
                        dst: View::contiguous(buffer, 4, &[8]),
                    },
                    &[],
                ));
            }
        }
        (steps, racy[0])
    };
    let mut messages = Vec::new();
    for threads in [1, 2] {
        let mut dev = mini();
        dev.set_threads(threads).unwrap();
        let (steps, first) = steps_for(&mut dev);
        let e = reject(&mut dev, &[C00, C01], &steps);
        match &e {
            RuntimeError::Race {
                buffer, element, ..
            } => assert_eq!((*buffer, *element), (first, 4)),
            other => panic!("expected a race, got {other}"),
        }
        messages.push(e.to_string());
    }
    assert_eq!(messages[0], messages[1]);
}

#[test]
fn element_types_are_checked_when_recorded() {
    use turbine_runtime::ElementType as E;
    let mut dev = mini();
    let floats = dev.alloc(Placement::Lb(C00), 16).unwrap();
    let ints = dev.alloc_typed(Placement::Lb(C00), 32, E::I64).unwrap();
    let bools = dev.alloc_typed(Placement::Lb(C00), 4, E::Bool).unwrap();
    let e = reject(&mut dev, &[C00], &[step(C00, dma(floats, ints, 4), &[])]);
    assert_mentions(&e, &["dma on", "src holds f32 elements but dst holds i64"]);
    let e = reject(&mut dev, &[C00], &[step(C00, relu(ints, 4), &[])]);
    assert_mentions(
        &e,
        &["operand input holds i64 elements; relu computes on floats"],
    );
    let gather = Instr::Gather {
        axis: 0,
        table: View::contiguous(floats, 0, &[2]),
        indices: v(bools, 2),
        out: View::contiguous(floats, 2, &[2]),
    };
    let e = reject(&mut dev, &[C00], &[step(C00, gather, &[])]);
    assert_mentions(
        &e,
        &[
            "gather on",
            "indices hold bool elements; i64 or i32 expected",
        ],
    );
    let ids = dev.alloc_typed(Placement::Lb(C00), 16, E::I64).unwrap();
    let overlapping = Instr::Gather {
        axis: 0,
        table: View::contiguous(floats, 0, &[3]),
        indices: v(ids, 2),
        out: View::contiguous(floats, 2, &[2]),
    };
    let e = reject(&mut dev, &[C00], &[step(C00, overlapping, &[])]);
    assert_mentions(&e, &["gather on", "output out overlaps input table"]);
    let e = dev.alloc_typed(Placement::Ddr, 12, E::I64).unwrap_err();
    assert_mentions(&e, &["multiple of 8 bytes (whole i64 elements), got 12"]);
    let ddr = dev.alloc_typed(Placement::Ddr, 16, E::I64).unwrap();
    let e = dev.read(ddr, 0, 2).unwrap_err();
    assert_mentions(&e, &["as f32: the buffer holds i64 elements"]);
}

#[test]
fn a_gather_index_outside_the_table_fails_the_launch_and_names_it() {
    use turbine_runtime::ElementType as E;
    for threads in [1, 2] {
        let mut dev = mini();
        dev.set_threads(threads).unwrap();
        let table = dev.alloc(Placement::Ddr, 6 * 4).unwrap();
        let ids = dev.alloc_typed(Placement::Ddr, 2 * 4, E::I32).unwrap();
        let bad: Vec<u8> = [1i32, -4].iter().flat_map(|v| v.to_ne_bytes()).collect();
        dev.write_elements(ids, E::I32, 0, &bad).unwrap();
        let out = dev.alloc(Placement::Ddr, 4 * 4).unwrap();
        let gather = Instr::Gather {
            axis: 1,
            table: View::contiguous(table, 0, &[2, 3]),
            indices: v(ids, 2),
            out: View::contiguous(out, 0, &[2, 2]),
        };
        let e = fault(&mut dev, &[C00], &[step(C00, gather, &[])]);
        assert!(matches!(
            e,
            RuntimeError::IndexOutOfRange {
                index: -4,
                extent: 3,
                ..
            }
        ));
        assert_mentions(&e, &["gather on core (0,0) in launch 'bad'", "index -4"]);
    }
}

#[test]
fn an_integer_division_by_zero_fails_the_launch_and_names_it() {
    use turbine_runtime::{BinaryOp, ElementType as E};
    let mut dev = mini();
    let ints = dev.alloc_typed(Placement::Lb(C00), 32, E::I32).unwrap();
    let divide = Instr::Binary {
        op: BinaryOp::Div,
        a: View::contiguous(ints, 0, &[4]),
        b: View::contiguous(ints, 4, &[4]),
        out: View::contiguous(ints, 0, &[4]),
    };
    let e = fault(&mut dev, &[C00], &[step(C00, divide, &[])]);
    assert!(matches!(e, RuntimeError::DivisionByZero { .. }));
    assert_mentions(
        &e,
        &[
            "div on core (0,0) in launch 'bad'",
            "integer division by zero",
        ],
    );
    let bools = dev.alloc_typed(Placement::Lb(C00), 4, E::Bool).unwrap();
    let add = Instr::Binary {
        op: BinaryOp::Add,
        a: v(bools, 4),
        b: v(bools, 4),
        out: v(bools, 4),
    };
    let e = reject(&mut dev, &[C00], &[step(C00, add, &[])]);
    assert_mentions(&e, &["add computes on floats, i64 or i32, not bool"]);
}

#[test]
fn a_fault_skips_the_later_launches_and_is_reported_once_by_the_next_wait() {
    use turbine_runtime::{BinaryOp, ElementType as E};
    let mut dev = mini();
    let ints = dev.alloc_typed(Placement::Lb(C00), 32, E::I32).unwrap();
    let out = dev.alloc(Placement::Ddr, 16).unwrap();
    let divide = Instr::Binary {
        op: BinaryOp::Div,
        a: View::contiguous(ints, 0, &[4]),
        b: View::contiguous(ints, 4, &[4]),
        out: View::contiguous(ints, 0, &[4]),
    };
    launch(&mut dev, "divide", &[C00], &[step(C00, divide, &[])]).unwrap();
    let lb = dev.alloc(Placement::Lb(C00), 16).unwrap();
    let fill = Instr::Unary {
        op: UnaryOp::Exp,
        input: v(lb, 4),
        out: v(lb, 4),
    };
    let store = dma(lb, out, 4);
    let steps = [step(C00, fill, &[]), step(C00, store, &[0])];
    launch(&mut dev, "later", &[C00], &steps).unwrap();
    // The host's read waits for both launches and gets the first one's fault.
    let e = dev.read(out, 0, 4).unwrap_err();
    assert_mentions(
        &e,
        &["div on core (0,0) in launch 'divide'", "division by zero"],
    );
    // Reported once; the later launch was skipped, so its output is still the zero fill.
    assert_eq!(dev.read(out, 0, 4).unwrap(), vec![0.0; 4]);
    dev.synchronize().unwrap();
}
