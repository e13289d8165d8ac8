//! The pipelines the tools run, registered by name so that `turbine-run`, `turbine-translate`,
//! the backend and the lit tests all run the same definition instead of copies of its text.
//!
//! A kernel schedule is a pipeline from the graph level to `dsa` ([`for_schedule`]): the
//! layer-wise baseline and GraphTurbo's schedule (its ablation steps to come), each selectable
//! by name so that every gain is measured side by side (docs/Design.md §4).

use crate::conversion::graph_to_dsa::{
    CONTROL_OPTION, FUSE_CHAINS_OPTION, KEEP_INVARIANTS_OPTION, PIPELINE_OPTION,
    TUNING_CACHE_OPTION, TUNING_FUSION_RANK_OPTION, TUNING_RANK_OPTION,
};
use crate::registry::{OptionInfo, PipelineInfo, Step, StepValue};
use turbine_dialects::ops::{upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The anchor of function passes.
const FUNCTION: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);

/// The anchor of LLVM-function passes.
const LLVM_FUNCTION: OpKind = OpKind::Upstream(upstream::Kind::LlvmFunc);

/// The `target` option of both kernel-schedule pipelines.
const TARGET_OPTION: OptionInfo = OptionInfo {
    name: "target",
    description: "Built-in target name or path of a target description (TOML)",
    kind: OptionKind::String,
    default: "stcp920",
};

/// The `substitute` option of both kernel-schedule pipelines: `graph-substitute`'s search.
const SUBSTITUTE_OPTION: OptionInfo = OptionInfo {
    name: "substitute",
    description: "graph-substitute's search: 'backtracking' (MetaFlow's, greedy at the default \
                  alpha), 'egraph' or 'none'",
    kind: OptionKind::String,
    default: "backtracking",
};

/// The `substitute-alpha` option of both kernel-schedule pipelines.
const SUBSTITUTE_ALPHA_OPTION: OptionInfo = OptionInfo {
    name: "substitute-alpha",
    description: "graph-substitute's alpha: 1 is greedy (milliseconds); MetaFlow's 1.05 takes \
                  seconds on DenseNet-121",
    kind: OptionKind::Float,
    default: "1",
};

/// The `test-perturb-op` option of both kernel-schedule pipelines: graph-substitute's planted
/// fault, which the numeric bisection's tests look for.
const TEST_PERTURB_OPTION: OptionInfo = OptionInfo {
    name: "test-perturb-op",
    description: "Test only: graph-substitute negates the result of the op at this name \
                  location (a planted fault for the numeric bisection)",
    kind: OptionKind::String,
    default: "",
};

/// The `prepare-weights` option of both kernel-schedule pipelines.
const PREPARE_WEIGHTS_OPTION: OptionInfo = OptionInfo {
    name: "prepare-weights",
    description: "Compute what the model computes from weights alone once, at load time \
                  (graph-prepare-weights; the layer-wise pipeline's graph-substitute prices it \
                  free then); false computes it on every inference",
    kind: OptionKind::Bool,
    default: "true",
};

/// The graph-prepare-weights step of both kernel-schedule pipelines, after the graph clean-up.
const PREPARE_WEIGHTS_STEP: Step = Step {
    nest: None,
    pass: "graph-prepare-weights",
    options: &[("enabled", StepValue::Option("prepare-weights"))],
};

/// The graph-substitute step of a kernel-schedule pipeline, its `prepared-weights` option given.
macro_rules! substitute_step {
    ($prepared_weights:expr) => {
        Step {
            nest: Some(FUNCTION),
            pass: "graph-substitute",
            options: &[
                ("search", StepValue::Option("substitute")),
                ("alpha", StepValue::Option("substitute-alpha")),
                ("target", StepValue::Option("target")),
                ("test-perturb-op", StepValue::Option("test-perturb-op")),
                ("prepared-weights", $prepared_weights),
                ("weight-folds", StepValue::Option("prepare-weights")),
            ],
        }
    };
}

