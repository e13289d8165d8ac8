//! GraphTurbo's kernels (§4): a function scheduled by the instance passes (an `instance.clusters`
//! whose body is one cluster's program of bound, ordered instances) becomes kernels launched on
//! the cores of every cluster at once, each cluster computing its own share.
//!
//! - **Kernels.** Consecutive instances of one group in the instance order form one kernel; its
//!   instances run in that order, each layer of an instance a tile loop over the cluster's cores,
//!   layers separated by barriers. The tiles are the layer-wise lowering's (anchor tiling with
//!   the epilogue fused, GraphTurbo §4.1); within a kernel each layer's tiles are views of one
//!   LB arena per core.
//! - **Buffer stitching (§4.2).** An instance writes its slice straight into its group's output
//!   buffer, so that the `instance.concat` of a group's instances is a view of that buffer and
//!   the `instance.slice` a consumer reads (with its halo) is a view again: no data moves between
//!   stitched layers but the tiles' own loads and stores. A copy or redistribution between
//!   instances is the consumer's tile loads from the cluster's GB. Slices that are not contiguous
//!   (rows or channels of a batch) are given contiguous copies before an instance reads them.
//! - **Memory (§4.3).** Group outputs and each kernel's intermediates live in the cluster's GB
//!   while live (liveness over the kernel order); where the GB overflows, the tensor chosen by the
//!   spill policy lives in DDR instead ([`plan`]). The results are written into the DDR output
//!   directly when a group computes them whole.
//!
//! Every cluster holds its own copy of each on-chip tensor (`dsa.alloc {cluster}`): host values
//! stand for one buffer per cluster ([`Replicas`]) and the kernel picks its cluster's.

mod core_emission;
mod emission;
mod per_core;
mod plan;
mod walk;

pub use plan::Spill;

use super::{
    emit::{Body, Replicas, Space, Tensor, View},
    host::{buffer_shape, check_f32, HostFunction},
    Machine,
};
use crate::{
    graph_view::{FunctionView, Node, ValueId},
    ir::{self, Op, Val},
};
use std::collections::BTreeMap;

/// What the lowering decided, for remarks.
#[derive(Debug, Default)]
pub struct Summary {
    /// Kernels launched.
    pub kernels: usize,
    /// Clusters each kernel runs on.
    pub clusters: usize,
    /// Largest GB bytes of one cluster that instance outputs take at a kernel.
    pub gb_peak: usize,
    /// Largest GB bytes of one cluster that a kernel's intermediates take.
    pub arena_peak: usize,
    /// Tensors placed in DDR because the GB was full.
    pub spilled: usize,
    /// Intermediates of instances placed in DDR because their kernel's GB arena was full.
    pub spilled_intermediates: usize,
    /// On-chip tensors planned.
    pub planned: usize,
    /// Layers whose weights were copied to the GB first, and layers that read weights.
    pub promotions: [usize; 2],
    /// LB instances computed per core (GraphTurbo's LB scope), and the reasons others of scope
    /// LB were lowered as GB instances, with their counts.
    pub per_core: usize,
    pub lowered_in_gb: BTreeMap<&'static str, usize>,
    /// Intermediates of per-core instances spilled from the LB to the GB.
    pub lb_spills: usize,
}

/// An error at an op.
pub struct ScheduleError {
    pub op: Option<Op>,
    pub message: String,
}

impl ScheduleError {
    fn at(op: Op, message: impl Into<String>) -> Self {
        Self { op: Some(op), message: message.into() }
    }
}

/// Lowers `function` (scheduled by the instance passes) into kernels and a host function of the
/// same name inserted before it; on failure nothing it built stays in the module.
pub fn lower_function(function: Op, machine: &Machine, spill: Spill) -> Result<Summary, ScheduleError> {
    let mut built = Vec::new();
    let result = lower_into(function, machine, spill, &mut built);
    if result.is_err() {
        for op in built.into_iter().rev() {
            op.erase();
        }
    }
    result
}

/// The share of a cluster program: the function's view of the `instance.clusters` op.
struct Clusters {
    op: Op,
    count: usize,
    input_dims: Vec<i64>,
    result_dims: Vec<i64>,
}

