//! Matching a rule's source pattern in the e-graph: its first root at every e-class, its other
//! roots (the merges of parallel operators) among the readers of the e-classes the match has
//! bound, each op by its key and its operands' e-classes.

use super::language::{attribute_handle, tensor_type, type_handle, Graph, Key, Term};
use crate::graph_view::ElementType;
use crate::substitute::matcher::{
    bind_argument_types, bind_attribute_list, leaf_types_agree, shapes_agree,
};
use crate::substitute::rule::{PatternValue, Rule};
use crate::substitute::sizes::Env;
use egg::{EGraph, Id};
use mlir_sys::*;
use std::collections::BTreeMap;

/// The pattern ops whose results a rule's source returns (one each), None for rules that return
/// something else (a wildcard, a second result of an op).
pub(super) fn roots_of(rule: &Rule) -> Option<Vec<usize>> {
    let mut roots = Vec::new();
    for result in &rule.source.results {
        match result {
            PatternValue::Result(op, 0)
                if rule.source.ops[*op].result_count == 1 && !roots.contains(op) =>
            {
                roots.push(*op)
            }
            _ => return None,
        }
    }
    Some(roots)
}

/// A match in the e-graph: the matched e-classes (one per result of the source) and what the
/// match binds.
#[derive(Debug, Clone)]
pub(super) struct Found {
    pub(super) roots: Vec<Id>,
    pub(super) state: State,
}

#[derive(Debug, Clone)]
pub(super) struct State {
    pub(super) ops: Vec<Option<Id>>,
    pub(super) arguments: Vec<Option<Id>>,
    pub(super) attributes: BTreeMap<String, MlirAttribute>,
    pub(super) sizes: Env,
}

/// Matches of `rule` at every e-class.
pub(super) fn find(egraph: &EGraph<Term, Graph>, rule: &Rule) -> Vec<Found> {
    let roots = roots_of(rule).expect("only rules with roots are searched");
    let empty = State {
        ops: vec![None; rule.source.ops.len()],
        arguments: vec![None; rule.arguments.len()],
        attributes: BTreeMap::new(),
        sizes: Env::new(),
    };
    let mut found = Vec::new();
    for class in egraph.classes() {
        for state in match_op(egraph, rule, roots[0], class.id, empty.clone()) {
            for (mut state, classes) in more_roots(
                egraph,
                rule,
                &roots[1..],
                state,
                vec![egraph.find(class.id)],
            ) {
                let types: Option<Vec<(Vec<usize>, ElementType)>> = state
                    .arguments
                    .iter()
                    .map(|argument| argument.and_then(|id| tensor_type(egraph, id)))
                    .collect();
                if let Some(types) = types {
                    if bind_argument_types(rule, &types, &mut state.sizes)
                        && op_shapes_agree(egraph, rule, &mut state)
                    {
                        found.push(Found {
                            roots: classes,
                            state,
                        });
                    }
                }
            }
        }
    }
    found
}

/// Whether the matched ops' shapes are those the source's `rule.shape`s require (a multi-result
/// op's class holds no value: only one-result ops can carry one).
fn op_shapes_agree(egraph: &EGraph<Term, Graph>, rule: &Rule, state: &mut State) -> bool {
    rule.source
        .ops
        .iter()
        .zip(&state.ops)
        .all(|(pattern_op, class)| {
            pattern_op.shapes.is_none()
                || class
                    .and_then(|class| tensor_type(egraph, class))
                    .is_some_and(|(shape, _)| shapes_agree(pattern_op, &[shape], &mut state.sizes))
        })
}

/// Extends a match to the source's other roots, each at another e-class: among the readers of a
/// wildcard the match has bound when the root reads one, else anywhere.
fn more_roots(
    egraph: &EGraph<Term, Graph>,
    rule: &Rule,
    roots: &[usize],
    state: State,
    classes: Vec<Id>,
) -> Vec<(State, Vec<Id>)> {
    let Some((&root, rest)) = roots.split_first() else {
        return vec![(state, classes)];
    };
    let bound_input = rule.source.ops[root]
        .operands
        .iter()
        .find_map(|operand| match operand {
            PatternValue::Argument(argument) => state.arguments[*argument],
            PatternValue::Result(..) => None,
        });
    let mut candidates: Vec<Id> = match bound_input {
        Some(input) => egraph[input]
            .parents()
            .map(|parent| egraph.find(parent))
            .collect(),
        None => egraph.classes().map(|class| class.id).collect(),
    };
    candidates.sort_unstable();
    candidates.dedup();
    let mut extended = Vec::new();
    for candidate in candidates
        .into_iter()
        .filter(|candidate| !classes.contains(candidate))
    {
        for next in match_op(egraph, rule, root, candidate, state.clone()) {
            let mut classes = classes.clone();
            classes.push(candidate);
            extended.extend(more_roots(egraph, rule, rest, next, classes));
        }
    }
    extended
}

fn match_op(
    egraph: &EGraph<Term, Graph>,
    rule: &Rule,
    op: usize,
    class: Id,
    state: State,
) -> Vec<State> {
    let class = egraph.find(class);
    if let Some(bound) = state.ops[op] {
        return if egraph.find(bound) == class {
            vec![state]
        } else {
            Vec::new()
        };
    }
    let pattern = &rule.source.ops[op];
    let mut matched = Vec::new();
    for node in &egraph[class].nodes {
        let Key::Op {
            name,
            attributes,
            results,
        } = &egraph.analysis.keys[node.key as usize]
        else {
            continue;
        };
        let types: Vec<MlirType> = results.iter().map(|&t| type_handle(t)).collect();
        if name != pattern.kind.name()
            || results.len() != pattern.result_count
            || node.children.len() != pattern.operands.len()
            || !leaf_types_agree(pattern, &types)
        {
            continue;
        }
        let mut next = state.clone();
        next.ops[op] = Some(class);
        let actual: Vec<(String, MlirAttribute)> = attributes
            .iter()
            .map(|(name, value)| (name.clone(), attribute_handle(*value)))
            .collect();
        if !bind_attribute_list(pattern, &actual, &mut next.attributes, &mut next.sizes) {
            continue;
        }
        let mut states = vec![next];
        for (operand, &child) in pattern.operands.iter().zip(&node.children) {
            states = states
                .into_iter()
                .flat_map(|state| match_operand(egraph, rule, *operand, child, state))
                .collect();
        }
        matched.extend(states);
    }
    matched
}

fn match_operand(
    egraph: &EGraph<Term, Graph>,
    rule: &Rule,
    operand: PatternValue,
    child: Id,
    mut state: State,
) -> Vec<State> {
    let child = egraph.find(child);
    match operand {
        PatternValue::Argument(argument) => match state.arguments[argument] {
            Some(bound) if egraph.find(bound) != child => Vec::new(),
            _ => {
                state.arguments[argument] = Some(child);
                vec![state]
            }
        },
        PatternValue::Result(op, _) if rule.source.ops[op].result_count == 1 => {
            match_op(egraph, rule, op, child, state)
        }
        PatternValue::Result(op, result) => egraph[child]
            .nodes
            .iter()
            .filter(|node| egraph.analysis.keys[node.key as usize] == Key::Result(result))
            .flat_map(|node| match_op(egraph, rule, op, node.children[0], state.clone()))
            .collect(),
    }
}
