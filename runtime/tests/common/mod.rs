//! Shared test support: programs as plain data, a recorder that runs them on a device, and a
//! naive sequential reference interpreter written independently of the runtime (index
//! arithmetic per element, f64 accumulation), against which every operation is checked.
#![allow(dead_code)] // Each test binary uses a different part of this module.

use std::collections::HashMap;
use turbine_runtime::{
    BinaryOp, BufferId, CoreId, Device, Instr, LaunchSummary, Placement, PoolKind, ReduceKind,
    RuntimeError, Target, Token, UnaryOp, View,
};

/// One instruction of a test program: the core, the instruction, and the indices (among the
/// same core's earlier steps) of the steps whose tokens it waits on.
#[derive(Debug, Clone)]
pub struct Step {
    pub core: CoreId,
    pub instr: Instr,
    pub waits: Vec<usize>,
}

pub fn step(core: CoreId, instr: Instr, waits: &[usize]) -> Step {
    Step {
        core,
        instr,
        waits: waits.to_vec(),
    }
}

/// Records `steps` as one launch on `cores` and ends it.
pub fn launch(
    dev: &mut Device,
    name: &str,
    cores: &[CoreId],
    steps: &[Step],
) -> Result<LaunchSummary, RuntimeError> {
    dev.launch_begin(name, cores)?;
    let mut tokens: HashMap<CoreId, Vec<Token>> = HashMap::new();
    for s in steps {
        let mine = tokens.entry(s.core).or_default();
        let waits: Vec<Token> = s.waits.iter().map(|&i| mine[i]).collect();
        match dev.enqueue(s.core, s.instr.clone(), &waits) {
            Ok(t) => mine.push(t),
            Err(e) => {
                // The launch is discarded; close it so the device is usable again.
                let _ = dev.launch_end();
                return Err(e);
            }
        }
    }
    dev.launch_end()
}

/// A small deterministic generator for test data.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407))
    }
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next_u32() as f32 / (1u64 << 31) as f32)
    }
    pub fn vec(&mut self, n: usize, lo: f32, hi: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform(lo, hi)).collect()
    }
}

/// The `mini` target with memories large enough for whole-layer tests.
pub fn roomy() -> Target {
    let mut t = Target::builtin("mini").unwrap();
    t.core.lb_bytes = 4 << 20;
    t.cluster.gb_bytes = 16 << 20;
    t.device.ddr_bytes = 64 << 20;
    t.validate().unwrap();
    t
}

