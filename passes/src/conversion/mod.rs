//! Conversions between levels: each pass rewrites one dialect into the next one down
//! (docs/Passes.md), ending at calls into the software DSA's C ABI that upstream passes take to
//! the LLVM dialect.

pub mod dsa_to_runtime;
pub mod graph_to_dsa;
pub mod instance_to_dsa;
