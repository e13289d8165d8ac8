//! Layers: which op of the model each instruction computes a part of, for the report.
//!
//! Every dsa instruction carries the location of the model op it comes from (the ONNX node's
//! name, or the line of the graph-dialect file). A kernel's host code tells the runtime the
//! layer its core's next instructions belong to (`td_layer`) where it changes: a tile loop whose
//! instructions are all of the layer current before it needs no mark, one that mixes layers is
//! marked inside (its body runs again after other instructions); each entry function names the
//! module's layers once (`td_layer_name`). The runtime then reports what
//! each layer cost: its span, its instructions, its units' busy cycles, its DMA bytes.

use super::abi::FunctionState;
use super::builder::Builder;
use super::instructions::INSTRUCTIONS;
use super::ir::op_name;
use super::launches::constant_global;
use super::types::{array_type, i8_type, string_attribute};
use mlir_sys::*;
use std::collections::HashMap;

/// The runtime's "no layer" (`UINT32_MAX`), for instructions whose location names no op.
const NO_LAYER: i64 = u32::MAX as i64;

/// The module's layers, numbered in the order their first instruction is met.
#[derive(Default)]
pub(super) struct Layers {
    ids: HashMap<String, u32>,
    names: Vec<String>,
}

impl Layers {
    /// Calls `td_layer` in `function` (a kernel's) where its core's next instructions change
    /// layer: before an instruction whose layer is not the one known to be current; before a
    /// loop or a branch whose instructions are all of one layer, when it is not current; and
    /// inside a loop or branch that mixes layers, at each of its blocks' first instructions
    /// (a loop's body runs again after its last instruction).
    ///
    /// # Safety
    /// `function` is an alive kernel function whose state is `state`, not lowered yet.
    pub(super) unsafe fn mark(&mut self, function: MlirOperation, state: FunctionState) {
        // SAFETY: the caller's guarantee.
        unsafe {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
            self.mark_block(block, None, state);
        }
    }

    /// Marks the instructions of `block`, entered with `current` the layer known to be current
    /// (None: unknown).
    unsafe fn mark_block(
        &mut self,
        block: MlirBlock,
        mut current: Option<i64>,
        state: FunctionState,
    ) {
        // SAFETY: the caller's guarantee; ops are visited before any is lowered.
        unsafe {
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                if is_layer_work(op) {
                    let layer = self.id(mlirOperationGetLocation(op));
                    if current != Some(layer) {
                        set_layer_before(op, layer, state);
                        current = Some(layer);
                    }
                } else if mlirOperationGetNumRegions(op) > 0 {
                    let mut inside = Vec::new();
                    self.layers_within(op, &mut inside);
                    if let [layer] = inside[..] {
                        // One layer inside: one mark before the loop or branch, if any.
                        if current != Some(layer) {
                            set_layer_before(op, layer, state);
                            current = Some(layer);
                        }
                    } else if !inside.is_empty() {
                        for index in 0..mlirOperationGetNumRegions(op) {
                            let region = mlirOperationGetRegion(op, index);
                            let mut inner = mlirRegionGetFirstBlock(region);
                            while !inner.ptr.is_null() {
                                self.mark_block(inner, None, state);
                                inner = mlirBlockGetNextInRegion(inner);
                            }
                        }
                        current = None;
                    }
                }
                op = mlirOperationGetNextInBlock(op);
            }
        }
    }

    /// The layers of the instructions nested in `op`'s regions.
    unsafe fn layers_within(&mut self, op: MlirOperation, layers: &mut Vec<i64>) {
        // SAFETY: the caller's guarantee.
        unsafe {
            for index in 0..mlirOperationGetNumRegions(op) {
                let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, index));
                while !block.ptr.is_null() {
                    let mut inner = mlirBlockGetFirstOperation(block);
                    while !inner.ptr.is_null() {
                        if is_layer_work(inner) {
                            let layer = self.id(mlirOperationGetLocation(inner));
                            if !layers.contains(&layer) {
                                layers.push(layer);
                            }
                        } else if mlirOperationGetNumRegions(inner) > 0 {
                            self.layers_within(inner, layers);
                        }
                        inner = mlirOperationGetNextInBlock(inner);
                    }
                    block = mlirBlockGetNextInRegion(block);
                }
            }
        }
    }

    /// At the start of `function` (a host function whose first argument is `%dev`), names every
    /// layer of the module.
    ///
    /// # Safety
    /// `module` and `function`, one of its host functions, are alive.
    pub(super) unsafe fn register(
        &self,
        module: MlirOperation,
        function: MlirOperation,
        device: MlirValue,
    ) {
        // SAFETY: the caller's guarantee; the globals are defined once per module.
        unsafe {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0));
            let first = mlirBlockGetFirstOperation(block);
            let builder = Builder::before(first);
            for (id, name) in self.names.iter().enumerate() {
                let global = format!("layer.{id}.name");
                if !super::ir::defines_symbol(module, &global) {
                    let context = builder.context;
                    constant_global(
                        module,
                        &global,
                        array_type(i8_type(context), name.len() + 1),
                        string_attribute(context, &format!("{name}\0")),
                    );
                }
                let text = builder.address_of(&global);
                let id = builder.constant_i32(id as i64);
                builder.call_runtime("td_layer_name", &[device, id, text]);
            }
        }
    }

    /// The layer of an instruction at `location`, numbering it if it is new.
    unsafe fn id(&mut self, location: MlirLocation) -> i64 {
        // SAFETY: the caller's guarantee that the location is alive.
        let Some(name) = (unsafe { layer_name(location) }) else {
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
///
/// # Safety
/// `location` is alive.
unsafe fn layer_name(location: MlirLocation) -> Option<String> {
    // SAFETY: the caller's guarantee; identifiers and string refs are owned by the context.
    unsafe {
        let text = |string: MlirStringRef| {
            String::from_utf8_lossy(std::slice::from_raw_parts(
                string.data.cast::<u8>(),
                string.length,
            ))
            .into_owned()
        };
        if mlirLocationIsAName(location) {
            return Some(text(mlirIdentifierStr(mlirLocationNameGetName(location))));
        }
        if mlirLocationIsAFileLineColRange(location) {
            let file = text(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(
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
            return parts.into_iter().find_map(|part| layer_name(part));
        }
        if mlirLocationIsACallSite(location) {
            return layer_name(mlirLocationCallSiteGetCallee(location));
        }
        None
    }
}

/// Whether `op` is an instruction that does a layer's work (a wait or a barrier is no layer's:
/// it keeps the layer before it).
///
/// # Safety
/// `op` is alive.
unsafe fn is_layer_work(op: MlirOperation) -> bool {
    // SAFETY: the caller's guarantee.
    let name = unsafe { op_name(op) };
    INSTRUCTIONS.contains(&name.as_str()) && name != "dsa.wait" && name != "dsa.barrier"
}

/// Calls `td_layer(%dev, %cluster, %core, layer)` before `op`.
///
/// # Safety
/// `op` is an alive op of a kernel's function whose state is `state`.
unsafe fn set_layer_before(op: MlirOperation, layer: i64, state: FunctionState) {
    // SAFETY: the caller's guarantee.
    unsafe {
        let (cluster, core) = state.core.expect("kernels record on a core");
        let builder = Builder::before(op);
        let id = builder.constant_i32(layer);
        builder.call_runtime("td_layer", &[state.device, cluster, core, id]);
    }
}
