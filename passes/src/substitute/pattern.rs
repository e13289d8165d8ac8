//! A substitution rule as data: its wildcards, the source pattern it finds and the target that
//! replaces it, each a body of ops over the wildcards.

use super::expr::Condition;
use super::sizes::Item;
use crate::ir::Op;
use mlir_sys::*;
use turbine_dialects::ops::graph;

/// A value of a rule body: an argument of the function or a result of one of its ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternValue {
    /// Argument `index` of the function.
    Argument(usize),
    /// Result `result` of op `op` (an index into [`Body::ops`]).
    Result(usize, usize),
}

/// An op of a rule body.
#[derive(Debug, Clone)]
pub struct PatternOp {
    /// The op in the rule file (location, written result types and attributes).
    pub op: Op,
    /// Its kind, such as `graph.conv2d`.
    pub kind: graph::Kind,
    /// Its operands.
    pub operands: Vec<PatternValue>,
    /// Its result count.
    pub result_count: usize,
    /// Attributes as written: equal on a match (source), set as they are (target).
    pub written: Vec<(String, MlirAttribute)>,
    /// Attributes bound to names (`rule.bind`).
    pub bound: Vec<(String, String)>,
    /// Integer attributes computed from sizes (`rule.set`): built so on a target op, required
    /// of the matched op on a source op.
    pub computed: Vec<(String, Vec<Item>)>,
    /// Result shapes given by the rule (`rule.shape` / `rule.shapes`): built so on a target op,
    /// required of the matched op on a source op.
    pub shapes: Option<Vec<Vec<Item>>>,
}

/// A function of a rule: its ops in order and the values it returns.
#[derive(Debug, Clone)]
pub struct Body {
    /// The function in the rule file.
    pub function: Op,
    /// Its ops (the terminator excluded).
    pub ops: Vec<PatternOp>,
    /// The returned values.
    pub results: Vec<PatternValue>,
}

/// A wildcard of a rule: one argument of its functions.
#[derive(Debug, Clone)]
pub struct Argument {
    /// Its dimensions (names, fixed sizes and groups); None: any shape (`rule.dims = "*"`).
    pub dims: Option<Vec<Item>>,
    /// Its element type.
    pub element: MlirType,
}

/// One substitution rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule module's symbol name.
    pub name: String,
    /// What it does (`rule.summary`).
    pub summary: String,
    /// Whether it folds an op of the data into the weights of the op before it
    /// (`rule.weight_fold`): with the weights prepared at load time, it only removes an op from
    /// the inference, and `graph-substitute{weight-folds=true}` applies it wherever it matches.
    pub weight_fold: bool,
    /// The rule module (for diagnostics).
    pub module: Op,
    /// The wildcards.
    pub arguments: Vec<Argument>,
    /// Extra conditions on the bound sizes.
    pub conditions: Vec<Condition>,
    /// The pattern to find.
    pub source: Body,
    /// What replaces it.
    pub target: Body,
}

impl Rule {
    /// Where the rule is written (its module's location).
    pub fn location(&self) -> MlirLocation {
        self.module.location()
    }
}
