//! Turbine's ONNX importer: reads an ONNX model (opsets 13 to 22) and writes it in the `graph`
//! dialect, as typed operation records the tools build into MLIR, with its weights in a
//! safetensors side file.
//!
//! The import is one walk over the nodes in their (topological) order:
//!
//! 1. [`proto`] decodes the protobuf with hand-written prost messages; every size in the file is
//!    checked against [`types::MAX_ELEMENTS`] before anything is allocated for it.
//! 2. Graph inputs get static types, from the model or from [`ImportOptions::input_shapes`].
//! 3. Each node is either *folded* ([`fold`]: all inputs known, so evaluate it now; this is how the
//!    `Shape → Gather → Concat → Reshape` chains of exported models vanish) or *lowered*
//!    ([`lower`]: write its graph-dialect operations, with result types from the shape rules of
//!    [`shape`] and [`infer`]).
//! 4. Constants reach the IR when an operation first uses them: inline `graph.constant` when small,
//!    integer or splat, otherwise `graph.weight` naming a tensor of the [`Weights`] file.
//! 5. `If`, `Loop` and `Scan` import their bodies (subgraphs) into the regions of `graph.if` and
//!    `graph.loop` (`subgraph`), in scopes that see the tensors around them.
//!
//! The operations are records ([`emit`]): the crate does not link MLIR, and the tools build the
//! module from the records with MLIR's builders. `turbine-translate --import-onnx` verifies it,
//! so a lowering mistake surfaces as a verifier error naming the ONNX node, never as a silently
//! wrong model. Failures are [`ImportError`]s, and no input makes the importer panic.
#![warn(missing_docs)]

mod cast;
pub mod emit;
mod error;
mod external;
pub mod fold;
mod importer;
pub mod infer;
pub mod lower;
pub mod model_builder;
pub mod node;
pub mod operators;
pub mod proto;
mod schema;
pub mod shape;
mod subgraph;
pub mod tensor;
pub mod types;
pub mod value;
mod weights;

pub use error::{ImportError, TensorProblem};
pub use importer::{import, ImportOptions, ImportedModel, OPSETS};
pub use types::ElementType;
pub use weights::Weights;
