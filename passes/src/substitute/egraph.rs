//! A second search engine over the same rules: equality saturation with the egg crate
//! (`graph-substitute{search=egraph}`), what Tensat does for TASO's rules. The function becomes
//! an e-graph; every match of every rule adds the rule's target and merges it with the matched
//! value's e-class, round after round, until nothing changes (saturation) or a limit is hit; then
//! the cheapest graph is extracted and kept if the cost model (the one the backtracking search
//! uses) finds it cheaper than the function.
//!
//! Rules that replace several values at once (the merges of parallel operators) are
//! multi-patterns: their first root is looked for at every e-class, the others among the parents
//! of the e-classes the match has bound (siblings read one input). Extraction
//! prices each e-node as a layer of its own by the cost model (`Extraction`), a tree cost that
//! counts shared values once per reader; the extracted graph is then priced whole.

mod language;
mod matching;

use super::cost::{cost, Metric, Pricing};
use super::rewrite::{plan_op, shape_of_type, Bindings, Typing};
use super::rule::{PatternValue, Rule};
use crate::graph_view::FunctionView;
use crate::ir::{
    create, create_named, region_with_block, string_attribute, InsertionPoint, Op, Val,
};
use crate::kernels::estimate::LayerCache;
use crate::target::Machine;
use egg::{CostFunction, EGraph, Extractor, Id};
use language::{attribute_handle, type_handle, Graph, Key, Term};
use matching::{find, roots_of, Found};
use mlir_sys::*;
use std::collections::{BTreeMap, HashMap};
use turbine_dialects::ops::upstream;

/// Why saturation stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// No rule added anything new.
    Saturated,
    /// The e-graph reached its node limit.
    NodeLimit,
    /// The rounds ran out.
    IterationLimit,
    /// The function has control flow (`graph.if`, `graph.loop`), whose regions the e-graph does
    /// not hold: it is left as it is.
    ControlFlow,
}

/// What an equality-saturation search did.
#[derive(Debug, Clone)]
pub struct Saturated {
    /// Rounds run.
    pub iterations: usize,
    /// Why it stopped.
    pub stop: Stop,
    /// E-nodes and e-classes at the end.
    pub nodes: usize,
    /// E-classes at the end.
    pub classes: usize,
    /// Merges made, per rule name.
    pub applied: BTreeMap<String, usize>,
    /// Rules left out (a source that returns a wildcard or a second result).
    pub skipped: usize,
    /// The function's cost, and the extracted graph's.
    pub cost: (f64, f64),
    /// Whether the extracted graph replaced the function.
    pub kept: bool,
}

/// E-nodes at most (a bound on memory and time; relaxed rules can grow the e-graph fast).
const NODE_LIMIT: usize = 20_000;

/// Rounds in which multi-pattern rules (merges) apply. A merged operator reads the same input as
/// the operators it merged, so it matches the merge again with each of them, round after round;
/// Tensat bounds the multi-pattern rounds for the same reason.
const MULTI_PATTERN_ROUNDS: usize = 1;

