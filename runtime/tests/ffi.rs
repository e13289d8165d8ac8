//! The C ABI: an end-to-end program through the `td_*` functions, every kind of misuse
//! returning a status and a message (never a crash), and the header kept in step with the
//! Rust side (function names, struct layouts as a real C compiler lays them out).

use std::ffi::{CStr, CString};
use std::mem::{offset_of, size_of};
use std::ptr::{null, null_mut};
use turbine_runtime::ffi::*;

const LB: u32 = 0;
const GB: u32 = 1;
const DDR: u32 = 2;

fn last_error() -> String {
    unsafe { CStr::from_ptr(td_last_error()) }
        .to_str()
        .unwrap()
        .to_string()
}

fn view(buffer: u64, offset: u64, shape: &[u64]) -> TdView {
    let mut v = TdView {
        buffer,
        offset,
        rank: shape.len() as u32,
        shape: [0; 4],
        strides: [0; 4],
    };
    let mut stride = 1;
    for d in (0..shape.len()).rev() {
        v.shape[d] = shape[d];
        v.strides[d] = stride;
        stride *= shape[d];
    }
    v
}

/// Asserts that a call failed with `code` and a message containing `needle`.
fn fails(status: i32, code: i32, needle: &str) {
    assert_eq!(
        status,
        code,
        "expected status {code}, got {status}: {}",
        last_error()
    );
    let msg = last_error();
    assert!(msg.contains(needle), "message {msg:?} lacks {needle:?}");
}

fn create(target: &str) -> u64 {
    let name = CString::new(target).unwrap();
    let mut dev = 0;
    assert_eq!(unsafe { td_device_create(name.as_ptr(), &mut dev) }, TD_OK);
    dev
}

fn alloc(dev: u64, level: u32, cluster: u32, core: u32, bytes: u64) -> u64 {
    let mut b = 0;
    assert_eq!(
        unsafe { td_buffer_alloc(dev, level, cluster, core, bytes, 0, &mut b) },
        TD_OK,
        "{}",
        last_error()
    );
    b
}

