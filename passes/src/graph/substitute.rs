//! `graph-substitute`: MetaFlow's relaxed graph substitution (SysML'19 §3-4) with rules read
//! from files. See [`crate::substitute`] for the rule format, the matcher and the search.

use super::perturb::negate_named_op;
use crate::{
    graph_view::FunctionView,
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    substitute::{
        cost::{Metric, Pricing},
        cuts::windows,
        egraph::saturate,
        extract::{extract, is_convex, searched_ops, splice, Extracted},
        rule::{verify_rules, Rule, RuleSet},
        search::{apply_all, measure_cost, search, search_part, Outcome, Region, Settings},
        split::{capacities, counts, mark, split, unmark},
    },
    target::{Machine, TARGET_OPTION},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::ops::{upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct GraphSubstitute {
    files: Vec<String>,
    builtin: bool,
    only: Vec<String>,
    search: SearchKind,
    settings: Settings,
    split_threshold: usize,
    target: String,
    explain: bool,
    verify: bool,
    perturb_op: String,
    weight_folds: bool,
}

/// The `search` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SearchKind {
    Backtracking,
    Egraph,
    All,
    None,
}

impl Pass for GraphSubstitute {
    const ARGUMENT: &'static str = "graph-substitute";
    const SUMMARY: &'static str = "Rewrite the graph by substitution rules read from files, \
                                   searching for the cheapest (MetaFlow)";
    const DESCRIPTION: &'static str = "\
Applies relaxed graph substitutions (MetaFlow, SysML'19 §3-4). A rule is a pair of `graph` \
functions, @source and @target, in a nested `module @name` of a rule file; `rule.dims` names the \
dimensions of the arguments (a group `\"p...\"` stands for any number of them, so that one rule \
holds at every rank and axis), `rule.bind` binds an attribute to a name instead of requiring its \
value, `rule.set`/`rule.shape` compute the target's attributes and shapes from the bound sizes \
(on a source op, require them), and `rule.where` adds conditions (docs/Substitution.md). The \
built-in rules (passes/rules/*.mlir) are loaded unless `builtin-rules=false`, then the files of \
`rules`; `only` keeps the rules it \
names. With `search=backtracking` (MetaFlow Algorithm 1) candidates are kept in a queue by cost, \
the cheapest is expanded by every match of every rule, and a rewritten graph is kept when its \
cost is below `alpha` times the best (alpha = 1 is greedy), until `budget` candidates were \
expanded; the cheapest graph found replaces the function. `cost` is `cycles` (each op as one \
layer-wise kernel on the target: the larger of its matrix-engine and DDR time, plus a launch), \
`flops`, or `memory` (bytes produced; infinite past the target's DDR). A function of more than \
`split-threshold` ops (weights and constants aside) is searched in parts (MetaFlow §5.2): each \
op's capacity is the number of matches that touch both an input and an output edge of it, the \
function is cut recursively by minimum vertex cuts (maximum flow between its first and last \
third, Dinic's algorithm) into parts under the threshold, each part is searched alone (a convex \
part as a function of its own: its ops cloned, what it reads from the rest as arguments, what \
the rest reads as results, the best graph spliced back in its place; the costs compared and \
reported are the whole function's), then a local search applies the matches that span the \
cuts, in windows searched the same way: each such match with the ops within two data edges of \
it, overlapping windows merged, each closed under the paths between its ops. \
`search=egraph` is equality saturation with the egg crate over the same rules (Tensat's \
approach): every match adds the rule's target to the \
e-graph and merges it with the matched value's e-class, for at most `budget` rounds or until \
saturation or 20,000 e-nodes; the graph extracted with each e-node priced as its own layer by \
the same cost model replaces the function if the cost model finds it cheaper; a rule with several \
results (a merge) is a multi-pattern whose other roots are looked for among the readers of what \
its first root bound, applied in the first round only (as Tensat bounds them: a merged operator \
matches the merge again with each operator it merged). With `search=all` every \
match is applied, whatever it costs, until none is left; `search=none` leaves the function as it \
is (the compile pipelines' `substitute=none`). With `prepared-weights`, what the function \
computes from weights and constants alone costs nothing (`graph-prepare-weights` computes it once \
at load time); with `weight-folds`, every match of the rules marked `rule.weight_fold` (a batch \
norm folded into the convolution before it) is applied before the search, whatever it costs. A \
function the compiler's graph view cannot read is left alone. With `explain`, a remark at each \
rewrite of the result names the rule and the cost before and after, and one at the function \
gives the search's totals. With `verify`, every rule is first checked through the reference \
interpreter at its example shapes and at random ones, with random ranks for its groups and \
random values for the integers it binds (`turbine-translate --list-rules --verify-rules` does \
the same for a rule file); an unsound rule is an error at its location.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "rules",
            description: "Rule files to load (comma-separated paths)",
            kind: OptionKind::String,
            default: "",
        },
        OptionInfo {
            name: "builtin-rules",
            description: "Load the built-in rules",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "only",
            description: "Use only these rules (comma-separated names)",
            kind: OptionKind::String,
            default: "",
        },
        OptionInfo {
            name: "search",
            description: "backtracking (MetaFlow Algorithm 1), egraph (equality saturation), all \
                          (apply every match) or none",
            kind: OptionKind::String,
            default: "backtracking",
        },
        OptionInfo {
            name: "alpha",
            description: "Keep candidates cheaper than alpha times the best (1 is greedy)",
            kind: OptionKind::Float,
            default: "1.05",
        },
        OptionInfo {
            name: "budget",
            description: "Candidates to expand (rounds of equality saturation with \
                          search=egraph, rewrites with search=all)",
            kind: OptionKind::Int,
            default: "100",
        },
        OptionInfo {
            name: "cost",
            description: "What to minimise: cycles, flops or memory",
            kind: OptionKind::String,
            default: "cycles",
        },
        OptionInfo {
            name: "prepared-weights",
            description: "Price what the function computes from weights alone as free: \
                          graph-prepare-weights computes it once at load time (the pipelines \
                          pass their prepare-weights option)",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "weight-folds",
            description: "Before the search, apply every match of the rules marked \
                          `rule.weight_fold` (a batch norm folded into the convolution before \
                          it), whatever the cost: with the weights prepared at load time, a fold \
                          only removes an op from the inference (the pipelines pass their \
                          prepare-weights option)",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "split-threshold",
            description: "Search a function of more ops (weights and constants aside) in parts \
                          of at most this many, cut by minimum vertex cuts; 0: whole",
            kind: OptionKind::Int,
            default: "200",
        },
        TARGET_OPTION,
        OptionInfo {
            name: "explain",
            description: "Remark on each rewrite and on the search's totals",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "verify",
            description: "Check every rule through the reference interpreter first; an unsound \
                          rule is an error",
            kind: OptionKind::Bool,
            default: "false",
        },
        OptionInfo {
            name: "test-perturb-op",
            description: "Test only: negate the result of the op at this name location after the \
                          search, a planted fault for the numeric bisection",
            kind: OptionKind::String,
            default: "",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let list = |name: &str| -> Vec<String> {
            options
                .string(name)
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(str::to_owned)
                .collect()
        };
        let search = match options.string("search").as_str() {
            "backtracking" => SearchKind::Backtracking,
            "egraph" => SearchKind::Egraph,
            "all" => SearchKind::All,
            "none" => SearchKind::None,
            other => {
                return Err(format!(
                    "search '{other}' is not one of backtracking, egraph, all, none"
                ))
            }
        };
        let alpha = options.float("alpha")?;
        if !(alpha >= 1.0 && alpha.is_finite()) {
            return Err(format!("alpha must be at least 1, got {alpha}"));
        }
        let budget = usize::try_from(options.int("budget")?)
            .map_err(|_| "budget must not be negative".to_owned())?;
        let settings = Settings {
            alpha,
            budget,
            pricing: Pricing {
                metric: Metric::parse(&options.string("cost"))?,
                prepared_weights: options.bool("prepared-weights")?,
            },
            matches_per_rule: 64,
            region: Region::Whole,
        };
        let split_threshold = usize::try_from(options.int("split-threshold")?)
            .map_err(|_| "split-threshold must not be negative".to_owned())?;
        Ok(Self {
            files: list("rules"),
            builtin: options.bool("builtin-rules")?,
            only: list("only"),
            search,
            settings,
            split_threshold,
            target: options.string("target"),
            explain: options.bool("explain")?,
            verify: options.bool("verify")?,
            perturb_op: options.string("test-perturb-op"),
            weight_folds: options.bool("weight-folds")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        self.substitute(function)?;
        if !self.perturb_op.is_empty() && !function.regions_empty() {
            negate_named_op(function, &self.perturb_op);
        }
        Ok(())
    }
}

impl GraphSubstitute {
    /// The search the options ask for, on `function`.
    fn substitute(&self, function: Op) -> Result<(), PassFailure> {
        if function.regions_empty() || self.search == SearchKind::None {
            return Ok(());
        }
        // A function the compiler's graph view cannot read (dynamic shapes) is left as it is:
        // the passes after this one say what they cannot compile.
        if let Err(error) = FunctionView::read(function) {
            if self.explain {
                function.emit_remark(&format!("substitution skipped: {}", error.message));
            }
            return Ok(());
        }
        let set = self.load(function)?;
        let rules: Vec<Rule> = set
            .rules
            .iter()
            .filter(|rule| self.only.is_empty() || self.only.contains(&rule.name))
            .cloned()
            .collect();
        for name in &self.only {
            if !set.rules.iter().any(|rule| &rule.name == name) {
                function.emit_error(&format!("graph-substitute: no rule is named '{name}'"));
                return Err(PassFailure);
            }
        }
        if self.verify {
            // SAFETY: the op is alive.
            let context = unsafe { mlirOperationGetContext(function.raw()) };
            verify_rules(context, &rules, function.location()).map_err(|_| PassFailure)?;
        }
        if self.weight_folds {
            let folds: Vec<Rule> = rules
                .iter()
                .filter(|rule| rule.weight_fold)
                .cloned()
                .collect();
            // Each fold removes an op of the data, so there are at most as many as ops.
            self.run_all(function, &folds, function.body_ops().len())?;
        }
        match self.search {
            SearchKind::None => Ok(()),
            SearchKind::Egraph => self.run_egraph(function, &rules),
            SearchKind::All => self.run_all(function, &rules, self.settings.budget),
            SearchKind::Backtracking => self.run_backtracking(function, &rules),
        }
    }

    /// `search=egraph`: equality saturation over `rules`, with the `explain` remark of its
    /// totals.
    fn run_egraph(&self, function: Op, rules: &[Rule]) -> Result<(), PassFailure> {
        let machine = self.machine(function)?;
        let outcome = saturate(
            function,
            rules,
            self.settings.budget,
            self.settings.pricing,
            machine.as_ref(),
        )
        .map_err(|message| fail(function, message))?;
        if self.explain {
            let applied: Vec<String> = outcome
                .applied
                .iter()
                .map(|(rule, count)| format!("{rule} x{count}"))
                .collect();
            function.emit_remark(&format!(
                "equality saturation: {} rounds ({:?}), {} e-nodes in {} e-classes, {} rules \
                 left out; merges: {}; extracted cost {:.0} -> {:.0} ({})",
                outcome.iterations,
                outcome.stop,
                outcome.nodes,
                outcome.classes,
                outcome.skipped,
                if applied.is_empty() {
                    "none".to_owned()
                } else {
                    applied.join(", ")
                },
                outcome.cost.0,
                outcome.cost.1,
                if outcome.kept {
                    "kept"
                } else {
                    "not cheaper, function unchanged"
                }
            ));
        }
        Ok(())
    }

    /// `search=all` (and the weight folds): every match of `rules` applied, `budget` at most,
    /// with an `explain` remark at each.
    fn run_all(&self, function: Op, rules: &[Rule], budget: usize) -> Result<(), PassFailure> {
        let applied =
            apply_all(function, rules, budget).map_err(|message| fail(function, message))?;
        if self.explain {
            for (rule, location) in applied {
                remark(location, &format!("applied '{}'", rules[rule].name));
            }
        }
        Ok(())
    }

    /// `search=backtracking`: MetaFlow's search, in parts past the split threshold, with an
    /// `explain` remark at each rewrite kept and one of the totals.
    fn run_backtracking(&self, function: Op, rules: &[Rule]) -> Result<(), PassFailure> {
        let machine = self.machine(function)?;
        let outcome = self
            .search_in_parts(function, rules, machine.as_ref())
            .map_err(|message| fail(function, message))?;
        if self.explain {
            for step in &outcome.steps {
                let rule = &rules[step.rule].name;
                remark(
                    step.location,
                    &format!(
                        "applied '{rule}': cost {:.0} -> {:.0}",
                        step.cost.0, step.cost.1
                    ),
                );
            }
            function.emit_remark(&format!(
                "substitution: cost {:.0} -> {:.0} ({} rewrites; {} candidates expanded, {} \
                 generated)",
                outcome.initial,
                outcome.best,
                outcome.steps.len(),
                outcome.expanded,
                outcome.generated
            ));
        }
        Ok(())
    }

    /// The target the cost model reads: required for `cost=cycles`, optional otherwise.
    fn machine(&self, function: Op) -> Result<Option<Machine>, PassFailure> {
        Ok(match self.settings.pricing.metric {
            Metric::Cycles => Some(Machine::for_function(
                function,
                &self.target,
                Self::ARGUMENT,
            )?),
            _ if self.target.is_empty() => function.parent().and_then(Machine::of_module),
            _ => Some(Machine::for_function(
                function,
                &self.target,
                Self::ARGUMENT,
            )?),
        })
    }

    /// The backtracking search, over the whole function or (past the split threshold) over each
    /// part of a flow-based split and then across the cuts (MetaFlow §5.2).
    fn search_in_parts(
        &self,
        function: Op,
        rules: &[Rule],
        machine: Option<&Machine>,
    ) -> Result<Outcome, String> {
        let view = FunctionView::read(function).map_err(|error| error.message)?;
        let counted = (0..view.ops.len()).filter(|&op| counts(&view, op)).count();
        if self.split_threshold == 0 || counted <= self.split_threshold {
            return search(function, rules, &self.settings, machine);
        }
        let capacity = capacities(&view, rules);
        let ops: Vec<usize> = (0..view.ops.len())
            .filter(|&op| !view.ops[op].is_terminator())
            .collect();
        let (parts, cuts) = split(&view, ops, &capacity, self.split_threshold);
        mark(&view, &parts);
        if self.explain {
            let sizes = counted_sizes(&view, &parts);
            function.emit_remark(&format!(
                "split {counted} ops into {} parts of {sizes:?} ops by minimum vertex cuts \
                 separating {cuts:?} matches",
                parts.len()
            ));
        }
        let outcome = self.search_split(function, &view, &parts, rules, machine);
        unmark(function);
        outcome
    }

    /// The searches of a split function (its ops marked with their parts): each convex part
    /// alone as a function of its own, each other part in place, then the windows around the
    /// cuts alone ([`crate::substitute::cuts`]).
    fn search_split(
        &self,
        function: Op,
        view: &FunctionView,
        parts: &[Vec<usize>],
        rules: &[Rule],
        machine: Option<&Machine>,
    ) -> Result<Outcome, String> {
        let initial = measure_cost(function, &self.settings, machine)?;
        let mut total = Outcome {
            initial,
            best: initial,
            steps: Vec::new(),
            expanded: 0,
            generated: 0,
        };
        let mut in_place = Vec::new();
        let mut convex = Vec::new();
        for (index, part) in parts.iter().enumerate() {
            let part = searched_ops(view, part);
            if part.is_empty() {
                // Only weights and constants that other parts read: nothing to rewrite.
            } else if is_convex(view, &part) {
                convex.push((format!("{}.part{index}", view.name), part));
            } else {
                in_place.push(Region::Part(index as i64));
            }
        }
        let whole = Settings {
            region: Region::Whole,
            ..self.settings.clone()
        };
        total = search_extracted(function, view, convex, &whole, rules, machine, total)?;
        for region in in_place {
            let settings = Settings {
                region,
                ..self.settings.clone()
            };
            total = merge(total, search(function, rules, &settings, machine)?);
        }
        let view = FunctionView::read(function).map_err(|error| error.message)?;
        let windows = windows(&view, rules);
        if self.explain {
            let sizes = counted_sizes(&view, &windows);
            function.emit_remark(&format!(
                "searching across the cuts in windows of {sizes:?} ops"
            ));
        }
        let windows = windows
            .into_iter()
            .enumerate()
            .map(|(index, window)| (format!("{}.cut{index}", view.name), window))
            .collect();
        let across = Settings {
            region: Region::AcrossParts,
            ..self.settings.clone()
        };
        total = search_extracted(function, &view, windows, &across, rules, machine, total)?;
        total.best = measure_cost(function, &self.settings, machine)?;
        Ok(total)
    }

    /// The rules: the built-in ones unless `builtin-rules=false`, then those of the files.
    fn load(&self, function: Op) -> Result<RuleSet, PassFailure> {
        // SAFETY: the op is alive.
        let context = unsafe { mlirOperationGetContext(function.raw()) };
        let mut set = if self.builtin {
            RuleSet::builtin(context).map_err(|_| PassFailure)?
        } else {
            RuleSet::default()
        };
        for file in &self.files {
            set.add_file(context, file, function.location())
                .map_err(|_| PassFailure)?;
        }
        Ok(set)
    }
}

/// Searches each of `sets` (named convex sets of `view`'s ops) alone as a function of its
/// own by `settings`, then splices the cheaper graphs found into `function`; returns `total`
/// with the searches' outcomes.
fn search_extracted(
    function: Op,
    view: &FunctionView,
    sets: Vec<(String, Vec<usize>)>,
    settings: &Settings,
    rules: &[Rule],
    machine: Option<&Machine>,
    mut total: Outcome,
) -> Result<Outcome, String> {
    let mut cheaper = Vec::new();
    for (name, ops) in sets {
        let extracted = extract(view, &ops, &name);
        let outcome = match search_part(extracted.function, rules, settings, machine, total.best) {
            Ok(outcome) => outcome,
            Err(message) => {
                extracted.discard();
                cheaper.into_iter().for_each(Extracted::discard);
                return Err(message);
            }
        };
        if outcome.steps.is_empty() {
            extracted.discard();
        } else {
            cheaper.push(extracted);
        }
        let whole_before = total.best;
        total = merge(total, outcome);
        if !whole_before.is_finite() {
            // The set was priced alone, which says nothing of an infinite whole.
            total.best = whole_before;
        }
    }
    splice(function, cheaper);
    Ok(total)
}

/// The number of counted ops ([`counts`]) of each of `sets` (positions of `view`'s ops), for the
/// `explain` remarks.
fn counted_sizes(view: &FunctionView, sets: &[Vec<usize>]) -> Vec<usize> {
    sets.iter()
        .map(|set| set.iter().filter(|&&op| counts(view, op)).count())
        .collect()
}

/// The totals of the searches of a split so far (`total`) and then `outcome`'s: the cost as
/// the function came, the cost after the last search, and every search's rewrites and counts.
fn merge(mut total: Outcome, outcome: Outcome) -> Outcome {
    total.best = outcome.best;
    total.steps.extend(outcome.steps);
    total.expanded += outcome.expanded;
    total.generated += outcome.generated;
    total
}

/// Emits a remark `message` at `location`.
fn remark(location: MlirLocation, message: &str) {
    // SAFETY: the location is alive with its context.
    crate::ir::emit_remark(unsafe { melior::ir::Location::from_raw(location) }, message)
}

/// Reports `message` as the pass's error at `function`.
fn fail(function: Op, message: String) -> PassFailure {
    function.emit_error(&format!("graph-substitute: {message}"));
    PassFailure
}
