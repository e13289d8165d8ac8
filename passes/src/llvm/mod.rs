//! Passes on the LLVM dialect, after the lowering to it.

pub mod fold_aggregates;
