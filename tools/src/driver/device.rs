//! A device of the software DSA, driven through the runtime's C ABI as the generated code
//! drives it: buffers, the report and the trace.

use std::{
    ffi::{CStr, CString},
    path::Path,
};
use turbine_runtime::ffi;

/// Codes of runtime/include/turbine_dsa.h.
const LEVEL_DDR: u32 = 2;
const REPORT_JSON: u32 = 0;
const REPORT_TEXT: u32 = 1;
const REPORT_TEXT_DETAIL: u32 = 2;

/// A form of the runtime's report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// Everything, as JSON.
    Json,
    /// The text summary: totals, the longest launches, bytes per path, utilisation per kind.
    Summary,
    /// The summary and every unit, DMA channel and port that ran something.
    Detail,
}

/// A form of the trace (the codes of runtime/include/turbine_dsa.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceFormat {
    /// Chrome trace-event JSON, one event per run of a layer's instructions on a track.
    Layers = 0,
    /// Chrome trace-event JSON, one event per instruction.
    Instructions = 1,
    /// An SVG timeline.
    TimelineSvg = 2,
}

/// A device of the software DSA, through the C ABI the generated code calls.
pub struct Device(u64);

/// The message of the runtime's last failed call on this thread.
fn last_error() -> String {
    // SAFETY: td_last_error returns a NUL-terminated string owned by the runtime.
    unsafe { CStr::from_ptr(ffi::td_last_error()) }
        .to_string_lossy()
        .into_owned()
}

/// `Ok` for a successful status, else `what` with the runtime's message.
fn check(status: i32, what: &str) -> Result<(), String> {
    if status == ffi::TD_OK {
        Ok(())
    } else {
        Err(format!("{what}: {}", last_error()))
    }
}

impl Device {
    /// Creates a device of `target` (built-in name or file).
    pub fn new(target: &str) -> Result<Self, String> {
        let name = CString::new(target).map_err(|_| "target name contains NUL")?;
        let mut handle = 0;
        // SAFETY: valid pointers.
        check(
            unsafe { ffi::td_device_create(name.as_ptr(), &mut handle) },
            "cannot create the device",
        )?;
        Ok(Self(handle))
    }

    /// The handle the generated code takes.
    pub fn handle(&self) -> u64 {
        self.0
    }

    /// Host threads of the runtime (0: all).
    pub fn set_threads(&self, threads: u32) -> Result<(), String> {
        check(
            ffi::td_device_set_threads(self.0, threads),
            "cannot set the thread count",
        )
    }

    /// Turns the runtime's race check on or off (on by default).
    pub fn set_race_check(&self, on: bool) -> Result<(), String> {
        check(
            ffi::td_device_set_race_check(self.0, i32::from(on)),
            "cannot set the race check",
        )
    }

    /// Sets the iteration at which the device's watchdog stops a loop (at least 1).
    pub fn set_loop_limit(&self, limit: u64) -> Result<(), String> {
        check(
            ffi::td_device_set_loop_limit(self.0, limit),
            "cannot set the loop limit",
        )
    }

    /// A DDR buffer of `bytes` bytes (at least one element of `element_bytes`) of `dtype`
    /// elements (a `TD_DTYPE_*` code).
    pub(super) fn alloc(
        &self,
        bytes: usize,
        element_bytes: usize,
        dtype: u32,
    ) -> Result<u64, String> {
        let mut buffer = 0;
        // SAFETY: valid out pointer.
        check(
            unsafe {
                ffi::td_buffer_alloc(
                    self.0,
                    LEVEL_DDR,
                    0,
                    0,
                    bytes.max(element_bytes) as u64,
                    dtype,
                    &mut buffer,
                )
            },
            "cannot allocate a DDR buffer",
        )?;
        Ok(buffer)
    }

    /// Writes `bytes` (whole elements) at the start of `buffer`.
    pub(super) fn write(&self, buffer: u64, bytes: &[u8]) -> Result<(), String> {
        // SAFETY: the slice is valid for its length.
        check(
            unsafe {
                ffi::td_buffer_write(self.0, buffer, 0, bytes.as_ptr().cast(), bytes.len() as u64)
            },
            "cannot write a buffer",
        )
    }

    /// Reads the first `bytes` bytes (whole elements) of `buffer`.
    pub(super) fn read(&self, buffer: u64, bytes: usize) -> Result<Vec<u8>, String> {
        let mut values = vec![0u8; bytes];
        // SAFETY: the vector is valid for its length.
        check(
            unsafe {
                ffi::td_buffer_read(self.0, buffer, 0, values.as_mut_ptr().cast(), bytes as u64)
            },
            "cannot read a buffer",
        )?;
        Ok(values)
    }

    /// Frees `buffer`.
    pub(super) fn free(&self, buffer: u64) {
        // A failure only means that the buffer is already gone.
        ffi::td_buffer_free(self.0, buffer);
    }

    /// The report since the last reset.
    pub fn report(&self, format: ReportFormat) -> Result<String, String> {
        let format = match format {
            ReportFormat::Json => REPORT_JSON,
            ReportFormat::Summary => REPORT_TEXT,
            ReportFormat::Detail => REPORT_TEXT_DETAIL,
        };
        let mut length = 0;
        // SAFETY: NULL buffer asks for the length only.
        check(
            unsafe { ffi::td_report(self.0, format, std::ptr::null_mut(), 0, &mut length) },
            "cannot make the report",
        )?;
        let mut bytes = vec![0u8; length as usize + 1];
        // SAFETY: the buffer has length + 1 bytes.
        check(
            unsafe {
                ffi::td_report(
                    self.0,
                    format,
                    bytes.as_mut_ptr().cast(),
                    bytes.len() as u64,
                    &mut length,
                )
            },
            "cannot make the report",
        )?;
        bytes.truncate(length as usize);
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Restarts the report's counters.
    pub fn reset_report(&self) -> Result<(), String> {
        check(ffi::td_report_reset(self.0), "cannot reset the report")
    }

    /// Records a trace from now on.
    pub fn enable_trace(&self) -> Result<(), String> {
        check(ffi::td_trace_enable(self.0, 1), "cannot enable tracing")
    }

    /// Writes the trace recorded so far in `format`.
    pub fn write_trace(&self, path: &Path, format: TraceFormat) -> Result<(), String> {
        let path = CString::new(path.to_string_lossy().as_bytes())
            .map_err(|_| "trace path contains NUL")?;
        // SAFETY: valid C string.
        check(
            unsafe { ffi::td_trace_write_format(self.0, format as u32, path.as_ptr()) },
            "cannot write the trace",
        )
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        ffi::td_device_destroy(self.0);
    }
}
