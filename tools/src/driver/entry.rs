//! Which functions of a graph module are compiled: the entry the user names (by default `main`,
//! or the module's only public function) and every function it calls, directly or through the
//! bodies of branches and loops. Other functions are dropped before compiling, so that another
//! function's unsupported op or long lowering does not fail or slow the run.

use melior::ir::{block::BlockLike, operation::OperationLike, Module};
use mlir_sys::*;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CStr;
use turbine_dialects::ops::{upstream, OpKind};

/// A function of the module: its name, whether it is public, and the functions it calls.
struct Function {
    name: String,
    public: bool,
    callees: BTreeSet<String>,
}

/// Chooses the entry (`requested`, else `main` or the only public function), erases every
/// function it does not reach through calls, and returns the entry's name.
pub(super) fn keep_entry(module: &Module, requested: Option<&str>) -> Result<String, String> {
    let functions = read_functions(module);
    let names: Vec<&str> = functions.iter().map(|f| f.name.as_str()).collect();
    let public: Vec<&str> = functions
        .iter()
        .filter(|f| f.public)
        .map(|f| f.name.as_str())
        .collect();
    let entry = match requested {
        Some(name) => name.to_owned(),
        None if public.len() == 1 => public[0].to_owned(),
        None if names.contains(&"main") => "main".into(),
        None => {
            return Err(format!(
                "the module has functions {names:?}; name the one to run"
            ))
        }
    };
    if !names.contains(&entry.as_str()) {
        return Err(format!(
            "no function @{entry} in the module (it has {names:?})"
        ));
    }
    let calls: BTreeMap<&str, &BTreeSet<String>> = functions
        .iter()
        .map(|f| (f.name.as_str(), &f.callees))
        .collect();
    let mut reached: BTreeSet<String> = BTreeSet::from([entry.clone()]);
    let mut pending = vec![entry.clone()];
    while let Some(name) = pending.pop() {
        for callee in calls
            .get(name.as_str())
            .into_iter()
            .flat_map(|set| set.iter())
        {
            if reached.insert(callee.clone()) {
                pending.push(callee.clone());
            }
        }
    }
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        op = function.next_in_block();
        if super::symbol_name(&function).is_some_and(|name| !reached.contains(&name)) {
            // SAFETY: the function is alive and no function that stays calls it; erasing it
            // ends its handle.
            unsafe { mlirOperationDestroy(function.to_raw()) };
        }
    }
    Ok(entry)
}

/// The module's symbols that are functions, with their visibility and callees.
fn read_functions(module: &Module) -> Vec<Function> {
    let mut functions = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        op = function.next_in_block();
        let Some(name) = super::symbol_name(&function) else {
            continue;
        };
        let public = function
            .attribute("sym_visibility")
            .ok()
            .and_then(|value| melior::ir::attribute::StringAttribute::try_from(value).ok())
            .is_none_or(|value| value.value() == "public");
        functions.push(Function {
            name,
            public,
            callees: callees(function.to_raw()),
        });
    }
    functions
}

/// The functions the `func.call` ops nested in `op` call.
fn callees(op: MlirOperation) -> BTreeSet<String> {
    references(op, OpKind::Upstream(upstream::Kind::FuncCall), c"callee")
}

/// The symbols the ops of `kind` nested in `op` name in their flat symbol reference
/// `attribute`.
pub(super) fn references(op: MlirOperation, kind: OpKind, attribute: &CStr) -> BTreeSet<String> {
    struct Walk<'a> {
        kind: OpKind,
        attribute: &'a CStr,
        found: BTreeSet<String>,
    }
    unsafe extern "C" fn visit(op: MlirOperation, data: *mut std::ffi::c_void) -> MlirWalkResult {
        // SAFETY: `data` is the walk below, alive for the walk; `op` is alive during it.
        unsafe {
            let walk = &mut *data.cast::<Walk>();
            let name = super::string(mlirIdentifierStr(mlirOperationGetName(op)));
            if OpKind::from_name(&name) == Some(walk.kind) {
                let reference = mlirOperationGetAttributeByName(
                    op,
                    mlirStringRefCreateFromCString(walk.attribute.as_ptr()),
                );
                if !reference.ptr.is_null() && mlirAttributeIsAFlatSymbolRef(reference) {
                    walk.found
                        .insert(super::string(mlirFlatSymbolRefAttrGetValue(reference)));
                }
            }
        }
        MlirWalkResult_MlirWalkResultAdvance
    }
    let mut walk = Walk {
        kind,
        attribute,
        found: BTreeSet::new(),
    };
    // SAFETY: the op is alive; the callback only reads ops and records names.
    unsafe {
        mlirOperationWalk(
            op,
            Some(visit),
            (&mut walk as *mut Walk).cast(),
            MlirWalkOrder_MlirWalkPreOrder,
        )
    };
    walk.found
}
