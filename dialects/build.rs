//! Generates C++ from the dialects' ODS files with `mlir-tblgen` and compiles it, with the
//! registration hooks and the `MlirOptMain` shim, into one static library; and generates the typed
//! Rust op views and builders of `src/ops` from the same files (`build/ods/` reads TableGen's
//! JSON dump of each dialect, `build/rust/` writes `$OUT_DIR/ops/<dialect>.rs`).
//!
//! Dialects are ODS-generated rather than IRDL because IRDL cannot express heterogeneous variadic
//! operands (see docs/Design.md §1).

#[path = "build/ods/mod.rs"]
mod ods;
#[path = "build/rust/mod.rs"]
mod rust;

use std::{
    env,
    path::{Path, PathBuf},
    process::Command,
};

/// Each dialect: its folder under `include/`, the top-level `.td`, and the generators it needs.
const DIALECTS: &[(&str, &str, &[Generator])] = &[
    ("graph", "GraphOps", &[Generator::Enums, Generator::Attrs]),
    (
        "instance",
        "InstanceOps",
        &[Generator::Enums, Generator::Attrs],
    ),
    (
        "dsa",
        "DsaOps",
        &[Generator::Enums, Generator::Attrs, Generator::Types],
    ),
];

#[derive(Clone, Copy)]
enum Generator {
    Enums,
    Attrs,
    Types,
}

fn llvm_prefix() -> PathBuf {
    PathBuf::from(env::var("MLIR_SYS_220_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into()))
}

fn tblgen(td: &Path, includes: &[&Path], args: &[&str], output: &Path) {
    let tool = llvm_prefix().join("bin/mlir-tblgen");
    let mut command = Command::new(&tool);
    command.args(args).arg(td).arg("-o").arg(output);
    for include in includes {
        command.arg("-I").arg(include);
    }
    let status = command
        .status()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", tool.display()));
    assert!(
        status.success(),
        "mlir-tblgen {args:?} failed on {}",
        td.display()
    );
}

/// Dumps dialect `dialect`'s records as JSON with `llvm-tblgen --dump-json` (mlir-tblgen has no
/// JSON backend; the records are plain TableGen) and writes its Rust ops to
/// `out/ops/<dialect>.rs`.
fn generate_rust_ops(dialect: &str, td: &Path, includes: &[&Path], out: &Path) {
    let tool = llvm_prefix().join("bin/llvm-tblgen");
    let mut command = Command::new(&tool);
    command.arg("--dump-json").arg(td);
    for include in includes {
        command.arg("-I").arg(include);
    }
    let output = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", tool.display()));
    assert!(
        output.status.success(),
        "llvm-tblgen --dump-json failed on {}:\n{}",
        td.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    let json = String::from_utf8(output.stdout).expect("TableGen's JSON is UTF-8");
    let (model, warnings) = ods::read(&json, dialect);
    for warning in warnings {
        println!("cargo:warning={warning}");
    }
    let directory = out.join("ops");
    std::fs::create_dir_all(&directory).unwrap();
    let source = rust::generate(&model);
    std::fs::write(directory.join(format!("{dialect}.rs")), source).unwrap();
}

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap());
    let llvm_include = llvm_prefix().join("include");
    let td_include = manifest.join("include");
    let generated = out.join("include");

    for (dialect, top, generators) in DIALECTS {
        let dir = generated.join(dialect);
        std::fs::create_dir_all(&dir).unwrap();
        let td = td_include.join(dialect).join(format!("{top}.td"));
        let includes = [llvm_include.as_path(), td_include.as_path()];
        let dialect_flag = format!("-dialect={dialect}");
        let mut outputs: Vec<(Vec<&str>, String)> = vec![
            (vec!["-gen-op-decls"], format!("{top}.h.inc")),
            (vec!["-gen-op-defs"], format!("{top}.cpp.inc")),
            (
                vec!["-gen-dialect-decls", &dialect_flag],
                format!("{top}Dialect.h.inc"),
            ),
            (
                vec!["-gen-dialect-defs", &dialect_flag],
                format!("{top}Dialect.cpp.inc"),
            ),
        ];
        for generator in *generators {
            match generator {
                Generator::Enums => {
                    outputs.push((vec!["-gen-enum-decls"], format!("{top}Enums.h.inc")));
                    outputs.push((vec!["-gen-enum-defs"], format!("{top}Enums.cpp.inc")));
                }
                Generator::Attrs => {
                    outputs.push((
                        vec!["-gen-attrdef-decls", "-attrdefs-dialect", dialect],
                        format!("{top}Attrs.h.inc"),
                    ));
                    outputs.push((
                        vec!["-gen-attrdef-defs", "-attrdefs-dialect", dialect],
                        format!("{top}Attrs.cpp.inc"),
                    ));
                }
                Generator::Types => {
                    outputs.push((
                        vec!["-gen-typedef-decls", "-typedefs-dialect", dialect],
                        format!("{top}Types.h.inc"),
                    ));
                    outputs.push((
                        vec!["-gen-typedef-defs", "-typedefs-dialect", dialect],
                        format!("{top}Types.cpp.inc"),
                    ));
                }
            }
        }
        for (args, file) in outputs {
            tblgen(&td, &includes, &args, &dir.join(file));
        }
        generate_rust_ops(dialect, &td, &includes, &out);
    }

    let sources = [
        "ShapeChecks.cpp",
        "Graph.cpp",
        "GraphEmpty.cpp",
        "GraphTopK.cpp",
        "GraphQuantize.cpp",
        "Instance.cpp",
        "Dsa.cpp",
        "CAPI.cpp",
        "CAPIAttributes.cpp",
        "TurbinePass.cpp",
        "OptMain.cpp",
        "Tools.cpp",
    ];
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .debug(false)
        .std("c++17")
        .flag("-fno-rtti")
        .flag("-fno-exceptions")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-Wno-comment")
        .include(&generated)
        .include(&llvm_include)
        .include(manifest.join("lib"))
        .include(manifest.join("include"));
    for source in sources {
        build.file(manifest.join("lib").join(source));
    }
    build.compile("turbine_dialects_cxx");

    println!("cargo:rerun-if-changed=include");
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=lib");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_220_PREFIX");
}
