//! The report as a person reads it: a summary that fits a screen (totals, the longest launches,
//! bytes per path, utilisation per kind of unit as min/mean/max over the device), and on request
//! the per-unit detail behind it. The JSON form ([`Report::to_json`]) always has everything.

use crate::report::{LaunchSummary, LayerStat, Report};
use std::fmt::{self, Write};
use turbine_targets::UnitKind;

/// How many launches the text lists one by one before summarising.
const LISTED_LAUNCHES: usize = 12;

/// How many layers the summary lists (the longest); the detail lists every one.
const LISTED_LAYERS: usize = 10;

/// A row of the utilisation table: one kind of unit over the whole device.
struct KindRow {
    name: String,
    units: usize,
    /// Instructions or transfers; none for ports, which only carry the channels' transfers.
    operations: Option<u64>,
    busy: u64,
    utilisation: Vec<f64>,
}

impl KindRow {
    fn write(&self, out: &mut String) -> fmt::Result {
        let (min, max) = self
            .utilisation
            .iter()
            .fold((f64::INFINITY, 0f64), |(lo, hi), &u| (lo.min(u), hi.max(u)));
        let mean = self.utilisation.iter().sum::<f64>() / self.utilisation.len().max(1) as f64;
        writeln!(
            out,
            "  {:<14} {:>6} {:>10} {:>16} {:>7.1}% {:>7.1}% {:>7.1}%",
            self.name,
            self.units,
            self.operations.map(|n| n.to_string()).unwrap_or_default(),
            self.busy,
            100.0 * if min.is_finite() { min } else { 0.0 },
            100.0 * mean,
            100.0 * max
        )
    }
}

impl Report {
    /// The report as text: the summary, and with `detail` every unit, DMA channel and port that
    /// ran something.
    pub fn text(&self, detail: bool) -> String {
        let mut out = String::new();
        self.write_summary(&mut out)
            .expect("writing to a String cannot fail");
        if detail {
            self.write_detail(&mut out)
                .expect("writing to a String cannot fail");
        }
        out
    }

    /// The summary: totals (the steps, host syncs and device branches of control flow when the
    /// run had any), then the launches, bytes per path, utilisation per kind of unit, the
    /// costliest layers and the memory high-water marks.
    fn write_summary(&self, out: &mut String) -> fmt::Result {
        writeln!(
            out,
            "Turbine software DSA report — target {} @ {} MHz",
            self.target, self.clock_mhz
        )?;
        writeln!(out, "  simulated cycles   {:>16}", self.cycles)?;
        writeln!(out, "  simulated time     {:>16.3} us", self.time_us)?;
        writeln!(out, "  kernel launches    {:>16}", self.kernel_launches)?;
        if self.device_steps + self.host_syncs + self.device_branches > 0 {
            writeln!(out, "  device steps       {:>16}", self.device_steps)?;
            writeln!(out, "  host syncs         {:>16}", self.host_syncs)?;
            writeln!(out, "  device branches    {:>16}", self.device_branches)?;
        }
        writeln!(out, "  instructions       {:>16}", self.instructions)?;
        let race_check = if self.race_check { "on" } else { "off" };
        writeln!(out, "  race check         {race_check:>16}")?;
        self.write_launches(out)?;
        self.write_transfers(out)?;
        self.write_utilisation(out)?;
        self.write_costliest_layers(out)?;
        self.write_high_water_marks(out)
    }

