//! GraphTurbo's LB scope (§3.4, §4.2): an instance whose scope is LB runs on the cores of its
//! binding, each core computing its own block of the output through all of the instance's layers
//! with the intermediates in its own local buffer — no barrier and no GB traffic between them.
//!
//! Each core's block is the share of the output its coordinates in the binding pick; region
//! inference (the halos and attribute changes `instance-split` uses) gives the box of every value
//! that block needs. The kernel is written once for all cores: the boxes must have the same
//! sizes and attributes on every core, and their offsets must grow linearly with the core's
//! coordinates (a batch or channel binding, or rows away from the borders). Where they do not
//! (a border row's padding), where the body has what the per-core path does not lower (several
//! outputs, a pad, which needs a zeroed buffer), where the cores would recompute more than a
//! tenth of the work, or where the lowering's own estimates find sharing the layers among the
//! cores faster ([`pays`]), the instance is lowered as a GB one and the summary counts why. The
//! lowering itself is [`super::core_emission`].

use super::operands::copy_cycles;
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::ir::{self, create, InsertionPoint, Op, Val};
use crate::kernels::{
    dispatch::estimate,
    emit::{Space, Tensor, View},
    layers::Scope,
    view::buffer_shape,
};
use crate::slicing::binding::binding_of;
use crate::slicing::regions::{recomputation, sizes, sweep, Demand, Region};
use crate::slicing::sliced_body::{append_ops, slice, tensor_like};
use crate::target::Machine;
use mlir_sys::*;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use turbine_dialects::ops::graph;
use turbine_dialects::ops::instance;

/// The part of a core's LB that buffers living across the layers of a per-core instance may
/// take: the tiles of each layer keep the rest, so that their tilings stay as large as a GB
/// instance's within a factor of two. Past it, the live buffer whose last use is furthest away
/// goes to the core's block of the GB (GraphTurbo §4.3, spilling LB → GB).
pub(super) const RESIDENT_SHARE: usize = 2;

/// Where a per-core box sits in the tensor it is cut from: its sizes, the offsets of core 0's,
/// and per output dimension of the binding, how far the offsets move per step of the core's
/// coordinate along it.
#[derive(Debug, Clone)]
pub(super) struct Placement {
    pub sizes: Vec<usize>,
    pub base: Vec<usize>,
    pub steps: Vec<Vec<usize>>,
}

/// The most work the cores of a per-core instance may repeat (halos), as a fraction of the
/// instance's own.
const RECOMPUTATION_LIMIT: f64 = 0.1;

/// What one core computes of a body: per value, its box (if any), and per op, what it reads.
type Sweep = (Vec<Option<Region>>, Vec<Option<Demand>>);

/// An LB instance as each core computes it.
pub(super) struct CorePlan {
    /// Owns the per-core body (a detached op, destroyed with the plan).
    holder: Op,
    /// The instance's body cut to one core's block (core 0's; every core's has the same shapes).
    pub body: FunctionView,
    /// Cores per dimension of the output, and the cores used.
    pub binding: Vec<usize>,
    pub cores: usize,
    /// Per argument of `body`: the operand of the instance it is a box of, and where.
    pub arguments: Vec<(usize, Placement)>,
    /// The core's block of the instance's output.
    pub output: Placement,
    /// Whether its weights are copied to the GB first (decided by [`pays`]).
    pub promote: bool,
}

impl Drop for CorePlan {
    fn drop(&mut self) {
        // SAFETY: the holder is the detached `instance.instance` `core_body` made, which this plan
        // owns; it has no results, and the handles into it (`body`) go with the plan. Errors raised
        // while lowering it carry locations, not its ops.
        unsafe { self.holder.erase() };
    }
}

/// The block of `shape` that core coordinates `coordinates` of `binding` own.
fn block(shape: &[usize], binding: &[usize], coordinates: &[usize]) -> Region {
    shape
        .iter()
        .zip(binding)
        .zip(coordinates)
        .map(|((&size, &count), &at)| (at * size / count)..((at + 1) * size / count))
        .collect()
}

