//! The state of one per-core instance being written (see [`super::core_emission`]): the
//! buffers living across its layers in the core's LB, the views of its reshapes, and the kernel
//! its layers go into, with the copies the running core makes on its own.

use super::aliases::Aliases;
use super::plan::FirstFit;
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::ir::{Op, Val};
use crate::kernels::{
    emit::{reshaped, Body, Tensor},
    kernel::Kernel,
    movement,
    view::buffer_shape,
};
use crate::target::Machine;
use mlir_sys::MlirLocation;
use std::collections::{BTreeMap, BTreeSet};

/// The buffers of one per-core instance that live across its layers, placed from the top of the
/// core's LB arena down.
pub(super) struct Residents {
    pub(super) space: FirstFit,
    /// Value, offset in `space`, elements (rounded as `space` rounds them).
    pub(super) live: Vec<(ValueId, usize, usize)>,
    pub(super) lb: usize,
}

impl Residents {
    /// The LB elements left below the live buffers for the tiles of a layer.
    pub(super) fn tiles(&self) -> usize {
        self.lb
            - self
                .live
                .iter()
                .map(|&(_, offset, elements)| offset + elements)
                .max()
                .unwrap_or(0)
    }
}

/// The state of one per-core instance being written.
pub(super) struct CoreLowering<'b> {
    pub(super) body: &'b FunctionView,
    /// The running core's index in its cluster, and the cores of the binding.
    pub(super) core: Val,
    pub(super) cores: usize,
    pub(super) residents: Residents,
    /// Reshapes' results and the values whose buffers they view.
    pub(super) aliases: Aliases,
    /// The ops fused into the layers emitted so far.
    pub(super) fused: BTreeSet<usize>,
    /// The core's block of the instance's output.
    pub(super) output: Tensor,
    /// The target as one core's layers see it: one core, the LB the live buffers leave.
    pub(super) machine: Machine,
    /// The kernel (out only while a layer is emitted into it).
    pub(super) kernel: Option<Kernel>,
}

impl CoreLowering<'_> {
    /// The last op reading `value` or a view of it; past every op when the instance yields it.
    pub(super) fn last_use(&self, value: ValueId) -> usize {
        let body = self.body;
        let views = self.aliases.views_of(value).iter().copied();
        let mut last = 0;
        for v in std::iter::once(value).chain(views) {
            if body.returned().contains(&v) {
                return usize::MAX;
            }
            last = body.readers(v).iter().copied().fold(last, usize::max);
        }
        last
    }

    /// A reshape or flatten: a view (made on `views`) of its operand's buffer.
    pub(super) fn reshape(
        &mut self,
        views: &mut Body,
        local: &mut BTreeMap<ValueId, Tensor>,
        op: &Node,
    ) {
        self.aliases.insert(op.results[0].0, op.operands[0]);
        let source = local[&op.operands[0]].clone();
        local.insert(
            op.results[0].0,
            reshaped(views, &source, &buffer_shape(&op.results[0].1.shape)),
        );
    }

    /// Gives back the LB of the residents no op after the layer at `op_index` (with the ops it
    /// fuses) reads.
    pub(super) fn release_done(&mut self, op_index: usize) {
        let done = self
            .fused
            .iter()
            .copied()
            .filter(|&f| f > op_index)
            .max()
            .unwrap_or(op_index)
            .max(op_index);
        let dead: Vec<ValueId> = self
            .residents
            .live
            .iter()
            .map(|&(value, _, _)| value)
            .filter(|&value| self.last_use(value) <= done)
            .collect();
        for value in dead {
            self.release(value);
        }
    }

    pub(super) fn kernel(&mut self) -> &mut Kernel {
        self.kernel.as_mut().expect("the kernel is here")
    }

    /// A body making views at the kernel's current point (before a marker op there, to erase
    /// when done), so that a layer's views precede its instructions.
    pub(super) fn views_here(&mut self, location: MlirLocation) -> (Op, Body) {
        let kernel = self.kernel();
        kernel.body.set_location(location);
        let marker = kernel.body.index(0).defining_op().expect("a constant");
        (marker, Body::before(marker, location))
    }

    /// Gives back the LB of resident `value`.
    pub(super) fn release(&mut self, value: ValueId) {
        let residents = &mut self.residents;
        let slot = residents
            .live
            .iter()
            .position(|(v, _, _)| *v == value)
            .expect("a live resident");
        let (_, offset, rounded) = residents.live.remove(slot);
        residents.space.give(offset, rounded);
    }

    /// Copies each pair on the running core alone (its own data), and waits for the copies.
    pub(super) fn copy(&mut self, pairs: &[(Tensor, Tensor)]) -> Result<(), (Option<Op>, String)> {
        let location = self.kernel().body.location();
        let (marker, mut views) = self.views_here(location);
        let merged = movement::merged_pairs(&mut views, pairs);
        // SAFETY: the marker is the unused constant `views_here` made only to insert before, and
        // `views`, the one body anchored at it, is not used after this.
        unsafe { marker.erase() };
        let pairs = merged.map_err(|message| (None, message))?;
        let kernel = self.kernel.take().expect("the kernel is here");
        self.kernel = Some(movement::copy_pairs(&self.machine, &pairs, kernel));
        Ok(())
    }
}