/// Searches `function` by equality saturation over `rules` (at most `iterations` rounds) and
/// replaces its body by the extracted graph if `pricing` finds it cheaper. The extraction prices
/// each e-node as a layer of its own by `pricing`'s metric; the graphs are compared whole by
/// `pricing`.
pub fn saturate(
    function: Op,
    rules: &[Rule],
    iterations: usize,
    pricing: Pricing,
    machine: Option<&Machine>,
) -> Result<Saturated, String> {
    let view = FunctionView::read(function).map_err(|error| error.message)?;
    let mut cache = LayerCache::new();
    let initial = cost(&view, pricing, machine, &mut cache);
    if view.ops.iter().any(|node| node.has_regions) {
        let applied = BTreeMap::new();
        return Ok(Saturated {
            iterations: 0,
            stop: Stop::ControlFlow,
            nodes: 0,
            classes: 0,
            applied,
            skipped: rules.len(),
            cost: (initial, initial),
            kept: false,
        });
    }
    let (mut egraph, roots) = build(&view, function);
    let usable: Vec<&Rule> = rules
        .iter()
        .filter(|rule| roots_of(rule).is_some())
        .collect();
    let (stop, rounds, applied) = run_rounds(&mut egraph, &usable, iterations);
    let (candidate, after) = extract(function, &egraph, &roots, pricing, machine, &mut cache)?;
    let kept = after < initial;
    // SAFETY: both are live functions with one region; the clone is destroyed after.
    unsafe {
        if kept {
            mlirRegionTakeBody(
                mlirOperationGetRegion(function.raw(), 0),
                mlirOperationGetRegion(candidate.raw(), 0),
            );
        }
        mlirOperationDestroy(candidate.raw());
    }
    Ok(Saturated {
        iterations: rounds,
        stop,
        nodes: egraph.total_number_of_nodes(),
        classes: egraph.number_of_classes(),
        applied,
        skipped: rules.len() - usable.len(),
        cost: (initial, after),
        kept,
    })
}

/// Runs at most `iterations` rounds of the `usable` rules on `egraph`: each round adds the
/// target of every match found at its start, then rebuilds. Returns why it stopped, the rounds
/// run and the merges made per rule name.
fn run_rounds(
    egraph: &mut EGraph<Term, Graph>,
    usable: &[&Rule],
    iterations: usize,
) -> (Stop, usize, BTreeMap<String, usize>) {
    let mut applied: BTreeMap<String, usize> = BTreeMap::new();
    let (mut stop, mut rounds) = (Stop::IterationLimit, 0);
    'rounds: for round in 0..iterations {
        rounds += 1;
        let matches: Vec<(&Rule, Found)> = usable
            .iter()
            .filter(|rule| round < MULTI_PATTERN_ROUNDS || rule.source.results.len() == 1)
            .flat_map(|rule| {
                find(egraph, rule)
                    .into_iter()
                    .map(move |found| (*rule, found))
            })
            .collect();
        let mut changed = false;
        for (rule, found) in matches {
            if let Ok(true) = add_target(egraph, rule, &found) {
                changed = true;
                *applied.entry(rule.name.clone()).or_default() += 1;
            }
            if egraph.total_number_of_nodes() > NODE_LIMIT {
                stop = Stop::NodeLimit;
                egraph.rebuild();
                break 'rounds;
            }
        }
        egraph.rebuild();
        if !changed {
            stop = Stop::Saturated;
            break;
        }
    }
    (stop, rounds, applied)
}

/// Extracts the cheapest graph of `egraph` (whose returned e-classes are `roots`) into a
/// detached clone of `function` and prices it whole by `pricing`. Returns the clone, which the
/// caller destroys, and its cost; on an error the clone is destroyed.
fn extract(
    function: Op,
    egraph: &EGraph<Term, Graph>,
    roots: &[Id],
    pricing: Pricing,
    machine: Option<&Machine>,
    cache: &mut LayerCache,
) -> Result<(Op, f64), String> {
    let extraction = Extraction {
        egraph,
        metric: pricing.metric,
        machine,
        costs: HashMap::new(),
        cache: LayerCache::new(),
    };
    let extractor = Extractor::new(egraph, extraction);
    // SAFETY: a live op; MLIR just created the clone, which is detached and owned here, alive
    // until it is destroyed.
    let candidate = unsafe { Op::from_raw(mlirOperationClone(function.raw())) };
    let outcome = materialize(egraph, &extractor, roots, candidate).and_then(|()| {
        let view = FunctionView::read(candidate).map_err(|error| error.message)?;
        Ok(cost(&view, pricing, machine, cache))
    });
    match outcome {
        Ok(after) => Ok((candidate, after)),
        Err(message) => {
            // SAFETY: the clone is detached and owned here.
            unsafe { mlirOperationDestroy(candidate.raw()) };
            Err(message)
        }
    }
}

