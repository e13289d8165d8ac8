//! The second walk of a cluster program: its kernels and the host code around them, emitted in
//! the order and with the buffers the first walk ([`Walk`]) decided.

use super::emission::{Carried, Emission};
use super::error::ScheduleError;
use super::host_buffers::{free, window};
use super::items::{instance_attributes, Root};
use super::plan;
use super::summary::Summary;
use super::walk::Walk;
use crate::graph_view::{Node, ValueId};
use crate::ir::{Op, Val};
use crate::kernels::{
    emit::{Body, Tensor},
    view::buffer_shape,
};
use std::collections::BTreeMap;
use turbine_dialects::ops::{graph, instance, OpKind};

/// Pairs a copy layer moves at most: a pair adds up to two buffers per cluster to the kernel's
/// arguments, so that a copy of many buffers (the row instances' outputs joined into one tensor)
/// relaunches between layers before a call passes too many (see `kernels::SPLIT_ARGUMENTS`).
const COPY_PAIRS: usize = 256;

/// Where the emission writes host code: the host function's body, the function, and the ops
/// built so far (erased if the lowering fails).
pub(super) struct HostCursor<'h> {
    pub(super) body: &'h mut Body,
    pub(super) function: Op,
    pub(super) built: &'h mut Vec<Op>,
}

/// The buffers the program's outputs are written into, with their GB mirrors.
pub(super) struct Outputs<'o> {
    pub(super) tensors: &'o [Tensor],
    pub(super) mirrors: &'o [Option<Tensor>],
}

impl<'p> Walk<'p> {
    /// Emits the kernels and the host code around them. The first kernel continues `carried`
    /// (the open kernel of the segment before) if given; with `keep_open` the last one is
    /// returned open instead of launched, with the buffers to free after its launch.
    pub(super) fn emit(
        self,
        host: HostCursor,
        tensors: &mut BTreeMap<ValueId, Tensor>,
        outputs: Outputs,
        arena_reserve: usize,
        carried: Option<Carried>,
        keep_open: bool,
    ) -> Result<(Summary, Option<Carried>), ScheduleError> {
        let HostCursor {
            body,
            function,
            built,
        } = host;
        let mut state = Emission::new(&self, carried, arena_reserve);
        for (root, &output) in &self.outputs {
            state
                .buffers
                .insert(root.clone(), outputs.tensors[output].clone());
            if let Some(mirror) = &outputs.mirrors[output] {
                state.mirrors.insert(root.clone(), mirror.clone());
            }
        }
        for (position, node) in self.program.ops.iter().enumerate() {
            let mut host = HostCursor {
                body: &mut *body,
                function,
                built: &mut *built,
            };
            self.emit_op(&mut state, &mut host, position, node, tensors, &outputs)?;
        }
        state.launch_carried(body, function, built);
        let mut open = if keep_open { state.carry() } else { None };
        state.leave(body, function, built);
        for (root, tensor) in std::mem::take(&mut state.buffers) {
            if !self.outputs.contains_key(&root) {
                match &mut open {
                    Some(open) => open.frees.push(tensor),
                    None => free(body, &self.replicas, &tensor),
                }
            }
        }
        Ok((self.summary(&mut state), open))
    }

    /// Emits the op at `position` of the program: an instance's layers into its kernel, a
    /// view on the host, or a copy layer.
    fn emit_op(
        &self,
        state: &mut Emission,
        host: &mut HostCursor,
        position: usize,
        node: &Node,
        tensors: &mut BTreeMap<ValueId, Tensor>,
        outputs: &Outputs,
    ) -> Result<(), ScheduleError> {
        host.body.set_location(node.op.location());
        match node.kind {
            Some(OpKind::Graph(graph::Kind::Weight | graph::Kind::Constant)) => {}
            Some(OpKind::Instance(instance::Kind::Instance)) => {
                let kernel = self.kernel_of[&position];
                state.enter(host.body, host.function, kernel, host.built);
                state.instance(host.body, position, node, tensors)?;
            }
            Some(OpKind::Instance(instance::Kind::Slice)) => {
                let source = tensors[&node.operands[0]].clone();
                let offsets: Vec<Val> = node
                    .ints("offsets")
                    .iter()
                    .map(|&o| host.body.index(o as usize))
                    .collect();
                let sizes = buffer_shape(&node.results[0].1.shape);
                let (value, view) =
                    host.body
                        .subview(source.host, &source.view, &offsets, &sizes, None);
                tensors.insert(node.results[0].0, Tensor { host: value, view });
            }
            Some(OpKind::Instance(instance::Kind::Copy | instance::Kind::Redistribute)) => {
                tensors.insert(node.results[0].0, tensors[&node.operands[0]].clone());
            }
            Some(OpKind::Instance(instance::Kind::Concat)) => {
                self.emit_concat(state, host, position, node, tensors)?
            }
            Some(OpKind::Instance(instance::Kind::Yield)) => {
                self.emit_yield(state, host, position, node, tensors, outputs)?
            }
            _ => unreachable!("form_kernels refused it"),
        }
        Ok(())
    }

