//! `--tune`: BOLT's profiler (§3.2) on the software DSA. The model is compiled once per rank of
//! the candidate tilings (`tuning-rank`: rank 0 is the estimate's pick, then the others within
//! the planners' pruning bound by increasing estimate), then once with every chain's fusion
//! decision flipped and the tilings at rank 0 (`tuning-fusion-rank=1`); each compile runs once
//! and every kernel is timed by the runtime. A decision's cycles are those of the kernels that
//! record it, summed over the model (a chain kept as two layers records its fusion decision on
//! both); per key the candidate of the fewest goes into the tuning cache, whose header names the
//! compiler and the target. The estimate's error against each kernel of one layer is reported,
//! its mean and its worst.

use super::{compile_options, load_reduced, new_device, Run};
use std::collections::BTreeMap;
use std::time::Instant;
use turbine_passes::tuning::{Decision, Entry, File, Header, Measurement};
use turbine_tools::driver::{self, ReportFormat};

/// What one candidate of one key measured: the compile that first took it (the first is rank
/// 0's), its estimate, and the cycles of the kernels that recorded it there, summed, and how
/// many they were.
#[derive(Debug, Clone)]
struct Measured {
    rank: usize,
    estimate: f64,
    cycles: u64,
    kernels: usize,
    /// Whether each of those kernels held this one decision (a layer's tiling, timed alone).
    alone: bool,
}

/// The cycles of each launched kernel of the run whose JSON report is `report`, by name (a
/// kernel launched several times, in a loop, summed).
fn kernel_cycles(report: &str) -> Result<BTreeMap<String, u64>, String> {
    let report: serde_json::Value =
        serde_json::from_str(report).map_err(|error| format!("the runtime's report: {error}"))?;
    let mut cycles = BTreeMap::new();
    for launch in report["launches"].as_array().into_iter().flatten() {
        let name = launch["name"].as_str().unwrap_or_default().to_owned();
        let [start, end] = ["start", "end"].map(|field| launch[field].as_u64().unwrap_or(0));
        let spent = end.saturating_sub(start);
        *cycles.entry(name).or_insert(0) += spent;
    }
    Ok(cycles)
}

/// What the tuner has measured so far.
struct Tuner {
    start: Instant,
    /// Compiles made.
    compiles: usize,
    /// What the choices hold for (every compile's lowering writes the same).
    header: Option<Header>,
    /// Per decision key, per candidate, what it measured.
    measured: BTreeMap<String, BTreeMap<String, Measured>>,
}

impl Run<'_, '_> {
    /// Compiles the model with the tuning options `setting`, runs it and adds what it measured
    /// to `tuner`; returns whether some tiling has candidates past this compile's rank, and
    /// whether some chain recorded a fusion decision.
    fn measure(&self, setting: &str, tuner: &mut Tuner) -> Result<(bool, bool), String> {
        let arguments = self.arguments;
        let schedule = driver::with_option(&arguments.schedule, setting);
        let (module, _) = load_reduced(self.context, arguments)?;
        let options = compile_options(arguments, &schedule);
        let compiled = driver::compile(self.context, module, Some(self.entry), &options)?;
        let device = new_device(arguments)?;
        driver::run(&compiled, &device, self.inputs, self.weights)?;
        let cycles = kernel_cycles(&device.report(ReportFormat::Json)?)?;
        let kernels = &compiled.tuned.kernels;
        tuner.header = tuner.header.take().or(compiled.tuned.header.clone());
        let more = record(kernels, &cycles, tuner.compiles, &mut tuner.measured);
        tuner.compiles += 1;
        let fusion = kernels.iter().flat_map(|(_, d)| d).any(Decision::is_fusion);
        outln!(
            "tuning: {setting} compiled and ran ({:.1} s so far)",
            tuner.start.elapsed().as_secs_f64()
        );
        Ok((more, fusion))
    }

    /// Tunes the model's layers and writes the tuning cache to `path`.
    pub(super) fn tune(&self, path: &str) -> Result<(), String> {
        let arguments = self.arguments;
        let name = arguments.schedule.split('{').next().unwrap_or_default();
        if name != "layerwise" {
            return Err(format!(
                "--tune measures the kernels of the layer-wise schedule (one layer each), not \
                 '{name}', whose kernels hold many layers"
            ));
        }
        // The tilings rank by rank (every chain fused as the estimate says), then each fusion
        // decision flipped with the tilings at rank 0.
        let mut tuner = Tuner {
            start: Instant::now(),
            compiles: 0,
            header: None,
            measured: BTreeMap::new(),
        };
        let mut fusion = false;
        for rank in 0..arguments.tune_candidates {
            let (more, fusions) = self.measure(&format!("tuning-rank={rank}"), &mut tuner)?;
            fusion |= fusions;
            if !more {
                break;
            }
        }
        if fusion {
            self.measure("tuning-rank=0 tuning-fusion-rank=1", &mut tuner)?;
        }
        let header = tuner
            .header
            .clone()
            .ok_or("the lowering recorded no tuning header")?;
        let file = File {
            header,
            kernels: entries(&tuner.measured),
        };
        file.write(path)?;
        report(&file, &tuner);
        Ok(())
    }
}