    /// The launches in order, or the longest first when there are too many to list; a step of a
    /// persistent kernel is marked after its name.
    fn write_launches(&self, out: &mut String) -> fmt::Result {
        let many = self.launches.len() > LISTED_LAUNCHES;
        writeln!(
            out,
            "\nlaunches{}",
            if many { " (longest first)" } else { "" }
        )?;
        writeln!(
            out,
            "  {:<32} {:>6} {:>8} {:>14} {:>14}",
            "kernel", "cores", "instrs", "start", "cycles"
        )?;
        let mut launches: Vec<&LaunchSummary> = self.launches.iter().collect();
        if many {
            launches.sort_by_key(|l| std::cmp::Reverse(l.cycles()));
        }
        for l in launches.iter().take(LISTED_LAUNCHES) {
            let step = if l.step { " (step)" } else { "" };
            writeln!(
                out,
                "  {:<32} {:>6} {:>8} {:>14} {:>14}",
                format!("{}{step}", l.name),
                l.cores,
                l.instructions,
                l.start,
                l.cycles()
            )?;
        }
        if many {
            writeln!(out, "  ... and {} more", launches.len() - LISTED_LAUNCHES)?;
        }
        Ok(())
    }

    /// Bytes and DMAs per memory path, then the host's traffic.
    fn write_transfers(&self, out: &mut String) -> fmt::Result {
        writeln!(out, "\nbytes moved by DMA")?;
        writeln!(out, "  {:<12} {:>16} {:>10}", "path", "bytes", "dmas")?;
        for t in &self.transfers {
            writeln!(
                out,
                "  {:<12} {:>16} {:>10}",
                format!("{} -> {}", t.src, t.dst),
                t.bytes,
                t.dmas
            )?;
        }
        writeln!(
            out,
            "  {:<12} {:>16}",
            "host -> ddr", self.host.to_ddr_bytes
        )?;
        writeln!(
            out,
            "  {:<12} {:>16}",
            "ddr -> host", self.host.from_ddr_bytes
        )
    }

    /// The utilisation table, one row per kind of unit.
    fn write_utilisation(&self, out: &mut String) -> fmt::Result {
        writeln!(
            out,
            "\nutilisation over the device \
             (busy cycles / run cycles; min, mean, max over its units)"
        )?;
        writeln!(
            out,
            "  {:<14} {:>6} {:>10} {:>16} {:>8} {:>8} {:>8}",
            "kind", "units", "ops", "busy cycles", "min", "mean", "max"
        )?;
        for row in self.kind_rows() {
            row.write(out)?;
        }
        Ok(())
    }

    /// The layers, the costliest first when there are too many to list; nothing when the
    /// program named none.
    fn write_costliest_layers(&self, out: &mut String) -> fmt::Result {
        if self.layers.is_empty() {
            return Ok(());
        }
        let many = self.layers.len() > LISTED_LAYERS;
        writeln!(
            out,
            "\nlayers (busy cycles of their instructions over every unit and DMA channel{})",
            if many {
                "; the costliest; the detail lists all"
            } else {
                ""
            }
        )?;
        let mut layers: Vec<&LayerStat> = self.layers.iter().collect();
        if many {
            layers.sort_by_key(|layer| std::cmp::Reverse(layer.busy()));
        }
        Self::write_layers(out, layers.into_iter().take(LISTED_LAYERS))?;
        if many {
            writeln!(out, "  ... and {} more", self.layers.len() - LISTED_LAYERS)?;
        }
        Ok(())
    }

    /// The largest use of each memory level against its capacity.
    fn write_high_water_marks(&self, out: &mut String) -> fmt::Result {
        let m = &self.memory;
        writeln!(out, "\nmemory high-water marks (bytes)")?;
        writeln!(
            out,
            "  lb  max over cores {:>14} of {:>14}",
            m.lb_high_water_max, m.lb_capacity
        )?;
        let gb_max = m.gb_high_water.iter().copied().max().unwrap_or(0);
        writeln!(
            out,
            "  gb  max over clusters {:>11} of {:>14}",
            gb_max, m.gb_capacity
        )?;
        writeln!(
            out,
            "  ddr {:>29} of {:>14}",
            m.ddr_high_water, m.ddr_capacity
        )
    }

