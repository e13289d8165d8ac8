//! `hw-group`: hardware-aware grouping of graph ops into `instance.group` regions
//! (GraphTurbo §3.2, Algorithm 2), each with its SplitInfo and best split (§3.1, Algorithm 1 and
//! Eq. 1; see [`super::split_info`]).
//!
//! Every op starts as its own subgraph, in topological order. Straight, diamond and branch merges
//! then repeat until none of them merges anything more. Rule (i) decides straight and branch
//! merges of `SG1 -> SG2`: SG2's split factor must be at least SG1's (a downsampling op's large
//! factor must not spread to what follows), and the merged subgraph's factor must not exceed
//! SG2's (grouping must not worsen SG2's use of the on-chip buffer). Rule (ii) decides a diamond:
//! the interior and the exit merge when the merged factor is at most the largest of theirs. A
//! merged subgraph whose every split would recompute too much (halos through stacked windows, ops
//! the split does not reach) has no SplitInfo and the merge is refused: that is the cost check
//! that keeps recomputation from cancelling the benefit of fusion (§3.1).

use super::split_info::{best_split, Budget, Split, Subgraph};
use crate::{
    graph_view::{FunctionView, Node, TensorType, ValueId},
    ir::Op,
    target::Machine,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use petgraph::{
    graphmap::DiGraphMap,
    visit::{Dfs, IntoNeighbors, Reversed, Visitable},
};
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct HwGroup {
    target: String,
    scope: Scope,
    weight_buffer: usize,
    max_recompute: f64,
    explain: bool,
}

/// The on-chip memory that holds one instance's live tensors while it runs, which sets the
/// capacity Algorithm 1 splits against. Either way an instance runs on the cores of one cluster
/// (§3.4 binds it across them with factors 8, 4, 2, 1) and the instances of a group run on the
/// clusters side by side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The cluster's global buffer; the kernel generator tiles each layer into the local
    /// buffers (§4.1) and weights are staged in the local buffers, outside this capacity.
    Global,
    /// The local buffers of the cluster's cores, less each core's weight staging buffer.
    Local,
}

impl Pass for HwGroup {
    const ARGUMENT: &'static str = "hw-group";
    const SUMMARY: &'static str = "Group graph ops into instance.group regions by SplitInfo (GraphTurbo Alg. 1-2)";
    const DESCRIPTION: &'static str = "\
Computes each op's SplitInfo (Algorithm 1: for each output dimension, the \
smallest factor among 1, 2, 4, 8 and the larger divisors for which one slice's peak footprint fits \
the memory an instance runs in — by default one cluster's global buffer, with `scope=lb` the local \
buffers of its cores — with the ops the split reaches) and best split (Eq. 1, \
lexmax(n_d, -f_d, -d)), then merges subgraphs by the straight, diamond and branch patterns of \
Algorithm 2 under rules (i) and (ii) until nothing merges, recomputing SplitInfo for each merged \
subgraph. Splits that would recompute more than `max-recompute` of the subgraph's work are not \
recorded. Each resulting subgraph becomes an `instance.group` region carrying `split_info` and \
`best_split`; weights are operands. With `explain`, every merge attempt is printed to stderr: the \
pattern, the subgraphs and their split factors, and the rule that accepted or refused it. The \
target is the `target` option's, or else the `dsa.target` of the module holding the function. The \
footprint model is in docs/Grouping.md.";
    const ANCHOR: &'static str = "func.func";
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "target",
            description: "Target (built-in name or file); by default the module's dsa.target",
            kind: OptionKind::String,
            default: "",
        },
        OptionInfo {
            name: "scope",
            description: "Memory holding an instance's live tensors: 'gb' (the cluster's global buffer) or 'lb' (its cores' local buffers)",
            kind: OptionKind::String,
            default: "gb",
        },
        OptionInfo {
            name: "weight-buffer",
            description: "Bytes of each core's LB kept for staging weights layer by layer (§2.2)",
            kind: OptionKind::Int,
            default: "8192",
        },
        OptionInfo {
            name: "max-recompute",
            description: "Largest extra work a split may cost in recomputation, as a fraction",
            kind: OptionKind::Float,
            default: "0.5",
        },
        OptionInfo {
            name: "explain",
            description: "Print every merge attempt and the rule that decided it to stderr",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let weight_buffer = options.int("weight-buffer")?;
        let max_recompute = options.float("max-recompute")?;
        if weight_buffer < 0 {
            return Err(format!("option 'weight-buffer' must not be negative, got {weight_buffer}"));
        }
        if !(max_recompute >= 0.0) {
            return Err(format!("option 'max-recompute' must not be negative, got {max_recompute}"));
        }
        let scope = match options.string("scope").as_str() {
            "gb" => Scope::Global,
            "lb" => Scope::Local,
            other => return Err(format!("option 'scope': unknown memory '{other}' (available: gb, lb)")),
        };
        Ok(Self { target: options.string("target"), scope, weight_buffer: weight_buffer as usize, max_recompute, explain: options.bool("explain")? })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        let function = Op(operation.to_raw());
        if function.regions_empty() {
            return Ok(());
        }
        let machine = self.machine(function)?;
        if self.weight_buffer >= machine.lb_bytes {
            function.emit_error(&format!(
                "the weight buffer ({} bytes) leaves nothing of the {} bytes of LB of target '{}'",
                self.weight_buffer, machine.lb_bytes, machine.name
            ));
            return Err(PassFailure);
        }
        let capacity = match self.scope {
            Scope::Global => machine.gb_bytes,
            Scope::Local => machine.cores_per_cluster * (machine.lb_bytes - self.weight_buffer),
        };
        let budget = Budget { capacity, max_recompute: self.max_recompute };
        let name = function.symbol_name();
        let program = FunctionView::read(function).map_err(|error| {
            error.op.unwrap_or(function).emit_error(&format!("cannot group @{name}: {}", error.message));
            PassFailure
        })?;
        let grouping = Grouping::new(&program, budget, self.explain, &name);
        let groups = grouping.run();
        rewrite(&program, &groups);
        Ok(())
    }
}

