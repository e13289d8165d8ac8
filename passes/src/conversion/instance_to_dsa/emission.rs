//! The second walk of the cluster program: the buffers allocated for it, the kernel being
//! written, and each instance lowered into it layer by layer.

use super::error::ScheduleError;
use super::host_buffers::{allocate, window};
use super::items::{instance_attributes, Root};
use super::offsets;
use super::operands::{
    conv_epilogues, promoted_weights, read_as_conv_inputs, read_by_convolutions, stepped_slice,
    unit_steps, Cover,
};
use super::plan::FirstFit;
use super::walk::Walk;
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::ir::Op;
use crate::kernels::{
    dispatch::{emit_layer, estimate_ports, estimate_stepped, writes_mirror},
    emit::{Body, Space, Tensor, View},
    fusion::{self, Fused, Synthetic},
    kernel::Kernel,
    layers::{Layer, Scope},
    movement, trickle,
    view::buffer_shape,
};
use crate::slicing::binding::scope_of;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::attributes::instance::Scope as InstanceScope;

/// A kernel left open at the end of a segment, with its GB arena and the buffers to free after
/// its launch.
pub(super) struct Carried {
    pub(super) kernel: Kernel,
    pub(super) arena: Option<(Tensor, FirstFit)>,
    pub(super) frees: Vec<Tensor>,
    /// Its last layer, for the next segment's first to prefetch weights at.
    pub(super) before: Option<Previous>,
}

/// A layer's tensors with its promoted weights' GB copies, and the arena blocks they took.
type Promoted = (BTreeMap<ValueId, Tensor>, Vec<(usize, usize)>);

/// A layer of a GB instance after it was emitted, until the next one has taken its weights'
/// blocks (which must not be ones this layer still reads, as a prefetch copies while it runs).
pub(super) struct Previous {
    /// A mark where the layer's instructions start (the next layer's weight copy goes before
    /// it); none without software pipelining.
    pub(super) start: Option<Op>,
    /// What it leaves of the DDR port to a weight copy issued under it.
    pub(super) cover: Cover,
    /// Arena blocks of its promoted weights (for the last layer of an instance, also of the
    /// intermediates it read).
    pub(super) blocks: Vec<(usize, usize)>,
    /// The last op of its instance it computes (fused ones included); none for the last layer
    /// of an instance before, whose intermediates are in `blocks`.
    pub(super) done: Option<usize>,
    /// Whether it is the last layer of another segment's program: the next layer may prefetch
    /// only weights then, not the inputs of its segment, which that layer may still be writing.
    pub(super) other_segment: bool,
}

/// The emission's state: the buffers allocated, the kernel being written.
pub(super) struct Emission<'w, 'p> {
    pub(super) walk: &'w Walk<'p>,
    pub(super) buffers: BTreeMap<Root, Tensor>,
    pub(super) open: Option<(usize, Kernel)>,
    /// The open kernel's intermediates: a GB arena per cluster (what the GB has left beside the
    /// planned tensors live during the kernel) with its free space, and the DDR buffers of
    /// intermediates that did not fit it or must start zeroed (a pad's result).
    pub(super) arena: Option<(Tensor, FirstFit)>,
    pub(super) spilled: Vec<Tensor>,
    /// Intermediates placed in the arena and not yet freed: value, offset, elements.
    pub(super) placed: Vec<(ValueId, usize, usize)>,
    pub(super) synthetic: Synthetic,
    /// Intermediates that went to DDR, and the most bytes of an arena used, for the summary.
    pub(super) spilled_count: usize,
    pub(super) arena_peak: usize,
    /// Layers whose weights were copied to the GB first, and layers that read weights.
    pub(super) promotions: [usize; 2],
    /// Weights the open kernel copied to its GB arena for its LB instances, by program value.
    pub(super) run_weights: BTreeMap<ValueId, Tensor>,
    /// LB instances computed per core, and why the others were lowered as GB ones.
    pub(super) per_core: usize,
    pub(super) lowered_in_gb: BTreeMap<&'static str, usize>,
    /// Intermediates of per-core instances that went from the LB to the GB.
    pub(super) lb_spills: usize,
    /// Launches the open kernel was split into before the current one.
    pub(super) parts: usize,
    /// The kernel the segment before left open for this one's first kernel ([`Emission::carry`]).
    pub(super) carried: Option<Carried>,
    /// Buffers to free once the open kernel is launched (those of the segments it continues).
    pub(super) frees: Vec<Tensor>,
    /// Whether the first kernel continued the segment before's.
    pub(super) continued: bool,
    /// The last layer of the instance before in the open kernel, while the next instance's
    /// first layer may prefetch its weights at its start (GraphTurbo §4.4 across instances).
    pub(super) before: Option<Previous>,
    /// The GB copies of the outputs the program's segment keeps there beside DDR (`handover`),
    /// by the root written in place into the output.
    pub(super) mirrors: BTreeMap<Root, Tensor>,
    /// Bytes of a cluster's GB the arena of the last kernel leaves to the results that the
    /// segments continuing it keep in the GB.
    pub(super) arena_reserve: usize,
    /// The convolutions of the instance being lowered that a later layer of it absorbs
    /// (`fusion::absorbed_convs`): their readers' reads happen at that layer.
    pub(super) absorbed_into: BTreeMap<usize, usize>,
    /// The arena offsets planned for the intermediates of the instance being lowered
    /// ([`offsets::instance_offsets`]).
    pub(super) planned: BTreeMap<ValueId, usize>,
}

