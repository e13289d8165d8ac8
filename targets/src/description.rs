//! The target description itself: one plain struct per TOML table, public fields so that the
//! compiler can read them directly (and tests can derive variants), and the loaders.

use crate::error::TargetError;
use crate::kinds::{DType, MemLevel, UnitKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// A complete, validated target description. Field by field documentation, with units, is in
/// `docs/Targets.md`; every loader validates ([`Target::validate`]) before returning, so a
/// `Target` obtained from this crate is always usable by the runtime.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// Short name, used in reports and the `dsa` target attribute (e.g. `stcp920`).
    pub name: String,
    /// One line for humans.
    pub description: String,
    /// Clock frequency in MHz: converts simulated cycles into time.
    pub clock_mhz: f64,
    /// The whole device.
    pub device: DeviceDesc,
    /// Every cluster (all clusters are alike).
    pub cluster: ClusterDesc,
    /// Every core (all cores are alike).
    pub core: CoreDesc,
    /// Bytes per cycle of each DMA path.
    pub bandwidth: Bandwidth,
    /// Operations per cycle of one unit, per unit kind and data type.
    pub throughput: BTreeMap<UnitKind, BTreeMap<DType, f64>>,
    /// Fixed costs in cycles.
    pub latency: Latency,
    /// Relative costs of operations on the vector units.
    pub cost: Cost,
}

/// The `[device]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceDesc {
    /// Number of clusters.
    pub clusters: u32,
    /// DDR capacity in bytes.
    pub ddr_bytes: u64,
}

/// The `[cluster]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClusterDesc {
    /// Number of cores per cluster.
    pub cores: u32,
    /// Global buffer capacity per cluster, in bytes.
    pub gb_bytes: u64,
}

/// The `[core]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreDesc {
    /// The compute units of a core, in unit-index order. A kind may appear more than once
    /// (two vector engines); instructions then go to the unit of that kind that is free first.
    pub units: Vec<UnitKind>,
    /// Local buffer capacity per core, in bytes.
    pub lb_bytes: u64,
    /// Number of DMA channels per core; a DMA goes to the channel that is free first.
    pub dma_channels: u32,
    /// Calls that may run nested at once: the depth of a core's control stack, which a
    /// recursion deeper than it overflows.
    pub call_depth: u32,
}

/// The `[bandwidth]` table: bytes per cycle of each DMA path, named by the two levels it
/// joins (the same in both directions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bandwidth {
    /// DDR to DDR.
    pub ddr_ddr: f64,
    /// DDR and a GB.
    pub ddr_gb: f64,
    /// DDR and an LB (bypassing the GB).
    pub ddr_lb: f64,
    /// GB to GB (within one cluster).
    pub gb_gb: f64,
    /// A GB and an LB of the same cluster.
    pub gb_lb: f64,
    /// Two LBs of the same cluster (or one LB to itself).
    pub lb_lb: f64,
}

impl Bandwidth {
    /// Bytes per cycle of the path between two levels, in either direction.
    pub fn between(&self, a: MemLevel, b: MemLevel) -> f64 {
        use MemLevel::*;
        match (a, b) {
            (Lb, Lb) => self.lb_lb,
            (Lb, Gb) | (Gb, Lb) => self.gb_lb,
            (Lb, Ddr) | (Ddr, Lb) => self.ddr_lb,
            (Gb, Gb) => self.gb_gb,
            (Gb, Ddr) | (Ddr, Gb) => self.ddr_gb,
            (Ddr, Ddr) => self.ddr_ddr,
        }
    }

    /// The TOML field name of the path between two levels (for messages and reports).
    pub fn field_name(a: MemLevel, b: MemLevel) -> &'static str {
        use MemLevel::*;
        match (a, b) {
            (Lb, Lb) => "lb_lb",
            (Lb, Gb) | (Gb, Lb) => "gb_lb",
            (Lb, Ddr) | (Ddr, Lb) => "ddr_lb",
            (Gb, Gb) => "gb_gb",
            (Gb, Ddr) | (Ddr, Gb) => "ddr_gb",
            (Ddr, Ddr) => "ddr_ddr",
        }
    }
}

