//! One `dsa.kernel` being written: its arguments, the split of its tiles over the cores of a
//! launch, its LB arena, and the private parts where each core computes on its own data (the
//! epilogue that refines an output tile is [`Epilogue`]).
//!
//! Every kernel of the layer-wise schedule has the same skeleton: each core takes a contiguous
//! block of the layer's output tiles (tiles are numbered batch-major, so with a batch at least as
//! large as the cluster count the clusters split the batch and the cores of a cluster split the
//! next dimension), and for each tile loads its inputs into LB, computes, runs the epilogue and
//! stores the tile. Instructions within a tile are chained by tokens; a `dsa.wait` at the end of
//! each tile orders the next tile's loads after this tile's reads of the same buffers.
//!
//! Here: the kernel, its arguments and LB buffers; [`tiles`] adds its tile loops, [`store`] the
//! stores of a tile, [`views`] the host views it builds again in its preamble.

use super::{
    emit::{Body, Compare, Replicas, Space, Tensor, View},
    epilogue::{external_tile, Epilogue},
    layers::{Operand, Step},
};
use crate::graph_view::{ElementType, Node, ValueId};
use crate::ir::{self, InsertionPoint, Op, Val};
use crate::kernels::emit::IndexOp;
use crate::target::Machine;
use crate::tuning::{Decision, Tuning, KERNEL_ATTRIBUTE};
use mlir_sys::*;
use std::collections::{BTreeMap, HashMap};
use turbine_dialects::ops::dsa;

mod store;
mod tiles;
mod views;

pub use store::{guarded_load, store_box, Store};

/// A kernel launched on the cores of `clusters` clusters at once, each cluster running the same
/// program on its own data (GraphTurbo §2: the batch spread over the clusters): tiles are shared
/// among the cores of one cluster, and replicated host values resolve to the running cluster's.
struct PerCluster {
    clusters: usize,
    cores_per_cluster: usize,
    cluster: Val,
    /// The running core's index within its cluster.
    core: Val,
    /// The preamble ends before this op: argument selections go there, ahead of any use.
    preamble_end: Op,
    replicas: Replicas,
    /// The core's whole LB, allocated once: each layer's tiles are views of it from offset 0
    /// (a layer's tiles are dead when the next layer starts, after the barrier between them).
    /// It holds the one float type of the kernel's layers, as many elements as the LB holds
    /// f32 words. None in a kernel of typed layers (casts, integers), whose tiles are LB
    /// buffers of their element types (an arena holds one type, and the LB cannot hold two).
    arena: Option<Val>,
    /// The element type of the arena's tiles.
    arena_element: ElementType,
    /// Elements of the arena taken by the current layer.
    cursor: usize,
    /// Inside [`Kernel::open_private`] (every core runs every tile of a loop, on its own data):
    /// whether it opened an `scf.if` for the cores that enter.
    private: Option<bool>,
}

/// A kernel under construction: a detached `dsa.kernel` whose block gains an argument for every
/// host value it reads, inserted into the module by the launch.
pub struct Kernel {
    /// Symbol name.
    pub name: String,
    op: Op,
    block: MlirBlock,
    /// Host values passed as arguments, with the kernel-side types.
    pub arguments: Vec<(Val, MlirType)>,
    /// Per host value passed (by handle), its position in `arguments`.
    positions: HashMap<usize, usize>,
    /// Host views built again inside the kernel (see `views`), by handle.
    rebuilt: HashMap<usize, Val>,
    /// The body (after the core-id preamble).
    pub body: Body,
    /// Cores it is launched on.
    pub cores: usize,
    /// LB elements allocated by the kernel (checked against the target's LB).
    pub lb_elements: usize,
    deallocs: Vec<Val>,
    /// Per argument, the kernel-side value it stands for (a replica's is the selected one).
    selected: Vec<Val>,
    /// The first tile index of the running core's share, and the end of the share (set by the
    /// tile loop).
    first_tile: Option<Val>,
    end_tile: Option<Val>,
    inserted: bool,
    per_cluster: Option<PerCluster>,
    /// For a kernel on every core whose host body holds replicated values (one GB buffer per
    /// cluster): the replicas, the running core's cluster and the op the selections of its
    /// replica go before.
    spread: Option<(Replicas, Val, Op)>,
    /// How each of its layers' tilings was chosen.
    decisions: Vec<Decision>,
}

