//! `instance-order`: the execution order of the instances of a function (GraphTurbo §3.3,
//! Algorithm 3), set as each instance's `order` and as the order of the ops in the block.
//!
//! The instance graph has an edge from a producer instance to each instance that reads it
//! (through the `instance.concat` and `instance.slice` ops that `instance-split` put between
//! them: the black edges of Fig. 6). [`schedule`] holds the orderers: Algorithm 3's ready list
//! taken last-ready-first (DFS) or first-ready-first (BFS), `auto` keeping the one with the lower
//! peak of live memory, and, beyond the paper, `min-peak`, a list scheduler that always runs the
//! ready instance that leaves the least memory live.

mod schedule;

use crate::{
    graph_view::TensorType,
    ir::{i64_attribute, Op},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use petgraph::graph::{DiGraph, NodeIndex};
use schedule::{Node, Orderer, Schedule};
use std::collections::{BinaryHeap, HashMap};
use turbine_dialects::ops::{instance, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct InstanceOrder {
    orderer: Orderer,
    explain: bool,
}

impl Pass for InstanceOrder {
    const ARGUMENT: &'static str = "instance-order";
    const SUMMARY: &'static str = "Order the instances of each function (GraphTurbo Algorithm 3)";
    const DESCRIPTION: &'static str = "\
Builds the instance graph (an edge from each instance to each instance reading its output, through \
instance.concat and instance.slice) and orders it with Algorithm 3's ready list: `order=dfs` runs \
the most recently readied instance first (a consumer as soon as its producers are done, Fig. 3b), \
`order=bfs` the earliest readied (each group's instances together, Fig. 7a), `order=auto` keeps \
whichever of the two has the lower peak of live memory, and `order=min-peak` (beyond the paper) \
always runs the ready instance that leaves the least memory live. Live memory at a step is the \
bytes of the instance outputs produced and still to be read, plus the running instance's outputs; \
function arguments and weights are not counted. Each instance gets its position as `order`, and \
the ops of the block are put in that order (helper ops just before the first instance that needs \
them). With `explain`, a remark on the function gives each orderer's peak and the choice.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "order",
            description: "Orderer: 'dfs', 'bfs', 'auto' (the lower peak of the two) or 'min-peak'",
            kind: OptionKind::String,
            default: "auto",
        },
        OptionInfo {
            name: "explain",
            description: "Emit a remark with each orderer's peak of live memory and the choice",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let orderer = match options.string("order").as_str() {
            "dfs" => Orderer::Dfs,
            "bfs" => Orderer::Bfs,
            "auto" => Orderer::Auto,
            "min-peak" => Orderer::MinPeak,
            other => {
                return Err(format!(
                "option 'order': unknown orderer '{other}' (available: dfs, bfs, auto, min-peak)"
            ))
            }
        };
        Ok(Self {
            orderer,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        crate::instance::scopes::schedule_each(operation, |function, scope| {
            self.schedule(function, scope)
        })
    }
}

impl InstanceOrder {
    /// Schedules one cluster program (`scope`) of `function`.
    fn schedule(&self, function: Op, scope: Op) -> Result<(), PassFailure> {
        let ops = scope.body_ops();
        let instances: Vec<usize> = (0..ops.len())
            .filter(|&i| ops[i].is(instance::Kind::Instance))
            .collect();
        if instances.is_empty() {
            return Ok(());
        }
        if let Some(group) = ops.iter().find(|op| op.is(instance::Kind::Group)) {
            group.emit_error("instance-order orders instances: run instance-split first");
            return Err(PassFailure);
        }
        let graph = instance_graph(&ops, &instances);
        let schedule = Schedule::new(&graph);
        let (chosen, order) = schedule.order(self.orderer);
        if self.explain {
            let peaks: Vec<String> = [Orderer::Dfs, Orderer::Bfs, Orderer::MinPeak]
                .iter()
                .map(|&orderer| {
                    format!(
                        "{} {} bytes",
                        orderer.name(),
                        schedule.peak(&schedule.order(orderer).1)
                    )
                })
                .collect();
            function.emit_remark(&format!(
                "{} instance{}; peak live memory: {}; chosen: {} ({} bytes)",
                instances.len(),
                if instances.len() == 1 { "" } else { "s" },
                peaks.join(", "),
                chosen.name(),
                schedule.peak(&order)
            ));
        }
        // SAFETY: the function is alive.
        let context = unsafe { mlirOperationGetContext(function.raw()) };
        for (rank, &node) in order.iter().enumerate() {
            ops[graph[NodeIndex::new(node)].op]
                .set_attribute("order", i64_attribute(context, rank as i64));
        }
        let rank_of: HashMap<usize, usize> = order
            .iter()
            .enumerate()
            .map(|(rank, &node)| (graph[NodeIndex::new(node)].op, rank))
            .collect();
        reorder(&ops, &rank_of);
        Ok(())
    }
}

/// The instance graph: a node per instance (in block order), an edge from each producer instance
/// to each instance that reads it, directly or through concatenations and slices.
fn instance_graph(ops: &[Op], instances: &[usize]) -> DiGraph<Node, ()> {
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.raw().ptr as usize, i))
        .collect();
    let node_of: HashMap<usize, NodeIndex> = instances
        .iter()
        .enumerate()
        .map(|(n, &i)| (i, NodeIndex::new(n)))
        .collect();
    let mut graph = DiGraph::new();
    for &op in instances {
        // SAFETY: the op is alive.
        let results = unsafe { mlirOperationGetNumResults(ops[op].raw()) } as usize;
        let bytes = (0..results)
            .filter_map(|r| TensorType::of(ops[op].result(r)))
            .map(|r#type| r#type.bytes())
            .sum();
        graph.add_node(Node { op, bytes });
    }
    for &consumer in instances {
        let mut stack = vec![consumer];
        let mut producers = Vec::new();
        while let Some(op) = stack.pop() {
            // SAFETY: walking the operands of live ops of one block.
            unsafe {
                for index in 0..mlirOperationGetNumOperands(ops[op].raw()) {
                    let value = mlirOperationGetOperand(ops[op].raw(), index);
                    if !mlirValueIsAOpResult(value) {
                        continue;
                    }
                    let Some(&defining) = position.get(&(mlirOpResultGetOwner(value).ptr as usize))
                    else {
                        continue;
                    };
                    match ops[defining].kind().and_then(OpKind::instance) {
                        Some(instance::Kind::Instance) => producers.push(defining),
                        Some(
                            instance::Kind::Concat
                            | instance::Kind::Slice
                            | instance::Kind::Copy
                            | instance::Kind::Redistribute,
                        ) => stack.push(defining),
                        Some(
                            instance::Kind::Yield
                            | instance::Kind::Clusters
                            | instance::Kind::Group,
                        )
                        | None => {}
                    }
                }
            }
        }
        producers.sort_unstable();
        producers.dedup();
        for producer in producers {
            graph.add_edge(node_of[&producer], node_of[&consumer], ());
        }
    }
    graph
}

/// Puts the block's ops in the chosen order: each instance at its rank, every other op just
/// before the first instance that (transitively) reads it, ops no instance reads at the end.
fn reorder(ops: &[Op], rank_of: &HashMap<usize, usize>) {
    let count = ops.len();
    let terminator = ops[count - 1];
    let position: HashMap<usize, usize> = ops
        .iter()
        .enumerate()
        .map(|(i, op)| (op.raw().ptr as usize, i))
        .collect();
    // Users and the rank key, from the last op backwards (users come after their producers).
    let mut users: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut waiting = vec![0usize; count];
    for (index, op) in ops.iter().enumerate() {
        let mut producers: Vec<usize> = op
            .collect_pre_order()
            .iter()
            .flat_map(|inner| {
                // SAFETY: reading operands of live ops.
                unsafe {
                    (0..mlirOperationGetNumOperands(inner.raw()))
                        .filter_map(|i| {
                            let value = mlirOperationGetOperand(inner.raw(), i);
                            if mlirValueIsAOpResult(value) {
                                position
                                    .get(&(mlirOpResultGetOwner(value).ptr as usize))
                                    .copied()
                            } else {
                                None
                            }
                        })
                        .collect::<Vec<_>>()
                }
            })
            .filter(|&producer| producer != index)
            .collect();
        producers.sort_unstable();
        producers.dedup();
        waiting[index] = producers.len();
        for producer in producers {
            users[producer].push(index);
        }
    }
    let mut key = vec![usize::MAX; count];
    for index in (0..count).rev() {
        key[index] = rank_of.get(&index).copied().unwrap_or_else(|| {
            users[index]
                .iter()
                .map(|&user| key[user])
                .min()
                .unwrap_or(usize::MAX)
        });
    }
    // Kahn's algorithm, smallest (key, position) first.
    let mut ready: BinaryHeap<std::cmp::Reverse<(usize, usize)>> = (0..count - 1)
        .filter(|&i| waiting[i] == 0)
        .map(|i| std::cmp::Reverse((key[i], i)))
        .collect();
    while let Some(std::cmp::Reverse((_, index))) = ready.pop() {
        // SAFETY: moving an op of the block before its terminator keeps it in the block.
        unsafe { mlirOperationMoveBefore(ops[index].raw(), terminator.raw()) };
        for &user in &users[index] {
            waiting[user] -= 1;
            if waiting[user] == 0 && user != count - 1 {
                ready.push(std::cmp::Reverse((key[user], user)));
            }
        }
    }
}
