//! The search over rewritten graphs (MetaFlow §4, Algorithm 1): a queue of candidate graphs
//! ordered by cost; the cheapest is expanded by every match of every rule; a new graph is kept
//! when it costs less than α times the best so far, so that a rewrite which makes the graph
//! slower on its own (enlarging a convolution) can still lead to a faster one (merging it with
//! its sibling). α = 1 is a greedy search. Candidates are clones of the function; the best one's
//! body replaces the function's at the end.

use super::cost::{cost, Pricing};
use super::matcher::{find, Match};
use super::rewrite::apply;
use super::rule::Rule;
use super::split::{part_of, set_part};
use crate::graph_view::FunctionView;
use crate::ir::Op;
use crate::kernels::estimate::LayerCache;
use crate::target::Machine;
use mlir_sys::*;
use std::collections::hash_map::DefaultHasher;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};

/// How the search runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Keep candidates cheaper than `alpha` × the best cost.
    pub alpha: f64,
    /// Candidates to expand at most.
    pub budget: usize,
    /// What to minimise, and how.
    pub pricing: Pricing,
    /// Matches of one rule considered per candidate at most.
    pub matches_per_rule: usize,
    /// Which matches the search may apply.
    pub region: Region,
}

/// Which matches a search applies, by the parts of a split ([`super::split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// Any.
    Whole,
    /// Those whose ops all belong to this part.
    Part(i64),
    /// Those whose ops span two parts or more (the local search across the cuts).
    AcrossParts,
}

impl Region {
    /// Whether the search may apply `found` (in the graph `view`).
    pub fn admits(self, found: &Match, view: &FunctionView) -> bool {
        let parts = || found.ops.iter().map(|&op| part_of(view.ops[op].op));
        match self {
            Region::Whole => true,
            Region::Part(part) => parts().all(|of| of == Some(part)),
            Region::AcrossParts => {
                let mut seen: Vec<Option<i64>> = parts().collect();
                seen.sort_unstable();
                seen.dedup();
                seen.len() > 1
            }
        }
    }
}

/// One rewrite on the way to the result.
#[derive(Debug, Clone)]
pub struct Step {
    /// The rule's index in the rule list.
    pub rule: usize,
    /// Where it applied (the location of the op that produced the source's first result).
    pub location: MlirLocation,
    /// The graph's cost before and after.
    pub cost: (f64, f64),
}

/// What a search did.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The cost of the function as it came.
    pub initial: f64,
    /// The cost of the result.
    pub best: f64,
    /// The rewrites that lead to the result, in order.
    pub steps: Vec<Step>,
    /// Candidates expanded.
    pub expanded: usize,
    /// Candidates generated.
    pub generated: usize,
}

/// A graph in the queue: a detached clone of the function, its cost and how it was reached.
struct Candidate {
    function: Op,
    cost: f64,
    steps: Vec<Step>,
}

impl Candidate {
    /// Destroys the clone.
    fn destroy(self) {
        // SAFETY: a detached clone owned by the search.
        unsafe { mlirOperationDestroy(self.function.raw()) }
    }
}

/// Searches rewrites of `function` by `rules` and replaces its body by the best graph found.
pub fn search(
    function: Op,
    rules: &[Rule],
    settings: &Settings,
    machine: Option<&Machine>,
) -> Result<Outcome, String> {
    search_within(function, rules, settings, machine, None)
}

/// [`search`] of `part`, a part of a graph extracted as a function of its own
/// ([`super::extract`]), when the whole graph costs `whole`: every cost the search compares and
/// reports is the whole graph's, the part's plus the rest's, so that α keeps its meaning and the
/// steps read as they would in the whole graph (when `whole` is finite; the part's alone
/// otherwise).
pub fn search_part(
    part: Op,
    rules: &[Rule],
    settings: &Settings,
    machine: Option<&Machine>,
    whole: f64,
) -> Result<Outcome, String> {
    search_within(part, rules, settings, machine, Some(whole))
}

