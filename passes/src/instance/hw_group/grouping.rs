//! The state of Algorithm 2 on one function: its subgraphs (groups of ops), which op belongs to
//! which, and the data flow between groups that the merge patterns ask about.

use crate::{
    graph_view::{FunctionView, Node, TensorType, ValueId},
    instance::split_info::{best_split, Budget, Split, Subgraph},
};
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// A subgraph under construction: its ops (indices into the function body, ascending, which is
/// a topological order) and its SplitInfo.
#[derive(Debug, Clone)]
pub(super) struct Group {
    /// Op indices, ascending.
    pub(super) ops: Vec<usize>,
    /// SplitInfo (Algorithm 1).
    pub(super) info: Vec<Split>,
    /// Eq. 1.
    pub(super) best: Option<Split>,
}

/// Algorithm 2's state: the subgraphs of one function and what their ops read and feed.
pub(super) struct Grouping<'p> {
    pub(super) program: &'p FunctionView,
    budget: Budget,
    /// Whether rule (ii) bounds a diamond merge's factor by its parts' (§3.2: to keep the LB
    /// well used, which is what the factor measures when instances are sized for the LB).
    pub(super) diamond_factor_rule: bool,
    /// Whether to emit a remark for every merge attempt.
    pub(super) explain: bool,
    types: BTreeMap<ValueId, &'p TensorType>,
    weights: BTreeSet<ValueId>,
    producer: BTreeMap<ValueId, usize>,
    /// The ops (other than the terminator) reading each value.
    readers: BTreeMap<ValueId, Vec<usize>>,
    returned: BTreeSet<ValueId>,
    /// Which group each op belongs to.
    owner: BTreeMap<usize, usize>,
    /// The groups, by their first op.
    pub(super) groups: BTreeMap<usize, Group>,
    /// Merge attempts already refused, by the groups involved; see [`Grouping::attempt`].
    pub(super) refused: BTreeSet<Vec<(usize, usize)>>,
}

/// A factor for the rules: a group that cannot be split to fit has none (infinitely large).
pub(super) fn factor(best: Option<Split>) -> usize {
    best.map_or(usize::MAX, |split| split.factor)
}

