//! The cluster program's first walk: the kernels it forms and the lifetimes of the tensors they
//! share (then placed by [`plan`]); the second walk emits them ([`super::segment`]).

use super::error::ScheduleError;
use super::items::{instance_attributes, Item, Root, Stitched};
use super::offsets;
use super::operands::conv_epilogues;
use super::plan::{self, Spill};
use crate::graph_view::{uniform_float, ElementType, FunctionView, Node, ValueId};
use crate::kernels::{emit::Replicas, fusion};
use crate::target::Machine;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::{graph, instance, OpKind};

/// What the first walk decided: the kernels, which tensor owns which buffers, and where those
/// live.
pub(super) struct Walk<'p> {
    pub(super) program: &'p FunctionView,
    pub(super) machine: &'p Machine,
    pub(super) count: usize,
    pub(super) replicas: Replicas,
    pub(super) items: Vec<Item>,
    /// Per kernel, the float type of its arenas: the one type of every tensor its instances
    /// read and make (f32 for copies). None when they read or make tensors of other types, or
    /// of two (hw-group keeps such ops in groups of their own): its LB then holds buffers of
    /// their types, no arena, and it neither continues nor is continued by another segment's
    /// kernel.
    pub(super) arena_element: Vec<Option<ElementType>>,
    /// Per op position, the kernel it runs in (instances, copied concatenations, the yield's
    /// copy).
    pub(super) kernel_of: BTreeMap<usize, usize>,
    pub(super) roots: BTreeMap<ValueId, Root>,
    pub(super) stitched: BTreeMap<String, Stitched>,
    /// Per output position, the root written in place into it.
    pub(super) outputs: BTreeMap<Root, usize>,
    pub(super) lifetimes: BTreeMap<Root, plan::Tensor>,
    pub(super) in_ddr: BTreeMap<Root, bool>,
    pub(super) gb_bytes: usize,
    /// Per output position, whether it is a result the clusters do not split (every cluster
    /// holds all of it): never written in place, and copied by the first cluster only.
    pub(super) whole_outputs: Vec<bool>,
    /// Arguments of the program that every cluster reads whole or that are weights (a layer cut
    /// along its channels reads its input whole and its share of the weights): promoted to the
    /// GB as weights are.
    pub(super) read_whole: BTreeSet<ValueId>,
    /// Per kernel, the GB its instances' intermediates need at most (see `intermediate_needs`).
    pub(super) needs: Vec<usize>,
    /// Per instance (its op position), the GB its intermediates need at each op of its body
    /// (see [`Walk::op_needs`]).
    pub(super) op_needs: BTreeMap<usize, Vec<usize>>,
    /// The same, counting only the intermediates that are stored (see [`Walk::op_needs`]).
    pub(super) op_stored: BTreeMap<usize, Vec<usize>>,
    /// Arguments of the program that the segment right before computes.
    pub(super) written_before: BTreeSet<ValueId>,
    /// Arguments of the program that are weights or constants of the function.
    pub(super) outer_weights: BTreeSet<ValueId>,
}

/// Bytes of a tensor of `shape` and elements of `element_bytes` (a scalar counts one).
fn bytes(shape: &[usize], element_bytes: usize) -> usize {
    shape.iter().product::<usize>().max(1) * element_bytes
}

/// How the clusters share a program: how many run it, which outputs they do not split and which
/// arguments each reads whole or are weights (see the fields of [`Walk`] of the same names).
pub(super) struct Sharing {
    /// The clusters running the program.
    pub(super) count: usize,
    /// The host values standing for every cluster's buffer of one tensor.
    pub(super) replicas: Replicas,
    pub(super) whole_outputs: Vec<bool>,
    pub(super) read_whole: BTreeSet<ValueId>,
    pub(super) outer_weights: BTreeSet<ValueId>,
}

impl<'p> Walk<'p> {
    /// Forms the kernels of `program` (one cluster's, shared among the clusters as `sharing`
    /// says) and places its tensors in a GB of `gb_bytes`.
    pub fn new(
        program: &'p FunctionView,
        machine: &'p Machine,
        gb_bytes: usize,
        spill: Spill,
        sharing: Sharing,
    ) -> Result<Self, ScheduleError> {
        let Sharing {
            count,
            replicas,
            whole_outputs,
            read_whole,
            outer_weights,
        } = sharing;
        let mut walk = Walk {
            program,
            machine,
            count,
            replicas,
            items: Vec::new(),
            arena_element: Vec::new(),
            kernel_of: BTreeMap::new(),
            roots: BTreeMap::new(),
            stitched: BTreeMap::new(),
            outputs: BTreeMap::new(),
            lifetimes: BTreeMap::new(),
            in_ddr: BTreeMap::new(),
            gb_bytes,
            whole_outputs,
            read_whole,
            needs: Vec::new(),
            op_needs: BTreeMap::new(),
            op_stored: BTreeMap::new(),
            outer_weights,
            written_before: BTreeSet::new(),
        };
        walk.form_kernels()?;
        walk.live_ranges();
        walk.op_needs = walk.instance_needs(false);
        walk.op_stored = walk.instance_needs(true);
        walk.needs = walk.intermediate_needs();
        walk.in_ddr = plan::place(&walk.lifetimes, &walk.needs, gb_bytes, spill);
        Ok(walk)
    }

