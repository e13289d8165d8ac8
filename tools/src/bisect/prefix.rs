//! Prefixes of a graph function: the function cut after one of its ops, returning every value
//! that is live at the cut (the values the rest of the function would read, the op's own results
//! among them), so that compiling a prefix exposes those values to the comparison with the
//! interpreter.

use melior::ir::operation::OperationLike;
use melior::ir::{BlockLike, Location, Module, OperationRef};
use mlir_sys::*;
use std::collections::HashMap;

/// The entry function's body as the bisection sees it: its top-level ops in order (the
/// terminator last).
pub(crate) struct Body {
    ops: Vec<MlirOperation>,
}

impl Body {
    /// The body of the function `entry` of `module`; None when the module has no such function.
    pub fn of(module: &Module, entry: &str) -> Option<Self> {
        let function = function(module, entry)?;
        // SAFETY: the function is alive and has a body (a graph function is not external).
        let block = unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0)) };
        let mut ops = Vec::new();
        // SAFETY: the block is alive; its ops are walked in order.
        let mut op = unsafe { mlirBlockGetFirstOperation(block) };
        while !op.ptr.is_null() {
            ops.push(op);
            // SAFETY: `op` is an op of the block.
            op = unsafe { mlirOperationGetNextInBlock(op) };
        }
        Some(Self { ops })
    }

    /// The positions of the ops a prefix may end at: ops that compute something from operands
    /// (weights and constants, which read nothing, are not compared on their own).
    pub fn computing_ops(&self) -> Vec<usize> {
        let last = self.ops.len().saturating_sub(1);
        (0..last)
            .filter(|&index| {
                let op = self.ops[index];
                // SAFETY: the op is alive.
                unsafe { mlirOperationGetNumOperands(op) > 0 && mlirOperationGetNumResults(op) > 0 }
            })
            .collect()
    }

    /// The name of the op at `index` (`graph.relu`).
    pub fn op_name(&self, index: usize) -> String {
        // SAFETY: the op belongs to the module the body was read from, alive while it is used.
        let op = unsafe { OperationRef::from_raw(self.ops[index]) };
        op.name().as_string_ref().as_str().unwrap_or("?").to_owned()
    }

    /// The op at `index`'s location.
    pub fn location(&self, index: usize) -> Location<'_> {
        // SAFETY: the op is alive, so is its location.
        unsafe { Location::from_raw(mlirOperationGetLocation(self.ops[index])) }
    }

    /// The values live after the op at `last`, as (op position, result number), in op order:
    /// results of ops up to `last` read by a later op (at any depth) or returned, and the op's
    /// own results.
    pub fn live_after(&self, last: usize) -> Vec<(usize, usize)> {
        let position: HashMap<*mut std::ffi::c_void, usize> = self
            .ops
            .iter()
            .enumerate()
            .map(|(index, op)| (op.ptr, index))
            .collect();
        let mut live = Vec::new();
        for (index, &op) in self.ops.iter().enumerate().take(last + 1) {
            // SAFETY: the op is alive.
            let results = unsafe { mlirOperationGetNumResults(op) } as usize;
            for result in 0..results {
                // SAFETY: `result` is in range.
                let value = unsafe { mlirOperationGetResult(op, result as isize) };
                let read_later = users(value)
                    .into_iter()
                    .filter_map(|user| top_level(user, &position))
                    .any(|user| user > last);
                let computes = unsafe { mlirOperationGetNumOperands(op) } > 0;
                if (read_later && computes) || index == last {
                    live.push((index, result));
                }
            }
        }
        live
    }
}

/// The function op named `entry` in `module`.
fn function(module: &Module, entry: &str) -> Option<MlirOperation> {
    let mut op = module.body().first_operation();
    while let Some(candidate) = op {
        let name = candidate
            .attribute("sym_name")
            .ok()
            .and_then(|attribute| melior::ir::attribute::StringAttribute::try_from(attribute).ok())
            .map(|attribute| attribute.value().to_owned());
        if name.as_deref() == Some(entry) {
            return Some(candidate.to_raw());
        }
        op = candidate.next_in_block();
    }
    None
}

