//! An instance lowered into the open kernel as a GB instance: its operands read where the
//! cluster program keeps them (contiguous copies of the slices the layer emitters cannot read),
//! its body walked op by op (views on the host, layers into the kernel, see
//! [`super::gb_layer`]), its outputs written where the program reads them.

use super::aliases::Aliases;
use super::emission::{Emission, Previous};
use super::error::ScheduleError;
use super::items::instance_attributes;
use super::offsets;
use super::operands::{conv_epilogues, read_as_conv_inputs, read_by_convolutions, unit_steps};
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::kernels::{
    emit::{reshaped, Body, Tensor, View},
    fusion, movement,
    view::buffer_shape,
};
use crate::slicing::binding::scope_of;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::attributes::instance::Scope as InstanceScope;
use turbine_dialects::ops::graph;

/// A GB instance being lowered: its body, where its outputs go, and what its layers hand each
/// other.
pub(super) struct GbInstance<'b> {
    /// The instance's op position in the cluster program, and the op.
    pub(super) position: usize,
    pub(super) node: &'b Node,
    pub(super) body: &'b FunctionView,
    /// The position of each of the body's arguments among them (and the node's operands).
    arguments: BTreeMap<ValueId, usize>,
    /// The body's arguments standing for weights or constants: promoted to the GB layer by
    /// layer (§4.2).
    pub(super) weights: BTreeSet<ValueId>,
    /// Per layer absorbing a convolution (a bottleneck block's last 1×1 convolution computed by
    /// its projection's tiles), that convolution.
    pub(super) absorbs: BTreeMap<usize, &'b Node>,
    /// Per output of the instance, where it is written, and its GB mirror if it has one.
    pub(super) destinations: Vec<Tensor>,
    pub(super) mirrors: Vec<Option<Tensor>>,
    /// The values the body yields, in output order.
    pub(super) yielded: Vec<ValueId>,
    /// The tensors of the body's values defined so far.
    pub(super) local: BTreeMap<ValueId, Tensor>,
    /// The outputs whose mirror a layer's tiles store into.
    pub(super) mirrored: BTreeSet<usize>,
    /// The ops fused into the layers lowered so far.
    pub(super) fused: BTreeSet<usize>,
    /// Views' results (reshapes, windows read in place) and the values whose buffers they view.
    pub(super) aliases: Aliases,
    /// The layer before (the last of the instance before, first), while the next one may
    /// prefetch its weights at its start.
    pub(super) previous: Option<Previous>,
    /// Stepped slices that the layer computing their operand stored as it went.
    pub(super) stored_slices: BTreeSet<usize>,
}

impl GbInstance<'_> {
    /// The instance's operand that a value of the body is, if it is one.
    pub(super) fn operand(&self, value: &ValueId) -> Option<ValueId> {
        self.arguments.get(value).map(|&p| self.node.operands[p])
    }

    /// The output that the layer anchored at `op` writes `value` (of buffer shape `shape`)
    /// into in place, if any. A layer writes an output in place when it is one contiguous run
    /// (the emitters see tiles of row-major tensors) or the layer is a convolution (its tiles
    /// are stored as boxes of any view); a cluster's share cut across rows is copied.
    pub(super) fn destination(&self, op: &Node, value: &ValueId, shape: &[usize]) -> Option<usize> {
        let in_place = |view: &View| view.is_contiguous() || op.is(graph::Kind::Conv2d);
        self.yielded.iter().position(|y| y == value).filter(|&p| {
            self.destinations[p].view.shape == *shape && in_place(&self.destinations[p].view)
        })
    }

    /// A reshape or flatten: a view of its operand's buffer.
    fn reshape(&mut self, host: &mut Body, op: &Node) {
        self.aliases.insert(op.results[0].0, op.operands[0]);
        let source = self.local[&op.operands[0]].clone();
        self.local.insert(
            op.results[0].0,
            reshaped(host, &source, &buffer_shape(&op.results[0].1.shape)),
        );
    }

    /// A window of its operand that the region inference cut for a convolution (the rows and
    /// columns a stride-2 projection reads): a view its tile loads read in place, not a copy of
    /// the window.
    fn conv_window(&mut self, host: &mut Body, op: &Node) {
        self.aliases.insert(op.results[0].0, op.operands[0]);
        let starts: Vec<usize> = op
            .ints("starts")
            .iter()
            .map(|&start| start as usize)
            .collect();
        let shape = buffer_shape(&op.results[0].1.shape);
        let window = movement::window(
            host,
            &self.local[&op.operands[0]],
            &starts,
            &shape,
            &vec![1; shape.len()],
        );
        self.local.insert(op.results[0].0, window);
    }
}

