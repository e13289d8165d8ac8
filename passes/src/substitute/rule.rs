//! Rules as data: reading a rule file (a module of `graph`-dialect function pairs) into
//! [`Rule`]s, and checking what can be checked without running them.
//!
//! A rule is a nested `module @name` holding `func.func @source` and `func.func @target` with the
//! same signature. The source's arguments are the wildcards (the match's external inputs), its
//! results the values the target replaces. Everything else is written as `rule.*` attributes,
//! so that a rule stays valid `graph` IR that the interpreter can run:
//! - `rule.dims` on an argument names its dimensions (`["n", "c", "h", "w"]`, integers for fixed
//!   sizes); equal names must be equal sizes. A group `"p..."` stands for any number of
//!   dimensions (`["p...", "n", "q..."]`: an axis `n` anywhere), so that one rule holds at every
//!   rank and axis ([`super::sizes`]). Without it every dimension is free but the rank is the
//!   example's; `rule.dims = "*"` matches any shape.
//! - An attribute written on a source op must be equal on the matched op, and the matched op may
//!   have no other; `rule.bind = {strides = "s"}` instead binds the attribute to a name (equal
//!   names must be equal attributes; an integer, or an integer or float splat, also binds the
//!   name as a size). On a target op, `rule.bind` takes the bound attribute (a float becomes a
//!   splat of a constant's type, a splat a float attribute).
//! - On a target op, `rule.set = {starts = ["repeat(0, p)", "i", "repeat(0, q)"]}` computes an
//!   integer attribute from sizes, and `rule.shape` (`rule.shapes` for several results) gives a
//!   result shape that cannot be inferred (reshape, split, slice). Results the target returns
//!   take the source's types. On a source op, both are required of the matched op: `rule.set`
//!   of its attributes (a permutation over any rank), `rule.shape` of its result shape (a
//!   reshape's, whose shape its operand does not decide).
//! - `rule.where = ["kh == kw"]` on the rule module adds conditions; `rule.summary` says what the
//!   rule does, for the listing and the remarks; `rule.weight_fold` marks a rule that folds an op
//!   of the data into the weights of the op before it (a batch norm into a convolution's filter
//!   and bias), which `weight-folds` applies before the search.

pub use super::pattern::{Argument, Body, PatternOp, PatternValue, Rule};

use super::rule_reader::read_rule;
use crate::ir::{emit_error, string_ref, Op};
use melior::ir::Location;
use mlir_sys::*;
use std::path::Path;

/// The rules of one or more files, and the parsed modules they point into.
#[derive(Debug, Default)]
pub struct RuleSet {
    modules: Vec<MlirOperation>,
    /// The rules in file order.
    pub rules: Vec<Rule>,
}

impl Drop for RuleSet {
    fn drop(&mut self) {
        for module in self.modules.drain(..) {
            // SAFETY: the set owns the modules it parsed, and nothing outlives the set.
            unsafe { mlirOperationDestroy(module) }
        }
    }
}

/// The rule files built into the compiler: the default rule set of `graph-substitute`.
pub const BUILTIN_RULE_FILES: &[(&str, &str)] = &[
    (
        "passes/rules/fusion.mlir",
        include_str!("../../rules/fusion.mlir"),
    ),
    (
        "passes/rules/merge.mlir",
        include_str!("../../rules/merge.mlir"),
    ),
    (
        "passes/rules/movement.mlir",
        include_str!("../../rules/movement.mlir"),
    ),
    (
        "passes/rules/algebra.mlir",
        include_str!("../../rules/algebra.mlir"),
    ),
    (
        "passes/rules/exports.mlir",
        include_str!("../../rules/exports.mlir"),
    ),
];

/// Checks one rule for soundness; the tools install one that runs the reference interpreter
/// (this crate does not link it: the compiler never reads IR through the oracle).
pub type RuleChecker = fn(MlirContext, &Rule) -> Result<(), String>;

static CHECKER: std::sync::OnceLock<RuleChecker> = std::sync::OnceLock::new();

/// Installs the checker `graph-substitute{verify}` uses (the first one installed stays).
pub fn set_rule_checker(checker: RuleChecker) {
    let _ = CHECKER.set(checker);
}

/// Checks every rule of `rules` with the installed checker, one at a time; an unsound rule is an
/// error at its rule module.
pub fn verify_rules(
    context: MlirContext,
    rules: &[Rule],
    at: MlirLocation,
) -> Result<(), LoadFailure> {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let Some(checker) = CHECKER.get() else {
        // SAFETY: the location is alive.
        emit_error(
            unsafe { Location::from_raw(at) },
            "this tool cannot verify rules (the reference interpreter is not linked in)",
        );
        return Err(LoadFailure);
    };
    let _guard = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut failed = false;
    for rule in rules {
        if let Err(message) = checker(context, rule) {
            rule.module.emit_error(&format!("unsound rule: {message}"));
            failed = true;
        }
    }
    if failed {
        Err(LoadFailure)
    } else {
        Ok(())
    }
}

/// Why rules could not be loaded; the diagnostics (file and line) were emitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadFailure;

impl RuleSet {
    /// Parses and reads `text` (named `file` in diagnostics) into the set.
    pub fn add_text(
        &mut self,
        context: MlirContext,
        file: &str,
        text: &str,
    ) -> Result<(), LoadFailure> {
        // A file is a sequence of rule modules; the parser wants one top-level op, so the text is
        // put in a module that starts on its first line (line numbers stay the file's).
        let text = format!("module {{{text}\n}}");
        // SAFETY: the context is alive; a null operation means the parser emitted its errors.
        let module =
            unsafe { mlirOperationCreateParse(context, string_ref(&text), string_ref(file)) };
        if module.ptr.is_null() {
            return Err(LoadFailure);
        }
        self.modules.push(module);
        // SAFETY: MLIR just parsed the module, which the rule set keeps alive until it is dropped.
        let module = unsafe { Op::from_raw(module) };
        let mut failed = false;
        for nested in module.body_ops() {
            match read_rule(nested) {
                Ok(rule) if self.rules.iter().any(|other| other.name == rule.name) => {
                    nested.emit_error(&format!("rule '{}' is defined twice", rule.name));
                    failed = true;
                }
                Ok(rule) => self.rules.push(rule),
                Err(()) => failed = true,
            }
        }
        if failed {
            Err(LoadFailure)
        } else {
            Ok(())
        }
    }

    /// Reads the file at `path` into the set.
    pub fn add_file(
        &mut self,
        context: MlirContext,
        path: &str,
        at: MlirLocation,
    ) -> Result<(), LoadFailure> {
        match turbine_files::read_text(Path::new(path), turbine_files::TEXT) {
            Ok(text) => self.add_text(context, path, &text),
            Err(error) => {
                // SAFETY: the location is alive.
                emit_error(
                    unsafe { Location::from_raw(at) },
                    &format!("cannot read rule file '{path}': {}", error.reason),
                );
                Err(LoadFailure)
            }
        }
    }

    /// The built-in rules.
    pub fn builtin(context: MlirContext) -> Result<RuleSet, LoadFailure> {
        let mut set = RuleSet::default();
        for (file, text) in BUILTIN_RULE_FILES {
            set.add_text(context, file, text)?;
        }
        Ok(set)
    }
}