    /// The GB elements of a cluster that kernel `kernel` has for its intermediates: what the
    /// planned tensors live during it leave.
    pub(super) fn arena_elements(&self, kernel: usize) -> usize {
        let planned: usize = self
            .lifetimes
            .iter()
            .filter(|(root, t)| {
                !self.in_ddr[*root]
                    && !self.outputs.contains_key(*root)
                    && t.first <= kernel
                    && kernel <= t.last
            })
            .map(|(_, t)| t.bytes)
            .sum();
        self.gb_bytes.saturating_sub(planned) / self.word_bytes(kernel)
    }

    /// Bytes of the elements of kernel `kernel`'s arenas (f32's for a typed kernel, whose
    /// tensors stay in DDR).
    pub(super) fn word_bytes(&self, kernel: usize) -> usize {
        self.arena_element[kernel].map_or(4, ElementType::bytes)
    }

    /// The machine kernel `kernel` plans its tiles against: capacities counted in its arenas'
    /// elements.
    pub(super) fn machine_of(&self, kernel: usize) -> Machine {
        self.machine.counted_in(self.word_bytes(kernel))
    }

    /// Whether `value` (an instance's operand) is an input of the program computed by another
    /// segment (not a weight), or a slice or copy of one.
    pub(super) fn is_segment_input(&self, value: ValueId) -> bool {
        self.segment_argument(value)
            .is_some_and(|argument| !self.outer_weights.contains(&argument))
    }

    /// Whether `value` (an instance's operand) is an input of the program that the segment right
    /// before writes (or a slice or copy of one): that segment's last layer may still be writing
    /// it, so no copy of it goes under that layer. The other inputs are copied early as weights
    /// are.
    pub(super) fn is_written_before(&self, value: ValueId) -> bool {
        self.segment_argument(value)
            .is_some_and(|argument| self.written_before.contains(&argument))
    }

    /// The argument of the program that `value` is, or a slice or copy of.
    fn segment_argument(&self, mut value: ValueId) -> Option<ValueId> {
        while let Some(producer) = self.program.producer(value).map(|p| &self.program.ops[p]) {
            if !matches!(
                producer.kind,
                Some(OpKind::Instance(
                    instance::Kind::Slice | instance::Kind::Copy | instance::Kind::Redistribute
                ))
            ) {
                return None;
            }
            value = producer.operands[0];
        }
        self.program
            .arguments
            .iter()
            .any(|(argument, _)| *argument == value)
            .then_some(value)
    }

    /// Whether the first kernel places no tensor of its own in the GB: it can then continue the
    /// kernel of the segment before (whose buffers stay allocated until that kernel's launch)
    /// inside that kernel's arena.
    pub(super) fn starts_without_gb_tensors(&self) -> bool {
        self.lifetimes
            .iter()
            .all(|(root, t)| self.in_ddr[root] || self.outputs.contains_key(root) || t.first > 0)
    }