/// The `[latency]` table, in cycles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Latency {
    /// From the host's launch to the first instruction on the cores.
    pub kernel_launch: u64,
    /// Paid by every DMA on its channel before data moves.
    pub dma_setup: u64,
    /// Paid by every compute instruction on its unit (pipeline fill and drain).
    pub compute_setup: u64,
    /// From the last core's arrival at a barrier to its release.
    pub barrier: u64,
    /// From the moment the device has finished the work a host read waits for until the host
    /// has the value: a synchronisation plus a small device-to-host copy over the host link.
    pub readback: u64,
    /// For the cores, once they have met, to evaluate a condition on the device: each core's
    /// vector core loads the scalar from the GB or DDR and branches.
    pub branch: u64,
}

/// The `[cost]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cost {
    /// Element operations charged per element of a special function (exp, log, sqrt, rsqrt,
    /// reciprocal, div, pow, sigmoid, tanh, erf, gelu, silu); simple operations cost 1.
    pub special_function: f64,
}

impl Target {
    /// Parses and validates a description. `origin` names the text in error messages (a path,
    /// or `builtin:<name>`).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Target, TargetError> {
        let target: Target = toml::from_str(text).map_err(|e| TargetError::Parse {
            origin: origin.to_string(),
            message: e.to_string(),
        })?;
        target.validate()?;
        Ok(target)
    }

    /// Reads, parses and validates a description file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Target, TargetError> {
        let path = path.as_ref();
        let text = turbine_files::read_text(path, turbine_files::TEXT).map_err(|error| {
            TargetError::Io {
                path: path.to_path_buf(),
                message: error.reason.to_string(),
            }
        })?;
        Target::from_toml_str(&text, &path.display().to_string())
    }

    /// A built-in name or a file path: the built-in wins when both could apply, and a string
    /// that names no built-in and contains a `/` or ends in `.toml` is read as a file (so a
    /// missing file is reported as such rather than as an unknown built-in).
    pub fn load(name_or_path: &str) -> Result<Target, TargetError> {
        if let Some(target) = crate::builtin::lookup(name_or_path) {
            return target;
        }
        if name_or_path.contains('/')
            || name_or_path.ends_with(".toml")
            || Path::new(name_or_path).is_file()
        {
            return Target::from_file(name_or_path);
        }
        Target::builtin(name_or_path)
    }

    /// Serialises the description back to TOML (without the comments of the original file).
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("a Target always serialises: it has only tables and numbers")
    }

    /// Operations per cycle of one unit of `kind` on `dtype`, if the target states it.
    pub fn throughput(&self, kind: UnitKind, dtype: DType) -> Option<f64> {
        self.throughput.get(&kind)?.get(&dtype).copied()
    }

    /// Operations per cycle of one unit of `kind` on `dtype`: its rate for that type, or its
    /// `f32` rate when the target states none (validated targets state one for every unit).
    pub fn rate(&self, kind: UnitKind, dtype: DType) -> f64 {
        self.throughput(kind, dtype)
            .or_else(|| self.throughput(kind, DType::F32))
            .expect("validated targets have f32 rates")
    }

    /// Number of units of `kind` in each core.
    pub fn units_of(&self, kind: UnitKind) -> usize {
        self.core.units.iter().filter(|&&k| k == kind).count()
    }

    /// Total number of cores on the device.
    pub fn total_cores(&self) -> u32 {
        self.device.clusters * self.cluster.cores
    }

    /// Clock frequency in Hz.
    pub fn clock_hz(&self) -> f64 {
        self.clock_mhz * 1e6
    }

    /// Capacity of one instance of a memory level in bytes (per core for LB, per cluster for
    /// GB, the whole device for DDR).
    pub fn capacity(&self, level: MemLevel) -> u64 {
        match level {
            MemLevel::Lb => self.core.lb_bytes,
            MemLevel::Gb => self.cluster.gb_bytes,
            MemLevel::Ddr => self.device.ddr_bytes,
        }
    }
}
