//! `hw-group`: hardware-aware grouping of graph ops into `instance.group` regions
//! (GraphTurbo §3.2, Algorithm 2), each with its SplitInfo and best split (§3.1, Algorithm 1 and
//! Eq. 1; see [`super::split_info`]).
//!
//! Every op starts as its own subgraph, in topological order. Straight, diamond and branch merges
//! then repeat until none of them merges anything more; a fork merge, ours, joins an entry with
//! consumers that only end the function (no exit joins their paths, so no pattern of the paper
//! applies; see [`merges`]). Rule (i) decides straight and branch
//! merges of `SG1 -> SG2`: SG2's split factor must be at least SG1's (a downsampling op's large
//! factor must not spread to what follows), and the merged subgraph's factor must not exceed
//! SG2's (grouping must not worsen SG2's use of the on-chip buffer). Rule (ii) decides a diamond:
//! the interior and the exit merge when the merged factor is at most the largest of theirs. A
//! merged subgraph whose every split would recompute too much (halos through stacked windows, ops
//! the split does not reach) has no SplitInfo and the merge is refused: that is the cost check
//! that keeps recomputation from cancelling the benefit of fusion (§3.1).
//!
//! The pass runs on one function at a time, on one cluster's program when `instance-cluster-split`
//! spread it over the clusters: [`grouping`] holds the subgraphs and what they read
//! and feed, [`merges`] the patterns and their rules, [`diamonds`] the diamond pattern over the
//! graph of the subgraphs ([`group_graph`]), [`explain`] the remarks that say why
//! each merge was accepted or refused, and [`rewrite`] turns the final subgraphs into IR.

mod diamonds;
mod explain;
mod group_graph;
mod grouping;
mod merges;
mod rewrite;

use super::{scopes::schedule_scopes, split_info::Budget};
use crate::{
    graph_view::FunctionView,
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    target::Machine,
};
use grouping::Grouping;
use melior::ir::OperationRef;
use turbine_dialects::ops::{upstream, OpKind};
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
/// (§3.4 binds it across them with factors 8, 4, 2, 1); the clusters run their shares of the
/// data side by side (`instance-cluster-split`).
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
    const SUMMARY: &'static str =
        "Group graph ops into instance.group regions by SplitInfo (GraphTurbo Alg. 1-2)";
    const DESCRIPTION: &'static str = "\
Computes each op's SplitInfo (Algorithm 1: for each output dimension, the smallest factor among 1, \
2, 4, 8 and the larger divisors for which one slice's peak footprint fits the memory an instance \
runs in — by default one cluster's global buffer, with `scope=lb` the local buffers of its cores \
— with the ops the split reaches) and best split (Eq. 1, lexmax(n_d, -f_d, -d)), then merges \
subgraphs by the straight, diamond and branch patterns of Algorithm 2 under rules (i) and (ii) \
until nothing merges, recomputing SplitInfo for each merged subgraph (and by a fork pattern that \
completes them for a function with several results computed from one value: an entry whose \
consumers read nothing else and are only returned merges with all of them, each pair under rule \
(i), into a subgraph with several results); rule (ii), which keeps the LB well used, bounds a \
diamond's merged factor only with `scope=lb` (sized for the GB, the factor only sets how many \
instances share it). Splits that would recompute more than `max-recompute` of the subgraph's work \
are not recorded. Each resulting subgraph becomes an `instance.group` region carrying `split_info` \
and `best_split`; weights are operands. With `explain`, every merge attempt is a remark at the \
first op of the subgraph merged into (the consumer, or a diamond's exit): the pattern, the \
subgraphs and their split factors, and the rule that accepted or refused it. The target is the \
`target` option's, or else the `dsa.target` of the module holding the function. A function with \
control flow (`graph.if`, `graph.loop`, `func.call`) is left ungrouped: it is lowered layer-wise, \
its bodies grouped as functions of their own. The footprint model is in \
docs/Grouping.md.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        crate::target::TARGET_OPTION,
        OptionInfo {
            name: "scope",
            description: "Memory holding an instance's live tensors: 'gb' (the cluster's global \
                          buffer) or 'lb' (its cores' local buffers)",
            kind: OptionKind::String,
            default: "gb",
        },
        OptionInfo {
            name: "weight-buffer",
            description: "Bytes of each core's LB kept for staging weights layer by layer, with \
                          scope=lb (§2.2)",
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
            description: "Emit a remark for every merge attempt, naming the rule that decided it",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let weight_buffer = options.int("weight-buffer")?;
        let max_recompute = options.float("max-recompute")?;
        if weight_buffer < 0 {
            return Err(format!(
                "option 'weight-buffer' must not be negative, got {weight_buffer}"
            ));
        }
        if max_recompute.is_nan() || max_recompute < 0.0 {
            return Err(format!(
                "option 'max-recompute' must not be negative, got {max_recompute}"
            ));
        }
        let scope = match options.string("scope").as_str() {
            "gb" => Scope::Global,
            "lb" => Scope::Local,
            other => {
                return Err(format!(
                    "option 'scope': unknown memory '{other}' (available: gb, lb)"
                ))
            }
        };
        Ok(Self {
            target: options.string("target"),
            scope,
            weight_buffer: weight_buffer as usize,
            max_recompute,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        if function.regions_empty() {
            return Ok(());
        }
        let machine = Machine::for_function(function, &self.target, Self::ARGUMENT)?;
        // The weight buffer is carved out of the LBs only when the instances must fit them.
        if self.scope == Scope::Local && self.weight_buffer >= machine.lb_bytes {
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
        let budget = Budget {
            capacity,
            max_recompute: self.max_recompute,
        };
        for scope in schedule_scopes(function) {
            let program =
                FunctionView::read_body(scope, function.symbol_name()).map_err(|error| {
                    error.op.unwrap_or(function).emit_error(&format!(
                        "cannot group @{}: {}",
                        function.symbol_name(),
                        error.message
                    ));
                    PassFailure
                })?;
            if let Some(control) = program.ops.iter().find(|node| node.holds_control_flow()) {
                // A group cannot hold a loop, a branch or a call: the function is lowered
                // layer-wise, and its bodies are grouped as functions of their own.
                if self.explain {
                    control.op.emit_remark(&format!(
                        "@{} is not grouped: '{}' (control flow) is not grouped yet",
                        function.symbol_name(),
                        control.name
                    ));
                }
                continue;
            }
            let groups =
                Grouping::new(&program, budget, self.scope == Scope::Local, self.explain).run();
            rewrite::rewrite(&program, &groups);
        }
        Ok(())
    }
}