/// [`search`], with the costs of the graph `function` is a part of when that costs `whole`.
fn search_within(
    function: Op,
    rules: &[Rule],
    settings: &Settings,
    machine: Option<&Machine>,
    whole: Option<f64>,
) -> Result<Outcome, String> {
    let mut search = Search::start(function, rules, settings, machine, whole)?;
    let mut progress = Progress::new(function);
    while search.expanded < settings.budget {
        progress.show(search.expanded, search.generated, search.best_cost);
        let Some(position) = cheapest(&search.queue) else {
            break;
        };
        let current = search.queue.swap_remove(position);
        search.expanded += 1;
        search.expand(&current)?;
        current.destroy();
        search.prune();
    }
    std::mem::take(&mut search.queue)
        .into_iter()
        .for_each(Candidate::destroy);
    progress.finish();
    Ok(search.finish(function))
}

/// The state of one search.
struct Search<'a> {
    rules: &'a [Rule],
    settings: &'a Settings,
    machine: Option<&'a Machine>,
    cache: LayerCache,
    /// Fingerprints of the graphs generated so far (the function's among them).
    seen: HashSet<u64>,
    /// Candidates still to expand.
    queue: Vec<Candidate>,
    /// The cheapest candidate generated, a clone of its own (None: none beat the function).
    best: Option<Candidate>,
    /// What the graph outside the function searched costs (0 for a whole function).
    rest: f64,
    /// The function's cost.
    initial: f64,
    /// The best cost so far.
    best_cost: f64,
    expanded: usize,
    generated: usize,
}

impl<'a> Search<'a> {
    /// A search whose queue holds a clone of `function`, a part of a graph that costs `whole`
    /// if given.
    fn start(
        function: Op,
        rules: &'a [Rule],
        settings: &'a Settings,
        machine: Option<&'a Machine>,
        whole: Option<f64>,
    ) -> Result<Self, String> {
        let mut search = Self {
            rules,
            settings,
            machine,
            cache: LayerCache::new(),
            seen: HashSet::new(),
            queue: Vec::new(),
            best: None,
            rest: 0.0,
            initial: 0.0,
            best_cost: 0.0,
            expanded: 0,
            generated: 0,
        };
        let (initial, print) = search.measure(function)?;
        // A graph past the target's memory costs infinitely much: its part is priced alone.
        let (initial, rest) = match whole.filter(|whole| whole.is_finite()) {
            Some(whole) => (whole, whole - initial),
            None => (initial, 0.0),
        };
        search.rest = rest;
        search.seen.insert(print);
        search.queue.push(Candidate {
            function: clone(function),
            cost: initial,
            steps: Vec::new(),
        });
        search.initial = initial;
        search.best_cost = initial;
        Ok(search)
    }

    /// The cost (with the rest's) and the fingerprint of `candidate`.
    fn measure(&mut self, candidate: Op) -> Result<(f64, u64), String> {
        let view = FunctionView::read(candidate).map_err(|error| error.message)?;
        Ok((
            self.rest + cost(&view, self.settings.pricing, self.machine, &mut self.cache),
            fingerprint(&view),
        ))
    }

    /// Generates a candidate from `current` by every admitted match of every rule, in rule
    /// order, offering each to the queue.
    fn expand(&mut self, current: &Candidate) -> Result<(), String> {
        let view = FunctionView::read(current.function).map_err(|error| error.message)?;
        let rules = self.rules;
        for (index, rule) in rules.iter().enumerate() {
            for found in find(rule, &view, self.settings.matches_per_rule) {
                if !self.settings.region.admits(&found, &view) {
                    continue;
                }
                self.rewrite(current, &view, index, &found)?;
            }
        }
        Ok(())
    }

