//! `convert-instance-to-dsa`: GraphTurbo's kernel generation (§4) for functions scheduled by the
//! instance passes, a client of the kernel-emission library ([`crate::kernels`]) as the
//! layer-wise schedule is.

mod aliases;
mod clusters;
mod core_emission;
mod core_lowering;
mod emission;
mod error;
mod gb_instance;
mod gb_layer;
mod handover;
mod host_buffers;
mod host_build;
mod items;
mod joins;
mod kernels;
mod lowering;
mod offsets;
mod operands;
mod per_core;
mod plan;
mod promotion;
mod segment;
mod segments;
mod summary;
mod walk;

use crate::conversion::graph_to_dsa::{
    lower_graph_functions, Settings, CONTROL_OPTION, FUSE_CHAINS_OPTION, KEEP_INVARIANTS_OPTION,
};
use crate::{
    conversion::graph_to_dsa::PIPELINE_OPTION,
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    target::Machine,
};
use lowering::lower_function;
use melior::ir::OperationRef;
use plan::Spill;
use summary::Summary;
use turbine_dialects::ops::{graph, instance, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ConvertInstanceToDsa {
    spill: Spill,
    pipeline: bool,
    join_segments: bool,
    /// The options the layer-wise lowering of functions holding control flow takes too.
    settings: Settings,
}

impl Pass for ConvertInstanceToDsa {
    const ARGUMENT: &'static str = "convert-instance-to-dsa";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const SUMMARY: &'static str =
        "Lower scheduled instances to dsa kernels with on-chip buffers (GraphTurbo §4)";
    const DESCRIPTION: &'static str = "\
The module must carry a `dsa.target`; every `func.func` must be scheduled by the instance passes \
(an `instance.clusters` whose body holds the bound, ordered instances of instance-split, \
instance-order, instance-bind and instance-stitch). Each becomes a host function of the same \
name (arguments as `convert-graph-to-dsa` gives them) launching one `dsa.kernel` per run of \
consecutive instances of a group, on the cores of every cluster at once, each cluster computing \
its own share. Inside a kernel, the instances run in their order, each layer a loop over tiles \
spread over the cluster's cores (the layer-wise lowering's anchor tiling with fused epilogues, \
§4.1), layers separated by barriers, tiles in one LB arena per core. Buffer stitching (§4.2): an \
instance writes its slice into its group's output buffer, which its consumers read in place \
(concatenations and slices are views; slices that are not contiguous are copied first, but a \
stepped slice of a convolution's output, a strided projection's input, which that \
convolution's tiles store too when it is estimated to pay and the GB has room for it); each \
layer's weights are first copied from DDR to the GB, once per cluster. Memory \
planning (§4.3): group outputs and each kernel's intermediates are placed in the cluster's GB \
(`dsa.alloc {cluster}`) for their lifetime over the kernel order; when the GB overflows, the \
tensor chosen by `spill` (the longest remaining lifetime, or the largest) lives in DDR instead. \
A group computing a result whole writes it into the output. The LB scope (§3.4): an instance \
of scope LB is computed per core where that is estimated to be faster than sharing its layers \
(shared, its weights would be copied under the layer before when the kernel has one; per core, \
first) and its cores' blocks are alike — each core of its binding runs the instance's layers on \
its own block back to back, without barriers, the intermediates in its LB (spilled to its block \
of the GB, longest remaining lifetime first, past half the LB); otherwise it is lowered as a GB \
instance. A function cut into segments (`instance-cluster-split`) gets a kernel per segment or \
fewer: a segment whose first kernel places no tensor of its own in the GB continues the last \
kernel of the segment before (on the same clusters) after a barrier of every core of the launch, \
in its arena, instead of a launch of its own (`join-segments`); the results it keeps in the GB \
for later segments take a part of that arena the kernel's first segment leaves them. Values cut \
alike by the segments on both sides stay in each cluster's GB between them; a value some later \
segments read with its cut and others whole goes through DDR and is mirrored in its producer's \
GB, whose tiles store it twice, for the former. With `explain`, a remark on each function gives \
the kernels, the GB peak, the spilled tensors, and the LB instances computed per core with the \
reasons for the others. A function holding control flow (which `instance-cluster-split` left \
whole) is lowered afterwards by the layer-wise lowering (`convert-graph-to-dsa`'s, with this \
pass's `control`, `keep-invariants` and `fuse-chains`), calling the host functions made here \
of its bodies.";
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "spill",
            description: "Which tensor leaves a full GB for DDR: 'longest' (remaining lifetime, \
                          §4.3) or 'largest'",
            kind: OptionKind::String,
            default: "longest",
        },
        OptionInfo {
            name: "explain",
            description:
                "Emit a remark per function: kernels, clusters, GB peak, spilled tensors, \
                          LB instances computed per core",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "join-segments",
            description: "Let a segment continue the kernel of the segment before (a device-wide \
                          barrier instead of a launch)",
            kind: OptionKind::Bool,
            default: "true",
        },
        PIPELINE_OPTION,
        CONTROL_OPTION,
        KEEP_INVARIANTS_OPTION,
        FUSE_CHAINS_OPTION,
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            spill: Spill::parse(&options.string("spill"))?,
            pipeline: options.bool("pipeline")?,
            join_segments: options.bool("join-segments")?,
            settings: Settings::from_options(options)?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        let Some(machine) = Machine::of_module(module) else {
            module.emit_error(
                "convert-instance-to-dsa needs the module's dsa.target; run dsa-set-target first",
            );
            return Err(PassFailure);
        };
        let machine = Machine {
            pipeline: self.pipeline,
            ..machine
        };
        for function in module.body_ops() {
            if !function.is(upstream::Kind::FuncFunc) || function.regions_empty() {
                continue;
            }
            // A function with control flow is left to the layer-wise lowering, which runs
            // after this pass in GraphTurbo's pipeline and calls the bodies lowered here.
            let scheduled = function
                .body_ops()
                .iter()
                .any(|op| op.is(instance::Kind::Clusters));
            if !scheduled && has_control_flow(function) {
                continue;
            }
            let summary = lower_function(function, &machine, self.spill, self.join_segments)
                .map_err(|error| {
                    error.emit();
                    PassFailure
                })?;
            if self.settings.explain {
                function.emit_remark(&explanation(function, &summary, &machine));
            }
            // SAFETY: the lowered function is a top-level op of the module without results, whose
            // values nothing outside it reads (what the lowering built is isolated from it); the
            // loop over the module's ops does not come back to it, and it is not used after.
            unsafe { function.erase() };
        }
        // The functions holding control flow, left whole by the instance passes, call bodies
        // lowered above: lowering them here keeps every call's types agreeing between passes.
        lower_graph_functions(module, &machine, &self.settings)
    }
}

/// Whether `function` holds control flow: a branch, a loop or a call.
fn has_control_flow(function: Op) -> bool {
    function.collect_pre_order().into_iter().any(|op| {
        op.is(graph::Kind::If) || op.is(graph::Kind::Loop) || op.is(upstream::Kind::FuncCall)
    })
}

/// The remark `explain` puts on `function`, lowered as `summary` says on `machine`: its kernels,
/// clusters, GB peak, spilled tensors, and LB instances computed per core with the reasons for
/// the others.
fn explanation(function: Op, summary: &Summary, machine: &Machine) -> String {
    let in_gb: usize = summary.lowered_in_gb.values().sum();
    let reasons: Vec<String> = summary
        .lowered_in_gb
        .iter()
        .map(|(why, count)| format!("{count}: {why}"))
        .collect();
    let lb = format!(
        "; {} of {} LB instances computed per core, {} intermediates spilled from LB to GB{}",
        summary.per_core,
        summary.per_core + in_gb,
        summary.lb_spills,
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" (lowered as GB instances: {})", reasons.join("; "))
        }
    );
    format!(
        "@{}: {} kernels on {} cluster(s){}; GB of a cluster (of {} bytes): instance outputs up \
         to {} bytes, a kernel's intermediates up to {} bytes; {} of {} instance outputs and {} \
         intermediates spilled to DDR; weights copied to the GB before {} of the {} layers \
         reading weights{lb}",
        function.symbol_name(),
        summary.kernels,
        summary.clusters,
        if summary.joined > 0 {
            format!(
                "; segments continuing the kernel before: {}",
                summary.joined
            )
        } else {
            String::new()
        },
        machine.gb_bytes,
        summary.gb_peak,
        summary.arena_peak,
        summary.spilled,
        summary.planned,
        summary.spilled_intermediates,
        summary.promotions[0],
        summary.promotions[1]
    )
}
