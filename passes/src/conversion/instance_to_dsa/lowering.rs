//! GraphTurbo's kernels (§4): a function scheduled by the instance passes (an `instance.clusters`
//! whose body is one cluster's program of bound, ordered instances) becomes kernels launched on
//! the cores of every cluster at once, each cluster computing its own share.
//!
//! - **Kernels.** Consecutive instances of one group in the instance order form one kernel; its
//!   instances run in that order, each layer of an instance a tile loop over the cluster's cores,
//!   layers separated by barriers. The tiles are the layer-wise lowering's (anchor tiling with
//!   the epilogue fused, GraphTurbo §4.1); within a kernel each layer's tiles are views of one
//!   LB arena per core. Segments (`instance-cluster-split`) follow each other in one kernel
//!   where they can: a segment whose first kernel places nothing of its own in the GB continues
//!   the last kernel of the segment before after a barrier of every core of the launch, in that
//!   kernel's arena ([`kernels`]), which leaves room to the results it keeps in the GB; the
//!   next layer's weights are copied while the layer before computes across instances and
//!   segments too (§4.4), weights only across segments, whose inputs the layer before may still
//!   be writing.
//! - **Buffer stitching (§4.2).** An instance writes its slice straight into its group's output
//!   buffer, so that the `instance.concat` of a group's instances is a view of that buffer and
//!   the `instance.slice` a consumer reads (with its halo) is a view again: no data moves between
//!   stitched layers but the tiles' own loads and stores. A copy or redistribution between
//!   instances is the consumer's tile loads from the cluster's GB. Slices that are not contiguous
//!   (rows or channels of a batch) are given contiguous copies before an instance reads them.
//! - **Memory (§4.3).** Group outputs and each kernel's intermediates live in the cluster's GB
//!   while live (liveness over the kernel order); where the GB overflows, the tensor chosen by the
//!   spill policy lives in DDR instead ([`plan`]). The results are written into the DDR output
//!   directly when a group computes them whole.
//!
//! Every cluster holds its own copy of each on-chip tensor (`dsa.alloc {cluster}`): host values
//! stand for one buffer per cluster ([`Replicas`]) and the kernel picks its cluster's.

use super::clusters::{read_clusters, Clusters};
use super::error::ScheduleError;
use super::host_build::{parameters, HostBuild};
use super::joins::{plan_joins, Joins};
use super::plan::Spill;
use super::segment::{HostCursor, Outputs};
use super::segments::Segments;
use super::summary::Summary;
use super::walk::{Sharing, Walk};
use crate::graph_view::FunctionView;
use crate::ir::Op;
use crate::kernels::emit::Replicas;
use crate::target::Machine;
use std::collections::BTreeSet;
use turbine_dialects::ops::{graph, upstream};

/// Lowers `function` (scheduled by the instance passes) into kernels and a host function of the
/// same name inserted before it; on failure nothing it built stays in the module.
pub fn lower_function(
    function: Op,
    machine: &Machine,
    spill: Spill,
    join: bool,
) -> Result<Summary, ScheduleError> {
    let mut built = Vec::new();
    let result = lower_into(function, machine, spill, join, &mut built);
    if result.is_err() {
        for op in built.into_iter().rev() {
            // SAFETY: `built` holds the top-level ops the failed lowering inserted into the module
            // (the host function, then its kernels): they have no results and no SSA value crosses
            // between them (kernels are isolated from above), and `built` is consumed here. The
            // error carries a location, not one of these ops.
            unsafe { op.erase() };
        }
    }
    result
}

/// [`lower_function`], pushing every op it builds onto `built`.
fn lower_into(
    function: Op,
    machine: &Machine,
    spill: Spill,
    join: bool,
    built: &mut Vec<Op>,
) -> Result<Summary, ScheduleError> {
    if let Some(control) = function.collect_pre_order().into_iter().find(|op| {
        op.is(graph::Kind::If) || op.is(graph::Kind::Loop) || op.is(upstream::Kind::FuncCall)
    }) {
        return Err(ScheduleError::at(
            control,
            format!(
                "'{}' (control flow) is not supported by GraphTurbo's lowering yet (the \
                 layer-wise schedule lowers it)",
                control.name()
            ),
        ));
    }
    let clusters = read_clusters(function)?;
    check_cluster_counts(&clusters, machine)?;
    let name = function.symbol_name();
    let outer = FunctionView::read(function)
        .map_err(|e| ScheduleError::at(e.op.unwrap_or(function), e.message))?;
    let mut host = HostBuild::new(function, &name, built);
    host.arguments(function, &outer)?;
    let result_buffers = host.outputs(function, &outer, &name)?;
    parameters(
        &mut host.signature,
        host.context,
        &outer.ops,
        &mut host.values,
    )?;
    let segments = Segments::new(&outer, &clusters, result_buffers, machine.gb_bytes);
    // Every segment's program and first walk (its kernels and their placement) before any is
    // emitted: whether a segment's first kernel continues the last of the segment before depends
    // on both.
    let cluster_machine = Machine {
        clusters: 1,
        cores: machine.cores_per_cluster,
        ..machine.clone()
    };
    let programs = read_programs(&clusters, &name)?;
    let walks = first_walks(
        &segments,
        &programs,
        &cluster_machine,
        spill,
        &host.replicas,
    )?;
    let joins = plan_joins(
        &outer,
        &segments.nodes,
        &walks,
        &segments.handover,
        &segments.last_reader,
        join,
    );
    let summary = emit_segments(&mut host, &segments, &programs, walks, &joins)?;
    host.body.op(upstream::Kind::FuncReturn, &[], &[], &[]);
    host.signature.finish();
    Ok(summary)
}

