//! Reading a module: the function to interpret, chosen by name, and every function it calls.

use super::{string_from, Block, Function, Program, Reader};
use crate::error::InterpretError;
use mlir_sys::*;
use std::collections::BTreeMap;

/// The `func.func` ops of a module, by name, in order.
type Functions = Vec<(String, MlirOperation)>;

impl Program {
    /// Reads the function `name` (by default `main`, or the module's only function) of `module`,
    /// and the functions it calls ([`Program::callees`]).
    ///
    /// # Safety
    ///
    /// `module` must be a valid, verified `builtin.module` operation that outlives this call.
    pub unsafe fn from_module(
        module: MlirOperation,
        name: Option<&str>,
    ) -> Result<Program, InterpretError> {
        // SAFETY: the caller's guarantee.
        unsafe { Self::read(module, name, true) }
    }

    /// Like [`Program::from_module`], without reading the elements of constants (they read as
    /// [`super::Attr::Elided`]): for analyses of the graph's structure, which must not expand a
    /// splat constant of a large tensor.
    ///
    /// # Safety
    ///
    /// As for [`Program::from_module`].
    pub unsafe fn structure_of(
        module: MlirOperation,
        name: Option<&str>,
    ) -> Result<Program, InterpretError> {
        // SAFETY: the caller's guarantee.
        unsafe { Self::read(module, name, false) }
    }

    unsafe fn read(
        module: MlirOperation,
        name: Option<&str>,
        payloads: bool,
    ) -> Result<Program, InterpretError> {
        // SAFETY: the caller guarantees the module is valid; everything read from it is alive
        // while it is.
        unsafe {
            let functions = functions(module);
            let (entry_name, entry_op) = choose(&functions, name)?;
            if is_declaration(*entry_op) {
                return Err(InterpretError::Inputs(format!(
                    "@{entry_name} is only a declaration"
                )));
            }
            let entry = read_function(entry_name, *entry_op, payloads)?;
            let callees = read_callees(&entry, &functions, payloads)?;
            let weights = mlirOperationGetAttributeByName(
                module,
                mlirStringRefCreateFromCString(c"graph.weights".as_ptr()),
            );
            let weights_file = (!weights.ptr.is_null() && mlirAttributeIsAString(weights))
                .then(|| string_from(mlirStringAttrGetValue(weights)));
            Ok(Program {
                name: entry.name,
                body: entry.body,
                weights_file,
                value_count: entry.value_count,
                callees,
            })
        }
    }
}

/// The `func.func` ops of `module`.
///
/// # Safety
/// `module` is a live `builtin.module`.
unsafe fn functions(module: MlirOperation) -> Functions {
    let mut functions = Vec::new();
    // SAFETY: the caller's guarantee.
    unsafe {
        let body = mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0));
        let mut op = mlirBlockGetFirstOperation(body);
        while !op.ptr.is_null() {
            if string_from(mlirIdentifierStr(mlirOperationGetName(op))) == "func.func" {
                let symbol = mlirOperationGetAttributeByName(
                    op,
                    mlirStringRefCreateFromCString(c"sym_name".as_ptr()),
                );
                functions.push((string_from(mlirStringAttrGetValue(symbol)), op));
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    functions
}

/// The function `name` names, or by default `main`, or the only function there is.
fn choose<'f>(
    functions: &'f Functions,
    name: Option<&str>,
) -> Result<&'f (String, MlirOperation), InterpretError> {
    let chosen = match name {
        Some(name) => functions.iter().find(|(candidate, _)| candidate == name),
        None => functions
            .iter()
            .find(|(candidate, _)| candidate == "main")
            .or(if functions.len() == 1 {
                functions.first()
            } else {
                None
            }),
    };
    chosen.ok_or_else(|| {
        let names: Vec<&str> = functions.iter().map(|(name, _)| name.as_str()).collect();
        InterpretError::Inputs(format!(
            "no function {} in the module (it has {names:?}); name one",
            name.map(|name| format!("@{name}"))
                .unwrap_or_else(|| "@main".into())
        ))
    })
}

/// Whether `function` is an external declaration (a `func.func` without a body).
///
/// # Safety
/// `function` is a live `func.func`.
unsafe fn is_declaration(function: MlirOperation) -> bool {
    // SAFETY: the caller's guarantee.
    unsafe {
        mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0))
            .ptr
            .is_null()
    }
}

/// Reads the body of `function`, named `name`, with value ids of its own.
///
/// # Safety
/// `function` is a live `func.func` with a body.
unsafe fn read_function(
    name: &str,
    function: MlirOperation,
    payloads: bool,
) -> Result<Function, InterpretError> {
    let mut reader = Reader {
        ids: Default::default(),
        payloads,
    };
    // SAFETY: the caller's guarantee.
    let body =
        unsafe { reader.block(mlirRegionGetFirstBlock(mlirOperationGetRegion(function, 0))) }?;
    Ok(Function {
        name: name.to_owned(),
        body,
        value_count: reader.ids.len(),
    })
}

/// Every function that `entry` calls, directly or through other callees, read from
/// `functions`; `entry` itself among them when a call reaches it. A call to a function that is
/// not in the module or is only a declaration is an error at the call's location; an error
/// reading a callee names it.
///
/// # Safety
/// The ops of `functions` are live `func.func`s.
unsafe fn read_callees(
    entry: &Function,
    functions: &Functions,
    payloads: bool,
) -> Result<BTreeMap<String, Function>, InterpretError> {
    let mut callees = BTreeMap::new();
    let mut pending = Vec::new();
    calls(&entry.body, &mut pending);
    let mut next = 0;
    while let Some((callee, location)) = pending.get(next).cloned() {
        next += 1;
        if callees.contains_key(&callee) {
            continue;
        }
        let unsupported = |message: String| InterpretError::Unsupported {
            location: location.clone(),
            message,
        };
        let function = if callee == entry.name {
            entry.clone()
        } else {
            let Some((_, op)) = functions.iter().find(|(name, _)| *name == callee) else {
                return Err(unsupported(format!(
                    "call to @{callee}, which is not a function of the module"
                )));
            };
            // SAFETY: the caller's guarantee.
            if unsafe { is_declaration(*op) } {
                return Err(unsupported(format!(
                    "call to @{callee}, which is only a declaration (the interpreter runs \
                     functions with a body)"
                )));
            }
            // SAFETY: the caller's guarantee; the function has a body.
            unsafe { read_function(&callee, *op, payloads) }
                .map_err(|error| within(error, &callee))?
        };
        calls(&function.body, &mut pending);
        callees.insert(callee, function);
    }
    Ok(callees)
}

/// Appends the callee and location of every `func.call` in `block` and its regions.
fn calls(block: &Block, found: &mut Vec<(String, String)>) {
    for node in &block.ops {
        if node.name == "func.call" {
            if let Some(super::Attr::Symbol(callee)) = node.attributes.get("callee") {
                found.push((callee.clone(), node.location.clone()));
            }
        }
        for region in &node.regions {
            calls(region, found);
        }
    }
}

/// `error`, found reading the function `function`, saying so.
fn within(error: InterpretError, function: &str) -> InterpretError {
    match error {
        InterpretError::Unsupported { location, message } => InterpretError::Unsupported {
            location,
            message: format!("in @{function}: {message}"),
        },
        InterpretError::Runtime { location, message } => InterpretError::Runtime {
            location,
            message: format!("in @{function}: {message}"),
        },
        other => other,
    }
}
