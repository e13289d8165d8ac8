//! The lowering of an instance computed per core (GraphTurbo's LB scope, §3.4, §4.2–4.3;
//! planned by [`super::per_core`]): each core of the binding runs the instance's layers on its
//! own block back to back in a private part of the kernel, its intermediates in its LB.

use super::aliases::Aliases;
use super::core_lowering::{CoreLowering, Residents};
use super::emission::Emission;
use super::error::ScheduleError;
use super::per_core::{self, CorePlan, Operands, Placement, RESIDENT_SHARE};
use super::plan::FirstFit;
use crate::graph_view::{ElementType, FunctionView, Node, ValueId};
use crate::ir::{Op, Val};
use crate::kernels::emit::IndexOp;
use crate::kernels::{
    dispatch::emit_layer,
    emit::{reshaped, Body, Space, Tensor, View},
    fusion::{self, Fused},
    kernel::Kernel,
    layers::{Layer, Scope},
};
use crate::target::Machine;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

impl Emission<'_, '_> {
    /// Copies the weights an LB instance reads into the kernel's GB arena, once per kernel: the
    /// cores and every instance of the run then load them over the GB bus rather than each from
    /// DDR (GraphTurbo §4.2, DDR → GB → LB). A weight the arena has no room for stays in DDR.
    fn run_weights(
        &mut self,
        host: &mut Body,
        operands: &[(ValueId, Tensor)],
    ) -> Result<Vec<Tensor>, String> {
        let mut pairs = Vec::new();
        let mut found = Vec::new();
        for (operand, tensor) in operands {
            if let Some(copy) = self.run_weights.get(operand) {
                found.push(copy.clone());
                continue;
            }
            let free_space = self.arena.as_mut().filter(|(arena, _)| {
                tensor.view.space == Space::Ddr && arena.view.element == tensor.view.element
            });
            let Some(offset) = free_space.and_then(|(_, free)| free.take(tensor.view.elements()))
            else {
                found.push(tensor.clone());
                continue;
            };
            let arena = self.arena.as_ref().expect("an offset came from it").0.host;
            let at = host.index(offset);
            let window = View::contiguous_of(&tensor.view.shape, Space::Gb, tensor.view.element);
            let (value, view) = host.reinterpret_at(arena, at, &window);
            let copy = Tensor { host: value, view };
            pairs.push((tensor.clone(), copy.clone()));
            self.run_weights.insert(*operand, copy.clone());
            found.push(copy);
        }
        if !pairs.is_empty() {
            self.copy(host, &pairs)?;
        }
        Ok(found)
    }

    /// Lowers the LB instance `node` at `position` per core when its cores can each compute
    /// their own block and that is estimated faster than sharing its layers (GraphTurbo §3.4,
    /// `per_core`): whether it did; otherwise why not is counted, and it is lowered as a GB
    /// instance.
    pub(super) fn lowered_per_core(
        &mut self,
        host: &mut Body,
        position: usize,
        node: &Node,
        body: &FunctionView,
        tensors: &mut BTreeMap<ValueId, Tensor>,
    ) -> Result<bool, ScheduleError> {
        let walk = self.walk;
        // A typed kernel's LB holds buffers of its element types, not the blocks of a per-core
        // plan.
        if walk
            .kernel_of
            .get(&position)
            .is_some_and(|&kernel| walk.arena_element[kernel].is_none())
        {
            return Ok(false);
        }
        let weights = walk.weight_arguments(node, body);
        // Lowered in the GB, the instance's weights would be copied under the layer before
        // when there is one, all but the segment inputs that layer may still be writing.
        let other_segment = self
            .before
            .as_ref()
            .is_some_and(|previous| previous.other_segment);
        let held = |operand: &ValueId| other_segment && walk.is_written_before(*operand);
        let prefetch = self
            .before
            .as_ref()
            .is_some_and(|previous| previous.start.is_some())
            .then_some(&held as &dyn Fn(&ValueId) -> bool);
        let choice =
            per_core::plan(node, body, walk.machine.cores_per_cluster).and_then(|mut plan| {
                let promoted = |value: &ValueId| self.run_weights.contains_key(value);
                let operands = Operands {
                    tensors,
                    weights: &weights,
                    promoted: &promoted,
                    prefetch,
                };
                plan.promote = per_core::pays(node, body, &plan, &operands, &self.kernel_machine())
                    .ok_or("sharing its layers is estimated to be faster")?;
                Ok(plan)
            });
        match choice {
            Ok(plan) => {
                // Lowered per core, the instance prefetches nothing at the layer before;
                // lowered in the GB, it may.
                self.retire_before();
                self.per_core += 1;
                let destination = self.destination(host, position, node, 0);
                self.instance_per_core(host, node, body, &plan, tensors, &destination)?;
                if let Some(mirror) = self.mirror_destination(host, position, node, 0) {
                    self.copy(host, &[(destination.clone(), mirror)])
                        .map_err(|message| ScheduleError::at(node.op, message))?;
                }
                tensors.insert(node.results[0].0, destination);
                Ok(true)
            }
            Err(why) => {
                *self.lowered_in_gb.entry(why).or_default() += 1;
                Ok(false)
            }
        }
    }