/// Element indices of a view, in row-major order of its shape (naive odometer).
pub fn indices(v: &View) -> Vec<usize> {
    let total: u64 = v.shape.iter().product();
    let mut out = Vec::with_capacity(total as usize);
    let mut idx = vec![0u64; v.shape.len()];
    for _ in 0..total {
        let off = v.offset + idx.iter().zip(&v.strides).map(|(i, s)| i * s).sum::<u64>();
        out.push(off as usize);
        for d in (0..idx.len()).rev() {
            idx[d] += 1;
            if idx[d] < v.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Reference memory: buffer contents by handle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RefMem {
    pub bufs: HashMap<BufferId, Vec<f32>>,
    /// Largest finite magnitude ever stored, to scale tolerances of long random programs.
    pub peak: f32,
}

impl RefMem {
    pub fn load(&self, v: &View) -> Vec<f32> {
        let b = &self.bufs[&v.buffer];
        indices(v).into_iter().map(|i| b[i]).collect()
    }
    pub fn store(&mut self, v: &View, values: &[f32]) {
        let b = self.bufs.get_mut(&v.buffer).unwrap();
        for (i, x) in indices(v).into_iter().zip(values) {
            b[i] = *x;
            if x.is_finite() {
                self.peak = self.peak.max(x.abs());
            }
        }
    }

    /// Runs a program the simple way: barrier phases in order, cores in order, each core's
    /// steps in program order.
    pub fn run(&mut self, steps: &[Step]) {
        let mut cores: Vec<CoreId> = steps.iter().map(|s| s.core).collect();
        cores.sort();
        cores.dedup();
        let phases = |c: CoreId| -> Vec<Vec<&Instr>> {
            let mut p = vec![vec![]];
            for s in steps.iter().filter(|s| s.core == c) {
                if s.instr == Instr::Barrier {
                    p.push(vec![]);
                } else {
                    p.last_mut().unwrap().push(&s.instr);
                }
            }
            p
        };
        let per_core: Vec<Vec<Vec<&Instr>>> = cores.iter().map(|&c| phases(c)).collect();
        let n = per_core.iter().map(Vec::len).max().unwrap_or(0);
        for phase in 0..n {
            for core in &per_core {
                for instr in core.get(phase).into_iter().flatten() {
                    self.exec(instr);
                }
            }
        }
    }

    pub fn exec(&mut self, instr: &Instr) {
        match instr {
            Instr::Dma { src, dst } => {
                let v = self.load(src);
                self.store(dst, &v);
            }
            Instr::Matmul {
                a,
                b,
                c,
                accumulate,
            } => {
                let (m, k, n) = (
                    a.shape[0] as usize,
                    a.shape[1] as usize,
                    b.shape[1] as usize,
                );
                let (av, bv) = (self.load(a), self.load(b));
                let cv = self.load(c);
                let mut r = vec![0.0f32; m * n];
                for i in 0..m {
                    for j in 0..n {
                        let mut acc = if *accumulate {
                            cv[i * n + j] as f64
                        } else {
                            0.0
                        };
                        for p in 0..k {
                            acc += av[i * k + p] as f64 * bv[p * n + j] as f64;
                        }
                        r[i * n + j] = acc as f32;
                    }
                }
                self.store(c, &r);
            }
            Instr::Conv2d {
                input,
                filter,
                output,
                params: p,
                accumulate,
            } => {
                let s = |v: &View| v.shape.iter().map(|&e| e as usize).collect::<Vec<_>>();
                let (is, fs, os) = (s(input), s(filter), s(output));
                let (x, w, y0) = (self.load(input), self.load(filter), self.load(output));
                let g = p.groups as usize;
                let (cg, og) = (is[1] / g, os[1] / g);
                let mut y = vec![0.0f32; y0.len()];
                for n in 0..os[0] {
                    for o in 0..os[1] {
                        let grp = o / og;
                        for oy in 0..os[2] {
                            for ox in 0..os[3] {
                                let yi = ((n * os[1] + o) * os[2] + oy) * os[3] + ox;
                                let mut acc = if *accumulate { y0[yi] as f64 } else { 0.0 };
                                for ci in 0..cg {
                                    let c = grp * cg + ci;
                                    for ky in 0..fs[2] {
                                        for kx in 0..fs[3] {
                                            let hy = (oy * p.stride[0] as usize
                                                + ky * p.dilation[0] as usize)
                                                as i64
                                                - p.pad[0] as i64;
                                            let wx = (ox * p.stride[1] as usize
                                                + kx * p.dilation[1] as usize)
                                                as i64
                                                - p.pad[1] as i64;
                                            if hy < 0
                                                || wx < 0
                                                || hy >= is[2] as i64
                                                || wx >= is[3] as i64
                                            {
                                                continue;
                                            }
                                            let xv = x[((n * is[1] + c) * is[2] + hy as usize)
                                                * is[3]
                                                + wx as usize];
                                            let wv =
                                                w[((o * fs[1] + ci) * fs[2] + ky) * fs[3] + kx];
                                            acc += xv as f64 * wv as f64;
                                        }
                                    }
                                }
                                y[yi] = acc as f32;
                            }
                        }
                    }
                }
                self.store(output, &y);
            }
            Instr::Binary { op, a, b, out } => {
                let (av, bv) = (self.load(a), self.load(b));
                let rank = out.shape.len();
                let total: u64 = out.shape.iter().product();
                let flat = |shape: &[u64], idx: &[u64]| -> usize {
                    // Right-aligned broadcast index into a dense row-major operand.
                    let lead = rank - shape.len();
                    let mut f = 0u64;
                    for (d, &e) in shape.iter().enumerate() {
                        let i = if e == 1 { 0 } else { idx[lead + d] };
                        f = f * e + i;
                    }
                    f as usize
                };
                let mut r = Vec::with_capacity(total as usize);
                let mut idx = vec![0u64; rank];
                for _ in 0..total {
                    let x = av[flat(&a.shape, &idx)] as f64;
                    let y = bv[flat(&b.shape, &idx)] as f64;
                    r.push(match op {
                        BinaryOp::Add => x + y,
                        BinaryOp::Sub => x - y,
                        BinaryOp::Mul => x * y,
                        BinaryOp::Div => x / y,
                        BinaryOp::Max => max(x, y),
                        BinaryOp::Min => min(x, y),
                        BinaryOp::Pow => x.powf(y),
                        BinaryOp::Fmod => x % y,
                        BinaryOp::Mod => x - y * (x / y).floor(),
                    } as f32);
                    for d in (0..rank).rev() {
                        idx[d] += 1;
                        if idx[d] < out.shape[d] {
                            break;
                        }
                        idx[d] = 0;
                    }
                }
                self.store(out, &r);
            }
            Instr::Unary { op, input, out } => {
                let v: Vec<f32> = self
                    .load(input)
                    .into_iter()
                    .map(|x| unary_ref(*op, x as f64) as f32)
                    .collect();
                self.store(out, &v);
            }
            Instr::Pool2d {
                kind,
                input,
                out,
                params: p,
            } => {
                let x = self.load(input);
                let s: Vec<usize> = input.shape.iter().map(|&e| e as usize).collect();
                let (oh, ow) = (out.shape[2] as usize, out.shape[3] as usize);
                let mut y = Vec::new();
                for nc in 0..s[0] * s[1] {
                    for oy in 0..oh {
                        for ox in 0..ow {
                            let mut vals = Vec::new();
                            for ky in 0..p.kernel[0] as i64 {
                                for kx in 0..p.kernel[1] as i64 {
                                    let hy = oy as i64 * p.stride[0] as i64 + ky - p.pad[0] as i64;
                                    let wx = ox as i64 * p.stride[1] as i64 + kx - p.pad[1] as i64;
                                    if hy >= 0
                                        && wx >= 0
                                        && (hy as usize) < s[2]
                                        && (wx as usize) < s[3]
                                    {
                                        vals.push(
                                            x[(nc * s[2] + hy as usize) * s[3] + wx as usize]
                                                as f64,
                                        );
                                    }
                                }
                            }
                            y.push(match kind {
                                PoolKind::Max => vals.iter().cloned().fold(f64::NEG_INFINITY, max),
                                PoolKind::Avg => {
                                    let div = if p.count_include_pad {
                                        (p.kernel[0] * p.kernel[1]) as f64
                                    } else {
                                        vals.len() as f64
                                    };
                                    vals.iter().sum::<f64>() / div
                                }
                            } as f32);
                        }
                    }
                }
                self.store(out, &y);
            }
            Instr::Reduce {
                kind,
                axis,
                input,
                out,
            } => {
                let x = self.load(input);
                let len = input.shape[*axis] as usize;
                let inner: usize = input.shape[axis + 1..].iter().product::<u64>() as usize;
                let outer = x.len() / (len * inner);
                let mut y = Vec::new();
                for o in 0..outer {
                    for i in 0..inner {
                        let vals: Vec<f64> = (0..len)
                            .map(|k| x[(o * len + k) * inner + i] as f64)
                            .collect();
                        y.push(match kind {
                            ReduceKind::Sum => vals.iter().sum::<f64>(),
                            ReduceKind::Mean => vals.iter().sum::<f64>() / len as f64,
                            ReduceKind::Max => vals.iter().cloned().fold(f64::NEG_INFINITY, max),
                            ReduceKind::Min => vals.iter().cloned().fold(f64::INFINITY, min),
                            ReduceKind::Prod => vals.iter().product::<f64>(),
                        } as f32);
                    }
                }
                self.store(out, &y);
            }
            Instr::Convert { .. }
            | Instr::Gather { .. }
            | Instr::GatherElements { .. }
            | Instr::ScatterElements { .. }
            | Instr::ArgReduce { .. }
            | Instr::TopK { .. }
            | Instr::Compare { .. }
            | Instr::Select { .. } => {
                panic!("the f32 reference does not model element types: test them directly")
            }
            Instr::Wait | Instr::Barrier => {}
        }
    }
}

/// The larger of `x` and `y`, NaN if either is NaN (f64::max would return the other one).
pub fn max(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.max(y)
    }
}

/// The smaller of `x` and `y`, NaN if either is NaN.
pub fn min(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.min(y)
    }
}

/// Reference definition of each unary operation, in f64.
pub fn unary_ref(op: UnaryOp, x: f64) -> f64 {
    let sigmoid = |x: f64| 1.0 / (1.0 + (-x).exp());
    match op {
        UnaryOp::Relu => {
            if x < 0.0 {
                0.0
            } else {
                x
            }
        }
        UnaryOp::Sigmoid => sigmoid(x),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Erf => libm::erf(x),
        UnaryOp::Gelu => 0.5 * x * (1.0 + libm::erf(x / std::f64::consts::SQRT_2)),
        UnaryOp::GeluTanh => {
            let inner = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
            0.5 * x * (1.0 + inner.tanh())
        }
        UnaryOp::Silu => x * sigmoid(x),
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Reciprocal => 1.0 / x,
        UnaryOp::Clip { min, max } => {
            if x < min as f64 {
                min as f64
            } else if x > max as f64 {
                max as f64
            } else {
                x
            }
        }
        UnaryOp::Affine { scale, shift } => scale as f64 * x + shift as f64,
    }
}

/// Asserts `|a - e| <= atol + rtol * |e|` element-wise (NaN matches NaN).
pub fn assert_close(actual: &[f32], expected: &[f32], rtol: f32, atol: f32, what: &str) {
    assert_eq!(actual.len(), expected.len(), "{what}: lengths differ");
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = (a.is_nan() && e.is_nan()) || a == e || (a - e).abs() <= atol + rtol * e.abs();
        assert!(ok, "{what}: element {i} is {a}, expected {e}");
    }
}

