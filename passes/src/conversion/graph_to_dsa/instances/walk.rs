//! The cluster program walked twice: first to form the kernels and the lifetimes of the
//! tensors they share (then placed by [`plan`]), then to emit them.

use super::{allocate, free, plan, ScheduleError, Spill, Summary};
use crate::conversion::graph_to_dsa::{
    emit::{Body, Replicas, Space, Tensor, View},
    fusion::{self, Fused, Synthetic},
    host::{buffer_shape, emit_layer, launch},
    kernel::Kernel,
    layers::{Layer, Scope},
    movement, Machine,
};
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::ir::{Op, Val};
use std::collections::{BTreeMap, BTreeSet};

/// A tensor of the cluster program that owns buffers; views (slices, copies, redistributions,
/// stitched concatenations) share their source's.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Root {
    /// The first output of every instance of a group, stitched into one buffer.
    Group(String),
    /// Output `1` of the instance at op position `0`, when not stitched.
    Result(usize, usize),
    /// A concatenation that is not a view (copied together by its own kernel).
    Concat(usize),
}

/// A kernel: a run of instances of one group, or a copy.
#[derive(Debug)]
enum Item {
    Run(String),
    Copy,
}

/// A group whose instances write into one buffer: its shape and split.
#[derive(Debug, Clone)]
struct Stitched {
    shape: Vec<usize>,
    dim: usize,
    slice: usize,
}

pub(super) struct Walk<'p> {
    program: &'p FunctionView,
    machine: &'p Machine,
    count: usize,
    replicas: Replicas,
    items: Vec<Item>,
    /// Per op position, the kernel it runs in (instances, copied concatenations, the yield's copy).
    kernel_of: BTreeMap<usize, usize>,
    roots: BTreeMap<ValueId, Root>,
    stitched: BTreeMap<String, Stitched>,
    /// Per output position, the root written in place into it.
    outputs: BTreeMap<Root, usize>,
    lifetimes: BTreeMap<Root, plan::Tensor>,
    in_ddr: BTreeMap<Root, bool>,
    gb_bytes: usize,
}

fn instance_attributes(node: &Node) -> (String, usize, usize, usize) {
    let group = node.string("group").unwrap_or_default().to_owned();
    (group, node.int("index") as usize, node.int("count") as usize, node.int("dim") as usize)
}

fn bytes(shape: &[usize]) -> usize {
    shape.iter().product::<usize>().max(1) * 4
}


impl<'p> Walk<'p> {
    /// Forms the kernels of `program` (one cluster's) and places its tensors in a GB of
    /// `gb_bytes`.
    pub fn new(program: &'p FunctionView, machine: &'p Machine, gb_bytes: usize, count: usize, spill: Spill, replicas: Replicas) -> Result<Self, ScheduleError> {
        let mut walk = Walk {
            program,
            machine,
            count,
            replicas,
            items: Vec::new(),
            kernel_of: BTreeMap::new(),
            roots: BTreeMap::new(),
            stitched: BTreeMap::new(),
            outputs: BTreeMap::new(),
            lifetimes: BTreeMap::new(),
            in_ddr: BTreeMap::new(),
            gb_bytes,
        };
        walk.form_kernels()?;
        walk.live_ranges();
        walk.in_ddr = plan::place(&walk.lifetimes, walk.items.len(), gb_bytes, spill);
        Ok(walk)
    }

