//! The library's error: what cannot be lowered, at which op of the function being lowered.

/// A lowering error at a graph op (or the function): the op's index in the body and a message.
#[derive(Debug)]
pub struct LoweringError {
    /// Index of the offending op in the function body, None for the function itself.
    pub op: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl LoweringError {
    /// An error at op `index`.
    pub fn at(index: usize, message: impl Into<String>) -> Self {
        Self {
            op: Some(index),
            message: message.into(),
        }
    }
}
