//! The lowering's error: a message at the location of an op of the scheduled function.

use crate::ir::{emit_error, Op};
use melior::ir::Location;
use mlir_sys::MlirLocation;

/// An error at an op. It keeps the op's location rather than the op: by the time the error is
/// reported the op may be gone (one of a per-core body, destroyed with its plan, or one the
/// failed lowering built and erased), while a location lives as long as the context.
pub struct ScheduleError {
    location: MlirLocation,
    message: String,
}

impl ScheduleError {
    pub(super) fn at(op: Op, message: impl Into<String>) -> Self {
        Self {
            location: op.location(),
            message: message.into(),
        }
    }

    /// Emits the error at its op's location.
    pub(super) fn emit(&self) {
        // SAFETY: the location is uniqued in the context, which outlives the pass run.
        emit_error(unsafe { Location::from_raw(self.location) }, &self.message)
    }
}
