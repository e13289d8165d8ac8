//! One layer of a GB instance lowered into the open kernel: what it fuses and reads, which of
//! its weights it copies to the GB first (under the layer before when that one prefetches,
//! GraphTurbo §4.4), where its results go (a stepped slice of them stored by its tiles when
//! that is estimated to pay), its tile loop, and what it holds for the next layer.

use super::emission::{Emission, Previous};
use super::error::ScheduleError;
use super::gb_instance::GbInstance;
use super::host_buffers::allocate;
use super::operands::{promoted_weights, stepped_slice, unit_steps, Cover};
use crate::graph_view::{Node, ValueId};
use crate::ir::Op;
use crate::kernels::{
    dispatch::{emit_layer, estimate_ports, estimate_stepped, writes_mirror},
    emit::{Body, Space, Tensor},
    fusion::{self, Fused},
    host_function::check_layer_elements,
    layers::{Layer, Scope, Step},
    ports::Estimate,
    trickle,
    view::buffer_shape,
};
use crate::target::Machine;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// A layer of a GB instance: its anchor, what it fuses, what it reads and where it writes.
struct GbLayer<'b> {
    /// The anchor's index in the instance's body, and the anchor.
    index: usize,
    op: &'b Node,
    /// The elementwise steps fused after the anchor, and whether the anchor is elementwise.
    steps: Vec<Step>,
    elementwise_anchor: bool,
    /// The convolution whose product the layer's accumulator takes first, if it absorbs one.
    absorbed: Option<&'b Node>,
    /// The weights (and operands read whole, or a convolution's input from DDR) the layer
    /// reads: what it may copy to the GB first.
    weights: BTreeSet<ValueId>,
    /// The buffer shape of the anchor's first result.
    shape: Vec<usize>,
    /// The values the layer writes, with their buffer shapes.
    finals: Vec<(ValueId, Vec<usize>)>,
    /// The output its first final value is written into in place, if any, and that output's
    /// space: where the layer writes decides which port its stores share (an intermediate's
    /// place is decided later: estimated where the layer reads).
    written: Option<usize>,
    out_space: Option<Space>,
}

impl GbLayer<'_> {
    /// The layer's estimate with its operands in `tensors`, with the DDR port's share of it.
    fn ports(&self, machine: &Machine, tensors: &BTreeMap<ValueId, Tensor>) -> Option<Estimate> {
        estimate_ports(
            &Scope { machine, tensors },
            self.op,
            &self.steps,
            &self.shape,
            self.out_space,
            self.elementwise_anchor,
            self.absorbed,
        )
    }
}

/// The tensors a layer reads after its weights' promotion, and what it decided for the layer
/// before.
struct LayerOperands {
    /// The layer's tensors (the instance's, taken for the layer), the promoted weights' GB
    /// copies among them.
    tensors: BTreeMap<ValueId, Tensor>,
    /// The promoted weights' own tensors, which the copies replaced.
    replaced: Vec<(ValueId, Tensor)>,
    /// The arena blocks the promoted weights took.
    blocks: Vec<(usize, usize)>,
    /// Whether the layer stands aside: the layer before stays the one the next layer's weights
    /// are copied under.
    aside: bool,
    /// The bytes of the kernel's GB arena.
    capacity: usize,
}

/// What a layer copies to the GB before it reads it ([`Emission::promotion_choice`]).
struct PromotionChoice {
    /// The weights copied under the layer before when it prefetches, and those that wait for
    /// it (inputs of the segment that another segment's layer before may still be writing).
    early: BTreeSet<ValueId>,
    held: BTreeSet<ValueId>,
    /// Where the early copies go: the start of the layer before, when it prefetches.
    ahead: Option<Op>,
    /// Whether the layer stands aside (see [`LayerOperands::aside`]).
    aside: bool,
    /// The bytes of the kernel's GB arena.
    capacity: usize,
}

/// Where a layer writes: its results' tensors, the mirror its tiles store too, and the stepped
/// slice of its output they store.
struct LayerOutputs {
    results: Vec<Tensor>,
    mirror: Option<Tensor>,
    stepped: Option<(Tensor, [usize; 2])>,
}

