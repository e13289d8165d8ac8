//! `convert-graph-to-dsa`: lowers a `graph` function to `dsa` kernels and the host function that
//! launches them, with the layer-wise schedule.
//!
//! The layer-wise schedule is what TVM-style compilers generate and what every GraphTurbo step is
//! measured against: one kernel per layer (an anchor op and its elementwise epilogue, see
//! [`crate::kernels::fusion`]), activations and weights in DDR between kernels, and inside a
//! kernel tiles sized to fit the local buffer — the largest tiles that divide the loop ranges
//! (GraphTurbo §4.1), the choice between candidates made by a cost estimate of the DMA traffic
//! and instruction count. Tiles are spread over every core of the target: batch-major numbering
//! puts the batch across clusters and the next dimension across the cores of a cluster.
//!
//! The host function keeps the graph function's name. Its arguments are DDR buffers: the graph
//! function's inputs (`{dsa.input = i}`), its results (`{dsa.output = i}`, written by the
//! kernels), then every weight (`{dsa.weight = "name"}`, loaded by the driver from the side file
//! named by the module's `graph.weights`) and inline constant (`{dsa.constant = dense<...>}`).
//!
//! The output is built op by op through the typed builders of [`crate::kernels::emit`], which
//! return values: data flow is checked as the IR is made, and every op carries the location of
//! the graph op it computes (an epilogue step that of its own graph op), so a diagnostic inside a
//! kernel names the model's layer — for ONNX input, the node's name. [`host`] builds the host
//! function; each layer's kernel comes from the emitters of [`crate::kernels`], which GraphTurbo's
//! lowering (`convert-instance-to-dsa`) shares.

mod chain_fusion;
mod control_mode;
mod host;
mod region_call;
mod residency;
mod signatures;

pub use chain_fusion::{ChainFusion, FUSE_CHAINS_OPTION};
pub use control_mode::{ControlMode, CONTROL_OPTION};