/// The ops that use `value`.
fn users(value: MlirValue) -> Vec<MlirOperation> {
    let mut users = Vec::new();
    // SAFETY: the value is alive; its uses are walked in turn.
    let mut operand = unsafe { mlirValueGetFirstUse(value) };
    while !unsafe { mlirOpOperandIsNull(operand) } {
        // SAFETY: the use is not null.
        users.push(unsafe { mlirOpOperandGetOwner(operand) });
        operand = unsafe { mlirOpOperandGetNextUse(operand) };
    }
    users
}

/// The position of the body op that is `op` or holds it in its regions.
fn top_level(op: MlirOperation, position: &HashMap<*mut std::ffi::c_void, usize>) -> Option<usize> {
    let mut current = op;
    loop {
        if let Some(&index) = position.get(&current.ptr) {
            return Some(index);
        }
        // SAFETY: the op is alive; a top-level op's parent is the function, not in `position`.
        current = unsafe { mlirOperationGetParentOperation(current) };
        if current.ptr.is_null() {
            return None;
        }
    }
}

/// A copy of `module` whose function `entry` ends after its op at `last` and returns the values
/// `live` ([`Body::live_after`]) instead of its results; its arguments stay as they are.
pub(crate) fn prefix_module<'c>(
    module: &Module<'c>,
    entry: &str,
    last: usize,
    live: &[(usize, usize)],
) -> Module<'c> {
    // SAFETY: cloning a live module op gives a new top-level module op the new Module owns.
    let copy = unsafe {
        Module::from_raw(mlirModuleFromOperation(mlirOperationClone(
            module.as_operation().to_raw(),
        )))
    };
    let body = Body::of(&copy, entry).expect("the copy has the function of the original");
    let function = function(&copy, entry).expect("the copy has the function");
    let terminator = *body
        .ops
        .last()
        .expect("a function body ends with its terminator");
    let values: Vec<MlirValue> = live
        .iter()
        // SAFETY: the positions and result numbers were read from the same function.
        .map(|&(op, result)| unsafe { mlirOperationGetResult(body.ops[op], result as isize) })
        .collect();
    // SAFETY: the terminator and the values are alive and in the same function; every value is
    // defined before the terminator.
    unsafe { mlirOperationSetOperands(terminator, values.len() as isize, values.as_ptr()) };
    for &op in body.ops[last + 1..body.ops.len() - 1].iter().rev() {
        // SAFETY: later ops are erased first, so each op's results have no users left when it
        // goes (the terminator no longer reads them).
        unsafe { mlirOperationDestroy(op) };
    }
    set_result_types(function, &values);
    copy
}

/// Gives `function` (a `func.func`) the types of `values` as its results, without the
/// attributes of its former results.
fn set_result_types(function: MlirOperation, values: &[MlirValue]) {
    // SAFETY: the function is alive; its `function_type` is a TypeAttr of a FunctionType.
    unsafe {
        let name = mlirStringRefCreateFromCString(c"function_type".as_ptr());
        let old = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(function, name));
        let inputs: Vec<MlirType> = (0..mlirFunctionTypeGetNumInputs(old))
            .map(|index| mlirFunctionTypeGetInput(old, index))
            .collect();
        let results: Vec<MlirType> = values
            .iter()
            .map(|&value| mlirValueGetType(value))
            .collect();
        let context = mlirOperationGetContext(function);
        let new = mlirFunctionTypeGet(
            context,
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        );
        mlirOperationSetAttributeByName(function, name, mlirTypeAttrGet(new));
        mlirOperationRemoveAttributeByName(
            function,
            mlirStringRefCreateFromCString(c"res_attrs".as_ptr()),
        );
    }
}
