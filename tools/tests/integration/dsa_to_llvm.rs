//! The backend end to end: hand-written `dsa` modules for the `mini` target (2 clusters × 2
//! cores, 16 KiB LB) lowered by `convert-dsa-to-runtime` and the LLVM pipeline, JIT-compiled or
//! written as an object file, run on the software DSA, and compared with numbers computed here.

use melior::ir::{operation::OperationLike, Module};
use std::ffi::{CStr, CString};
use turbine_codegen::{compile_object, EntryBuffer, Jit, OptLevel, Role};
use turbine_runtime::ffi;

const TARGET: &str = r#"dsa.target = #dsa.target<name = "mini", clusters = 2, cores_per_cluster = 2,
    matrix_engines_per_core = 1, vector_engines_per_core = 1, vector_cores_per_core = 1,
    lb_bytes = 16384, gb_bytes = 262144, ddr_bytes = 67108864, clock_mhz = 1000,
    ddr_gb_bandwidth = 16, gb_lb_bandwidth = 32, lb_lb_bandwidth = 16, matrix_flops = 64,
    dma_setup = 10, compute_setup = 2, barrier = 5>"#;

/// A device of the C ABI, destroyed on drop.
struct Device(u64);

impl Device {
    fn mini() -> Device {
        let name = CString::new("mini").unwrap();
        let mut handle = 0;
        assert_eq!(
            unsafe { ffi::td_device_create(name.as_ptr(), &mut handle) },
            ffi::TD_OK
        );
        Device(handle)
    }

    /// A DDR buffer holding `values`.
    fn buffer(&self, values: &[f32]) -> u64 {
        let bytes = 4 * values.len() as u64;
        let mut buffer = 0;
        unsafe {
            assert_eq!(
                ffi::td_buffer_alloc(self.0, 2, 0, 0, bytes, 0, &mut buffer),
                ffi::TD_OK,
                "{}",
                last_error()
            );
            assert_eq!(
                ffi::td_buffer_write(self.0, buffer, 0, values.as_ptr().cast(), bytes),
                ffi::TD_OK
            );
        }
        buffer
    }

