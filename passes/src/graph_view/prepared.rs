//! What a function computes from its weights and constants alone, and which of it is worth
//! computing once, when the model is loaded (`graph-prepare-weights`, MetaFlow §3): the one
//! definition the pass and the substitution's cost model share.

use super::function::FunctionView;
use super::types::ValueId;
use turbine_dialects::ops::graph;

/// The weight-only computation of a function.
#[derive(Debug, Clone, Default)]
pub struct Prepared {
    /// Per op, whether it computes what is prepared: it reads weights, constants and values
    /// computed from them alone, and a prepared value depends on it.
    pub ops: Vec<bool>,
    /// The values prepared, in op order: computed from weights and constants alone by more than
    /// views, and read by an op that is not prepared (or returned).
    pub values: Vec<ValueId>,
}

impl Prepared {
    /// Whether nothing is prepared.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Ops that only view their operand: a reshape, a flatten or a broadcast reads a weight in place
/// (a broadcast prepared would store a larger weight).
fn is_view(kind: graph::Kind) -> bool {
    matches!(
        kind,
        graph::Kind::Reshape | graph::Kind::Flatten | graph::Kind::Broadcast
    )
}

impl FunctionView {
    /// The function's weight-only computation worth preparing at load time: what top-level
    /// graph ops compute from `graph.weight`s and `graph.constant`s alone (transitively) and
    /// other ops read, but for values computed by views alone.
    pub fn prepared(&self) -> Prepared {
        let count = self.ops.len();
        // Per op: reads weights and constants alone; and computes more than views of them.
        let mut fixed = vec![false; count];
        let mut computes = vec![false; count];
        let mut candidate = vec![false; count];
        for (index, node) in self.ops.iter().enumerate() {
            let Some(kind) = node.graph_kind() else {
                continue;
            };
            if matches!(kind, graph::Kind::Weight | graph::Kind::Constant) {
                fixed[index] = true;
                continue;
            }
            let producers: Option<Vec<usize>> = node
                .operands
                .iter()
                .map(|&value| self.producer(value).filter(|&p| fixed[p]))
                .collect();
            let Some(producers) = producers else {
                continue;
            };
            if producers.is_empty() || node.has_regions {
                continue;
            }
            fixed[index] = true;
            candidate[index] = true;
            computes[index] = !is_view(kind) || producers.iter().any(|&p| computes[p]);
        }
        let values: Vec<ValueId> = (0..count)
            .filter(|&index| candidate[index] && computes[index])
            .flat_map(|index| self.ops[index].results.iter().map(|(value, _)| *value))
            .filter(|&value| self.readers(value).iter().any(|&reader| !candidate[reader]))
            .collect();
        let mut ops = vec![false; count];
        let mut wanted: Vec<ValueId> = values.clone();
        while let Some(value) = wanted.pop() {
            let Some(index) = self.producer(value).filter(|&p| candidate[p] && !ops[p]) else {
                continue;
            };
            ops[index] = true;
            wanted.extend(&self.ops[index].operands);
        }
        Prepared { ops, values }
    }
}
