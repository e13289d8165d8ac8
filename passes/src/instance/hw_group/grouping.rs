//! The state of Algorithm 2 on one function: its subgraphs (groups of ops), and the data flow
//! between groups that the merge patterns ask about ([`GroupGraph`]).

use super::group_graph::{GroupGraph, GroupNode};
use crate::{
    graph_view::{uniform_float, FunctionView, Node, TensorType, ValueId},
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
    /// Per value (by id): its type, whether it is a weight or constant, the op making it (none
    /// for the function's arguments), the ops other than the terminator reading it, and
    /// whether the function returns it.
    types: Vec<Option<&'p TensorType>>,
    weights: Vec<bool>,
    producer: Vec<Option<usize>>,
    readers: Vec<Vec<usize>>,
    returned: Vec<bool>,
    /// The groups, by their first op.
    pub(super) groups: BTreeMap<usize, Group>,
    /// The data flow between the groups, contracted with every merge.
    pub(super) graph: GroupGraph,
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
        let values = program.value_count;
        let mut types = vec![None; values];
        let mut weights = vec![false; values];
        let mut producer = vec![None; values];
        for (value, r#type) in &program.arguments {
            types[*value] = Some(r#type);
        }
        for (index, node) in program.ops.iter().enumerate() {
            let weight = matches!(
                node.graph_kind(),
                Some(graph::Kind::Weight | graph::Kind::Constant)
            );
            for (value, r#type) in &node.results {
                types[*value] = Some(r#type);
                producer[*value] = Some(index);
                weights[*value] = weight;
            }
        }
        let mut returned = vec![false; values];
        for &value in program
            .ops
            .last()
            .into_iter()
            .flat_map(|node| &node.operands)
        {
            returned[value] = true;
        }
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); values];
        for (index, node) in program.ops.iter().enumerate() {
            if node.is_terminator() {
                continue;
            }
            for &operand in &node.operands {
                let list = &mut readers[operand];
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
            groups: BTreeMap::new(),
            // Built from the layers, once they are groups.
            graph: GroupGraph::default(),
            refused: BTreeSet::new(),
        };
        let owner = grouping.add_layers();
        let nodes = grouping
            .groups
            .iter()
            .map(|(&group, members)| {
                let (consumers, returned) = grouping.readers_of(group, &owner);
                GroupNode {
                    group,
                    consumers,
                    reads_arguments: grouping.reads_arguments(group),
                    returned,
                    root: members
                        .ops
                        .iter()
                        .copied()
                        .find(|&op| grouping.is_root(op))
                        .unwrap_or(usize::MAX),
                }
            })
            .collect();
        grouping.graph = GroupGraph::new(nodes);
        grouping
    }

    /// Algorithm 2, lines 1-4: every layer is a subgraph, in topological order. A layer is an op
    /// with the elementwise ops that only refine its result (GraphTurbo §2.1: at most one op with
    /// learned parameters, its auxiliary ops after it), the fusion every compiler starts from.
    /// Returns which layer (named by its first op) each op is in.
    fn add_layers(&mut self) -> BTreeMap<usize, usize> {
        let program = self.program;
        let mut owner = BTreeMap::new();
        for (index, node) in program.ops.iter().enumerate() {
            if matches!(
                node.graph_kind(),
                Some(graph::Kind::Weight | graph::Kind::Constant)
            ) || node.is_terminator()
                || owner.contains_key(&index)
            {
                continue;
            }
            let mut ops = vec![index];
            let mut last = index;
            while let Some(next) = self.auxiliary_after(last) {
                ops.push(next);
                last = next;
            }
            for &op in &ops {
                owner.insert(op, index);
            }
            let group = self.analysed(ops);
            self.groups.insert(index, group);
        }
        owner
    }

    /// The auxiliary op after op `index`: the elementwise epilogue of its single result
    /// ([`FunctionView::epilogue_reader`]) whose other operands are weights (bias, scale) — a
    /// merge of two activations, such as a residual add, is a layer of its own.
    fn auxiliary_after(&self, index: usize) -> Option<usize> {
        let [(value, _)] = self.node(index).results.as_slice() else {
            return None;
        };
        self.program
            .epilogue_reader(*value, |operand| self.weights[operand])
            .filter(|&reader| !self.typed(index) && !self.typed(reader))
    }

    /// Whether op `index` reads or makes a tensor that is not a float, or floats of two types
    /// (a gather's indices, a cast): such an op is a subgraph of its own with no split (an
    /// empty SplitInfo), so that no merge takes it (no split of a merge fits) and it stays one
    /// instance, whose kernel keeps its tensors out of the arenas of GraphTurbo's kernels,
    /// which hold one float type.
    fn typed(&self, index: usize) -> bool {
        let node = self.node(index);
        let operands = node.operands.iter().map(|&value| self.types[value]);
        let results = node.results.iter().map(|(_, r#type)| Some(r#type));
        let elements = operands
            .chain(results)
            .flatten()
            .map(|r#type| r#type.element_type);
        uniform_float(elements).is_none()
    }

    pub(super) fn node(&self, index: usize) -> &'p Node {
        &self.program.ops[index]
    }

    /// Algorithm 1 and Eq. 1 for the ops `ops`.
    pub(super) fn analysed(&self, mut ops: Vec<usize>) -> Group {
        ops.sort_unstable();
        if ops.iter().any(|&index| self.typed(index)) {
            return Group {
                ops,
                info: Vec::new(),
                best: None,
            };
        }
        let info = {
            let weights = |value: ValueId| self.weights[value];
            let escapes = |value: ValueId| self.escapes(&ops, value);
            let types = |value: ValueId| self.types[value];
            let nodes = ops.iter().map(|&index| self.node(index)).collect();
            Subgraph::new(nodes, &weights, &escapes, &types).split_info(&self.budget)
        };
        let best = best_split(&info);
        Group { ops, info, best }
    }

    /// Algorithm 1 and Eq. 1 for the union of the groups `members` (by their first ops).
    pub(super) fn analysed_union(&self, members: &[usize]) -> Group {
        let ops = members
            .iter()
            .flat_map(|group| self.groups[group].ops.iter().copied())
            .collect();
        self.analysed(ops)
    }

    /// Whether `value` (made by one of `members`, ascending) is read outside them or returned.
    fn escapes(&self, members: &[usize], value: ValueId) -> bool {
        self.returned[value]
            || self.readers[value]
                .iter()
                .any(|reader| members.binary_search(reader).is_err())
    }

    /// The groups whose results `group` reads (and whether it also reads function arguments).
    pub(super) fn producers(&self, group: usize) -> (BTreeSet<usize>, bool) {
        (
            self.graph.producers(group).collect(),
            self.graph.reads_arguments(group),
        )
    }

    /// The groups that read `group`'s results (and whether the function returns one of them).
    pub(super) fn consumers(&self, group: usize) -> (BTreeSet<usize>, bool) {
        (
            self.graph.consumers(group).collect(),
            self.graph.returned(group),
        )
    }

    /// Whether an op of `group` reads a function argument.
    pub(super) fn reads_arguments(&self, group: usize) -> bool {
        self.groups[&group].ops.iter().any(|&index| {
            self.node(index)
                .operands
                .iter()
                .any(|&operand| self.producer[operand].is_none())
        })
    }

    /// Whether op `index` is a root: it reads no result of a grouped op, each of its operands
    /// being a weight (or constant) or a function argument.
    pub(super) fn is_root(&self, index: usize) -> bool {
        self.node(index)
            .operands
            .iter()
            .all(|&operand| self.weights[operand] || self.producer[operand].is_none())
    }

    /// The groups that read the results of `group`'s ops, `owner` naming the group of each op
    /// (and whether the function returns one of the results).
    pub(super) fn readers_of(
        &self,
        group: usize,
        owner: &BTreeMap<usize, usize>,
    ) -> (BTreeSet<usize>, bool) {
        let members = &self.groups[&group].ops;
        let mut consumers = BTreeSet::new();
        let mut returned = false;
        for &index in members {
            for (value, _) in &self.node(index).results {
                returned |= self.returned[*value];
                for reader in &self.readers[*value] {
                    if let Some(&reader_group) = owner.get(reader) {
                        if reader_group != group {
                            consumers.insert(reader_group);
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
        self.groups.insert(key, merged);
        self.graph.contract(members);
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
