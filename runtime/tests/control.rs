//! Control flow between launches: loops and branches decided by the host (a synchronisation per
//! condition) or by the device inside a persistent region, timed from the `mini` target's
//! numbers, the report's counters, scalar reads and writes, the loop watchdog, every misuse,
//! and the same through the C ABI.
//!
//! mini: kernel_launch 100, barrier 5, readback 250, branch 10 cycles; a relu of 256 elements
//! takes 2 + 256 / 16 = 18 cycles on the vector engine.

mod common;

use common::*;
use turbine_runtime::{
    BufferId, CoreId, Device, ElementType, ErrorCode, Instr, LaunchSummary, Placement,
    RuntimeError, Target, UnaryOp, View, DEFAULT_LOOP_LIMIT, NO_LAYER,
};

fn mini() -> Device {
    Device::new(Target::builtin("mini").unwrap())
}

/// A launch of one 18-cycle relu on core (0,0).
fn body(dev: &mut Device, tile: BufferId, name: &str) -> LaunchSummary {
    let v = View::contiguous(tile, 0, &[256]);
    let relu = Instr::Unary {
        op: UnaryOp::Relu,
        input: v.clone(),
        out: v,
    };
    launch(dev, name, &[C00], &[step(C00, relu, &[])]).unwrap()
}

fn span(s: &LaunchSummary) -> (u64, u64) {
    (s.start, s.end)
}

/// One buffer of `n` elements of `dtype` at `placement`.
fn scalars(dev: &mut Device, placement: Placement, dtype: ElementType, n: u64) -> BufferId {
    dev.alloc_typed(placement, n * dtype.bytes(), dtype)
        .unwrap()
}

fn assert_mentions(e: &RuntimeError, needles: &[&str]) {
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} lacks {n:?}");
    }
}

#[test]
fn a_host_read_charges_readback_and_counts_a_host_sync() {
    let mut dev = mini();
    let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let cond = scalars(&mut dev, Placement::Ddr, ElementType::I64, 1);
    dev.write_scalar(cond, 0, 1).unwrap();
    assert_eq!(span(&body(&mut dev, tile, "a")), (100, 118));
    assert_eq!(dev.read_scalar(cond, 0).unwrap(), 1);
    // The host has the value 250 cycles after the launch ended; the next launch pays its
    // latency from there.
    assert_eq!(dev.now(), 368);
    assert_eq!(span(&body(&mut dev, tile, "b")), (468, 486));
    let r = dev.report();
    assert_eq!((r.cycles, r.kernel_launches, r.device_steps), (486, 2, 0));
    assert_eq!((r.host_syncs, r.device_branches), (1, 0));
    assert_eq!(
        r.host.from_ddr_bytes, 0,
        "a scalar read is not host traffic"
    );
}

#[test]
fn in_a_persistent_region_the_second_launch_is_a_device_step() {
    let mut dev = mini();
    let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    dev.persistent_begin().unwrap();
    assert!(dev.persistent_open());
    let first = body(&mut dev, tile, "first");
    let second = body(&mut dev, tile, "second");
    dev.persistent_end().unwrap();
    // The first launch pays the launch latency, the second only the cores' barrier.
    assert_eq!((span(&first), first.step), ((100, 118), false));
    assert_eq!((span(&second), second.step), ((123, 141), true));
    let r = dev.report();
    assert_eq!((r.kernel_launches, r.device_steps), (1, 1));
    assert_eq!(r.launches.len(), 2, "steps are listed with the launches");
    assert!(r.launches[1].step);
    // After the region, launches are the host's again.
    assert_eq!(span(&body(&mut dev, tile, "after")), (241, 259));
    assert_eq!(dev.report().kernel_launches, 2);
}