    /// One row per kind of compute unit, DMA channels and each kind of cluster port.
    fn kind_rows(&self) -> Vec<KindRow> {
        let mut rows = Vec::new();
        for kind in UnitKind::ALL {
            let units: Vec<_> = self.units.iter().filter(|u| u.kind == kind).collect();
            if units.is_empty() {
                continue;
            }
            rows.push(KindRow {
                name: kind.name().to_string(),
                units: units.len(),
                operations: Some(units.iter().map(|u| u.instructions).sum()),
                busy: units
                    .iter()
                    .fold(0, |sum, u| sum.saturating_add(u.busy_cycles)),
                utilisation: units.iter().map(|u| u.utilisation).collect(),
            });
        }
        if !self.dma_channels.is_empty() {
            rows.push(KindRow {
                name: "dma channel".to_string(),
                units: self.dma_channels.len(),
                operations: Some(self.dma_channels.iter().map(|c| c.transfers).sum()),
                busy: self
                    .dma_channels
                    .iter()
                    .fold(0, |sum, c| sum.saturating_add(c.busy_cycles)),
                utilisation: self.dma_channels.iter().map(|c| c.utilisation).collect(),
            });
        }
        for port in crate::link::Port::ALL {
            let links: Vec<_> = self.links.iter().filter(|l| l.port == port).collect();
            if links.is_empty() {
                continue;
            }
            rows.push(KindRow {
                name: port.name().to_string(),
                units: links.len(),
                operations: None,
                busy: links
                    .iter()
                    .fold(0, |sum, l| sum.saturating_add(l.busy_cycles)),
                utilisation: links.iter().map(|l| l.utilisation).collect(),
            });
        }
        rows
    }

    /// The layers' table: instructions, cores, busy cycles (all, then the matrix engines' and
    /// the DMA channels'), DMA bytes, and the cycles any of its instructions ran.
    fn write_layers<'r>(
        out: &mut String,
        layers: impl Iterator<Item = &'r LayerStat>,
    ) -> fmt::Result {
        writeln!(
            out,
            "  {:<32} {:>9} {:>6} {:>12} {:>12} {:>12} {:>13} {:>10}",
            "layer", "instrs", "cores", "busy", "matrix", "dma", "dma bytes", "active"
        )?;
        for layer in layers {
            writeln!(
                out,
                "  {:<32} {:>9} {:>6} {:>12} {:>12} {:>12} {:>13} {:>10}",
                layer.name,
                layer.instructions,
                layer.cores,
                layer.busy(),
                layer.matrix_engine_busy,
                layer.dma_busy,
                layer.dma_bytes,
                layer.active_cycles
            )?;
        }
        Ok(())
    }

    fn write_detail(&self, out: &mut String) -> fmt::Result {
        if self.layers.len() > LISTED_LAYERS {
            writeln!(out, "\nevery layer (in the order of its first instruction)")?;
            Self::write_layers(out, self.layers.iter())?;
        }
        writeln!(out, "\nper unit (units that ran something)")?;
        writeln!(
            out,
            "  {:<14} {:<14} {:>10} {:>16} {:>9}",
            "core", "unit", "instrs", "busy cycles", "util"
        )?;
        for u in self.units.iter().filter(|u| u.instructions > 0) {
            writeln!(
                out,
                "  {:<14} {:<14} {:>10} {:>16} {:>8.1}%",
                u.core.to_string(),
                format!("{}#{}", u.kind.name(), u.unit),
                u.instructions,
                u.busy_cycles,
                100.0 * u.utilisation
            )?;
        }
        for c in self.dma_channels.iter().filter(|c| c.transfers > 0) {
            writeln!(
                out,
                "  {:<14} {:<14} {:>10} {:>16} {:>8.1}%",
                c.core.to_string(),
                format!("dma#{}", c.channel),
                c.transfers,
                c.busy_cycles,
                100.0 * c.utilisation
            )?;
        }
        for l in self.links.iter().filter(|l| l.bytes > 0) {
            writeln!(
                out,
                "  {:<14} {:<14} {:>10} {:>16} {:>8.1}%",
                format!("cluster {}", l.cluster),
                l.port.name(),
                "",
                l.busy_cycles,
                100.0 * l.utilisation
            )?;
        }
        Ok(())
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text(false))
    }
}