impl HwGroup {
    /// The machine to group for: the `target` option's, or the `dsa.target` of the module that
    /// holds `function`; an error at `function` when there is neither.
    fn machine(&self, function: Op) -> Result<Machine, PassFailure> {
        if self.target.is_empty() {
            return function.parent().and_then(Machine::of_module).ok_or_else(|| {
                function.emit_error("hw-group needs a target: set the module's dsa.target (dsa-set-target) or the 'target' option");
                PassFailure
            });
        }
        let target = turbine_targets::Target::load(&self.target).map_err(|error| {
            function.emit_error(&format!("cannot use target '{}': {error}", self.target));
            PassFailure
        })?;
        Ok(Machine::new(&crate::target::from_description(&target)))
    }
}

/// A subgraph under construction: its ops (indices into the function body, ascending, which is
/// a topological order) and its SplitInfo.
#[derive(Debug, Clone)]
pub struct Group {
    /// Op indices, ascending.
    pub ops: Vec<usize>,
    /// SplitInfo (Algorithm 1).
    pub info: Vec<Split>,
    /// Eq. 1.
    pub best: Option<Split>,
}

struct Grouping<'p> {
    program: &'p FunctionView,
    budget: Budget,
    explain: bool,
    function: &'p str,
    types: BTreeMap<ValueId, &'p TensorType>,
    weights: BTreeSet<ValueId>,
    producer: BTreeMap<ValueId, usize>,
    /// The ops (other than the terminator) reading each value.
    readers: BTreeMap<ValueId, Vec<usize>>,
    returned: BTreeSet<ValueId>,
    /// Which group each op belongs to.
    owner: BTreeMap<usize, usize>,
    groups: BTreeMap<usize, Group>,
    /// Merge attempts already refused, by the groups involved; see [`Grouping::attempt`].
    refused: BTreeSet<Vec<(usize, usize)>>,
}

/// A factor for the rules: a group that cannot be split to fit has none (infinitely large).
fn factor(best: Option<Split>) -> usize {
    best.map_or(usize::MAX, |split| split.factor)
}

fn describe(best: Option<Split>) -> String {
    match best {
        Some(split) => format!("f={} on dim {} reaching {} ops", split.factor, split.dim, split.ops),
        None => "no split fits".into(),
    }
}