impl Emission<'_, '_> {
    /// Lowers the instance at `position` into the open kernel: its layers in order, reading its
    /// operands and writing its outputs where the cluster program keeps them.
    pub(super) fn instance(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &Node,
        tensors: &mut BTreeMap<ValueId, Tensor>,
    ) -> Result<(), ScheduleError> {
        let (group, index, _, _) = instance_attributes(node);
        let body = FunctionView::read_body(node.op, format!("'{group}' #{index}"))
            .map_err(|e| ScheduleError::at(e.op.unwrap_or(node.op), e.message))?;
        if scope_of(node.op) == Some(InstanceScope::Lb)
            && self.lowered_per_core(host, position, node, &body, tensors)?
        {
            return Ok(());
        }
        let mut instance = self.begin_instance(host, position, node, &body, tensors)?;
        for (op_index, op) in body.ops.iter().enumerate() {
            self.lower_op(host, &mut instance, op_index, op)?;
        }
        self.finish_instance(host, instance, tensors)
    }

    /// Prepares the lowering of the GB instance `node` at `position` (body `body`): plans its
    /// intermediates' arena offsets, reads its operands and allocates its outputs. Returns the
    /// instance's state, holding the layer before for its first layer to prefetch at.
    fn begin_instance<'b>(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &'b Node,
        body: &'b FunctionView,
        tensors: &BTreeMap<ValueId, Tensor>,
    ) -> Result<GbInstance<'b>, ScheduleError> {
        // Weights and constants: promoted to the GB layer by layer (§4.2).
        let weights = self.walk.weight_arguments(node, body);
        let epilogues = conv_epilogues(body);
        // A bottleneck block's last 1×1 convolution computed by its projection's tiles.
        self.absorbed_into = fusion::absorbed_convs(body);
        let absorbs: BTreeMap<usize, &Node> = self
            .absorbed_into
            .iter()
            .map(|(&conv, &layer)| (layer, &body.ops[conv]))
            .collect();
        let capacity = self
            .arena
            .as_ref()
            .map_or(0, |(arena, _)| arena.view.elements());
        self.planned = offsets::instance_offsets(body, capacity, &epilogues, &self.absorbed_into);
        let local = self.instance_operands(host, node, body, &epilogues, tensors)?;
        let destinations: Vec<Tensor> = (0..node.results.len())
            .map(|result| self.destination(host, position, node, result))
            .collect();
        let mirrors: Vec<Option<Tensor>> = (0..node.results.len())
            .map(|result| self.mirror_destination(host, position, node, result))
            .collect();
        let mut arguments = BTreeMap::new();
        for (index, (argument, _)) in body.arguments.iter().enumerate() {
            arguments.entry(*argument).or_insert(index);
        }
        Ok(GbInstance {
            position,
            node,
            body,
            arguments,
            weights,
            absorbs,
            destinations,
            mirrors,
            yielded: body.returned().to_vec(),
            local,
            mirrored: BTreeSet::new(),
            fused: BTreeSet::new(),
            aliases: Aliases::default(),
            previous: self.before.take(),
            stored_slices: BTreeSet::new(),
        })
    }

    /// The tensors the body of `node` reads its arguments from: the operands' tensors, or
    /// contiguous copies of those the layers cannot read in place (`epilogues`: the ops fused
    /// after its convolutions).
    fn instance_operands(
        &mut self,
        host: &mut Body,
        node: &Node,
        body: &FunctionView,
        epilogues: &BTreeSet<usize>,
        tensors: &BTreeMap<ValueId, Tensor>,
    ) -> Result<BTreeMap<ValueId, Tensor>, ScheduleError> {
        let mut local: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for ((argument, _), operand) in body.arguments.iter().zip(&node.operands) {
            let tensor = tensors[operand].clone();
            let tensor = if tensor.view.is_contiguous()
                || read_by_convolutions(body, *argument, epilogues)
            {
                tensor
            } else {
                // A slice across a buffer's rows or channels: the layer emitters read contiguous
                // tensors (a convolution's tile loads excepted), so the instance gets a
                // contiguous copy (GB to GB), a layer between the instance before and this one's
                // first, which then prefetches nothing at that one's start.
                self.retire_before();
                let copy =
                    self.intermediate(host, *argument, (&tensor.view.shape, tensor.view.element));
                self.copy(host, &[(tensor, copy.clone())])
                    .map_err(|message| ScheduleError::at(node.op, message))?;
                copy
            };
            local.insert(*argument, tensor);
        }
        Ok(local)
    }

    /// Lowers op `op_index` of the instance's body: nothing for an op fused into a layer before
    /// (or stored by one, or absorbed by a later one) and the terminator, a view for a reshape
    /// or a convolution's window, else a layer.
    fn lower_op<'b>(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance<'b>,
        op_index: usize,
        op: &'b Node,
    ) -> Result<(), ScheduleError> {
        if instance.fused.contains(&op_index)
            || op.is_terminator()
            || instance.stored_slices.contains(&op_index)
            || self.absorbed_into.contains_key(&op_index)
        {
            return Ok(());
        }
        host.set_location(op.op.location());
        // The layer's weight copies carry its location too (they carried the layer before's).
        if let Some((_, kernel)) = &mut self.open {
            kernel.body.set_location(op.op.location());
        }
        if matches!(
            op.graph_kind(),
            Some(graph::Kind::Reshape | graph::Kind::Flatten)
        ) {
            instance.reshape(host, op);
            return Ok(());
        }
        if op.is(graph::Kind::Slice)
            && unit_steps(op)
            && read_as_conv_inputs(instance.body, op.results[0].0)
        {
            instance.conv_window(host, op);
            return Ok(());
        }
        if matches!(
            op.graph_kind(),
            Some(graph::Kind::Weight | graph::Kind::Constant)
        ) {
            return Err(ScheduleError::at(
                op.op,
                "weights inside an instance are not supported: they are operands of the \
                 instances",
            ));
        }
        self.layer(host, instance, op_index, op)
    }

    /// Ends the GB instance: copies the outputs no layer wrote in place (and the mirrors no
    /// layer stored), hands its last layer over to the next instance's first (or gives back
    /// what it held), and records where its outputs are in `tensors`.
    fn finish_instance(
        &mut self,
        host: &mut Body,
        instance: GbInstance,
        tensors: &mut BTreeMap<ValueId, Tensor>,
    ) -> Result<(), ScheduleError> {
        let GbInstance {
            node,
            body,
            destinations,
            mirrors,
            yielded,
            local,
            mirrored,
            aliases,
            previous,
            ..
        } = instance;
        // Outputs not written in place (a block argument or a reshape yielded) are copied, to
        // their mirror too; one written in place by a layer that stores no mirror is copied to
        // its mirror.
        let mut pairs = Vec::new();
        for (position, value) in yielded.iter().enumerate() {
            let tensor = local[value].clone();
            let mirror = mirrors[position]
                .clone()
                .filter(|_| !mirrored.contains(&position));
            if tensor.host.raw().ptr != destinations[position].host.raw().ptr {
                pairs.push((tensor.clone(), destinations[position].clone()));
                pairs.extend(mirror.map(|mirror| (tensor, mirror)));
            } else {
                pairs.extend(mirror.map(|mirror| (destinations[position].clone(), mirror)));
            }
        }
        if !pairs.is_empty() {
            self.copy(host, &pairs)
                .map_err(|message| ScheduleError::at(node.op, message))?;
        }
        match previous {
            // The next instance's first layer may prefetch its weights at the start of this
            // one's last layer, into blocks that neither that layer nor the copies after it use.
            Some(mut last) if last.start.is_some() => {
                last.blocks.extend(
                    self.placed
                        .drain(..)
                        .map(|(_, offset, elements)| (offset, elements)),
                );
                last.done = None;
                self.before = Some(last);
            }
            last => {
                self.retire(body, &aliases, last);
                self.release(body, &aliases, usize::MAX);
            }
        }
        for ((value, _), destination) in node.results.iter().zip(destinations) {
            tensors.insert(*value, destination);
        }
        Ok(())
    }
}