    /// Lowers the LB instance `node` (body `body`, planned as `plan`) into the open kernel: every
    /// core of its binding runs the layers of its block back to back, operands read where they
    /// are, intermediates in its LB, its block of the output written into `destination`.
    pub(super) fn instance_per_core(
        &mut self,
        host: &mut Body,
        node: &Node,
        body: &FunctionView,
        plan: &CorePlan,
        tensors: &BTreeMap<ValueId, Tensor>,
        destination: &Tensor,
    ) -> Result<(), ScheduleError> {
        let promoted = self
            .promoted_run_weights(host, node, body, plan, tensors)
            .map_err(|message| ScheduleError::at(node.op, message))?;
        let gb_blocks = self.placed.len();
        let (kernel_index, mut kernel) = self.open.take().expect("a kernel is open");
        let core = kernel.open_private(plan.cores);
        let at = kernel.decode(core, &plan.binding);
        let (mut local, staged) = core_arguments(&mut kernel, node, plan, &promoted, tensors, &at);
        let output = place(&mut kernel, destination, &plan.output, &at);
        let machine = self.kernel_machine();
        let lowering = CoreLowering {
            body: &plan.body,
            core,
            cores: plan.cores,
            residents: Residents {
                space: FirstFit::new(machine.lb_elements()),
                live: Vec::new(),
                lb: machine.lb_elements(),
            },
            aliases: Aliases::default(),
            fused: BTreeSet::new(),
            output,
            machine: Machine {
                cores: 1,
                ..machine.clone()
            },
            kernel: Some(kernel),
        };
        let at_op =
            |(op, message): (Option<Op>, String)| ScheduleError::at(op.unwrap_or(node.op), message);
        let mut kernel = self
            .core_layers(host, lowering, &mut local, staged)
            .map_err(at_op)?;
        kernel.close_private();
        self.open = Some((kernel_index, kernel));
        // The GB blocks of spilled intermediates die with the instance.
        if let Some((_, free)) = &mut self.arena {
            for (_, offset, elements) in self.placed.drain(gb_blocks..) {
                free.give(offset, elements);
            }
        }
        Ok(())
    }

    /// The GB copies of the weights the LB instance `node` (body `body`) reads, by operand, when
    /// `plan` promotes them (see [`Emission::run_weights`]); none otherwise.
    fn promoted_run_weights(
        &mut self,
        host: &mut Body,
        node: &Node,
        body: &FunctionView,
        plan: &CorePlan,
        tensors: &BTreeMap<ValueId, Tensor>,
    ) -> Result<BTreeMap<ValueId, Tensor>, String> {
        let weights = self.walk.weight_arguments(node, body);
        let weight_operands: Vec<(ValueId, Tensor)> = plan
            .arguments
            .iter()
            .filter(|(position, _)| weights.contains(&body.arguments[*position].0))
            .map(|(position, _)| {
                (
                    node.operands[*position],
                    tensors[&node.operands[*position]].clone(),
                )
            })
            .collect();
        Ok(if plan.promote {
            weight_operands
                .iter()
                .map(|(value, _)| *value)
                .zip(self.run_weights(host, &weight_operands)?)
                .collect()
        } else {
            BTreeMap::new()
        })
    }

    /// A buffer of `shape` for `value` that lives across the core's layers from layer `now`: in
    /// the core's LB while the live ones leave the tiles their share, else the one of them (or
    /// `value`) whose last use is furthest away goes to the core's block of the GB (§4.3).
    fn resident(
        &mut self,
        host: &mut Body,
        lowering: &mut CoreLowering,
        local: &mut BTreeMap<ValueId, Tensor>,
        value: ValueId,
        shape: &[usize],
        now: usize,
    ) -> Result<Tensor, (Option<Op>, String)> {
        let elements = shape.iter().product::<usize>();
        let lb = lowering.residents.lb;
        loop {
            if let Some(offset) = lowering.residents.space.take(elements) {
                let rounded = elements.next_multiple_of(16);
                if offset + rounded <= lb / RESIDENT_SHARE {
                    lowering.residents.live.push((value, offset, rounded));
                    let (buffer, view) = lowering.kernel().lb_at(lb - offset - rounded, shape);
                    return Ok(Tensor { host: buffer, view });
                }
                lowering.residents.space.give(offset, elements);
            }
            // A buffer others view (a reshape's source) stays where the views point.
            let victim = lowering
                .residents
                .live
                .iter()
                .filter(|&&(live, _, _)| !lowering.aliases.is_viewed(live))
                .map(|&(live, _, _)| (lowering.last_use(live), live))
                .max();
            match victim {
                Some((last, live)) if last > lowering.last_use(value).max(now) => {
                    let shape = local[&live].view.shape.clone();
                    let spilled = self.core_block(host, lowering, live, &shape);
                    lowering.copy(&[(local[&live].clone(), spilled.clone())])?;
                    local.insert(live, spilled);
                    lowering.release(live);
                    self.lb_spills += 1;
                }
                _ => {
                    self.lb_spills += 1;
                    return Ok(self.core_block(host, lowering, value, shape));
                }
            }
        }
    }