impl<'p> Grouping<'p> {
    fn new(program: &'p FunctionView, budget: Budget, explain: bool, function: &'p str) -> Self {
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
                if matches!(node.name.as_str(), "graph.weight" | "graph.constant") {
                    weights.insert(*value);
                }
            }
        }
        let returned = program.ops.last().map(|node| node.operands.iter().copied().collect()).unwrap_or_default();
        let mut readers: BTreeMap<ValueId, Vec<usize>> = BTreeMap::new();
        for (index, node) in program.ops.iter().enumerate() {
            if node.name == "func.return" {
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
            explain,
            function,
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
            if matches!(node.name.as_str(), "graph.weight" | "graph.constant" | "func.return") || layer_of.contains_key(&index) {
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

    /// The elementwise op that is the only reader of op `index`'s single result and keeps its
    /// shape, if any: an auxiliary op of the same layer.
    fn auxiliary_after(&self, index: usize) -> Option<usize> {
        let node = self.node(index);
        let [(value, r#type)] = node.results.as_slice() else { return None };
        if self.returned.contains(value) {
            return None;
        }
        let [reader] = self.readers.get(value).map(Vec::as_slice).unwrap_or(&[])[..] else { return None };
        let user = self.node(reader);
        let auxiliary = matches!(
            user.name.as_str(),
            "graph.relu" | "graph.clip" | "graph.sigmoid" | "graph.tanh" | "graph.silu" | "graph.gelu" | "graph.batch_norm"
                | "graph.add" | "graph.sub" | "graph.mul" | "graph.div"
        ) && user.results.len() == 1
            && user.results[0].1.shape == r#type.shape
            && user.operands.iter().filter(|&&operand| operand == *value).count() == 1;
        // A binary op joins only as an epilogue with a weight (bias, scale), not as a merge of
        // two activations (a residual add is its own layer).
        let other_activations = user.operands.iter().any(|&operand| {
            operand != *value && !self.weights.contains(&operand)
        });
        let binary = matches!(user.name.as_str(), "graph.add" | "graph.sub" | "graph.mul" | "graph.div");
        (auxiliary && !(binary && other_activations)).then_some(reader)
    }

    fn node(&self, index: usize) -> &'p Node {
        &self.program.ops[index]
    }

    /// Algorithm 1 and Eq. 1 for the ops `ops`.
    fn analysed(&self, mut ops: Vec<usize>) -> Group {
        ops.sort_unstable();
        let members: BTreeSet<usize> = ops.iter().copied().collect();
        let weights = |value: ValueId| self.weights.contains(&value);
        let escapes = |value: ValueId| self.escapes(&members, value);
        let types = |value: ValueId| self.types.get(&value).copied();
        let subgraph =
            Subgraph { ops: ops.iter().map(|&index| self.node(index)).collect(), weights: &weights, escapes: &escapes, types: &types };
        let info = subgraph.split_info(&self.budget);
        let best = best_split(&info);
        Group { ops, info, best }
    }

    /// Whether `value` (made by one of `members`) is read outside them or returned.
    fn escapes(&self, members: &BTreeSet<usize>, value: ValueId) -> bool {
        self.returned.contains(&value)
            || self.readers.get(&value).is_some_and(|readers| readers.iter().any(|reader| !members.contains(reader)))
    }

    /// The groups whose results `group` reads (and whether it also reads function arguments).
    fn producers(&self, group: usize) -> (BTreeSet<usize>, bool) {
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
    fn consumers(&self, group: usize) -> (BTreeSet<usize>, bool) {
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
    fn spatial_extent(&self, group: usize) -> usize {
        let last = *self.groups[&group].ops.last().expect("groups have ops");
        self.node(last).results.first().map_or(0, |(_, r#type)| {
            let shape = &r#type.shape;
            if shape.len() >= 3 { shape[2..].iter().product() } else { shape.iter().product() }
        })
    }

    fn label(&self, group: usize) -> String {
        let ops: Vec<String> = self.groups[&group]
            .ops
            .iter()
            .map(|&index| {
                let node = self.node(index);
                match node.line() {
                    Some(line) => format!("{}@{line}", node.name.trim_start_matches("graph.")),
                    None => format!("{}#{index}", node.name.trim_start_matches("graph.")),
                }
            })
            .collect();
        format!("{{{}}}", ops.join(", "))
    }

    fn say(&self, text: String) {
        if self.explain {
            eprintln!("hw-group @{}: {text}", self.function);
        }
    }

    /// Replaces the groups `members` by one group made of all their ops.
    fn merge(&mut self, members: &[usize], merged: Group) {
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
    fn attempt(&self, rule: usize, groups: &[usize]) -> Vec<(usize, usize)> {
        std::iter::once((rule, 0)).chain(groups.iter().map(|g| (*g, self.groups[g].ops.len()))).collect()
    }

    /// Rule (i) for `first -> second`; returns the merged group when it accepts.
    fn rule_one(&mut self, pattern: &str, first: usize, second: usize) -> Option<Group> {
        let attempt = self.attempt(1, &[first, second]);
        if self.refused.contains(&attempt) {
            return None;
        }
        let (a, b) = (&self.groups[&first], &self.groups[&second]);
        let merged = self.analysed(a.ops.iter().chain(&b.ops).copied().collect());
        // GraphTurbo §3.6: rule (i) is written for downsampling (SG2's tensors no larger than
        // SG1's); across an upsampling edge it is mirrored, so that SG2's larger factor does not
        // spread back to SG1 either.
        let upsampling = self.spatial_extent(second) > self.spatial_extent(first);
        let verdict = if !upsampling && factor(b.best) < factor(a.best) {
            Err(format!("refused by rule (i): SG2's factor {} is smaller than SG1's {}", factor_text(b.best), factor_text(a.best)))
        } else if upsampling && factor(a.best) < factor(b.best) {
            Err(format!(
                "refused by rule (i) mirrored for upsampling (§3.6): SG1's factor {} is smaller than SG2's {}",
                factor_text(a.best),
                factor_text(b.best)
            ))
        } else if merged.best.is_none() {
            Err("refused by the cost check: no split of the merged subgraph fits without recomputing too much".to_owned())
        } else if factor(merged.best) > factor(b.best).min(if upsampling { factor(a.best) } else { usize::MAX }) {
            Err(format!("refused by rule (i): the merged factor {} exceeds SG2's {}", factor_text(merged.best), factor_text(b.best)))
        } else {
            Ok(())
        };
        self.say(format!(
            "{pattern} merge SG1 {} ({}) + SG2 {} ({}) -> {}: {}",
            self.label(first),
            describe(a.best),
            self.label(second),
            describe(b.best),
            describe(merged.best),
            match &verdict {
                Ok(()) => "accepted by rule (i)".to_owned(),
                Err(reason) => reason.clone(),
            }
        ));
        if verdict.is_err() {
            self.refused.insert(attempt);
        }
        verdict.ok().map(|()| merged)
    }

    /// Straight merges: SG1 is SG2's only producer and SG2 is SG1's only consumer.
    fn straight_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for first in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&first) {
                    continue;
                }
                let (consumers, returned) = self.consumers(first);
                let [second] = consumers.iter().copied().collect::<Vec<_>>()[..] else { continue };
                if returned {
                    continue;
                }
                let (producers, reads_arguments) = self.producers(second);
                if reads_arguments || producers.len() != 1 {
                    continue;
                }
                if let Some(merged) = self.rule_one("straight", first, second) {
                    self.merge(&[first, second], merged);
                    changed = true;
                    progress = true;
                }
            }
        }
        changed
    }

    /// Branch merges: an exit with several producers absorbs a producer whose only consumer it is.
    fn branch_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            for exit in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&exit) {
                    continue;
                }
                let (producers, reads_arguments) = self.producers(exit);
                if producers.len() + usize::from(reads_arguments) < 2 {
                    continue;
                }
                for branch in producers.iter().rev().copied() {
                    let (consumers, returned) = self.consumers(branch);
                    if returned || consumers.len() != 1 {
                        continue;
                    }
                    if let Some(merged) = self.rule_one("branch", branch, exit) {
                        self.merge(&[branch, exit], merged);
                        changed = true;
                        progress = true;
                        break;
                    }
                }
            }
        }
        changed
    }

    /// The current groups as a graph: an edge from each group to every group reading its results.
    fn group_graph(&self) -> DiGraphMap<usize, ()> {
        let mut graph = DiGraphMap::new();
        for &group in self.groups.keys() {
            graph.add_node(group);
            for consumer in self.consumers(group).0 {
                graph.add_edge(group, consumer, ());
            }
        }
        graph
    }

    /// Diamond merges: one entry, one exit, at least two paths between them, and an interior
    /// connected to nothing else; the interior and the exit merge under rule (ii).
    fn diamond_merge(&mut self) -> bool {
        let mut changed = false;
        let mut progress = true;
        while progress {
            progress = false;
            let mut graph = self.group_graph();
            for entry in self.groups.keys().copied().collect::<Vec<_>>() {
                if !self.groups.contains_key(&entry) {
                    continue;
                }
                let (entry_consumers, _) = self.consumers(entry);
                if entry_consumers.len() < 2 {
                    continue;
                }
                let downstream = reachable(&graph, entry);
                for &exit in &downstream {
                    // The exit joins the paths: it has several producers.
                    if self.producers(exit).0.len() < 2 {
                        continue;
                    }
                    let upstream = reachable(Reversed(&graph), exit);
                    let interior: BTreeSet<usize> = downstream.intersection(&upstream).copied().collect();
                    if interior.is_empty() || !entry_consumers.iter().all(|c| interior.contains(c) || *c == exit) {
                        continue;
                    }
                    let closed = interior.iter().all(|&g| {
                        let (producers, arguments) = self.producers(g);
                        let (consumers, returned) = self.consumers(g);
                        !arguments
                            && !returned
                            && producers.iter().all(|p| *p == entry || interior.contains(p))
                            && consumers.iter().all(|c| *c == exit || interior.contains(c))
                    });
                    let (exit_producers, _) = self.producers(exit);
                    if !closed || !exit_producers.iter().all(|p| *p == entry || interior.contains(p)) {
                        continue;
                    }
                    let mut members: Vec<usize> = interior.iter().copied().collect();
                    members.push(exit);
                    let attempt = self.attempt(2, &members);
                    if self.refused.contains(&attempt) {
                        break;
                    }
                    let ops: Vec<usize> = members.iter().flat_map(|g| self.groups[g].ops.clone()).collect();
                    let merged = self.analysed(ops);
                    let largest = members.iter().map(|g| factor(self.groups[g].best)).max().unwrap_or(usize::MAX);
                    let accepted = merged.best.is_some() && factor(merged.best) <= largest;
                    let parts: Vec<String> =
                        members.iter().map(|g| format!("{} ({})", self.label(*g), describe(self.groups[g].best))).collect();
                    self.say(format!(
                        "diamond merge from entry {} of {} -> {}: {}",
                        self.label(entry),
                        parts.join(" + "),
                        describe(merged.best),
                        if accepted {
                            "accepted by rule (ii)".to_owned()
                        } else if merged.best.is_none() {
                            "refused by the cost check: no split of the merged subgraph fits without recomputing too much".to_owned()
                        } else {
                            format!("refused by rule (ii): the merged factor {} exceeds the largest part's {}", factor_text(merged.best), largest)
                        }
                    ));
                    if accepted {
                        self.merge(&members, merged);
                        graph = self.group_graph();
                        changed = true;
                        progress = true;
                    } else {
                        self.refused.insert(attempt);
                    }
                    break;
                }
            }
        }
        changed
    }

    /// Algorithm 2, lines 5-15.
    fn run(mut self) -> Vec<Group> {
        loop {
            let straight = self.straight_merge();
            let diamond = self.diamond_merge();
            let branch = self.branch_merge();
            if !(straight || diamond || branch) {
                break;
            }
        }
        let mut groups: Vec<Group> = self.groups.into_values().collect();
        groups.sort_by_key(|group| group.ops[0]);
        groups
    }
}

