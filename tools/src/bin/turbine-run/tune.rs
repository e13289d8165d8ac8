//! `--tune`: BOLT's profiler (§3.2) on the software DSA. The model is compiled once per rank of
//! the candidate tilings (`tuning-rank`: rank 0 is the estimate's pick, then the others within
//! the planners' pruning bound by increasing estimate), each compile run once, and every kernel
//! of one layer timed by the runtime; per layer key the candidate of the fewest cycles (summed
//! over the kernels with that key) goes into the tuning cache, whose header names the compiler
//! and the target. The estimate's error against each measurement is reported: its mean and its
//! worst, the calibration the issue of a wrong estimate needs.

use super::{compile_options, load_reduced, new_device, Run};
use std::collections::BTreeMap;
use std::time::Instant;
use turbine_passes::tuning::{Entry, File, Header};
use turbine_tools::driver::{self, ReportFormat};

/// What one candidate of one layer key measured: its estimate, and its cycles summed over the
/// kernels with that key, and in how many kernels.
#[derive(Debug, Clone)]
struct Measured {
    rank: usize,
    estimate: f64,
    cycles: u64,
    kernels: usize,
}

/// `schedule` with `setting` (option=value) added to its pipeline options.
pub(super) fn with_option(schedule: &str, setting: &str) -> String {
    match schedule.strip_suffix('}') {
        Some(open) if open.contains('{') => format!("{open} {setting}}}"),
        _ => format!("{schedule}{{{setting}}}"),
    }
}

/// The cycles of each launched kernel of the run whose JSON report is `report`, by name (a
/// kernel launched several times, in a loop, summed).
fn kernel_cycles(report: &str) -> Result<BTreeMap<String, u64>, String> {
    let report: serde_json::Value =
        serde_json::from_str(report).map_err(|error| format!("the runtime's report: {error}"))?;
    let mut cycles = BTreeMap::new();
    for launch in report["launches"].as_array().into_iter().flatten() {
        let name = launch["name"].as_str().unwrap_or_default().to_owned();
        let spent = launch["end"].as_u64().unwrap_or(0) - launch["start"].as_u64().unwrap_or(0);
        *cycles.entry(name).or_insert(0) += spent;
    }
    Ok(cycles)
}

impl Run<'_, '_> {
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
        let start = Instant::now();
        let mut header: Option<Header> = None;
        let mut measured: BTreeMap<String, BTreeMap<String, Measured>> = BTreeMap::new();
        for rank in 0..arguments.tune_candidates as usize {
            let schedule = with_option(&arguments.schedule, &format!("tuning-rank={rank}"));
            let (module, _) = load_reduced(self.context, arguments)?;
            let options = compile_options(arguments, &schedule);
            let compiled = driver::compile(self.context, module, Some(self.entry), &options)?;
            let device = new_device(arguments)?;
            driver::run(&compiled, &device, self.inputs, self.weights)?;
            let cycles = kernel_cycles(&device.report(ReportFormat::Json)?)?;
            header = header.or(compiled.tuned.header.clone());
            let mut more = false;
            for (kernel, decisions) in &compiled.tuned.kernels {
                // A kernel of several layers does not tell their times apart.
                let ([decision], Some(&spent)) = (decisions.as_slice(), cycles.get(kernel)) else {
                    continue;
                };
                more |= decision.ranked > rank + 1;
                let candidates = measured.entry(decision.key.clone()).or_default();
                let entry = candidates
                    .entry(decision.choice.clone())
                    .or_insert(Measured {
                        rank,
                        estimate: decision.estimate,
                        cycles: 0,
                        kernels: 0,
                    });
                if entry.rank == rank {
                    entry.cycles += spent;
                    entry.kernels += 1;
                }
            }
            outln!(
                "tuning: rank {rank} compiled and ran ({:.1} s so far)",
                start.elapsed().as_secs_f64()
            );
            if !more {
                break;
            }
        }
        let header = header.ok_or("the lowering recorded no tuning header")?;
        let file = File {
            header,
            kernels: entries(&measured),
        };
        file.write(path)?;
        report(&file, &measured, start.elapsed().as_secs_f64());
        Ok(())
    }
}

/// The cache's entries: per key, the candidate of the fewest cycles (the lower rank on a tie).
fn entries(measured: &BTreeMap<String, BTreeMap<String, Measured>>) -> Vec<Entry> {
    measured
        .iter()
        .filter_map(|(key, candidates)| {
            let untuned = candidates.values().find(|m| m.rank == 0)?;
            let (choice, best) = candidates
                .iter()
                .min_by_key(|(_, m)| (m.cycles / m.kernels.max(1) as u64, m.rank))?;
            let per_kernel = |m: &Measured| m.cycles / m.kernels.max(1) as u64;
            Some(Entry {
                key: key.clone(),
                choice: choice.clone(),
                estimate: best.estimate,
                measured: per_kernel(best),
                untuned: per_kernel(untuned),
                candidates: candidates.len(),
            })
        })
        .collect()
}

/// Prints what tuning found: the layers tuned, the cycles they save, and the estimate's error
/// against every measurement.
fn report(file: &File, measured: &BTreeMap<String, BTreeMap<String, Measured>>, seconds: f64) {
    let changed = file
        .kernels
        .iter()
        .filter(|entry| entry.measured < entry.untuned)
        .count();
    let kernels = |key: &str| {
        measured[key]
            .values()
            .find(|m| m.rank == 0)
            .map_or(1, |m| m.kernels as u64)
    };
    let untuned: u64 = file
        .kernels
        .iter()
        .map(|e| e.untuned * kernels(&e.key))
        .sum();
    let tuned: u64 = file
        .kernels
        .iter()
        .map(|e| e.measured * kernels(&e.key))
        .sum();
    let errors: Vec<f64> = measured
        .values()
        .flat_map(|candidates| candidates.values())
        .filter(|m| m.kernels > 0 && m.cycles > 0)
        .map(|m| {
            let cycles = (m.cycles / m.kernels as u64) as f64;
            (m.estimate - cycles) / cycles
        })
        .collect();
    let mean = errors.iter().map(|e| e.abs()).sum::<f64>() / errors.len().max(1) as f64;
    let worst = errors
        .iter()
        .copied()
        .fold(0.0_f64, |w, e| if e.abs() > w.abs() { e } else { w });
    outln!(
        "tuned {} layer kinds in {seconds:.1} s: {changed} take another tiling than the \
         estimate's; their kernels {untuned} -> {tuned} cycles ({:.2}x); estimate error over \
         {} measurements: mean {:.1} %, worst {:+.1} %",
        file.kernels.len(),
        untuned as f64 / tuned.max(1) as f64,
        errors.len(),
        100.0 * mean,
        100.0 * worst
    );
}