impl<'w, 'p> Emission<'w, 'p> {
    /// The state of the emission of `walk`, whose first kernel continues `carried` if given,
    /// leaving `arena_reserve` bytes of the last kernel's arena to the segments continuing it.
    pub(super) fn new(walk: &'w Walk<'p>, carried: Option<Carried>, arena_reserve: usize) -> Self {
        Emission {
            walk,
            buffers: BTreeMap::new(),
            open: None,
            arena: None,
            spilled: Vec::new(),
            placed: Vec::new(),
            synthetic: Synthetic::new(walk.program),
            spilled_count: 0,
            arena_peak: 0,
            promotions: [0, 0],
            run_weights: BTreeMap::new(),
            per_core: 0,
            lowered_in_gb: BTreeMap::new(),
            lb_spills: 0,
            parts: 0,
            carried,
            frees: Vec::new(),
            continued: false,
            before: None,
            mirrors: BTreeMap::new(),
            arena_reserve,
            absorbed_into: BTreeMap::new(),
            planned: BTreeMap::new(),
        }
    }
}

impl Emission<'_, '_> {
    /// The buffers of `root`, allocated on first use.
    pub(super) fn buffer(&mut self, host: &mut Body, root: &Root) -> Tensor {
        if let Some(tensor) = self.buffers.get(root) {
            return tensor.clone();
        }
        let walk = self.walk;
        let shape = match root {
            Root::Group(group) => walk.stitched[group].shape.clone(),
            Root::Result(position, index) => {
                buffer_shape(&walk.program.ops[*position].results[*index].1.shape)
            }
            Root::Concat(position) => buffer_shape(&walk.program.ops[*position].results[0].1.shape),
        };
        let space = if walk.in_ddr.get(root).copied().unwrap_or(false) {
            Space::Ddr
        } else {
            Space::Gb
        };
        let tensor = allocate(host, &walk.replicas, &shape, space, walk.count);
        self.buffers.insert(root.clone(), tensor.clone());
        tensor
    }

    /// Copies each pair in the open kernel, as one layer (views of rank above 4 merged where
    /// they can be; an error when they cannot).
    pub(super) fn copy(
        &mut self,
        host: &mut Body,
        pairs: &[(Tensor, Tensor)],
    ) -> Result<(), String> {
        let pairs = movement::merged_pairs(host, pairs)?;
        let machine = self.walk.machine;
        let (index, kernel) = self.open.take().expect("a kernel is open");
        let mut kernel = movement::copy_pairs(machine, &pairs, kernel);
        kernel.end_layer();
        self.open = Some((index, kernel));
        Ok(())
    }