    /// An `instance.concat`: a view of its group's stitched buffer, or a copy layer into a
    /// buffer of its own.
    fn emit_concat(
        &self,
        state: &mut Emission,
        host: &mut HostCursor,
        position: usize,
        node: &Node,
        tensors: &mut BTreeMap<ValueId, Tensor>,
    ) -> Result<(), ScheduleError> {
        if let Some(Root::Group(group)) = self.roots.get(&node.results[0].0) {
            let stitched = &self.stitched[group];
            let producer =
                &self.program.ops[self.program.producer(node.operands[0]).expect("checked")];
            let (_, index, _, _) = instance_attributes(producer);
            let buffer = state.buffer(host.body, &Root::Group(group.clone()));
            let (offset, size) = (index * stitched.slice, node.operands.len() * stitched.slice);
            let view = window(host.body, &buffer, stitched.dim, offset, size);
            tensors.insert(node.results[0].0, view);
            return Ok(());
        }
        let kernel = self.kernel_of[&position];
        state.enter(host.body, host.function, kernel, host.built);
        let target = state.buffer(host.body, &Root::Concat(position));
        let axis = node.int("axis") as usize;
        let mut offset = 0;
        let mut pairs = Vec::new();
        for value in &node.operands {
            let source = tensors[value].clone();
            let size = source.view.shape[axis];
            pairs.push((source, window(host.body, &target, axis, offset, size)));
            offset += size;
        }
        // In layers of at most COPY_PAIRS pairs, so that a copy of many buffers goes on in a
        // new launch past the arguments a kernel call can pass.
        for chunk in pairs.chunks(COPY_PAIRS) {
            state.enter(host.body, host.function, kernel, host.built);
            let copied = state.copy(host.body, chunk);
            copied.map_err(|message| ScheduleError::at(node.op, message))?;
        }
        tensors.insert(node.results[0].0, target);
        Ok(())
    }

    /// The program's `instance.yield`: copy layers into the outputs not written in place.
    /// Shares are copied by every cluster, whole results by the first one only.
    fn emit_yield(
        &self,
        state: &mut Emission,
        host: &mut HostCursor,
        position: usize,
        node: &Node,
        tensors: &BTreeMap<ValueId, Tensor>,
        outputs: &Outputs,
    ) -> Result<(), ScheduleError> {
        let mut pairs = [Vec::new(), Vec::new()];
        for (output, value) in node.operands.iter().enumerate() {
            let root = self.roots.get(value);
            let in_place = root.is_some_and(|root| self.outputs.get(root) == Some(&output));
            if !in_place {
                let copies =
                    std::iter::once(&outputs.tensors[output]).chain(&outputs.mirrors[output]);
                pairs[usize::from(self.whole_outputs[output])]
                    .extend(copies.map(|target| (tensors[value].clone(), target.clone())));
            }
        }
        if pairs.iter().all(|pairs| pairs.is_empty()) {
            return Ok(());
        }
        let kernel = self.kernel_of[&position];
        let at = |message| ScheduleError::at(node.op, message);
        for chunk in pairs[0].chunks(COPY_PAIRS) {
            state.enter(host.body, host.function, kernel, host.built);
            state.copy(host.body, chunk).map_err(at)?;
        }
        for chunk in pairs[1].chunks(COPY_PAIRS) {
            state.enter(host.body, host.function, kernel, host.built);
            state.copy_once(host.body, chunk).map_err(at)?;
        }
        Ok(())
    }

    /// What the emission of this program decided, for the pass's remarks.
    fn summary(&self, state: &mut Emission) -> Summary {
        let spilled = self.in_ddr.iter();
        Summary {
            kernels: self.items.len() - usize::from(state.continued),
            clusters: self.count,
            gb_peak: plan::peak(&self.lifetimes, &self.in_ddr, self.items.len()),
            arena_peak: state.arena_peak,
            spilled: spilled
                .filter(|(root, &ddr)| ddr && !self.outputs.contains_key(*root))
                .count(),
            spilled_intermediates: state.spilled_count,
            promotions: state.promotions,
            per_core: state.per_core,
            lowered_in_gb: std::mem::take(&mut state.lowered_in_gb),
            lb_spills: state.lb_spills,
            planned: self.lifetimes.len() - self.outputs.len(),
            joined: usize::from(state.continued),
        }
    }
}