    /// The running core's block of a GB buffer with one block per core of `lowering` (DDR when
    /// the kernel's GB arena is full).
    fn core_block(
        &mut self,
        host: &mut Body,
        lowering: &mut CoreLowering,
        value: ValueId,
        shape: &[usize],
    ) -> Tensor {
        let elements: usize = shape.iter().product();
        // Per-core plans are of instances of one float type, their arenas' (a typed kernel's
        // are lowered in the GB).
        let element = self
            .open
            .as_ref()
            .and_then(|(kernel, _)| self.walk.arena_element[*kernel])
            .unwrap_or(ElementType::F32);
        let whole = self.intermediate(host, value, (&[lowering.cores * elements], element));
        let core = lowering.core;
        let kernel = lowering.kernel();
        let source = kernel.argument(whole.host, &whole.view);
        let offset = kernel.body.scaled(core, elements);
        let (block, view) = kernel
            .body
            .subview(source, &whole.view, &[offset], &[elements], None);
        reshaped(&mut kernel.body, &Tensor { host: block, view }, shape)
    }

    /// Copies each `staged` argument's box into a buffer of the core's own, then emits the
    /// core's layers of `lowering.body` in order, the last writing `lowering.output`. Returns the
    /// kernel.
    fn core_layers(
        &mut self,
        host: &mut Body,
        mut lowering: CoreLowering,
        local: &mut BTreeMap<ValueId, Tensor>,
        staged: Vec<(ValueId, Tensor)>,
    ) -> Result<Kernel, (Option<Op>, String)> {
        for (argument, view) in staged {
            let copy = self.resident(host, &mut lowering, local, argument, &view.view.shape, 0)?;
            lowering.copy(&[(view, copy.clone())])?;
            local.insert(argument, copy);
        }
        let body = lowering.body;
        for (op_index, op) in body.ops.iter().enumerate() {
            if lowering.fused.contains(&op_index) || op.is_terminator() {
                continue;
            }
            self.core_layer(host, &mut lowering, local, op_index, op)?;
        }
        // An output not written in place (a reshape's, a copy of an operand) is copied.
        let last = local[&body.returned()[0]].clone();
        let output = lowering.output.clone();
        if last.host.raw().ptr != output.host.raw().ptr {
            lowering.copy(&[(last, output)])?;
        }
        Ok(lowering.kernel.take().expect("the kernel is here"))
    }