/// The graph-substitute step of the layer-wise pipeline: what the model computes from weights
/// alone (the concatenated weights of merged products) priced free when the pipeline prepares
/// it at load time.
const SUBSTITUTE_STEP: Step = substitute_step!(StepValue::Option("prepare-weights"));

/// The graph-substitute step of GraphTurbo's pipeline: weight-only ops priced as computed on
/// every inference, whether prepared or not. The substitution prices graphs by the layer-wise
/// estimate, and the merges that pay there once their weights are free cost GraphTurbo its
/// cluster cuts at batch 1: a merged q/k/v projection's result ([q | k | v]) does not separate
/// by heads, so the attention after it runs on one cluster (docs/Substitution.md).
const GRAPHTURBO_SUBSTITUTE_STEP: Step = substitute_step!(StepValue::Fixed("false"));

/// Graph to `dsa` with one kernel per layer.
pub static LAYERWISE: PipelineInfo = PipelineInfo {
    argument: "turbine-layerwise",
    summary:
        "Graph to dsa with the layer-wise schedule: one kernel per layer, activations through DDR",
    description: "\
The baseline every GraphTurbo step is measured against (docs/Lowering.md): the regions of \
branches and loops outlined into functions (graph-outline-control-flow), products with a shared \
weight folded into one (graph-fold-batch-rows), nearest upsampling as a broadcast \
(graph-resize-to-broadcast) and other resizes by whole factors as sums of copies \
(graph-decompose-resize), pads other than a zero fill as concats and slices \
(graph-decompose-pad), reshapes folded, the \
graph rewritten by `graph-substitute` (docs/Substitution.md), canonicalised and deduplicated at \
the graph level, the target attached, each layer lowered to one `dsa.kernel`, and the result \
canonicalised. `turbine-run` and `turbine-translate --compile` run it before the backend \
(`turbine-dsa-to-llvm`).",
    options: &[
        TARGET_OPTION,
        PIPELINE_OPTION,
        CONTROL_OPTION,
        KEEP_INVARIANTS_OPTION,
        FUSE_CHAINS_OPTION,
        TUNING_CACHE_OPTION,
        TUNING_RANK_OPTION,
        TUNING_FUSION_RANK_OPTION,
        SUBSTITUTE_OPTION,
        SUBSTITUTE_ALPHA_OPTION,
        TEST_PERTURB_OPTION,
        PREPARE_WEIGHTS_OPTION,
    ],
    steps: &[
        Step {
            nest: None,
            pass: "graph-outline-control-flow",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-fold-batch-rows",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-resize-to-broadcast",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-decompose-resize",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-decompose-pad",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-fold-reshapes",
            options: &[],
        },
        SUBSTITUTE_STEP,
        Step {
            nest: Some(FUNCTION),
            pass: "graph-split-reductions",
            options: &[],
        },
        Step {
            nest: None,
            pass: "canonicalize",
            options: &[],
        },
        Step {
            nest: None,
            pass: "cse",
            options: &[],
        },
        PREPARE_WEIGHTS_STEP,
        Step {
            nest: None,
            pass: "dsa-set-target",
            options: &[("target", StepValue::Option("target"))],
        },
        Step {
            nest: None,
            pass: "convert-graph-to-dsa",
            options: &[
                ("schedule", StepValue::Fixed("layerwise")),
                ("pipeline", StepValue::Option("pipeline")),
                ("control", StepValue::Option("control")),
                ("keep-invariants", StepValue::Option("keep-invariants")),
                ("fuse-chains", StepValue::Option("fuse-chains")),
                ("tuning-cache", StepValue::Option("tuning-cache")),
                ("tuning-rank", StepValue::Option("tuning-rank")),
                (
                    "tuning-fusion-rank",
                    StepValue::Option("tuning-fusion-rank"),
                ),
            ],
        },
        Step {
            nest: None,
            pass: "canonicalize",
            options: &[],
        },
        Step {
            nest: None,
            pass: "cse",
            options: &[],
        },
    ],
};