impl Kernel {
    /// An empty kernel called `name`, at the location the host is lowering.
    pub fn new(name: String, host: &Body) -> Self {
        Self::bare(name, host).spread_over(host)
    }

    /// [`Kernel::new`] without picking replicas.
    fn bare(name: String, host: &Body) -> Self {
        let location = host.location();
        let (region, block) = ir::region_with_block(&[], location);
        let op = ir::create(
            InsertionPoint::Detached,
            location,
            dsa::Kind::Kernel,
            &[],
            &[],
            &[],
            vec![region],
        );
        Self {
            name,
            op,
            block,
            arguments: Vec::new(),
            positions: HashMap::new(),
            rebuilt: HashMap::new(),
            body: Body::new(block, location),
            cores: 1,
            lb_elements: 0,
            deallocs: Vec::new(),
            selected: Vec::new(),
            first_tile: None,
            end_tile: None,
            inserted: false,
            per_cluster: None,
            spread: None,
            decisions: Vec::new(),
        }
    }

    /// Records how the tiling of the layer anchored at `node` was chosen under `tuning`, for the
    /// tuner ([`KERNEL_ATTRIBUTE`]; not when the estimate chose alone); a cached choice the
    /// planner ignored is a warning at `node`.
    pub fn tuned(&mut self, decision: &Decision, node: &Node, tuning: &Tuning) {
        if let Some(choice) = &decision.rejected {
            node.op.emit_warning(&format!(
                "the tuning cache's tiling {choice} is not a candidate of this layer (the cache \
                 is stale); the estimate's tiling {} is used",
                decision.choice
            ));
        }
        if !matches!(tuning, Tuning::Estimate) {
            self.record(decision.clone());
        }
    }

    /// Records a decision of one of its layers for the tuner ([`KERNEL_ATTRIBUTE`]).
    pub fn record(&mut self, decision: Decision) {
        self.decisions.push(decision);
    }

    /// Makes the kernel pick the running cluster's replica of the replicated values of `host`,
    /// when it has any: every core reads its own cluster's GB.
    fn spread_over(mut self, host: &Body) -> Self {
        if let Some(replicas) = host.replicas().filter(|r| !r.borrow().is_empty()) {
            let cluster = self.body.cluster_id();
            let anchor = self.body.index(0);
            let anchor = anchor.defining_op().expect("an arith op");
            self.spread = Some((replicas, cluster, anchor));
        }
        self
    }

    /// An empty kernel launched on the `cores_per_cluster` cores of each of `clusters` clusters,
    /// every cluster running it on its own data (see [`Replicas`]); its layers' tiles are views
    /// of an LB arena of `arena`'s float type, or, with None (typed layers: casts, integers),
    /// LB buffers of their own.
    pub fn per_cluster(
        name: String,
        host: &Body,
        machine: &Machine,
        (clusters, replicas): (usize, Replicas),
        arena: Option<ElementType>,
    ) -> Self {
        let mut kernel = Self::bare(name, host);
        let body = &mut kernel.body;
        let cluster = body.cluster_id();
        let id = body.core_id();
        let size = body.index(machine.cores_per_cluster);
        let arena_element = arena.unwrap_or(ElementType::F32);
        let arena = arena.map(|element| {
            body.alloc(&View::contiguous_of(
                &[machine.lb_elements()],
                Space::Lb,
                element,
            ))
        });
        kernel.deallocs.extend(arena);
        let core = body.arith(IndexOp::RemU, id, size);
        let preamble_end = core.defining_op().expect("an arith op");
        kernel.cores = clusters * machine.cores_per_cluster;
        kernel.per_cluster = Some(PerCluster {
            clusters,
            cores_per_cluster: machine.cores_per_cluster,
            cluster,
            core,
            preamble_end,
            replicas,
            arena,
            arena_element,
            cursor: 0,
            private: None,
        });
        kernel
    }

    /// Opens the part of a per-cluster kernel where each of the cluster's first `cores` cores
    /// computes on its own data (GraphTurbo's LB scope, §3.4): the others skip it, and each tile
    /// loop inside runs all its tiles on every core that enters. Returns the running core's index
    /// in its cluster. Close with [`Kernel::close_private`].
    pub fn open_private(&mut self, cores: usize) -> Val {
        let spmd = self
            .per_cluster
            .as_mut()
            .expect("private parts are in per-cluster kernels");
        let (core, some) = (spmd.core, cores < spmd.cores_per_cluster);
        spmd.private = Some(some);
        if some {
            let count = self.body.index(cores);
            let enters = self.body.compare(Compare::Ult, core, count);
            self.body.open_if(enters);
        }
        core
    }