impl Emission<'_, '_> {
    /// Lowers the layer anchored at op `op_index` (`op`) of the instance's body into the open
    /// kernel, with the ops its epilogue fuses.
    pub(super) fn layer<'b>(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance<'b>,
        op_index: usize,
        op: &'b Node,
    ) -> Result<(), ScheduleError> {
        check_layer_elements(instance.body, op_index)
            .map_err(|error| ScheduleError::at(op.op, error.message))?;
        let layer = self.layer_reads(host, instance, op_index, op);
        let mut operands = self.layer_operands(host, instance, &layer)?;
        let results = self.layer_results(host, instance, &layer);
        // The layer's estimate where it reads: the stepped store's gate, and what it leaves
        // of the DDR port to the next layer's prefetch.
        let estimated = layer.ports(&self.kernel_machine(), &operands.tensors);
        let stepped = self.stepped_store(host, instance, &layer, &operands, estimated.as_ref());
        let mirror = layer
            .written
            .filter(|_| writes_mirror(op, layer.elementwise_anchor))
            .and_then(|p| instance.mirrors[p].clone().map(|mirror| (p, mirror)));
        instance.mirrored.extend(mirror.as_ref().map(|(p, _)| *p));
        let outputs = LayerOutputs {
            results,
            mirror: mirror.map(|(_, mirror)| mirror),
            stepped,
        };
        let start = self.emit_gb_layer(host, instance, layer, &operands.tensors, outputs)?;
        Self::restore(instance, &mut operands);
        self.layer_done(instance, op_index, start, estimated, operands);
        Ok(())
    }

    /// Fuses the epilogue of the layer anchored at `op` (its views made on `host`) and collects
    /// what the layer reads and writes.
    fn layer_reads<'b>(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance<'b>,
        op_index: usize,
        op: &'b Node,
    ) -> GbLayer<'b> {
        let walk = self.walk;
        let body = instance.body;
        let Fused {
            steps,
            elementwise_anchor,
            fused: fused_ops,
            last,
        } = fusion::layer_epilogue(
            body,
            op_index,
            &mut instance.local,
            host,
            &mut self.synthetic,
            instance
                .absorbs
                .get(&op_index)
                .map(|conv| conv.results[0].0),
        );
        let absorbed = instance.absorbs.get(&op_index).copied();
        let read: Vec<ValueId> = std::iter::once(op_index)
            .chain(fused_ops.iter().copied())
            .flat_map(|i| body.ops[i].operands.iter().copied())
            .chain(
                absorbed
                    .into_iter()
                    .flat_map(|conv| conv.operands.iter().copied()),
            )
            .collect();
        instance.fused.extend(fused_ops);
        let mut weights: BTreeSet<ValueId> = read
            .iter()
            .filter(|value| instance.weights.contains(value))
            .copied()
            .collect();
        // Whether a value of the body is (a slice of) an input of the segment.
        let segment_input = |value: &ValueId| {
            instance
                .operand(value)
                .is_some_and(|operand| walk.is_segment_input(operand))
        };
        // A convolution's input from DDR (its segment's, complete before the segment runs)
        // may be copied too: its tiles re-read the rows their windows share (the stem's 7×7
        // stride-2 rows from the model's input).
        if op.is(graph::Kind::Conv2d) {
            weights.extend(op.operands.first().filter(|value| {
                segment_input(value) && instance.local[*value].view.space == Space::Ddr
            }));
        }
        let shape = buffer_shape(&op.results[0].1.shape);
        let finals = fusion::written(op, last);
        let written = finals
            .first()
            .and_then(|(value, shape)| instance.destination(op, value, shape));
        let out_space = written.map(|p| instance.destinations[p].view.space);
        GbLayer {
            index: op_index,
            op,
            steps,
            elementwise_anchor,
            absorbed,
            weights,
            shape,
            finals,
            written,
            out_space,
        }
    }

    /// Copies the weights `promotion_choice` picks to the GB, those that may go early under the
    /// layer before when it prefetches, and gives back what the layer before held once the
    /// copies have their blocks. Returns the tensors the layer reads.
    fn layer_operands(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance,
        layer: &GbLayer,
    ) -> Result<LayerOperands, ScheduleError> {
        let PromotionChoice {
            early,
            held,
            ahead,
            aside,
            capacity,
        } = self.promotion_choice(instance, layer);
        if ahead.is_none() && !aside {
            self.retire(instance.body, &instance.aliases, instance.previous.take());
        }
        // The layer reads the instance's tensors with its promoted weights' copies in place of
        // theirs: the map is the instance's, taken for the layer and given back with the
        // originals by `restore` (a copy per layer would make a one-instance model quadratic).
        let mut tensors = std::mem::take(&mut instance.local);
        let promoted = self.promote(host, &mut tensors, early.iter(), ahead);
        if !aside {
            self.retire(instance.body, &instance.aliases, instance.previous.take());
        }
        let promoted = promoted.and_then(|(mut replaced, mut blocks)| {
            let (more_replaced, more) = self.promote(host, &mut tensors, held.iter(), None)?;
            replaced.extend(more_replaced);
            blocks.extend(more);
            Ok((replaced, blocks))
        });
        let (replaced, blocks) =
            promoted.map_err(|message| ScheduleError::at(layer.op.op, message))?;
        if !layer.weights.is_empty() {
            self.promotions[0] += usize::from(!blocks.is_empty());
            self.promotions[1] += 1;
        }
        Ok(LayerOperands {
            tensors,
            replaced,
            blocks,
            aside,
            capacity,
        })
    }

    /// Gives the instance its tensors back after the layer read `operands`: the promoted
    /// weights' own tensors again, and the tensors the layer recorded meanwhile.
    fn restore(instance: &mut GbInstance, operands: &mut LayerOperands) {
        let mut tensors = std::mem::take(&mut operands.tensors);
        tensors.extend(std::mem::take(&mut operands.replaced));
        tensors.extend(std::mem::take(&mut instance.local));
        instance.local = tensors;
    }

    /// Which of the layer's weights to copy to the GB first ([`promoted_weights`]), split into
    /// those that may be copied under the layer before and those that wait for it, where the
    /// early ones go, and whether the layer stands aside.
    fn promotion_choice(&self, instance: &mut GbInstance, layer: &GbLayer) -> PromotionChoice {
        let walk = self.walk;
        // The instance's tensors, which the estimates of the promoted sets read with the
        // weights' spaces set for each set; given back below.
        let mut tensors = std::mem::take(&mut instance.local);
        let op = layer.op;
        let needs = &walk.op_needs[&instance.position];
        let other_segment = instance
            .previous
            .as_ref()
            .is_some_and(|previous| previous.other_segment);
        let goes_early = |value: &ValueId| {
            !(other_segment
                && instance
                    .operand(value)
                    .is_some_and(|operand| walk.is_written_before(operand)))
        };
        // A copy prefetched under the layer before is credited what that layer leaves of the
        // DDR port (crediting the whole layer's cycles makes more layers copy their weights
        // onto busy ports), when the arena holds it beside the instance's own buffers at this
        // layer.
        let capacity = self.arena.as_ref().map_or(0, |(arena, _)| {
            arena.view.elements() * arena.view.element.bytes()
        });
        let cover = instance
            .previous
            .as_ref()
            .filter(|previous| previous.start.is_some())
            .map_or(Cover::default(), |previous| previous.cover);
        let cover = Cover {
            room: capacity.saturating_sub(needs[layer.index]),
            ..cover
        };
        let machine = self.kernel_machine();
        let estimate = |tensors: &BTreeMap<ValueId, Tensor>| {
            layer
                .ports(&machine, tensors)
                .map(|estimate| estimate.cycles)
        };
        let promote = promoted_weights(
            &machine,
            &mut tensors,
            &layer.weights,
            &estimate,
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
        let ahead = instance
            .previous
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
            (op.is(graph::Kind::Slice) && !unit_steps(op)) || op.is(graph::Kind::GlobalAvgPool);
        let aside = short
            && promote.is_empty()
            && instance
                .previous
                .as_ref()
                .is_some_and(|previous| previous.start.is_some());
        instance.local = tensors;
        PromotionChoice {
            early,
            held,
            ahead,
            aside,
            capacity,
        }
    }

    /// The tensors the layer writes its final values into: outputs of the instance written in
    /// place, else intermediates.
    fn layer_results(
        &mut self,
        host: &mut Body,
        instance: &GbInstance,
        layer: &GbLayer,
    ) -> Vec<Tensor> {
        let walk = self.walk;
        let mut results = Vec::new();
        for (value, shape) in &layer.finals {
            results.push(match instance.destination(layer.op, value, shape) {
                Some(p) => instance.destinations[p].clone(),
                // A pad writes only its input's window: the rest must be the zeros of a
                // fresh buffer, never an arena block another layer used. DDR, because the
                // arena takes what the planned tensors leave of the GB.
                None if layer.op.is(graph::Kind::Pad) => {
                    let element = instance.body.type_of(*value).element_type;
                    let tensor = allocate(
                        host,
                        &walk.replicas,
                        (shape, element),
                        Space::Ddr,
                        walk.count,
                    );
                    self.spilled.push(tensor.clone());
                    tensor
                }
                None => {
                    let element = instance.body.type_of(*value).element_type;
                    self.intermediate(host, *value, (shape, element))
                }
            });
        }
        results
    }

    /// The stepped slice of the layer's output (a strided projection's input) that its tiles
    /// store, picked in the LB, instead of a copy staged through the LB later: when the tilings
    /// that allow it (rows by multiples of the step) and the extra stores are estimated cheaper
    /// than the layer's best tiling (`estimated`) and the copy's bytes over the GB bus (the
    /// rows' whole span in, the slice out). Returns its tensor and steps; the slice is then
    /// stored, not lowered.
    fn stepped_store(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance,
        layer: &GbLayer,
        operands: &LayerOperands,
        estimated: Option<&Estimate>,
    ) -> Option<(Tensor, [usize; 2])> {
        let walk = self.walk;
        let (value, shape) = layer.finals.first().filter(|_| !layer.elementwise_anchor)?;
        let body = instance.body;
        let (slice, slice_steps) = stepped_slice(body, *value)?;
        let (result, result_type) = &body.ops[slice].results[0];
        let result_shape = buffer_shape(&result_type.shape);
        let target = instance.destination(layer.op, result, &result_shape);
        if target.is_some_and(|p| instance.mirrors[p].is_some()) {
            return None;
        }
        // The slice is held from this layer on, beside the layer's operands, where its copy
        // would have taken their place: only in an arena with that much room left over what
        // the instance stores from this layer on (a spilled intermediate costs more than the
        // copy; a convolution's result beside its epilogue's is never stored, so it is not
        // counted).
        let ahead = walk.op_stored[&instance.position][layer.index..]
            .iter()
            .copied()
            .max()
            .unwrap_or(0);
        let slice_bytes = result_shape.iter().product::<usize>() * result_type.element_type.bytes();
        if ahead + slice_bytes > operands.capacity {
            return None;
        }
        let machine = self.kernel_machine();
        let stepped = estimate_stepped(
            &Scope {
                machine: &machine,
                tensors: &operands.tensors,
            },
            layer.op,
            &layer.steps,
            shape,
            layer.out_space,
            slice_steps[0],
            layer.absorbed,
        )?;
        let picked = slice_bytes as f64;
        let span = picked * slice_steps[1] as f64;
        let store = picked
            / target
                .map_or(Space::Gb, |p| instance.destinations[p].view.space)
                .link_bandwidth(&machine);
        let copy = (span + picked) / Space::Gb.link_bandwidth(&machine) + machine.barrier;
        if stepped + store > estimated?.cycles + copy {
            return None;
        }
        let tensor = match target {
            Some(p) => instance.destinations[p].clone(),
            None => {
                let element = instance.body.type_of(*result).element_type;
                self.intermediate(host, *result, (&result_shape, element))
            }
        };
        instance.stored_slices.insert(slice);
        instance.local.insert(*result, tensor.clone());
        Some((tensor, slice_steps))
    }

    /// Emits the layer's tile loop into the open kernel, reading `tensors` and writing
    /// `outputs`, and records its results' tensors. Returns a mark where its instructions start
    /// (where the next layer's weight copy goes if it prefetches), with software pipelining.
    fn emit_gb_layer(
        &mut self,
        host: &mut Body,
        instance: &mut GbInstance,
        layer: GbLayer,
        tensors: &BTreeMap<ValueId, Tensor>,
        outputs: LayerOutputs,
    ) -> Result<Option<Op>, ScheduleError> {
        let walk = self.walk;
        let (body, node) = (instance.body, instance.node);
        let GbLayer {
            index,
            op,
            steps,
            elementwise_anchor,
            absorbed,
            finals,
            ..
        } = layer;
        let LayerOutputs {
            results,
            mirror,
            stepped,
        } = outputs;
        let layer = Layer {
            index,
            node: op,
            steps,
            output: results[0].clone(),
            mirror,
            stepped,
            absorbed,
            chained: None,
        };
        let machine = self.kernel_machine();
        let scope = Scope {
            machine: &machine,
            tensors,
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
            instance.local.insert(*value, tensor);
        }
        Ok(start)
    }

    /// Records what the layer at `op_index` (its instructions starting at `start`, estimated as
    /// `estimated`) holds for the next: it becomes the layer before, which the next layer may
    /// prefetch under, or, when it stands aside, the layer before it holds its reads too;
    /// without software pipelining, what it held is given back at once.
    fn layer_done(
        &mut self,
        instance: &mut GbInstance,
        op_index: usize,
        start: Option<Op>,
        estimated: Option<Estimate>,
        operands: LayerOperands,
    ) {
        let walk = self.walk;
        let done = instance
            .fused
            .last()
            .copied()
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
            blocks: operands.blocks,
            done: Some(done),
            other_segment: false,
            cover,
        };
        let aside = operands.aside;
        match (start, instance.previous.as_mut().filter(|_| aside)) {
            (Some(start), Some(before)) => {
                // SAFETY: the mark is an unused constant where the layer's instructions start;
                // the layer stands aside, so the mark is kept nowhere (`this` has none, and the
                // cover above only read it).
                unsafe { start.erase() };
                before.done = before.done.max(Some(done));
            }
            (Some(start), None) => {
                instance.previous = Some(Previous {
                    start: Some(start),
                    ..this
                })
            }
            (None, _) => self.retire(instance.body, &instance.aliases, Some(this)),
        }
    }
}
