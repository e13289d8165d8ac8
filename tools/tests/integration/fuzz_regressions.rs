//! Every input kept under `test/Fuzz/<target>/`, run through the fuzzing harness of that name
//! (`turbine_tools::fuzzing`) without afl: the inputs the fuzzer once crashed or hung on, named
//! after what they found, and a few seeds (`seed-*`) so that each harness runs here even while
//! nothing has failed. A harness panics on a bug, so a fixed bug that comes back fails this test.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use turbine_tools::fuzzing::TARGETS;

/// Slower than this on one input is reported as a hang: afl's timeouts (tools/scripts/fuzz) are
/// for a release build, and this debug build is given ten times the longest of them.
const HANG: Duration = Duration::from_secs(50);

fn folder(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../test/Fuzz")
        .join(target)
}

fn inputs(target: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder(target))
        .unwrap_or_else(|error| panic!("test/Fuzz/{target}: {error}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_kept_input_passes_its_harness() {
    let mut failures = Vec::new();
    for (target, harness) in TARGETS {
        let files = inputs(target);
        assert!(!files.is_empty(), "test/Fuzz/{target} holds no input");
        for file in files {
            let bytes = std::fs::read(&file).unwrap();
            let start = Instant::now();
            let outcome = std::panic::catch_unwind(|| harness(&bytes));
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            match outcome {
                Err(_) => failures.push(format!("{target}/{name}: panicked (message above)")),
                Ok(()) if start.elapsed() > HANG => {
                    failures.push(format!("{target}/{name}: took {:?}", start.elapsed()))
                }
                Ok(()) => {}
            }
        }
    }
    assert!(
        failures.is_empty(),
        "inputs under test/Fuzz that fail again:\n{}",
        failures.join("\n")
    );
}

/// A folder under test/Fuzz that names no harness would never run.
#[test]
fn every_folder_names_a_harness() {
    for entry in std::fs::read_dir(folder("")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(
            TARGETS.iter().any(|(target, _)| *target == name),
            "test/Fuzz/{name} names no harness"
        );
    }
}

/// `fuzz/seeds.py` writes each seed's first byte from its own list of the `ir` harness's
/// pipelines, and the kept `ir` inputs were made with it: the list must be `ir_pipelines`, in
/// order, or the bytes select other pipelines than the ones the files are named after.
#[test]
fn seeds_script_lists_the_ir_pipelines() {
    let script = std::fs::read_to_string(folder("").join("../../fuzz/seeds.py")).unwrap();
    let list = script
        .split_once("PIPELINES = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .expect("fuzz/seeds.py defines PIPELINES")
        .0;
    let names: Vec<&str> = list.split('"').skip(1).step_by(2).collect();
    let pipelines = turbine_tools::fuzzing::ir_pipelines();
    assert_eq!(names.len(), pipelines.len(), "{names:?}");
    for (name, pipeline) in names.iter().zip(&pipelines) {
        let spelled = match name.strip_suffix("-to-llvm") {
            Some(schedule) if !pipeline.contains(&format!("({name}")) => {
                format!("turbine-{schedule}{{")
            }
            _ => format!("({name}"),
        };
        assert!(
            pipeline.contains(&spelled),
            "seeds.py's {name} is {pipeline}"
        );
    }
}