impl<'p> Grouping<'p> {
    /// Every layer of `program` as a subgraph of its own (Algorithm 2, lines 1-4).
    pub(super) fn new(
        program: &'p FunctionView,
        budget: Budget,
        diamond_factor_rule: bool,
        explain: bool,
    ) -> Self {
        let mut types = BTreeMap::new();
        let mut weights = BTreeSet::new();
        let mut producer = BTreeMap::new();
        for (value, r#type) in &program.arguments {
            types.insert(*value, r#type);
        }
        for (index, node) in program.ops.iter().enumerate() {
            for (value, r#type) in &node.results {
                types.insert(*value, r#type);
                producer.insert(*value, index);
                if matches!(
                    node.graph_kind(),
                    Some(graph::Kind::Weight | graph::Kind::Constant)
                ) {
                    weights.insert(*value);
                }
            }
        }
        let returned = program
            .ops
            .last()
            .map(|node| node.operands.iter().copied().collect())
            .unwrap_or_default();
        let mut readers: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
        for (index, node) in program.ops.iter().enumerate() {
            if node.is_terminator() {
                continue;
            }
            for &operand in &node.operands {
                let list = readers.entry(operand).or_default();
                if list.last() != Some(&index) {
                    list.push(index);
                }
            }
        }
        let mut grouping = Self {
            program,
            budget,
            diamond_factor_rule,
            explain,
            types,
            weights,
            producer,
            readers,
            returned,
            owner: BTreeMap::new(),
            groups: BTreeMap::new(),
            refused: BTreeSet::new(),
        };
        // Algorithm 2, lines 1-4: every layer is a subgraph, in topological order. A layer is an
        // op with the elementwise ops that only refine its result (GraphTurbo §2.1: at most one
        // op with learned parameters, its auxiliary ops after it), the fusion every compiler
        // starts from.
        let mut layer_of: BTreeMap<usize, usize> = BTreeMap::new();
        for (index, node) in program.ops.iter().enumerate() {
            if matches!(
                node.graph_kind(),
                Some(graph::Kind::Weight | graph::Kind::Constant)
            ) || node.is_terminator()
                || layer_of.contains_key(&index)
            {
                continue;
            }
            let mut ops = vec![index];
            let mut last = index;
            while let Some(next) = grouping.auxiliary_after(last) {
                ops.push(next);
                layer_of.insert(next, index);
                last = next;
            }
            for &op in &ops {
                grouping.owner.insert(op, index);
            }
            let group = grouping.analysed(ops);
            grouping.groups.insert(index, group);
        }
        grouping
    }

    /// The auxiliary op after op `index`: the elementwise epilogue of its single result
    /// ([`FunctionView::epilogue_reader`]) whose other operands are weights (bias, scale) — a
    /// merge of two activations, such as a residual add, is a layer of its own.
    fn auxiliary_after(&self, index: usize) -> Option<usize> {
        let [(value, _)] = self.node(index).results.as_slice() else {
            return None;
        };
        self.program
            .epilogue_reader(*value, |operand| self.weights.contains(&operand))
    }

    pub(super) fn node(&self, index: usize) -> &'p Node {
        &self.program.ops[index]
    }

    /// Algorithm 1 and Eq. 1 for the ops `ops`.
    pub(super) fn analysed(&self, mut ops: Vec<usize>) -> Group {
        ops.sort_unstable();
        let members: BTreeSet<usize> = ops.iter().copied().collect();
        let weights = |value: ValueId| self.weights.contains(&value);
        let escapes = |value: ValueId| self.escapes(&members, value);
        let types = |value: ValueId| self.types.get(&value).copied();
        let nodes = ops.iter().map(|&index| self.node(index)).collect();
        let subgraph = Subgraph::new(nodes, &weights, &escapes, &types);
        let info = subgraph.split_info(&self.budget);
        let best = best_split(&info);
        Group { ops, info, best }
    }

    /// Whether `value` (made by one of `members`) is read outside them or returned.
    fn escapes(&self, members: &BTreeSet<usize>, value: ValueId) -> bool {
        self.returned.contains(&value)
            || self
                .readers
                .get(&value)
                .is_some_and(|readers| readers.iter().any(|reader| !members.contains(reader)))
    }

    /// The groups whose results `group` reads (and whether it also reads function arguments).
    pub(super) fn producers(&self, group: usize) -> (BTreeSet<usize>, bool) {
        let mut producers = BTreeSet::new();
        let mut reads_arguments = false;
        for &index in &self.groups[&group].ops {
            for operand in &self.node(index).operands {
                match self.producer.get(operand) {
                    Some(_) if self.weights.contains(operand) => {}
                    Some(op) => {
                        let owner = self.owner[op];
                        if owner != group {
                            producers.insert(owner);
                        }
                    }
                    None => reads_arguments = true,
                }
            }
        }
        (producers, reads_arguments)
    }

    /// The groups that read `group`'s results (and whether the function returns one of them).
    pub(super) fn consumers(&self, group: usize) -> (BTreeSet<usize>, bool) {
        let members = &self.groups[&group].ops;
        let mut consumers = BTreeSet::new();
        let mut returned = false;
        for &index in members {
            for (value, _) in &self.node(index).results {
                returned |= self.returned.contains(value);
                for reader in self.readers.get(value).into_iter().flatten() {
                    if let Some(&owner) = self.owner.get(reader) {
                        if owner != group {
                            consumers.insert(owner);
                        }
                    }
                }
            }
        }
        (consumers, returned)
    }

    /// The spatial size of `group`'s output (the product of the dimensions after batch and
    /// channels, for NCHW-like tensors): what up- and downsampling change. Channel expansion
    /// (a bottleneck's last 1x1 conv) is neither.
    pub(super) fn spatial_extent(&self, group: usize) -> usize {
        let last = *self.groups[&group].ops.last().expect("groups have ops");
        self.node(last).results.first().map_or(0, |(_, r#type)| {
            let shape = &r#type.shape;
            if shape.len() >= 3 {
                shape[2..].iter().product()
            } else {
                shape.iter().product()
            }
        })
    }

    /// Replaces the groups `members` by one group made of all their ops.
    pub(super) fn merge(&mut self, members: &[usize], merged: Group) {
        let key = *merged.ops.first().expect("a merged group has ops");
        for member in members {
            self.groups.remove(member);
        }
        for &op in &merged.ops {
            self.owner.insert(op, key);
        }
        self.groups.insert(key, merged);
    }

    /// The identity of a merge attempt: its rule and its groups (in the rule's order). A group is
    /// named by its first op and its size: groups only grow, so the pair names one set of ops.
    /// The verdict depends on nothing else, so a refused attempt is not tried (or explained)
    /// again when a later round of Algorithm 2 meets the same groups.
    pub(super) fn attempt(&self, rule: usize, groups: &[usize]) -> Vec<(usize, usize)> {
        std::iter::once((rule, 0))
            .chain(groups.iter().map(|g| (*g, self.groups[g].ops.len())))
            .collect()
    }

    /// Algorithm 2, lines 5-15.
    pub(super) fn run(mut self) -> Vec<Group> {
        loop {
            let straight = self.straight_merge();
            let diamond = self.diamond_merge();
            let branch = self.branch_merge();
            if !(straight || diamond || branch || self.fork_merge()) {
                break;
            }
        }
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        groups.sort_by_key(|group| group.ops[0]);
        groups
    }
}
