//! The timing model, checked against cycle counts worked out by hand from the `mini` and
//! `solo` targets' numbers (docs/Runtime.md gives the formulas), plus determinism across
//! host thread counts, the report and the trace.
//!
//! mini: launch 100, dma_setup 10, compute_setup 2, barrier 5 cycles; bandwidth ddr<->lb and
//! ddr<->gb 8, gb<->lb and lb<->lb 16 bytes/cycle; matrix engine 64 flops/cycle, vector
//! engine 16 and vector core 4 element ops/cycle; special functions cost 4.

mod common;

use common::*;
use turbine_runtime::{
    BinaryOp, BufferId, CoreId, Device, Instr, Placement, RuntimeError, Target, TraceFormat,
    UnaryOp, View,
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

fn matmul16(dev: &mut Device, core: CoreId) -> Instr {
    let a = dev.alloc(Placement::Lb(core), 16 * 16 * 4).unwrap();
    let b = dev.alloc(Placement::Lb(core), 16 * 16 * 4).unwrap();
    let c = dev.alloc(Placement::Lb(core), 16 * 16 * 4).unwrap();
    Instr::Matmul {
        a: View::contiguous(a, 0, &[16, 16]),
        b: View::contiguous(b, 0, &[16, 16]),
        c: View::contiguous(c, 0, &[16, 16]),
        accumulate: false,
    }
}

fn unary(op: UnaryOp, b: BufferId, n: u64) -> Instr {
    Instr::Unary {
        op,
        input: v(b, n),
        out: v(b, n),
    }
}

/// (start, end) of the single launch of `steps` on a fresh copy of `dev`'s kind of device.
fn span(dev: &mut Device, cores: &[CoreId], steps: &[Step]) -> (u64, u64) {
    let s = launch(dev, "t", cores, steps).unwrap();
    (s.start, s.end)
}

#[test]
fn a_dma_alone_costs_setup_plus_bytes_over_bandwidth() {
    let mut dev = mini();
    let src = dev.alloc(Placement::Ddr, 1024).unwrap();
    let dst = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    // 100 launch + 10 setup + 1024 B / 8 B per cycle.
    assert_eq!(
        span(&mut dev, &[C00], &[step(C00, dma(src, dst, 256), &[])]),
        (100, 238)
    );
    assert_eq!(dev.now(), 238);
    // GB -> LB is twice as fast: 10 + 64.
    let gb = dev.alloc(Placement::Gb(0), 1024).unwrap();
    assert_eq!(
        span(&mut dev, &[C00], &[step(C00, dma(gb, dst, 256), &[])]),
        (338, 412)
    );
}

#[test]
fn compute_alone_costs_setup_plus_work_over_throughput() {
    let mut dev = mini();
    let mm = matmul16(&mut dev, C00);
    // 2*16^3 = 8192 flops / 64 + 2.
    assert_eq!(span(&mut dev, &[C00], &[step(C00, mm, &[])]), (100, 230));
    let b = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    // relu: 256 / 16 + 2 on the vector engine; sigmoid: 256*4 / 16 + 2; exp on the vector
    // core: 256*4 / 4 + 2.
    let base = dev.now() + 100;
    assert_eq!(
        span(
            &mut dev,
            &[C00],
            &[step(C00, unary(UnaryOp::Relu, b, 256), &[])]
        ),
        (base, base + 18)
    );
    let base = dev.now() + 100;
    assert_eq!(
        span(
            &mut dev,
            &[C00],
            &[step(C00, unary(UnaryOp::Sigmoid, b, 256), &[])]
        ),
        (base, base + 66)
    );
    let base = dev.now() + 100;
    assert_eq!(
        span(
            &mut dev,
            &[C00],
            &[step(C00, unary(UnaryOp::Exp, b, 256), &[])]
        ),
        (base, base + 258)
    );
}

#[test]
fn dma_overlaps_independent_compute_and_serialises_with_dependent_compute() {
    let mut dev = mini();
    let src = dev.alloc(Placement::Ddr, 1024).unwrap();
    let dst = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let mm = matmul16(&mut dev, C00);
    // Independent: the launch lasts as long as the longer of 138 and 130.
    let steps = [
        step(C00, dma(src, dst, 256), &[]),
        step(C00, mm.clone(), &[]),
    ];
    assert_eq!(span(&mut dev, &[C00], &steps), (100, 238));
    // Dependent: 138 then 130.
    let steps = [step(C00, dma(src, dst, 256), &[]), step(C00, mm, &[0])];
    assert_eq!(span(&mut dev, &[C00], &steps), (338, 338 + 138 + 130));
}

#[test]
fn cores_of_a_cluster_share_its_ddr_port() {
    let mut dev = mini();
    let src = dev.alloc(Placement::Ddr, 2048).unwrap();
    let l00 = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let l01 = dev.alloc(Placement::Lb(C01), 1024).unwrap();
    let l10 = dev.alloc(Placement::Lb(C10), 1024).unwrap();
    // Same cluster: the second transfer waits for the DDR port (110..238, then 238..366).
    let steps = [
        step(C00, dma(src, l00, 256), &[]),
        step(C01, dma(src, l01, 256), &[]),
    ];
    assert_eq!(span(&mut dev, &[C00, C01], &steps), (100, 366));
    // Different clusters: each has its own DDR port.
    let steps = [
        step(C00, dma(src, l00, 256), &[]),
        step(C10, dma(src, l10, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00, C10], &steps);
    assert_eq!(e - s, 138);
    // LB -> LB holds no port: both take 10 + 1024/16.
    let (s00, s01) = (
        dev.alloc(Placement::Lb(C00), 1024).unwrap(),
        dev.alloc(Placement::Lb(C01), 1024).unwrap(),
    );
    let steps = [
        step(C00, dma(s01, l00, 256), &[]),
        step(C01, dma(s00, l01, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00, C01], &steps);
    assert_eq!(e - s, 74, "lb->lb copies run side by side");
    // Two DMAs of one core on its two channels still share the DDR port.
    let l00b = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let steps = [
        step(C00, dma(src, l00, 256), &[]),
        step(C00, dma(src, l00b, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00], &steps);
    assert_eq!(e - s, 10 + 128 + 128);
}

#[test]
fn the_ddr_port_and_the_gb_bus_are_separate_resources() {
    // mini: dma_setup 10, ddr_lb 8 and gb_lb 16 bytes/cycle.
    let mut dev = mini();
    let ddr = dev.alloc(Placement::Ddr, 2048).unwrap();
    let gb = dev.alloc(Placement::Gb(0), 2048).unwrap();
    let l00 = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let l01 = dev.alloc(Placement::Lb(C01), 1024).unwrap();
    // A DDR load on one core and a GB load on another of the same cluster overlap: 10 + 128 and
    // 10 + 64, side by side.
    let steps = [
        step(C00, dma(ddr, l00, 256), &[]),
        step(C01, dma(gb, l01, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00, C01], &steps);
    assert_eq!(e - s, 138, "the GB load does not wait for the DDR port");
    // Two GB loads of the same cluster share its GB bus: 10 + 64, then 64 more.
    let steps = [
        step(C00, dma(gb, l00, 256), &[]),
        step(C01, dma(gb, l01, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00, C01], &steps);
    assert_eq!(e - s, 10 + 64 + 64);
    // DDR -> GB holds the DDR port, not the GB bus: it overlaps a GB -> LB load.
    let gb2 = dev.alloc(Placement::Gb(0), 1024).unwrap();
    let steps = [
        step(C00, dma(ddr, gb2, 256), &[]),
        step(C01, dma(gb, l01, 256), &[]),
    ];
    let (s, e) = span(&mut dev, &[C00, C01], &steps);
    assert_eq!(e - s, 10 + 1024 / 8, "ddr_gb of mini is 8 bytes/cycle");
}

#[test]
fn one_dma_channel_serialises_transfers_and_time_follows_the_clock() {
    // solo: launch 50, dma_setup 4, ddr<->lb 4 bytes/cycle, one channel, 500 MHz.
    let mut dev = Device::new(Target::builtin("solo").unwrap());
    let src = dev.alloc(Placement::Ddr, 2048).unwrap();
    let a = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let b = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let steps = [
        step(C00, dma(src, a, 256), &[]),
        step(C00, dma(src, b, 256), &[]),
    ];
    assert_eq!(span(&mut dev, &[C00], &steps), (50, 50 + 2 * (4 + 256)));
    let report = dev.report();
    assert_eq!(report.cycles, 570);
    assert!((report.time_us - 1.14).abs() < 1e-12);
}

#[test]
fn wait_holds_back_every_later_instruction_of_the_core() {
    let mut dev = mini();
    let src = dev.alloc(Placement::Ddr, 1024).unwrap();
    let dst = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let other = dev.alloc(Placement::Lb(C00), 256).unwrap();
    let no_wait = [
        step(C00, dma(src, dst, 256), &[]),
        step(C00, unary(UnaryOp::Relu, other, 64), &[]),
    ];
    assert_eq!(span(&mut dev, &[C00], &no_wait), (100, 238));
    let with_wait = [
        step(C00, dma(src, dst, 256), &[]),
        step(C00, Instr::Wait, &[0]),
        step(C00, unary(UnaryOp::Relu, other, 64), &[]),
    ];
    // The relu (64/16 + 2 = 6 cycles) starts when the DMA ends.
    let (s, e) = span(&mut dev, &[C00], &with_wait);
    assert_eq!(e - s, 138 + 6);
}

#[test]
fn a_barrier_releases_every_core_after_the_slowest_plus_latency() {
    let mut dev = mini();
    let mm = matmul16(&mut dev, C00);
    let b0 = dev.alloc(Placement::Lb(C00), 256).unwrap();
    let b1 = dev.alloc(Placement::Lb(C10), 256).unwrap();
    let steps = [
        step(C00, mm, &[]),
        step(C00, Instr::Barrier, &[]),
        step(C00, unary(UnaryOp::Relu, b0, 64), &[]),
        step(C10, Instr::Barrier, &[]),
        step(C10, unary(UnaryOp::Relu, b1, 64), &[]),
    ];
    // Matmul ends at 230, release at 235, both relus end at 241.
    assert_eq!(span(&mut dev, &[C00, C10], &steps), (100, 241));
}

#[test]
fn launches_follow_each_other_with_the_launch_latency() {
    let mut dev = mini();
    let b = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let first = launch(
        &mut dev,
        "a",
        &[C00],
        &[step(C00, unary(UnaryOp::Relu, b, 256), &[])],
    )
    .unwrap();
    let second = launch(
        &mut dev,
        "b",
        &[C00],
        &[step(C00, unary(UnaryOp::Relu, b, 256), &[])],
    )
    .unwrap();
    assert_eq!((first.start, first.end), (100, 118));
    assert_eq!((second.start, second.end), (218, 236));
    // An empty launch still costs its latency.
    let empty = launch(&mut dev, "empty", &[C00], &[]).unwrap();
    assert_eq!((empty.start, empty.end), (336, 336));
}

#[test]
fn several_units_of_a_kind_run_side_by_side() {
    let mut t = Target::builtin("mini").unwrap();
    t.core.units = vec![
        turbine_runtime::UnitKind::VectorCore,
        turbine_runtime::UnitKind::VectorEngine,
        turbine_runtime::UnitKind::VectorEngine,
        turbine_runtime::UnitKind::MatrixEngine,
    ];
    let mut dev = Device::new(t);
    let a = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let b = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let add = |x| Instr::Binary {
        op: BinaryOp::Add,
        a: v(x, 256),
        b: v(x, 256),
        out: v(x, 256),
    };
    let steps = [step(C00, add(a), &[]), step(C00, add(b), &[])];
    assert_eq!(span(&mut dev, &[C00], &steps), (100, 118));
    let report = dev.report();
    let engines: Vec<u64> = report
        .units
        .iter()
        .filter(|u| u.core == C00 && u.instructions > 0)
        .map(|u| u.unit as u64)
        .collect();
    assert_eq!(engines, [1, 2]);
}

/// A program with contention on the DDR ports, several phases and every unit kind.
fn busy_program(rig: &mut Rig) -> (Vec<Step>, Vec<BufferId>) {
    let mut rng = Lcg::new(42);
    let mut steps = Vec::new();
    let mut outs = Vec::new();
    let cores = [C00, C01, C10, CoreId::new(1, 1)];
    let input = rig.ddr_with(&rng.vec(4096, -1.0, 1.0));
    let w = rig.ddr_with(&rng.vec(32 * 32, -1.0, 1.0));
    for (i, &c) in cores.iter().enumerate() {
        let x = rig.alloc(Placement::Lb(c), 32 * 32);
        let wl = rig.alloc(Placement::Lb(c), 32 * 32);
        let y = rig.alloc(Placement::Lb(c), 32 * 32);
        let r = rig.alloc(Placement::Lb(c), 32);
        let out = rig.alloc(Placement::Ddr, 32 * 32 + 32);
        outs.push(out);
        let m = |b| View::contiguous(b, 0, &[32, 32]);
        steps.push(step(
            c,
            Instr::Dma {
                src: View::contiguous(input, i as u64 * 1024, &[32, 32]),
                dst: m(x),
            },
            &[],
        ));
        steps.push(step(
            c,
            Instr::Dma {
                src: m(w),
                dst: m(wl),
            },
            &[],
        ));
        steps.push(step(
            c,
            Instr::Matmul {
                a: m(x),
                b: m(wl),
                c: m(y),
                accumulate: false,
            },
            &[0, 1],
        ));
        steps.push(step(
            c,
            Instr::Unary {
                op: UnaryOp::Gelu,
                input: m(y),
                out: m(y),
            },
            &[2],
        ));
        steps.push(step(
            c,
            Instr::Reduce {
                kind: turbine_runtime::ReduceKind::Max,
                axis: 1,
                input: m(y),
                out: View::contiguous(r, 0, &[32, 1]),
            },
            &[3],
        ));
        steps.push(step(c, Instr::Barrier, &[]));
        steps.push(step(
            c,
            Instr::Dma {
                src: m(y),
                dst: View::contiguous(out, 0, &[32, 32]),
            },
            &[],
        ));
        steps.push(step(
            c,
            Instr::Dma {
                src: View::contiguous(r, 0, &[32]),
                dst: View::contiguous(out, 1024, &[32]),
            },
            &[],
        ));
    }
    (steps, outs)
}

#[test]
fn cycles_and_results_do_not_depend_on_host_threads() {
    let mut runs = Vec::new();
    for threads in [1, 2, 4] {
        let mut rig = Rig::new(common::roomy());
        rig.dev.set_threads(threads).unwrap();
        let (steps, outs) = busy_program(&mut rig);
        let summary = rig.run("busy", &steps);
        let results: Vec<Vec<f32>> = outs.iter().map(|&o| rig.contents(o)).collect();
        for &o in &outs {
            rig.check(o, 1e-5, 1e-5, "busy program");
        }
        runs.push((summary, results, rig.dev.report().to_json()));
    }
    assert!(
        runs.windows(2).all(|w| w[0] == w[1]),
        "threads changed the outcome"
    );
}

#[test]
fn the_report_counts_bytes_units_and_high_water_marks() {
    let mut rig = Rig::new(Target::builtin("mini").unwrap());
    let (steps, _) = busy_program(&mut rig);
    // GB use without traffic: cluster 0 peaks at two 1 KiB buffers and keeps one, cluster 1 holds
    // one 4 KiB buffer.
    let _gb0_kept = rig.alloc(Placement::Gb(0), 256);
    let gb0_freed = rig.alloc(Placement::Gb(0), 256);
    rig.dev.free(gb0_freed).unwrap();
    let _gb1 = rig.alloc(Placement::Gb(1), 1024);
    let summary = rig.run("busy", &steps);
    let r = rig.dev.report();
    assert_eq!(r.kernel_launches, 1);
    assert_eq!(r.cycles, summary.end);
    // mini runs at 1000 MHz: one cycle is a nanosecond.
    assert_eq!(r.clock_mhz, 1000.0);
    assert!(r.cycles > 0);
    assert!(
        (r.time_us - r.cycles as f64 / 1000.0).abs() < 1e-9,
        "{} us for {} cycles",
        r.time_us,
        r.cycles
    );
    assert_eq!(r.instructions, steps.len() as u64);
    let bytes = |src: &str, dst: &str| {
        r.transfers
            .iter()
            .find(|t| t.src.name() == src && t.dst.name() == dst)
            .map(|t| (t.bytes, t.dmas))
    };
    assert_eq!(bytes("ddr", "lb"), Some((4 * 2 * 4096, 8)));
    assert_eq!(bytes("lb", "ddr"), Some((4 * (4096 + 128), 8)));
    assert_eq!(r.host.to_ddr_bytes, 4 * (4096 + 1024));
    // Each matrix engine did one 32^3 matmul: 65536 flops in 1024 + 2 cycles.
    for u in r
        .units
        .iter()
        .filter(|u| u.kind == turbine_runtime::UnitKind::MatrixEngine)
    {
        assert_eq!((u.instructions, u.busy_cycles, u.work), (1, 1026, 65536.0));
        assert!((u.utilisation - 1026.0 / r.cycles as f64).abs() < 1e-12);
    }
    assert_eq!(r.memory.lb_high_water_max, 4 * (3 * 1024 + 32));
    assert_eq!(r.memory.lb_high_water.len(), 4);
    assert_eq!(r.memory.gb_high_water, vec![2 * 1024, 4096]);
    // Every transfer has DDR at one end: the DDR ports carry it all, the GB buses nothing.
    assert_eq!(r.links.len(), 2 * 2);
    for l in &r.links {
        match l.port {
            turbine_runtime::Port::Ddr => {
                assert!(l.bytes > 0 && l.utilisation > 0.0 && l.utilisation <= 1.0)
            }
            turbine_runtime::Port::GbBus => assert_eq!((l.bytes, l.busy_cycles), (0, 0)),
        }
    }

    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(json["time_us"].as_f64(), Some(r.time_us));
    assert_eq!(
        json["memory"]["gb_high_water"],
        serde_json::json!([2048, 4096])
    );
    for key in [
        "cycles",
        "time_us",
        "kernel_launches",
        "transfers",
        "units",
        "dma_channels",
        "links",
        "memory",
        "launches",
    ] {
        assert!(json.get(key).is_some(), "JSON report lacks {key}");
    }
    let text = r.to_string();
    for needle in [
        "simulated cycles",
        "ddr -> lb",
        "matrix_engine",
        "ddr port",
        "high-water",
    ] {
        assert!(text.contains(needle), "text report lacks {needle}:\n{text}");
    }

    rig.dev.reset_report();
    let r = rig.dev.report();
    assert_eq!((r.cycles, r.kernel_launches, r.transfers.len()), (0, 0, 0));
    assert_eq!(
        r.memory.lb_high_water_max,
        4 * (3 * 1024 + 32),
        "live buffers stay counted"
    );
    // Reset lowers each GB's mark to what is still live: the freed buffer no longer counts.
    assert_eq!(
        r.memory.gb_high_water,
        vec![1024, 4096],
        "live GB buffers stay counted"
    );
    assert_eq!(r.time_us, 0.0);
}

#[test]
fn the_trace_has_one_track_per_unit_and_channel_and_one_event_per_instruction() {
    let mut rig = Rig::new(Target::builtin("mini").unwrap());
    assert!(rig.dev.trace_text(TraceFormat::Instructions).is_none());
    rig.dev.set_tracing(true);
    let (steps, _) = busy_program(&mut rig);
    rig.run("busy", &steps);
    let text = rig.dev.trace_text(TraceFormat::Instructions).unwrap();
    let trace: serde_json::Value = serde_json::from_str(&text).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    // 2 clusters x (2 cores x (3 units + 2 channels) + 2 ports) + the launches track.
    assert_eq!(names.len(), 2 * (2 * 5 + 2) + 1);
    assert!(
        names.contains(&"core 1 matrix_engine#2")
            && names.contains(&"core 0 dma#1")
            && names.contains(&"ddr port")
            && names.contains(&"gb bus")
    );
    let complete: Vec<&serde_json::Value> = events.iter().filter(|e| e["ph"] == "X").collect();
    let instrs = steps.iter().filter(|s| s.instr != Instr::Barrier).count();
    let links = steps
        .iter()
        .filter(|s| matches!(s.instr, Instr::Dma { .. }))
        .count();
    assert_eq!(complete.len(), 1 + instrs + links);
    for e in &complete {
        assert!(e["ts"].as_f64().unwrap() >= 0.0 && e["dur"].as_f64().unwrap() >= 0.0);
    }
    let path = std::env::temp_dir().join(format!("turbine-trace-{}.json", std::process::id()));
    rig.dev
        .write_trace(path.to_str().unwrap(), TraceFormat::Layers)
        .unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() > 0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_launch_ending_past_2_to_the_62_cycles_is_an_error_not_a_wrapped_count() {
    // Validation keeps loaded targets far from the limit; the Rust API takes any `Target`, so a
    // launch latency of 2^61 cycles reaches it on the second launch.
    let mut target = Target::builtin("mini").unwrap();
    target.latency.kernel_launch = 1 << 61;
    let mut dev = Device::new(target);
    let src = dev.alloc(Placement::Ddr, 1024).unwrap();
    let dst = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let steps = [step(C00, dma(src, dst, 256), &[])];
    let first = launch(&mut dev, "first", &[C00], &steps).unwrap();
    assert_eq!(first.end, (1 << 61) + 138);
    let error = launch(&mut dev, "second", &[C00], &steps).unwrap_err();
    assert!(
        matches!(&error, RuntimeError::TimeOverflow { launch } if launch == "second"),
        "{error}"
    );
    assert_eq!(
        dev.report().cycles,
        (1 << 61) + 138,
        "the refused launch adds no time"
    );
}

#[test]
fn the_report_attributes_instructions_to_the_layers_the_program_names() {
    let mut dev = mini();
    let src = dev.alloc(Placement::Ddr, 1024).unwrap();
    let lb0 = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let lb1 = dev.alloc(Placement::Lb(C01), 1024).unwrap();
    dev.name_layer(0, "conv1");
    dev.name_layer(1, "relu1");
    dev.set_tracing(true);
    dev.launch_begin("t", &[C00, C01]).unwrap();
    // Attributed to no layer: recorded before the core names one.
    let first = dev.enqueue(C00, dma(src, lb0, 256), &[]).unwrap();
    dev.set_layer(C00, 0).unwrap();
    let load = dev.enqueue(C00, dma(src, lb0, 256), &[first]).unwrap();
    dev.set_layer(C01, 0).unwrap();
    dev.enqueue(C01, dma(src, lb1, 256), &[]).unwrap();
    dev.set_layer(C00, 1).unwrap();
    dev.enqueue(C00, unary(UnaryOp::Relu, lb0, 256), &[load])
        .unwrap();
    // A core outside the launch is an error, as for instructions.
    assert!(dev.set_layer(C10, 0).is_err());
    dev.launch_end().unwrap();
    let report = dev.report();
    let names: Vec<&str> = report.layers.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["conv1", "relu1"]);
    let (conv, relu) = (&report.layers[0], &report.layers[1]);
    assert_eq!(
        (conv.instructions, conv.cores, conv.dma_bytes),
        (2, 2, 2048)
    );
    assert_eq!((relu.instructions, relu.cores, relu.dma_bytes), (1, 1, 0));
    // The relu: 2 setup cycles + 256 elements at 16 per cycle on the vector engine.
    assert_eq!(relu.vector_engine_busy, 18);
    assert_eq!((relu.span(), relu.active_cycles), (18, 18));
    // The two loads of conv1 ran at the same time on two cores: active once.
    assert_eq!(conv.active_cycles, conv.span());
    assert!(relu.start >= conv.start && conv.end <= relu.start);
    assert!(report.to_json().contains("\"layers\""));
    assert!(report.text(false).contains("relu1"));
    // The trace's events name their layer, and only the tagged ones.
    let trace: serde_json::Value =
        serde_json::from_str(&dev.trace_text(TraceFormat::Instructions).unwrap()).unwrap();
    let layers: Vec<Option<&str>> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|event| event["cat"] == "dma" || event["cat"] == "compute")
        .map(|event| event["args"]["layer"].as_str())
        .collect();
    assert_eq!(layers.iter().filter(|layer| layer.is_none()).count(), 1);
    assert_eq!(
        layers
            .iter()
            .filter(|&&layer| layer == Some("conv1"))
            .count(),
        2
    );
    assert_eq!(
        layers
            .iter()
            .filter(|&&layer| layer == Some("relu1"))
            .count(),
        1
    );
}