use crate::target::Machine;
use crate::tuning::{self, Tuning};
use crate::{
    graph_view::{FunctionView, OUTLINED},
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use signatures::Signatures;
use std::collections::BTreeMap;
use std::rc::Rc;
use turbine_dialects::ops::{upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The `pipeline` option of both kernel-generating passes.
pub const PIPELINE_OPTION: OptionInfo = OptionInfo {
    name: "pipeline",
    description: "Software-pipeline tile loops where the LB holds double buffers and the \
                  estimate says it pays, and (GraphTurbo kernels) copy a layer's weights to the \
                  GB in pieces issued between the tiles of the layer before (GraphTurbo §4.4); \
                  false for the ablation",
    kind: OptionKind::Bool,
    default: "true",
};

/// The `keep-invariants` option of the layer-wise lowering and its pipeline.
pub const KEEP_INVARIANTS_OPTION: OptionInfo = OptionInfo {
    name: "keep-invariants",
    description: "Keep a loop's invariant inputs (weights) in every cluster's GB, copied once per \
                  loop, where the cost model says it pays (Cocktailer §5); false reads them from \
                  DDR at every iteration",
    kind: OptionKind::Bool,
    default: "true",
};

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ConvertGraphToDsa {
    schedule: String,
    pipeline: bool,
    settings: Settings,
    tuning_cache: String,
    tuning_rank: Option<usize>,
    tuning_fusion_rank: Option<usize>,
}

/// The `tuning-cache` option of the layer-wise lowering and its pipeline.
pub const TUNING_CACHE_OPTION: OptionInfo = OptionInfo {
    name: "tuning-cache",
    description: "A tuning cache (turbine-run --tune writes one): each layer it names takes the \
                  tiling measured fastest there (BOLT §3.2) instead of the estimate's; a cache \
                  of another compiler or target is refused",
    kind: OptionKind::String,
    default: "",
};

/// The `tuning-fusion-rank` option of the layer-wise lowering and its pipeline.
pub const TUNING_FUSION_RANK_OPTION: OptionInfo = OptionInfo {
    name: "tuning-fusion-rank",
    description: "Every chain that `fuse-chains=auto` decides takes its fusion decision of this \
                  rank by estimate (0: the estimate's, 1: the other; -1: no rank), the tilings \
                  taking `tuning-rank` (0 if unset): what the tuner measures fusion with",
    kind: OptionKind::Int,
    default: "-1",
};

/// The `tuning-rank` option of the layer-wise lowering and its pipeline.
pub const TUNING_RANK_OPTION: OptionInfo = OptionInfo {
    name: "tuning-rank",
    description: "Every layer takes the candidate tiling of this rank by estimate (0: the \
                  estimate's pick; the estimate's pick where there are fewer; -1: no rank): \
                  what the tuner measures, one compile per rank",
    kind: OptionKind::Int,
    default: "-1",
};

impl Pass for ConvertGraphToDsa {
    const ARGUMENT: &'static str = "convert-graph-to-dsa";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const SUMMARY: &'static str =
        "Lower graph functions to dsa kernels and a host function (layer-wise schedule)";
    const DESCRIPTION: &'static str = "\
The module must carry a `dsa.target` (see `dsa-set-target`). Every `func.func` \
in the graph dialect becomes a host function of the same name that launches one `dsa.kernel` per \
layer: a convolution, matrix product, pooling or row-wise op (softmax, layer norm, reduction) with \
the elementwise ops that only refine its result (bias, batch norm, activation, residual add) fused \
as an epilogue on the output tile, or a lone elementwise chain, or a data-movement op (transpose, \
concat, slice, split, pad) done by DMA. Reshapes are views and cost nothing. Activations and \
weights live in DDR between kernels; inside a kernel, tiles are the largest that divide the loop \
ranges and fit the local buffer (GraphTurbo §4.1), chosen by an estimate of DMA bytes and \
instruction count, and are spread over all cores of the target. The host function takes the \
inputs, the results and then every weight and constant as DDR buffers (argument attributes \
`dsa.input`, `dsa.output`, `dsa.weight`, `dsa.constant` say which). A private graph function \
(a body `graph-outline-control-flow` made) becomes a private host function that also takes the \
weights and constants of the functions it calls, and so does its caller. A `graph.if` reads its \
condition (`dsa.read_scalar`) and calls one body's host function; a `graph.loop` copies its \
initial values into one of two sets of carried buffers and runs an `scf.while` that calls the \
body from one set into the other, reads the condition it wrote and swaps the sets, with the \
device's watchdog (`dsa.loop_check`) consulted before each iteration. With `control=device` \
each construct sits in a `dsa.persistent` region (Cocktailer: the cores decide, and the \
launches are steps of one kernel). A loop's invariant inputs (those its body receives from \
outside the loop) are copied once into every cluster's GB and read from there by the body's \
kernels, each its cluster's copy, when the shared cost model estimates the body cheaper so, the \
copy spread over the trip count when the loop surely runs it (`keep-invariants`; `explain` \
says what was decided). A product whose result only a second product reads, as its lhs, is fused \
with it into one kernel (BOLT §3.1) that keeps each row block of the first result in the LB and \
feeds it to the second product's tiles, never storing it; a convolution whose result only a 1x1 \
convolution (stride 1, no padding) reads feeds it each of its tiles, holding all its channels, \
in the LB. Either is chosen where the cost model estimates it faster than two layers \
(`fuse-chains`; `explain` gives both estimates). A layer's tiling is the estimate's pick among its \
candidates, or the one a tuning cache names (`tuning-cache`, measured by `turbine-run --tune`, \
BOLT §3.2), or the candidate of a rank (`tuning-rank`, what the tuner compiles); with either \
option each kernel records its layers' choices in `dsa.tuning` and the module the compiler and \
target they hold for. An op that is not supported or that cannot be tiled \
into the local buffer is an error at that op.";
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "schedule",
            description:
                "Kernel schedule: 'layerwise' (one kernel per layer, activations through DDR)",
            kind: OptionKind::String,
            default: "layerwise",
        },
        PIPELINE_OPTION,
        CONTROL_OPTION,
        KEEP_INVARIANTS_OPTION,
        FUSE_CHAINS_OPTION,
        TUNING_CACHE_OPTION,
        TUNING_RANK_OPTION,
        TUNING_FUSION_RANK_OPTION,
        OptionInfo {
            name: "explain",
            description: "Emit a remark at each graph.loop saying whether its body keeps its \
                          loop-invariant inputs in the clusters' GBs, and at each product that \
                          starts a chain whether it is fused, with the estimates compared",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let schedule = options.string("schedule");
        if schedule != "layerwise" {
            return Err(format!(
                "option 'schedule': unknown schedule '{schedule}' (available: layerwise)"
            ));
        }
        Ok(Self {
            schedule,
            pipeline: options.bool("pipeline")?,
            settings: Settings::from_options(options)?,
            tuning_cache: options.string("tuning-cache"),
            tuning_rank: rank_option(options, "tuning-rank")?,
            tuning_fusion_rank: rank_option(options, "tuning-fusion-rank")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        debug_assert_eq!(self.schedule, "layerwise");
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        let Some(machine) = Machine::of_module(module) else {
            module.emit_error(
                "convert-graph-to-dsa needs the module's dsa.target; run dsa-set-target first",
            );
            return Err(PassFailure);
        };
        let machine = Machine {
            pipeline: self.pipeline,
            ..machine
        };
        let tuning = self.tuning(&machine).map_err(|message| {
            module.emit_error(&message);
            PassFailure
        })?;
        if !matches!(tuning, Tuning::Estimate) {
            tuning::stamp(module, &machine.tuning_header());
        }
        let machine = Machine { tuning, ..machine };
        lower_graph_functions(module, &machine, &self.settings)
    }
}

impl ConvertGraphToDsa {
    /// How the layers' tilings are chosen on `machine`: by the tuning cache, by rank, or by the
    /// estimate.
    fn tuning(&self, machine: &Machine) -> Result<Tuning, String> {
        let ranks = (self.tuning_rank, self.tuning_fusion_rank);
        match (self.tuning_cache.as_str(), ranks) {
            ("", (None, None)) => Ok(Tuning::Estimate),
            ("", (tilings, fusion)) => Ok(Tuning::Rank {
                tilings: tilings.unwrap_or(0),
                fusion: fusion.unwrap_or(0),
            }),
            (path, (None, None)) => {
                let file = tuning::File::read(path, &machine.tuning_header())?;
                Ok(Tuning::Cache(Rc::new(file.cache())))
            }
            (_, _) => Err(
                "options 'tuning-cache' and 'tuning-rank' exclude each other: a compile either \
                 reads the measured choices or explores a rank"
                    .into(),
            ),
        }
    }
}

/// The rank option `name`: None for -1.
fn rank_option(options: &PassOptions, name: &str) -> Result<Option<usize>, String> {
    match options.int(name)? {
        -1 => Ok(None),
        rank => usize::try_from(rank)
            .map(Some)
            .map_err(|_| format!("option '{name}': a rank is 0 or more (or -1 for none)")),
    }
}

/// How [`lower_graph_functions`] lowers: the layer-wise pass's options.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    /// Who runs the control flow.
    pub control: ControlMode,
    /// Whether loops keep their invariant inputs in the clusters' GBs where it pays.
    pub keep_invariants: bool,
    /// When two chained products run as one kernel.
    pub fuse_chains: ChainFusion,
    /// Whether to explain the residency and chain decisions as remarks.
    pub explain: bool,
}

impl Settings {
    /// The settings the options of a kernel-generating pass give (`control`, `keep-invariants`,
    /// `fuse-chains`, `explain`).
    pub fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            control: ControlMode::parse(&options.string("control"))?,
            keep_invariants: options.bool("keep-invariants")?,
            fuse_chains: ChainFusion::parse(&options.string("fuse-chains"))?,
            explain: options.bool("explain")?,
        })
    }
}