    /// Applies match `found` of rule `index` to a clone of `current` (read as `view`) and offers
    /// the result; a match whose target does not build is passed over.
    fn rewrite(
        &mut self,
        current: &Candidate,
        view: &FunctionView,
        index: usize,
        found: &Match,
    ) -> Result<(), String> {
        let rule = &self.rules[index];
        let next = clone(current.function);
        let next_view = view.of_clone(next);
        let anchor = next_view.ops[found.anchor(rule)].op;
        let (location, part) = (anchor.location(), part_of(anchor));
        let Ok(built) = apply(rule, found, &next_view, next) else {
            // SAFETY: the clone is detached and owned here.
            unsafe { mlirOperationDestroy(next.raw()) };
            return Ok(());
        };
        if let Some(part) = part {
            built.into_iter().for_each(|op| set_part(op, part));
        }
        self.generated += 1;
        let (next_cost, print) = self.measure(next)?;
        let mut steps = current.steps.clone();
        steps.push(Step {
            rule: index,
            location,
            cost: (current.cost, next_cost),
        });
        let candidate = Candidate {
            function: next,
            cost: next_cost,
            steps,
        };
        self.offer(candidate, print);
        Ok(())
    }

    /// Queues `candidate` (fingerprint `print`) unless its graph was seen or it costs α times
    /// the best or more; a new best is also kept as a clone of its own.
    fn offer(&mut self, candidate: Candidate, print: u64) {
        let next_cost = candidate.cost;
        if !self.seen.insert(print) || next_cost >= self.settings.alpha * self.best_cost {
            candidate.destroy();
            return;
        }
        if next_cost < self.best_cost {
            self.best_cost = next_cost;
            if let Some(previous) = self.best.replace(Candidate {
                function: clone(candidate.function),
                cost: candidate.cost,
                steps: candidate.steps.clone(),
            }) {
                previous.destroy();
            }
        }
        self.queue.push(candidate);
    }

    /// Drops the candidates that can no longer be expanded: only the best and candidates under
    /// alpha times it can be, and no more than the budget has left (a queue of clones is the
    /// search's memory).
    fn prune(&mut self) {
        let (alpha, best_cost) = (self.settings.alpha, self.best_cost);
        let (mut kept, dropped): (Vec<Candidate>, Vec<Candidate>) = std::mem::take(&mut self.queue)
            .into_iter()
            .partition(|c| c.cost <= best_cost || c.cost < alpha * best_cost);
        dropped.into_iter().for_each(Candidate::destroy);
        kept.sort_by(|a, b| a.cost.total_cmp(&b.cost));
        kept.drain(
            self.settings
                .budget
                .saturating_sub(self.expanded)
                .min(kept.len())..,
        )
        .for_each(Candidate::destroy);
        self.queue = kept;
    }

    /// Moves the best graph's body into `function`, if one beat it; returns what the search did.
    fn finish(self, function: Op) -> Outcome {
        let steps = match self.best {
            Some(best) => {
                take_body(function, best.function);
                let steps = best.steps.clone();
                best.destroy();
                steps
            }
            None => Vec::new(),
        };
        Outcome {
            initial: self.initial,
            best: self.best_cost,
            steps,
            expanded: self.expanded,
            generated: self.generated,
        }
    }
}

/// The cost of `function` by `settings.pricing`, as a search measures it.
pub fn measure_cost(
    function: Op,
    settings: &Settings,
    machine: Option<&Machine>,
) -> Result<f64, String> {
    let view = FunctionView::read(function).map_err(|error| error.message)?;
    Ok(cost(
        &view,
        settings.pricing,
        machine,
        &mut LayerCache::new(),
    ))
}