    fn read(&self, buffer: u64, len: usize) -> Vec<f32> {
        let mut values = vec![0f32; len];
        let status = unsafe {
            ffi::td_buffer_read(
                self.0,
                buffer,
                0,
                values.as_mut_ptr().cast(),
                4 * len as u64,
            )
        };
        assert_eq!(status, ffi::TD_OK, "{}", last_error());
        values
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        ffi::td_device_destroy(self.0);
    }
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(ffi::td_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `body` inside a module for the `mini` target.
fn module_text(body: &str) -> String {
    format!("module attributes {{{TARGET}}} {{\n{body}\n}}")
}

fn jit(body: &str) -> Jit {
    let context = turbine_dialects::create_context();
    let mut module = Module::parse(&context, &module_text(body)).expect("the test module parses");
    assert!(module.as_operation().verify(), "the test module verifies");
    Jit::new(&mut module, OptLevel::O2)
        .unwrap_or_else(|error| panic!("compilation failed:\n{error}"))
}

fn assert_close(actual: &[f32], expected: &[f32]) {
    assert_eq!(actual.len(), expected.len());
    for (index, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            (a - e).abs() <= 1e-4 * e.abs().max(1.0),
            "element {index}: got {a}, expected {e}"
        );
    }
}

const RELU: &str = r#"
  dsa.kernel @relu(%x: memref<4x64xf32, #dsa.memory_space<ddr>>,
      %y: memref<4x64xf32, #dsa.memory_space<ddr>>) {
    %row = dsa.core_id : index
    %tile = dsa.alloc : memref<1x64xf32, #dsa.memory_space<lb>>
    %in = memref.subview %x[%row, 0] [1, 64] [1, 1] : memref<4x64xf32, #dsa.memory_space<ddr>>
        to memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    %out = memref.subview %y[%row, 0] [1, 64] [1, 1] : memref<4x64xf32, #dsa.memory_space<ddr>>
        to memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    %t0 = dsa.dma %in to %tile : memref<1x64xf32, strided<[64, 1], offset: ?>,
        #dsa.memory_space<ddr>>, memref<1x64xf32, #dsa.memory_space<lb>>
    %t1 = dsa.unary relu %tile into %tile after %t0 : memref<1x64xf32, #dsa.memory_space<lb>>,
        memref<1x64xf32, #dsa.memory_space<lb>>
    %t2 = dsa.dma %tile to %out after %t1 : memref<1x64xf32, #dsa.memory_space<lb>>,
        memref<1x64xf32, strided<[64, 1], offset: ?>, #dsa.memory_space<ddr>>
    dsa.wait %t2
    dsa.dealloc %tile : memref<1x64xf32, #dsa.memory_space<lb>>
    dsa.return
  }
  func.func @relu_4x64(%x: memref<4x64xf32, #dsa.memory_space<ddr>> {dsa.input = 0},
      %y: memref<4x64xf32, #dsa.memory_space<ddr>> {dsa.output = 0}) {
    dsa.launch @relu(%x, %y) on [0, 1, 2, 3] : memref<4x64xf32, #dsa.memory_space<ddr>>,
        memref<4x64xf32, #dsa.memory_space<ddr>>
    return
  }"#;

fn relu_input() -> Vec<f32> {
    (0..256).map(|i| (i as f32 - 100.0) * 0.5).collect()
}

#[test]
fn relu_split_over_four_cores_runs_through_the_jit() {
    let jit = jit(RELU);
    assert_eq!(jit.entries().len(), 1);
    assert_eq!(
        jit.entries()[0].buffers,
        [
            EntryBuffer {
                shape: vec![4, 64],
                element: "f32",
                role: Role::Input(0)
            },
            EntryBuffer {
                shape: vec![4, 64],
                element: "f32",
                role: Role::Output(0)
            },
        ]
    );
    let device = Device::mini();
    let input = relu_input();
    let (x, y) = (device.buffer(&input), device.buffer(&[0.0; 256]));
    jit.run("relu_4x64", device.0, &[x, y]).unwrap();
    let expected: Vec<f32> = input.iter().map(|v| v.max(0.0)).collect();
    assert_close(&device.read(y, 256), &expected);
    // The launch ran on all four cores, and running again gives the same result.
    jit.run("relu_4x64", device.0, &[x, y]).unwrap();
    assert_close(&device.read(y, 256), &expected);
    assert!(jit.times().total() > std::time::Duration::ZERO);
    insta::assert_snapshot!(
        jit.run("relu_4x64", device.0, &[x]).unwrap_err(),
        @"entry 'relu_4x64' takes 2 buffers, got 1"
    );
}

/// C[8, 16] = A[8, 32] · B[32, 16] on two cores of different clusters (4 rows each), K in
/// tiles of 8: the load of tile k + 1 overlaps the product of tile k in the other half of
/// double buffers, ordered by tokens carried through the loop's iteration arguments.
const MATMUL: &str = r#"
  dsa.kernel @matmul(%a: memref<8x32xf32, #dsa.memory_space<ddr>>,
      %b: memref<32x16xf32, #dsa.memory_space<ddr>>, %c: memref<8x16xf32, #dsa.memory_space<ddr>>) {
    %id = dsa.core_id : index
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c8 = arith.constant 8 : index
    %row = arith.muli %id, %c4 : index
    %la = dsa.alloc : memref<2x4x8xf32, #dsa.memory_space<lb>>
    %lb = dsa.alloc : memref<2x8x16xf32, #dsa.memory_space<lb>>
    %acc = dsa.alloc : memref<4x16xf32, #dsa.memory_space<lb>>
    %a0 = memref.subview %a[%row, 0] [4, 8] [1, 1] : memref<8x32xf32, #dsa.memory_space<ddr>>
        to memref<4x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>
    %la0 = memref.subview %la[0, 0, 0] [1, 4, 8] [1, 1, 1]
        : memref<2x4x8xf32, #dsa.memory_space<lb>>
        to memref<4x8xf32, strided<[8, 1]>, #dsa.memory_space<lb>>
    %ta0 = dsa.dma %a0 to %la0 : memref<4x8xf32, strided<[32, 1], offset: ?>,
        #dsa.memory_space<ddr>>, memref<4x8xf32, strided<[8, 1]>, #dsa.memory_space<lb>>
    %b0 = memref.subview %b[0, 0] [8, 16] [1, 1] : memref<32x16xf32, #dsa.memory_space<ddr>>
        to memref<8x16xf32, strided<[16, 1]>, #dsa.memory_space<ddr>>
    %lb0 = memref.subview %lb[0, 0, 0] [1, 8, 16] [1, 1, 1]
        : memref<2x8x16xf32, #dsa.memory_space<lb>>
        to memref<8x16xf32, strided<[16, 1]>, #dsa.memory_space<lb>>
    %tb0 = dsa.dma %b0 to %lb0 : memref<8x16xf32, strided<[16, 1]>, #dsa.memory_space<ddr>>,
        memref<8x16xf32, strided<[16, 1]>, #dsa.memory_space<lb>>
    %r:3 = scf.for %k = %c0 to %c3 step %c1 iter_args(%ta = %ta0, %tb = %tb0, %tm = %ta0) ->
        (!dsa.token, !dsa.token, !dsa.token) {
      %cur = arith.remui %k, %c2 : index
      %k1 = arith.addi %k, %c1 : index
      %next = arith.remui %k1, %c2 : index
      %kofs = arith.muli %k1, %c8 : index
      %an = memref.subview %a[%row, %kofs] [4, 8] [1, 1] : memref<8x32xf32, #dsa.memory_space<ddr>>
          to memref<4x8xf32, strided<[32, 1], offset: ?>, #dsa.memory_space<ddr>>
      %lan = memref.subview %la[%next, 0, 0] [1, 4, 8] [1, 1, 1]
          : memref<2x4x8xf32, #dsa.memory_space<lb>>
          to memref<4x8xf32, strided<[8, 1], offset: ?>, #dsa.memory_space<lb>>
      %tan = dsa.dma %an to %lan after %tm : memref<4x8xf32, strided<[32, 1], offset: ?>,
          #dsa.memory_space<ddr>>, memref<4x8xf32, strided<[8, 1], offset: ?>,
          #dsa.memory_space<lb>>
      %bn = memref.subview %b[%kofs, 0] [8, 16] [1, 1] : memref<32x16xf32, #dsa.memory_space<ddr>>
          to memref<8x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<ddr>>
      %lbn = memref.subview %lb[%next, 0, 0] [1, 8, 16] [1, 1, 1]
          : memref<2x8x16xf32, #dsa.memory_space<lb>>
          to memref<8x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<lb>>
      %tbn = dsa.dma %bn to %lbn after %tm : memref<8x16xf32, strided<[16, 1], offset: ?>,
          #dsa.memory_space<ddr>>, memref<8x16xf32, strided<[16, 1], offset: ?>,
          #dsa.memory_space<lb>>
      %lac = memref.subview %la[%cur, 0, 0] [1, 4, 8] [1, 1, 1]
          : memref<2x4x8xf32, #dsa.memory_space<lb>>
          to memref<4x8xf32, strided<[8, 1], offset: ?>, #dsa.memory_space<lb>>
      %lbc = memref.subview %lb[%cur, 0, 0] [1, 8, 16] [1, 1, 1]
          : memref<2x8x16xf32, #dsa.memory_space<lb>>
          to memref<8x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<lb>>
      %tmn = dsa.matmul %lac, %lbc into %acc accumulate after %ta, %tb, %tm
          : memref<4x8xf32, strided<[8, 1], offset: ?>, #dsa.memory_space<lb>>,
          memref<8x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<lb>>,
          memref<4x16xf32, #dsa.memory_space<lb>>
      scf.yield %tan, %tbn, %tmn : !dsa.token, !dsa.token, !dsa.token
    }
    %la1 = memref.subview %la[1, 0, 0] [1, 4, 8] [1, 1, 1]
        : memref<2x4x8xf32, #dsa.memory_space<lb>>
        to memref<4x8xf32, strided<[8, 1], offset: 32>, #dsa.memory_space<lb>>
    %lb1 = memref.subview %lb[1, 0, 0] [1, 8, 16] [1, 1, 1]
        : memref<2x8x16xf32, #dsa.memory_space<lb>>
        to memref<8x16xf32, strided<[16, 1], offset: 128>, #dsa.memory_space<lb>>
    %tl = dsa.matmul %la1, %lb1 into %acc accumulate after %r#0, %r#1, %r#2
        : memref<4x8xf32, strided<[8, 1], offset: 32>, #dsa.memory_space<lb>>,
        memref<8x16xf32, strided<[16, 1], offset: 128>, #dsa.memory_space<lb>>,
        memref<4x16xf32, #dsa.memory_space<lb>>
    %cv = memref.subview %c[%row, 0] [4, 16] [1, 1] : memref<8x16xf32, #dsa.memory_space<ddr>>
        to memref<4x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<ddr>>
    %to = dsa.dma %acc to %cv after %tl : memref<4x16xf32, #dsa.memory_space<lb>>,
        memref<4x16xf32, strided<[16, 1], offset: ?>, #dsa.memory_space<ddr>>
    dsa.wait %to
    dsa.dealloc %la : memref<2x4x8xf32, #dsa.memory_space<lb>>
    dsa.dealloc %lb : memref<2x8x16xf32, #dsa.memory_space<lb>>
    dsa.dealloc %acc : memref<4x16xf32, #dsa.memory_space<lb>>
    dsa.return
  }
  func.func @gemm(%a: memref<8x32xf32, #dsa.memory_space<ddr>>,
      %b: memref<32x16xf32, #dsa.memory_space<ddr>>, %c: memref<8x16xf32, #dsa.memory_space<ddr>>) {
    dsa.launch @matmul(%a, %b, %c) on [0, 2] : memref<8x32xf32, #dsa.memory_space<ddr>>,
        memref<32x16xf32, #dsa.memory_space<ddr>>, memref<8x16xf32, #dsa.memory_space<ddr>>
    return
  }"#;

#[test]
fn a_double_buffered_tiled_matmul_runs_through_the_jit() {
    let jit = jit(MATMUL);
    let device = Device::mini();
    let a: Vec<f32> = (0..8 * 32)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.25)
        .collect();
    let b: Vec<f32> = (0..32 * 16)
        .map(|i| ((i * 5 % 11) as f32 - 5.0) * 0.5)
        .collect();
    let (da, db, dc) = (
        device.buffer(&a),
        device.buffer(&b),
        device.buffer(&[0.0; 8 * 16]),
    );
    jit.run("gemm", device.0, &[da, db, dc]).unwrap();
    let expected: Vec<f32> = (0..8 * 16)
        .map(|index| {
            (0..32)
                .map(|k| a[index / 16 * 32 + k] * b[k * 16 + index % 16])
                .sum()
        })
        .collect();
    assert_close(&device.read(dc, 8 * 16), &expected);
}

