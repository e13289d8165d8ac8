//! The compiler's view of a `graph` function: its ops with their operands, result types and
//! attributes, read once through typed C-API accessors, each with a handle back to its op, and
//! the data flow between them as a petgraph graph.
//!
//! This is the compiler's own reader. The reference interpreter reads IR with another one, so
//! that a misreading cannot fool both sides of a `--check` (DESIGN.md §8). Attributes are read by
//! kind (integer, float, dense array, the dialect's enumerations through
//! `turbine_dialects::attributes`); an attribute of any other kind is [`Attr::Other`], never
//! guessed from its printed form. Defaults are the dialect's: ODS fills every `DefaultValuedAttr`
//! when an op is created or parsed, so an absent default-valued attribute is a reader bug, not a
//! case to handle.

mod attributes;
mod epilogue;
mod reader;

pub use attributes::{Attr, Constant};

use crate::ir::{Op, Val};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;

/// Identifies an SSA value within a [`FunctionView`].
pub type ValueId = usize;

/// The element types the compiler distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// 32-bit float.
    F32,
    /// 64-bit signless integer.
    I64,
    /// 32-bit signless integer.
    I32,
    /// `i1`.
    Bool,
    /// Any other element type (the passes that meet it say it is unsupported).
    Other,
}

impl ElementType {
    /// The kind of an MLIR element type.
    pub fn of(element: mlir_sys::MlirType) -> Self {
        // SAFETY: the type is alive with its context.
        unsafe { reader::element_type(element) }
    }

    /// Bytes of one element (`Other` counts as 4, the footprint model's default word).
    pub fn bytes(self) -> usize {
        match self {
            ElementType::F32 | ElementType::I32 | ElementType::Other => 4,
            ElementType::I64 => 8,
            ElementType::Bool => 1,
        }
    }
}

/// Shape and element type of a statically shaped tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorType {
    /// Dimension sizes.
    pub shape: Vec<usize>,
    /// Element type.
    pub element_type: ElementType,
}

impl TensorType {
    /// The type of `value`, None when it is not a statically shaped tensor.
    pub fn of(value: Val) -> Option<Self> {
        reader::static_tensor_type(value.r#type())
    }

    /// Bytes of the tensor (a scalar counts one element).
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>().max(1) * self.element_type.bytes()
    }
}

/// One op of the function.
#[derive(Debug, Clone)]
pub struct Node {
    /// The op itself (alive while the function is not rewritten).
    pub op: Op,
    /// Op name, such as `graph.conv2d`.
    pub name: String,
    /// Operand values.
    pub operands: Vec<ValueId>,
    /// Result values with their types.
    pub results: Vec<(ValueId, TensorType)>,
    /// Attributes by name, inherent and discardable.
    pub attributes: BTreeMap<String, Attr>,
    /// Whether the op has regions (control flow; no pass lowers it yet).
    pub has_regions: bool,
    /// Whether the op has the graph dialect's `Elementwise` trait.
    pub elementwise: bool,
}

impl Node {
    /// Whether the op ends the body: a function's `func.return`, or the `instance.yield` of a
    /// region read with [`FunctionView::read_body`].
    pub fn is_terminator(&self) -> bool {
        matches!(self.name.as_str(), "func.return" | "instance.yield")
    }
}

/// A graph function read for compilation.
#[derive(Debug, Clone)]
pub struct FunctionView {
    /// The function's symbol name.
    pub name: String,
    /// The function's arguments with their types.
    pub arguments: Vec<(ValueId, TensorType)>,
    /// The body's ops in block order (a topological order), `func.return` last.
    pub ops: Vec<Node>,
    /// Number of distinct values.
    pub value_count: usize,
    /// Data flow: a node per op (weight: its index in `ops`), an edge per operand read from
    /// another op's result (weight: the value).
    pub graph: DiGraph<usize, ValueId>,
    producer: BTreeMap<ValueId, usize>,
    readers: BTreeMap<ValueId, Vec<usize>>,
    types: BTreeMap<ValueId, TensorType>,
}

/// Why a function cannot be viewed: a value whose type is not a statically shaped tensor.
#[derive(Debug, Clone)]
pub struct ViewError {
    /// The op (None: the function's arguments).
    pub op: Option<Op>,
    /// What is wrong.
    pub message: String,
}

impl FunctionView {
    /// Reads `function` (a `func.func` with a body).
    pub fn read(function: Op) -> Result<Self, ViewError> {
        reader::read(function, function.symbol_name())
    }

    /// The view of `clone`, a clone of the function this view read (`mlirOperationClone` keeps
    /// its ops in order): the same graph with handles to the clone's ops, without reading it.
    pub fn of_clone(&self, clone: Op) -> Self {
        let ops = clone.body_ops();
        assert_eq!(ops.len(), self.ops.len(), "a clone has the function's ops");
        let mut view = self.clone();
        for (node, op) in view.ops.iter_mut().zip(ops) {
            node.op = op;
        }
        view
    }

    /// Reads the body of a region op such as `instance.group` (block arguments are the
    /// arguments, the terminator is the last op), called `name`.
    pub fn read_body(op: Op, name: String) -> Result<Self, ViewError> {
        reader::read(op, name)
    }

    fn index(name: String, arguments: Vec<(ValueId, TensorType)>, ops: Vec<Node>, value_count: usize) -> Self {
        let mut graph = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..ops.len()).map(|index| graph.add_node(index)).collect();
        let mut producer = BTreeMap::new();
        let mut types = BTreeMap::new();
        for (value, r#type) in &arguments {
            types.insert(*value, r#type.clone());
        }
        for (index, node) in ops.iter().enumerate() {
            for (value, r#type) in &node.results {
                producer.insert(*value, index);
                types.insert(*value, r#type.clone());
            }
        }
        let mut readers: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
        for (index, node) in ops.iter().enumerate() {
            for &operand in &node.operands {
                let list = readers.entry(operand).or_default();
                if list.last() != Some(&index) {
                    list.push(index);
                }
                if let Some(&from) = producer.get(&operand) {
                    graph.add_edge(nodes[from], nodes[index], operand);
                }
            }
        }
        Self { name, arguments, ops, value_count, graph, producer, readers, types }
    }

    /// The op index that defines `value`, None for a function argument.
    pub fn producer(&self, value: ValueId) -> Option<usize> {
        self.producer.get(&value).copied()
    }

    /// The ops reading `value` (each once, in block order), the terminator included.
    pub fn readers(&self, value: ValueId) -> &[usize] {
        self.readers.get(&value).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The type of `value`.
    pub fn type_of(&self, value: ValueId) -> &TensorType {
        &self.types[&value]
    }

    /// The values the function returns (the terminator's operands).
    pub fn returned(&self) -> &[ValueId] {
        match self.ops.last() {
            Some(node) if node.is_terminator() => &node.operands,
            _ => &[],
        }
    }

    /// The node of op `index` in [`FunctionView::graph`] (nodes are added in op order).
    pub fn node_index(index: usize) -> NodeIndex {
        NodeIndex::new(index)
    }
}
