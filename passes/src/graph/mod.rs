//! Passes on the `graph` dialect.

pub mod fold_reshapes;
