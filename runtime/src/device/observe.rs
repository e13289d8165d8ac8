//! What a device tells about its runs: the report (with the layers the program named), and the
//! trace of its launches as Perfetto JSON or an SVG timeline.

use super::Device;
use crate::error::{Result, RuntimeError};
use crate::ids::CoreId;
use crate::report::{Report, Stats};
use crate::timeline;
use crate::trace::{Trace, TraceFormat};

impl Device {
    /// The report of everything since the device was created or the report last reset.
    pub fn report(&self) -> Report {
        Report::build(
            &self.target,
            &self.stats,
            self.now,
            self.memory.usage(),
            &self.layer_names,
            self.race_check,
        )
    }

    /// Names layer `id` for the report (a later name replaces an earlier one).
    pub fn name_layer(&mut self, id: u32, name: &str) {
        self.layer_names.insert(id, name.to_string());
    }

    /// Attributes the instructions `core` records next in the open launch to layer `id`
    /// ([`crate::launch::NO_LAYER`]: to none), so that the report can say what each layer of
    /// the model cost.
    pub fn set_layer(&mut self, core: CoreId, id: u32) -> Result<()> {
        self.check_core(core)?;
        let launch = self
            .launch
            .as_mut()
            .ok_or(RuntimeError::NoOpenLaunch("set_layer"))?;
        let slot = launch.slot(core)?;
        launch.set_layer(slot, id);
        Ok(())
    }

    /// Restarts the report's counters and high-water marks (simulated time goes on).
    pub fn reset_report(&mut self) {
        self.stats = Stats::new(&self.target, self.now);
        self.memory.reset_high_water();
    }

    /// Turns event recording for the trace on (keeping events recorded so far) or off
    /// (dropping them).
    pub fn set_tracing(&mut self, on: bool) {
        match (on, self.trace.is_some()) {
            (true, false) => self.trace = Some(Trace::default()),
            (false, true) => self.trace = None,
            _ => {}
        }
    }

    /// The trace recorded since tracing was turned on, in `format`, or `None` when tracing is
    /// off.
    pub fn trace_text(&self, format: TraceFormat) -> Option<String> {
        let trace = self.trace.as_ref()?;
        Some(match format {
            TraceFormat::TimelineSvg => timeline::render(&self.target, trace, &self.layer_names),
            _ => trace.to_json(&self.target, format, &self.layer_names),
        })
    }

    /// Writes the trace to `path` in `format` (see [`Device::trace_text`]).
    pub fn write_trace(&self, path: &str, format: TraceFormat) -> Result<()> {
        let text = self.trace_text(format).ok_or_else(|| {
            RuntimeError::BadArgument(
                "tracing is off: enable it before the launches to trace".into(),
            )
        })?;
        std::fs::write(path, text).map_err(|e| RuntimeError::Io {
            path: path.to_string(),
            message: e.to_string(),
        })
    }
}
