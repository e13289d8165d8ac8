//! Finding a rule's source pattern in a function: every set of ops that the pattern's ops map onto
//! one to one, with the wildcards bound to the values entering it.
//!
//! The pattern's ops are visited from the last to the first, so each op but the pattern's roots is
//! fixed by the operand edge of a consumer already matched; only roots are searched among the
//! function's ops of the same name. A match is kept only if it can be replaced: the values that
//! stay inside it are read only inside it (but for constants, which stay for their other readers)
//! (MetaFlow's external edges are the pattern's inputs and outputs), and no input depends on its
//! outputs (the target would read its own result).

use super::rule::{PatternOp, PatternValue, Rule};
use super::sizes::Env;
use super::sizes::{bindings, expand};
use crate::graph_view::{ElementType, FunctionView, ValueId};
use crate::ir::{to_string, Op};
use mlir_sys::*;
use petgraph::visit::{Dfs, NodeFiltered, Walker};
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// One occurrence of a rule's source.
#[derive(Debug, Clone)]
pub struct Match {
    /// The function op (index into [`FunctionView::ops`]) of each pattern op.
    pub ops: Vec<usize>,
    /// The value bound to each wildcard.
    pub arguments: Vec<ValueId>,
    /// Sizes and integer values bound by name.
    pub sizes: Env,
    /// Attributes bound by name (a null attribute: the matched op has none).
    pub attributes: BTreeMap<String, MlirAttribute>,
}

impl Match {
    /// The op a rewrite is reported at: the producer of the source's first result.
    pub fn anchor(&self, rule: &Rule) -> usize {
        rule.source
            .results
            .iter()
            .find_map(|result| match result {
                PatternValue::Result(op, _) => Some(self.ops[*op]),
                PatternValue::Argument(_) => None,
            })
            .unwrap_or(self.ops[0])
    }
}

#[derive(Clone)]
struct State {
    ops: Vec<Option<usize>>,
    arguments: Vec<Option<ValueId>>,
    used: BTreeSet<usize>,
    attributes: BTreeMap<String, MlirAttribute>,
    sizes: Env,
}

/// Every occurrence of `rule`'s source in `view` (at most `limit`).
pub fn find(rule: &Rule, view: &FunctionView, limit: usize) -> Vec<Match> {
    let state = State {
        ops: vec![None; rule.source.ops.len()],
        arguments: vec![None; rule.arguments.len()],
        used: BTreeSet::new(),
        attributes: BTreeMap::new(),
        sizes: Env::new(),
    };
    let mut found = Vec::new();
    extend(rule, view, 0, state, &mut found, limit);
    found
}

fn extend(
    rule: &Rule,
    view: &FunctionView,
    visited: usize,
    mut state: State,
    found: &mut Vec<Match>,
    limit: usize,
) {
    if found.len() >= limit {
        return;
    }
    let pattern = &rule.source.ops;
    if visited == pattern.len() {
        if let Some(complete) = complete(rule, view, state) {
            found.push(complete);
        }
        return;
    }
    let index = pattern.len() - 1 - visited;
    match state.ops[index] {
        Some(op) => {
            if bind_op(&pattern[index], op, view, &mut state, pattern) {
                extend(rule, view, visited + 1, state, found, limit);
            }
        }
        None => {
            // A root that reads a wildcard already bound can only be one of that value's readers;
            // otherwise any op of its kind. Later roots are tried against later ops first, so that
            // a symmetric pattern (two merged siblings) maps in block order.
            let bound_input = pattern[index]
                .operands
                .iter()
                .find_map(|operand| match operand {
                    PatternValue::Argument(argument) => state.arguments[*argument],
                    PatternValue::Result(..) => None,
                });
            let candidates: Vec<usize> = match bound_input {
                Some(value) => view.readers(value).to_vec(),
                None => (0..view.ops.len()).collect(),
            };
            for op in candidates.into_iter().rev() {
                let node = &view.ops[op];
                if !node.is(pattern[index].kind) || state.used.contains(&op) {
                    continue;
                }
                let mut candidate = state.clone();
                candidate.ops[index] = Some(op);
                candidate.used.insert(op);
                if bind_op(&pattern[index], op, view, &mut candidate, pattern) {
                    extend(rule, view, visited + 1, candidate, found, limit);
                }
            }
        }
    }
}