    /// Ends the private part: the cores meet at a barrier before anything reads what they wrote.
    pub fn close_private(&mut self) {
        if let Some(spmd) = &mut self.per_cluster {
            if spmd.private.take() == Some(true) {
                self.body.close();
            }
        }
        self.end_layer();
    }

    /// Ends a layer of a private part: its tiles' LB arena is free for the next layer. No barrier:
    /// only this core reads what it wrote, and its last tile waited for its store.
    pub fn end_private_layer(&mut self) {
        if let Some(spmd) = &mut self.per_cluster {
            spmd.cursor = 0;
        }
        self.lb_elements = 0;
    }

    /// The elements of `view`'s shape at element `offset` of the core's LB arena: a buffer that
    /// lives across the layers of a private part, placed by the caller clear of the tiles' part
    /// of the arena (the tiles take it from offset 0).
    pub fn lb_at(&mut self, offset: usize, shape: &[usize]) -> (Val, View) {
        let arena = self
            .per_cluster
            .as_ref()
            .and_then(|spmd| spmd.arena)
            .expect("a per-cluster kernel of float layers has an arena");
        let element = self
            .per_cluster
            .as_ref()
            .map_or(ElementType::F32, |spmd| spmd.arena_element);
        let offset = self.body.index(offset);
        let view = View::contiguous_of(shape, Space::Lb, element);
        self.body.reinterpret_at(arena, offset, &view)
    }

    /// Whether `value` is defined inside this kernel (a view the kernel made) rather than being a
    /// host value it must take as an argument.
    fn defined_inside(&self, value: Val) -> bool {
        // SAFETY: the value and the ops and blocks it leads to are alive.
        unsafe {
            let mut block = if mlirValueIsABlockArgument(value.raw()) {
                mlirBlockArgumentGetOwner(value.raw())
            } else {
                mlirOperationGetBlock(mlirOpResultGetOwner(value.raw()))
            };
            while !block.ptr.is_null() {
                if block.ptr == self.block.ptr {
                    return true;
                }
                let parent = mlirBlockGetParentOperation(block);
                if parent.ptr.is_null() {
                    return false;
                }
                block = mlirOperationGetBlock(parent);
            }
            false
        }
    }

    /// Ends a layer of a kernel that runs several: every core waits for every other before the
    /// next layer reads what this one wrote.
    pub fn end_layer(&mut self) {
        self.body.op(dsa::Kind::Barrier, &[], &[], &[]);
        if let Some(spmd) = &mut self.per_cluster {
            spmd.cursor = 0;
        }
        self.lb_elements = 0;
    }

    /// The kernel-side value of host value `host` (of type `view`), adding the argument once; for
    /// a replicated host value of a kernel on several clusters, one argument per cluster and the
    /// running cluster's picked in the preamble.
    pub fn argument(&mut self, host: Val, view: &View) -> Val {
        self.argument_of_type(host, view.memref_type(self.body.context()))
    }