/// Graph to `dsa` with GraphTurbo's schedule.
pub static GRAPHTURBO: PipelineInfo = PipelineInfo {
    argument: "turbine-graphturbo",
    summary: "Graph to dsa with GraphTurbo's schedule: groups, instances, on-chip buffers (§3-4)",
    description: "\
GraphTurbo's graph scheduling (docs/Scheduling.md: the batch spread over the clusters, layers \
whose weights outweigh their share of the work cut along their channels instead, hardware-aware \
groups, their instances ordered, bound to cores and stitched) and its kernel generation \
(`convert-instance-to-dsa`: one kernel per run of a group's instances, outputs kept in the \
clusters' global buffers, spilled to DDR by lifetime when they overflow), after the same \
graph-level substitution and clean-up as the layer-wise schedule. Branches and loops are \
outlined as for the layer-wise schedule: their bodies are scheduled by GraphTurbo like any \
function, and a function holding control flow is left whole by the instance passes and lowered \
layer-wise by `convert-instance-to-dsa` after the rest (with the `control`, \
`keep-invariants` and `fuse-chains` options this pipeline passes on), calling the bodies' host \
functions. `turbine-run --schedule graphturbo` runs it.",
    options: &[
        TARGET_OPTION,
        OptionInfo {
            name: "scope",
            description: "Memory the groups' instances are sized for (hw-group's scope): 'gb' or \
                          'lb'",
            kind: OptionKind::String,
            default: "gb",
        },
        OptionInfo {
            name: "spill",
            description: "Which tensor leaves a full GB for DDR (convert-instance-to-dsa): \
                          'longest' or 'largest'",
            kind: OptionKind::String,
            default: "longest",
        },
        OptionInfo {
            name: "channel-cut",
            description: "Give weight-bound layers a segment cut along their channels \
                          (instance-cluster-split); false: the batch cut for every layer, as in \
                          the paper",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "channel-cut-gain",
            description: "instance-cluster-split's channel-cut-gain: the fraction of their \
                          estimate with the batch cut that a run of channel-cut layers must stay \
                          under",
            kind: OptionKind::Float,
            default: "1.1",
        },
        OptionInfo {
            name: "subsample",
            description: "Give strided 1x1 convolutions their input's subsampled copy \
                          (graph-subsample-strided-convs, after the cluster split)",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "join-segments",
            description: "convert-instance-to-dsa's join-segments: a segment continues the kernel \
                          of the segment before (a device-wide barrier instead of a launch)",
            kind: OptionKind::Bool,
            default: "true",
        },
        PIPELINE_OPTION,
        CONTROL_OPTION,
        KEEP_INVARIANTS_OPTION,
        FUSE_CHAINS_OPTION,
        SUBSTITUTE_OPTION,
        SUBSTITUTE_ALPHA_OPTION,
        TEST_PERTURB_OPTION,
        PREPARE_WEIGHTS_OPTION,
    ],
    steps: &[
        Step {
            nest: None,
            pass: "graph-outline-control-flow",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-fold-batch-rows",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-resize-to-broadcast",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-decompose-resize",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-decompose-pad",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-fold-reshapes",
            options: &[],
        },
        GRAPHTURBO_SUBSTITUTE_STEP,
        Step {
            nest: Some(FUNCTION),
            pass: "graph-split-reductions",
            options: &[],
        },
        Step {
            nest: None,
            pass: "canonicalize",
            options: &[],
        },
        Step {
            nest: None,
            pass: "cse",
            options: &[],
        },
        PREPARE_WEIGHTS_STEP,
        Step {
            nest: None,
            pass: "dsa-set-target",
            options: &[("target", StepValue::Option("target"))],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "instance-cluster-split",
            options: &[
                ("channel-cut", StepValue::Option("channel-cut")),
                ("channel-cut-gain", StepValue::Option("channel-cut-gain")),
            ],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "graph-subsample-strided-convs",
            options: &[("enabled", StepValue::Option("subsample"))],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "hw-group",
            options: &[("scope", StepValue::Option("scope"))],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "instance-split",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "instance-order",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "instance-bind",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "instance-stitch",
            options: &[],
        },
        Step {
            nest: None,
            pass: "convert-instance-to-dsa",
            options: &[
                ("spill", StepValue::Option("spill")),
                ("pipeline", StepValue::Option("pipeline")),
                ("join-segments", StepValue::Option("join-segments")),
                ("control", StepValue::Option("control")),
                ("keep-invariants", StepValue::Option("keep-invariants")),
                ("fuse-chains", StepValue::Option("fuse-chains")),
            ],
        },
        Step {
            nest: None,
            pass: "canonicalize",
            options: &[],
        },
        Step {
            nest: None,
            pass: "cse",
            options: &[],
        },
    ],
};