/// Checks op `op` against `pattern_op` and binds its operands: wildcards to values, pattern
/// producers to the ops that define them.
fn bind_op(
    pattern_op: &PatternOp,
    op: usize,
    view: &FunctionView,
    state: &mut State,
    pattern: &[PatternOp],
) -> bool {
    let node = &view.ops[op];
    if !node.is(pattern_op.kind)
        || node.operands.len() != pattern_op.operands.len()
        || node.results.len() != pattern_op.result_count
        || node.has_regions
        || !leaf_types_agree(
            pattern_op,
            &(0..node.results.len())
                .map(|result| node.op.result(result).r#type())
                .collect::<Vec<_>>(),
        )
        || !bind_attributes(pattern_op, node.op, state)
    {
        return false;
    }
    for (&wanted, &value) in pattern_op.operands.iter().zip(&node.operands) {
        match wanted {
            PatternValue::Argument(argument) => match state.arguments[argument] {
                Some(bound) if bound != value => return false,
                _ => state.arguments[argument] = Some(value),
            },
            PatternValue::Result(producer, result) => {
                let Some(defining) = view.producer(value) else {
                    return false;
                };
                if view.ops[defining].results.get(result).map(|(id, _)| *id) != Some(value)
                    || !view.ops[defining].is(pattern[producer].kind)
                {
                    return false;
                }
                match state.ops[producer] {
                    Some(bound) if bound != defining => return false,
                    Some(_) => {}
                    None => {
                        // Two pattern constants may be one constant (`c + c`): it stays anyway.
                        if !state.used.insert(defining)
                            && !view.ops[defining].is(graph::Kind::Constant)
                        {
                            return false;
                        }
                        state.ops[producer] = Some(defining);
                    }
                }
            }
        }
    }
    true
}

/// A pattern op without operands (a constant whose value the rule binds) leaves its type free,
/// unlike any other op, whose types follow from its operands': so it matches only its own
/// types. (A splat index `[1, 1]` taken for the scalar `1` gathered two slices.)
pub fn leaf_types_agree(pattern_op: &PatternOp, types: &[MlirType]) -> bool {
    if !pattern_op.operands.is_empty() {
        return true;
    }
    // SAFETY: live types of one context are uniqued; the rule's op is alive.
    types.len() == pattern_op.result_count
        && types.iter().enumerate().all(|(result, r#type)| unsafe {
            mlirTypeEqual(*r#type, pattern_op.op.result(result).r#type())
        })
}

/// Written attributes must be equal and the only ones; bound ones bind (or must equal) a name.
fn bind_attributes(pattern_op: &PatternOp, op: Op, state: &mut State) -> bool {
    bind_attribute_list(
        pattern_op,
        &attributes_of(op),
        &mut state.attributes,
        &mut state.sizes,
    )
}

/// The attributes of `op`, by name.
pub fn attributes_of(op: Op) -> Vec<(String, MlirAttribute)> {
    // SAFETY: a live op.
    unsafe {
        (0..mlirOperationGetNumAttributes(op.raw()))
            .map(|index| {
                let named = mlirOperationGetAttribute(op.raw(), index);
                (to_string(mlirIdentifierStr(named.name)), named.attribute)
            })
            .collect()
    }
}

/// [`bind_attributes`] for an op with attributes `actual`, binding into `attributes` and `sizes`.
pub fn bind_attribute_list(
    pattern_op: &PatternOp,
    actual: &[(String, MlirAttribute)],
    attributes: &mut BTreeMap<String, MlirAttribute>,
    sizes: &mut Env,
) -> bool {
    let get = |name: &str| {
        actual.iter().find(|(key, _)| key == name).map_or(
            MlirAttribute {
                ptr: std::ptr::null(),
            },
            |(_, value)| *value,
        )
    };
    // SAFETY: attributes of one context are uniqued, so equal ones are identical.
    let equal = |a: MlirAttribute, b: MlirAttribute| unsafe { mlirAttributeEqual(a, b) };
    for (name, attribute) in &pattern_op.written {
        let value = get(name);
        if value.ptr.is_null() || !equal(value, *attribute) {
            return false;
        }
    }
    for (name, _) in actual {
        let known = pattern_op
            .written
            .iter()
            .any(|(written, _)| written == name)
            || pattern_op.bound.iter().any(|(bound, _)| bound == name)
            || pattern_op
                .computed
                .iter()
                .any(|(computed, _)| computed == name);
        // Discardable attributes (dialect-prefixed) carry no semantics of the op.
        if !known && !name.contains('.') {
            return false;
        }
    }
    for (attribute, list) in &pattern_op.computed {
        match integers_of(get(attribute)) {
            Some(values) => sizes.require(list, values),
            None => return false,
        }
    }
    for (attribute, name) in &pattern_op.bound {
        let value = get(attribute);
        match attributes.get(name) {
            Some(bound) if bound.ptr.is_null() != value.ptr.is_null() => return false,
            Some(bound) if !bound.ptr.is_null() && !equal(*bound, value) => return false,
            Some(_) => {}
            None => {
                attributes.insert(name.clone(), value);
                if let Some(integer) = integer_value(value) {
                    if !sizes.bind(name, integer) {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// Whether a matched op's result shapes are those its pattern op's `rule.shape` requires; a
/// bare name or a group not bound yet is bound to what it meets.
pub fn shapes_agree(pattern_op: &PatternOp, shapes: &[Vec<usize>], sizes: &mut Env) -> bool {
    let Some(required) = &pattern_op.shapes else {
        return true;
    };
    required.iter().zip(shapes).all(|(dims, shape)| {
        let shape: Vec<i64> = shape.iter().map(|&size| size as i64).collect();
        let agreeing = bindings(dims, &shape, sizes)
            .into_iter()
            .find(|candidate| expand(dims, candidate).as_ref() == Some(&shape));
        agreeing.map(|candidate| *sizes = candidate).is_some()
    })
}

/// Binds the sizes and groups the wildcards' types give (`types`: shape and element type of
/// each) and checks the rule's dimensions, its conditions and the attributes its source
/// computes: under the first split of the shapes among the groups for which all hold.
pub fn bind_argument_types(
    rule: &Rule,
    types: &[(Vec<usize>, ElementType)],
    sizes: &mut Env,
) -> bool {
    let elements_agree = rule
        .arguments
        .iter()
        .zip(types)
        .all(|(argument, (_, element))| *element == ElementType::of(argument.element));
    if !elements_agree {
        return false;
    }
    let shapes: Vec<Vec<i64>> = types
        .iter()
        .map(|(shape, _)| shape.iter().map(|&size| size as i64).collect())
        .collect();
    match bind_arguments_from(rule, &shapes, 0, sizes.clone()) {
        Some(bound) => {
            *sizes = bound;
            true
        }
        None => false,
    }
}

/// [`bind_argument_types`] from argument `index` on, with what the earlier ones bound in `env`.
fn bind_arguments_from(rule: &Rule, shapes: &[Vec<i64>], index: usize, env: Env) -> Option<Env> {
    let Some(argument) = rule.arguments.get(index) else {
        let dims_hold = rule.arguments.iter().zip(shapes).all(|(argument, shape)| {
            argument
                .dims
                .as_ref()
                .is_none_or(|dims| expand(dims, &env).as_ref() == Some(shape))
        });
        let holds = dims_hold
            && env.requirements_hold()
            && rule
                .conditions
                .iter()
                .all(|condition| condition.holds(&env));
        return holds.then_some(env);
    };
    let Some(dims) = &argument.dims else {
        return bind_arguments_from(rule, shapes, index + 1, env);
    };
    bindings(dims, &shapes[index], &env)
        .into_iter()
        .find_map(|candidate| bind_arguments_from(rule, shapes, index + 1, candidate))
}

/// The integer an attribute holds: an integer attribute, or an integer splat.
pub fn integer_value(attribute: MlirAttribute) -> Option<i64> {
    // SAFETY: a live attribute (or null); kinds are checked before values are read.
    unsafe {
        if attribute.ptr.is_null() {
            None
        } else if mlirAttributeIsAInteger(attribute) {
            Some(mlirIntegerAttrGetValueInt(attribute))
        } else if mlirAttributeIsADenseElements(attribute)
            && mlirDenseElementsAttrIsSplat(attribute)
        {
            let element = mlirDenseElementsAttrGetSplatValue(attribute);
            mlirAttributeIsAInteger(element).then(|| mlirIntegerAttrGetValueInt(element))
        } else {
            None
        }
    }
}

/// The integers an attribute holds: an integer, an integer array, or integer elements (one for
/// a splat); None for anything else.
pub fn integers_of(attribute: MlirAttribute) -> Option<Vec<i64>> {
    // SAFETY: a live attribute (or null); kinds are checked before values are read.
    unsafe {
        if attribute.ptr.is_null() {
            None
        } else if mlirAttributeIsADenseI64Array(attribute) {
            Some(
                (0..mlirDenseArrayGetNumElements(attribute))
                    .map(|index| mlirDenseI64ArrayGetElement(attribute, index))
                    .collect(),
            )
        } else if mlirAttributeIsADenseIntElements(attribute)
            && !mlirDenseElementsAttrIsSplat(attribute)
        {
            Some(
                (0..mlirElementsAttrGetNumElements(attribute) as isize)
                    .map(|index| mlirDenseElementsAttrGetInt64Value(attribute, index))
                    .collect(),
            )
        } else {
            integer_value(attribute).map(|value| vec![value])
        }
    }
}

/// The checks that need the whole match: wildcard types and sizes, conditions, values that must
/// stay inside, and no input that depends on an output.
fn complete(rule: &Rule, view: &FunctionView, mut state: State) -> Option<Match> {
    let arguments: Vec<ValueId> = state
        .arguments
        .iter()
        .map(|a| a.expect("every wildcard is read by the source"))
        .collect();
    let types: Vec<(Vec<usize>, ElementType)> = arguments
        .iter()
        .map(|&value| {
            (
                view.type_of(value).shape.clone(),
                view.type_of(value).element_type,
            )
        })
        .collect();
    if !bind_argument_types(rule, &types, &mut state.sizes) {
        return None;
    }
    for (pattern_op, op) in rule.source.ops.iter().zip(&state.ops) {
        let shapes: Vec<Vec<usize>> = view.ops[op.expect("matched")]
            .results
            .iter()
            .map(|(_, r#type)| r#type.shape.clone())
            .collect();
        if !shapes_agree(pattern_op, &shapes, &mut state.sizes) {
            return None;
        }
    }
    let ops: Vec<usize> = state
        .ops
        .iter()
        .map(|op| op.expect("every pattern op is matched"))
        .collect();
    for (index, &op) in ops.iter().enumerate() {
        for (result, (value, _)) in view.ops[op].results.iter().enumerate() {
            let escapes = view
                .readers(*value)
                .iter()
                .any(|reader| !state.used.contains(reader));
            // A matched constant read elsewhere too stays for its other readers.
            let shared_constant = view.ops[op].is(graph::Kind::Constant);
            if escapes
                && !shared_constant
                && !rule
                    .source
                    .results
                    .contains(&PatternValue::Result(index, result))
            {
                return None;
            }
        }
    }
    // No wildcard may be computed from the match's own results. Block order is topological, so
    // a path to an argument's producer only passes ops before it: the search stops at the last.
    if let Some(last) = arguments
        .iter()
        .filter_map(|&value| view.producer(value))
        .max()
    {
        let before_last = NodeFiltered::from_fn(&view.graph, |node| node.index() <= last);
        let mut dfs = Dfs::empty(&before_last);
        dfs.stack
            .extend(ops.iter().map(|&op| FunctionView::node_index(op)));
        let downstream: BTreeSet<usize> = dfs.iter(&before_last).map(|node| node.index()).collect();
        if arguments.iter().any(|&value| {
            view.producer(value)
                .is_some_and(|producer| downstream.contains(&producer))
        }) {
            return None;
        }
    }
    let sizes = std::mem::take(&mut state.sizes);
    Some(Match {
        ops,
        arguments,
        sizes,
        attributes: state.attributes,
    })
}