#[test]
fn a_program_runs_end_to_end_through_the_c_abi() {
    unsafe {
        let dev = create("mini");
        assert_eq!(td_device_set_threads(dev, 0), TD_OK);
        assert_eq!(td_trace_enable(dev, 1), TD_OK);
        let (m, k, n) = (4u64, 3u64, 2u64);
        let a: Vec<f32> = (0..m * k).map(|x| x as f32).collect();
        let b: Vec<f32> = (0..k * n).map(|x| 1.0 - x as f32).collect();
        let da = alloc(dev, DDR, 0, 0, m * k * 4);
        let db = alloc(dev, DDR, 0, 0, k * n * 4);
        let dc = alloc(dev, DDR, 0, 0, m * n * 4);
        assert_eq!(
            td_buffer_write(dev, da, 0, a.as_ptr().cast(), m * k * 4),
            TD_OK
        );
        assert_eq!(
            td_buffer_write(dev, db, 0, b.as_ptr().cast(), k * n * 4),
            TD_OK
        );
        let (la, lb, lc) = (
            alloc(dev, LB, 0, 1, 64),
            alloc(dev, LB, 0, 1, 64),
            alloc(dev, LB, 0, 1, 64),
        );
        let g = alloc(dev, GB, 0, 0, 64);

        let cores = [TdCore {
            cluster: 0,
            core: 1,
        }];
        let name = CString::new("gemm_relu").unwrap();
        assert_eq!(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            TD_OK
        );
        // Two layers named by one call, their names back to back.
        let names = b"fetch\0product\0";
        assert_eq!(td_layer_names(dev, 2, names.as_ptr().cast()), TD_OK);
        assert_eq!(td_layer(dev, 0, 1, 0), TD_OK);
        let (mut t0, mut t1, mut t2, mut t3, mut t4) = (0, 0, 0, 0, 0);
        assert_eq!(
            td_dma(
                dev,
                0,
                1,
                &view(da, 0, &[m, k]),
                &view(la, 0, &[m, k]),
                null(),
                0,
                &mut t0
            ),
            TD_OK
        );
        assert_eq!(
            td_dma(
                dev,
                0,
                1,
                &view(db, 0, &[k, n]),
                &view(lb, 0, &[k, n]),
                null(),
                0,
                &mut t1
            ),
            TD_OK
        );
        let waits = [t0, t1];
        assert_eq!(td_layer(dev, 0, 1, 1), TD_OK);
        assert_eq!(
            td_matmul(
                dev,
                0,
                1,
                &view(la, 0, &[m, k]),
                &view(lb, 0, &[k, n]),
                &view(lc, 0, &[m, n]),
                0,
                waits.as_ptr(),
                2,
                &mut t2
            ),
            TD_OK
        );
        assert_eq!(
            td_unary(
                dev,
                0,
                1,
                0,
                0.0,
                0.0,
                &view(lc, 0, &[m, n]),
                &view(lc, 0, &[m, n]),
                &t2,
                1,
                &mut t3
            ),
            TD_OK
        );
        assert_eq!(
            td_dma(
                dev,
                0,
                1,
                &view(lc, 0, &[m, n]),
                &view(g, 0, &[m, n]),
                &t3,
                1,
                &mut t4
            ),
            TD_OK
        );
        assert_eq!(
            td_dma(
                dev,
                0,
                1,
                &view(g, 0, &[m, n]),
                &view(dc, 0, &[m, n]),
                &t4,
                1,
                null_mut()
            ),
            TD_OK
        );
        let mut cycles = 0;
        assert_eq!(td_launch_end(dev, &mut cycles), TD_OK, "{}", last_error());
        assert!(cycles > 0);
        let mut now = 0;
        assert_eq!(td_device_cycles(dev, &mut now), TD_OK);
        assert_eq!(now, 100 + cycles, "mini's launch latency is 100 cycles");
        assert_eq!(td_device_synchronize(dev), TD_OK, "{}", last_error());

        let mut c = vec![0f32; (m * n) as usize];
        assert_eq!(
            td_buffer_read(dev, dc, 0, c.as_mut_ptr().cast(), m * n * 4),
            TD_OK
        );
        for i in 0..m as usize {
            for j in 0..n as usize {
                let dot: f32 = (0..k as usize).map(|p| a[i * 3 + p] * b[p * 2 + j]).sum();
                assert_eq!(c[i * 2 + j], dot.max(0.0));
            }
        }

        // The report: size query, then copy; JSON, the text summary and the detailed text.
        for format in [0, 1, 2] {
            let mut len = 0;
            assert_eq!(td_report(dev, format, null_mut(), 0, &mut len), TD_OK);
            let mut buf = vec![0u8; len as usize + 1];
            assert_eq!(
                td_report(
                    dev,
                    format,
                    buf.as_mut_ptr().cast(),
                    buf.len() as u64,
                    &mut len
                ),
                TD_OK
            );
            let text = CStr::from_bytes_with_nul(&buf).unwrap().to_str().unwrap();
            assert!(text.contains("gemm_relu"));
            assert!(
                text.contains("fetch") && text.contains("product"),
                "format {format}"
            );
            // Only the detailed text lists units one by one (the JSON has them all as records).
            assert_eq!(text.contains("per unit"), format == 2, "format {format}");
            let mut small = [0u8; 8];
            fails(
                td_report(dev, format, small.as_mut_ptr().cast(), 8, null_mut()),
                1,
                "too small",
            );
        }
        let dir = std::env::temp_dir();
        let report = CString::new(
            dir.join(format!("td-report-{}.json", std::process::id()))
                .to_str()
                .unwrap(),
        )
        .unwrap();
        let trace = CString::new(
            dir.join(format!("td-trace-{}.json", std::process::id()))
                .to_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(td_report_write(dev, 0, report.as_ptr()), TD_OK);
        assert_eq!(td_trace_write(dev, trace.as_ptr()), TD_OK);
        let detail = CString::new(format!("{}.detail", trace.to_str().unwrap())).unwrap();
        assert_eq!(td_trace_write_format(dev, 1, detail.as_ptr()), TD_OK);
        let svg = CString::new(format!("{}.svg", trace.to_str().unwrap())).unwrap();
        assert_eq!(td_trace_write_format(dev, 2, svg.as_ptr()), TD_OK);
        let picture = std::fs::read_to_string(svg.to_str().unwrap()).unwrap();
        assert!(picture.starts_with("<svg") && picture.trim_end().ends_with("</svg>"));
        std::fs::remove_file(svg.to_str().unwrap()).unwrap();
        for p in [&report, &trace, &detail] {
            let path = p.to_str().unwrap();
            let json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            assert!(json.is_object());
            std::fs::remove_file(path).unwrap();
        }
        assert_eq!(td_report_reset(dev), TD_OK);
        assert_eq!(td_buffer_free(dev, g), TD_OK);
        assert_eq!(td_device_destroy(dev), TD_OK);
        fails(td_device_destroy(dev), 2, "unknown device");
    }
}

#[test]
fn misuse_returns_a_status_and_a_message() {
    unsafe {
        fails(td_device_create(null(), null_mut()), 1, "target is NULL");
        let bad = CString::new("no-such-target").unwrap();
        let mut dev = 0;
        fails(
            td_device_create(bad.as_ptr(), &mut dev),
            7,
            "no-such-target",
        );
        fails(td_buffer_free(987654, 1), 2, "unknown device handle 987654");

        let dev = create("mini");
        let mut b = 0;
        fails(
            td_buffer_alloc(dev, 0, 0, 0, 1 << 20, 0, &mut b),
            3,
            "lb of core (0,0)",
        );
        fails(
            td_buffer_alloc(dev, 0, 5, 0, 64, 0, &mut b),
            2,
            "core (5,0)",
        );
        fails(
            td_buffer_alloc(dev, 9, 0, 0, 64, 0, &mut b),
            1,
            "level code 9",
        );
        fails(
            td_buffer_alloc(dev, 2, 0, 0, 64, 8, &mut b),
            1,
            "dtype code 8",
        );
        fails(
            td_buffer_alloc(dev, 2, 0, 0, 64, 0, null_mut()),
            1,
            "buffer_out is NULL",
        );
        let d = alloc(dev, DDR, 0, 0, 64);
        let l = alloc(dev, LB, 0, 0, 64);
        let data = [0f32; 32];
        fails(
            td_buffer_write(dev, d, 0, data.as_ptr().cast(), 128),
            4,
            "reaches element 31",
        );
        fails(
            td_buffer_write(dev, d, 2, data.as_ptr().cast(), 4),
            1,
            "multiples of 4",
        );
        fails(td_buffer_write(dev, d, 0, null(), 4), 1, "src is NULL");
        fails(td_layer_names(dev, 1, null()), 1, "names is NULL");
        fails(
            td_buffer_read(dev, l, 0, data.as_ptr() as *mut _, 4),
            1,
            "only ddr",
        );
        fails(td_buffer_free(dev, 4242), 2, "buffer 4242");

        let mut t = 0;
        fails(
            td_dma(
                dev,
                0,
                0,
                &view(d, 0, &[16]),
                &view(l, 0, &[16]),
                null(),
                0,
                &mut t,
            ),
            5,
            "no launch is open",
        );
        fails(td_launch_end(dev, null_mut()), 5, "no launch is open");
        let name = CString::new("k").unwrap();
        let cores = [TdCore {
            cluster: 0,
            core: 0,
        }];
        fails(
            td_launch_begin(
                dev,
                name.as_ptr(),
                [TdCore {
                    cluster: 3,
                    core: 0,
                }]
                .as_ptr(),
                1,
            ),
            2,
            "core (3,0) does not exist",
        );
        fails(
            td_launch_begin(dev, name.as_ptr(), null(), 1),
            1,
            "cores is NULL",
        );
        assert_eq!(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            TD_OK
        );
        fails(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            5,
            "still being recorded",
        );
        fails(
            td_dma(dev, 0, 0, null(), &view(l, 0, &[16]), null(), 0, &mut t),
            1,
            "src is NULL",
        );
        let mut rank5 = view(d, 0, &[16]);
        rank5.rank = 5;
        fails(
            td_dma(dev, 0, 0, &rank5, &view(l, 0, &[16]), null(), 0, &mut t),
            1,
            "rank must be 1 to 4",
        );
        fails(
            td_binary(
                dev,
                0,
                0,
                99,
                &view(l, 0, &[16]),
                &view(l, 0, &[16]),
                &view(l, 0, &[16]),
                null(),
                0,
                &mut t,
            ),
            1,
            "binary op code 99",
        );
        fails(
            td_unary(
                dev,
                0,
                0,
                16,
                0.0,
                0.0,
                &view(l, 0, &[16]),
                &view(l, 0, &[16]),
                null(),
                0,
                &mut t,
            ),
            1,
            "unary op code 16",
        );
        fails(
            td_reduce(
                dev,
                0,
                0,
                7,
                0,
                &view(l, 0, &[16]),
                &view(l, 0, &[1]),
                null(),
                0,
                &mut t,
            ),
            1,
            "reduce kind 7",
        );
        fails(
            td_pool2d(
                dev,
                0,
                0,
                null(),
                &view(l, 0, &[1, 1, 4, 4]),
                &view(l, 0, &[1, 1, 2, 2]),
                null(),
                0,
                &mut t,
            ),
            1,
            "params is NULL",
        );
        fails(td_wait(dev, 0, 0, null(), 3, &mut t), 1, "waits is NULL");
        let unknown = [77u64];
        fails(
            td_wait(dev, 0, 0, unknown.as_ptr(), 1, &mut t),
            2,
            "token 77",
        );
        // Recording errors discarded the launch.
        fails(td_launch_end(dev, null_mut()), 5, "discarded");

        // A conv whose output does not match, and a race, through the C ABI.
        assert_eq!(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            TD_OK
        );
        let params = TdConv2dParams {
            stride: [1, 1],
            pad: [0; 4],
            dilation: [1, 1],
            groups: 1,
        };
        fails(
            td_conv2d(
                dev,
                0,
                0,
                &view(l, 0, &[1, 1, 2, 2]),
                &view(l, 4, &[1, 1, 1, 1]),
                &view(l, 8, &[1, 1, 1, 1]),
                &params,
                0,
                null(),
                0,
                &mut t,
            ),
            1,
            "should be [1, 1, 2, 2]",
        );
        fails(td_launch_end(dev, null_mut()), 5, "discarded");
        assert_eq!(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            TD_OK
        );
        assert_eq!(
            td_dma(
                dev,
                0,
                0,
                &view(d, 0, &[16]),
                &view(l, 0, &[16]),
                null(),
                0,
                &mut t
            ),
            TD_OK
        );
        assert_eq!(
            td_reduce(
                dev,
                0,
                0,
                0,
                0,
                &view(l, 0, &[16]),
                &view(l, 0, &[1]),
                null(),
                0,
                &mut t
            ),
            TD_OK
        );
        fails(td_launch_end(dev, null_mut()), 6, "race on buffer");
        fails(td_barrier(dev, 0, 0, null_mut()), 5, "no launch is open");

        fails(td_trace_write(dev, name.as_ptr()), 1, "tracing is off");
        fails(
            td_trace_write_format(dev, 3, name.as_ptr()),
            1,
            "unknown trace format 3",
        );
        fails(
            td_report(dev, 3, null_mut(), 0, null_mut()),
            1,
            "report format 3",
        );
        let dir = CString::new("/nonexistent-dir/r.json").unwrap();
        fails(
            td_report_write(dev, 0, dir.as_ptr()),
            8,
            "/nonexistent-dir/r.json",
        );
        assert_eq!(td_device_destroy(dev), TD_OK);
    }
}

#[test]
fn the_first_failure_on_a_device_is_kept_until_taken() {
    unsafe {
        let dev = create("mini");
        let other = create("mini");
        assert_eq!(td_device_take_error(dev), TD_OK);
        // Two failures in a row: the first one is what take reports, with its function's name.
        fails(td_buffer_alloc(dev, LB, 0, 0, 1 << 30, 0, &mut 0), 3, "");
        fails(td_buffer_free(dev, 12345), 2, "");
        assert_eq!(td_buffer_free(other, 999), 2);
        fails(td_device_take_error(dev), 3, "td_buffer_alloc: ");
        assert!(!last_error().contains("12345"), "{}", last_error());
        // Taking clears it; other devices keep their own.
        assert_eq!(td_device_take_error(dev), TD_OK);
        fails(td_device_take_error(other), 2, "td_buffer_free: ");
        fails(td_device_take_error(0), 2, "");
        assert_eq!(td_device_destroy(dev), TD_OK);
        assert_eq!(td_device_destroy(other), TD_OK);
    }
}

#[test]
fn a_buffer_released_during_the_launch_that_uses_it_is_freed_when_the_launch_ends() {
    unsafe {
        let dev = create("mini");
        let ddr = alloc(dev, DDR, 0, 0, 64);
        let tile = alloc(dev, LB, 0, 0, 64);
        let unused = alloc(dev, LB, 0, 0, 64);
        let cores = [TdCore {
            cluster: 0,
            core: 0,
        }];
        let name = CString::new("k").unwrap();
        assert_eq!(
            td_launch_begin(dev, name.as_ptr(), cores.as_ptr(), 1),
            TD_OK
        );
        let mut t = 0;
        let (src, dst) = (view(ddr, 0, &[16]), view(tile, 0, &[16]));
        assert_eq!(td_dma(dev, 0, 0, &src, &dst, null(), 0, &mut t), TD_OK);
        fails(td_buffer_free(dev, tile), 5, "");
        assert_eq!(td_buffer_release(dev, tile), TD_OK);
        fails(td_buffer_release(dev, tile), 1, "already released");
        // A buffer the launch does not use goes at once.
        assert_eq!(td_buffer_release(dev, unused), TD_OK);
        fails(td_buffer_release(dev, unused), 2, "");
        // The released tile is still there for the rest of the recording and the execution.
        assert_eq!(
            td_dma(dev, 0, 0, &dst, &src, [t].as_ptr(), 1, &mut t),
            TD_OK
        );
        assert_eq!(td_launch_end(dev, null_mut()), TD_OK, "{}", last_error());
        fails(td_buffer_release(dev, tile), 2, "");
        // The refused free was the first failure on the device.
        fails(td_device_take_error(dev), 5, "td_buffer_free: ");
        assert_eq!(td_device_destroy(dev), TD_OK);
    }
}

/// Every `td_` identifier of the header directly followed by `(`: the declared functions
/// (and any function the header's comments call, which must exist too).
fn header_functions() -> Vec<String> {
    let header = include_str!("../include/turbine_dsa.h");
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut names = Vec::new();
    for (i, _) in header.match_indices("td_") {
        if header[..i].chars().next_back().is_some_and(ident) {
            continue;
        }
        let name: String = header[i..].chars().take_while(|&c| ident(c)).collect();
        if header[i + name.len()..].starts_with('(') {
            names.push(name);
        }
    }
    names.sort();
    names.dedup();
    names
}

#[test]
fn the_header_declares_exactly_the_exported_functions() {
    let mut exported: Vec<String> = symbols().iter().map(|(n, _)| n.to_string()).collect();
    exported.sort();
    assert_eq!(header_functions(), exported);
    assert!(symbols().iter().all(|(_, addr)| !addr.is_null()));
}

/// Finds a C compiler; the layout check needs one (Debian's LLVM 22 clang is where the
/// project's build expects it).
fn c_compiler() -> Option<String> {
    ["cc", "clang", "gcc", "/usr/lib/llvm-22/bin/clang"]
        .into_iter()
        .find(|cc| {
            std::process::Command::new(cc)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(str::to_string)
}

#[test]
fn struct_layouts_match_the_c_compilers() {
    let Some(cc) = c_compiler() else {
        eprintln!("no C compiler found: struct layouts not compared");
        return;
    };
    let dir = std::env::temp_dir().join(format!("td-layout-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("layout");
    let root = env!("CARGO_MANIFEST_DIR");
    let status = std::process::Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Werror", "-I"])
        .arg(format!("{root}/include"))
        .arg(format!("{root}/tests/c/layout.c"))
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap();
    assert!(status.success(), "the header does not compile with {cc}");
    let out = String::from_utf8(std::process::Command::new(&exe).output().unwrap().stdout).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let rust = [
        format!(
            "td_core {} {} {}",
            size_of::<TdCore>(),
            offset_of!(TdCore, cluster),
            offset_of!(TdCore, core)
        ),
        format!(
            "td_view {} {} {} {} {} {}",
            size_of::<TdView>(),
            offset_of!(TdView, buffer),
            offset_of!(TdView, offset),
            offset_of!(TdView, rank),
            offset_of!(TdView, shape),
            offset_of!(TdView, strides)
        ),
        format!(
            "td_conv2d_params {} {} {} {} {}",
            size_of::<TdConv2dParams>(),
            offset_of!(TdConv2dParams, stride),
            offset_of!(TdConv2dParams, pad),
            offset_of!(TdConv2dParams, dilation),
            offset_of!(TdConv2dParams, groups)
        ),
        format!(
            "td_pool2d_params {} {} {} {} {} {}",
            size_of::<TdPool2dParams>(),
            offset_of!(TdPool2dParams, kind),
            offset_of!(TdPool2dParams, count_include_pad),
            offset_of!(TdPool2dParams, kernel),
            offset_of!(TdPool2dParams, stride),
            offset_of!(TdPool2dParams, pad)
        ),
        format!(
            "td_model_buffer {} {} {} {} {} {} {} {}",
            size_of::<TdModelBuffer>(),
            offset_of!(TdModelBuffer, role),
            offset_of!(TdModelBuffer, dtype),
            offset_of!(TdModelBuffer, index),
            offset_of!(TdModelBuffer, rank),
            offset_of!(TdModelBuffer, shape),
            offset_of!(TdModelBuffer, name),
            offset_of!(TdModelBuffer, data)
        ),
        format!(
            "td_model_desc {} {} {} {} {}",
            size_of::<TdModelDesc>(),
            offset_of!(TdModelDesc, name),
            offset_of!(TdModelDesc, entry),
            offset_of!(TdModelDesc, n_buffers),
            offset_of!(TdModelDesc, buffers)
        ),
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), rust);
}
