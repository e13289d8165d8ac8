//! Host speed of the matrix engine: GFLOP/s of the runtime's `matmul` and `conv2d`
//! instructions against the `gemm` crate called directly on the same shapes, for the
//! convolutions of ResNet-50 (batch 1, 224x224) lowered to GEMM (M = output channels,
//! N = output pixels, K = input channels x kernel taps), plus an LB-sized 64x64x64 tile.
//!
//! Run: `cargo run --release -p turbine-runtime --example gemm_bench`. Single host thread on
//! both sides (the runtime parallelises across cores, not inside one instruction). Engine times
//! are whole launches: recording, checks, timing simulation and execution.

use std::time::{Duration, Instant};
use turbine_runtime::{Conv2dParams, CoreId, Device, Instr, Placement, Target, View};

/// A ResNet-50 convolution: name, input channels, input size, output channels, kernel,
/// stride, pad.
struct Conv {
    name: &'static str,
    c: u64,
    hw: u64,
    o: u64,
    k: u64,
    stride: u64,
    pad: u64,
}

const RESNET50: [Conv; 14] = [
    Conv {
        name: "conv1 7x7/2",
        c: 3,
        hw: 224,
        o: 64,
        k: 7,
        stride: 2,
        pad: 3,
    },
    Conv {
        name: "l1 1x1 64>64",
        c: 64,
        hw: 56,
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l1 3x3 64>64",
        c: 64,
        hw: 56,
        o: 64,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "l1 1x1 64>256",
        c: 64,
        hw: 56,
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l1 1x1 256>64",
        c: 256,
        hw: 56,
        o: 64,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l2 3x3/2 128",
        c: 128,
        hw: 56,
        o: 128,
        k: 3,
        stride: 2,
        pad: 1,
    },
    Conv {
        name: "l2 3x3 128",
        c: 128,
        hw: 28,
        o: 128,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "l2 1x1 128>512",
        c: 128,
        hw: 28,
        o: 512,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l3 3x3 256",
        c: 256,
        hw: 14,
        o: 256,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "l3 1x1 256>1024",
        c: 256,
        hw: 14,
        o: 1024,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l3 1x1 1024>256",
        c: 1024,
        hw: 14,
        o: 256,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l4 3x3 512",
        c: 512,
        hw: 7,
        o: 512,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Conv {
        name: "l4 1x1 512>2048",
        c: 512,
        hw: 7,
        o: 2048,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Conv {
        name: "l4 1x1 2048>512",
        c: 2048,
        hw: 7,
        o: 512,
        k: 1,
        stride: 1,
        pad: 0,
    },
];

const CORE: CoreId = CoreId::new(0, 0);

/// Runs the functions in turn, round after round, until `budget` has passed (at least 3
/// rounds), and returns each one's fastest run: interleaving keeps a change in the host's load
/// from favouring one side of the comparison.
fn fastest(budget: Duration, fs: &mut [&mut dyn FnMut()]) -> Vec<Duration> {
    let start = Instant::now();
    let mut best = vec![Duration::MAX; fs.len()];
    let mut rounds = 0;
    while rounds < 3 || start.elapsed() < budget {
        for (f, b) in fs.iter_mut().zip(&mut best) {
            let t = Instant::now();
            f();
            *b = (*b).min(t.elapsed());
        }
        rounds += 1;
    }
    best
}

fn gflops(flops: f64, t: Duration) -> f64 {
    flops / t.as_secs_f64() / 1e9
}

/// An LB buffer of `len` elements filled with deterministic data (through DDR and a DMA).
fn filled_lb(dev: &mut Device, len: u64) -> turbine_runtime::BufferId {
    let data: Vec<f32> = (0..len)
        .map(|i| ((i * 7919 % 1000) as f32 - 500.0) / 500.0)
        .collect();
    let ddr = dev.alloc(Placement::Ddr, len * 4).unwrap();
    dev.write(ddr, 0, &data).unwrap();
    let lb = dev.alloc(Placement::Lb(CORE), len * 4).unwrap();
    dev.launch_begin("fill", &[CORE]).unwrap();
    let whole = |b| View::contiguous(b, 0, &[len]);
    dev.enqueue(
        CORE,
        Instr::Dma {
            src: whole(ddr),
            dst: whole(lb),
        },
        &[],
    )
    .unwrap();
    dev.launch_end().unwrap();
    dev.free(ddr).unwrap();
    lb
}

/// The gemm crate on dense row-major operands, as the engine calls it.
struct Direct {
    m: usize,
    n: usize,
    k: usize,
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
}

impl Direct {
    fn new(m: usize, n: usize, k: usize) -> Direct {
        let a = (0..m * k).map(|i| (i % 13) as f32 * 0.1).collect();
        let b = (0..k * n).map(|i| (i % 7) as f32 * 0.1).collect();
        Direct {
            m,
            n,
            k,
            a,
            b,
            c: vec![0.0; m * n],
        }
    }

    fn run(&mut self) {
        let (m, n, k) = (self.m, self.n, self.k);
        // SAFETY: dense row-major m x k, k x n and m x n buffers of exactly those sizes.
        unsafe {
            gemm::gemm(
                m,
                n,
                k,
                self.c.as_mut_ptr(),
                1,
                n as isize,
                false,
                self.a.as_ptr(),
                1,
                k as isize,
                self.b.as_ptr(),
                1,
                n as isize,
                1.0f32,
                1.0f32,
                false,
                false,
                false,
                gemm::Parallelism::None,
            )
        }
    }
}

/// Records `instrs` as one launch on [`CORE`] and runs it.
fn launch(dev: &mut Device, instrs: &[Instr]) {
    dev.launch_begin("bench", &[CORE]).unwrap();
    for i in instrs {
        dev.enqueue(CORE, i.clone(), &[]).unwrap();
    }
    dev.launch_end().unwrap();
}

fn main() {
    let mut target = Target::builtin("stcp920").unwrap();
    // Whole layers as single instructions need more than the real 64 KiB LB.
    target.core.lb_bytes = 256 << 20;
    target.validate().unwrap();
    let mut dev = Device::new(target);
    let budget = Duration::from_millis(400);

    println!("matrix engine host speed, single thread, f32 (GFLOP/s; higher is better)");
    println!(
        "{:<17} {:>5} {:>6} {:>5} | {:>9} {:>9} {:>9} | {:>6} {:>6}",
        "shape", "M", "N", "K", "matmul", "conv2d", "gemm", "mm/gemm", "cv/gemm"
    );
    let ratios: Vec<f64> = RESNET50
        .iter()
        .map(|conv| bench_layer(&mut dev, conv, budget))
        .collect();
    bench_tiles(&mut dev, budget);
    let geo = ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64;
    println!(
        "geometric mean matmul/gemm over the ResNet-50 shapes: {:.3}",
        geo.exp()
    );
}

/// Times one convolution as a `matmul`, as a `conv2d` and as a direct GEMM, prints its row
/// and returns the matmul/gemm speed ratio.
fn bench_layer(dev: &mut Device, conv: &Conv, budget: Duration) -> f64 {
    let out_hw = (conv.hw + 2 * conv.pad - conv.k) / conv.stride + 1;
    let (m, n, k) = (conv.o, out_hw * out_hw, conv.c * conv.k * conv.k);
    let flops = 2.0 * (m * n * k) as f64;

    let a = filled_lb(dev, m * k);
    let b = filled_lb(dev, k * n);
    let c = dev.alloc(Placement::Lb(CORE), m * n * 4).unwrap();
    let mm = Instr::Matmul {
        a: View::contiguous(a, 0, &[m, k]),
        b: View::contiguous(b, 0, &[k, n]),
        c: View::contiguous(c, 0, &[m, n]),
        accumulate: false,
    };
    let x = filled_lb(dev, conv.c * conv.hw * conv.hw);
    let w = filled_lb(dev, conv.o * conv.c * conv.k * conv.k);
    let y = dev.alloc(Placement::Lb(CORE), m * n * 4).unwrap();
    let cv = Instr::Conv2d {
        input: View::contiguous(x, 0, &[1, conv.c, conv.hw, conv.hw]),
        filter: View::contiguous(w, 0, &[conv.o, conv.c, conv.k, conv.k]),
        output: View::contiguous(y, 0, &[1, conv.o, out_hw, out_hw]),
        params: Conv2dParams {
            stride: [conv.stride; 2],
            pad: [conv.pad; 4],
            dilation: [1, 1],
            groups: 1,
        },
        accumulate: false,
    };
    let mut direct = Direct::new(m as usize, n as usize, k as usize);
    let dev_cell = std::cell::RefCell::new(&mut *dev);
    let times = fastest(
        budget,
        &mut [
            &mut || launch(&mut dev_cell.borrow_mut(), std::slice::from_ref(&mm)),
            &mut || launch(&mut dev_cell.borrow_mut(), std::slice::from_ref(&cv)),
            &mut || direct.run(),
        ],
    );
    let (t_mm, t_cv, t_gemm) = (times[0], times[1], times[2]);
    for buf in [a, b, c, x, w, y] {
        dev.free(buf).unwrap();
    }

    let (g_mm, g_cv, g_gemm) = (
        gflops(flops, t_mm),
        gflops(flops, t_cv),
        gflops(flops, t_gemm),
    );
    println!(
        "{:<17} {:>5} {:>6} {:>5} | {:>9.2} {:>9.2} {:>9.2} | {:>6.2} {:>6.2}",
        conv.name,
        m,
        n,
        k,
        g_mm,
        g_cv,
        g_gemm,
        g_mm / g_gemm,
        g_cv / g_gemm
    );
    g_mm / g_gemm
}

/// Times LB-sized tiles, as real kernels issue them: 64 accumulating 64x64x64 matmuls in one
/// launch (ordered by the matrix engine's queue, so no tokens are needed), against one direct
/// GEMM of a tile, and prints the row.
fn bench_tiles(dev: &mut Device, budget: Duration) {
    let t = 64u64;
    let a = filled_lb(dev, t * t);
    let b = filled_lb(dev, t * t);
    let c = dev.alloc(Placement::Lb(CORE), t * t * 4).unwrap();
    let tile = Instr::Matmul {
        a: View::contiguous(a, 0, &[t, t]),
        b: View::contiguous(b, 0, &[t, t]),
        c: View::contiguous(c, 0, &[t, t]),
        accumulate: true,
    };
    let per_launch = 64;
    let tiles = vec![tile; per_launch];
    let mut direct = Direct::new(t as usize, t as usize, t as usize);
    let times = fastest(
        budget,
        &mut [&mut || launch(dev, &tiles), &mut || direct.run()],
    );
    let (t_tiles, t_direct) = (times[0], times[1]);
    let flops = 2.0 * (t * t * t) as f64;
    let (g_tiles, g_direct) = (
        gflops(flops * per_launch as f64, t_tiles),
        gflops(flops, t_direct),
    );
    println!(
        "{:<17} {:>5} {:>6} {:>5} | {:>9.2} {:>9} {:>9.2} | {:>6.2} {:>6}",
        "64^3 tile x64",
        t,
        t,
        t,
        g_tiles,
        "-",
        g_direct,
        g_tiles / g_direct,
        "-"
    );
}
