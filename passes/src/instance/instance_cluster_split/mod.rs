//! `instance-cluster-split`: the data parallelism across clusters that GraphTurbo's evaluation
//! starts from (§2 "the batch N = 32 is split across the clusters, each handling n = 8 images";
//! §5.1), made explicit: the function's body becomes an `instance.clusters` op whose body is one
//! cluster's program on its share of the data. The scheduling passes after it (`hw-group`,
//! `instance-split`, `instance-order`, `instance-bind`) plan that body against one cluster's
//! global buffer and cores.
//!
//! The cut is chosen on the first result: each dimension, outermost first, with the largest
//! number of clusters that divides it, is tried by [`partition`]; the one that uses the most
//! clusters wins, the outer one on a tie — the batch when it divides, else the next dimension
//! that separates. A dimension separates only when every cluster runs the same program on
//! disjoint shares with nothing computed twice (no halos, no reductions across the cut): the
//! clusters share no buffer but DDR, and a cut that made them exchange data or recompute it
//! would cost more than it spreads. When nothing separates — a batch-1 CNN, whose spatial cuts
//! need halos that grow through the network and whose channel cuts need every channel of the
//! layer before — the function runs on one cluster (count 1) and the remark says how much a cut
//! would have recomputed.

mod channel_cut;
mod clusters;
mod cut;
mod partition;
mod segments;
mod weight_traffic;