#[test]
fn a_read_inside_a_region_charges_branch_and_counts_a_device_branch() {
    let mut dev = mini();
    let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let cond = scalars(&mut dev, Placement::Gb(0), ElementType::Bool, 1);
    dev.persistent_begin().unwrap();
    assert_eq!(span(&body(&mut dev, tile, "a")), (100, 118));
    assert_eq!(dev.read_scalar(cond, 0).unwrap(), 0);
    assert_eq!(dev.now(), 128);
    assert_eq!(span(&body(&mut dev, tile, "b")), (133, 151));
    dev.persistent_end().unwrap();
    let r = dev.report();
    assert_eq!((r.host_syncs, r.device_branches), (0, 1));
    assert_eq!(r.cycles, 151);
}

#[test]
fn a_loop_on_the_device_costs_a_barrier_and_a_branch_per_iteration_the_host_far_more() {
    // do { body; counter += 1 } while (counter < 3), the counter in GB, run by the device and
    // then by the host.
    // (persistent, the end of each iteration's launch, the cycles of the whole loop)
    let runs = [(true, [118, 151, 184], 194), (false, [118, 486, 854], 1104)];
    for (persistent, ends, cycles) in runs {
        let mut dev = mini();
        let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
        let counter = scalars(&mut dev, Placement::Gb(0), ElementType::I32, 1);
        if persistent {
            dev.persistent_begin().unwrap();
        }
        let mut iteration = 0;
        loop {
            dev.loop_check(iteration, NO_LAYER).unwrap();
            let s = body(&mut dev, tile, "body");
            assert_eq!(s.end, ends[iteration as usize], "persistent: {persistent}");
            dev.write_scalar(counter, 0, iteration as i64 + 1).unwrap();
            if dev.read_scalar(counter, 0).unwrap() >= 3 {
                break;
            }
            iteration += 1;
        }
        if persistent {
            dev.persistent_end().unwrap();
        }
        let r = dev.report();
        assert_eq!(r.cycles, cycles, "persistent: {persistent}");
        let expected = if persistent {
            (1, 2, 0, 3)
        } else {
            (3, 0, 3, 0)
        };
        assert_eq!(
            (
                r.kernel_launches,
                r.device_steps,
                r.host_syncs,
                r.device_branches
            ),
            expected
        );
    }
}

#[test]
fn the_report_lists_the_counters_and_a_reset_clears_them() {
    let mut dev = mini();
    let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let cond = scalars(&mut dev, Placement::Ddr, ElementType::I8, 1);
    dev.read_scalar(cond, 0).unwrap();
    dev.persistent_begin().unwrap();
    body(&mut dev, tile, "kernel");
    body(&mut dev, tile, "next");
    dev.read_scalar(cond, 0).unwrap();
    let r = dev.report();
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    for (key, value) in [
        ("kernel_launches", 1),
        ("device_steps", 1),
        ("host_syncs", 1),
        ("device_branches", 1),
    ] {
        assert_eq!(json[key].as_u64(), Some(value), "{key}");
    }
    assert_eq!(json["launches"][0]["step"], false);
    assert_eq!(json["launches"][1]["step"], true);
    let text = r.text(false);
    for needle in [
        "device steps",
        "host syncs",
        "device branches",
        "next (step)",
    ] {
        assert!(text.contains(needle), "text report lacks {needle}:\n{text}");
    }
    // The report is taken with the region still open; a reset clears the counters.
    dev.reset_report();
    let r = dev.report();
    assert_eq!(
        (
            r.kernel_launches,
            r.device_steps,
            r.host_syncs,
            r.device_branches
        ),
        (0, 0, 0, 0)
    );
    assert!(!r.text(false).contains("device steps"));
    // The region goes on: the next launch is still a step.
    assert!(body(&mut dev, tile, "again").step);
    dev.persistent_end().unwrap();
}