    fn form_kernels(&mut self) -> Result<(), ScheduleError> {
        let program = self.program;
        for (position, node) in program.ops.iter().enumerate() {
            match node.name.as_str() {
                "graph.weight" | "graph.constant" => {}
                "instance.instance" => {
                    let (group, _, count, dim) = instance_attributes(node);
                    if !matches!(self.items.last(), Some(Item::Run(last)) if *last == group) {
                        self.items.push(Item::Run(group.clone()));
                    }
                    self.kernel_of.insert(position, self.items.len() - 1);
                    let (first, first_type) = &node.results[0];
                    let mut shape = first_type.shape.clone();
                    let stitchable = dim < shape.len() && shape[..dim].iter().all(|&d| d == 1) || dim == 0;
                    if stitchable && dim < shape.len() {
                        let slice = shape[dim];
                        shape[dim] *= count;
                        self.stitched.entry(group.clone()).or_insert(Stitched { shape, dim, slice });
                        self.roots.insert(*first, Root::Group(group));
                    } else {
                        self.roots.insert(*first, Root::Result(position, 0));
                    }
                    for (index, (value, _)) in node.results.iter().enumerate().skip(1) {
                        self.roots.insert(*value, Root::Result(position, index));
                    }
                }
                "instance.slice" | "instance.copy" | "instance.redistribute" => {
                    if let Some(root) = self.roots.get(&node.operands[0]).cloned() {
                        self.roots.insert(node.results[0].0, root);
                    }
                }
                "instance.concat" => {
                    let root = match self.stitched_concat(node) {
                        Some(group) => Root::Group(group),
                        None => {
                            self.items.push(Item::Copy);
                            self.kernel_of.insert(position, self.items.len() - 1);
                            Root::Concat(position)
                        }
                    };
                    self.roots.insert(node.results[0].0, root);
                }
                "instance.yield" => {
                    let mut copies = false;
                    for (output, value) in node.operands.iter().enumerate() {
                        match self.roots.get(value) {
                            Some(Root::Group(group))
                                if program.type_of(*value).shape == self.stitched[group].shape
                                    && !self.outputs.contains_key(&Root::Group(group.clone())) =>
                            {
                                self.outputs.insert(Root::Group(group.clone()), output);
                            }
                            _ => copies = true,
                        }
                    }
                    if copies {
                        self.items.push(Item::Copy);
                        self.kernel_of.insert(position, self.items.len() - 1);
                    }
                }
                other => {
                    return Err(ScheduleError::at(
                        node.op,
                        format!("'{other}' outside an instance: the GraphTurbo kernels need every op grouped (run hw-group and instance-split)"),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The group whose buffer a concatenation is a window of: operands are first outputs of
    /// consecutive instances of one stitched group, joined along its split dimension.
    fn stitched_concat(&self, node: &Node) -> Option<String> {
        let program = self.program;
        let axis = node.int("axis") as usize;
        let mut previous: Option<usize> = None;
        let mut group_of = None;
        for value in &node.operands {
            let producer = &program.ops[program.producer(*value)?];
            if producer.name != "instance.instance" || producer.results[0].0 != *value {
                return None;
            }
            let (group, index, _, dim) = instance_attributes(producer);
            if dim != axis || previous.is_some_and(|p| p + 1 != index) || group_of.as_ref().is_some_and(|g| *g != group) {
                return None;
            }
            self.stitched.get(&group)?;
            previous = Some(index);
            group_of = Some(group);
        }
        group_of
    }

    fn live_ranges(&mut self) {
        let program = self.program;
        let last_kernel = self.items.len().saturating_sub(1);
        for (position, node) in program.ops.iter().enumerate() {
            let Some(&kernel) = self.kernel_of.get(&position) else { continue };
            let produced: Vec<Root> = match node.name.as_str() {
                "instance.instance" => node.results.iter().filter_map(|(value, _)| self.roots.get(value).cloned()).collect(),
                "instance.concat" => vec![Root::Concat(position)],
                _ => Vec::new(),
            };
            for root in produced {
                let shape = match &root {
                    Root::Group(group) => self.stitched[group].shape.clone(),
                    _ => program.type_of(node.results.iter().find(|(v, _)| self.roots.get(v) == Some(&root)).map_or(node.results[0].0, |r| r.0)).shape.clone(),
                };
                let ddr = self.outputs.contains_key(&root);
                let entry = self.lifetimes.entry(root).or_insert(plan::Tensor { bytes: bytes(&shape), first: kernel, last: kernel, ddr });
                entry.first = entry.first.min(kernel);
            }
            for value in &node.operands {
                if let Some(root) = self.roots.get(value) {
                    if let Some(entry) = self.lifetimes.get_mut(root) {
                        entry.last = entry.last.max(kernel);
                    }
                }
            }
        }
        for entry in self.lifetimes.values_mut() {
            entry.last = entry.last.min(last_kernel).max(entry.first);
        }
    }

    /// Emits the kernels and the host code around them.
    pub fn emit(
        self,
        host: &mut Body,
        host_function: Op,
        tensors: &mut BTreeMap<ValueId, Tensor>,
        outputs: &[Tensor],
        built: &mut Vec<Op>,
    ) -> Result<Summary, ScheduleError> {
        let program = self.program;
        let mut state = Emission {
            walk: &self,
            buffers: BTreeMap::new(),
            open: None,
            arena: None,
            spilled: Vec::new(),
            placed: Vec::new(),
            synthetic: Synthetic::new(program),
            spilled_count: 0,
            arena_peak: 0,
        };
        for (root, &output) in &self.outputs {
            state.buffers.insert(root.clone(), outputs[output].clone());
        }
        for (position, node) in program.ops.iter().enumerate() {
            host.set_location(node.op.location());
            match node.name.as_str() {
                "graph.weight" | "graph.constant" => {}
                "instance.instance" => {
                    let kernel = self.kernel_of[&position];
                    state.enter(host, host_function, kernel, built);
                    state.instance(host, position, node, tensors)?;
                }
                "instance.slice" => {
                    let source = tensors[&node.operands[0]].clone();
                    let offsets: Vec<Val> = node.ints("offsets").iter().map(|&o| host.index(o as usize)).collect();
                    let sizes = buffer_shape(&node.results[0].1.shape);
                    let (value, view) = host.subview(source.host, &source.view, &offsets, &sizes, None);
                    tensors.insert(node.results[0].0, Tensor { host: value, view });
                }
                "instance.copy" | "instance.redistribute" => {
                    tensors.insert(node.results[0].0, tensors[&node.operands[0]].clone());
                }
                "instance.concat" => match self.roots.get(&node.results[0].0) {
                    Some(Root::Group(group)) => {
                        let stitched = &self.stitched[group];
                        let producer = &program.ops[program.producer(node.operands[0]).expect("checked")];
                        let (_, index, _, _) = instance_attributes(producer);
                        let buffer = state.buffer(host, &Root::Group(group.clone()));
                        let view = window(host, &buffer, stitched.dim, index * stitched.slice, node.operands.len() * stitched.slice);
                        tensors.insert(node.results[0].0, view);
                    }
                    _ => {
                        let kernel = self.kernel_of[&position];
                        state.enter(host, host_function, kernel, built);
                        let target = state.buffer(host, &Root::Concat(position));
                        let axis = node.int("axis") as usize;
                        let mut offset = 0;
                        let mut pairs = Vec::new();
                        for value in &node.operands {
                            let source = tensors[value].clone();
                            let size = source.view.shape[axis];
                            pairs.push((source, window(host, &target, axis, offset, size)));
                            offset += size;
                        }
                        state.copy(&pairs);
                        tensors.insert(node.results[0].0, target);
                    }
                },
                "instance.yield" => {
                    let mut pairs = Vec::new();
                    for (output, value) in node.operands.iter().enumerate() {
                        let in_place = self.roots.get(value).is_some_and(|root| self.outputs.get(root) == Some(&output));
                        if !in_place {
                            pairs.push((tensors[value].clone(), outputs[output].clone()));
                        }
                    }
                    if !pairs.is_empty() {
                        let kernel = self.kernel_of[&position];
                        state.enter(host, host_function, kernel, built);
                        state.copy(&pairs);
                    }
                }
                _ => unreachable!("form_kernels refused it"),
            }
        }
        state.leave(host, host_function, built);
        for (root, tensor) in std::mem::take(&mut state.buffers) {
            if !self.outputs.contains_key(&root) {
                free(host, &self.replicas, &tensor);
            }
        }
        Ok(Summary {
            kernels: self.items.len(),
            clusters: self.count,
            gb_peak: plan::peak(&self.lifetimes, &self.in_ddr, self.items.len()),
            arena_peak: state.arena_peak,
            spilled: self.in_ddr.iter().filter(|(root, &ddr)| ddr && !self.outputs.contains_key(*root)).count(),
            spilled_intermediates: state.spilled_count,
            planned: self.lifetimes.len() - self.outputs.len(),
        })
    }
}

/// The window of `tensor` of `size` along `dim` from `offset`.
fn window(host: &mut Body, tensor: &Tensor, dim: usize, offset: usize, size: usize) -> Tensor {
    let mut sizes = tensor.view.shape.clone();
    sizes[dim] = size;
    let offsets: Vec<Val> = (0..sizes.len()).map(|d| host.index(if d == dim { offset } else { 0 })).collect();
    let (value, view) = host.subview(tensor.host, &tensor.view, &offsets, &sizes, None);
    Tensor { host: value, view }
}

/// The emission's state: the buffers allocated, the kernel being written.
struct Emission<'w, 'p> {
    walk: &'w Walk<'p>,
    buffers: BTreeMap<Root, Tensor>,
    open: Option<(usize, Kernel)>,
    /// The open kernel's intermediates: a GB arena per cluster (what the GB has left beside the
    /// planned tensors live during the kernel) with its free space, and the DDR buffers of
    /// intermediates that did not fit it.
    arena: Option<(Tensor, FirstFit)>,
    spilled: Vec<Tensor>,
    /// Intermediates placed in the arena and not yet freed: value, offset, elements.
    placed: Vec<(ValueId, usize, usize)>,
    synthetic: Synthetic,
    /// Intermediates that went to DDR, and the most bytes of an arena used, for the summary.
    spilled_count: usize,
    arena_peak: usize,
}

/// First-fit placement in an arena of elements (GraphTurbo §4.3: offsets reused as tensors die).
#[derive(Debug)]
struct FirstFit {
    /// Free intervals (offset, length), sorted, coalesced.
    free: Vec<(usize, usize)>,
    /// The highest element ever taken.
    high: usize,
}

impl FirstFit {
    fn new(length: usize) -> Self {
        Self { free: if length > 0 { vec![(0, length)] } else { Vec::new() }, high: 0 }
    }

    /// An offset for `length` elements (rounded to 16, 64 bytes), None when no gap holds them.
    fn take(&mut self, length: usize) -> Option<usize> {
        let length = length.next_multiple_of(16);
        let slot = self.free.iter().position(|&(_, free)| free >= length)?;
        let (offset, free) = self.free[slot];
        if free == length {
            self.free.remove(slot);
        } else {
            self.free[slot] = (offset + length, free - length);
        }
        self.high = self.high.max(offset + length);
        Some(offset)
    }

    fn give(&mut self, offset: usize, length: usize) {
        let length = length.next_multiple_of(16);
        let slot = self.free.partition_point(|&(start, _)| start < offset);
        self.free.insert(slot, (offset, length));
        // Coalesce with the neighbours.
        if slot + 1 < self.free.len() && self.free[slot].0 + self.free[slot].1 == self.free[slot + 1].0 {
            self.free[slot].1 += self.free[slot + 1].1;
            self.free.remove(slot + 1);
        }
        if slot > 0 && self.free[slot - 1].0 + self.free[slot - 1].1 == self.free[slot].0 {
            self.free[slot - 1].1 += self.free[slot].1;
            self.free.remove(slot);
        }
    }
}

impl Emission<'_, '_> {
    /// The buffers of `root`, allocated on first use.
    fn buffer(&mut self, host: &mut Body, root: &Root) -> Tensor {
        if let Some(tensor) = self.buffers.get(root) {
            return tensor.clone();
        }
        let walk = self.walk;
        let shape = match root {
            Root::Group(group) => walk.stitched[group].shape.clone(),
            Root::Result(position, index) => buffer_shape(&walk.program.ops[*position].results[*index].1.shape),
            Root::Concat(position) => buffer_shape(&walk.program.ops[*position].results[0].1.shape),
        };
        let space = if walk.in_ddr.get(root).copied().unwrap_or(false) { Space::Ddr } else { Space::Gb };
        let tensor = allocate(host, &walk.replicas, &shape, space, walk.count);
        self.buffers.insert(root.clone(), tensor.clone());
        tensor
    }

    /// Makes kernel `kernel` the open one, launching the one before.
    fn enter(&mut self, host: &mut Body, host_function: Op, kernel: usize, built: &mut Vec<Op>) {
        if self.open.as_ref().is_some_and(|(open, _)| *open == kernel) {
            return;
        }
        self.leave(host, host_function, built);
        let walk = self.walk;
        let label = match &walk.items[kernel] {
            Item::Run(group) => group.clone(),
            Item::Copy => "copy".to_owned(),
        };
        let name = format!("{}_{kernel}_{label}", walk.program.name);
        self.open = Some((kernel, Kernel::per_cluster(name, host, walk.machine, walk.count, walk.replicas.clone())));
        // The GB the planned tensors leave free during this kernel holds its intermediates.
        let planned: usize = walk
            .lifetimes
            .iter()
            .filter(|(root, t)| !walk.in_ddr[*root] && !walk.outputs.contains_key(*root) && t.first <= kernel && kernel <= t.last)
            .map(|(_, t)| t.bytes)
            .sum();
        let elements = walk.gb_bytes.saturating_sub(planned) / 4;
        self.arena = (elements > 0).then(|| {
            let arena = allocate(host, &walk.replicas, &[elements], Space::Gb, walk.count);
            (arena, FirstFit::new(elements))
        });
    }

    /// Launches the open kernel and frees what no later kernel reads.
    fn leave(&mut self, host: &mut Body, host_function: Op, built: &mut Vec<Op>) {
        let Some((kernel, open)) = self.open.take() else { return };
        built.push(launch(host, open, host_function));
        if let Some((arena, placement)) = self.arena.take() {
            self.arena_peak = self.arena_peak.max(placement.high * 4);
            free(host, &self.walk.replicas, &arena);
        }
        for tensor in std::mem::take(&mut self.spilled) {
            free(host, &self.walk.replicas, &tensor);
        }
        self.placed.clear();
        let dead: Vec<Root> = self
            .buffers
            .keys()
            .filter(|root| !self.walk.outputs.contains_key(*root) && self.walk.lifetimes.get(*root).is_some_and(|t| t.last <= kernel))
            .cloned()
            .collect();
        for root in dead {
            let tensor = self.buffers.remove(&root).expect("listed");
            free(host, &self.walk.replicas, &tensor);
        }
    }

    /// Copies each pair in the open kernel, as one layer.
    fn copy(&mut self, pairs: &[(Tensor, Tensor)]) {
        let machine = self.walk.machine;
        let (index, kernel) = self.open.take().expect("a kernel is open");
        let mut kernel = movement::copy_pairs(machine, pairs, kernel);
        kernel.end_layer();
        self.open = Some((index, kernel));
    }

    /// A buffer of `shape` for intermediate `value` of the current instance: a window of the
    /// kernel's GB arena, or DDR when the arena has no room left.
    fn intermediate(&mut self, host: &mut Body, value: ValueId, shape: &[usize]) -> Tensor {
        let walk = self.walk;
        let elements: usize = shape.iter().product();
        if let Some((arena, free)) = &mut self.arena {
            if let Some(offset) = free.take(elements) {
                self.placed.push((value, offset, elements));
                let offset = host.index(offset);
                let (value, view) = host.reinterpret_at(arena.host, offset, &View::contiguous(shape, Space::Gb));
                return Tensor { host: value, view };
            }
        }
        self.spilled_count += 1;
        let tensor = allocate(host, &walk.replicas, shape, Space::Ddr, walk.count);
        self.spilled.push(tensor.clone());
        tensor
    }

    /// Returns to the arena the intermediates no op after `done` reads (layers are separated by
    /// barriers, so the next layer may overwrite them).
    fn release(&mut self, body: &FunctionView, aliases: &BTreeMap<ValueId, ValueId>, done: usize) {
        let Some((_, free)) = &mut self.arena else { return };
        self.placed.retain(|&(value, offset, elements)| {
            // A reshape's result is a view of its source's buffer: its readers count too.
            let views = aliases.iter().filter(|(_, &root)| root == value).map(|(&view, _)| view);
            let read_later = std::iter::once(value).chain(views).any(|v| body.readers(v).iter().any(|&reader| reader > done));
            if !read_later {
                free.give(offset, elements);
            }
            read_later
        });
    }

    /// Lowers the instance at `position` into the open kernel: its layers in order, reading its
    /// operands and writing its outputs where the cluster program keeps them.
    fn instance(&mut self, host: &mut Body, position: usize, node: &Node, tensors: &mut BTreeMap<ValueId, Tensor>) -> Result<(), ScheduleError> {
        let walk = self.walk;
        let (group, index, _, _) = instance_attributes(node);
        let body = FunctionView::read_body(node.op, format!("'{group}' #{index}"))
            .map_err(|e| ScheduleError { op: e.op.or(Some(node.op)), message: e.message })?;
        let mut local: BTreeMap<ValueId, Tensor> = BTreeMap::new();
        for ((argument, _), operand) in body.arguments.iter().zip(&node.operands) {
            let tensor = tensors[operand].clone();
            let tensor = if tensor.view.is_contiguous() {
                tensor
            } else {
                // A slice across a buffer's rows or channels: the layer emitters read contiguous
                // tensors, so the instance gets a contiguous copy (GB to GB).
                let copy = self.intermediate(host, *argument, &tensor.view.shape);
                self.copy(&[(tensor, copy.clone())]);
                copy
            };
            local.insert(*argument, tensor);
        }
        // Where each output goes.
        let mut destinations = Vec::new();
        for (result, (value, r#type)) in node.results.iter().enumerate() {
            let destination = match walk.roots.get(value) {
                Some(Root::Group(group)) => {
                    let stitched = walk.stitched[group].clone();
                    let buffer = self.buffer(host, &Root::Group(group.clone()));
                    window(host, &buffer, stitched.dim, index * stitched.slice, stitched.slice)
                }
                _ => self.buffer(host, &Root::Result(position, result)),
            };
            debug_assert_eq!(destination.view.shape, buffer_shape(&r#type.shape));
            destinations.push(destination);
        }
        let yielded = body.returned().to_vec();
        let mut fused: BTreeSet<usize> = BTreeSet::new();
        let mut aliases: BTreeMap<ValueId, ValueId> = BTreeMap::new();
        for (op_index, op) in body.ops.iter().enumerate() {
            if fused.contains(&op_index) || op.is_terminator() {
                continue;
            }
            host.set_location(op.op.location());
            if matches!(op.name.as_str(), "graph.reshape" | "graph.flatten") {
                let root = aliases.get(&op.operands[0]).copied().unwrap_or(op.operands[0]);
                aliases.insert(op.results[0].0, root);
                let source = local[&op.operands[0]].clone();
                local.insert(op.results[0].0, crate::conversion::graph_to_dsa::emit::reshaped(host, &source, &buffer_shape(&op.results[0].1.shape)));
                continue;
            }
            if matches!(op.name.as_str(), "graph.weight" | "graph.constant") {
                return Err(ScheduleError::at(op.op, "weights inside an instance are not supported: they are operands of the instances"));
            }
            let Fused { steps, elementwise_anchor, fused: fused_ops, last } =
                fusion::layer_epilogue(&body, op_index, &mut local, host, &mut self.synthetic);
            fused.extend(fused_ops);
            let finals: Vec<(ValueId, Vec<usize>)> = if op.results.len() == 1 {
                vec![(last.expect("one result"), buffer_shape(&op.results[0].1.shape))]
            } else {
                op.results.iter().map(|(value, r#type)| (*value, buffer_shape(&r#type.shape))).collect()
            };
            let mut results = Vec::new();
            for (value, shape) in &finals {
                // A layer writes an output in place when it is one contiguous run (the emitters
                // see tiles of row-major tensors); a cluster's share cut across rows is copied.
                let output = yielded
                    .iter()
                    .position(|y| y == value)
                    .filter(|&p| destinations[p].view.shape == *shape && destinations[p].view.is_contiguous());
                results.push(match output {
                    Some(p) => destinations[p].clone(),
                    None => self.intermediate(host, *value, shape),
                });
            }
            let layer = Layer { index: op_index, node: op, steps, output: results[0].clone() };
            let scope = Scope { machine: walk.machine, tensors: &local };
            let (kernel_index, kernel) = self.open.take().expect("a kernel is open");
            let emitted = emit_layer(&scope, host, &layer, &results, elementwise_anchor, kernel);
            let mut kernel = emitted.map_err(|error| {
                let at = error.op.and_then(|i| body.ops.get(i).map(|n| n.op)).unwrap_or(node.op);
                ScheduleError::at(at, error.message)
            })?;
            kernel.end_layer();
            self.open = Some((kernel_index, kernel));
            for ((value, _), tensor) in finals.iter().zip(results) {
                local.insert(*value, tensor);
            }
            let done = fused.iter().copied().filter(|&f| f > op_index).max().unwrap_or(op_index).max(op_index);
            self.release(&body, &aliases, done);
        }
        // Outputs not written in place (a block argument or a reshape yielded) are copied.
        let mut pairs = Vec::new();
        for (position, value) in yielded.iter().enumerate() {
            let tensor = local[value].clone();
            if tensor.host.0.ptr != destinations[position].host.0.ptr {
                pairs.push((tensor, destinations[position].clone()));
            }
        }
        if !pairs.is_empty() {
            self.copy(&pairs);
        }
        self.release(&body, &aliases, usize::MAX);
        for ((value, _), destination) in node.results.iter().zip(destinations) {
            tensors.insert(*value, destination);
        }
        Ok(())
    }
}