/// Lowers every graph function of `module` (whose target is `machine`) with the layer-wise
/// schedule, each into a host function of the same name; host functions already in the module
/// (GraphTurbo's, of loop bodies) are called with what their parameters say. On failure the
/// error is emitted at the op it concerns.
pub fn lower_graph_functions(
    module: Op,
    machine: &Machine,
    settings: &Settings,
) -> Result<(), PassFailure> {
    let mut programs = Vec::new();
    let mut lowered = Vec::new();
    for function in module.body_ops() {
        if !function.is(upstream::Kind::FuncFunc) || function.regions_empty() {
            continue;
        }
        // A host function another lowering made (GraphTurbo's, of a loop's body): its
        // callers here pass it what its parameters say.
        if let Some(parameters) = signatures::lowered_parameters(function) {
            lowered.push((function.symbol_name(), parameters));
            continue;
        }
        let name = function.symbol_name();
        let program = FunctionView::read(function).map_err(|error| {
            error
                .op
                .unwrap_or(function)
                .emit_error(&format!("cannot lower @{name}: {}", error.message));
            PassFailure
        })?;
        programs.push((function, program));
    }
    let views: Vec<FunctionView> = programs.iter().map(|(_, view)| view.clone()).collect();
    let outlined = programs
        .iter()
        .filter(|(function, _)| function.attribute(OUTLINED).is_some())
        .map(|(_, view)| view.name.clone())
        .collect();
    let signatures = Signatures::of(&views, outlined, lowered);
    let residency = if settings.keep_invariants {
        residency::plan(&views, machine)
    } else {
        BTreeMap::new()
    };
    let one_cluster = Machine {
        clusters: 1,
        cores: machine.cores_per_cluster,
        ..machine.clone()
    };
    let context = host::Context {
        machine,
        one_cluster: &one_cluster,
        signatures: &signatures,
        control: settings.control,
        residency: &residency,
        fuse_chains: settings.fuse_chains,
        explain: settings.explain,
    };
    for (function, program) in programs {
        host::lower_function(&program, &context, function).map_err(|error| {
            let at = error
                .op
                .and_then(|index| program.ops.get(index).map(|node| node.op))
                .unwrap_or(function);
            at.emit_error(&error.message);
            PassFailure
        })?;
        // SAFETY: the lowered function is a top-level op of the module without results, whose
        // values nothing outside it reads (the host function and kernels are isolated from it);
        // the loop over the module's ops does not come back to it, and neither it nor
        // `program`, its view, is used after.
        unsafe { function.erase() };
    }
    Ok(())
}
