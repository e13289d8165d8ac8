//! What each host function takes besides its inputs and outputs: the weights and constants its
//! graph function defines, then those of every function it calls, directly or not.
//!
//! Only an entry function receives buffers from the driver, so a body that a branch or loop
//! calls (or a function calling itself) gets its weights and constants from its caller, which
//! takes them as parameters too. The sets are a fixpoint over the call graph, so recursion is
//! covered, and each function's list is its own parameters in op order followed by the others
//! sorted by key: a call site and the callee's lowering derive the same order from this table.

use crate::graph_view::{static_buffer_type, FunctionView, Node, TensorType};
use crate::ir::{block_arguments, string_ref, to_string, Op};
use crate::kernels::{
    emit::{Space, View},
    view::buffer_shape,
};
use melior::ir::AttributeLike;
use mlir_sys::*;
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::{dsa, graph, upstream};

/// What identifies a weight or constant across functions: a weight's name, or a constant's
/// flattened payload (attributes are uniqued, so equal payloads are one attribute).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum ParameterKey {
    Weight(String),
    Constant(usize),
}

/// A weight or constant parameter of a host function.
#[derive(Debug, Clone)]
pub(super) struct Parameter {
    pub key: ParameterKey,
    /// The argument attribute's name (`dsa.weight` or `dsa.constant`) and value.
    pub role: &'static str,
    pub value: MlirAttribute,
    /// The DDR buffer holding it.
    pub view: View,
    /// Where it is defined in the graph.
    pub location: MlirLocation,
}

/// Per graph function, by name: its weight and constant parameters, own ones first.
#[derive(Debug, Default)]
pub(crate) struct Signatures {
    parameters: BTreeMap<String, Vec<Parameter>>,
    own: BTreeMap<String, usize>,
    /// The functions each function calls.
    calls: BTreeMap<String, BTreeSet<String>>,
    /// The functions `graph-outline-control-flow` made of regions.
    outlined: BTreeSet<String>,
}

impl Signatures {
    /// The signatures of `functions` (every graph function of the module), of which `outlined`
    /// are bodies `graph-outline-control-flow` made, and of `lowered` (host functions another
    /// lowering made, by name, with their weight and constant parameters).
    pub(crate) fn of(
        functions: &[FunctionView],
        outlined: BTreeSet<String>,
        lowered: Vec<(String, Vec<Parameter>)>,
    ) -> Self {
        let mut own: BTreeMap<String, Vec<Parameter>> = functions
            .iter()
            .map(|view| (view.name.clone(), own_parameters(view)))
            .collect();
        own.extend(lowered);
        let calls: BTreeMap<String, BTreeSet<String>> = own
            .keys()
            .map(|name| {
                let called = functions
                    .iter()
                    .find(|view| &view.name == name)
                    .map(callees)
                    .unwrap_or_default();
                (name.clone(), called)
            })
            .collect();
        let mut needed: BTreeMap<String, BTreeMap<ParameterKey, Parameter>> = own
            .iter()
            .map(|(name, list)| {
                let keyed = list.iter().map(|p| (p.key.clone(), p.clone())).collect();
                (name.clone(), keyed)
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for (caller, callees) in &calls {
                for callee in callees {
                    let inherited: Vec<Parameter> = needed
                        .get(callee)
                        .map(|set| set.values().cloned().collect())
                        .unwrap_or_default();
                    let set = needed.get_mut(caller).expect("every function has a set");
                    for parameter in inherited {
                        if !set.contains_key(&parameter.key) {
                            set.insert(parameter.key.clone(), parameter);
                            changed = true;
                        }
                    }
                }
            }
        }
        let mut signatures = Signatures {
            calls: calls.clone(),
            outlined,
            ..Signatures::default()
        };
        for (name, list) in own {
            let own_keys: BTreeSet<&ParameterKey> = list.iter().map(|p| &p.key).collect();
            let extra: Vec<Parameter> = needed[&name]
                .values()
                .filter(|parameter| !own_keys.contains(&parameter.key))
                .cloned()
                .collect();
            signatures.own.insert(name.clone(), list.len());
            let mut all = list.clone();
            all.extend(extra);
            signatures.parameters.insert(name, all);
        }
        signatures
    }

    /// Every weight and constant parameter of function `name`, in order.
    pub(super) fn parameters(&self, name: &str) -> &[Parameter] {
        self.parameters.get(name).map_or(&[], Vec::as_slice)
    }

    /// The parameters function `name` takes only to pass them to its callees.
    pub(super) fn inherited(&self, name: &str) -> &[Parameter] {
        let own = self.own.get(name).copied().unwrap_or(0);
        self.parameters(name).get(own..).unwrap_or(&[])
    }

    /// Whether a call of `callee` from `caller` is a call of the model's that may recurse:
    /// `callee` is not a region's body and calls `caller` again, directly or not.
    pub(super) fn may_recurse(&self, caller: &str, callee: &str) -> bool {
        if self.outlined.contains(callee) {
            return false;
        }
        let mut seen = BTreeSet::new();
        let mut pending = vec![callee];
        while let Some(name) = pending.pop() {
            if name == caller {
                return true;
            }
            if seen.insert(name) {
                pending.extend(
                    self.calls
                        .get(name)
                        .into_iter()
                        .flatten()
                        .map(String::as_str),
                );
            }
        }
        false
    }

    /// Whether the module has a function `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.parameters.contains_key(name)
    }
}