/// The coordinates of core `core` over `binding` (row-major, as
/// [`crate::kernels::kernel::Kernel::decode`]).
fn coordinates(mut core: usize, binding: &[usize]) -> Vec<usize> {
    let mut at = vec![0; binding.len()];
    for d in (0..binding.len()).rev() {
        at[d] = core % binding[d];
        core /= binding[d];
    }
    at
}

/// The placement of the boxes `boxes[core]` of one value, when they have one size and offsets
/// linear in the core coordinates.
fn placement(boxes: &[&Region], binding: &[usize]) -> Option<Placement> {
    let first = boxes[0];
    if boxes.iter().any(|b| sizes(b) != sizes(first)) {
        return None;
    }
    let base: Vec<usize> = first.iter().map(|range| range.start).collect();
    // The step along dimension d is what the core one coordinate further along it adds.
    let mut steps = vec![vec![0; base.len()]; binding.len()];
    for (d, &count) in binding.iter().enumerate() {
        if count < 2 {
            continue;
        }
        let mut unit = vec![0; binding.len()];
        unit[d] = 1;
        let core = unit
            .iter()
            .zip(binding)
            .fold(0, |core, (&at, &count)| core * count + at);
        for (k, range) in boxes[core].iter().enumerate() {
            steps[d][k] = range.start.checked_sub(base[k])?;
        }
    }
    let linear = boxes.iter().enumerate().all(|(core, b)| {
        let at = coordinates(core, binding);
        b.iter().enumerate().all(|(k, range)| {
            range.start
                == base[k]
                    + (0..binding.len())
                        .map(|d| at[d] * steps[d][k])
                        .sum::<usize>()
        })
    });
    linear.then_some(Placement {
        sizes: sizes(first),
        base,
        steps,
    })
}

/// The per-core form of the LB instance `node` (body `body`) on a cluster of `cores_per_cluster`
/// cores, or why it has none.
pub(super) fn plan(
    node: &Node,
    body: &FunctionView,
    cores_per_cluster: usize,
) -> Result<CorePlan, &'static str> {
    let (binding, cores, output) = checked_binding(node, body, cores_per_cluster)?;
    let shape = body.type_of(output).shape.clone();
    if shape.len() != binding.len()
        || shape
            .iter()
            .zip(&binding)
            .any(|(&size, &count)| size % count != 0)
    {
        return Err("its binding does not divide its output");
    }
    let sweeps = core_sweeps(body, output, &shape, &binding)?;
    let arguments = argument_placements(body, &sweeps, &binding)?;
    let outputs: Vec<Region> = (0..cores)
        .map(|core| block(&shape, &binding, &coordinates(core, &binding)))
        .collect();
    let output_placement =
        placement(&outputs.iter().collect::<Vec<_>>(), &binding).expect("shares are evenly spaced");
    let holder = core_body(node, body, &sweeps[0], &arguments, output, &outputs[0]);
    let body = FunctionView::read_body(holder, String::new()).map_err(|_| {
        // SAFETY: the holder is detached, owned here and without results; the view that failed to
        // read it is dropped, and the holder is not used after.
        unsafe { holder.erase() };
        "its per-core body cannot be read"
    })?;
    Ok(CorePlan {
        holder,
        body,
        binding,
        cores,
        arguments,
        output: output_placement,
        promote: false,
    })
}

/// The binding of the LB instance `node` (body `body`), the cores it uses and the body's one
/// output, when the per-core path can lower it on a cluster of `cores_per_cluster` cores.
fn checked_binding(
    node: &Node,
    body: &FunctionView,
    cores_per_cluster: usize,
) -> Result<(Vec<usize>, usize, ValueId), &'static str> {
    let binding = binding_of(node.op).ok_or("it has no binding")?;
    let cores: usize = binding.iter().product();
    if cores == 0 || cores > cores_per_cluster {
        return Err("its binding does not fit the cluster's cores");
    }
    let [output] = body.returned() else {
        return Err("it has several outputs");
    };
    if body
        .ops
        .iter()
        .any(|op| op.is(graph::Kind::Pad) || op.has_regions)
    {
        return Err("it pads or has control flow");
    }
    Ok((binding, cores, *output))
}