fn read_clusters(function: Op) -> Result<Clusters, ScheduleError> {
    let ops = function.body_ops();
    let not_scheduled = || {
        ScheduleError::at(
            function,
            "convert-instance-to-dsa needs a function scheduled by the instance passes (one instance.clusters op and its return): run instance-cluster-split, hw-group, instance-split, instance-order, instance-bind and instance-stitch first",
        )
    };
    let [op, terminator] = ops.as_slice() else { return Err(not_scheduled()) };
    if op.name() != "instance.clusters" || terminator.name() != "func.return" {
        return Err(not_scheduled());
    }
    let ints = |name: &str| -> Vec<i64> {
        op.attribute(name)
            .and_then(|a| melior::ir::attribute::DenseI64ArrayAttribute::try_from(a).ok())
            .map(|a| (0..a.len()).map(|i| a.element(i).unwrap_or(-1)).collect())
            .unwrap_or_default()
    };
    let count = op
        .attribute("count")
        .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
        .map_or(1, |a| a.value().max(1) as usize);
    Ok(Clusters { op: *op, count, input_dims: ints("input_dims"), result_dims: ints("result_dims") })
}

fn lower_into(function: Op, machine: &Machine, spill: Spill, built: &mut Vec<Op>) -> Result<Summary, ScheduleError> {
    let clusters = read_clusters(function)?;
    if clusters.count > machine.clusters {
        return Err(ScheduleError::at(
            clusters.op,
            format!("the program is spread over {} clusters but target '{}' has {}", clusters.count, machine.name, machine.clusters),
        ));
    }
    let name = function.symbol_name();
    let outer = FunctionView::read(function).map_err(|e| ScheduleError { op: e.op.or(Some(function)), message: e.message })?;
    let program = FunctionView::read_body(clusters.op, name.clone())
        .map_err(|e| ScheduleError { op: e.op.or(Some(clusters.op)), message: e.message })?;

    let mut signature = HostFunction::new(function, &name);
    built.push(signature.op);
    let replicas = Replicas::default();
    let mut host = Body::new(signature.block, function.location()).with_replicas(replicas.clone());
    let context = host.context();

    // Inputs: the function's arguments, each cluster reading its share.
    let mut parameters = Vec::new();
    for (position, (_, r#type)) in outer.arguments.iter().enumerate() {
        check_f32(r#type.element_type, None, "function argument").map_err(|e| ScheduleError::at(function, e.message))?;
        let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
        let location = function.entry_argument(position).location();
        let value = signature.parameter(&view, "dsa.input", ir::i64_attribute(context, position as i64), location);
        parameters.push(Tensor { host: value, view });
    }
    let mut tensors: BTreeMap<ValueId, Tensor> = BTreeMap::new();
    for (position, (value, _)) in program.arguments.iter().enumerate() {
        let operand = clusters.op.operand(position);
        let Some(index) = (0..outer.arguments.len()).find(|&i| function.entry_argument(i).0.ptr == operand.0.ptr) else {
            return Err(ScheduleError::at(clusters.op, format!("operand {position} of instance.clusters is not an argument of the function")));
        };
        let dim = clusters.input_dims.get(position).copied().unwrap_or(-1);
        tensors.insert(*value, shares(&mut host, &replicas, &parameters[index], dim, clusters.count));
    }
    // Outputs: the function's results, each cluster writing its share.
    let returned = outer.returned().to_vec();
    let mut outputs = Vec::new();
    // Results the clusters do not split (a returned argument): with several clusters, written
    // by the first only, as every cluster holds the same values.
    let mut whole_outputs = Vec::new();
    for (position, value) in returned.iter().enumerate() {
        let view = View::contiguous(&buffer_shape(&outer.type_of(*value).shape), Space::Ddr);
        let location = outer.ops.last().map_or(function.location(), |node| node.op.location());
        let buffer = signature.parameter(&view, "dsa.output", ir::i64_attribute(context, position as i64), location);
        let dim = clusters.result_dims.get(position).copied().unwrap_or(-1);
        whole_outputs.push(dim < 0 && clusters.count > 1);
        outputs.push(shares(&mut host, &replicas, &Tensor { host: buffer, view }, dim, clusters.count));
    }
    let terminator = outer.ops.last().expect("read_clusters found the return").op;
    if (0..returned.len()).any(|position| terminator.operand(position).0.ptr != clusters.op.result(position).0.ptr) {
        return Err(ScheduleError::at(clusters.op, "the function must return the results of instance.clusters, in order"));
    }

    // Weights and constants: host arguments every cluster reads whole.
    let mut parameter = |node: &Node, tensors: &mut BTreeMap<ValueId, Tensor>| -> Result<(), ScheduleError> {
        let (value, r#type) = node.results.first().cloned().ok_or_else(|| ScheduleError::at(node.op, "a weight without a result"))?;
        check_f32(r#type.element_type, None, "weight").map_err(|e| ScheduleError::at(node.op, e.message))?;
        let view = View::contiguous(&buffer_shape(&r#type.shape), Space::Ddr);
        let role = if node.name == "graph.weight" {
            let weight = node.string("name").ok_or_else(|| ScheduleError::at(node.op, "graph.weight without a name"))?;
            ("dsa.weight", ir::string_attribute(context, weight))
        } else {
            let constant = node.constant().ok_or_else(|| ScheduleError::at(node.op, "graph.constant without a dense value"))?;
            ("dsa.constant", constant.flattened())
        };
        let buffer = signature.parameter(&view, role.0, role.1, node.op.location());
        tensors.insert(value, Tensor { host: buffer, view });
        Ok(())
    };
    for node in &program.ops {
        if matches!(node.name.as_str(), "graph.weight" | "graph.constant") {
            parameter(node, &mut tensors)?;
        }
    }
    let cluster_machine = Machine { clusters: 1, cores: machine.cores_per_cluster, ..machine.clone() };
    let summary = walk::Walk::new(&program, &cluster_machine, machine.gb_bytes, clusters.count, spill, replicas, whole_outputs)?.emit(
        &mut host,
        signature.op,
        &mut tensors,
        &outputs,
        built,
    )?;
    host.op("func.return", &[], &[], &[]);
    signature.finish();
    Ok(summary)
}

/// Each cluster's share of `tensor` along `dim` (-1: every cluster reads it whole), as one host
/// value standing for the shares ([`Replicas`]).
fn shares(host: &mut Body, replicas: &Replicas, tensor: &Tensor, dim: i64, count: usize) -> Tensor {
    if dim < 0 || count == 1 {
        return tensor.clone();
    }
    let dim = dim as usize;
    let mut sizes = tensor.view.shape.clone();
    sizes[dim] /= count;
    let views: Vec<(Val, View)> = (0..count)
        .map(|cluster| {
            let offsets: Vec<Val> =
                (0..sizes.len()).map(|d| host.index(if d == dim { cluster * sizes[dim] } else { 0 })).collect();
            host.subview(tensor.host, &tensor.view, &offsets, &sizes, None)
        })
        .collect();
    let view = views[0].1.clone();
    replicas.borrow_mut().insert(views[0].0 .0.ptr as usize, views[1..].iter().map(|(value, _)| *value).collect());
    Tensor { host: views[0].0, view }
}

/// One buffer of `shape` per cluster, in its GB or in DDR.
fn allocate(host: &mut Body, replicas: &Replicas, shape: &[usize], space: Space, count: usize) -> Tensor {
    let view = View::contiguous(shape, space);
    let buffers: Vec<Val> =
        (0..count).map(|cluster| if space == Space::Gb { host.alloc_on(&view, cluster) } else { host.alloc(&view) }).collect();
    if count > 1 {
        replicas.borrow_mut().insert(buffers[0].0.ptr as usize, buffers[1..].to_vec());
    }
    Tensor { host: buffers[0], view }
}

/// Frees every cluster's buffer of `tensor`.
fn free(host: &mut Body, replicas: &Replicas, tensor: &Tensor) {
    let others = replicas.borrow().get(&(tensor.host.0.ptr as usize)).cloned().unwrap_or_default();
    host.dealloc(tensor.host);
    for other in others {
        host.dealloc(other);
    }
}
