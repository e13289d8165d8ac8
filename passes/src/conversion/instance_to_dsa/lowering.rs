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

use super::clusters::read_clusters;
use super::error::ScheduleError;
use super::host_buffers::{allocate, free, shares};
use super::segment::{HostCursor, Outputs};
use super::summary::Summary;
use super::{emission, handover, plan::Spill, walk};
use crate::kernels::{
    emit::{Body, Replicas, Space, Tensor, View},
    host_function::{check_f32, HostFunction},
    view::buffer_shape,
};
use crate::target::Machine;
use crate::{
    graph_view::{FunctionView, Node, ValueId},
    ir::{self, Op},
};
use std::collections::{BTreeMap, BTreeSet};

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
            op.erase();
        }
    }
    result
}

/// The host argument of a weight or constant, which every cluster reads (or its share of).
fn parameter(
    signature: &mut HostFunction,
    context: mlir_sys::MlirContext,
    node: &Node,
) -> Result<Tensor, ScheduleError> {
    let (_, r#type) = node
        .results
        .first()
        .cloned()
        .ok_or_else(|| ScheduleError::at(node.op, "a weight without a result"))?;
    check_f32(r#type.element_type, None, "weight")
        .map_err(|e| ScheduleError::at(node.op, e.message))?;
    let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
    let role = if node.name == "graph.weight" {
        let weight = node
            .string("name")
            .ok_or_else(|| ScheduleError::at(node.op, "graph.weight without a name"))?;
        ("dsa.weight", ir::string_attribute(context, weight))
    } else {
        let constant = node
            .constant()
            .ok_or_else(|| ScheduleError::at(node.op, "graph.constant without a dense value"))?;
        ("dsa.constant", constant.flattened())
    };
    let buffer = signature.parameter(&view, role.0, role.1, node.op.location());
    Ok(Tensor { host: buffer, view })
}

fn lower_into(
    function: Op,
    machine: &Machine,
    spill: Spill,
    join: bool,
    built: &mut Vec<Op>,
) -> Result<Summary, ScheduleError> {
    let segments = read_clusters(function)?;
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
    let name = function.symbol_name();
    let outer = FunctionView::read(function).map_err(|e| ScheduleError {
        op: e.op.or(Some(function)),
        message: e.message,
    })?;

    let mut signature = HostFunction::new(function, &name);
    built.push(signature.op);
    let replicas = Replicas::default();
    let mut host = Body::new(signature.block, function.location()).with_replicas(replicas.clone());
    let context = host.context();

    // The function's values outside the segments: its arguments, weights and constants, and the
    // segments' results (whole tensors in DDR).
    let mut values: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    for (position, (value, r#type)) in outer.arguments.iter().enumerate() {
        check_f32(r#type.element_type, None, "function argument")
            .map_err(|e| ScheduleError::at(function, e.message))?;
        let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
        let location = function.entry_argument(position).location();
        let buffer = signature.parameter(
            &view,
            "dsa.input",
            ir::i64_attribute(context, position as i64),
            location,
        );
        values.insert(*value, Tensor { host: buffer, view });
    }
    // Outputs: the function's results, written by the segments that compute them.
    let returned = outer.returned().to_vec();
    let mut result_buffers: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    for (position, value) in returned.iter().enumerate() {
        let view = View::contiguous(&buffer_shape(&outer.type_of(*value).shape), Space::Ddr);
        let location = outer
            .ops
            .last()
            .map_or(function.location(), |node| node.op.location());
        let buffer = signature.parameter(
            &view,
            "dsa.output",
            ir::i64_attribute(context, position as i64),
            location,
        );
        let produced = outer
            .producer(*value)
            .is_some_and(|index| outer.ops[index].name == "instance.clusters");
        if !produced
            || result_buffers
                .insert(*value, Tensor { host: buffer, view })
                .is_some()
        {
            return Err(ScheduleError::at(function, format!("result {position} of @{name} must be a result of instance.clusters, returned once")));
        }
    }
    for node in &outer.ops {
        if matches!(node.name.as_str(), "graph.weight" | "graph.constant") {
            values.insert(node.results[0].0, parameter(&mut signature, context, node)?);
        }
    }
    // Each segment's op in the view, and the segment after which each intermediate is read no more.
    let nodes: Vec<usize> = segments
        .iter()
        .map(|clusters| {
            outer
                .ops
                .iter()
                .position(|node| node.op.0.ptr == clusters.op.0.ptr)
                .expect("the view has every op")
        })
        .collect();
    let mut last_reader: BTreeMap<ValueId, usize> = BTreeMap::new();
    for (index, &node) in nodes.iter().enumerate() {
        for operand in &outer.ops[node].operands {
            last_reader.insert(*operand, index);
        }
    }
    let handover = handover::plan(
        &outer,
        &segments,
        &nodes,
        &result_buffers.keys().copied().collect(),
        machine.gb_bytes,
    );

    // Every segment's program and first walk (its kernels and their placement) before any is
    // emitted: whether a segment's first kernel continues the last of the segment before depends
    // on both.
    let cluster_machine = Machine {
        clusters: 1,
        cores: machine.cores_per_cluster,
        ..machine.clone()
    };
    let mut programs = Vec::new();
    for (index, clusters) in segments.iter().enumerate() {
        let label = if segments.len() == 1 {
            name.clone()
        } else {
            format!("{name}_s{index}")
        };
        programs.push(
            FunctionView::read_body(clusters.op, label).map_err(|e| ScheduleError {
                op: e.op.or(Some(clusters.op)),
                message: e.message,
            })?,
        );
    }
    let mut walks = Vec::new();
    for (index, clusters) in segments.iter().enumerate() {
        let node = &outer.ops[nodes[index]];
        let program = &programs[index];
        let (mut read_whole, mut outer_weights) = (BTreeSet::new(), BTreeSet::new());
        for (position, (value, _)) in program.arguments.iter().enumerate() {
            let operand = node.operands[position];
            let weight = outer.producer(operand).is_some_and(|p| {
                matches!(
                    outer.ops[p].name.as_str(),
                    "graph.weight" | "graph.constant"
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
        let gb_bytes = machine.gb_bytes - handover.held[index];
        let mut walk = walk::Walk::new(
            program,
            &cluster_machine,
            gb_bytes,
            clusters.count,
            spill,
            replicas.clone(),
            whole_outputs,
            read_whole,
            outer_weights,
        )?;
        let written_before = |position: usize| {
            index > 0 && outer.producer(node.operands[position]) == Some(nodes[index - 1])
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
    let (continues, reserves, carved) =
        plan_joins(&outer, &nodes, &walks, &handover, &last_reader, join);
    // The segment after which each mirrored value is read from its GB copy no more.
    let mut last_mirror_reader: BTreeMap<ValueId, usize> = BTreeMap::new();
    for (index, &node) in nodes.iter().enumerate() {
        for (position, operand) in outer.ops[node].operands.iter().enumerate() {
            if handover.reads_mirror(operand, &segments[index], position) {
                last_mirror_reader.insert(*operand, index);
            }
        }
    }
    let mut mirrors: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    // Results carved out of an arena: views of it, freed with it.
    let mut arena_views: BTreeSet<ValueId> = BTreeSet::new();

    let mut summary = Summary::default();
    let mut carried = None;
    for (index, walk) in walks.into_iter().enumerate() {
        let clusters = &segments[index];
        let node = &outer.ops[nodes[index]];
        let program = &programs[index];
        let mut tensors: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for (position, (value, _)) in program.arguments.iter().enumerate() {
            let operand = node.operands[position];
            let tensor = if handover.resident.contains_key(&operand) {
                values[&operand].clone()
            } else if handover.reads_mirror(&operand, clusters, position) {
                mirrors[&operand].clone()
            } else {
                shares(
                    &mut host,
                    &replicas,
                    &values[&operand],
                    clusters.input_dims.get(position).copied().unwrap_or(-1),
                    clusters.count,
                )
            };
            tensors.insert(*value, tensor);
        }
        let (mut outputs, mut output_mirrors) = (Vec::new(), Vec::new());
        for (position, (value, r#type)) in node.results.iter().enumerate() {
            let dim = clusters.result_dims.get(position).copied().unwrap_or(-1);
            // Each cluster's share, in its own GB: carved out of the arena of the kernel this
            // segment continues when `carved`.
            let mut gb_share = |host: &mut Body| {
                let mut shape = buffer_shape(&r#type.shape);
                if dim >= 0 {
                    shape[dim as usize] /= clusters.count;
                }
                let arena = carved[index]
                    .then_some(carried.as_mut())
                    .flatten()
                    .and_then(|open: &mut emission::Carried| open.arena.as_mut());
                let block = arena.and_then(|(arena, free)| {
                    Some((arena.host, free.take_high(shape.iter().product())?))
                });
                match block {
                    Some((arena, offset)) => {
                        let offset = host.index(offset);
                        let (value, view) = host.reinterpret_at(
                            arena,
                            offset,
                            &View::contiguous(&shape, Space::Gb),
                        );
                        (Tensor { host: value, view }, true)
                    }
                    None => (
                        allocate(host, &replicas, &shape, Space::Gb, clusters.count),
                        false,
                    ),
                }
            };
            if handover.resident.contains_key(value) {
                let (share, in_arena) = gb_share(&mut host);
                if in_arena {
                    arena_views.insert(*value);
                }
                outputs.push(share.clone());
                output_mirrors.push(None);
                values.insert(*value, share);
                continue;
            }
            let mirror = handover.mirrored.contains_key(value).then(|| {
                let (mirror, in_arena) = gb_share(&mut host);
                if in_arena {
                    arena_views.insert(*value);
                }
                mirror
            });
            if let Some(mirror) = &mirror {
                mirrors.insert(*value, mirror.clone());
            }
            output_mirrors.push(mirror);
            let whole = match result_buffers.get(value) {
                Some(buffer) => buffer.clone(),
                None => allocate(
                    &mut host,
                    &replicas,
                    &buffer_shape(&r#type.shape),
                    Space::Ddr,
                    1,
                ),
            };
            outputs.push(shares(&mut host, &replicas, &whole, dim, clusters.count));
            values.insert(*value, whole);
        }
        for inner in &program.ops {
            if matches!(inner.name.as_str(), "graph.weight" | "graph.constant") {
                tensors.insert(
                    inner.results[0].0,
                    parameter(&mut signature, context, inner)?,
                );
            }
        }
        let keep_open = continues.get(index + 1).copied().unwrap_or(false);
        let (emitted, open) = walk.emit(
            HostCursor {
                body: &mut host,
                function: signature.op,
                built,
            },
            &mut tensors,
            Outputs {
                tensors: &outputs,
                mirrors: &output_mirrors,
            },
            reserves[index],
            carried.take(),
            keep_open,
        )?;
        summary.add(emitted);
        carried = open;
        // Intermediates between segments are freed after their last reader (after the launch of
        // the kernel that reads them, when the next segment continues it).
        let done_with = |last: &BTreeMap<ValueId, usize>, value: &ValueId| {
            last[value] == index
                && outer
                    .producer(*value)
                    .is_some_and(|p| outer.ops[p].name == "instance.clusters")
        };
        let dead = last_reader
            .keys()
            .filter(|value| {
                done_with(&last_reader, value)
                    && !result_buffers.contains_key(*value)
                    && !(handover.resident.contains_key(*value) && arena_views.contains(*value))
            })
            .map(|value| values[value].clone());
        let dead_mirrors = last_mirror_reader
            .keys()
            .filter(|value| done_with(&last_mirror_reader, value) && !arena_views.contains(*value))
            .map(|value| mirrors[value].clone());
        for tensor in dead.chain(dead_mirrors).collect::<Vec<_>>() {
            match &mut carried {
                Some(open) => open.frees.push(tensor),
                None => free(&mut host, &replicas, &tensor),
            }
        }
    }
    host.op("func.return", &[], &[], &[]);
    signature.finish();
    Ok(summary)
}

/// Which segments continue the kernel of the segment before (`continues`), what the segment that
/// opened a kernel reserves of its last kernel's arena for the results those keep in the GB
/// (`reserves`), and which of them carve their kept results out of that arena instead
/// (`carved`). A segment keeping results allocates them while the kernel it continues is open,
/// beside that kernel's arena: the opener leaves them room in the arena of its last kernel when
/// its intermediates and those of the segments continuing it still fit. When it cannot spare
/// them, they are carved out of its arena, whose contents are dead once the opener is done, if
/// every segment reading them continues that kernel, in one kernel of its own: a segment keeping
/// a result that had to launch a kernel of its own copied its inputs while the cores waited.
fn plan_joins(
    outer: &FunctionView,
    nodes: &[usize],
    walks: &[walk::Walk],
    handover: &handover::Handover,
    last_reader: &BTreeMap<ValueId, usize>,
    join: bool,
) -> (Vec<bool>, Vec<usize>, Vec<bool>) {
    let count = walks.len();
    let mut uncarvable = BTreeSet::new();
    loop {
        let (mut continues, mut reserves, mut carved, mut carved_in) = (
            vec![false; count],
            vec![0; count],
            vec![false; count],
            vec![0; count],
        );
        let mut opener = 0;
        for index in 0..count {
            let kept = handover.kept_by(outer, nodes[index]);
            let joins = index > 0 && join && continues_kernel(&walks[index - 1], &walks[index]);
            let continuing = &walks[opener + 1..=index];
            if joins
                && (kept == 0
                    || leaves_room(
                        &walks[opener],
                        reserves[opener] + kept,
                        carved_in[opener],
                        continuing,
                    ))
            {
                continues[index] = true;
                reserves[opener] += kept;
            } else if joins
                && !uncarvable.contains(&index)
                && leaves_room(
                    &walks[opener],
                    reserves[opener],
                    carved_in[opener] + kept,
                    continuing,
                )
            {
                (continues[index], carved[index]) = (true, true);
                carved_in[opener] += kept;
            } else {
                opener = index;
            }
        }
        // A carved result read after its kernel is launched would be read after its arena.
        let broken: Vec<usize> = (0..count)
            .filter(|&index| carved[index])
            .filter(|&index| {
                let last = outer.ops[nodes[index]]
                    .results
                    .iter()
                    .filter_map(|(value, _)| last_reader.get(value))
                    .copied()
                    .max()
                    .unwrap_or(index)
                    .max(index);
                !continues[index + 1..=last].iter().all(|&c| c)
                    || walks[index..=last].iter().any(|walk| walk.items.len() > 1)
            })
            .collect();
        if broken.is_empty() {
            return (continues, reserves, carved);
        }
        uncarvable.extend(broken);
    }
}

/// Whether the last kernel of `opener`, continued by the segments walked as `continuing`, leaves
/// `reserve` bytes of its arena to results kept in the GB beside it, and `carved` more to results
/// carved out of it once `opener` is done: its own intermediates fit the rest of the first, those
/// of the continuing segments what both leave. (Without a reserve the opener's arena is its own
/// business: its needs count a convolution's result beside its epilogue's, which is never stored,
/// and exceed it in ResNet-50's stages 1-3.)
fn leaves_room(
    opener: &walk::Walk,
    reserve: usize,
    carved: usize,
    continuing: &[walk::Walk],
) -> bool {
    let last = opener.items.len() - 1;
    let room = (opener.arena_elements(last) * 4).saturating_sub(reserve);
    let own = opener.needs.get(last).copied().unwrap_or(0);
    let theirs = continuing
        .iter()
        .map(|walk| walk.needs.first().copied().unwrap_or(0))
        .max()
        .unwrap_or(0);
    (reserve == 0 || room >= own) && room.saturating_sub(carved) >= theirs
}

/// Whether the first kernel of the segment walked as `walk` can continue the last kernel of the
/// segment before (walked as `before`): on as many clusters, placing no tensor of its own in the
/// GB (the buffers of both stay allocated until the one launch), with at least the arena it would
/// have had alone or what its intermediates need.
fn continues_kernel(before: &walk::Walk, walk: &walk::Walk) -> bool {
    let room = before.arena_elements(before.items.len() - 1) * 4;
    walk.count == before.count
        && walk.starts_without_gb_tensors()
        && room
            >= walk
                .needs
                .first()
                .copied()
                .unwrap_or(0)
                .min(walk.arena_elements(0) * 4)
}