/// Applies every match of `rules` until none is left or `budget` rewrites were made, whatever
/// they cost: for rules that always pay (clean-ups of exports) and for testing rules one by one.
pub fn apply_all(
    function: Op,
    rules: &[Rule],
    budget: usize,
) -> Result<Vec<(usize, MlirLocation)>, String> {
    let mut applied = Vec::new();
    'rewrite: while applied.len() < budget {
        let view = FunctionView::read(function).map_err(|error| error.message)?;
        for (index, rule) in rules.iter().enumerate() {
            // A match whose target cannot be built at its shapes is passed over.
            for found in find(rule, &view, MATCHES_TRIED) {
                let location = view.ops[found.anchor(rule)].op.location();
                if apply(rule, &found, &view, function).is_ok() {
                    applied.push((index, location));
                    continue 'rewrite;
                }
            }
        }
        break;
    }
    Ok(applied)
}

/// A line on a terminal's standard error while a search runs longer than two seconds (nothing
/// when standard error is not a terminal: logs and tests stay quiet).
struct Progress {
    start: std::time::Instant,
    last: Option<std::time::Instant>,
    name: String,
    terminal: bool,
}

impl Progress {
    /// Starts the clock of the search of `function`.
    fn new(function: Op) -> Self {
        use std::io::IsTerminal;
        let terminal = std::io::stderr().is_terminal();
        let name = if terminal {
            function.symbol_name()
        } else {
            String::new()
        };
        Self {
            start: std::time::Instant::now(),
            last: None,
            name,
            terminal,
        }
    }

    /// Rewrites the line when a second passed since the last (two since the start).
    fn show(&mut self, expanded: usize, generated: usize, best: f64) {
        let now = std::time::Instant::now();
        let due = self
            .last
            .map_or(now.duration_since(self.start).as_secs_f64() > 2.0, |last| {
                now.duration_since(last).as_secs_f64() > 1.0
            });
        if self.terminal && due {
            eprint!(
                "\rgraph-substitute @{}: {expanded} candidates expanded, \
                 {generated} generated, best cost {best:.0}   ",
                self.name
            );
            self.last = Some(now);
        }
    }

    /// Ends the line, if one was written.
    fn finish(&self) {
        if self.last.is_some() {
            eprintln!();
        }
    }
}

/// Matches of one rule tried per rewrite by [`apply_all`].
const MATCHES_TRIED: usize = 64;

/// The position of the cheapest candidate in `queue`.
fn cheapest(queue: &[Candidate]) -> Option<usize> {
    (0..queue.len()).min_by(|&a, &b| queue[a].cost.total_cmp(&queue[b].cost))
}

/// A detached clone of `function`.
fn clone(function: Op) -> Op {
    // SAFETY: the op is alive; MLIR just created the clone, which is detached and owned by the
    // caller, alive until the caller destroys it.
    unsafe { Op::from_raw(mlirOperationClone(function.raw())) }
}

/// Moves `from`'s body into `into`, whose own body is dropped.
fn take_body(into: Op, from: Op) {
    // SAFETY: both are live functions with one region; the taken blocks move to `into`.
    unsafe {
        mlirRegionTakeBody(
            mlirOperationGetRegion(into.raw(), 0),
            mlirOperationGetRegion(from.raw(), 0),
        )
    }
}

/// A hash of the graph's structure: op names, operands, result types and attributes, so that a
/// graph reached twice (two merges in either order) is expanded once.
fn fingerprint(view: &FunctionView) -> u64 {
    let mut hasher = DefaultHasher::new();
    for node in &view.ops {
        node.name.hash(&mut hasher);
        node.operands.hash(&mut hasher);
        for (_, r#type) in &node.results {
            r#type.shape.hash(&mut hasher);
        }
        // SAFETY: attributes are uniqued in the context, so their handles identify their values.
        unsafe {
            for index in 0..mlirOperationGetNumAttributes(node.op.raw()) {
                let named = mlirOperationGetAttribute(node.op.raw(), index);
                (named.attribute.ptr as usize).hash(&mut hasher);
                (named.name.ptr as usize).hash(&mut hasher);
            }
        }
    }
    hasher.finish()
}