#[test]
fn scalars_round_trip_through_integer_and_boolean_buffers() {
    let mut dev = mini();
    let wide = scalars(&mut dev, Placement::Ddr, ElementType::I64, 4);
    let flag = scalars(&mut dev, Placement::Lb(C00), ElementType::Bool, 2);
    let small = scalars(&mut dev, Placement::Gb(1), ElementType::I8, 1);
    let byte = scalars(&mut dev, Placement::Ddr, ElementType::U8, 1);
    for value in [i64::MIN, -5, 0, i64::MAX] {
        dev.write_scalar(wide, 3, value).unwrap();
        assert_eq!(dev.read_scalar(wide, 3).unwrap(), value);
    }
    dev.write_scalar(flag, 1, 1).unwrap();
    assert_eq!(dev.read_scalar(flag, 1).unwrap(), 1);
    assert_eq!(dev.read_scalar(flag, 0).unwrap(), 0);
    dev.write_scalar(small, 0, -128).unwrap();
    assert_eq!(dev.read_scalar(small, 0).unwrap(), -128);
    dev.write_scalar(byte, 0, 255).unwrap();
    assert_eq!(dev.read_scalar(byte, 0).unwrap(), 255);
    // Writes cost nothing; each read outside a region is one readback.
    assert_eq!(dev.now(), 8 * 250);
    for (buffer, value, range) in [
        (flag, 2, "bool elements (0 to 1)"),
        (small, 128, "i8 elements (-128 to 127)"),
        (byte, -1, "u8 elements (0 to 255)"),
    ] {
        let e = dev.write_scalar(buffer, 0, value).unwrap_err();
        assert!(matches!(e, RuntimeError::BadArgument(_)), "{e}");
        let fits = format!("write_scalar: {value} does not fit in {buffer}'s {range}");
        assert_mentions(&e, &[&fits]);
    }
    assert_eq!(dev.now(), 8 * 250, "refused writes change nothing");
    // A launch's result is what a read returns: it waits for the launch to execute.
    let copy = scalars(&mut dev, Placement::Ddr, ElementType::I64, 4);
    let src = View::contiguous(wide, 0, &[4]);
    let dst = View::contiguous(copy, 0, &[4]);
    launch(
        &mut dev,
        "copy",
        &[C00],
        &[step(C00, Instr::Dma { src, dst }, &[])],
    )
    .unwrap();
    assert_eq!(dev.read_scalar(copy, 3).unwrap(), i64::MAX);
}

#[test]
fn float_buffers_and_indices_past_the_end_are_refused() {
    let mut dev = mini();
    let floats = dev.alloc(Placement::Ddr, 16).unwrap();
    let halves = scalars(&mut dev, Placement::Gb(0), ElementType::F16, 2);
    let ints = scalars(&mut dev, Placement::Ddr, ElementType::I32, 2);
    let e = dev.read_scalar(floats, 0).unwrap_err();
    assert_mentions(&e, &["read_scalar", &floats.to_string(), "f32 elements"]);
    let e = dev.write_scalar(halves, 0, 1).unwrap_err();
    assert_mentions(&e, &["write_scalar", &halves.to_string(), "f16 elements"]);
    assert_eq!(e.code(), ErrorCode::InvalidArgument);
    let e = dev.read_scalar(ints, 2).unwrap_err();
    assert!(
        matches!(e, RuntimeError::OutOfBounds { end: 3, len: 2, .. }),
        "{e}"
    );
    assert_mentions(&e, &["read_scalar", "element 2", "2 elements"]);
    assert!(matches!(
        dev.write_scalar(ints, 5, 0),
        Err(RuntimeError::OutOfBounds { .. })
    ));
    assert!(matches!(
        dev.read_scalar(BufferId(999), 0),
        Err(RuntimeError::UnknownBuffer(_))
    ));
    // Refused reads cost nothing and count nothing.
    assert_eq!((dev.now(), dev.report().host_syncs), (0, 0));
}

