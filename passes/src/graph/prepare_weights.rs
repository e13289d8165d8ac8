//! `graph-prepare-weights`: what a function computes from its weights and constants alone moves
//! to a function of its own that the driver runs once, when it loads the model, and whose
//! results the function then reads as weights.
//!
//! MetaFlow (§3, "target graph") builds the weights of the operators a substitution creates from
//! the source graph's weights: merging parallel projections concatenates their weights once, not
//! on every inference. The substitutions here write that computation as graph ops on
//! `graph.weight`s (a `graph.concat` of the merged filters, a `graph.pad` of a widened kernel);
//! this pass takes those ops out of the inference. Each public function `@f` whose top-level ops
//! compute a value from weights and constants only (transitively) that another op reads gets a
//! public function `@f_weights` without arguments returning those values (marked
//! `graph.prepares_weights`), the ops computing them moved into it (the weights and constants
//! they read copied), and each use in `@f` reads instead a `graph.weight` named `f_weights:N`
//! (its `N`-th result) at the location of the op that computed it. A value computed by views
//! alone (a reshape, flatten or broadcast of a weight) stays: it costs nothing to read in place.
//! Private functions (outlined bodies, which receive their weights from their callers), ops
//! inside regions and the functions the pass made are left alone, so the pass is idempotent.
//!
//! The driver compiles `@f_weights` with `@f`, runs it when it loads the weights and binds its
//! results to the weights named after it; the interpreter evaluates the model as imported.