/// What each core computes and reads of `body` for its block of `output` (of `shape`, cut by
/// `binding`): per core, the box of every value and what each op reads. Fails when the cores'
/// boxes differ in shape or padding, or when they would recompute too much.
fn core_sweeps(
    body: &FunctionView,
    output: ValueId,
    shape: &[usize],
    binding: &[usize],
) -> Result<Vec<Sweep>, &'static str> {
    let cores: usize = binding.iter().product();
    let sweeps: Vec<_> = (0..cores)
        .map(|core| {
            sweep(
                body,
                &[(output, block(shape, binding, &coordinates(core, binding)))],
            )
        })
        .collect();
    let (computed, demands) = &sweeps[0];
    for (other_computed, other_demands) in &sweeps[1..] {
        let same_sizes = computed
            .iter()
            .zip(other_computed)
            .all(|(a, b)| a.as_ref().map(sizes) == b.as_ref().map(sizes));
        let same_ops = demands
            .iter()
            .zip(other_demands)
            .all(|(a, b)| a.as_ref().map(|d| &d.attributes) == b.as_ref().map(|d| &d.attributes));
        if !same_sizes || !same_ops {
            return Err("its cores' blocks differ in shape or padding");
        }
    }
    // GraphTurbo §3.3 accepts the halos of split windows; a binding that splits what earlier
    // layers compute whole (the channels of a chain of convolutions) makes every core compute
    // those layers again, and sharing them through the GB costs less.
    if recomputation(body, sweeps.iter().map(|(c, _)| c.as_slice())) > RECOMPUTATION_LIMIT {
        return Err("its cores would recompute more than a tenth of its work");
    }
    Ok(sweeps)
}

/// Per argument of `body` that a core reads, its position and where each core's box of it
/// sits (from the cores' `sweeps` over `binding`).
fn argument_placements(
    body: &FunctionView,
    sweeps: &[Sweep],
    binding: &[usize],
) -> Result<Vec<(usize, Placement)>, &'static str> {
    let boxes_of = |value: ValueId| -> Option<Vec<&Region>> {
        sweeps.iter().map(|(c, _)| c[value].as_ref()).collect()
    };
    let mut arguments = Vec::new();
    for (position, (argument, _)) in body.arguments.iter().enumerate() {
        let Some(boxes) = boxes_of(*argument) else {
            continue;
        };
        arguments.push((
            position,
            placement(&boxes, binding)
                .ok_or("its cores' boxes of an operand are not evenly spaced")?,
        ));
    }
    Ok(arguments)
}

/// Core 0's body of the LB instance `node` (body `body`, swept as `sweep`), built as
/// instance-split builds an instance's: its `arguments`' boxes in, `block` of `output` yielded.
/// Returns the detached `instance.instance` holding it.
fn core_body(
    node: &Node,
    body: &FunctionView,
    (computed, demands): &Sweep,
    arguments: &[(usize, Placement)],
    output: ValueId,
    block: &Region,
) -> Op {
    let location = node.op.location();
    let types: Vec<MlirType> = arguments
        .iter()
        .map(|(position, placed)| tensor_like(node.op.operand(*position), &placed.sizes))
        .collect();
    let (region, block_) = ir::region_with_block(&types, location);
    let mut values: HashMap<usize, (Val, Region)> = HashMap::new();
    for (index, (position, _)) in arguments.iter().enumerate() {
        // SAFETY: the block has one argument per kept operand; the argument lives with the
        // block, which the region holds until the op built below takes it.
        let value = unsafe { Val::from_raw(mlirBlockGetArgument(block_, index as isize)) };
        let argument = body.arguments[*position].0;
        values.insert(
            argument,
            (
                value,
                computed[argument]
                    .clone()
                    .expect("a kept argument has a box"),
            ),
        );
    }
    append_ops(block_, body, computed, demands, &mut values);
    let (value, have) = &values[&output];
    let yielded = slice(
        InsertionPoint::End(block_),
        location,
        graph::Kind::Slice,
        *value,
        have,
        block,
        "starts",
    );
    create(
        InsertionPoint::End(block_),
        location,
        instance::Kind::Yield,
        &[yielded],
        &[],
        &[],
        Vec::new(),
    );
    create(
        InsertionPoint::Detached,
        location,
        instance::Kind::Instance,
        &[],
        &[],
        &[],
        vec![region],
    )
}