use super::wrap::{is_within, uses};
use crate::{
    graph_view::FunctionView,
    ir::{create, i64_array, i64_attribute, region_with_block, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    target::Machine,
};
use channel_cut::ChannelLayer;
use clusters::build_clusters;
use cut::Cut;
use melior::ir::OperationRef;
use mlir_sys::*;
use partition::Partition;
use turbine_dialects::ops::{instance, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct InstanceClusterSplit {
    target: String,
    explain: bool,
    channel_cut: bool,
    channel_cut_gain: f64,
}

impl Pass for InstanceClusterSplit {
    const ARGUMENT: &'static str = "instance-cluster-split";
    const SUMMARY: &'static str =
        "Spread each function over the target's clusters (GraphTurbo §2, §5.1)";
    const DESCRIPTION: &'static str = "\
Wraps the body of each function in an `instance.clusters` op: cluster k of the target's d clusters \
runs the body on share k of the arguments, and the results are the shares put together. The cut is \
made on the first result along the dimension that uses the most clusters (the largest divisor of \
its size up to d), the outermost on a tie, provided the function separates along it: region \
inference from each cluster's share back to the arguments must give every value one share along \
one dimension or the whole tensor, the same program on every cluster, and nothing that depends on \
the data computed whole by every cluster. The batch separates; a spatial or channel cut of a CNN \
does not (halos, reductions across the cut). When no dimension separates, the count is 1: the \
function runs on one cluster. Under a batch cut, or when the function runs on one cluster, a layer \
whose weights outweigh its share of the work (a convolution of one group or a product by a weight, \
with the element-wise ops after it, and a global average pooling and its flatten after those, \
which reduce each channel on its own) gets a segment of its own cut along its output channels over \
every cluster: each cluster reads a share of the weights and the whole input, and the ops before \
and after it form segments cut along the batch (or run on one cluster), so the function becomes a \
sequence of `instance.clusters` ops. Layers with nothing else between them form runs whose channel \
segments hand over to each other through DDR; the runs are chosen by dynamic programming over the \
layers in order, each run's estimate under `channel-cut-gain` (eleven tenths) of the batch cut's. \
The estimate charges the copy of the input before the layer computes, its work overlapped with its \
share of the weights, output and other operands over the DDR port, a launch per segment, and at a \
run's ends the input and output handed over through DDR, a launch and the next layer's weights as \
far as the DDR port would have had time to prefetch them under this layer (`channel-cut=false`: \
one cut for the whole function). Under a batch cut over several clusters, a 1x1 convolution with \
strides above 1 and no padding whose input a batch segment computes reads that input's subsampled \
copy (`graph.slice` with the strides as steps, made by that segment after the input's producer, \
each cluster its images) and runs at stride 1: its estimate reads the copy, a stride's square \
smaller than the input (ResNet-50's stage-4 projection). Grouping, splitting, ordering and binding \
then plan each body against one cluster's global buffer and cores. With `explain`, a remark on the \
function gives the choice and, for each dimension refused, why and how much it would have \
recomputed; for the chosen cut, the weights each cluster reads from DDR, their cycles on its DDR \
port against its matrix work, and the bound they set layer by layer (the larger of a layer's MACs \
on the cluster's matrix engines and its weights over the port, summed); a remark on each layer cut \
along its channels gives both estimates. A function holding control flow (a branch, a loop or a \
call) is left whole: GraphTurbo's pipeline lowers it layer-wise, and its bodies, functions of \
their own, are spread like any function.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        crate::target::TARGET_OPTION,
        OptionInfo {
            name: "explain",
            description: "Emit a remark with the chosen cut and why each other dimension was \
                          refused",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "channel-cut",
            description: "Give weight-bound layers a segment cut along their output channels over \
                          every cluster",
            kind: OptionKind::Bool,
            default: "true",
        },
        // Eleven tenths by default, above 1 because the estimate copies a channel-cut layer's
        // input before its work, where the lowering streams it under the work for some layers:
        // the estimate is pessimistic for the channel cut (docs/Benchmarks.md, "Cluster cuts
        // and grouping", compares it with 0.9).
        OptionInfo {
            name: "channel-cut-gain",
            description: "The fraction of its estimate with the function's cut a run of \
                          channel-cut layers must stay under (above 1 it also favours the channel \
                          cut: far above, every layer the cut can divide takes it)",
            kind: OptionKind::Float,
            default: "1.1",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let channel_cut_gain = options.float("channel-cut-gain")?;
        if channel_cut_gain.is_nan() || channel_cut_gain < 0.0 {
            return Err(format!(
                "option 'channel-cut-gain': expected a fraction of at least 0, got \
                 {channel_cut_gain}"
            ));
        }
        Ok(Self {
            target: options.string("target"),
            explain: options.bool("explain")?,
            channel_cut: options.bool("channel-cut")?,
            channel_cut_gain,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        if function.regions_empty() {
            return Ok(());
        }
        if let Some(op) = function
            .body_ops()
            .into_iter()
            .find(|op| op.kind().and_then(OpKind::instance).is_some())
        {
            let what = if op.is(instance::Kind::Clusters) {
                "is already spread over clusters"
            } else {
                "is already grouped: run instance-cluster-split before hw-group"
            };
            op.emit_error(&format!("@{} {what}", function.symbol_name()));
            return Err(PassFailure);
        }
        let machine = Machine::for_function(function, &self.target, Self::ARGUMENT)?;
        let view = FunctionView::read(function).map_err(|error| {
            error.op.unwrap_or(function).emit_error(&format!(
                "cannot spread @{} over clusters: {}",
                function.symbol_name(),
                error.message
            ));
            PassFailure
        })?;
        if view.returned().is_empty() {
            return Ok(());
        }
        if let Some(control) = view.ops.iter().find(|node| node.holds_control_flow()) {
            // The function's control flow is lowered layer-wise, its bodies by GraphTurbo.
            if self.explain {
                control.op.emit_remark(&format!(
                    "@{} is left whole: '{}' (control flow) is lowered layer-wise",
                    function.symbol_name(),
                    control.name
                ));
            }
            return Ok(());
        }
        let cut = Cut::choose(&view, machine.clusters);
        let count = cut.count();
        if self.explain {
            function.emit_remark(&format!(
                "@{} {}",
                function.symbol_name(),
                cut.explained(&view, &machine)
            ));
        }
        // Weight-bound layers cut along their channels over every cluster: between segments cut
        // along the batch, or, when nothing separates, between segments on one cluster (a cut
        // along another dimension, such as tokens, keeps the whole function in one segment).
        let batch_cut = cut.chosen.as_ref().is_none_or(|(dim, _)| *dim == 0);
        let layers = if self.channel_cut && batch_cut {
            channel_cut::weight_bound_layers(
                &view,
                count,
                machine.clusters,
                &machine,
                self.channel_cut_gain,
            )
        } else {
            Vec::new()
        };
        if !layers.is_empty() && self.segment(function, &view, &layers, count, machine.clusters) {
            return Ok(());
        }
        match cut.chosen {
            Some((_, partition)) => rewrite(function, &view, &partition),
            None => wrap_whole(function),
        }
        Ok(())
    }
}

impl InstanceClusterSplit {
    /// Rewrites the function into segments, `layers` each in one cut along its channels over
    /// `count` clusters (those that can be made consecutive), the rest cut along the batch over
    /// `batch_count` (1: run on one cluster); false, with the function untouched, when a segment
    /// does not separate.
    fn segment(
        &self,
        function: Op,
        view: &FunctionView,
        layers: &[ChannelLayer],
        batch_count: usize,
        count: usize,
    ) -> bool {
        // SAFETY: cloning a live function; MLIR just created the clone, which stays alive,
        // detached and owned here, until its body is taken and it is erased below.
        let clone = unsafe { Op::from_raw(mlirOperationClone(function.raw())) };
        let outcome = segments::segment(clone, view, layers, batch_count, count);
        match &outcome {
            Ok(segmented) if !segmented.layers.is_empty() => {
                if self.explain {
                    explain_layers(view, layers, &segmented.layers, count);
                    explain_own_cuts(&segmented.own_cuts);
                }
                // SAFETY: both functions are alive; the clone's body replaces the function's and
                // the emptied clone is destroyed.
                unsafe {
                    mlirRegionTakeBody(
                        mlirOperationGetRegion(function.raw(), 0),
                        mlirOperationGetRegion(clone.raw(), 0),
                    );
                }
                // SAFETY: the clone is detached, owned here, without results, and its body now
                // belongs to the function; it is not used after.
                unsafe { clone.erase() };
                true
            }
            _ => {
                if let (true, Err(reason)) = (self.explain, &outcome) {
                    function.emit_remark(&format!(
                        "@{}: no layer cut along its channels: {reason}",
                        function.symbol_name()
                    ));
                }
                // SAFETY: the clone is detached, owned here and without results, and nothing
                // outside it reads its values; `outcome` holds no handle into it, and it is not
                // used after.
                unsafe { clone.erase() };
                false
            }
        }
    }
}

/// Remarks on each segment between channel layers given a cut of its own: at its first op, the
/// dimension of its first result cut and the clusters.
fn explain_own_cuts(own_cuts: &[(MlirLocation, usize, usize)]) {
    for &(location, dim, shares) in own_cuts {
        // SAFETY: the location belongs to the function's context, alive for the pass.
        let location = unsafe { melior::ir::Location::from_raw(location) };
        crate::ir::emit_remark(
            location,
            &format!(
                "the segment from here to the next channel-cut layer is cut along dimension \
                 {dim} of its first result over {shares} clusters: no dimension of the \
                 function's result separates, this one separates the segment"
            ),
        );
    }
}

/// Remarks on each layer of `layers` given a segment (`kept`: its index and whether it reads its
/// input subsampled) cut over `count` clusters: both estimates.
fn explain_layers(
    view: &FunctionView,
    layers: &[ChannelLayer],
    kept: &[(usize, bool)],
    count: usize,
) {
    for &(k, subsampled) in kept {
        let layer = &layers[k];
        let anchor = &view.ops[layer.members[0]];
        let input = match layer.subsample.filter(|_| subsampled) {
            Some([rows, columns]) => {
                format!(", its input subsampled {rows}x{columns} by the segment before")
            }
            None => String::new(),
        };
        anchor.op.emit_remark(&format!(
            "'{}' cut along dimension {} of its result over {count} clusters in a segment of its \
             own{input}: estimated {:.0} cycles per cluster, against {:.0} with the batch cut \
             (its weights over the DDR port)",
            anchor.name, layer.dim, layer.channel_cycles, layer.batch_cycles
        ));
    }
}

/// Replaces the function's body by an `instance.clusters` op computing cluster 0's boxes of
/// `partition` (every cluster's program) and returning its results.
fn rewrite(function: Op, view: &FunctionView, partition: &Partition) {
    let ops = function.body_ops();
    let terminator = *ops.last().expect("a body ends in its terminator");
    let arguments: Vec<Val> = (0..view.arguments.len())
        .map(|index| function.entry_argument(index))
        .collect();
    let clusters = build_clusters(terminator, &arguments, view, partition, function.location());
    for index in 0..view.returned().len() {
        terminator.set_operand(index, clusters.result(index));
    }
    for op in ops[..ops.len() - 1].iter().rev() {
        // SAFETY: the terminator reads the clusters' results, and the old ops feed only each other,
        // so in reverse order each one's users are gone; `ops` and `view` are not used after.
        unsafe { op.erase() };
    }
}

/// Moves the function's body into an `instance.clusters` op of count 1: one cluster runs it all.
fn wrap_whole(function: Op) {
    let ops = function.body_ops();
    let terminator = *ops.last().expect("a body ends in its terminator");
    // SAFETY: the function and its ops are alive; ops are moved, not freed.
    unsafe {
        let context = mlirOperationGetContext(function.raw());
        let location = function.location();
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function.raw(), 0));
        let arguments: Vec<Val> = (0..mlirBlockGetNumArguments(block))
            .map(|index| function.entry_argument(index as usize))
            .collect();
        let types: Vec<MlirType> = arguments.iter().map(|argument| argument.r#type()).collect();
        let results: Vec<Val> = (0..mlirOperationGetNumOperands(terminator.raw()))
            .map(|index| terminator.operand(index as usize))
            .collect();
        let result_types: Vec<MlirType> = results.iter().map(|result| result.r#type()).collect();
        let (region, body) = region_with_block(&types, location);
        let whole = |count: usize| i64_array(context, &vec![-1; count]);
        let attributes = [
            ("count", i64_attribute(context, 1)),
            ("input_dims", whole(arguments.len())),
            ("result_dims", whole(results.len())),
        ];
        let clusters = create(
            InsertionPoint::Before(terminator),
            location,
            instance::Kind::Clusters,
            &arguments,
            &result_types,
            &attributes,
            vec![region],
        );
        for op in &ops[..ops.len() - 1] {
            mlirOperationRemoveFromParent(op.raw());
            mlirBlockAppendOwnedOperation(body, op.raw());
        }
        // The yield first: a returned argument is then one of the uses moved to the block's.
        create(
            InsertionPoint::End(body),
            location,
            instance::Kind::Yield,
            &results,
            &[],
            &[],
            Vec::new(),
        );
        for (position, argument) in arguments.iter().enumerate() {
            for (owner, operand) in uses(*argument) {
                if owner.ptr != clusters.raw().ptr && is_within(owner, clusters.raw()) {
                    mlirOperationSetOperand(
                        owner,
                        operand as isize,
                        mlirBlockGetArgument(body, position as isize),
                    );
                }
            }
        }
        for index in 0..results.len() {
            terminator.set_operand(index, clusters.result(index));
        }
    }
}