/// The weight and constant parameters of `function` when it is a host function already (its
/// arguments are buffers): those its arguments' `dsa.weight` and `dsa.constant` attributes name,
/// in order. None for a graph function.
pub(super) fn lowered_parameters(function: Op) -> Option<Vec<Parameter>> {
    let block = function.entry_block()?;
    let arguments = block_arguments(block);
    let types: Vec<TensorType> = arguments
        .iter()
        .map(|argument| static_buffer_type(argument.r#type()))
        .collect::<Option<_>>()?;
    if types.is_empty() {
        // No argument to tell by: a host function launches kernels, a graph function does not.
        let launches = function
            .body_ops()
            .iter()
            .any(|op| op.is(dsa::Kind::Launch));
        return launches.then(Vec::new);
    }
    let attributes = function.attribute("arg_attrs")?.to_raw();
    let mut parameters = Vec::new();
    for (index, (argument, r#type)) in arguments.iter().zip(types).enumerate() {
        // SAFETY: a func.func's `arg_attrs` is an array of one dictionary per argument.
        let dictionary = unsafe { mlirArrayAttrGetElement(attributes, index as isize) };
        for (role, weight) in [("dsa.weight", true), ("dsa.constant", false)] {
            // SAFETY: the dictionary is alive; MLIR reads the name during the call.
            let value = unsafe { mlirDictionaryAttrGetElementByName(dictionary, string_ref(role)) };
            if value.ptr.is_null() {
                continue;
            }
            let key = if weight {
                // SAFETY: a `dsa.weight` argument attribute is a string attribute, whose
                // characters live with the context.
                ParameterKey::Weight(unsafe { to_string(mlirStringAttrGetValue(value)) })
            } else {
                ParameterKey::Constant(value.ptr as usize)
            };
            parameters.push(Parameter {
                key,
                role,
                value,
                view: View::contiguous_of(&r#type.shape, Space::Ddr, r#type.element_type),
                location: argument.location(),
            });
        }
    }
    Some(parameters)
}

/// The weights and constants `view` defines, in op order.
fn own_parameters(view: &FunctionView) -> Vec<Parameter> {
    view.ops.iter().filter_map(parameter_of).collect()
}

/// The parameter a `graph.weight` or `graph.constant` node defines.
fn parameter_of(node: &Node) -> Option<Parameter> {
    let (_, r#type) = node.results.first()?;
    let view = View::contiguous_of(
        &buffer_shape(&r#type.shape),
        Space::Ddr,
        r#type.element_type,
    );
    let location = node.op.location();
    match node.graph_kind()? {
        graph::Kind::Weight => {
            let name = node.string("name")?;
            Some(Parameter {
                key: ParameterKey::Weight(name.to_string()),
                role: "dsa.weight",
                value: crate::ir::string_attribute(node.op.context(), name),
                view,
                location,
            })
        }
        graph::Kind::Constant => {
            let value = node.constant()?.flattened();
            Some(Parameter {
                key: ParameterKey::Constant(value.ptr as usize),
                role: "dsa.constant",
                value,
                view,
                location,
            })
        }
        _ => None,
    }
}

/// The functions `view` calls, at its top level or in the regions of its ops.
fn callees(view: &FunctionView) -> BTreeSet<String> {
    view.ops
        .iter()
        .flat_map(|node| node.op.collect_pre_order())
        .filter(|op| op.is(upstream::Kind::FuncCall))
        .filter_map(|op| op.symbol_reference("callee"))
        .collect()
}
