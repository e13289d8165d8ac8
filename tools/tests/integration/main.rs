//! The one integration-test crate: everything Rust-side that needs MLIR linked in. (lit tests under
//! test/ cover the tools from the command line.)

mod aot_model;
mod attributes;
mod cluster_cuts;
mod diagnostics;
mod dsa_to_llvm;
mod element_types;
mod fuzz_regressions;
mod grouping;
mod interpreter;
mod layerwise;
mod module_graph;
mod ods_ops;
mod onnx_import;
mod passes;
mod pictures;
mod pipeline_steps;
mod quantization;
mod substitution;
