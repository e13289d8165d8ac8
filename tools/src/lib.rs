//! What Turbine's tools share: compiling a model down to the software DSA and running it
//! ([`driver`]), and the built-in models of the main job and the benchmark ([`models`]).
#![warn(missing_docs)]

pub mod driver;
