//! Range checks that TOML's types cannot express. Invariants of a valid [`Target`]:
//!
//! - `name` is not empty; `clock_mhz`, every bandwidth and every throughput lie in
//!   [[`MIN_RATE`], [`MAX_RATE`]]; every latency is at most [`MAX_LATENCY`] cycles;
//!   `cost.special_function` is finite, at least 1 and at most [`MAX_RATE`];
//! - there is at least one cluster, one core per cluster, one unit per core, one DMA channel
//!   per core, and at most [`MAX_CORES`] cores in all;
//! - every memory capacity is a positive multiple of 4 bytes (whole f32 elements);
//! - every unit kind listed in `core.units` has a throughput table with an `f32` entry, and
//!   there is no throughput table for a kind that no core has (a likely typo).
//!
//! The runtime relies on these: it divides by bandwidths and throughputs, sizes its memories
//! from the capacities, and counts cycles in `u64` (the bounds keep one instruction's time far
//! from overflowing; the runtime refuses a launch that would still pass 2^62 cycles). The
//! compiler carries bandwidths and the clock in the `#dsa.target` attribute, whose printed form
//! must read back: figures like 1e-30 bytes per cycle are refused here rather than there.

use crate::description::Target;
use crate::error::TargetError;
use crate::kinds::{DType, UnitKind};

/// Upper bound on the number of cores, so that core indices fit comfortably in `u32`
/// arithmetic and a typo (`cores = 80000`) is caught rather than allocated.
pub const MAX_CORES: u64 = 65_536;

/// Smallest clock (MHz), bandwidth (bytes per cycle) or throughput (operations per cycle).
pub const MIN_RATE: f64 = 1e-3;
/// Largest clock, bandwidth, throughput or special-function weight.
pub const MAX_RATE: f64 = 1e12;
/// Largest latency in cycles (about 18 minutes at 1 GHz).
pub const MAX_LATENCY: u64 = 1 << 40;

impl Target {
    /// Checks every invariant listed in this module's documentation; the error names the
    /// first offending field.
    pub fn validate(&self) -> Result<(), TargetError> {
        self.check_name_clock_and_counts()?;
        self.check_capacities()?;
        self.check_bandwidths()?;
        self.check_latencies()?;
        self.check_throughputs()?;
        self.check_cost()
    }

    /// The error for `field` of this target.
    fn invalid(&self, field: &str, message: String) -> TargetError {
        TargetError::Invalid {
            target: self.name.clone(),
            field: field.to_string(),
            message,
        }
    }

    /// A name, a clock in range, and at least one of each: cluster, core per cluster, unit
    /// and DMA channel per core, with at most [`MAX_CORES`] cores in all.
    fn check_name_clock_and_counts(&self) -> Result<(), TargetError> {
        if self.name.trim().is_empty() {
            return Err(self.invalid("name", "must not be empty".into()));
        }
        rate(self.clock_mhz).map_err(|m| self.invalid("clock_mhz", m))?;
        if self.device.clusters == 0 {
            return Err(self.invalid("device.clusters", "must be at least 1".into()));
        }
        if self.cluster.cores == 0 {
            return Err(self.invalid("cluster.cores", "must be at least 1".into()));
        }
        let cores = u64::from(self.device.clusters) * u64::from(self.cluster.cores);
        if cores > MAX_CORES {
            return Err(self.invalid(
                "cluster.cores",
                format!(
                    "gives {cores} cores in all (device.clusters x cluster.cores), \
                     more than {MAX_CORES}"
                ),
            ));
        }
        if self.core.units.is_empty() {
            return Err(self.invalid("core.units", "must list at least one compute unit".into()));
        }
        if self.core.dma_channels == 0 {
            return Err(self.invalid("core.dma_channels", "must be at least 1".into()));
        }
        if self.core.call_depth == 0 {
            return Err(self.invalid("core.call_depth", "must be at least 1".into()));
        }
        Ok(())
    }