    /// Copies each pair as [`Emission::copy`] does, but issued at `start` (an earlier point of the
    /// open kernel, the start of the layer before) and not waited for: the copies move while that
    /// layer computes, and the barrier ending it orders them before their readers (GraphTurbo
    /// §4.4, weights of layer k + 1 promoted while layer k computes).
    /// When that layer has a tile loop, the copies are cut into pieces issued between its tiles
    /// (`trickle`), so that they take the port between its own loads.
    fn copy_ahead(
        &mut self,
        host: &mut Body,
        pairs: &[(Tensor, Tensor)],
        start: Op,
    ) -> Result<(), String> {
        let pairs = movement::merged_pairs(host, pairs)?;
        let machine = self.walk.machine;
        let (index, mut kernel) = self.open.take().expect("a kernel is open");
        let tile_loop = trickle::tile_loop_after(start).filter(|_| trickle::can_trickle(&pairs));
        let kernel = match kernel.core_in_cluster().zip(tile_loop) {
            Some((core, tile_loop)) => {
                trickle::trickle_pairs(host, &pairs, kernel, core, start, tile_loop)
            }
            None => {
                let location = kernel.body.location();
                let here = std::mem::replace(&mut kernel.body, Body::before(start, location));
                let mut kernel = movement::copy_pairs_ahead(machine, &pairs, kernel);
                kernel.body = here;
                kernel
            }
        };
        self.open = Some((index, kernel));
        Ok(())
    }

    /// Copies each pair as [`Emission::copy`] does, but on the first cluster only: the pairs'
    /// targets are results no cluster has a share of, which every cluster would write alike.
    pub(super) fn copy_once(
        &mut self,
        host: &mut Body,
        pairs: &[(Tensor, Tensor)],
    ) -> Result<(), String> {
        let pairs = movement::merged_pairs(host, pairs)?;
        let machine = self.walk.machine;
        let (index, mut kernel) = self.open.take().expect("a kernel is open");
        let first = kernel.on_first_cluster();
        kernel.body.open_if(first);
        let mut kernel = movement::copy_pairs(machine, &pairs, kernel);
        kernel.body.close();
        kernel.end_layer();
        self.open = Some((index, kernel));
        Ok(())
    }

    /// A buffer of `shape` for intermediate `value` of the current instance: a window of the
    /// kernel's GB arena, or DDR when the arena has no room left.
    pub(super) fn intermediate(
        &mut self,
        host: &mut Body,
        value: ValueId,
        shape: &[usize],
    ) -> Tensor {
        let walk = self.walk;
        let elements: usize = shape.iter().product();
        if let Some((arena, free)) = &mut self.arena {
            let planned = self
                .planned
                .get(&value)
                .and_then(|&offset| free.take_at(offset, elements));
            if let Some(offset) = planned.or_else(|| free.take(elements)) {
                self.placed.push((value, offset, elements));
                let offset = host.index(offset);
                let (value, view) =
                    host.reinterpret_at(arena.host, offset, &View::contiguous(shape, Space::Gb));
                return Tensor { host: value, view };
            }
        }
        self.spilled_count += 1;
        let tensor = allocate(host, &walk.replicas, shape, Space::Ddr, walk.count);
        self.spilled.push(tensor.clone());
        tensor
    }

