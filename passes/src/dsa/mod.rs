//! Passes on the `dsa` dialect.

pub mod set_target;
