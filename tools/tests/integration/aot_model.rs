//! The self-contained AOT artifact: ResNet-18 (batch 1, built-in seeded weights) compiled into
//! an object with its loader, a C header and a weights file; a C program of twenty lines, built
//! by the system C compiler against the object and `libturbine_runtime.a`, loads it with
//! `resnet18_create`, runs it with `resnet18_run` and matches the reference interpreter. A
//! missing weights file and a tensor of the wrong shape fail with a message naming them.

use crate::layerwise::assert_close;
use std::path::{Path, PathBuf};
use std::process::Command;
use turbine_interpreter::{interpret, Program, Tensor, Weights};
use turbine_tools::driver::{compile_to_object, weights_file, CompileOptions};
use turbine_tools::random::SplitMix;

/// The C program: reads the input image from a file, runs the model, writes the logits.
const PROGRAM: &str = r#"#include <stdio.h>
#include "resnet18.h"

int main(int argc, char **argv) {
  static float image[RESNET18_INPUT0_BYTES / 4], logits[RESNET18_OUTPUT0_BYTES / 4];
  FILE *in = fopen(argv[2], "rb"), *out = fopen(argv[3], "wb");
  if (!in || !out || fread(image, sizeof image, 1, in) != 1) return 2;
  uint64_t model;
  const void *inputs[] = {image};
  void *outputs[] = {logits};
  int32_t status = resnet18_create(argv[1], "stcp920", &model);
  if (status == 0) status = resnet18_run(model, inputs, outputs);
  if (status != 0) {
    fprintf(stderr, "error %d: %s\n", status, resnet18_error_message());
    return 1;
  }
  fwrite(logits, sizeof logits, 1, out);
  return resnet18_destroy(model);
}
"#;

/// The directory of this test executable's profile, where cargo puts `libturbine_runtime.a`.
fn runtime_library() -> PathBuf {
    let executable = std::env::current_exe().unwrap();
    let library = executable
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("libturbine_runtime.a");
    assert!(
        library.exists(),
        "{} is built with turbine-runtime",
        library.display()
    );
    library
}

/// Runs the program with the weights file `weights`; returns its exit code, stderr and logits.
fn run(folder: &Path, weights: &Path) -> (i32, String, Vec<f32>) {
    let output = folder.join("logits.bin");
    let run = Command::new(folder.join("program"))
        .arg(weights)
        .arg(folder.join("image.bin"))
        .arg(&output)
        .output()
        .unwrap();
    let logits = std::fs::read(&output)
        .unwrap_or_default()
        .chunks_exact(4)
        .map(|bytes| f32::from_ne_bytes(bytes.try_into().unwrap()))
        .collect();
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    (run.status.code().unwrap_or(-1), stderr, logits)
}

/// ResNet-18's weights with `fc.weight` given another shape, as a safetensors file.
fn weights_with_wrong_fc(code: &turbine_codegen::ObjectCode, weights: &Weights) -> Vec<u8> {
    let mut changed = Weights::empty();
    for buffer in code.entries.iter().flat_map(|entry| &entry.buffers) {
        if let turbine_codegen::Role::Weight(name) = &buffer.role {
            changed.insert(name, weights.get(name).unwrap().clone());
        }
    }
    let fc = weights.get("fc.weight").unwrap();
    changed.insert(
        "fc.weight",
        Tensor::f32(vec![512, 1000], fc.as_f32().unwrap().to_vec()),
    );
    let mut code = code.clone();
    for buffer in code.entries.iter_mut().flat_map(|entry| &mut entry.buffers) {
        if buffer.role == turbine_codegen::Role::Weight("fc.weight".into()) {
            buffer.shape = vec![512, 1000];
        }
    }
    weights_file(&code, &changed, "the changed weights")
        .unwrap()
        .unwrap()
}

#[test]
fn a_c_program_runs_resnet18_through_the_loader() {
    let model = turbine_tools::models::builtin("resnet18", 1).unwrap();
    let context = turbine_dialects::create_context();
    let module = turbine_tools::graph_module::build(&context, &model.module).unwrap();
    // SAFETY: the module was just built and verified.
    let program = unsafe { Program::from_module(module.as_operation().to_raw(), None) }.unwrap();
    let mut random = SplitMix(18);
    let image: Vec<f32> = (0..3 * 224 * 224).map(|_| random.unit()).collect();
    let image = Tensor::f32(vec![1, 3, 224, 224], image);
    let expected = interpret(&program, vec![image.clone()], &model.weights).unwrap();

    let options = CompileOptions::default();
    let code = compile_to_object(&context, module, &options, false, "resnet18").unwrap();
    let weights = weights_file(&code, &model.weights, "the built-in weights")
        .unwrap()
        .unwrap();
    let folder = tempfile::tempdir().unwrap();
    let path = |name: &str| folder.path().join(name);
    std::fs::write(path("resnet18.o"), &code.object).unwrap();
    std::fs::write(path("resnet18.h"), &code.header).unwrap();
    std::fs::write(path("resnet18.safetensors"), &weights).unwrap();
    std::fs::write(path("main.c"), PROGRAM).unwrap();
    let bytes: Vec<u8> = image
        .as_f32()
        .unwrap()
        .iter()
        .flat_map(|v| v.to_ne_bytes())
        .collect();
    std::fs::write(path("image.bin"), bytes).unwrap();
    assert!(
        PROGRAM.lines().count() <= 20,
        "the program has twenty lines"
    );

    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&compiler)
        .args([path("main.c"), path("resnet18.o"), runtime_library()])
        .arg("-I")
        .arg(folder.path())
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(path("program"))
        .output()
        .unwrap();
    let errors = String::from_utf8_lossy(&built.stderr);
    assert!(built.status.success(), "{compiler} failed:\n{errors}");

    let (status, stderr, logits) = run(folder.path(), &path("resnet18.safetensors"));
    assert_eq!(status, 0, "{stderr}");
    let actual = [Tensor::f32(vec![1, 1000], logits)];
    assert_close(&actual, &expected, "the C program");

    let (status, stderr, _) = run(folder.path(), &path("missing.safetensors"));
    assert_eq!(status, 1);
    assert!(stderr.contains("error 8: weights file '") && stderr.contains("missing.safetensors"));

    std::fs::write(
        path("wrong.safetensors"),
        weights_with_wrong_fc(&code, &model.weights),
    )
    .unwrap();
    let (status, stderr, _) = run(folder.path(), &path("wrong.safetensors"));
    assert_eq!(status, 1);
    assert!(
        stderr.contains("tensor 'fc.weight' has shape [512, 1000], the model expects [1000, 512]"),
        "{stderr}"
    );
}