#[test]
fn regions_and_scalars_refuse_the_wrong_state() {
    let mut dev = mini();
    let cond = scalars(&mut dev, Placement::Ddr, ElementType::I64, 1);
    let e = dev.persistent_end().unwrap_err();
    assert_eq!(e, RuntimeError::NoPersistentRegion);
    assert_mentions(&e, &["persistent_end: no persistent region is open"]);
    // A region opened in an open one is part of it; the outermost end closes it.
    dev.persistent_begin().unwrap();
    dev.persistent_begin().unwrap();
    dev.persistent_end().unwrap();
    assert!(dev.persistent_open());
    dev.persistent_end().unwrap();
    assert!(!dev.persistent_open());

    dev.launch_begin("open", &[C00]).unwrap();
    for e in [
        dev.read_scalar(cond, 0).unwrap_err(),
        dev.write_scalar(cond, 0, 1).unwrap_err(),
        dev.persistent_begin().unwrap_err(),
    ] {
        assert!(
            matches!(&e, RuntimeError::LaunchBeingRecorded { launch, .. } if launch == "open"),
            "{e}"
        );
        assert_eq!(e.code(), ErrorCode::InvalidState);
    }
    assert_mentions(
        &dev.read_scalar(cond, 0).unwrap_err(),
        &["read_scalar: launch 'open' is still being recorded"],
    );
    dev.launch_end().unwrap();
    dev.persistent_begin().unwrap();
    dev.launch_begin("inside", &[C00]).unwrap();
    assert_mentions(
        &dev.persistent_end().unwrap_err(),
        &["persistent_end: launch 'inside'"],
    );
    dev.launch_end().unwrap();
    dev.persistent_end().unwrap();
    assert!(!dev.persistent_open());
    // Nothing refused changed the clock beyond the two empty launches.
    assert_eq!(dev.now(), 200);
}

#[test]
fn a_failed_launch_inside_a_region_leaves_the_device_usable() {
    let mut dev = mini();
    let tile = dev.alloc(Placement::Lb(C00), 1024).unwrap();
    let elsewhere = dev.alloc(Placement::Lb(CoreId::new(1, 0)), 1024).unwrap();
    let bad = Instr::Unary {
        op: UnaryOp::Relu,
        input: View::contiguous(elsewhere, 0, &[256]),
        out: View::contiguous(elsewhere, 0, &[256]),
    };
    dev.persistent_begin().unwrap();
    // The recording error discards the launch, which stays open until launch_end reports it.
    dev.launch_begin("bad", &[C00]).unwrap();
    assert!(dev.enqueue(C00, bad.clone(), &[]).is_err());
    assert!(matches!(
        dev.persistent_end(),
        Err(RuntimeError::LaunchBeingRecorded { .. })
    ));
    assert!(matches!(
        dev.launch_end(),
        Err(RuntimeError::LaunchAborted { .. })
    ));
    // No launch ended in the region yet: the next one is the persistent kernel's own launch.
    let first = body(&mut dev, tile, "first");
    assert_eq!((span(&first), first.step), ((100, 118), false));
    assert!(launch(&mut dev, "bad again", &[C00], &[step(C00, bad, &[])]).is_err());
    let next = body(&mut dev, tile, "next");
    assert_eq!((span(&next), next.step), ((123, 141), true));
    dev.persistent_end().unwrap();
    dev.persistent_begin().unwrap();
    dev.persistent_end().unwrap();
}

#[test]
fn frame_push_stops_a_recursion_at_the_call_depth() {
    let mut dev = mini();
    let depth = dev.target().core.call_depth;
    assert_eq!(depth, 1024);
    dev.name_layer(3, "walk");
    for _ in 0..depth {
        dev.frame_push(3).unwrap();
    }
    let e = dev.frame_push(3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "call 'walk' would nest deeper than 1024 calls (the target's core.call_depth: a \
         recursion that does not end, or ends too deep)"
    );
    assert_eq!(e.code(), ErrorCode::InvalidState);
    // Leaving a call makes room for another; leaving more calls than entered is refused.
    dev.frame_pop().unwrap();
    dev.frame_push(NO_LAYER).unwrap();
    for _ in 0..depth {
        dev.frame_pop().unwrap();
    }
    assert_eq!(dev.frame_pop(), Err(RuntimeError::NoCallRunning));
    // Calls cost no simulated time.
    assert_eq!(dev.now(), 0);
}

