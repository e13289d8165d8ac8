//! A small double-buffered GEMM on the 8 cores of one STCP920 cluster, to show what the report
//! and the trace look like. Each core computes a 32x64 column block of C = relu(A·B) with
//! A: 32x256 and B: 256x512 in DDR, streaming K in chunks of 64 through two LB buffer pairs:
//! the DMA of chunk i+1 overlaps the matmul of chunk i, and the 8 cores share the cluster's
//! DDR port.
//!
//! Run: `cargo run --release -p turbine-runtime --example report_demo [trace.json]`, then open
//! the trace in ui.perfetto.dev.

use turbine_runtime::{CoreId, Device, Instr, Placement, Token, TraceFormat, UnaryOp, View};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (m, k, n, kc, nb) = (32u64, 256u64, 512u64, 64u64, 64u64);
    let mut dev = Device::open("stcp920")?;
    dev.set_tracing(true);
    let a = dev.alloc(Placement::Ddr, m * k * 4)?;
    let b = dev.alloc(Placement::Ddr, k * n * 4)?;
    let c = dev.alloc(Placement::Ddr, m * n * 4)?;
    let av: Vec<f32> = (0..m * k).map(|i| ((i % 17) as f32 - 8.0) / 8.0).collect();
    let bv: Vec<f32> = (0..k * n).map(|i| ((i % 13) as f32 - 6.0) / 6.0).collect();
    dev.write(a, 0, &av)?;
    dev.write(b, 0, &bv)?;

    let cores: Vec<CoreId> = (0..8).map(|i| CoreId::new(0, i)).collect();
    dev.launch_begin("gemm_relu", &cores)?;
    for (j, &core) in cores.iter().enumerate() {
        let lb = |dev: &mut Device, elems: u64| dev.alloc(Placement::Lb(core), elems * 4);
        let a_tiles = [lb(&mut dev, m * kc)?, lb(&mut dev, m * kc)?];
        let b_tiles = [lb(&mut dev, kc * nb)?, lb(&mut dev, kc * nb)?];
        let acc = lb(&mut dev, m * nb)?;
        let col = j as u64 * nb;
        let mut matmuls: Vec<Token> = Vec::new();
        for (i, k0) in (0..k).step_by(kc as usize).enumerate() {
            let slot = i % 2;
            // Reusing a buffer pair waits for the matmul that read it two chunks ago.
            let reuse: Vec<Token> = i.checked_sub(2).map(|p| matmuls[p]).into_iter().collect();
            let ta = dev.enqueue(
                core,
                Instr::Dma {
                    src: View::new(a, k0, &[m, kc], &[k, 1]),
                    dst: View::contiguous(a_tiles[slot], 0, &[m, kc]),
                },
                &reuse,
            )?;
            let tb = dev.enqueue(
                core,
                Instr::Dma {
                    src: View::new(b, k0 * n + col, &[kc, nb], &[n, 1]),
                    dst: View::contiguous(b_tiles[slot], 0, &[kc, nb]),
                },
                &reuse,
            )?;
            let mm = dev.enqueue(
                core,
                Instr::Matmul {
                    a: View::contiguous(a_tiles[slot], 0, &[m, kc]),
                    b: View::contiguous(b_tiles[slot], 0, &[kc, nb]),
                    c: View::contiguous(acc, 0, &[m, nb]),
                    accumulate: i > 0,
                },
                &[ta, tb],
            )?;
            matmuls.push(mm);
        }
        let whole = View::contiguous(acc, 0, &[m, nb]);
        let last = *matmuls.last().expect("k has at least one chunk");
        let relu = dev.enqueue(
            core,
            Instr::Unary {
                op: UnaryOp::Relu,
                input: whole.clone(),
                out: whole.clone(),
            },
            &[last],
        )?;
        dev.enqueue(
            core,
            Instr::Dma {
                src: whole,
                dst: View::new(c, col, &[m, nb], &[n, 1]),
            },
            &[relu],
        )?;
    }
    let launch = dev.launch_end()?;

    // Check one element against a direct dot product.
    let got = dev.read(c, 5 * n + 300, 1)?[0];
    let want: f32 = (0..k as usize)
        .map(|p| av[5 * k as usize + p] * bv[p * n as usize + 300])
        .sum::<f32>()
        .max(0.0);
    assert!(
        (got - want).abs() <= 1e-4 * want.abs().max(1.0),
        "C[5][300] = {got}, expected {want}"
    );

    println!("launch '{}': {} cycles\n", launch.name, launch.cycles());
    // The summary and, behind it, every unit that ran something.
    println!("{}", dev.report().text(true));
    if let Some(path) = std::env::args().nth(1) {
        dev.write_trace(&path, TraceFormat::Layers)?;
        println!("trace written to {path}");
    }
    Ok(())
}