/// Adds what compile number `compile` measured (the `cycles` of each kernel, the decisions each
/// recorded) to `measured`: a candidate counts in the first compile that takes it. Returns
/// whether some decision has candidates past the next rank.
fn record(
    kernels: &[(String, Vec<Decision>)],
    cycles: &BTreeMap<String, u64>,
    compile: usize,
    measured: &mut BTreeMap<String, BTreeMap<String, Measured>>,
) -> bool {
    let mut more = false;
    for (kernel, decisions) in kernels {
        let Some(&spent) = cycles.get(kernel) else {
            continue;
        };
        for decision in decisions {
            more |= !decision.is_fusion() && decision.ranked > compile + 1;
            let candidates = measured.entry(decision.key.clone()).or_default();
            let entry = candidates
                .entry(decision.choice.clone())
                .or_insert(Measured {
                    rank: compile,
                    estimate: decision.estimate,
                    cycles: 0,
                    kernels: 0,
                    alone: true,
                });
            if entry.rank == compile {
                entry.cycles += spent;
                entry.kernels += 1;
                entry.alone &= decisions.len() == 1;
            }
        }
    }
    more
}

/// The cache's entries: per key, the candidate of the fewest cycles (the lower rank on a tie),
/// with every candidate's measurement.
fn entries(measured: &BTreeMap<String, BTreeMap<String, Measured>>) -> Vec<Entry> {
    measured
        .iter()
        .filter_map(|(key, candidates)| {
            let (choice, best) = candidates.iter().min_by_key(|(_, m)| (m.cycles, m.rank))?;
            let mut taken: Vec<(&String, &Measured)> = candidates.iter().collect();
            taken.sort_by_key(|(_, m)| m.rank);
            Some(Entry {
                key: key.clone(),
                choice: choice.clone(),
                measured: best.cycles,
                untuned: candidates.values().find(|m| m.rank == 0).map(|m| m.cycles),
                candidates: taken
                    .into_iter()
                    .map(|(choice, m)| Measurement {
                        choice: choice.clone(),
                        estimate: m.estimate,
                        measured: m.cycles,
                        kernels: m.kernels,
                    })
                    .collect(),
            })
        })
        .collect()
}

/// Prints what tuning found: the decisions tuned, the cycles they save, and the estimate's error
/// against every measurement of a kernel holding one layer, with the worst of them.
fn report(file: &File, tuner: &Tuner) {
    let seconds = tuner.start.elapsed().as_secs_f64();
    let compared: Vec<(u64, u64)> = file
        .kernels
        .iter()
        .filter_map(|entry| Some((entry.untuned?, entry.measured)))
        .collect();
    let changed = compared
        .iter()
        .filter(|(untuned, tuned)| tuned < untuned)
        .count();
    let untuned: u64 = compared.iter().map(|(untuned, _)| untuned).sum();
    let tuned: u64 = compared.iter().map(|(_, tuned)| tuned).sum();
    // (error, key, choice, estimate, measured per kernel)
    let mut errors: Vec<(f64, &str, &str, f64, u64)> = Vec::new();
    for (key, candidates) in &tuner.measured {
        for (choice, m) in candidates {
            if m.alone && m.kernels > 0 && m.cycles > 0 {
                let cycles = m.cycles / m.kernels as u64;
                let error = (m.estimate - cycles as f64) / cycles as f64;
                errors.push((error, key, choice, m.estimate, cycles));
            }
        }
    }
    let error = match errors.len() {
        0 => "no kernel of one layer measured".to_owned(),
        count => {
            let mean = errors.iter().fold(0.0, |sum, e| sum + e.0.abs()) / count as f64;
            errors.sort_by(|a, b| b.0.abs().total_cmp(&a.0.abs()));
            format!(
                "over {count} measurements: mean {:.1} %, worst {:+.1} %",
                100.0 * mean,
                100.0 * errors[0].0
            )
        }
    };
    outln!(
        "tuned {} decisions in {seconds:.1} s ({} compiles): {changed} take another candidate \
         than the estimate's; their kernels {untuned} -> {tuned} cycles ({:.2}x); estimate \
         error {error}",
        file.kernels.len(),
        tuner.compiles,
        untuned as f64 / tuned.max(1) as f64
    );
    for (error, key, choice, estimate, cycles) in errors.iter().take(WORST) {
        let key: String = key.chars().take(90).collect();
        outln!(
            "  estimate {:+.1} %: {estimate:.0} against {cycles} cycles measured, {choice} of \
             {key}...",
            100.0 * error
        );
    }
}

/// The measurements whose estimate is furthest off that the tuner prints.
const WORST: usize = 5;