/// Core (0, 0).
pub const C00: CoreId = CoreId::new(0, 0);

/// Loads `values` into a fresh LB buffer of core `c` (via a DDR buffer and a DMA) and returns
/// the LB buffer.
pub fn lb_with(rig: &mut Rig, c: CoreId, values: &[f32]) -> BufferId {
    let ddr = rig.ddr_with(values);
    let lb = rig.alloc(Placement::Lb(c), values.len());
    let n = values.len() as u64;
    let dma = Instr::Dma {
        src: View::contiguous(ddr, 0, &[n]),
        dst: View::contiguous(lb, 0, &[n]),
    };
    rig.run("load", &[step(c, dma, &[])]);
    lb
}

/// Runs one instruction alone on core (0,0).
pub fn run1(rig: &mut Rig, instr: Instr) {
    rig.run("op", &[step(C00, instr, &[])]);
}

/// A device plus the reference memory mirroring it: every buffer allocated through the rig
/// exists in both, zero-filled, and host writes go to both.
pub struct Rig {
    pub dev: Device,
    pub mem: RefMem,
}

impl Rig {
    pub fn new(target: Target) -> Rig {
        Rig {
            dev: Device::new(target),
            mem: RefMem::default(),
        }
    }
    pub fn alloc(&mut self, placement: Placement, elements: usize) -> BufferId {
        let id = self.dev.alloc(placement, elements as u64 * 4).unwrap();
        self.mem.bufs.insert(id, vec![0.0; elements]);
        id
    }
    pub fn ddr_with(&mut self, values: &[f32]) -> BufferId {
        let id = self.alloc(Placement::Ddr, values.len());
        self.dev.write(id, 0, values).unwrap();
        self.mem.bufs.insert(id, values.to_vec());
        id
    }
    /// Runs the steps on the device and on the reference.
    pub fn run(&mut self, name: &str, steps: &[Step]) -> LaunchSummary {
        let mut cores: Vec<CoreId> = steps.iter().map(|s| s.core).collect();
        cores.sort();
        cores.dedup();
        let summary = launch(&mut self.dev, name, &cores, steps).unwrap();
        self.mem.run(steps);
        summary
    }
    /// Device contents of a buffer at any level, read by copying it to DDR in a launch of
    /// its own (which the reference mirrors trivially).
    pub fn contents(&mut self, id: BufferId) -> Vec<f32> {
        let len = self.mem.bufs[&id].len();
        let placement = self.dev.placement(id).unwrap();
        if placement == Placement::Ddr {
            return self.dev.read(id, 0, len as u64).unwrap();
        }
        let core = match placement {
            Placement::Lb(c) => c,
            Placement::Gb(cl) => CoreId::new(cl, 0),
            Placement::Ddr => unreachable!(),
        };
        let dump = self.dev.alloc(Placement::Ddr, len as u64 * 4).unwrap();
        let copy = Instr::Dma {
            src: View::contiguous(id, 0, &[len as u64]),
            dst: View::contiguous(dump, 0, &[len as u64]),
        };
        launch(&mut self.dev, "dump", &[core], &[step(core, copy, &[])]).unwrap();
        let v = self.dev.read(dump, 0, len as u64).unwrap();
        self.dev.free(dump).unwrap();
        v
    }
    /// Asserts that the device's and the reference's contents of `id` agree.
    pub fn check(&mut self, id: BufferId, rtol: f32, atol: f32, what: &str) {
        let expected = self.mem.bufs[&id].clone();
        let actual = self.contents(id);
        assert_close(&actual, &expected, rtol, atol, what);
    }
}
