//! A function's ops with their operands, result types and attributes, and the data flow between
//! them as a petgraph graph.

use super::attributes::{Attr, Constant};
use super::types::{TensorType, ValueId};
use crate::ir::Op;
use mlir_sys::*;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::BTreeMap;
use turbine_dialects::attributes::graph::{
    Activation, ComparePredicate, PadMode, ScatterReduction,
};
use turbine_dialects::ops::{graph, instance, upstream, OpKind};

/// One op of the function.
#[derive(Debug, Clone)]
pub struct Node {
    /// The op itself (alive while the function is not rewritten).
    pub op: Op,
    /// Op name, such as `graph.conv2d`, for messages.
    pub name: String,
    /// The op's kind; `None` for an op of a dialect Turbine does not know.
    pub kind: Option<OpKind>,
    /// Operand values.
    pub operands: Vec<ValueId>,
    /// Result values with their types.
    pub results: Vec<(ValueId, TensorType)>,
    /// Attributes by name, inherent and discardable.
    pub attributes: BTreeMap<String, Attr>,
    /// Whether the op has regions (control flow).
    pub has_regions: bool,
    /// The values the op's regions use that are defined outside it, in the order of first use:
    /// read by the op as much as its operands are.
    pub captures: Vec<ValueId>,
    /// Whether the op has the graph dialect's `Elementwise` trait.
    pub elementwise: bool,
}

impl Node {
    /// Whether the op ends the body: a function's `func.return`, or the `instance.yield` of a
    /// region read with [`FunctionView::read_body`].
    pub fn is_terminator(&self) -> bool {
        self.is(upstream::Kind::FuncReturn) || self.is(instance::Kind::Yield)
    }

    /// Whether the op is control flow: a branch or loop (an op with regions), or a call.
    pub fn holds_control_flow(&self) -> bool {
        self.has_regions || self.is(upstream::Kind::FuncCall)
    }

    /// Whether the op is of kind `kind`.
    pub fn is(&self, kind: impl Into<OpKind>) -> bool {
        self.kind == Some(kind.into())
    }

    /// The op's kind if it is a graph op.
    pub fn graph_kind(&self) -> Option<graph::Kind> {
        self.kind.and_then(OpKind::graph)
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

    pub(super) fn index(
        name: String,
        arguments: Vec<(ValueId, TensorType)>,
        ops: Vec<Node>,
        value_count: usize,
    ) -> Self {
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
            for &operand in node.operands.iter().chain(&node.captures) {
                let list = readers.entry(operand).or_default();
                if list.last() != Some(&index) {
                    list.push(index);
                }
                if let Some(&from) = producer.get(&operand) {
                    graph.add_edge(nodes[from], nodes[index], operand);
                }
            }
        }
        Self {
            name,
            arguments,
            ops,
            value_count,
            graph,
            producer,
            readers,
            types,
        }
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

impl Node {
    fn missing(&self, name: &str, kind: &str) -> ! {
        panic!(
            "'{}' has no {kind} attribute '{name}' (the dialect requires it or gives it a default)",
            self.name
        )
    }

    /// The `array<i64: ...>` attribute `name`, None when the op does not carry it.
    pub fn ints_opt(&self, name: &str) -> Option<&[i64]> {
        match self.attributes.get(name) {
            Some(Attr::Ints(values)) => Some(values),
            _ => None,
        }
    }

    /// The `array<i64: ...>` attribute `name`, required or default-valued in ODS.
    pub fn ints(&self, name: &str) -> &[i64] {
        self.ints_opt(name)
            .unwrap_or_else(|| self.missing(name, "i64 array"))
    }

    /// The integer attribute `name`, None when absent.
    pub fn int_opt(&self, name: &str) -> Option<i64> {
        match self.attributes.get(name) {
            Some(Attr::Int(value)) => Some(*value),
            _ => None,
        }
    }

    /// The integer attribute `name`, required or default-valued in ODS.
    pub fn int(&self, name: &str) -> i64 {
        self.int_opt(name)
            .unwrap_or_else(|| self.missing(name, "integer"))
    }

    /// The float attribute `name`, None when absent.
    pub fn float_opt(&self, name: &str) -> Option<f32> {
        match self.attributes.get(name) {
            Some(Attr::Float(value)) => Some(*value as f32),
            _ => None,
        }
    }

    /// The float attribute `name`, required or default-valued in ODS.
    pub fn float(&self, name: &str) -> f32 {
        self.float_opt(name)
            .unwrap_or_else(|| self.missing(name, "float"))
    }

    /// The boolean attribute `name` (a unit or optional flag that is absent reads as false).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.attributes.get(name), Some(Attr::Bool(true)))
    }

    /// The string attribute `name`, None when absent.
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.attributes.get(name) {
            Some(Attr::Str(value)) => Some(value),
            _ => None,
        }
    }

    /// The fused activation of a convolution, if any.
    pub fn activation(&self) -> Option<Activation> {
        match self.attributes.get("activation") {
            Some(Attr::Activation(activation)) => Some(*activation),
            _ => None,
        }
    }

    /// The predicate of `graph.compare`.
    pub fn compare_predicate(&self) -> ComparePredicate {
        match self.attributes.get("predicate") {
            Some(Attr::ComparePredicate(predicate)) => *predicate,
            _ => self.missing("predicate", "comparison predicate"),
        }
    }

    /// How `graph.scatter_elements` combines an update with the element it lands on (`none`
    /// when the attribute is absent, its default).
    pub fn scatter_reduction(&self) -> ScatterReduction {
        match self.attributes.get("reduction") {
            Some(Attr::ScatterReduction(reduction)) => *reduction,
            None => ScatterReduction::None,
            _ => self.missing("reduction", "scatter reduction"),
        }
    }

    /// The fill mode of `graph.pad`.
    pub fn pad_mode(&self) -> PadMode {
        match self.attributes.get("mode") {
            Some(Attr::PadMode(mode)) => *mode,
            _ => self.missing("mode", "pad mode"),
        }
    }

    /// The payload of `graph.constant`.
    pub fn constant(&self) -> Option<Constant> {
        match self.attributes.get("value") {
            Some(Attr::Dense(constant)) => Some(*constant),
            _ => None,
        }
    }

    /// The line of the op's location when it is a file location (for explanations).
    pub fn line(&self) -> Option<u32> {
        // SAFETY: the op is alive (see the module doc of crate::ir).
        unsafe {
            let location = self.op.location();
            mlirLocationIsAFileLineColRange(location)
                .then(|| mlirLocationFileLineColRangeGetStartLine(location) as u32)
        }
    }
}