    /// [`Kernel::argument`] for a host value of memref type `r#type`; a view of a host value is
    /// built again in the kernel where it can be (`views`).
    fn argument_of_type(&mut self, host: Val, r#type: MlirType) -> Val {
        if self.defined_inside(host) {
            return host;
        }
        let key = host.raw().ptr as usize;
        if let Some(&index) = self.positions.get(&key) {
            return self.selected[index];
        }
        if let Some(&value) = self.rebuilt.get(&key) {
            return value;
        }
        if let Some(value) = self.rebuilt_view(host) {
            self.rebuilt.insert(key, value);
            return value;
        }
        let replicas = self
            .per_cluster
            .as_ref()
            .and_then(|spmd| spmd.replicas.borrow().get(&key).cloned());
        let add = |value: Val, kernel: &mut Self| {
            // SAFETY: the block is the kernel's, alive until the kernel is inserted or dropped;
            // the new argument lives with it.
            let argument = unsafe {
                Val::from_raw(mlirBlockAddArgument(
                    kernel.block,
                    r#type,
                    kernel.body.location(),
                ))
            };
            kernel
                .positions
                .insert(value.raw().ptr as usize, kernel.arguments.len());
            kernel.arguments.push((value, r#type));
            argument
        };
        let replicas = replicas.or_else(|| {
            self.spread
                .as_ref()
                .and_then(|(replicas, _, _)| replicas.borrow().get(&key).cloned())
        });
        let first = add(host, self);
        let picking = match (&self.per_cluster, &self.spread) {
            (Some(spmd), _) => Some((spmd.cluster, spmd.preamble_end, spmd.clusters)),
            (None, Some((_, cluster, anchor))) => Some((*cluster, *anchor, usize::MAX)),
            (None, None) => None,
        };
        let selected = match (replicas, picking) {
            (Some(others), Some((cluster, anchor, clusters))) => {
                let location = self.body.location();
                let mut value = first;
                for (index, other) in others.into_iter().enumerate().take(clusters - 1) {
                    let argument = add(other, self);
                    let mut preamble = Body::before(anchor, location);
                    let number = preamble.index(index + 1);
                    let here = preamble.compare(Compare::Eq, cluster, number);
                    value = preamble.select(here, argument, value);
                }
                value
            }
            _ => first,
        };
        while self.selected.len() < self.arguments.len() {
            self.selected.push(selected);
        }
        selected
    }

    /// Allocates an LB buffer of `shape` for the whole kernel (of a kernel running several
    /// layers, for the current layer: a view of the LB arena).
    pub fn alloc_lb(&mut self, shape: &[usize]) -> (Val, View) {
        let mut view = View::contiguous(shape, Space::Lb);
        if let Some(spmd) = self
            .per_cluster
            .as_mut()
            .filter(|spmd| spmd.arena.is_some())
        {
            view.element = spmd.arena_element;
            // Packed like the layer-wise kernel's separate buffers, so that the tilings the
            // emitters chose against the LB capacity fit the arena exactly.
            let offset = spmd.cursor;
            spmd.cursor += view.elements();
            self.lb_elements = self.lb_elements.max(spmd.cursor);
            let arena = spmd.arena.expect("filtered: an arena");
            let offset = self.body.index(offset);
            let (buffer, view) = self.body.reinterpret_at(arena, offset, &view);
            return (buffer, view);
        }
        let buffer = self.body.alloc(&view);
        self.lb_elements += view.elements();
        self.deallocs.push(buffer);
        (buffer, view)
    }

    /// Allocates an LB buffer of `shape` for tiles of a tensor of `element`s that a compute unit
    /// reads: of that type when it is a narrower float and the kernel has no arena (the unit
    /// then runs at that type's rate), the arena's type or f32 otherwise (DMAs convert on the
    /// way in).
    pub fn alloc_lb_tile(&mut self, shape: &[usize], element: ElementType) -> (Val, View) {
        let narrow = element.is_float() && element != ElementType::F32;
        narrow
            .then(|| self.alloc_lb_of(shape, element))
            .flatten()
            .unwrap_or_else(|| self.alloc_lb(shape))
    }

    /// Allocates an LB buffer of `shape` and `element`s for the whole kernel; none in a kernel
    /// per cluster with an arena, which takes the whole LB. Capacity is counted in f32 words.
    pub fn alloc_lb_of(&mut self, shape: &[usize], element: ElementType) -> Option<(Val, View)> {
        if self
            .per_cluster
            .as_ref()
            .is_some_and(|spmd| spmd.arena.is_some())
        {
            return None;
        }
        let view = View::contiguous_of(shape, Space::Lb, element);
        let buffer = self.body.alloc(&view);
        self.lb_elements += (view.elements() * element.bytes()).div_ceil(4);
        self.deallocs.push(buffer);
        Some((buffer, view))
    }

    /// The running core's index within its cluster and the cluster's core count, for a kernel
    /// per cluster.
    pub fn core_in_cluster(&self) -> Option<(Val, usize)> {
        self.per_cluster
            .as_ref()
            .map(|spmd| (spmd.core, spmd.cores_per_cluster))
    }

    /// Whether the running core is in the device's first cluster: what guards a write every
    /// cluster would otherwise make to the same place (a result the clusters do not split).
    pub fn on_first_cluster(&mut self) -> Val {
        let cluster = match &self.per_cluster {
            Some(spmd) => spmd.cluster,
            None => self.body.cluster_id(),
        };
        let zero = self.body.index(0);
        self.body.compare(Compare::Eq, cluster, zero)
    }

    /// The stores of a layer's tiles into `output` (its argument and view) and into `mirror`,
    /// the copy of the output kept in the GB, when it has one.
    pub fn output_stores<'v>(
        &mut self,
        output: (Val, &'v View),
        mirror: Option<&'v Tensor>,
    ) -> Vec<Store<'v>> {
        let mut stores = vec![Store::whole(output.0, output.1)];
        stores
            .extend(mirror.map(|mirror| {
                Store::whole(self.argument(mirror.host, &mirror.view), &mirror.view)
            }));
        stores
    }

    /// The epilogue running `steps` on output tiles of shape `output_tile` (their `keep`
    /// dimensions), with the LB tiles of its external operands allocated in this kernel.
    pub fn epilogue(
        &mut self,
        steps: &[Step],
        tensors: &BTreeMap<ValueId, Tensor>,
        output_tile: &[usize],
        keep: &[usize],
    ) -> Epilogue {
        let mut externals = BTreeMap::new();
        for step in steps {
            for operand in &step.operands {
                if let Operand::External(value) = operand {
                    if externals.contains_key(value) {
                        continue;
                    }
                    let tensor = &tensors[value];
                    let argument = self.argument(tensor.host, &tensor.view);
                    let (sizes, kept) = external_tile(&tensor.view.shape, output_tile, keep);
                    let kept_sizes: Vec<usize> = kept.iter().map(|&d| sizes[d]).collect();
                    let (buffer, buffer_view) = self.alloc_lb(&kept_sizes);
                    externals.insert(*value, (argument, tensor.view.clone(), buffer, buffer_view));
                }
            }
        }
        Epilogue::from_externals(steps, externals)
    }

    /// Ends the kernel (deallocating its LB buffers), names and types it, and inserts it before
    /// `before`; returns it, its name, the host values to launch it with and the core count.
    pub fn finish(mut self, before: Op) -> (Op, String, Vec<(Val, MlirType)>, usize) {
        for buffer in std::mem::take(&mut self.deallocs) {
            self.body.dealloc(buffer);
        }
        self.body.op(dsa::Kind::Return, &[], &[], &[]);
        let context = self.body.context();
        let inputs: Vec<MlirType> = self.arguments.iter().map(|&(_, r#type)| r#type).collect();
        // SAFETY: the kernel op is alive and detached; inserting hands it to the module.
        unsafe {
            let function_type = mlirFunctionTypeGet(
                context,
                inputs.len() as isize,
                inputs.as_ptr(),
                0,
                std::ptr::null(),
            );
            self.op
                .set_attribute("function_type", mlirTypeAttrGet(function_type));
            self.op
                .set_attribute("sym_name", ir::string_attribute(context, &self.name));
            if !self.decisions.is_empty() {
                let decisions: Vec<MlirAttribute> = self
                    .decisions
                    .iter()
                    .map(|decision| decision_attribute(context, decision))
                    .collect();
                self.op
                    .set_attribute(KERNEL_ATTRIBUTE, ir::array(context, &decisions));
            }
            mlirBlockInsertOwnedOperationBefore(
                mlirOperationGetBlock(before.raw()),
                before.raw(),
                self.op.raw(),
            );
        }
        self.inserted = true;
        let cores = self
            .per_cluster
            .as_ref()
            .map_or(self.cores, |spmd| spmd.clusters * spmd.cores_per_cluster);
        (
            self.op,
            std::mem::take(&mut self.name),
            std::mem::take(&mut self.arguments),
            cores,
        )
    }
}

/// The entry of [`KERNEL_ATTRIBUTE`] recording `decision`.
fn decision_attribute(context: MlirContext, decision: &Decision) -> MlirAttribute {
    ir::dictionary(
        context,
        &[
            ("key", ir::string_attribute(context, &decision.key)),
            ("choice", ir::string_attribute(context, &decision.choice)),
            ("estimate", ir::f64_attribute(context, decision.estimate)),
            ("ranked", ir::i64_attribute(context, decision.ranked as i64)),
        ],
    )
}

impl Drop for Kernel {
    /// A kernel abandoned by a lowering error was never inserted: destroy it.
    fn drop(&mut self) {
        if !self.inserted {
            // SAFETY: a kernel never inserted is a detached op this `Kernel` owns, without results
            // and isolated from above; the kernel is being dropped, and with it its body and the
            // handles into the op it holds.
            unsafe { self.op.erase() };
        }
    }
}