    /// Copies the weights a layer reads from DDR into the kernel's GB arena, once per cluster,
    /// as a layer of its own (its cores sharing the copy), so that the layer's tiles load them
    /// over the GB bus instead of each core from DDR (GraphTurbo §4.2: weights promoted DDR → GB
    /// → LB). Returns the layer's tensors with the promoted weights' GB copies, and the arena
    /// blocks to give back after the layer; a weight the arena has no room for stays in DDR.
    /// The copies are taken from the arena's top ([`FirstFit::take_high`]): placed by first fit,
    /// a copy prefetched at an instance's boundary would shift the next instance's activations
    /// until one no longer fits and spills to DDR.
    fn promote<'v>(
        &mut self,
        host: &mut Body,
        local: &BTreeMap<ValueId, Tensor>,
        weights: impl Iterator<Item = &'v ValueId>,
        ahead: Option<Op>,
    ) -> Result<Promoted, String> {
        let mut tensors = local.clone();
        let mut pairs = Vec::new();
        let mut blocks = Vec::new();
        let Some((arena, free)) = &mut self.arena else {
            return Ok((tensors, blocks));
        };
        for &weight in weights {
            if pairs.iter().any(|(value, _, _)| *value == weight) {
                continue;
            }
            let source = local[&weight].clone();
            let elements = source.view.elements();
            let Some(offset) = free.take_high(elements) else {
                continue;
            };
            blocks.push((offset, elements));
            let at = host.index(offset);
            let (value, view) = host.reinterpret_at(
                arena.host,
                at,
                &View::contiguous(&source.view.shape, Space::Gb),
            );
            let copy = Tensor { host: value, view };
            tensors.insert(weight, copy.clone());
            pairs.push((weight, source, copy));
        }
        if !pairs.is_empty() {
            let pairs: Vec<(Tensor, Tensor)> = pairs
                .into_iter()
                .map(|(_, source, copy)| (source, copy))
                .collect();
            match ahead {
                Some(start) => self.copy_ahead(host, &pairs, start)?,
                None => self.copy(host, &pairs)?,
            }
        }
        Ok((tensors, blocks))
    }

    /// Gives back what the layer before (`previous`) held: its promoted weights' blocks and the
    /// intermediates no later op reads; and removes the mark at its start.
    fn retire(
        &mut self,
        body: &FunctionView,
        aliases: &BTreeMap<ValueId, ValueId>,
        previous: Option<Previous>,
    ) {
        let Some(previous) = previous else { return };
        if let Some((_, free)) = &mut self.arena {
            for (offset, elements) in previous.blocks {
                free.give(offset, elements);
            }
        }
        if let Some(done) = previous.done {
            self.release(body, aliases, done);
        }
        if let Some(start) = previous.start {
            start.erase();
        }
    }

    /// Returns to the arena the intermediates no op after `done` reads (layers are separated by
    /// barriers, so the next layer may overwrite them).
    fn release(&mut self, body: &FunctionView, aliases: &BTreeMap<ValueId, ValueId>, done: usize) {
        let Some((_, free)) = &mut self.arena else {
            return;
        };
        self.placed.retain(|&(value, offset, elements)| {
            // A reshape's result is a view of its source's buffer: its readers count too.
            let views = aliases
                .iter()
                .filter(|(_, &root)| root == value)
                .map(|(&view, _)| view);
            let read_later = std::iter::once(value).chain(views).any(|v| {
                body.readers(v)
                    .iter()
                    .any(|&reader| fusion::read_at(&self.absorbed_into, reader) > done)
            });
            if !read_later {
                free.give(offset, elements);
            }
            read_later
        });
    }

    /// Where output `result` of the instance `node` at `position` goes: its slice of its group's
    /// buffer (stitched), or a buffer of its own.
    pub(super) fn destination(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &Node,
        result: usize,
    ) -> Tensor {
        let walk = self.walk;
        let (value, r#type) = &node.results[result];
        let destination = match walk.roots.get(value) {
            Some(Root::Group(group)) => {
                let stitched = walk.stitched[group].clone();
                let buffer = self.buffer(host, &Root::Group(group.clone()));
                let (_, index, _, _) = instance_attributes(node);
                window(
                    host,
                    &buffer,
                    stitched.dim,
                    index * stitched.slice,
                    stitched.slice,
                )
            }
            _ => self.buffer(host, &Root::Result(position, result)),
        };
        debug_assert_eq!(destination.view.shape, buffer_shape(&r#type.shape));
        destination
    }

    /// The GB copy of output `result` of the instance `node` at `position`: its slice of its
    /// group's mirror, if the output has one.
    pub(super) fn mirror_destination(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &Node,
        result: usize,
    ) -> Option<Tensor> {
        let walk = self.walk;
        match walk.roots.get(&node.results[result].0) {
            Some(Root::Group(group)) => {
                let mirror = self.mirrors.get(&Root::Group(group.clone()))?.clone();
                let stitched = &walk.stitched[group];
                let (_, index, _, _) = instance_attributes(node);
                Some(window(
                    host,
                    &mirror,
                    stitched.dim,
                    index * stitched.slice,
                    stitched.slice,
                ))
            }
            _ => self.mirrors.get(&Root::Result(position, result)).cloned(),
        }
    }

    /// Lowers the instance at `position` into the open kernel: its layers in order, reading its
    /// operands and writing its outputs where the cluster program keeps them.
    pub(super) fn instance(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &Node,
        tensors: &mut BTreeMap<ValueId, Tensor>,
    ) -> Result<(), ScheduleError> {
        let walk = self.walk;
        let (group, index, _, _) = instance_attributes(node);
        let body =
            FunctionView::read_body(node.op, format!("'{group}' #{index}")).map_err(|e| {
                ScheduleError {
                    op: e.op.or(Some(node.op)),
                    message: e.message,
                }
            })?;
        if scope_of(node.op) == Some(InstanceScope::Lb)
            && self.lowered_per_core(host, position, node, &body, tensors)?
        {
            return Ok(());
        }
        // Weights and constants: promoted to the GB layer by layer (§4.2).
        let weights = walk.weight_arguments(node, &body);
        let epilogues = conv_epilogues(&body);
        // A bottleneck block's last 1×1 convolution computed by its projection's tiles.
        self.absorbed_into = fusion::absorbed_convs(&body);
        let absorbs: BTreeMap<usize, &Node> = self
            .absorbed_into
            .iter()
            .map(|(&conv, &layer)| (layer, &body.ops[conv]))
            .collect();
        let capacity = self
            .arena
            .as_ref()
            .map_or(0, |(arena, _)| arena.view.elements());
        self.planned = offsets::instance_offsets(&body, capacity, &epilogues, &self.absorbed_into);
        let mut local: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for ((argument, _), operand) in body.arguments.iter().zip(&node.operands) {
            let tensor = tensors[operand].clone();
            let tensor = if tensor.view.is_contiguous()
                || read_by_convolutions(&body, *argument, &epilogues)
            {
                tensor
            } else {
                // A slice across a buffer's rows or channels: the layer emitters read contiguous
                // tensors (a convolution's tile loads excepted), so the instance gets a
                // contiguous copy (GB to GB), a layer between the instance before and this one's
                // first, which then prefetches nothing at that one's start.
                self.retire_before();
                let copy = self.intermediate(host, *argument, &tensor.view.shape);
                self.copy(host, &[(tensor, copy.clone())])
                    .map_err(|message| ScheduleError::at(node.op, message))?;
                copy
            };
            local.insert(*argument, tensor);
        }
        let destinations: Vec<Tensor> = (0..node.results.len())
            .map(|result| self.destination(host, position, node, result))
            .collect();
        let mirrors: Vec<Option<Tensor>> = (0..node.results.len())
            .map(|result| self.mirror_destination(host, position, node, result))
            .collect();
        // The outputs whose mirror a layer's tiles store into.
        let mut mirrored = BTreeSet::new();
        let yielded = body.returned().to_vec();
        let mut fused: BTreeSet<usize> = BTreeSet::new();
        let mut aliases: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        // The layer before (the last of the instance before, first), while the next one may
        // prefetch its weights at its start.
        let mut previous: Option<Previous> = self.before.take();
        // Stepped slices that the layer computing their operand stored as it went, and the GB
        // the instance's intermediates need at each op.
        let mut stored_slices: BTreeSet<usize> = BTreeSet::new();
        let needs = &walk.op_needs[&position];
        for (op_index, op) in body.ops.iter().enumerate() {
            if fused.contains(&op_index)
                || op.is_terminator()
                || stored_slices.contains(&op_index)
                || self.absorbed_into.contains_key(&op_index)
            {
                continue;
            }
            host.set_location(op.op.location());
            // The layer's weight copies carry its location too (they carried the layer before's).
            if let Some((_, kernel)) = &mut self.open {
                kernel.body.set_location(op.op.location());
            }
            if matches!(op.name.as_str(), "graph.reshape" | "graph.flatten") {
                let root = aliases
                    .get(&op.operands[0])
                    .copied()
                    .unwrap_or(op.operands[0]);
                aliases.insert(op.results[0].0, root);
                let source = local[&op.operands[0]].clone();
                local.insert(
                    op.results[0].0,
                    crate::kernels::emit::reshaped(
                        host,
                        &source,
                        &buffer_shape(&op.results[0].1.shape),
                    ),
                );
                continue;
            }
            if op.name == "graph.slice"
                && unit_steps(op)
                && read_as_conv_inputs(&body, op.results[0].0)
            {
                // The window of its operand that the region inference cut for a convolution
                // (the rows and columns a stride-2 projection reads): a view its tile loads read
                // in place, not a copy of the window.
                let root = aliases
                    .get(&op.operands[0])
                    .copied()
                    .unwrap_or(op.operands[0]);
                aliases.insert(op.results[0].0, root);
                let starts: Vec<usize> = op
                    .ints("starts")
                    .iter()
                    .map(|&start| start as usize)
                    .collect();
                let shape = buffer_shape(&op.results[0].1.shape);
                let window = crate::kernels::movement::window(
                    host,
                    &local[&op.operands[0]],
                    &starts,
                    &shape,
                    &vec![1; shape.len()],
                );
                local.insert(op.results[0].0, window);
                continue;
            }
            if matches!(op.name.as_str(), "graph.weight" | "graph.constant") {
                return Err(ScheduleError::at(op.op, "weights inside an instance are not supported: they are operands of the instances"));
            }
            let Fused {
                steps,
                elementwise_anchor,
                fused: fused_ops,
                last,
            } = fusion::layer_epilogue(
                &body,
                op_index,
                &mut local,
                host,
                &mut self.synthetic,
                absorbs.get(&op_index).map(|conv| conv.results[0].0),
            );
            let absorbed = absorbs.get(&op_index).copied();
            let read: Vec<ValueId> = std::iter::once(op_index)
                .chain(fused_ops.iter().copied())
                .flat_map(|i| body.ops[i].operands.iter().copied())
                .chain(
                    absorbed
                        .into_iter()
                        .flat_map(|conv| conv.operands.iter().copied()),
                )
                .collect();
            fused.extend(fused_ops);
            let mut layer_weights: BTreeSet<ValueId> = read
                .iter()
                .filter(|value| weights.contains(value))
                .copied()
                .collect();
            // The instance's operand that a value of the body is, if it is one.
            let operand = |value: &ValueId| {
                body.arguments
                    .iter()
                    .position(|(argument, _)| argument == value)
                    .map(|p| node.operands[p])
            };
            // Whether a value of the body is (a slice of) an input of the segment.
            let segment_input = |value: &ValueId| {
                operand(value).is_some_and(|operand| walk.is_segment_input(operand))
            };
            // A convolution's input from DDR (its segment's, complete before the segment runs)
            // may be copied too: its tiles re-read the rows their windows share (the stem's 7×7
            // stride-2 rows from the model's input).
            if op.name == "graph.conv2d" {
                layer_weights.extend(op.operands.first().filter(|value| {
                    segment_input(value) && local[*value].view.space == Space::Ddr
                }));
            }
            let shape = buffer_shape(&op.results[0].1.shape);
            let finals = fusion::written(op, last);
            // A layer writes an output in place when it is one contiguous run (the emitters
            // see tiles of row-major tensors) or the layer is a convolution (its tiles are
            // stored as boxes of any view); a cluster's share cut across rows is copied.
            let in_place = |view: &View| view.is_contiguous() || op.name == "graph.conv2d";
            let destination = |value: &ValueId, shape: &Vec<usize>| {
                yielded.iter().position(|y| y == value).filter(|&p| {
                    destinations[p].view.shape == *shape && in_place(&destinations[p].view)
                })
            };
            // Where the layer writes decides which port its stores share (an intermediate's place
            // is decided later: estimated where the layer reads).
            let written = finals
                .first()
                .and_then(|(value, shape)| destination(value, shape));
            let out_space = written.map(|p| destinations[p].view.space);
            let layer_estimate = |tensors: &BTreeMap<ValueId, Tensor>| {
                estimate_ports(
                    &Scope {
                        machine: walk.machine,
                        tensors,
                    },
                    op,
                    &steps,
                    &shape,
                    out_space,
                    elementwise_anchor,
                    absorbed,
                )
                .map(|estimate| estimate.cycles)
            };
            let other_segment = previous
                .as_ref()
                .is_some_and(|previous| previous.other_segment);
            let goes_early = |value: &ValueId| {
                !(other_segment
                    && operand(value).is_some_and(|operand| walk.is_written_before(operand)))
            };
            // A copy prefetched under the layer before is credited what that layer leaves of the
            // DDR port (crediting the whole layer's cycles makes more layers copy their weights
            // onto busy ports), when the arena holds it beside the instance's own buffers at this
            // layer.
            let capacity = self
                .arena
                .as_ref()
                .map_or(0, |(arena, _)| arena.view.elements() * 4);
            let cover = previous
                .as_ref()
                .filter(|previous| previous.start.is_some())
                .map_or(Cover::default(), |previous| previous.cover);
            let cover = Cover {
                room: capacity.saturating_sub(needs[op_index]),
                ..cover
            };
            let promote = promoted_weights(
                walk.machine,
                &local,
                &layer_weights,
                &layer_estimate,
                (cover, &goes_early),
            );
            // Weights first: a layer's results spill to DDR more cheaply than its weights, which
            // every tile reads.
            // A prefetch takes its blocks while the layer before still holds its own. When that
            // layer is another segment's, it may still be writing this segment's inputs: their
            // copies wait for it, the weights' go ahead under it (one input held back must not
            // hold back the weights with it).
            let (early, held): (BTreeSet<ValueId>, BTreeSet<ValueId>) =
                promote.iter().partition(|value| goes_early(value));
            let ahead = previous
                .as_ref()
                .and_then(|previous| previous.start)
                .filter(|_| !early.is_empty());
            // A short layer without weights that only moves data or reduces it (a stepped
            // slice's copy, a global pool) stands aside: the layer before it stays the one under
            // which the next layer's weights are copied, and what both read is held until that
            // copy has its blocks: such a layer leaves the DDR port idle under it, and a filter
            // copied under it would be left to the cores' wait. Only these stand aside: every
            // layer without an estimate standing aside would hold more of the arena.
            let short =
                (op.name == "graph.slice" && !unit_steps(op)) || op.name == "graph.global_avg_pool";
            let aside = short
                && promote.is_empty()
                && previous
                    .as_ref()
                    .is_some_and(|previous| previous.start.is_some());
            if ahead.is_none() && !aside {
                self.retire(&body, &aliases, previous.take());
            }
            let promoted = self.promote(host, &local, early.iter(), ahead);
            if !aside {
                self.retire(&body, &aliases, previous.take());
            }
            let promoted = promoted.and_then(|(tensors, mut blocks)| {
                let (tensors, more) = self.promote(host, &tensors, held.iter(), None)?;
                blocks.extend(more);
                Ok((tensors, blocks))
            });
            let (layer_tensors, promoted) =
                promoted.map_err(|message| ScheduleError::at(op.op, message))?;
            if !layer_weights.is_empty() {
                self.promotions[0] += usize::from(!promoted.is_empty());
                self.promotions[1] += 1;
            }
            let mut results = Vec::new();
            for (value, shape) in &finals {
                results.push(match destination(value, shape) {
                    Some(p) => destinations[p].clone(),
                    // A pad writes only its input's window: the rest must be the zeros of a
                    // fresh buffer, never an arena block another layer used. DDR, because the
                    // arena takes what the planned tensors leave of the GB.
                    None if op.name == "graph.pad" => {
                        let tensor = allocate(host, &walk.replicas, shape, Space::Ddr, walk.count);
                        self.spilled.push(tensor.clone());
                        tensor
                    }
                    None => self.intermediate(host, *value, shape),
                });
            }
            // A stepped slice of the layer's output (a strided projection's input) is stored by
            // its tiles, picked in the LB, instead of a copy staged through the LB later: when
            // the tilings that allow it (rows by multiples of the step) and the extra stores are
            // estimated cheaper than the layer's best tiling and the copy's bytes over the GB bus
            // (the rows' whole span in, the slice out).
            // The layer's estimate where it reads: the stepped store's gate, and what it leaves
            // of the DDR port to the next layer's prefetch.
            let estimated = estimate_ports(
                &Scope {
                    machine: walk.machine,
                    tensors: &layer_tensors,
                },
                op,
                &steps,
                &shape,
                out_space,
                elementwise_anchor,
                absorbed,
            );
            let stepped =
                finals
                    .first()
                    .filter(|_| !elementwise_anchor)
                    .and_then(|(value, shape)| {
                        let (slice, slice_steps) = stepped_slice(&body, *value)?;
                        let (result, result_type) = &body.ops[slice].results[0];
                        let result_shape = buffer_shape(&result_type.shape);
                        let target = destination(result, &result_shape);
                        if target.is_some_and(|p| mirrors[p].is_some()) {
                            return None;
                        }
                        // The slice is held from this layer on, beside the layer's operands, where its
                        // copy would have taken their place: only in an arena with that much room left
                        // over what the instance stores from this layer on (a spilled intermediate costs
                        // more than the copy; a convolution's result beside its epilogue's is never
                        // stored, so it is not counted).
                        let ahead = walk.op_stored[&position][op_index..]
                            .iter()
                            .copied()
                            .max()
                            .unwrap_or(0);
                        let slice_bytes = result_shape.iter().product::<usize>() * 4;
                        if ahead + slice_bytes > capacity {
                            return None;
                        }
                        let machine = walk.machine;
                        let stepped = estimate_stepped(
                            &Scope {
                                machine,
                                tensors: &layer_tensors,
                            },
                            op,
                            &steps,
                            shape,
                            out_space,
                            slice_steps[0],
                            absorbed,
                        )?;
                        let picked = slice_bytes as f64;
                        let span = picked * slice_steps[1] as f64;
                        let store = picked
                            / target
                                .map_or(Space::Gb, |p| destinations[p].view.space)
                                .link_bandwidth(machine);
                        let copy =
                            (span + picked) / Space::Gb.link_bandwidth(machine) + machine.barrier;
                        if stepped + store > estimated.as_ref()?.cycles + copy {
                            return None;
                        }
                        let tensor = match target {
                            Some(p) => destinations[p].clone(),
                            None => self.intermediate(host, *result, &result_shape),
                        };
                        stored_slices.insert(slice);
                        local.insert(*result, tensor.clone());
                        Some((tensor, slice_steps))
                    });
            let mirror = written
                .filter(|_| writes_mirror(op, elementwise_anchor))
                .and_then(|p| mirrors[p].clone().map(|mirror| (p, mirror)));
            mirrored.extend(mirror.as_ref().map(|(p, _)| *p));
            let layer = Layer {
                index: op_index,
                node: op,
                steps,
                output: results[0].clone(),
                mirror: mirror.map(|(_, mirror)| mirror),
                stepped,
                absorbed,
            };
            let scope = Scope {
                machine: walk.machine,
                tensors: &layer_tensors,
            };
            let (kernel_index, mut kernel) = self.open.take().expect("a kernel is open");
            // Where the next layer's weight copy goes if it prefetches.
            let start = walk
                .machine
                .pipeline
                .then(|| kernel.body.index(0).defining_op().expect("a constant"));
            let emitted = emit_layer(&scope, host, &layer, &results, elementwise_anchor, kernel);
            let mut kernel = emitted.map_err(|error| {
                let at = error
                    .op
                    .and_then(|i| body.ops.get(i).map(|n| n.op))
                    .unwrap_or(node.op);
                ScheduleError::at(at, error.message)
            })?;
            kernel.end_layer();
            self.open = Some((kernel_index, kernel));
            for ((value, _), tensor) in finals.iter().zip(results) {
                local.insert(*value, tensor);
            }
            let done = fused
                .iter()
                .copied()
                .filter(|&f| f > op_index)
                .max()
                .unwrap_or(op_index)
                .max(op_index);
            let cover = start
                .zip(estimated)
                .map_or(Cover::default(), |(start, estimate)| Cover {
                    idle: estimate.ddr_idle(),
                    spread: trickle::spread_bytes(
                        start,
                        estimate.tiles(),
                        walk.machine.cores_per_cluster,
                    ),
                    room: 0,
                });
            let this = Previous {
                start: None,
                blocks: promoted,
                done: Some(done),
                other_segment: false,
                cover,
            };
            match (start, previous.as_mut().filter(|_| aside)) {
                (Some(start), Some(before)) => {
                    start.erase();
                    before.done = before.done.max(Some(done));
                }
                (Some(start), None) => {
                    previous = Some(Previous {
                        start: Some(start),
                        ..this
                    })
                }
                (None, _) => self.retire(&body, &aliases, Some(this)),
            }
        }
        // Outputs not written in place (a block argument or a reshape yielded) are copied, to
        // their mirror too; one written in place by a layer that stores no mirror is copied to
        // its mirror.
        let mut pairs = Vec::new();
        for (position, value) in yielded.iter().enumerate() {
            let tensor = local[value].clone();
            let mirror = mirrors[position]
                .clone()
                .filter(|_| !mirrored.contains(&position));
            if tensor.host.0.ptr != destinations[position].host.0.ptr {
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
                self.retire(&body, &aliases, last);
                self.release(&body, &aliases, usize::MAX);
            }
        }
        for ((value, _), destination) in node.results.iter().zip(destinations) {
            tensors.insert(*value, destination);
        }
        Ok(())
    }
}
