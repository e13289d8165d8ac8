//! The views of an instance's body (reshapes' results, windows read in place) and the values
//! whose buffers they view, looked up both ways: what a view reads, and what reads a buffer
//! through its views.

use crate::graph_view::ValueId;
use std::collections::BTreeMap;

/// Views and the values whose buffers they view.
#[derive(Debug, Default)]
pub(super) struct Aliases {
    /// Each view's root: the value whose buffer it views, itself no view.
    roots: BTreeMap<ValueId, ValueId>,
    /// Each root's views, in the order they were made.
    views: BTreeMap<ValueId, Vec<ValueId>>,
}

impl Aliases {
    /// The value whose buffer `value` views (itself when it views none).
    pub(super) fn root_of(&self, value: ValueId) -> ValueId {
        self.roots.get(&value).copied().unwrap_or(value)
    }

    /// Records `view` as a view of `source`'s buffer (of its root's, when `source` is a view).
    pub(super) fn insert(&mut self, view: ValueId, source: ValueId) {
        let root = self.root_of(source);
        self.roots.insert(view, root);
        self.views.entry(root).or_default().push(view);
    }

    /// The views of `root`'s buffer.
    pub(super) fn views_of(&self, root: ValueId) -> &[ValueId] {
        self.views.get(&root).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether some view points into `root`'s buffer.
    pub(super) fn is_viewed(&self, root: ValueId) -> bool {
        self.views.contains_key(&root)
    }
}