/// `dsa` (with its target) to the LLVM dialect.
pub static DSA_TO_LLVM: PipelineInfo = PipelineInfo {
    argument: "turbine-dsa-to-llvm",
    summary: "dsa to the LLVM dialect: calls into the runtime's C ABI, then upstream conversions",
    description: "\
The backend's MLIR part (`turbine_codegen`): `convert-dsa-to-runtime` leaves func, arith, scf, \
memref and llvm ops; `expand-strided-metadata` and `lower-affine` turn the views' metadata into \
index arithmetic before memref and the rest go to LLVM, `reconcile-unrealized-casts` removes the \
descriptor casts the buffers were built with, and `llvm-fold-aggregates` reads the descriptors' \
fields where they were computed, so that LLVM's fast instruction selector takes the whole module. \
The function-local rewrites run per function, so that the greedy rewriter's region simplification \
walks one function at a time and functions go in parallel (ResNet-50's 4,800 lines of dsa: 1.44 s \
-> 1.00 s for the pipeline, the same output). The module needs its `dsa.target`.",
    options: &[],
    steps: &[
        Step {
            nest: None,
            pass: "convert-dsa-to-runtime",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "expand-strided-metadata",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "lower-affine",
            options: &[],
        },
        Step {
            nest: Some(FUNCTION),
            pass: "convert-scf-to-cf",
            options: &[],
        },
        Step {
            nest: None,
            pass: "finalize-memref-to-llvm",
            options: &[],
        },
        Step {
            nest: None,
            pass: "convert-arith-to-llvm",
            options: &[],
        },
        Step {
            nest: None,
            pass: "convert-index-to-llvm",
            options: &[],
        },
        Step {
            nest: None,
            pass: "convert-cf-to-llvm",
            options: &[],
        },
        Step {
            nest: None,
            pass: "convert-func-to-llvm",
            options: &[],
        },
        Step {
            nest: None,
            pass: "reconcile-unrealized-casts",
            options: &[],
        },
        Step {
            nest: Some(LLVM_FUNCTION),
            pass: "llvm-fold-aggregates",
            options: &[],
        },
    ],
};

/// Every pipeline, in the order `--help` and the documentation list them.
pub fn all_pipelines() -> Vec<&'static PipelineInfo> {
    vec![&LAYERWISE, &GRAPHTURBO, &DSA_TO_LLVM]
}

/// The pipeline from the graph level to `dsa` of the kernel schedule `name` (`layerwise`,
/// `graphturbo`).
pub fn for_schedule(name: &str) -> Result<&'static PipelineInfo, String> {
    match name {
        "layerwise" => Ok(&LAYERWISE),
        "graphturbo" => Ok(&GRAPHTURBO),
        other => Err(format!(
            "unknown schedule '{other}' (available: layerwise, graphturbo)"
        )),
    }
}