    /// Every memory capacity is a positive multiple of 4 bytes.
    fn check_capacities(&self) -> Result<(), TargetError> {
        for (field, bytes) in [
            ("core.lb_bytes", self.core.lb_bytes),
            ("cluster.gb_bytes", self.cluster.gb_bytes),
            ("device.ddr_bytes", self.device.ddr_bytes),
        ] {
            if bytes == 0 || bytes % 4 != 0 {
                return Err(self.invalid(
                    field,
                    format!(
                        "must be a positive multiple of 4 bytes (whole f32 elements), got {bytes}"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Every bandwidth lies in [[`MIN_RATE`], [`MAX_RATE`]].
    fn check_bandwidths(&self) -> Result<(), TargetError> {
        let b = &self.bandwidth;
        for (field, value) in [
            ("bandwidth.ddr_ddr", b.ddr_ddr),
            ("bandwidth.ddr_gb", b.ddr_gb),
            ("bandwidth.ddr_lb", b.ddr_lb),
            ("bandwidth.gb_gb", b.gb_gb),
            ("bandwidth.gb_lb", b.gb_lb),
            ("bandwidth.lb_lb", b.lb_lb),
        ] {
            rate(value).map_err(|m| self.invalid(field, m))?;
        }
        Ok(())
    }

    /// Every latency is at most [`MAX_LATENCY`] cycles.
    fn check_latencies(&self) -> Result<(), TargetError> {
        let l = &self.latency;
        for (field, cycles) in [
            ("latency.kernel_launch", l.kernel_launch),
            ("latency.dma_setup", l.dma_setup),
            ("latency.compute_setup", l.compute_setup),
            ("latency.barrier", l.barrier),
            ("latency.readback", l.readback),
            ("latency.branch", l.branch),
        ] {
            if cycles > MAX_LATENCY {
                return Err(self.invalid(
                    field,
                    format!("must be at most {MAX_LATENCY} cycles (2^40), got {cycles}"),
                ));
            }
        }
        Ok(())
    }

    /// A throughput table, with an `f32` entry and every rate in range, for exactly the unit
    /// kinds the core has.
    fn check_throughputs(&self) -> Result<(), TargetError> {
        for kind in UnitKind::ALL {
            let present = self.core.units.contains(&kind);
            match self.throughput.get(&kind) {
                None if present => {
                    return Err(self.invalid(
                        &format!("throughput.{kind}"),
                        format!("is missing: core.units has a {kind} and its rate must be given"),
                    ))
                }
                None => {}
                Some(_) if !present => {
                    return Err(self.invalid(
                        &format!("throughput.{kind}"),
                        format!("is given but core.units has no {kind}"),
                    ))
                }
                Some(table) => {
                    if !table.contains_key(&DType::F32) {
                        return Err(self.invalid(
                            &format!("throughput.{kind}.f32"),
                            "is missing: the runtime executes f32".into(),
                        ));
                    }
                    for (dtype, &rate) in table {
                        let field = format!("throughput.{kind}.{dtype}");
                        self::rate(rate).map_err(|m| self.invalid(&field, m))?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The special-function weight is finite, at least 1 and at most [`MAX_RATE`].
    fn check_cost(&self) -> Result<(), TargetError> {
        let special = self.cost.special_function;
        if !(special.is_finite() && (1.0..=MAX_RATE).contains(&special)) {
            return Err(self.invalid(
                "cost.special_function",
                format!("must be a finite number from 1 to {MAX_RATE:e}, got {special}"),
            ));
        }
        Ok(())
    }
}

/// `Ok` when `value` lies in [[`MIN_RATE`], [`MAX_RATE`]] (so finite and positive), else the
/// message for the field.
fn rate(value: f64) -> Result<(), String> {
    if (MIN_RATE..=MAX_RATE).contains(&value) {
        Ok(())
    } else {
        Err(format!(
            "must be a number from {MIN_RATE:e} to {MAX_RATE:e}, got {value:?}"
        ))
    }
}
