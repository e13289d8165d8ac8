//! The host function of a lowered function: its signature (the function's arguments, results,
//! weights and constants as buffers), and the host buffers of the values the segments hand each
//! other, allocated before a segment's kernels and freed after their last reader.

use super::emission::Carried;
use super::error::ScheduleError;
use super::host_buffers::{allocate, free, shares};
use super::plan::FirstFit;
use super::segments::Segments;
use crate::graph_view::{FunctionView, Node, TensorType, ValueId};
use crate::ir::{self, Op};
use crate::kernels::{
    emit::{Body, Replicas, Space, Tensor, View},
    host_function::{check_buffer_element, HostFunction},
    view::buffer_shape,
};
use mlir_sys::MlirContext;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::{graph, instance};

/// The host function being built, and the buffers of the function's values outside the
/// segments: its arguments, weights and constants, and the segments' results (whole tensors in
/// DDR, or shares kept in the GBs).
pub(super) struct HostBuild<'b> {
    pub(super) signature: HostFunction,
    pub(super) body: Body,
    /// The host values standing for every cluster's buffer of one tensor.
    pub(super) replicas: Replicas,
    pub(super) context: MlirContext,
    /// The ops built so far (erased if the lowering fails).
    pub(super) built: &'b mut Vec<Op>,
    pub(super) values: BTreeMap<ValueId, Tensor>,
    /// The GB copies of the values handed over through DDR and mirrored.
    pub(super) mirrors: BTreeMap<ValueId, Tensor>,
    /// Results carved out of an arena: views of it, freed with it.
    pub(super) arena_views: BTreeSet<ValueId>,
}

