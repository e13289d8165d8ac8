//! What a function would cost under the layer-wise schedule, without lowering it: the layers
//! the lowering forms (an anchor and the elementwise epilogue it fuses, by the same
//! `FunctionView::epilogue_reader`), each priced by the estimate the lowering chooses its tiles
//! by where it has one (convolutions and products: the chosen tiling's cycles on the busiest
//! core), by its DDR traffic at every cluster's port otherwise, and a launch per layer; a layer
//! the lowering refuses (other element types than f32, an op it has no emitter for) costs
//! [`UNSUPPORTED_LAYER`]. This is `graph-substitute`'s cost model: one set of figures and tile
//! choices for the lowering and the search (MetaFlow §4's cost model, here the target's).

use super::{
    dispatch::{estimate, has_emitter},
    fusion::takes_epilogue,
    layers::{self, Scope, Step},
    view::buffer_shape,
    view::{Space, View},
};
use crate::graph_view::{FunctionView, Node, ValueId};
use crate::target::Machine;
use mlir_sys::*;
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use turbine_dialects::ops::{graph, upstream};

/// Ops that form no layer: weights and constants are read by their consumers, reshapes are views.
fn forms_no_layer(node: &Node) -> bool {
    use graph::Kind as K;
    node.is(upstream::Kind::FuncReturn)
        || matches!(
            node.graph_kind(),
            Some(K::Weight | K::Constant | K::Reshape | K::Flatten)
        )
}

/// Layer estimates by a hash of what decides them (the ops of the layer, their attributes and
/// operand shapes): a search prices thousands of graphs that share most of their layers.
pub type LayerCache = HashMap<u64, f64>;

/// What a layer the lowering refuses costs (the software DSA computes in f32 only, and not every
/// op has an emitter): more than any graph it can run, and counted per layer so that removing
/// one such layer is progress.
pub const UNSUPPORTED_LAYER: f64 = 1e15;

/// The estimated cycles of `program` on `machine` under the layer-wise schedule, and its layers,
/// without the ops `excluded` marks (computed elsewhere: the weights prepared at load time).
pub fn layerwise_cycles_excluding(
    program: &FunctionView,
    machine: &Machine,
    cache: &mut LayerCache,
    excluded: &[bool],
) -> (f64, usize) {
    layerwise_cycles_with(program, machine, cache, &BTreeSet::new(), excluded)
}

