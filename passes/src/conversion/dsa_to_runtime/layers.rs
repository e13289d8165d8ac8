//! Layers: which op of the model each instruction computes a part of, for the report.
//!
//! Every dsa instruction carries the location of the model op it comes from (the ONNX node's
//! name, or the line of the graph-dialect file). A kernel's host code tells the runtime the
//! layer its core's next instructions belong to (`td_layer`) where it changes: a tile loop whose
//! instructions are all of the layer current before it needs no mark, one that mixes layers is
//! marked inside (its body runs again after other instructions); each entry function names the
//! module's layers with one call (`td_layer_names`). The runtime then reports what
//! each layer cost: its span, its instructions, its units' busy cycles, its DMA bytes.

use super::abi::FunctionState;
use super::builder::Builder;
use super::instructions::is_instruction;
use super::launches::constant_global;
use super::symbols::Symbols;
use super::types::{array_type, i8_type};
use crate::ir::{block_ops, string_attribute, to_string, Op, Val};
use mlir_sys::*;
use std::collections::HashMap;
use turbine_dialects::ops::{dsa, OpKind};

/// The runtime's "no layer" (`UINT32_MAX`), for instructions whose location names no op.
const NO_LAYER: i64 = u32::MAX as i64;

/// The module's layers, numbered in the order their first instruction is met.
#[derive(Default)]
pub(super) struct Layers {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Layers {
    /// Calls `td_layer` in `function` (a kernel's, whose state is `state`, not lowered yet) where
    /// its core's next instructions change layer: before an instruction whose layer is not the
    /// one known to be current; before a loop or a branch whose instructions are all of one
    /// layer, when it is not current; and inside a loop or branch that mixes layers, at each of
    /// its blocks' first instructions (a loop's body runs again after its last instruction).
    pub(super) fn mark(&mut self, function: Op, state: FunctionState) {
        let block = function
            .entry_block()
            .expect("a kernel's function has a body");
        self.mark_block(block, None, state);
    }

    /// Marks the instructions of `block`, entered with `current` the layer known to be current
    /// (None: unknown).
    fn mark_block(&mut self, block: MlirBlock, mut current: Option<i64>, state: FunctionState) {
        for op in block_ops(block) {
            if is_layer_work(op) {
                let layer = self.id(op.location());
                if current != Some(layer) {
                    set_layer_before(op, layer, state);
                    current = Some(layer);
                }
            } else if op.num_regions() > 0 {
                let mut inside = Vec::new();
                self.layers_within(op, &mut inside);
                if let [layer] = inside[..] {
                    // One layer inside: one mark before the loop or branch, if any.
                    if current != Some(layer) {
                        set_layer_before(op, layer, state);
                        current = Some(layer);
                    }
                } else if !inside.is_empty() {
                    for inner in op.blocks() {
                        self.mark_block(inner, None, state);
                    }
                    current = None;
                }
            }
        }
    }

    /// The layers of the instructions nested in `op`'s regions.
    fn layers_within(&mut self, op: Op, layers: &mut Vec<i64>) {
        for block in op.blocks() {
            for inner in block_ops(block) {
                if is_layer_work(inner) {
                    let layer = self.id(inner.location());
                    if !layers.contains(&layer) {
                        layers.push(layer);
                    }
                } else if inner.num_regions() > 0 {
                    self.layers_within(inner, layers);
                }
            }
        }
    }

    /// At the start of `function` (one of `module`'s host functions, whose first argument is
    /// `%dev`, `device`), names every layer of the module with one `td_layer_names` call on a
    /// constant global holding the names back to back, each ended by a NUL, in the order of their
    /// ids: a call per layer would make the entry function's block grow with the model.
    pub(super) fn register(&self, module: Op, symbols: &mut Symbols, function: Op, device: Val) {
        if self.names.is_empty() {
            return;
        }
        let builder = Builder::before(function.body_ops()[0]);
        let context = builder.context;
        let global = "layer.names";
        if symbols.define(global) {
            let names: String = self.names.iter().map(|name| format!("{name}\0")).collect();
            constant_global(
                module,
                global,
                array_type(i8_type(context), names.len()),
                string_attribute(context, &names),
            );
        }
        let text = builder.address_of(global);
        let count = builder.constant_i32(self.names.len() as i64);
        builder.call_runtime("td_layer_names", &[device, count, text]);
    }

    /// The layer of an instruction at `location`, numbering it if it is new.
    pub(super) fn id(&mut self, location: MlirLocation) -> i64 {
        let Some(name) = layer_name(location) else {
            return NO_LAYER;
        };
        let next = self.names.len() as u32;
        let id = *self.ids.entry(name.clone()).or_insert(next);
        if id == next {
            self.names.push(name);
        }
        i64::from(id)
    }
}

/// The name of the model op at `location`: a name location's name (an ONNX node's), a file
/// location's `file:line:col` (the file's last path component), the first of a fused
/// location's parts that has one, a call site's callee's; None for an unknown location.
fn layer_name(location: MlirLocation) -> Option<String> {
    // SAFETY: the location is alive (an op's); each accessor is called on a location of its
    // kind, and identifiers and string refs are owned by the context.
    unsafe {
        if mlirLocationIsAName(location) {
            return Some(to_string(mlirIdentifierStr(mlirLocationNameGetName(
                location,
            ))));
        }
        if mlirLocationIsAFileLineColRange(location) {
            let file = to_string(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
                location,
            )));
            let file = file.rsplit('/').next().unwrap_or(&file).to_string();
            let line = mlirLocationFileLineColRangeGetStartLine(location);
            let column = mlirLocationFileLineColRangeGetStartColumn(location);
            return Some(format!("{file}:{line}:{column}"));
        }
        if mlirLocationIsAFused(location) {
            let count = mlirLocationFusedGetNumLocations(location) as usize;
            let mut parts = vec![
                MlirLocation {
                    ptr: std::ptr::null()
                };
                count
            ];
            mlirLocationFusedGetLocations(location, parts.as_mut_ptr());
            return parts.into_iter().find_map(layer_name);
        }
        if mlirLocationIsACallSite(location) {
            return layer_name(mlirLocationCallSiteGetCallee(location));
        }
        None
    }
}

/// Whether `op` is an instruction that does a layer's work (a wait or a barrier is no layer's:
/// it keeps the layer before it).
fn is_layer_work(op: Op) -> bool {
    op.kind().and_then(OpKind::dsa).is_some_and(|kind| {
        is_instruction(kind) && !matches!(kind, dsa::Kind::Wait | dsa::Kind::Barrier)
    })
}

/// Calls `td_layer(%dev, %cluster, %core, layer)` before `op`, an op of a kernel's function whose
/// state is `state`.
fn set_layer_before(op: Op, layer: i64, state: FunctionState) {
    let (cluster, core) = state.core.expect("kernels record on a core");
    let builder = Builder::before(op);
    let id = builder.constant_i32(layer);
    builder.call_runtime("td_layer", &[state.device, cluster, core, id]);
}
