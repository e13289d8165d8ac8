//! The reference interpreter of the `graph` dialect: the ground truth that every compilation
//! pipeline is checked against.
//!
//! It is deliberately plain. The MLIR function is first read into an owned tree ([`program`]),
//! then evaluated op by op ([`eval`]) with kernels ([`kernels`]) written as the definition of each
//! operator (nested loops in f32, no tiling, no reassociation beyond a straight sum), so that its
//! correctness can be checked by reading it.
#![warn(missing_docs)]

pub mod error;
pub mod eval;
pub mod kernels;
pub mod npy;
pub mod program;
pub mod tensor;
pub mod weights;

pub use error::InterpretError;
pub use eval::{interpret, MAX_CALL_DEPTH, MAX_LOOP_ITERATIONS};
pub use program::{Function, Program};
pub use tensor::{Data, ElementType, Tensor};
pub use weights::Weights;
