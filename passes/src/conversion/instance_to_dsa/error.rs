//! The lowering's error: a message at an op of the scheduled function.

use crate::ir::Op;

/// An error at an op.
pub struct ScheduleError {
    pub(super) op: Option<Op>,
    pub(super) message: String,
}

impl ScheduleError {
    pub(super) fn at(op: Op, message: impl Into<String>) -> Self {
        Self {
            op: Some(op),
            message: message.into(),
        }
    }
}
