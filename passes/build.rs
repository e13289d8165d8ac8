//! Records the commit the compiler is built from (`TURBINE_COMMIT`): tuning caches name the
//! compiler that made them, and a cache of another build is refused.

use std::path::Path;
use std::process::Command;

fn main() {
    let git = |arguments: &[&str]| {
        Command::new("git")
            .args(arguments)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| String::from_utf8_lossy(&output.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=TURBINE_COMMIT={commit}");
    // A new commit moves HEAD or the branch it names.
    if let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) {
        println!("cargo:rerun-if-changed={}", absolute(&head));
    }
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        if let Some(reference) = git(&["rev-parse", "--git-path", &branch]) {
            println!("cargo:rerun-if-changed={}", absolute(&reference));
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// `path` (relative to the package, as git prints it) made absolute.
fn absolute(path: &str) -> String {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    Path::new(&manifest).join(path).display().to_string()
}
