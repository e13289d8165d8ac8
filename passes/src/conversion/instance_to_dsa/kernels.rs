//! Kernel boundaries of the emission: which kernel is open, its launch (or its relaunch past
//! the arguments a call can pass), and a kernel left open at the end of a segment for the next
//! segment to continue after a barrier instead of a launch of its own.

use super::emission::{Carried, Emission, Previous};
use super::host_buffers::{allocate, free};
use super::items::{Item, Root};
use super::plan::FirstFit;
use crate::graph_view::ElementType;
use crate::ir::Op;
use crate::kernels::{
    emit::{Body, Space, Tensor},
    host_function::launch,
    kernel::Kernel,
};

/// Buffer arguments past which a run of instances continues in a new launch of its kernel: the
/// host calls a kernel with each memref argument spread into its fields (11 for rank 4), and a
/// call with tens of thousands of operands is more than LLVM's instruction selection handles (its
/// nodes count operands in 16 bits): past that, a kernel reads wrong buffer handles.
const SPLIT_ARGUMENTS: usize = 2048;

impl Emission<'_, '_> {
    /// Makes kernel `kernel` the open one, launching the one before.
    pub(super) fn enter(
        &mut self,
        host: &mut Body,
        host_function: Op,
        kernel: usize,
        built: &mut Vec<Op>,
    ) {
        if let Some((open, running)) = &self.open {
            if *open != kernel {
                self.leave(host, host_function, built);
            } else if running.arguments.len() > SPLIT_ARGUMENTS {
                self.relaunch(host, host_function, built);
                return;
            } else {
                return;
            }
        }
        self.parts = 0;
        if self
            .carried
            .as_ref()
            .is_some_and(|carried| carried.kernel.arguments.len() <= SPLIT_ARGUMENTS)
        {
            // The segment before left its kernel open: this kernel continues it after the barrier
            // ending its last layer, in its arena (whose contents are dead there).
            let carried = self.carried.take().expect("checked");
            self.open = Some((kernel, carried.kernel));
            self.arena = carried.arena;
            self.frees = carried.frees;
            self.before = carried.before.map(|before| Previous {
                other_segment: true,
                ..before
            });
            self.continued = true;
            return;
        }
        self.launch_carried(host, host_function, built);
        let walk = self.walk;
        self.open = Some((
            kernel,
            Kernel::per_cluster(
                self.kernel_name(kernel),
                host,
                &walk.machine_of(kernel),
                (walk.count, walk.replicas.clone()),
                walk.arena_element[kernel],
            ),
        ));
        // The GB the planned tensors leave free during this kernel holds its intermediates; the
        // last kernel leaves the reserve of the segments that continue it.
        let reserve = if kernel + 1 == walk.items.len() {
            self.arena_reserve / walk.word_bytes(kernel)
        } else {
            0
        };
        let elements = walk.arena_elements(kernel).saturating_sub(reserve);
        self.arena = (elements > 0).then(|| {
            let element = walk.arena_element[kernel].unwrap_or(ElementType::F32);
            let arena = (&[elements][..], element);
            let arena = allocate(host, &walk.replicas, arena, Space::Gb, walk.count);
            (arena, FirstFit::new(elements))
        });
    }

    /// The symbol of kernel `kernel` (of its part after the first, see [`SPLIT_ARGUMENTS`]).
    fn kernel_name(&self, kernel: usize) -> String {
        let walk = self.walk;
        let label = match &walk.items[kernel] {
            Item::Run(group) => group.clone(),
            Item::Copy => "copy".to_owned(),
        };
        let part = if self.parts > 0 {
            format!("_part{}", self.parts)
        } else {
            String::new()
        };
        format!("{}_{kernel}_{label}{part}", walk.program.name)
    }