/// The estimated cycles of `body` with each value in the space `space_of` gives, on `machine`:
/// the convolutions and matrix products by the lowering's own estimates of their tilings, the
/// other layers by the bytes they read and write over their cores' share of each path (they
/// compute little); None when a layer does not fit its LB.
fn anchors_estimate(
    body: &FunctionView,
    machine: &Machine,
    like: Val,
    space_of: &dyn Fn(ValueId) -> Space,
) -> Option<f64> {
    let mut tensors = BTreeMap::new();
    for (value, r#type) in body
        .arguments
        .iter()
        .chain(body.ops.iter().flat_map(|op| op.results.iter()))
    {
        tensors.insert(
            *value,
            Tensor {
                host: like,
                view: View::contiguous_of(
                    &buffer_shape(&r#type.shape),
                    space_of(*value),
                    r#type.element_type,
                ),
            },
        );
    }
    let scope = Scope {
        machine,
        tensors: &tensors,
    };
    let mut total = 0.0;
    for op in &body.ops {
        if op.graph_kind().is_some_and(graph::Kind::is_contraction) {
            total += estimate(
                &scope,
                op,
                &[],
                &buffer_shape(&op.results[0].1.shape),
                None,
                false,
            )? + machine.barrier;
        } else if !op.is_terminator()
            && !matches!(
                op.graph_kind(),
                Some(graph::Kind::Reshape | graph::Kind::Flatten)
            )
        {
            let moved = op
                .operands
                .iter()
                .chain(op.results.iter().map(|(value, _)| value))
                .map(|value| {
                    let view = &tensors[value].view;
                    (view.elements() * view.element.bytes()) as f64
                        / (view.space.core_bandwidth(machine) * machine.cores as f64)
                });
            total += moved.sum::<f64>() + machine.barrier;
        }
    }
    Some(total)
}

/// Where the operands of an LB instance are read from, for [`pays`].
pub(super) struct Operands<'a> {
    /// The tensors of the cluster program's values, the instance's operands among them.
    pub(super) tensors: &'a BTreeMap<ValueId, Tensor>,
    /// The arguments of the instance's body that stand for weights or constants.
    pub(super) weights: &'a BTreeSet<ValueId>,
    /// Whether the kernel has copied an operand (a weight) to the GB already.
    pub(super) promoted: &'a dyn Fn(&ValueId) -> bool,
    /// With a layer before in the kernel, which operands must wait for it (see [`pays`]).
    pub(super) prefetch: Option<&'a dyn Fn(&ValueId) -> bool>,
}

/// Whether computing the LB instance `node` (body `body`) per core, as `plan` has it, is
/// estimated to take fewer cycles than sharing each of its layers among the cores with the
/// intermediates in the GB — the per-core binding fixes what each core reads (every core of a
/// batch binding reads the whole filter), which can cost more than the GB traffic it saves — and
/// if so, whether its weights should first be copied to the GB (`promoted` tells those the
/// kernel has copied already). Each side reads its weights from DDR or from a GB copy, whichever
/// its estimate prefers with the copy counted, as the lowering of GB instances decides for their
/// layers. Shared, each layer copies its weights while the layer before computes (§4.4) when
/// there is one in the kernel (`prefetch`, which tells the operands that must wait for it:
/// inputs of the segment that layer may still be writing), and those copies cost nothing here;
/// per core, the copy comes first. Both are priced: leaving the copy's price out would favour
/// the per-core lowering where it runs slower.
pub(super) fn pays(
    node: &Node,
    body: &FunctionView,
    plan: &CorePlan,
    operands: &Operands,
    machine: &Machine,
) -> Option<bool> {
    let Operands {
        tensors,
        weights,
        promoted,
        prefetch,
    } = *operands;
    let like = node.op.operand(0);
    // The bytes of the weights copied first: all, or those `serial` tells; `only_new`, not those
    // the kernel has copied already.
    let weight_bytes = |only_new: bool, serial: &dyn Fn(&ValueId) -> bool| -> usize {
        body.arguments
            .iter()
            .enumerate()
            .filter(|(position, (argument, _))| {
                let operand = &node.operands[*position];
                weights.contains(argument) && !(only_new && promoted(operand)) && serial(operand)
            })
            .map(|(_, (_, r#type))| {
                r#type.shape.iter().product::<usize>() * r#type.element_type.bytes()
            })
            .sum()
    };
    // Per body argument (by position), where it is read from, given where the weights are.
    let outside = |position: usize, weight_space: Space| {
        if weights.contains(&body.arguments[position].0) {
            weight_space
        } else {
            tensors[&node.operands[position]].view.space
        }
    };
    let shared = |weight_space: Space| {
        let spaces: BTreeMap<ValueId, Space> = (0..body.arguments.len())
            .map(|position| (body.arguments[position].0, outside(position, weight_space)))
            .collect();
        anchors_estimate(body, machine, like, &|value| {
            spaces.get(&value).copied().unwrap_or(Space::Gb)
        })
    };
    let core_machine = Machine {
        cores: 1,
        lb_bytes: machine.lb_bytes / RESIDENT_SHARE,
        ..machine.clone()
    };
    let per_core = |weight_space: Space| {
        let spaces: BTreeMap<ValueId, Space> = plan
            .arguments
            .iter()
            .zip(&plan.body.arguments)
            .map(|((position, _), (argument, _))| (*argument, outside(*position, weight_space)))
            .collect();
        anchors_estimate(&plan.body, &core_machine, like, &|value| {
            spaces.get(&value).copied().unwrap_or(Space::Lb)
        })
    };
    let (per_core, promote) = cheaper(
        machine,
        per_core(Space::Ddr),
        per_core(Space::Gb),
        weight_bytes(true, &|_| true),
    )?;
    match cheaper(
        machine,
        shared(Space::Ddr),
        shared(Space::Gb),
        weight_bytes(false, prefetch.unwrap_or(&|_| true)),
    ) {
        Some((shared, _)) if shared <= per_core => None,
        _ => Some(promote),
    }
}

/// The cheaper of reading the weights where they are (estimated `direct`) and copying their
/// `bytes` to the GB first (estimated `copied`, the copy's cycles added when it moves any), and
/// whether that is the copy; none when neither has an estimate.
fn cheaper(
    machine: &Machine,
    direct: Option<f64>,
    copied: Option<f64>,
    bytes: usize,
) -> Option<(f64, bool)> {
    let copied = copied.map(|cycles| {
        cycles
            + if bytes > 0 {
                copy_cycles(machine, bytes)
            } else {
                0.0
            }
    });
    match (direct, copied) {
        (Some(direct), Some(copied)) => Some(if copied < direct {
            (copied, true)
        } else {
            (direct, false)
        }),
        (Some(direct), None) => Some((direct, false)),
        (None, copied) => copied.map(|cycles| (cycles, true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_follow_the_binding_row_major() {
        // 2 images x 4 channel quarters: core 5 is image 1, quarter 1.
        assert_eq!(coordinates(5, &[2, 4, 1, 1]), vec![1, 1, 0, 0]);
        assert_eq!(
            block(&[2, 256, 2, 56], &[2, 4, 1, 1], &[1, 1, 0, 0]),
            vec![1..2, 64..128, 0..2, 0..56]
        );
    }

    #[test]
    fn evenly_spaced_boxes_have_a_placement_and_others_none() {
        let binding = [2, 2];
        let boxes: Vec<Region> = (0..4)
            .map(|core| block(&[4, 8], &binding, &coordinates(core, &binding)))
            .collect();
        let placed = placement(&boxes.iter().collect::<Vec<_>>(), &binding).unwrap();
        assert_eq!(
            (placed.sizes.clone(), placed.base.clone()),
            (vec![2, 4], vec![0, 0])
        );
        assert_eq!(placed.steps, vec![vec![2, 0], vec![0, 4]]);
        // A border block with its halo cut: same size, but not where the steps put it.
        let rows: Vec<Region> = vec![vec![0..3], vec![2..5], vec![5..8]];
        assert!(placement(&rows.iter().collect::<Vec<_>>(), &[3]).is_none());
    }
}
