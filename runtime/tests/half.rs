//! f16 and bf16 buffers: host transfers of their 16-bit patterns, DMAs that convert between
//! float widths, units that compute in f32 and round on store, and half-precision rates.

mod common;

use common::*;
use half::{bf16, f16};
use turbine_runtime::targets::DType;
use turbine_runtime::{BinaryOp, Device, ElementType as E, Instr, Placement, UnitKind, View};

fn write_f16(dev: &mut Device, buffer: turbine_runtime::BufferId, values: &[f32]) {
    let bytes: Vec<u8> = values
        .iter()
        .flat_map(|&x| f16::from_f32(x).to_bits().to_ne_bytes())
        .collect();
    dev.write_elements(buffer, E::F16, 0, &bytes).unwrap();
}

fn read_half(dev: &mut Device, buffer: turbine_runtime::BufferId, dtype: E, len: u64) -> Vec<f32> {
    let bytes = dev.read_elements(buffer, dtype, 0, len).unwrap();
    let bits = bytes
        .chunks_exact(2)
        .map(|b| u16::from_ne_bytes([b[0], b[1]]));
    match dtype {
        E::F16 => bits.map(|b| f16::from_bits(b).to_f32()).collect(),
        _ => bits.map(|b| bf16::from_bits(b).to_f32()).collect(),
    }
}

#[test]
fn a_product_of_f16_operands_accumulates_in_f32_and_rounds_once_on_store() {
    let mut dev = Device::new(roomy());
    let (m, k, n) = (4u64, 64u64, 4u64);
    let mut rng = Lcg::new(7);
    let round = |x: f32| f16::from_f32(x).to_f32();
    let a: Vec<f32> = rng
        .vec((m * k) as usize, -1.0, 1.0)
        .into_iter()
        .map(round)
        .collect();
    let b: Vec<f32> = rng
        .vec((k * n) as usize, -1.0, 1.0)
        .into_iter()
        .map(round)
        .collect();
    let a_ddr = dev.alloc_typed(Placement::Ddr, m * k * 2, E::F16).unwrap();
    let b_ddr = dev.alloc_typed(Placement::Ddr, k * n * 2, E::F16).unwrap();
    write_f16(&mut dev, a_ddr, &a);
    write_f16(&mut dev, b_ddr, &b);
    let a_lb = dev
        .alloc_typed(Placement::Lb(C00), m * k * 2, E::F16)
        .unwrap();
    let b_lb = dev
        .alloc_typed(Placement::Lb(C00), k * n * 2, E::F16)
        .unwrap();
    let acc = dev.alloc(Placement::Lb(C00), m * n * 4).unwrap();
    let out = dev.alloc_typed(Placement::Ddr, m * n * 2, E::F16).unwrap();
    let whole = |buffer, shape: &[u64]| View::contiguous(buffer, 0, shape);
    let steps = [
        step(C00, dma(whole(a_ddr, &[m, k]), whole(a_lb, &[m, k])), &[]),
        step(C00, dma(whole(b_ddr, &[k, n]), whole(b_lb, &[k, n])), &[]),
        step(
            C00,
            Instr::Matmul {
                a: whole(a_lb, &[m, k]),
                b: whole(b_lb, &[k, n]),
                c: whole(acc, &[m, n]),
                accumulate: false,
            },
            &[0, 1],
        ),
        // The accumulator leaves the LB converted to f16: the DMA carries 2 bytes an element.
        step(C00, dma(whole(acc, &[m, n]), whole(out, &[m, n])), &[2]),
    ];
    launch(&mut dev, "f16_matmul", &[C00], &steps).unwrap();
    let got = read_half(&mut dev, out, E::F16, m * n);
    for i in 0..m as usize {
        for j in 0..n as usize {
            let exact: f64 = (0..k as usize)
                .map(|p| a[i * k as usize + p] as f64 * b[p * n as usize + j] as f64)
                .sum();
            // f32 accumulation of 64 products is far below f16's rounding step, so the stored
            // value is the exact sum rounded once, or its neighbour when the sum sits at a tie.
            let want = round(exact as f32);
            let step = (want.abs() * 2f32.powi(-10)).max(2f32.powi(-24));
            assert!((got[i * n as usize + j] - want).abs() <= step, "({i}, {j})");
        }
    }
    let moved: u64 = dev.report().transfers.iter().map(|t| t.bytes).sum();
    assert_eq!(
        moved,
        (m * k + k * n + m * n) * 2,
        "every DMA carries f16 elements"
    );
}