/// [`layerwise_cycles_excluding`] with the values `resident` (arguments the caller keeps there)
/// in the GB of the cluster that runs them rather than in DDR (an op past the end of `excluded`
/// is included).
pub fn layerwise_cycles_with(
    program: &FunctionView,
    machine: &Machine,
    cache: &mut LayerCache,
    resident: &BTreeSet<ValueId>,
    excluded: &[bool],
) -> (f64, usize) {
    let mut views = value_views(program);
    for value in resident {
        if let Some(view) = views.get_mut(value) {
            *view = View::contiguous_of(&view.shape, Space::Gb, view.element);
        }
    }
    let scope = Scope {
        machine,
        tensors: &views,
    };
    let launch = machine.barrier + machine.dma_setup + machine.compute_setup;
    let port_rate = machine.ddr_bandwidth * machine.clusters as f64;
    let mut fused: BTreeSet<usize> = BTreeSet::new();
    let (mut total, mut layers) = (0.0, 0);
    for (index, node) in program.ops.iter().enumerate() {
        if fused.contains(&index) || forms_no_layer(node) || excluded.get(index) == Some(&true) {
            continue;
        }
        let elementwise_anchor =
            layers::elementwise_steps(node).is_some() || node.is(graph::Kind::BatchNorm);
        let layer = LayerEpilogue::read(program, index, elementwise_anchor, &mut fused);
        let written: f64 = match layer.last {
            Some(value) if node.results.len() == 1 => program.type_of(value).bytes() as f64,
            _ => node
                .results
                .iter()
                .map(|(_, r#type)| r#type.bytes() as f64)
                .sum(),
        };
        let touches = |value: &ValueId| !program.type_of(*value).element_type.is_float();
        if node.operands.iter().any(touches)
            || node.results.iter().any(|(value, _)| touches(value))
            || !has_emitter(node, elementwise_anchor)
        {
            total += UNSUPPORTED_LAYER;
            layers += 1;
            continue;
        }
        let out = node
            .results
            .first()
            .map(|(_, r#type)| buffer_shape(&r#type.shape))
            .unwrap_or_default();
        let cycles = *cache.entry(layer.key.finish()).or_insert_with(|| {
            estimate(&scope, node, &layer.steps, &out, None, elementwise_anchor)
                .unwrap_or((layer.read + written) / port_rate)
        });
        total += cycles + launch;
        layers += 1;
    }
    (total, layers)
}

/// The view of every value of `program` (its arguments and every op's results): contiguous in
/// DDR, where the layer-wise schedule keeps them.
fn value_views(program: &FunctionView) -> BTreeMap<ValueId, View> {
    let mut views: BTreeMap<ValueId, View> = BTreeMap::new();
    for (value, r#type) in program
        .arguments
        .iter()
        .chain(program.ops.iter().flat_map(|node| node.results.iter()))
    {
        views.insert(
            *value,
            View::contiguous_of(
                &buffer_shape(&r#type.shape),
                Space::Ddr,
                r#type.element_type,
            ),
        );
    }
    views
}

/// The epilogue a layer fuses after its anchor, as the estimate reads it.
struct LayerEpilogue {
    /// Its elementwise steps (a batch norm's are not priced).
    steps: Vec<Step>,
    /// Bytes the layer reads: the anchor's operands and the fused ops' other operands.
    read: f64,
    /// The layer's last value.
    last: Option<ValueId>,
    /// The hash of what decides the layer's estimate ([`signature`]).
    key: DefaultHasher,
}

impl LayerEpilogue {
    /// The epilogue of the layer anchored at op `index` of `program`, adding the ops it fuses
    /// to `fused`: the elementwise readers (and batch norms) that follow its value, as the
    /// lowering fuses them, when the anchor is one that takes an epilogue.
    fn read(
        program: &FunctionView,
        index: usize,
        elementwise_anchor: bool,
        fused: &mut BTreeSet<usize>,
    ) -> Self {
        let node = &program.ops[index];
        let fusible = node.results.len() == 1 && (elementwise_anchor || takes_epilogue(node));
        let mut steps = Vec::new();
        let mut read: f64 = node
            .operands
            .iter()
            .map(|&value| program.type_of(value).bytes() as f64)
            .sum();
        let mut last = node.results.first().map(|(value, _)| *value);
        let mut key = DefaultHasher::new();
        signature(program, index, None, &mut key);
        while let Some(value) = last.filter(|_| fusible) {
            let Some(reader) = program.epilogue_reader(value, |operand| {
                program.producer(operand).is_none_or(|op| op < index)
            }) else {
                break;
            };
            let user = &program.ops[reader];
            match layers::elementwise_steps(user) {
                Some(user_steps) => steps.extend(layers::chained_steps(user, value, user_steps)),
                // A batch norm fuses with per-channel parameters the estimate does not price.
                None if user.is(graph::Kind::BatchNorm) && user.operands[0] == value => {}
                None => break,
            }
            read += user
                .operands
                .iter()
                .filter(|&&operand| operand != value)
                .map(|&operand| program.type_of(operand).bytes() as f64)
                .sum::<f64>();
            signature(program, reader, Some(value), &mut key);
            fused.insert(reader);
            last = user.results.first().map(|(value, _)| *value);
        }
        LayerEpilogue {
            steps,
            read,
            last,
            key,
        }
    }
}

/// Hashes what decides op `index`'s part of a layer's estimate: its name, attributes (uniqued, so
/// their handles identify their values), operand shapes and which operand is the chain.
fn signature(
    program: &FunctionView,
    index: usize,
    chain: Option<ValueId>,
    hasher: &mut DefaultHasher,
) {
    let node = &program.ops[index];
    node.name.hash(hasher);
    for &operand in &node.operands {
        program.type_of(operand).shape.hash(hasher);
        (Some(operand) == chain).hash(hasher);
    }
    for (_, r#type) in &node.results {
        r#type.shape.hash(hasher);
    }
    // SAFETY: the op is alive while the view is.
    unsafe {
        for attribute in 0..mlirOperationGetNumAttributes(node.op.raw()) {
            (mlirOperationGetAttribute(node.op.raw(), attribute)
                .attribute
                .ptr as usize)
                .hash(hasher);
        }
    }
}
