//! The vocabulary of a cluster program's plan: the tensors that own buffers, the kernels, and
//! the groups whose instances write into one buffer.

use crate::graph_view::{ElementType, Node};

/// A tensor of the cluster program that owns buffers; views (slices, copies, redistributions,
/// stitched concatenations) share their source's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Root {
    /// The first output of every instance of a group, stitched into one buffer.
    Group(String),
    /// An output of an instance that is not stitched: the instance's op position, the output.
    Result(usize, usize),
    /// A concatenation that is not a view (copied together by its own kernel).
    Concat(usize),
}

/// A kernel: a run of instances of one group, or a copy.
#[derive(Debug)]
pub(super) enum Item {
    Run(String),
    Copy,
}

/// A group whose instances write into one buffer: its shape, split and element type.
#[derive(Debug, Clone)]
pub(super) struct Stitched {
    pub(super) shape: Vec<usize>,
    pub(super) dim: usize,
    pub(super) slice: usize,
    pub(super) element: ElementType,
}

/// The group, index, count and split dimension of an `instance.instance` op.
pub(super) fn instance_attributes(node: &Node) -> (String, usize, usize, usize) {
    let group = node.string("group").unwrap_or_default().to_owned();
    (
        group,
        node.int("index") as usize,
        node.int("count") as usize,
        node.int("dim") as usize,
    )
}