/// The e-graph of `view` and the e-classes of the values it returns.
fn build(view: &FunctionView, function: Op) -> (EGraph<Term, Graph>, Vec<Id>) {
    let arguments = (0..view.arguments.len())
        .map(|index| function.entry_argument(index).r#type().ptr as usize)
        .collect();
    let mut egraph = EGraph::new(Graph {
        arguments,
        ..Graph::default()
    });
    let mut classes: HashMap<usize, Id> = HashMap::new();
    for (index, (value, _)) in view.arguments.iter().enumerate() {
        let key = egraph.analysis.intern(Key::Argument(index));
        classes.insert(
            *value,
            egraph.add(Term {
                key,
                children: Vec::new(),
            }),
        );
    }
    let mut roots = Vec::new();
    for node in &view.ops {
        let children: Vec<Id> = node.operands.iter().map(|value| classes[value]).collect();
        if node.is_terminator() {
            roots = children;
            continue;
        }
        let key = Key::Op {
            name: node.name.clone(),
            attributes: super::matcher::attributes_of(node.op)
                .into_iter()
                .map(|(name, value)| (name, value.ptr as usize))
                .collect(),
            results: (0..node.results.len())
                .map(|result| node.op.result(result).r#type().ptr as usize)
                .collect(),
        };
        let key = egraph.analysis.intern(key);
        let id = egraph.add(Term { key, children });
        let location = Some(node.op.location().ptr as usize);
        egraph[id].data.location = egraph[id].data.location.or(location);
        if node.results.len() == 1 {
            classes.insert(node.results[0].0, id);
        } else {
            for (result, (value, _)) in node.results.iter().enumerate() {
                let key = egraph.analysis.intern(Key::Result(result));
                let selected = egraph.add(Term {
                    key,
                    children: vec![id],
                });
                egraph[selected].data.location = egraph[selected].data.location.or(location);
                classes.insert(*value, selected);
            }
        }
    }
    egraph.rebuild();
    (egraph, roots)
}

/// Adds `rule`'s target for `found` and merges its results with the matched e-classes; whether
/// that changed the e-graph.
fn add_target(
    egraph: &mut EGraph<Term, Graph>,
    rule: &Rule,
    found: &Found,
) -> Result<bool, String> {
    let root_types: Vec<MlirType> = found
        .roots
        .iter()
        .map(|&root| egraph[root].data.r#type.map(type_handle))
        .collect::<Option<_>>()
        .ok_or("a tuple")?;
    let location = egraph[found.roots[0]].data.location;
    let inputs: Vec<Id> = found
        .state
        .arguments
        .iter()
        .map(|argument| argument.expect("bound"))
        .collect();
    let bindings = Bindings {
        sizes: &found.state.sizes,
        attributes: &found.state.attributes,
    };
    let mut built: Vec<Id> = Vec::new();
    let value = |egraph: &mut EGraph<Term, Graph>, built: &[Id], operand: PatternValue| -> Id {
        match operand {
            PatternValue::Argument(argument) => inputs[argument],
            PatternValue::Result(op, _) if rule.target.ops[op].result_count == 1 => built[op],
            PatternValue::Result(op, result) => {
                let key = egraph.analysis.intern(Key::Result(result));
                egraph.add(Term {
                    key,
                    children: vec![built[op]],
                })
            }
        }
    };
    for (index, template) in rule.target.ops.iter().enumerate() {
        let children: Vec<Id> = template
            .operands
            .iter()
            .map(|&operand| value(egraph, &built, operand))
            .collect();
        let shapes: Vec<Vec<i64>> = children
            .iter()
            .map(|&child| {
                egraph[child]
                    .data
                    .r#type
                    .map(|t| shape_of_type(type_handle(t)))
            })
            .collect::<Option<_>>()
            .ok_or("an operand is a tuple")?;
        let (attributes, results) = plan_op(
            &rule.target,
            &bindings,
            template,
            index,
            &shapes,
            Typing::Returned(&root_types),
        )?;
        let key = Key::Op {
            name: template.kind.name().to_owned(),
            attributes: attributes
                .iter()
                .map(|(name, value)| (name.clone(), value.ptr as usize))
                .collect(),
            results: results.iter().map(|r#type| r#type.ptr as usize).collect(),
        };
        let key = egraph.analysis.intern(key);
        let id = egraph.add(Term { key, children });
        egraph[id].data.location = egraph[id].data.location.or(location);
        built.push(id);
    }
    let mut changed = false;
    for (&root, &result) in found.roots.iter().zip(&rule.target.results) {
        let replacement = value(egraph, &built, result);
        changed |= egraph.union(root, replacement);
    }
    Ok(changed)
}

/// Prices an e-node as a layer of its own by the cost model (cached per key and operand types),
/// plus its operands' prices; a small price for free nodes keeps the cost strictly increasing.
struct Extraction<'a> {
    egraph: &'a EGraph<Term, Graph>,
    metric: Metric,
    machine: Option<&'a Machine>,
    costs: HashMap<(u32, Vec<usize>), f64>,
    cache: LayerCache,
}

impl CostFunction<Term> for Extraction<'_> {
    type Cost = f64;

    fn cost<C>(&mut self, enode: &Term, mut costs: C) -> f64
    where
        C: FnMut(Id) -> f64,
    {
        let types: Vec<usize> = enode
            .children
            .iter()
            .map(|&child| self.egraph[child].data.r#type.unwrap_or(0))
            .collect();
        let own = match self.costs.get(&(enode.key, types.clone())) {
            Some(&own) => own,
            None => {
                let own = self.own_cost(enode, &types);
                self.costs.insert((enode.key, types), own);
                own
            }
        };
        enode
            .children
            .iter()
            .fold(own, |total, &child| total + costs(child))
    }
}

/// The price of nodes that compute nothing (arguments, result selectors, weights, constants).
const FREE: f64 = 1e-3;

impl Extraction<'_> {
    fn own_cost(&mut self, enode: &Term, operand_types: &[usize]) -> f64 {
        let Key::Op {
            name,
            attributes,
            results,
        } = &self.egraph.analysis.keys[enode.key as usize]
        else {
            return FREE;
        };
        if operand_types.contains(&0) {
            return FREE;
        }
        // The op alone in a function: the cost model prices it as the layer it would be.
        // SAFETY: the result type is alive with its context; the function is destroyed below.
        let (context, location) = unsafe {
            let context = mlirTypeGetContext(type_handle(results[0]));
            (context, mlirLocationUnknownGet(context))
        };
        let types: Vec<MlirType> = operand_types.iter().map(|&t| type_handle(t)).collect();
        let (region, block) = region_with_block(&types, location);
        // SAFETY: the block is alive in its region, which the function built below takes; its
        // arguments live with it until the function is destroyed.
        let arguments: Vec<Val> = (0..types.len())
            .map(|index| unsafe { Val::from_raw(mlirBlockGetArgument(block, index as isize)) })
            .collect();
        let named: Vec<(&str, MlirAttribute)> = attributes
            .iter()
            .map(|(name, value)| (name.as_str(), attribute_handle(*value)))
            .collect();
        let result_types: Vec<MlirType> = results.iter().map(|&t| type_handle(t)).collect();
        let op = create_named(
            InsertionPoint::End(block),
            location,
            name,
            &arguments,
            &result_types,
            &named,
            Vec::new(),
        );
        let values: Vec<Val> = (0..result_types.len())
            .map(|result| op.result(result))
            .collect();
        create(
            InsertionPoint::End(block),
            location,
            upstream::Kind::FuncReturn,
            &values,
            &[],
            &[],
            Vec::new(),
        );
        // SAFETY: as above.
        let function_type = unsafe {
            mlirTypeAttrGet(mlirFunctionTypeGet(
                context,
                types.len() as isize,
                types.as_ptr(),
                result_types.len() as isize,
                result_types.as_ptr(),
            ))
        };
        let function = create(
            InsertionPoint::Detached,
            location,
            upstream::Kind::FuncFunc,
            &[],
            &[],
            &[
                ("sym_name", string_attribute(context, "layer")),
                ("function_type", function_type),
            ],
            vec![region],
        );
        let price = FunctionView::read(function)
            .map(|view| {
                let pricing = Pricing {
                    metric: self.metric,
                    prepared_weights: false,
                };
                cost(&view, pricing, self.machine, &mut self.cache)
            })
            .unwrap_or(f64::INFINITY);
        // SAFETY: the function is detached and owned here.
        unsafe { mlirOperationDestroy(function.raw()) };
        price.max(FREE)
    }
}

/// Builds the extracted graph into `function` (a clone), replacing its body's ops.
fn materialize(
    egraph: &EGraph<Term, Graph>,
    extractor: &Extractor<Extraction, Term, Graph>,
    roots: &[Id],
    function: Op,
) -> Result<(), String> {
    let old = function.body_ops();
    let terminator = *old.last().ok_or("an empty function")?;
    let mut values: HashMap<Id, Vec<Val>> = HashMap::new();
    let mut returned = Vec::new();
    for &root in roots {
        returned.push(value_of(egraph, extractor, root, function, terminator, &mut values)?[0]);
    }
    for (index, value) in returned.into_iter().enumerate() {
        terminator.set_operand(index, value);
    }
    for op in old.into_iter().rev().skip(1) {
        // SAFETY: the terminator reads the new values and the new ops read arguments or each other,
        // so the old ops feed only each other: in reverse order each one's users are gone. `old` is
        // consumed here.
        unsafe { op.erase() };
    }
    Ok(())
}

fn value_of(
    egraph: &EGraph<Term, Graph>,
    extractor: &Extractor<Extraction, Term, Graph>,
    class: Id,
    function: Op,
    terminator: Op,
    values: &mut HashMap<Id, Vec<Val>>,
) -> Result<Vec<Val>, String> {
    let class = egraph.find(class);
    if let Some(known) = values.get(&class) {
        return Ok(known.clone());
    }
    let node = extractor.find_best_node(class).clone();
    let built = match &egraph.analysis.keys[node.key as usize] {
        Key::Argument(index) => vec![function.entry_argument(*index)],
        Key::Result(index) => vec![
            value_of(
                egraph,
                extractor,
                node.children[0],
                function,
                terminator,
                values,
            )?[*index],
        ],
        Key::Op {
            name,
            attributes,
            results,
        } => {
            let mut operands = Vec::new();
            for &child in &node.children {
                operands.push(value_of(egraph, extractor, child, function, terminator, values)?[0]);
            }
            // SAFETY: locations are kept alive by their context; a class always has one from the
            // model op it was built from or matched at.
            let location = egraph[class]
                .data
                .location
                .map(|l| MlirLocation { ptr: l as *const _ })
                .ok_or("an e-class without a location")?;
            let named: Vec<(&str, MlirAttribute)> = attributes
                .iter()
                .map(|(name, value)| (name.as_str(), attribute_handle(*value)))
                .collect();
            let types: Vec<MlirType> = results.iter().map(|&t| type_handle(t)).collect();
            let op = create_named(
                InsertionPoint::Before(terminator),
                location,
                name,
                &operands,
                &types,
                &named,
                Vec::new(),
            );
            (0..types.len()).map(|result| op.result(result)).collect()
        }
    };
    values.insert(class, built.clone());
    Ok(built)
}