use crate::{
    graph_view::FunctionView,
    ir::{self, block_ops, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use std::collections::{BTreeSet, HashMap, HashSet};
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The separator between a preparing function's name and a result index in the name of a
/// prepared weight (`main_weights:0`).
pub const PREPARED_SEPARATOR: char = ':';

/// The unit attribute marking a function this pass made: it computes weights for another.
pub const PREPARES_WEIGHTS: &str = "graph.prepares_weights";

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct PrepareWeights {
    enabled: bool,
    explain: bool,
}

impl Pass for PrepareWeights {
    const ARGUMENT: &'static str = "graph-prepare-weights";
    const SUMMARY: &'static str =
        "Move what functions compute from weights alone into functions run once at load time";
    const DESCRIPTION: &'static str = "\
MetaFlow (§3) computes the weights of the operators a substitution creates from the source \
graph's weights once, not on every inference. For each public function `@f` whose top-level ops \
compute a value from `graph.weight`s and `graph.constant`s alone that another op reads, the pass \
creates a public function `@f_weights` (without arguments, marked `graph.prepares_weights`) \
returning those values, moves the ops that compute them into it, and makes `@f` read each as a \
`graph.weight` named `f_weights:N`, its N-th result. Values computed by views alone (reshape, \
flatten, broadcast) stay where they are; private functions (outlined bodies, which take their \
weights as arguments) and the functions the pass made are left alone. The driver runs \
`@f_weights` when it loads the model and binds its results to those weights. With `explain`, a \
remark on each prepared value.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "enabled",
            description: "Prepare weights; false leaves the module as it is (the pipelines' \
                          prepare-weights option)",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "explain",
            description: "Emit a remark on each value computed at load time",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            enabled: options.bool("enabled")?,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        if !self.enabled {
            return Ok(());
        }
        // Only entries receive weights from the driver (a private function, such as an outlined
        // body, takes them as arguments), and a preparation is not prepared again.
        let functions: Vec<Op> = module
            .body_ops()
            .into_iter()
            .filter(|op| op.is(upstream::Kind::FuncFunc) && !op.regions_empty())
            .filter(|op| op.string_value("sym_visibility").as_deref() != Some("private"))
            .filter(|op| op.attribute(PREPARES_WEIGHTS).is_none())
            .collect();
        let mut symbols: BTreeSet<String> = functions
            .iter()
            .map(|function| function.symbol_name())
            .collect();
        for function in functions {
            if let Some(preparation) = Preparation::of(function) {
                let name = unique_name(&format!("{}_weights", function.symbol_name()), &symbols);
                symbols.insert(name.clone());
                preparation.outline(function, &name, self.explain);
            }
        }
        Ok(())
    }
}

/// The weight-only computation of a function: the ops to move, in order, and the values the
/// function's other ops read from them.
struct Preparation {
    /// The ops computing the prepared values, in block order: copied into the new function, and
    /// erased from the old one unless an op that stays reads them (a view of a weight).
    moved: Vec<Op>,
    /// The values the function reads from them.
    prepared: Vec<Val>,
}

impl Preparation {
    /// The preparation of `function` ([`FunctionView::prepared`]), None when nothing its ops
    /// read is worth preparing or the function cannot be read.
    fn of(function: Op) -> Option<Self> {
        let view = FunctionView::read(function).ok()?;
        let prepared = view.prepared();
        if prepared.is_empty() {
            return None;
        }
        let moved = view
            .ops
            .iter()
            .zip(&prepared.ops)
            .filter(|(_, &moved)| moved)
            .map(|(node, _)| node.op)
            .collect();
        let values = prepared
            .values
            .iter()
            .map(|&value| {
                let node = &view.ops[view.producer(value).expect("a prepared value has an op")];
                let position = node
                    .results
                    .iter()
                    .position(|(result, _)| *result == value)
                    .expect("the op defines the value");
                node.op.result(position)
            })
            .collect();
        Some(Self {
            moved,
            prepared: values,
        })
    }

    /// Copies the computation into a new public function `name` before `function` and makes
    /// `function` read its results as weights.
    fn outline(self, function: Op, name: &str, explain: bool) {
        let context = function.context();
        let location = function.location();
        let result_types: Vec<MlirType> =
            self.prepared.iter().map(|value| value.r#type()).collect();
        let (body, block) = ir::region_with_block(&[], location);
        ir::create(
            InsertionPoint::Before(function),
            location,
            upstream::Kind::FuncFunc,
            &[],
            &[],
            &[
                ("sym_name", ir::string_attribute(context, name)),
                (
                    "function_type",
                    // SAFETY: the type is alive in the context.
                    unsafe { mlirTypeAttrGet(ir::function_type(context, &[], &result_types)) },
                ),
                // SAFETY: the context is alive.
                (PREPARES_WEIGHTS, unsafe { mlirUnitAttrGet(context) }),
            ],
            vec![body],
        );
        let first = *function.body_ops().first().expect("a function with ops");
        let moved: HashSet<Op> = self.moved.iter().copied().collect();
        let copies = self.copy_into(block);
        for (index, value) in self.prepared.iter().enumerate() {
            let producer = value
                .defining_op()
                .expect("a prepared value is an op's result");
            let weight_name = format!("{name}{PREPARED_SEPARATOR}{index}");
            let weight = ir::create(
                InsertionPoint::Before(first),
                producer.location(),
                graph::Kind::Weight,
                &[],
                &[value.r#type()],
                &[("name", ir::string_attribute(context, &weight_name))],
                Vec::new(),
            );
            for (user, operand) in value.uses() {
                if !moved.contains(&user) {
                    user.set_operand(operand, weight.result(0));
                }
            }
            if explain {
                producer.emit_remark(&format!(
                    "computed from weights and constants alone: prepared once at load time by \
                     @{name} and read as weight '{weight_name}'"
                ));
            }
        }
        let returned: Vec<Val> = self.prepared.iter().map(|value| copies[value]).collect();
        ir::create(
            InsertionPoint::End(block),
            location,
            upstream::Kind::FuncReturn,
            &returned,
            &[],
            &[],
            Vec::new(),
        );
        for op in self.moved.iter().rev() {
            if op.results().iter().all(|value| value.is_unused()) {
                // SAFETY: the op has no uses and no regions, and its handle is not used again.
                unsafe { op.erase() };
            }
        }
        erase_unused_definitions(function);
    }

    /// Copies the ops to the end of `block`, each weight and constant they read copied there
    /// first; returns the copy in `block` of each value they read or define.
    fn copy_into(&self, block: MlirBlock) -> HashMap<Val, Val> {
        let mut copies: HashMap<Val, Val> = HashMap::new();
        let append = |op: Op| {
            // SAFETY: the op is alive; its clone is detached, and handed to the block at once.
            let clone = unsafe { Op::from_raw(mlirOperationClone(op.raw())) };
            // SAFETY: the block is alive and the clone detached and ours.
            unsafe { mlirBlockAppendOwnedOperation(block, clone.raw()) };
            clone
        };
        for op in &self.moved {
            for operand in op.operands() {
                copies.entry(operand).or_insert_with(|| {
                    let definition = operand.defining_op().expect("a weight or constant");
                    append(definition).result(0)
                });
            }
            let clone = append(*op);
            for (index, operand) in op.operands().into_iter().enumerate() {
                clone.set_operand(index, copies[&operand]);
            }
            for (value, copy) in op.results().into_iter().zip(clone.results()) {
                copies.insert(value, copy);
            }
        }
        copies
    }
}

/// Erases the weights and constants of `function`'s body that nothing reads any more.
fn erase_unused_definitions(function: Op) {
    let Some(block) = function.entry_block() else {
        return;
    };
    for op in block_ops(block) {
        let definition = op.is(graph::Kind::Weight) || op.is(graph::Kind::Constant);
        if definition && op.results().iter().all(|value| value.is_unused()) {
            // SAFETY: the op has no uses and no regions, and its handle is not used again.
            unsafe { op.erase() };
        }
    }
}

/// `base`, or `base_N` for the first N that no symbol of `symbols` has.
fn unique_name(base: &str, symbols: &BTreeSet<String>) -> String {
    (0..)
        .map(|n| match n {
            0 => base.to_string(),
            _ => format!("{base}_{n}"),
        })
        .find(|name| !symbols.contains(name))
        .expect("some suffix is free")
}