#[test]
fn loop_check_stops_a_loop_at_the_limit() {
    let mut dev = mini();
    assert_eq!(DEFAULT_LOOP_LIMIT, 1_048_576);
    assert_eq!(dev.loop_limit(), DEFAULT_LOOP_LIMIT);
    dev.loop_check(0, NO_LAYER).unwrap();
    dev.loop_check(DEFAULT_LOOP_LIMIT - 1, NO_LAYER).unwrap();
    let e = dev.loop_check(DEFAULT_LOOP_LIMIT, NO_LAYER).unwrap_err();
    assert_eq!(
        e,
        RuntimeError::LoopLimit {
            limit: DEFAULT_LOOP_LIMIT,
            looping: "a loop".into()
        }
    );
    assert_eq!(
        e.to_string(),
        "a loop ran 1048576 iterations without its condition turning false \
         (the device's limit; td_device_set_loop_limit raises it)"
    );
    assert_eq!(e.code(), ErrorCode::InvalidState);
    // A loop the program named is named.
    dev.set_loop_limit(3).unwrap();
    dev.name_layer(7, "decoder_loop");
    dev.loop_check(2, 7).unwrap();
    assert_eq!(
        dev.loop_check(3, 7).unwrap_err().to_string(),
        "loop 'decoder_loop' ran 3 iterations without its condition turning false (the \
         device's limit; td_device_set_loop_limit raises it)"
    );
    assert!(matches!(
        dev.set_loop_limit(0),
        Err(RuntimeError::BadArgument(_))
    ));
    assert_eq!(dev.loop_limit(), 3);
}

#[test]
fn the_c_abi_runs_a_loop_in_a_persistent_region() {
    use std::ffi::{CStr, CString};
    use std::ptr::null_mut;
    use turbine_runtime::ffi::*;
    let last_error = || {
        unsafe { CStr::from_ptr(td_last_error()) }
            .to_string_lossy()
            .into_owned()
    };
    unsafe {
        let name = CString::new("mini").unwrap();
        let mut dev = 0;
        assert_eq!(td_device_create(name.as_ptr(), &mut dev), TD_OK);
        let mut counter = 0;
        // A DDR buffer of one i64.
        let status = td_buffer_alloc(dev, 2, 0, 0, 8, 1, &mut counter);
        assert_eq!(status, TD_OK);
        let cores = [TdCore {
            cluster: 0,
            core: 0,
        }];
        let kernel = CString::new("step").unwrap();
        assert_eq!(td_persistent_begin(dev), TD_OK);
        let mut value = 0;
        let mut iteration = 0;
        while value < 2 {
            assert_eq!(td_loop_check(dev, iteration, u32::MAX), TD_OK);
            assert_eq!(
                td_launch_begin(dev, kernel.as_ptr(), cores.as_ptr(), 1),
                TD_OK
            );
            assert_eq!(td_launch_end(dev, null_mut()), TD_OK);
            assert_eq!(td_write_scalar(dev, counter, 0, value + 1), TD_OK);
            assert_eq!(td_read_scalar(dev, counter, 0, &mut value), TD_OK);
            iteration += 1;
        }
        assert_eq!(td_persistent_end(dev), TD_OK);
        // Empty launches: 100 for the first, 5 for the step, 10 per branch.
        let mut cycles = 0;
        assert_eq!(td_device_cycles(dev, &mut cycles), TD_OK);
        assert_eq!((value, cycles), (2, 100 + 10 + 5 + 10));

        assert_eq!(td_persistent_end(dev), 5);
        assert!(
            last_error().contains("no persistent region"),
            "{}",
            last_error()
        );
        assert_eq!(td_read_scalar(dev, counter, 0, null_mut()), 1);
        assert!(last_error().contains("value_out is NULL"));
        assert_eq!(td_read_scalar(dev, counter, 1, &mut value), 4);
        assert_eq!(td_write_scalar(dev, counter, 0, 1), TD_OK);
        assert_eq!(td_loop_check(dev, DEFAULT_LOOP_LIMIT, u32::MAX), 5);
        assert!(last_error().contains("1048576 iterations"));
        // The first failure is kept for td_device_take_error, named by its function.
        assert_eq!(td_device_take_error(dev), 5);
        assert!(
            last_error().starts_with("td_persistent_end: "),
            "{}",
            last_error()
        );
        assert_eq!(td_persistent_begin(0), 2);
        assert_eq!(td_device_destroy(dev), TD_OK);
    }
}