/// The host argument of a weight or constant, which every cluster reads (or its share of).
fn parameter(
    signature: &mut HostFunction,
    context: MlirContext,
    node: &Node,
) -> Result<Tensor, ScheduleError> {
    let (_, r#type) = node
        .results
        .first()
        .cloned()
        .ok_or_else(|| ScheduleError::at(node.op, "a weight without a result"))?;
    check_buffer_element(r#type.element_type, None, "the weight or constant")
        .map_err(|e| ScheduleError::at(node.op, e.message))?;
    let view = View::contiguous_of(
        &buffer_shape(&r#type.shape),
        Space::Ddr,
        r#type.element_type,
    );
    let role = if node.is(graph::Kind::Weight) {
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

/// Adds a host argument to `signature` for each weight and constant among `ops`, its tensor
/// recorded in `into`.
pub(super) fn parameters(
    signature: &mut HostFunction,
    context: MlirContext,
    ops: &[Node],
    into: &mut BTreeMap<ValueId, Tensor>,
) -> Result<(), ScheduleError> {
    for node in ops {
        if matches!(
            node.graph_kind(),
            Some(graph::Kind::Weight | graph::Kind::Constant)
        ) {
            into.insert(node.results[0].0, parameter(signature, context, node)?);
        }
    }
    Ok(())
}

/// The arena of the kernel `carried` (left open by the segment before) when a segment carves
/// the results it keeps in the GB out of it (`carved`).
fn carved_arena(carried: &mut Option<Carried>, carved: bool) -> Option<&mut (Tensor, FirstFit)> {
    carved
        .then_some(carried.as_mut())
        .flatten()
        .and_then(|open| open.arena.as_mut())
}

impl<'b> HostBuild<'b> {
    /// Starts the host function of `function` (named `name`), recording it in `built`.
    pub(super) fn new(function: Op, name: &str, built: &'b mut Vec<Op>) -> Self {
        let signature = HostFunction::new(function, name);
        built.push(signature.op);
        let replicas = Replicas::default();
        let body = Body::new(signature.block, function.location()).with_replicas(replicas.clone());
        let context = body.context();
        HostBuild {
            signature,
            body,
            replicas,
            context,
            built,
            values: BTreeMap::new(),
            mirrors: BTreeMap::new(),
            arena_views: BTreeSet::new(),
        }
    }

    /// The host arguments of the arguments of `function` (viewed as `outer`).
    pub(super) fn arguments(
        &mut self,
        function: Op,
        outer: &FunctionView,
    ) -> Result<(), ScheduleError> {
        for (position, (value, r#type)) in outer.arguments.iter().enumerate() {
            check_buffer_element(r#type.element_type, None, "function argument")
                .map_err(|e| ScheduleError::at(function, e.message))?;
            let view = View::contiguous_of(
                &buffer_shape(&r#type.shape),
                Space::Ddr,
                r#type.element_type,
            );
            let location = function.entry_argument(position).location();
            let buffer = self.signature.parameter(
                &view,
                "dsa.input",
                ir::i64_attribute(self.context, position as i64),
                location,
            );
            self.values.insert(*value, Tensor { host: buffer, view });
        }
        Ok(())
    }

    /// The host arguments of the results of `function` (viewed as `outer`, named `name`): the
    /// buffers the segments computing them write. Each must be a result of a segment, returned
    /// once.
    pub(super) fn outputs(
        &mut self,
        function: Op,
        outer: &FunctionView,
        name: &str,
    ) -> Result<BTreeMap<ValueId, Tensor>, ScheduleError> {
        let returned = outer.returned().to_vec();
        let mut result_buffers: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for (position, value) in returned.iter().enumerate() {
            let r#type = outer.type_of(*value);
            let view = View::contiguous_of(
                &buffer_shape(&r#type.shape),
                Space::Ddr,
                r#type.element_type,
            );
            let location = outer
                .ops
                .last()
                .map_or(function.location(), |node| node.op.location());
            let buffer = self.signature.parameter(
                &view,
                "dsa.output",
                ir::i64_attribute(self.context, position as i64),
                location,
            );
            let produced = outer
                .producer(*value)
                .is_some_and(|index| outer.ops[index].is(instance::Kind::Clusters));
            if !produced
                || result_buffers
                    .insert(*value, Tensor { host: buffer, view })
                    .is_some()
            {
                return Err(ScheduleError::at(
                    function,
                    format!(
                        "result {position} of @{name} must be a result of instance.clusters, \
                         returned once"
                    ),
                ));
            }
        }
        Ok(result_buffers)
    }

    /// The tensors segment `index` reads its program's arguments (of `program`) from: values
    /// kept in the GB, GB mirrors read with their producer's cut, else each cluster's share.
    pub(super) fn segment_inputs(
        &mut self,
        segments: &Segments,
        index: usize,
        program: &FunctionView,
    ) -> BTreeMap<ValueId, Tensor> {
        let (clusters, node) = segments.segment(index);
        let handover = &segments.handover;
        let mut tensors: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for (position, (value, _)) in program.arguments.iter().enumerate() {
            let operand = node.operands[position];
            let tensor = if handover.resident.contains_key(&operand) {
                self.values[&operand].clone()
            } else if handover.reads_mirror(&operand, clusters, position) {
                self.mirrors[&operand].clone()
            } else {
                shares(
                    &mut self.body,
                    &self.replicas,
                    &self.values[&operand],
                    clusters.input_dims.get(position).copied().unwrap_or(-1),
                    clusters.count,
                )
            };
            tensors.insert(*value, tensor);
        }
        tensors
    }

    /// The buffers segment `index` writes its results into, with their GB mirrors: a share
    /// kept in each cluster's GB, or each cluster's share of the whole result in DDR (the
    /// function's output buffer for a result it returns). With `carved`, the shares kept in
    /// the GB are carved out of the arena of the kernel `carried` that the segment continues.
    pub(super) fn segment_outputs(
        &mut self,
        segments: &Segments,
        index: usize,
        carried: &mut Option<Carried>,
        carved: bool,
    ) -> (Vec<Tensor>, Vec<Option<Tensor>>) {
        let (clusters, node) = segments.segment(index);
        let handover = &segments.handover;
        let (mut outputs, mut output_mirrors) = (Vec::new(), Vec::new());
        for (position, (value, r#type)) in node.results.iter().enumerate() {
            let dim = clusters.result_dims.get(position).copied().unwrap_or(-1);
            if handover.resident.contains_key(value) {
                let (share, in_arena) =
                    self.gb_share(r#type, dim, clusters.count, carved_arena(carried, carved));
                if in_arena {
                    self.arena_views.insert(*value);
                }
                outputs.push(share.clone());
                output_mirrors.push(None);
                self.values.insert(*value, share);
                continue;
            }
            let mirror = handover.mirrored.contains_key(value).then(|| {
                let (mirror, in_arena) =
                    self.gb_share(r#type, dim, clusters.count, carved_arena(carried, carved));
                if in_arena {
                    self.arena_views.insert(*value);
                }
                mirror
            });
            if let Some(mirror) = &mirror {
                self.mirrors.insert(*value, mirror.clone());
            }
            output_mirrors.push(mirror);
            let whole = match segments.result_buffers.get(value) {
                Some(buffer) => buffer.clone(),
                None => allocate(
                    &mut self.body,
                    &self.replicas,
                    (&buffer_shape(&r#type.shape), r#type.element_type),
                    Space::Ddr,
                    1,
                ),
            };
            outputs.push(shares(
                &mut self.body,
                &self.replicas,
                &whole,
                dim,
                clusters.count,
            ));
            self.values.insert(*value, whole);
        }
        (outputs, output_mirrors)
    }

    /// Each cluster's share of a result of `r#type` cut along `dim` (-1: not cut) over `count`
    /// clusters, in its own GB: carved out of `arena` (the arena of the kernel the segment
    /// continues) when given and it has room. Returns the share and whether it is a view of
    /// the arena.
    fn gb_share(
        &mut self,
        r#type: &TensorType,
        dim: i64,
        count: usize,
        arena: Option<&mut (Tensor, FirstFit)>,
    ) -> (Tensor, bool) {
        let host = &mut self.body;
        let mut shape = buffer_shape(&r#type.shape);
        if dim >= 0 {
            shape[dim as usize] /= count;
        }
        let element = r#type.element_type;
        let block = arena
            .filter(|(arena, _)| arena.view.element == element)
            .and_then(|(arena, free)| Some((arena.host, free.take_high(shape.iter().product())?)));
        match block {
            Some((arena, offset)) => {
                let offset = host.index(offset);
                let window = View::contiguous_of(&shape, Space::Gb, element);
                let (value, view) = host.reinterpret_at(arena, offset, &window);
                (Tensor { host: value, view }, true)
            }
            None => (
                allocate(
                    host,
                    &self.replicas,
                    (&shape, r#type.element_type),
                    Space::Gb,
                    count,
                ),
                false,
            ),
        }
    }

    /// Frees the values handed over that segment `index` was the last to read (and the GB
    /// mirrors it was the last to read from): after the launch of the kernel that reads them,
    /// which is `carried` when the next segment continues it.
    pub(super) fn free_dead(
        &mut self,
        segments: &Segments,
        index: usize,
        carried: &mut Option<Carried>,
    ) {
        let outer = segments.outer;
        let done_with = |last: &BTreeMap<ValueId, usize>, value: &ValueId| {
            last[value] == index
                && outer
                    .producer(*value)
                    .is_some_and(|p| outer.ops[p].is(instance::Kind::Clusters))
        };
        let dead = segments
            .last_reader
            .keys()
            .filter(|value| {
                done_with(&segments.last_reader, value)
                    && !segments.result_buffers.contains_key(*value)
                    && !(segments.handover.resident.contains_key(*value)
                        && self.arena_views.contains(*value))
            })
            .map(|value| self.values[value].clone());
        let dead_mirrors = segments
            .last_mirror_reader
            .keys()
            .filter(|value| {
                done_with(&segments.last_mirror_reader, value) && !self.arena_views.contains(*value)
            })
            .map(|value| self.mirrors[value].clone());
        for tensor in dead.chain(dead_mirrors).collect::<Vec<_>>() {
            match carried {
                Some(open) => open.frees.push(tensor),
                None => free(&mut self.body, &self.replicas, &tensor),
            }
        }
    }
}
