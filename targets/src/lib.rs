//! Target descriptions of the DSA, shared by the compiler and the software DSA runtime.
//!
//! A target is the abstract machine of GraphTurbo's Fig. 1: `clusters` clusters of `cores`
//! cores, each core with a few compute units (vector core, vector engine, matrix engine) and a
//! local buffer (LB), a global buffer (GB) per cluster, and DDR behind the clusters. A target
//! description file (TOML, format in `docs/Targets.md`) gives the sizes of each level, the
//! bandwidth of every DMA path, the throughput of every unit kind per data type, and the fixed
//! latencies. The compiler turns a [`Target`] into the `dsa` target attribute; the runtime
//! sizes its memories and its timing model from the same value, so both sides agree by
//! construction.
//!
//! ```
//! use turbine_targets::{MemLevel, Target, UnitKind, DType};
//!
//! let t = Target::builtin("stcp920").unwrap();
//! assert_eq!(t.device.clusters * t.cluster.cores, 32);
//! assert_eq!(t.core.lb_bytes, 64 * 1024);
//! assert_eq!(t.throughput(UnitKind::MatrixEngine, DType::F32), Some(512.0));
//! assert_eq!(t.bandwidth.between(MemLevel::Gb, MemLevel::Lb), 128.0);
//! ```
//!
//! Built-in targets are embedded in the crate ([`builtin_names`]); any other file is loaded
//! with [`Target::from_file`], or [`Target::load`] which accepts either.
#![warn(missing_docs)]

mod builtin;
mod description;
mod error;
mod kinds;
mod validate;

pub use builtin::builtin_names;
pub use description::{Bandwidth, ClusterDesc, CoreDesc, Cost, DeviceDesc, Latency, Target};
pub use error::TargetError;
pub use kinds::{DType, MemLevel, UnitKind};
pub use validate::MAX_CORES;
