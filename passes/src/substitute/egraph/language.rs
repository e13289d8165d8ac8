//! The e-graph's language: e-nodes ([`Term`]) over interned keys of graph ops, and the analysis
//! that keeps each e-class's type and location ([`Graph`]).

use crate::graph_view::ElementType;
use crate::substitute::rewrite::shape_of_type;
use egg::{Analysis, DidMerge, EGraph, Id, Language};
use mlir_sys::*;
use std::collections::HashMap;

/// An e-node: what it computes (an interned [`Key`]) and its operands' e-classes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Term {
    pub(super) key: u32,
    pub(super) children: Vec<Id>,
}

impl Language for Term {
    type Discriminant = (u32, usize);

    fn discriminant(&self) -> Self::Discriminant {
        (self.key, self.children.len())
    }

    fn matches(&self, other: &Self) -> bool {
        self.key == other.key && self.children.len() == other.children.len()
    }

    fn children(&self) -> &[Id] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.children
    }
}

/// What an e-node computes. Attributes and types are uniqued by MLIR, so their handles identify
/// their values.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Key {
    /// Argument `index` of the function.
    Argument(usize),
    /// An op: its name, attributes and result types.
    Op {
        name: String,
        attributes: Vec<(String, usize)>,
        results: Vec<usize>,
    },
    /// Result `index` of the multi-result op of the only child (whose e-class is the op's).
    Result(usize),
}

/// The e-graph's analysis: the interned keys, and per e-class its value's type and a location.
#[derive(Debug, Default)]
pub struct Graph {
    pub(super) keys: Vec<Key>,
    pub(super) index: HashMap<Key, u32>,
    pub(super) arguments: Vec<usize>,
}

/// What an e-class knows of itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClassData {
    /// Its value's type; None for a multi-result op.
    pub(super) r#type: Option<usize>,
    /// The location of a model op it came from.
    pub(super) location: Option<usize>,
}

impl Graph {
    pub(super) fn intern(&mut self, key: Key) -> u32 {
        if let Some(&index) = self.index.get(&key) {
            return index;
        }
        let index = self.keys.len() as u32;
        self.keys.push(key.clone());
        self.index.insert(key, index);
        index
    }
}

impl Analysis<Term> for Graph {
    type Data = ClassData;

    fn make(egraph: &mut EGraph<Term, Self>, enode: &Term) -> ClassData {
        let r#type = match &egraph.analysis.keys[enode.key as usize] {
            Key::Argument(index) => Some(egraph.analysis.arguments[*index]),
            Key::Op { results, .. } => (results.len() == 1).then(|| results[0]),
            Key::Result(index) => {
                let op = egraph[enode.children[0]].nodes[0].key;
                match &egraph.analysis.keys[op as usize] {
                    Key::Op { results, .. } => results.get(*index).copied(),
                    _ => None,
                }
            }
        };
        ClassData {
            r#type,
            location: None,
        }
    }

    fn merge(&mut self, to: &mut ClassData, from: ClassData) -> DidMerge {
        let before = (to.r#type, to.location);
        to.r#type = to.r#type.or(from.r#type);
        to.location = to.location.or(from.location);
        DidMerge(
            (to.r#type, to.location) != before,
            (to.r#type, to.location) != (from.r#type, from.location),
        )
    }
}

/// The shape and element type of e-class `id`'s value.
pub(super) fn tensor_type(
    egraph: &EGraph<Term, Graph>,
    id: Id,
) -> Option<(Vec<usize>, ElementType)> {
    let r#type = type_handle(egraph[id].data.r#type?);
    let shape = shape_of_type(r#type)
        .into_iter()
        .map(|d| usize::try_from(d).ok())
        .collect::<Option<Vec<_>>>()?;
    // SAFETY: graph values are ranked tensors.
    Some((
        shape,
        ElementType::of(unsafe { mlirShapedTypeGetElementType(r#type) }),
    ))
}

/// The type a key or an e-class holds by its handle (types are uniqued: the handle is the value).
pub(super) fn type_handle(handle: usize) -> MlirType {
    MlirType {
        ptr: handle as *const _,
    }
}

/// The attribute a key holds by its handle (attributes are uniqued like types).
pub(super) fn attribute_handle(handle: usize) -> MlirAttribute {
    MlirAttribute {
        ptr: handle as *const _,
    }
}