/// Fails when a segment is spread over more clusters than the target has.
fn check_cluster_counts(segments: &[Clusters], machine: &Machine) -> Result<(), ScheduleError> {
    if let Some(clusters) = segments
        .iter()
        .find(|clusters| clusters.count > machine.clusters)
    {
        return Err(ScheduleError::at(
            clusters.op,
            format!(
                "the program is spread over {} clusters but target '{}' has {}",
                clusters.count, machine.name, machine.clusters
            ),
        ));
    }
    Ok(())
}

/// The cluster program of each segment, labelled by the function's name `name` (and the
/// segment's index when there are several).
fn read_programs(segments: &[Clusters], name: &str) -> Result<Vec<FunctionView>, ScheduleError> {
    let mut programs = Vec::new();
    for (index, clusters) in segments.iter().enumerate() {
        let label = if segments.len() == 1 {
            name.to_owned()
        } else {
            format!("{name}_s{index}")
        };
        programs.push(
            FunctionView::read_body(clusters.op, label)
                .map_err(|e| ScheduleError::at(e.op.unwrap_or(clusters.op), e.message))?,
        );
    }
    Ok(programs)
}

/// The first walk of each segment's program (`programs`) on one cluster of `cluster_machine`:
/// its kernels and the placement of its tensors in what the values handed over leave of the GB.
fn first_walks<'p>(
    segments: &Segments,
    programs: &'p [FunctionView],
    cluster_machine: &'p Machine,
    spill: Spill,
    replicas: &Replicas,
) -> Result<Vec<Walk<'p>>, ScheduleError> {
    let outer = segments.outer;
    let mut walks = Vec::new();
    for (index, clusters) in segments.clusters.iter().enumerate() {
        let node = &outer.ops[segments.nodes[index]];
        let program = &programs[index];
        let (mut read_whole, mut outer_weights) = (BTreeSet::new(), BTreeSet::new());
        for (position, (value, _)) in program.arguments.iter().enumerate() {
            let operand = node.operands[position];
            let weight = outer.producer(operand).is_some_and(|p| {
                matches!(
                    outer.ops[p].graph_kind(),
                    Some(graph::Kind::Weight | graph::Kind::Constant)
                )
            });
            let whole =
                clusters.count > 1 && clusters.input_dims.get(position).is_none_or(|&dim| dim < 0);
            if weight || whole {
                read_whole.insert(*value);
            }
            if weight {
                outer_weights.insert(*value);
            }
        }
        // Results the clusters do not split (a returned argument): with several clusters, written
        // by the first only, as every cluster holds the same values.
        let whole_outputs = (0..node.results.len())
            .map(|position| {
                clusters.result_dims.get(position).copied().unwrap_or(-1) < 0 && clusters.count > 1
            })
            .collect();
        let gb_bytes = cluster_machine.gb_bytes - segments.handover.held[index];
        let sharing = Sharing {
            count: clusters.count,
            replicas: replicas.clone(),
            whole_outputs,
            read_whole,
            outer_weights,
        };
        let mut walk = Walk::new(program, cluster_machine, gb_bytes, spill, sharing)?;
        let written_before = |position: usize| {
            index > 0 && outer.producer(node.operands[position]) == Some(segments.nodes[index - 1])
        };
        walk.written_before = program
            .arguments
            .iter()
            .enumerate()
            .filter(|(position, _)| written_before(*position))
            .map(|(_, (value, _))| *value)
            .collect();
        walks.push(walk);
    }
    Ok(walks)
}

/// Emits each segment's kernels (`walks`, of `programs`) with the host code around them, a
/// segment continuing the kernel the one before left open where `joins` says, and frees the
/// values handed over after their last reader. Returns what the emission decided.
fn emit_segments(
    host: &mut HostBuild,
    segments: &Segments,
    programs: &[FunctionView],
    walks: Vec<Walk>,
    joins: &Joins,
) -> Result<Summary, ScheduleError> {
    let mut summary = Summary::default();
    let mut carried = None;
    for (index, walk) in walks.into_iter().enumerate() {
        let program = &programs[index];
        let mut tensors = host.segment_inputs(segments, index, program);
        let (outputs, output_mirrors) =
            host.segment_outputs(segments, index, &mut carried, joins.carved[index]);
        parameters(
            &mut host.signature,
            host.context,
            &program.ops,
            &mut tensors,
        )?;
        let keep_open = joins.continues.get(index + 1).copied().unwrap_or(false);
        let (emitted, open) = walk.emit(
            HostCursor {
                body: &mut host.body,
                function: host.signature.op,
                built: &mut *host.built,
            },
            &mut tensors,
            Outputs {
                tensors: &outputs,
                mirrors: &output_mirrors,
            },
            joins.reserves[index],
            carried.take(),
            keep_open,
        )?;
        summary.add(emitted);
        carried = open;
        host.free_dead(segments, index, &mut carried);
    }
    Ok(summary)
}
