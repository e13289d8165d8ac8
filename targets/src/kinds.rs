//! The small vocabularies a target is written in: memory levels, compute unit kinds and data
//! types. They are shared with the runtime and the `dsa` dialect, so their spelling (the serde
//! names) is the one used in TOML files, in reports and in the compiler's attributes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// A level of the memory hierarchy (GraphTurbo Fig. 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemLevel {
    /// Local buffer: scratchpad private to one core; compute units read and write only it.
    Lb,
    /// Global buffer: scratchpad of one cluster, shared by its cores.
    Gb,
    /// Off-chip memory, shared by the whole device and reachable by the host.
    Ddr,
}

impl MemLevel {
    /// Every level, innermost first.
    pub const ALL: [MemLevel; 3] = [MemLevel::Lb, MemLevel::Gb, MemLevel::Ddr];

    /// The name used in TOML, reports and the `dsa` dialect (`lb`, `gb`, `ddr`).
    pub fn name(self) -> &'static str {
        match self {
            MemLevel::Lb => "lb",
            MemLevel::Gb => "gb",
            MemLevel::Ddr => "ddr",
        }
    }
}

impl fmt::Display for MemLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The kind of a compute unit of a core.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    /// The programmable vector core (GraphTurbo's CU1).
    VectorCore,
    /// The streaming vector engine (CU2, "VME").
    VectorEngine,
    /// The matrix engine (CU3, "MME").
    MatrixEngine,
}

impl UnitKind {
    /// Every kind, in the order of the paper's CU numbering.
    pub const ALL: [UnitKind; 3] = [
        UnitKind::VectorCore,
        UnitKind::VectorEngine,
        UnitKind::MatrixEngine,
    ];

    /// The name used in TOML and reports (`vector_core`, `vector_engine`, `matrix_engine`).
    pub fn name(self) -> &'static str {
        match self {
            UnitKind::VectorCore => "vector_core",
            UnitKind::VectorEngine => "vector_engine",
            UnitKind::MatrixEngine => "matrix_engine",
        }
    }
}

impl fmt::Display for UnitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An element data type, as far as throughput tables are concerned. The runtime computes on
/// f32, i64, i32 and 8-bit elements (i8, u8, booleans at the `i8` rate); f16 and bf16 exist so
/// that a target can already state their rates. A unit without a rate for a type computes it at
/// its `f32` rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DType {
    /// IEEE-754 binary32.
    F32,
    /// IEEE-754 binary16.
    F16,
    /// bfloat16.
    Bf16,
    /// Signed 8-bit integer (and every other 8-bit element: u8, booleans).
    I8,
    /// Signed 32-bit integer.
    I32,
    /// Signed 64-bit integer.
    I64,
}

impl DType {
    /// Size of one element in bytes.
    pub fn size_bytes(self) -> u64 {
        match self {
            DType::F32 => 4,
            DType::F16 | DType::Bf16 => 2,
            DType::I8 => 1,
            DType::I32 => 4,
            DType::I64 => 8,
        }
    }

    /// The name used in TOML and reports (`f32`, `f16`, `bf16`, `i8`, `i32`, `i64`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::Bf16 => "bf16",
            DType::I8 => "i8",
            DType::I32 => "i32",
            DType::I64 => "i64",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
