//! The compiler's view of a `graph` function: its ops with their operands, result types and
//! attributes, read once through typed C-API accessors, each with a handle back to its op, and the
//! data flow between them as a petgraph graph.
//!
//! This is the compiler's own reader. The reference interpreter reads IR with another one, so that
//! a misreading cannot fool both sides of a `--check` (docs/Design.md §8). Attributes are read by
//! kind (integer, float, dense array, the dialect's enumerations through
//! `turbine_dialects::attributes`); an attribute of any other kind is [`Attr::Other`], never
//! guessed from its printed form. Defaults are the dialect's: ODS fills every `DefaultValuedAttr`
//! when an op is created or parsed, so an absent default-valued attribute is a reader bug, not a
//! case to handle.

mod attributes;
mod epilogue;
mod function;
mod prepared;
mod reader;
mod types;

pub use attributes::{Attr, Constant};

/// The unit attribute marking a function that `graph-outline-control-flow` made of a region:
/// the lowering counts nested calls of the model's own functions only, as the interpreter does.
pub const OUTLINED: &str = "graph.outlined";
pub use function::{FunctionView, Node, ViewError};
pub use prepared::Prepared;
pub use types::{static_buffer_type, uniform_float, ElementType, TensorType, ValueId};
