//! The state of the second walk of the cluster program: the buffers allocated for it, the
//! kernel being written, the GB arena of its intermediates, and the copies written into it.
//! Its instances are lowered by [`super::gb_instance`] and [`super::core_emission`].

use super::host_buffers::{allocate, window};
use super::items::{instance_attributes, Root};
use super::operands::Cover;
use super::plan::FirstFit;
use super::walk::Walk;
use crate::graph_view::{ElementType, Node, ValueId};
use crate::ir::Op;
use crate::kernels::{
    emit::{Body, Space, Tensor, View},
    fusion::Synthetic,
    kernel::Kernel,
    movement, trickle,
    view::buffer_shape,
};
use crate::target::Machine;
use std::collections::BTreeMap;

/// A kernel left open at the end of a segment, with its GB arena and the buffers to free after
/// its launch.
pub(super) struct Carried {
    pub(super) kernel: Kernel,
    pub(super) arena: Option<(Tensor, FirstFit)>,
    pub(super) frees: Vec<Tensor>,
    /// Its last layer, for the next segment's first to prefetch weights at.
    pub(super) before: Option<Previous>,
}

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
        let (shape, element) = match root {
            Root::Group(group) => (
                walk.stitched[group].shape.clone(),
                walk.stitched[group].element,
            ),
            Root::Result(position, index) => {
                let r#type = &walk.program.ops[*position].results[*index].1;
                (buffer_shape(&r#type.shape), r#type.element_type)
            }
            Root::Concat(position) => {
                let r#type = &walk.program.ops[*position].results[0].1;
                (buffer_shape(&r#type.shape), r#type.element_type)
            }
        };
        let space = if walk.in_ddr.get(root).copied().unwrap_or(false) {
            Space::Ddr
        } else {
            Space::Gb
        };
        let tensor = allocate(host, &walk.replicas, (&shape, element), space, walk.count);
        self.buffers.insert(root.clone(), tensor.clone());
        tensor
    }

    /// The machine the open kernel plans against (kernel 0's before one opens): capacities
    /// counted in its arenas' elements ([`Walk::machine_of`]).
    pub(super) fn kernel_machine(&self) -> Machine {
        let kernel = self.open.as_ref().map_or(0, |(kernel, _)| *kernel);
        self.walk.machine_of(kernel)
    }

    /// Copies each pair in the open kernel, as one layer (views of rank above 4 merged where
    /// they can be; an error when they cannot).
    pub(super) fn copy(
        &mut self,
        host: &mut Body,
        pairs: &[(Tensor, Tensor)],
    ) -> Result<(), String> {
        let pairs = movement::merged_pairs(host, pairs)?;
        let machine = self.kernel_machine();
        let (index, kernel) = self.open.take().expect("a kernel is open");
        let mut kernel = movement::copy_pairs(&machine, &pairs, kernel);
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
    pub(super) fn copy_ahead(
        &mut self,
        host: &mut Body,
        pairs: &[(Tensor, Tensor)],
        start: Op,
    ) -> Result<(), String> {
        let pairs = movement::merged_pairs(host, pairs)?;
        let machine = self.kernel_machine();
        let (index, mut kernel) = self.open.take().expect("a kernel is open");
        let tile_loop = trickle::tile_loop_after(start).filter(|_| trickle::can_trickle(&pairs));
        let kernel = match kernel.core_in_cluster().zip(tile_loop) {
            Some((core, tile_loop)) => {
                trickle::trickle_pairs(host, &pairs, kernel, core, start, tile_loop)
            }
            None => {
                let location = kernel.body.location();
                let here = std::mem::replace(&mut kernel.body, Body::before(start, location));
                let mut kernel = movement::copy_pairs_ahead(&machine, &pairs, kernel);
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
        let machine = self.kernel_machine();
        let (index, mut kernel) = self.open.take().expect("a kernel is open");
        let first = kernel.on_first_cluster();
        kernel.body.open_if(first);
        let mut kernel = movement::copy_pairs(&machine, &pairs, kernel);
        kernel.body.close();
        kernel.end_layer();
        self.open = Some((index, kernel));
        Ok(())
    }

    /// A buffer of `shape` and `element`s for intermediate `value` of the current instance: a
    /// window of the kernel's GB arena, or DDR when the arena has no room left or holds another
    /// element type.
    pub(super) fn intermediate(
        &mut self,
        host: &mut Body,
        value: ValueId,
        (shape, element): (&[usize], ElementType),
    ) -> Tensor {
        let walk = self.walk;
        let elements: usize = shape.iter().product();
        let arena = self.arena.as_mut();
        if let Some((arena, free)) = arena.filter(|(arena, _)| arena.view.element == element) {
            let planned = self
                .planned
                .get(&value)
                .and_then(|&offset| free.take_at(offset, elements));
            if let Some(offset) = planned.or_else(|| free.take(elements)) {
                self.placed.push((value, offset, elements));
                let offset = host.index(offset);
                let window = View::contiguous_of(shape, Space::Gb, element);
                let (value, view) = host.reinterpret_at(arena.host, offset, &window);
                return Tensor { host: value, view };
            }
        }
        self.spilled_count += 1;
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
}