/// An f32 LB buffer of core (0, 0) holding `values` (loaded through DDR).
fn f32_lb(dev: &mut Device, values: &[f32]) -> turbine_runtime::BufferId {
    let n = values.len() as u64;
    let ddr = dev.alloc(Placement::Ddr, n * 4).unwrap();
    dev.write(ddr, 0, values).unwrap();
    let lb = dev.alloc(Placement::Lb(C00), n * 4).unwrap();
    let load = dma(
        View::contiguous(ddr, 0, &[n]),
        View::contiguous(lb, 0, &[n]),
    );
    launch(dev, "load", &[C00], &[step(C00, load, &[])]).unwrap();
    lb
}

fn dma(src: View, dst: View) -> Instr {
    Instr::Dma { src, dst }
}

#[test]
fn every_store_into_a_half_buffer_rounds_to_nearest_even() {
    let mut dev = Device::new(roomy());
    for dtype in [E::F16, E::Bf16] {
        let ulp = if dtype == E::F16 {
            2f32.powi(-10)
        } else {
            2f32.powi(-7)
        };
        // f32 operands whose sums land halfway between neighbours of the half type.
        let a = f32_lb(&mut dev, &[1.0, 1.0, 1.0 + ulp]);
        let b = f32_lb(&mut dev, &[ulp / 2.0, 3.0 * ulp / 2.0, ulp / 2.0]);
        let out = dev.alloc_typed(Placement::Lb(C00), 3 * 2, dtype).unwrap();
        let ddr = dev.alloc_typed(Placement::Ddr, 3 * 2, dtype).unwrap();
        let v = |buffer| View::contiguous(buffer, 0, &[3]);
        let add = Instr::Binary {
            op: BinaryOp::Add,
            a: v(a),
            b: v(b),
            out: v(out),
        };
        let steps = [step(C00, add, &[]), step(C00, dma(v(out), v(ddr)), &[0])];
        launch(&mut dev, "round", &[C00], &steps).unwrap();
        let got = read_half(&mut dev, ddr, dtype, 3);
        assert_eq!(got, [1.0, 1.0 + 2.0 * ulp, 1.0 + 2.0 * ulp], "{dtype}");
    }
}

#[test]
fn half_precision_runs_at_its_own_rate() {
    let mut target = roomy();
    let rates = target.throughput.get_mut(&UnitKind::MatrixEngine).unwrap();
    rates.insert(DType::F16, 256.0);
    target.validate().unwrap();
    let f32_rate = target
        .throughput(UnitKind::MatrixEngine, DType::F32)
        .unwrap();
    let setup = target.latency.compute_setup;
    let mut dev = Device::new(target);
    let (m, k, n) = (32u64, 64u64, 32u64);
    let mut cycles = |operands: E| {
        let a = dev
            .alloc_typed(Placement::Lb(C00), m * k * 4, operands)
            .unwrap();
        let b = dev
            .alloc_typed(Placement::Lb(C00), k * n * 4, operands)
            .unwrap();
        let c = dev.alloc(Placement::Lb(C00), m * n * 4).unwrap();
        let matmul = Instr::Matmul {
            a: View::contiguous(a, 0, &[m, k]),
            b: View::contiguous(b, 0, &[k, n]),
            c: View::contiguous(c, 0, &[m, n]),
            accumulate: false,
        };
        launch(&mut dev, "rate", &[C00], &[step(C00, matmul, &[])])
            .unwrap()
            .cycles()
    };
    let flops = (2 * m * k * n) as f64;
    let expected = |rate: f64| setup + (flops / rate).ceil() as u64;
    assert_eq!(cycles(E::F32), expected(f32_rate));
    // An f32 accumulator does not slow a product of f16 operands.
    assert_eq!(cycles(E::F16), expected(256.0));
    // bf16, which this target gives no rate, runs at the f32 rate.
    assert_eq!(cycles(E::Bf16), expected(f32_rate));
}
