//! Reading the IR under the pass through the C API.
//!
//! The lowering keeps raw handles because it erases and replaces ops while it still holds the
//! list of ops to visit, which melior's borrowed handles forbid. Attributes and types are read
//! through their accessors (builtin ones through upstream's C API, the dsa dialect's through
//! `turbine_dialects::attributes`), never through their printed form: printing is for people and
//! changes with aliases and printer options.
//!
//! Every `unsafe fn` here takes C-API handles; its contract is that they are alive (the op not
//! erased, the context not destroyed) and of the kind the parameter names.

use crate::registry::PassFailure;
use melior::ir::{Attribute, Type};
use mlir_sys::*;
use turbine_dialects::attributes::EnumAttribute;

pub(super) use crate::ir::string_ref;
use crate::ir::to_string as owned;

/// The op's name, such as `dsa.dma`.
pub(super) unsafe fn op_name(op: MlirOperation) -> String {
    // SAFETY: the op is alive; its name is an identifier owned by the context.
    unsafe { owned(mlirIdentifierStr(mlirOperationGetName(op))) }
}

/// The op's attribute `name` (inherent or discardable), None when it is not set.
pub(super) unsafe fn attribute(op: MlirOperation, name: &str) -> Option<MlirAttribute> {
    // SAFETY: the op is alive; the name is borrowed for the call.
    let attribute = unsafe { mlirOperationGetAttributeByName(op, string_ref(name)) };
    (!attribute.ptr.is_null()).then_some(attribute)
}

/// The case of the op's dsa enum attribute `name`, None when unset or of another enumeration.
pub(super) unsafe fn enum_attribute<E: EnumAttribute>(op: MlirOperation, name: &str) -> Option<E> {
    // SAFETY: the op is alive; the attribute is owned by its context, which outlives the read.
    unsafe { attribute(op, name).and_then(|raw| E::from_attribute(Attribute::from_raw(raw))) }
}

/// The value of a string attribute.
///
/// # Safety
/// `attribute` is a live `StringAttr`.
pub(super) unsafe fn string_value(attribute: MlirAttribute) -> String {
    // SAFETY: the caller's guarantee; the string is owned by the context.
    unsafe { owned(mlirStringAttrGetValue(attribute)) }
}

/// The symbol an op's `sym_name` names, empty when it has none.
///
/// # Safety
/// `op` is alive and its `sym_name`, if any, is a `StringAttr` (as for every symbol op).
pub(super) unsafe fn symbol_name(op: MlirOperation) -> String {
    // SAFETY: the caller's guarantee.
    unsafe {
        attribute(op, "sym_name")
            .map(|name| string_value(name))
            .unwrap_or_default()
    }
}

/// The symbol the op's flat symbol reference attribute `name` refers to (a call's callee, a
/// launch's kernel).
///
/// # Safety
/// `op` is alive and verified, and its attribute `name` is a `FlatSymbolRefAttr`.
pub(super) unsafe fn referenced_symbol(op: MlirOperation, name: &str) -> String {
    // SAFETY: the caller's guarantee; the symbol name is owned by the context.
    unsafe {
        let reference = attribute(op, name).expect("the op names its symbol");
        assert!(
            mlirAttributeIsAFlatSymbolRef(reference),
            "'{name}' is a flat symbol reference"
        );
        owned(mlirFlatSymbolRefAttrGetValue(reference))
    }
}

/// The values of the op's dense i64 array attribute `name`, or `default` when it is unset.
///
/// # Safety
/// `op` is alive and its attribute `name`, if set, is a `DenseI64ArrayAttr`.
pub(super) unsafe fn i64_array(op: MlirOperation, name: &str, default: &[i64]) -> Vec<i64> {
    // SAFETY: the caller's guarantee; indices stay below the element count.
    unsafe {
        match attribute(op, name) {
            Some(array) => (0..mlirDenseArrayGetNumElements(array))
                .map(|index| mlirDenseI64ArrayGetElement(array, index))
                .collect(),
            None => default.to_vec(),
        }
    }
}

/// The op's operands, in order.
pub(super) unsafe fn operands(op: MlirOperation) -> Vec<MlirValue> {
    // SAFETY: the op is alive; indices stay below the operand count.
    unsafe {
        (0..mlirOperationGetNumOperands(op))
            .map(|index| mlirOperationGetOperand(op, index))
            .collect()
    }
}

/// Every op nested in `root` (itself included), parents before children, collected before the
/// caller starts changing the IR.
///
/// # Safety
/// `root` is alive; the handles are valid until the ops they name are erased.
pub(super) unsafe fn walk(root: MlirOperation) -> Vec<MlirOperation> {
    crate::ir::Op(root)
        .collect_pre_order()
        .into_iter()
        .map(|op| op.0)
        .collect()
}

/// The op's enclosing `func.func`.
pub(super) unsafe fn enclosing_function(op: MlirOperation) -> Option<MlirOperation> {
    // SAFETY: the op and its ancestors are alive; the walk stops at the null parent of the top.
    unsafe {
        let mut parent = mlirOperationGetParentOperation(op);
        while !parent.ptr.is_null() {
            if op_name(parent) == "func.func" {
                return Some(parent);
            }
            parent = mlirOperationGetParentOperation(parent);
        }
    }
    None
}

/// The first block of a function's body (null for a declaration).
///
/// # Safety
/// `function` is an alive op with at least one region.
pub(super) unsafe fn entry_block(function: MlirOperation) -> MlirBlock {
    // SAFETY: the caller's guarantee.
    unsafe { mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0)) }
}

/// Whether the module already defines symbol `name`.
///
/// # Safety
/// `module` is an alive symbol table op.
pub(super) unsafe fn defines_symbol(module: MlirOperation, name: &str) -> bool {
    // SAFETY: the caller's guarantee; the table is destroyed before returning.
    unsafe {
        let table = mlirSymbolTableCreate(module);
        let found = !mlirSymbolTableLookup(table, string_ref(name)).ptr.is_null();
        mlirSymbolTableDestroy(table);
        found
    }
}

/// Emits `message` as an error at the op and returns the pass's failure.
pub(super) unsafe fn emit_error(op: MlirOperation, message: &str) -> PassFailure {
    // SAFETY: the op, and so its location, is alive.
    let location = unsafe { melior::ir::Location::from_raw(mlirOperationGetLocation(op)) };
    crate::ir::emit_error(location, message);
    PassFailure
}

/// How an error message shows a type to the user (never read back).
pub(super) unsafe fn shown(r#type: MlirType) -> String {
    // SAFETY: the caller's guarantee.
    unsafe { Type::from_raw(r#type) }.to_string()
}
