//! Typed views and builders of the Turbine dialects' ops, generated at build time from the ODS
//! `.td` files (`build/ods/` reads TableGen's JSON dump, `build/rust/` writes the Rust).
//!
//! For each op `graph.conv2d` the dialect's module has:
//!
//! - a view, `Conv2dOp<'c, 'a>`, over a melior [`OperationRef`](melior::ir::OperationRef):
//!   `Conv2dOp::cast(op)` is `Some` exactly when `op` is a `graph.conv2d` (the one place its name
//!   is compared), and the view reads operands, results, regions and attributes by their ODS
//!   names, typed by their ODS kind (`strides()` is a `Vec<i64>`, `activation()` an
//!   `Option<Activation>`, a default-valued attribute that is absent reads as its ODS default);
//! - a builder, `Conv2dOp::builder(location, result types, operands, required attributes)`, whose
//!   setters add optional operands and attributes, and whose `build()` gives the new
//!   [`Operation`](melior::ir::Operation);
//! - `Conv2dOp::NAME` and, for each trait the dialect declares (the graph dialect's
//!   `Elementwise`), a constant saying whether the op has it;
//!
//! and the module has `AnyOp`, an enum of every op's view for `match`ing on the kind of an op,
//! plus `OPERATION_NAMES` and a list of the ops with each dialect trait (`ELEMENTWISE_OPS`).
//!
//! Views assume a verified op: an accessor of an op that lacks a required attribute or operand
//! (one built by hand and never verified) panics, naming the op and the missing part.

/// The ops of the `graph` dialect (`include/graph/GraphOps.td`): value-semantics tensor operators.
pub mod graph {
    include!(concat!(env!("OUT_DIR"), "/ops/graph.rs"));

    /// Whether `op` has the graph dialect's `Elementwise` trait, asked of the registered op
    /// (`turbineGraphOpIsElementwise`); for an op known at compile time, its view's
    /// `ELEMENTWISE` constant says the same.
    pub fn is_elementwise(op: melior::ir::OperationRef) -> bool {
        crate::attributes::graph::is_elementwise(&op)
    }
}

/// The ops of the `instance` dialect (`include/instance/InstanceOps.td`): GraphTurbo's groups,
/// instances and their data movement.
pub mod instance {
    include!(concat!(env!("OUT_DIR"), "/ops/instance.rs"));
}

/// The ops of the `dsa` dialect (`include/dsa/DsaOps.td`): buffers, DMA, compute units, kernels.
pub mod dsa {
    include!(concat!(env!("OUT_DIR"), "/ops/dsa.rs"));
}

mod kind;
pub(crate) mod support;
pub mod upstream;
mod values;
mod view;

pub use kind::OpKind;
pub use values::{Operands, Results};
pub use view::{ops_in, OpView, WrongOp};

/// What the generated modules use.
mod prelude {
    pub(crate) use super::{
        support::{self, Arity, Segments},
        Operands, Results, WrongOp,
    };
    pub(crate) use melior::ir::{
        operation::OperationResult, Attribute, Location, Operation, OperationRef, Region,
        RegionRef, Type, Value,
    };
}
