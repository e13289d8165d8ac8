//! What every op view has ([`OpView`]), the views of one kind of op in a block ([`ops_in`]),
//! and the error of a view's `TryFrom<OperationRef>` ([`WrongOp`]).

use super::support;
use melior::ir::{operation::OperationLike, OperationRef};
use std::fmt;

/// What every generated op view has, for code generic over the kind of op.
pub trait OpView<'c: 'a, 'a>: Copy + Into<OperationRef<'c, 'a>> {
    /// The op's full name, such as `graph.conv2d`.
    const NAME: &'static str;

    /// The view of `op` when it is an op of this kind.
    fn cast(op: OperationRef<'c, 'a>) -> Option<Self>;

    /// The viewed operation.
    fn operation(&self) -> OperationRef<'c, 'a>;
}

/// The ops of kind `T` among those directly in `block`, in order.
pub fn ops_in<'c: 'a, 'a, T: OpView<'c, 'a>>(
    block: melior::ir::BlockRef<'c, 'a>,
) -> impl Iterator<Item = T> + use<'c, 'a, T> {
    use melior::ir::block::BlockLike;
    std::iter::successors(block.first_operation(), |op| op.next_in_block()).filter_map(T::cast)
}

/// The error of a view's `TryFrom<OperationRef>`: the op is of another kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongOp {
    /// The name the view wanted.
    pub expected: &'static str,
    /// The name the op has.
    pub found: String,
}

impl WrongOp {
    pub(crate) fn new(expected: &'static str, op: OperationRef) -> Self {
        Self {
            expected,
            found: support::name(op).to_string(),
        }
    }
}

impl fmt::Display for WrongOp {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(
            formatter,
            "expected a `{}`, found a `{}`",
            self.expected, self.found
        )
    }
}

impl std::error::Error for WrongOp {}