    /// Launches what the open kernel holds so far and goes on in a new launch of the same kernel:
    /// its buffers, arena and weight copies stay, only the instructions after this point go to
    /// the new launch (the launch boundary orders them as a barrier would).
    fn relaunch(&mut self, host: &mut Body, host_function: Op, built: &mut Vec<Op>) {
        let Some((kernel, open)) = self.open.take() else {
            return;
        };
        self.retire_before();
        built.push(launch(host, open, host_function));
        self.parts += 1;
        let walk = self.walk;
        self.open = Some((
            kernel,
            Kernel::per_cluster(
                self.kernel_name(kernel),
                host,
                &walk.machine_of(kernel),
                (walk.count, walk.replicas.clone()),
                walk.arena_element[kernel],
            ),
        ));
    }

    /// Launches the open kernel and frees what no later kernel reads.
    pub(super) fn leave(&mut self, host: &mut Body, host_function: Op, built: &mut Vec<Op>) {
        let Some((kernel, open)) = self.open.take() else {
            return;
        };
        self.retire_before();
        built.push(launch(host, open, host_function));
        let closed = self.closed(kernel);
        let arena = self.arena.take().map(|(arena, _)| arena);
        let frees: Vec<Tensor> = arena.into_iter().chain(closed).collect();
        for tensor in frees {
            free(host, &self.walk.replicas, &tensor);
        }
    }

    /// Launches the kernel the segment before left open, if this segment did not continue it.
    pub(super) fn launch_carried(
        &mut self,
        host: &mut Body,
        host_function: Op,
        built: &mut Vec<Op>,
    ) {
        let Some(carried) = self.carried.take() else {
            return;
        };
        if let Some(start) = carried.before.and_then(|before| before.start) {
            // SAFETY: the mark is an unused constant, kept only in the carried state taken by value
            // here.
            unsafe { start.erase() };
        }
        built.push(launch(host, carried.kernel, host_function));
        for tensor in carried
            .arena
            .map(|(arena, _)| arena)
            .into_iter()
            .chain(carried.frees)
        {
            free(host, &self.walk.replicas, &tensor);
        }
    }

    /// Ends the open kernel without launching it, for the next segment's first kernel to
    /// continue (GraphTurbo's few large kernels: a barrier between segments instead of a launch).
    pub(super) fn carry(&mut self) -> Option<Carried> {
        let (kernel, open) = self.open.take()?;
        let frees = self.closed(kernel);
        Some(Carried {
            kernel: open,
            arena: self.arena.take(),
            frees,
            before: self.before.take(),
        })
    }

    /// Forgets what kernel `kernel` placed and returns the buffers to free after its launch:
    /// those of the segments it continues, its intermediates in DDR, the tensors no later kernel
    /// reads.
    fn closed(&mut self, kernel: usize) -> Vec<Tensor> {
        if let Some((arena, placement)) = &self.arena {
            let peak = placement.peak * arena.view.element.bytes();
            self.arena_peak = self.arena_peak.max(peak);
        }
        let mut frees = std::mem::take(&mut self.frees);
        frees.append(&mut self.spilled);
        self.placed.clear();
        self.run_weights.clear();
        let dead: Vec<Root> = self
            .buffers
            .keys()
            .filter(|root| {
                !self.walk.outputs.contains_key(*root)
                    && self
                        .walk
                        .lifetimes
                        .get(*root)
                        .is_some_and(|t| t.last <= kernel)
            })
            .cloned()
            .collect();
        for root in dead {
            frees.push(self.buffers.remove(&root).expect("listed"));
        }
        frees
    }

    /// Gives back what the last layer of the instance before held, which no layer of the open
    /// kernel will prefetch at.
    pub(super) fn retire_before(&mut self) {
        if let Some(before) = self.before.take() {
            if let Some((_, free)) = &mut self.arena {
                for (offset, elements) in before.blocks {
                    free.give(offset, elements);
                }
            }
            if let Some(start) = before.start {
                // SAFETY: the mark is an unused constant, kept only in `self.before`, taken here.
                unsafe { start.erase() };
            }
        }
    }
}