    /// Forms the kernels of the program in its order: a run of consecutive instances of one
    /// group is one kernel, a concatenation that is not a view of a stitched buffer and the
    /// yield's copies are kernels of their own; and finds the root of every value.
    fn form_kernels(&mut self) -> Result<(), ScheduleError> {
        let program = self.program;
        for (position, node) in program.ops.iter().enumerate() {
            match node.kind {
                Some(OpKind::Graph(graph::Kind::Weight | graph::Kind::Constant)) => {}
                Some(OpKind::Instance(instance::Kind::Instance)) => {
                    self.form_instance(position, node)
                }
                Some(OpKind::Instance(
                    instance::Kind::Slice | instance::Kind::Copy | instance::Kind::Redistribute,
                )) => {
                    if let Some(root) = self.roots.get(&node.operands[0]).cloned() {
                        self.roots.insert(node.results[0].0, root);
                    }
                }
                Some(OpKind::Instance(instance::Kind::Concat)) => {
                    let root = match self.stitched_concat(node) {
                        Some(group) => Root::Group(group),
                        None => {
                            self.items.push(Item::Copy);
                            self.arena_element.push(Some(ElementType::F32));
                            self.kernel_of.insert(position, self.items.len() - 1);
                            Root::Concat(position)
                        }
                    };
                    self.roots.insert(node.results[0].0, root);
                }
                Some(OpKind::Instance(instance::Kind::Yield)) => self.form_yield(position, node),
                _ => {
                    return Err(ScheduleError::at(
                        node.op,
                        format!(
                            "'{}' outside an instance: the GraphTurbo kernels need every op \
                             grouped (run hw-group and instance-split)",
                            node.name
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// The instance `node` at `position`: in the kernel of the run of its group (a new one
    /// unless the op before was of its group), its first output stitched into its group's
    /// buffer when its slices are contiguous there.
    fn form_instance(&mut self, position: usize, node: &Node) {
        let (group, _, count, dim) = instance_attributes(node);
        if !matches!(self.items.last(), Some(Item::Run(last)) if *last == group) {
            self.items.push(Item::Run(group.clone()));
            let program = self.program;
            let operands = node.operands.iter().map(|&value| program.type_of(value));
            let results = node.results.iter().map(|(_, r#type)| r#type);
            let elements = operands.chain(results).map(|r#type| r#type.element_type);
            self.arena_element.push(uniform_float(elements));
        }
        self.kernel_of.insert(position, self.items.len() - 1);
        let (first, first_type) = &node.results[0];
        let mut shape = first_type.shape.clone();
        // Slices along `dim` are contiguous in the group's buffer when every dimension
        // before it is 1 (the batch, or the channels of one image).
        if dim < shape.len() && shape[..dim].iter().all(|&d| d == 1) {
            let slice = shape[dim];
            shape[dim] *= count;
            self.stitched.entry(group.clone()).or_insert(Stitched {
                shape,
                dim,
                slice,
                element: first_type.element_type,
            });
            self.roots.insert(*first, Root::Group(group));
        } else {
            self.roots.insert(*first, Root::Result(position, 0));
        }
        for (index, (value, _)) in node.results.iter().enumerate().skip(1) {
            self.roots.insert(*value, Root::Result(position, index));
        }
    }

    /// The program's yield `node` at `position`: the outputs written in place by the root that
    /// computes them whole (each root into one output at most), and a copy kernel for the others.
    fn form_yield(&mut self, position: usize, node: &Node) {
        let program = self.program;
        let mut copies = false;
        for (output, value) in node.operands.iter().enumerate() {
            match self.roots.get(value) {
                Some(Root::Group(group))
                    if !self.whole_outputs[output]
                        && program.type_of(*value).shape == self.stitched[group].shape
                        && !self.outputs.contains_key(&Root::Group(group.clone())) =>
                {
                    self.outputs.insert(Root::Group(group.clone()), output);
                }
                // Another result of an instance (a group with several, such as a fork
                // merged by hw-group) is written in place when yielded whole.
                Some(Root::Result(producer, index))
                    if !self.whole_outputs[output]
                        && program.type_of(*value).shape
                            == program.ops[*producer].results[*index].1.shape
                        && !self.outputs.contains_key(&Root::Result(*producer, *index)) =>
                {
                    self.outputs.insert(Root::Result(*producer, *index), output);
                }
                _ => copies = true,
            }
        }
        if copies {
            self.items.push(Item::Copy);
            self.arena_element.push(Some(ElementType::F32));
            self.kernel_of.insert(position, self.items.len() - 1);
        }
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
            if !producer.is(instance::Kind::Instance) || producer.results[0].0 != *value {
                return None;
            }
            let (group, index, _, dim) = instance_attributes(producer);
            if dim != axis
                || previous.is_some_and(|p| p + 1 != index)
                || group_of.as_ref().is_some_and(|g| *g != group)
            {
                return None;
            }
            self.stitched.get(&group)?;
            previous = Some(index);
            group_of = Some(group);
        }
        group_of
    }

    /// The block arguments of the instance `node` (whose body is `body`) that stand for weights or
    /// constants of the cluster program: what a kernel promotes to the GB layer by layer.
    pub(super) fn weight_arguments(&self, node: &Node, body: &FunctionView) -> BTreeSet<ValueId> {
        let program = self.program;
        body.arguments
            .iter()
            .zip(&node.operands)
            .filter(|(_, operand)| {
                self.read_whole.contains(*operand)
                    || program.producer(**operand).is_some_and(|p| {
                        matches!(
                            program.ops[p].graph_kind(),
                            Some(graph::Kind::Weight | graph::Kind::Constant)
                        )
                    })
            })
            .map(|((argument, _), _)| *argument)
            .collect()
    }

    /// Per kernel, the GB its instances' intermediates need at most (see [`Walk::op_needs`]).
    fn intermediate_needs(&self) -> Vec<usize> {
        let mut needs = vec![0; self.items.len()];
        for (position, ops) in &self.op_needs {
            let kernel = self.kernel_of[position];
            needs[kernel] = ops.iter().copied().fold(needs[kernel], usize::max);
        }
        needs
    }

    /// [`Walk::op_needs`] of every instance, by its op position.
    fn instance_needs(&self, stored_only: bool) -> BTreeMap<usize, Vec<usize>> {
        let mut needs = BTreeMap::new();
        for (position, node) in self.program.ops.iter().enumerate() {
            if !node.is(instance::Kind::Instance) || !self.kernel_of.contains_key(&position) {
                continue;
            }
            let Ok(body) = FunctionView::read_body(node.op, String::new()) else {
                continue;
            };
            needs.insert(position, self.op_needs(node, &body, stored_only));
        }
        needs
    }

    /// The GB an instance's intermediates need at each op of its `body`: the results of its ops
    /// live there (read at or after it) and the weights it reads. `stored_only` leaves out the
    /// results never stored, a convolution's beside its epilogue's ([`offsets::transient`]):
    /// what a layer storing more (a stepped slice) is weighed against. Counted in, they are the
    /// budget of the kernels' GB and of the room a prefetched weight copy is credited in (with
    /// only the stored ones there, copies are credited that then delay the layers they go
    /// under).
    fn op_needs(&self, node: &Node, body: &FunctionView, stored_only: bool) -> Vec<usize> {
        let yielded = body.returned();
        let weights = self.weight_arguments(node, body);
        // An absorbed convolution's result never exists; its operands are read by the layer
        // absorbing it.
        let absorbed_into = fusion::absorbed_convs(body);
        let epilogues = conv_epilogues(body);
        // Each counted result adds its bytes from its producer to its last read: the needs are
        // the running sum of what starts minus what ended before each op.
        let count = body.ops.len();
        let mut starting = vec![0usize; count];
        let mut ending = vec![0usize; count + 1];
        for (producer, node) in body.ops.iter().enumerate() {
            if matches!(
                node.graph_kind(),
                Some(graph::Kind::Reshape | graph::Kind::Flatten)
            ) || absorbed_into.contains_key(&producer)
            {
                continue;
            }
            for (value, r#type) in &node.results {
                // A yielded result lives in its output; with `stored_only`, a transient one is
                // never stored.
                if yielded.contains(value)
                    || (stored_only && offsets::transient(body, &epilogues, &absorbed_into, *value))
                {
                    continue;
                }
                let last = body
                    .readers(*value)
                    .iter()
                    .map(|&reader| fusion::read_at(&absorbed_into, reader))
                    .max();
                if let Some(last) = last.filter(|&last| last >= producer) {
                    let size = bytes(&r#type.shape, r#type.element_type.bytes());
                    starting[producer] += size;
                    ending[last.min(count - 1) + 1] += size;
                }
            }
        }
        let mut live = 0usize;
        body.ops
            .iter()
            .enumerate()
            .map(|(index, op)| {
                live = live + starting[index] - ending[index];
                let read: usize = op
                    .operands
                    .iter()
                    .filter(|v| weights.contains(v))
                    .map(|v| {
                        let r#type = body.type_of(*v);
                        bytes(&r#type.shape, r#type.element_type.bytes())
                    })
                    .sum();
                live + read
            })
            .collect()
    }

    fn live_ranges(&mut self) {
        let program = self.program;
        let last_kernel = self.items.len().saturating_sub(1);
        for (position, node) in program.ops.iter().enumerate() {
            let Some(&kernel) = self.kernel_of.get(&position) else {
                continue;
            };
            let produced: Vec<Root> = match node.kind {
                Some(OpKind::Instance(instance::Kind::Instance)) => node
                    .results
                    .iter()
                    .filter_map(|(value, _)| self.roots.get(value).cloned())
                    .collect(),
                Some(OpKind::Instance(instance::Kind::Concat)) => vec![Root::Concat(position)],
                _ => Vec::new(),
            };
            for root in produced {
                let shape = match &root {
                    Root::Group(group) => self.stitched[group].shape.clone(),
                    _ => program
                        .type_of(
                            node.results
                                .iter()
                                .find(|(v, _)| self.roots.get(v) == Some(&root))
                                .map_or(node.results[0].0, |r| r.0),
                        )
                        .shape
                        .clone(),
                };
                // A typed kernel's results stay in DDR: the GB arenas and shares hold floats of
                // one type.
                let ddr = self.outputs.contains_key(&root) || self.arena_element[kernel].is_none();
                let word = self.word_bytes(kernel);
                let entry = self.lifetimes.entry(root).or_insert(plan::Tensor {
                    bytes: bytes(&shape, word),
                    first: kernel,
                    last: kernel,
                    ddr,
                });
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
}