/// A 3×3 convolution with padding 1 (2 → 3 channels, 6×6), clipped to [0, 6] and max-pooled
/// 2×2 with stride 2, on one core.
const CONV_POOL: &str = r#"
  dsa.kernel @conv_pool(%x: memref<1x2x6x6xf32, #dsa.memory_space<ddr>>,
      %w: memref<3x2x3x3xf32, #dsa.memory_space<ddr>>,
      %y: memref<1x3x3x3xf32, #dsa.memory_space<ddr>>) {
    %lx = dsa.alloc : memref<1x2x6x6xf32, #dsa.memory_space<lb>>
    %lw = dsa.alloc : memref<3x2x3x3xf32, #dsa.memory_space<lb>>
    %lc = dsa.alloc : memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %lp = dsa.alloc : memref<1x3x3x3xf32, #dsa.memory_space<lb>>
    %t0 = dsa.dma %x to %lx : memref<1x2x6x6xf32, #dsa.memory_space<ddr>>,
        memref<1x2x6x6xf32, #dsa.memory_space<lb>>
    %t1 = dsa.dma %w to %lw : memref<3x2x3x3xf32, #dsa.memory_space<ddr>>,
        memref<3x2x3x3xf32, #dsa.memory_space<lb>>
    %t2 = dsa.conv2d %lx, %lw into %lc after %t0, %t1 {pads = array<i64: 1, 1, 1, 1>}
        : memref<1x2x6x6xf32, #dsa.memory_space<lb>>, memref<3x2x3x3xf32, #dsa.memory_space<lb>>,
        memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t3 = dsa.unary clip %lc into %lc after %t2 {min = 0.0 : f32, max = 6.0 : f32}
        : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x6x6xf32, #dsa.memory_space<lb>>
    %t4 = dsa.pool max %lc into %lp after %t3
        {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : memref<1x3x6x6xf32, #dsa.memory_space<lb>>, memref<1x3x3x3xf32, #dsa.memory_space<lb>>
    %t5 = dsa.dma %lp to %y after %t4 : memref<1x3x3x3xf32, #dsa.memory_space<lb>>,
        memref<1x3x3x3xf32, #dsa.memory_space<ddr>>
    dsa.wait %t5
    dsa.return
  }
  func.func @conv_clip_pool(%x: memref<1x2x6x6xf32, #dsa.memory_space<ddr>>,
      %w: memref<3x2x3x3xf32, #dsa.memory_space<ddr>>,
      %y: memref<1x3x3x3xf32, #dsa.memory_space<ddr>>) {
    dsa.launch @conv_pool(%x, %w, %y) on [3] : memref<1x2x6x6xf32, #dsa.memory_space<ddr>>,
        memref<3x2x3x3xf32, #dsa.memory_space<ddr>>, memref<1x3x3x3xf32, #dsa.memory_space<ddr>>
    return
  }"#;

#[test]
fn a_padded_convolution_clip_and_pool_run_through_the_jit() {
    let jit = jit(CONV_POOL);
    let device = Device::mini();
    let x: Vec<f32> = (0..72).map(|i| ((i * 7 % 10) as f32 - 3.0) * 0.5).collect();
    let w: Vec<f32> = (0..54).map(|i| ((i * 3 % 7) as f32 - 2.0) * 0.25).collect();
    let (dx, dw, dy) = (
        device.buffer(&x),
        device.buffer(&w),
        device.buffer(&[0.0; 27]),
    );
    jit.run("conv_clip_pool", device.0, &[dx, dw, dy]).unwrap();
    let conv = |o: usize, h: i64, w_: i64| -> f32 {
        let mut sum = 0.0;
        for c in 0..2 {
            for kh in 0..3 {
                for kw in 0..3 {
                    let (ih, iw) = (h + kh - 1, w_ + kw - 1);
                    if (0..6).contains(&ih) && (0..6).contains(&iw) {
                        sum += x[c * 36 + ih as usize * 6 + iw as usize]
                            * w[o * 18 + c * 9 + kh as usize * 3 + kw as usize];
                    }
                }
            }
        }
        sum.clamp(0.0, 6.0)
    };
    let expected: Vec<f32> = (0..27)
        .map(|index| {
            let (o, ph, pw) = (index / 9, (index % 9 / 3) as i64, (index % 3) as i64);
            [(0, 0), (0, 1), (1, 0), (1, 1)]
                .iter()
                .map(|(dh, dw)| conv(o, 2 * ph + dh, 2 * pw + dw))
                .fold(f32::MIN, f32::max)
        })
        .collect();
    assert_close(&device.read(dy, 27), &expected);
}

#[test]
fn an_lb_allocation_beyond_capacity_is_an_error_from_run() {
    let jit = jit(r#"
  dsa.kernel @too_big(%x: memref<16xf32, #dsa.memory_space<ddr>>) {
    %huge = dsa.alloc : memref<8192xf32, #dsa.memory_space<lb>>
    %part = memref.subview %huge[0] [16] [1] : memref<8192xf32, #dsa.memory_space<lb>>
        to memref<16xf32, strided<[1]>, #dsa.memory_space<lb>>
    %t = dsa.dma %x to %part : memref<16xf32, #dsa.memory_space<ddr>>,
        memref<16xf32, strided<[1]>, #dsa.memory_space<lb>>
    dsa.wait %t
    dsa.return
  }
  func.func @main(%x: memref<16xf32, #dsa.memory_space<ddr>>) {
    dsa.launch @too_big(%x) on [1] : memref<16xf32, #dsa.memory_space<ddr>>
    return
  }"#);
    let device = Device::mini();
    let x = device.buffer(&[1.0; 16]);
    let error = jit.run("main", device.0, &[x]).unwrap_err();
    assert!(
        error.starts_with("'main' failed with status 3: td_buffer_alloc: "),
        "{error}"
    );
    assert!(error.contains("32768"), "{error}");
    // The entry took the failure: none is left pending on the device.
    assert_eq!(ffi::td_device_take_error(device.0), ffi::TD_OK);
}

#[test]
fn the_lit_test_runs_the_pipeline_the_backend_runs() {
    let pipeline = turbine_passes::pipelines::DSA_TO_LLVM.argument;
    assert_eq!(
        turbine_codegen::LOWERING_PIPELINE,
        format!("builtin.module({pipeline})")
    );
    let lit = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test/Conversion/DsaToRuntime/lower-to-llvm.mlir");
    let text = std::fs::read_to_string(lit).unwrap();
    assert!(text.contains(&format!("turbine-opt %s --{pipeline} ")));
}

#[test]
fn lowering_errors_come_back_as_text() {
    let context = turbine_dialects::create_context();
    let mut module = Module::parse(&context, "module {}").unwrap();
    let error = Jit::new(&mut module, OptLevel::O0)
        .err()
        .expect("no target is an error");
    assert!(
        error.contains(
            "convert-dsa-to-runtime needs the module's dsa.target; run dsa-set-target first"
        ),
        "{error}"
    );
}

/// The AOT path: the object file and header for the relu module, linked by the C compiler with
/// a C driver and `libturbine_runtime.a`, then run.
#[test]
fn an_object_file_links_with_the_runtime_and_runs() {
    let context = turbine_dialects::create_context();
    let mut module = Module::parse(&context, &module_text(RELU)).unwrap();
    let code = compile_object(&mut module, OptLevel::O2, true, "relu")
        .unwrap_or_else(|error| panic!("{error}"));
    assert!(code
        .llvm_ir
        .as_deref()
        .is_some_and(|ir| ir.contains("define i32 @relu_4x64(i64")));
    assert!(
        code.header
            .contains("int32_t relu_4x64(uint64_t device, const uint64_t *buffers);"),
        "{}",
        code.header
    );
    assert!(
        code.header.contains("[1] 4x64 f32, output 0"),
        "{}",
        code.header
    );

    let directory = tempfile::tempdir().unwrap();
    let path = |name: &str| directory.path().join(name);
    std::fs::write(path("relu.o"), &code.object).unwrap();
    std::fs::write(path("relu.h"), &code.header).unwrap();
    std::fs::write(
        path("main.c"),
        r#"#include <stdio.h>
#include "relu.h"
#include "turbine_dsa.h"
int main(void) {
  uint64_t dev, buffers[2];
  float input[256], output[256];
  for (int i = 0; i < 256; i++) input[i] = (i - 100) * 0.5f;
  if (td_device_create("mini", &dev)) return 10;
  for (int b = 0; b < 2; b++)
    if (td_buffer_alloc(dev, TD_LEVEL_DDR, 0, 0, sizeof input, TD_DTYPE_F32, &buffers[b])) return
        11;
  if (td_buffer_write(dev, buffers[0], 0, input, sizeof input)) return 12;
  int32_t status = relu_4x64(dev, buffers);
  if (status) { fprintf(stderr, "%s\n", td_last_error()); return 13; }
  if (td_buffer_read(dev, buffers[1], 0, output, sizeof output)) return 14;
  for (int i = 0; i < 256; i++) printf("%g\n", output[i]);
  return td_device_destroy(dev);
}
"#,
    )
    .unwrap();
    // The runtime's staticlib sits beside the dependencies of this test executable.
    let profile = std::env::current_exe()
        .unwrap()
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let runtime = profile.join("libturbine_runtime.a");
    assert!(
        runtime.exists(),
        "{} is built with turbine-runtime",
        runtime.display()
    );
    let include = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/include");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let linked = std::process::Command::new(&compiler)
        .arg(path("main.c"))
        .arg(path("relu.o"))
        .arg(&runtime)
        .arg("-I")
        .arg(&include)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(path("relu"))
        .output()
        .unwrap();
    assert!(
        linked.status.success(),
        "{compiler} failed:\n{}",
        String::from_utf8_lossy(&linked.stderr)
    );
    let run = std::process::Command::new(path("relu")).output().unwrap();
    assert!(
        run.status.success(),
        "the program failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let output: Vec<f32> = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|line| line.parse().unwrap())
        .collect();
    let expected: Vec<f32> = relu_input().iter().map(|v| v.max(0.0)).collect();
    assert_close(&output, &expected);
}