/// The nodes reachable from `start` in `graph`, `start` excluded.
fn reachable<G>(graph: G, start: usize) -> BTreeSet<usize>
where
    G: IntoNeighbors<NodeId = usize> + Visitable,
{
    let mut search = Dfs::new(graph, start);
    let mut seen = BTreeSet::new();
    while let Some(group) = search.next(graph) {
        if group != start {
            seen.insert(group);
        }
    }
    seen
}

fn factor_text(best: Option<Split>) -> String {
    best.map_or("none".to_owned(), |split| split.factor.to_string())
}

/// Rebuilds the function body: one `instance.group` per group, in a topological order of the
/// groups, before the terminator.
fn rewrite(program: &FunctionView, groups: &[Group]) {
    let ops = &program.ops;
    let mut owner: BTreeMap<usize, usize> = BTreeMap::new();
    for (position, group) in groups.iter().enumerate() {
        for &op in &group.ops {
            owner.insert(op, position);
        }
    }
    // Topological order of the groups (Kahn, smallest first op first among the ready ones).
    let mut depends: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); groups.len()];
    let mut group_of_value: BTreeMap<ValueId, usize> = BTreeMap::new();
    for (&op, &group) in &owner {
        for (value, _) in &ops[op].results {
            group_of_value.insert(*value, group);
        }
    }
    let producer_group = |value: ValueId| group_of_value.get(&value).copied();
    for (position, group) in groups.iter().enumerate() {
        for &op in &group.ops {
            for &operand in &ops[op].operands {
                if let Some(other) = producer_group(operand) {
                    if other != position {
                        depends[position].insert(other);
                    }
                }
            }
        }
    }
    let mut order = Vec::new();
    let mut done = vec![false; groups.len()];
    while order.len() < groups.len() {
        let next = (0..groups.len())
            .find(|&g| !done[g] && depends[g].iter().all(|d| done[*d]))
            .expect("merges keep the group graph acyclic");
        done[next] = true;
        order.push(next);
    }
    let terminator = ops.last().expect("a function body ends in func.return").op;
    for (name_index, &position) in order.iter().enumerate() {
        let group = &groups[position];
        let members: Vec<Op> = group.ops.iter().map(|&op| ops[op].op).collect();
        super::group_ops(terminator, &members, &format!("g{name_index}"), &group.info, group.best);
    }
}