    /// Emits op `op_index` (`op`) of the core's body: a view for a reshape, else the layer it
    /// anchors with its fused epilogue, its results in the core's buffers; then gives back the
    /// buffers no later op reads.
    fn core_layer<'b>(
        &mut self,
        host: &mut Body,
        lowering: &mut CoreLowering<'b>,
        local: &mut BTreeMap<ValueId, Tensor>,
        op_index: usize,
        op: &'b Node,
    ) -> Result<(), (Option<Op>, String)> {
        let body = lowering.body;
        let location = op.op.location();
        // Views go before a marker at the current point: the epilogue's now, the layer's
        // once its results have buffers.
        let (marker, mut views) = lowering.views_here(location);
        if matches!(
            op.graph_kind(),
            Some(graph::Kind::Reshape | graph::Kind::Flatten)
        ) {
            lowering.reshape(&mut views, local, op);
            // SAFETY: the marker is the unused constant `views_here` made only to insert before,
            // and `views`, anchored at it, is dropped on return.
            unsafe { marker.erase() };
            return Ok(());
        }
        let Fused {
            steps,
            elementwise_anchor,
            fused: fused_ops,
            last,
        } = fusion::layer_epilogue(body, op_index, local, &mut views, &mut self.synthetic, None);
        lowering.fused.extend(fused_ops);
        let finals = fusion::written(op, last);
        let results = self.core_results(host, lowering, local, &finals, op_index)?;
        // SAFETY: the marker is the unused constant `views_here` made only to insert before, and
        // `views`, anchored at it, is shadowed below and not used again.
        unsafe { marker.erase() };
        let (marker, mut views) = lowering.views_here(location);
        let machine = Machine {
            lb_bytes: lowering.residents.tiles() * lowering.machine.word_bytes,
            ..lowering.machine.clone()
        };
        let layer = Layer {
            index: op_index,
            node: op,
            steps,
            output: results[0].clone(),
            mirror: None,
            stepped: None,
            absorbed: None,
            chained: None,
        };
        let scope = Scope {
            machine: &machine,
            tensors: local,
        };
        let kernel = lowering.kernel.take().expect("the kernel is here");
        let mut kernel = emit_layer(
            &scope,
            &mut views,
            &layer,
            &results,
            elementwise_anchor,
            kernel,
        )
        .map_err(|error| {
            (
                error.op.and_then(|i| body.ops.get(i).map(|n| n.op)),
                error.message,
            )
        })?;
        // SAFETY: the marker is the unused constant `views_here` made only to insert before, and
        // `views`, anchored at it, is not used after this.
        unsafe { marker.erase() };
        kernel.end_private_layer();
        lowering.kernel = Some(kernel);
        for ((value, _), tensor) in finals.iter().zip(results) {
            local.insert(*value, tensor);
        }
        lowering.release_done(op_index);
        Ok(())
    }

    /// The buffers the core's layer at `op_index` writes its final values (`finals`) into: the
    /// core's block of the output for the value the body yields when it is written in place,
    /// else buffers living across the core's layers ([`Emission::resident`]).
    fn core_results(
        &mut self,
        host: &mut Body,
        lowering: &mut CoreLowering,
        local: &mut BTreeMap<ValueId, Tensor>,
        finals: &[(ValueId, Vec<usize>)],
        op_index: usize,
    ) -> Result<Vec<Tensor>, (Option<Op>, String)> {
        let yielded = lowering.body.returned()[0];
        let mut results = Vec::new();
        for (value, shape) in finals {
            let output = &lowering.output;
            let in_place =
                *value == yielded && output.view.shape == *shape && output.view.is_contiguous();
            results.push(if in_place {
                output.clone()
            } else {
                self.resident(host, lowering, local, *value, shape, op_index)?
            });
        }
        Ok(results)
    }
}

/// The core's view of `tensor` (a host buffer), its box `placed` moved by the core's
/// coordinates `at` in the binding; a scalar whole.
fn place(kernel: &mut Kernel, tensor: &Tensor, placed: &Placement, at: &[Val]) -> Tensor {
    let source = kernel.argument(tensor.host, &tensor.view);
    if placed.base.is_empty() {
        // A scalar (a buffer of one element): every core reads all of it.
        return Tensor {
            host: source,
            view: tensor.view.clone(),
        };
    }
    let body = &mut kernel.body;
    let offsets: Vec<Val> = (0..placed.base.len())
        .map(|k| {
            let mut offset = body.index(placed.base[k]);
            for (d, steps) in placed
                .steps
                .iter()
                .enumerate()
                .filter(|(_, steps)| steps[k] > 0)
            {
                let moved = body.scaled(at[d], steps[k]);
                offset = body.arith(IndexOp::Add, offset, moved);
            }
            offset
        })
        .collect();
    let (value, view) = body.subview(source, &tensor.view, &offsets, &placed.sizes, None);
    Tensor { host: value, view }
}

/// The core's views of the arguments of `plan`'s body (boxes of the operands of `node`, read
/// from their GB copies among `promoted`, else where `tensors` has them, at the core's
/// coordinates `at`): those the layers read in place, and those the core copies first
/// (returned apart), the layer emitters reading row-major tensors.
fn core_arguments(
    kernel: &mut Kernel,
    node: &Node,
    plan: &CorePlan,
    promoted: &BTreeMap<ValueId, Tensor>,
    tensors: &BTreeMap<ValueId, Tensor>,
    at: &[Val],
) -> (BTreeMap<ValueId, Tensor>, Vec<(ValueId, Tensor)>) {
    let mut local: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    let mut staged = Vec::new();
    for ((position, placed), (argument, _)) in plan.arguments.iter().zip(&plan.body.arguments) {
        let operand = node.operands[*position];
        let source = promoted.get(&operand).unwrap_or(&tensors[&operand]);
        let view = place(kernel, source, placed, at);
        if view.view.is_contiguous() {
            local.insert(*argument, view);
        } else {
            // The layer emitters read row-major tensors: the core copies its box first.
            staged.push((*argument, view));
        }
    }
    (local, staged)
}
