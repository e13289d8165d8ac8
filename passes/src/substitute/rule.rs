//! Rules as data: reading a rule file (a module of `graph`-dialect function pairs) into
//! [`Rule`]s, and checking what can be checked without running them.
//!
//! A rule is a nested `module @name` holding `func.func @source` and `func.func @target` with the
//! same signature. The source's arguments are the wildcards (the match's external inputs), its
//! results the values the target replaces. Everything else is written as `rule.*` attributes,
//! so that a rule stays valid `graph` IR that the interpreter can run:
//! - `rule.dims` on an argument names its dimensions (`["n", "c", "h", "w"]`, integers for fixed
//!   sizes); equal names must be equal sizes. Without it every dimension is free but the rank is
//!   the example's; `rule.dims = "*"` matches any shape.
//! - An attribute written on a source op must be equal on the matched op, and the matched op may
//!   have no other; `rule.bind = {strides = "s"}` instead binds the attribute to a name (equal
//!   names must be equal attributes; an integer, or an integer or float splat, also binds the
//!   name as a size). On a target op, `rule.bind` takes the bound attribute (a float becomes a
//!   splat of a constant's type, a splat a float attribute).
//! - On a target op, `rule.set = {starts = ["i", 0]}` computes an integer array from sizes, and
//!   `rule.shape` (`rule.shapes` for several results) gives a result shape that cannot be
//!   inferred (reshape, split, slice). Results the target returns take the source's types. On a
//!   source op, `rule.shape` constrains the matched op's result shape (a reshape's, whose shape
//!   its operand does not decide).
//! - `rule.where = ["kh == kw"]` on the rule module adds conditions; `rule.summary` says what the
//!   rule does, for the listing and the remarks.

use super::expr::{Condition, Expr};
use crate::ir::{emit_error, string_ref, to_string, Op};
use melior::ir::Location;
use mlir_sys::*;

/// A value of a rule body: an argument of the function or a result of one of its ops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatternValue {
    /// Argument `index` of the function.
    Argument(usize),
    /// Result `result` of op `op` (an index into [`Body::ops`]).
    Result(usize, usize),
}

/// An op of a rule body.
#[derive(Debug, Clone)]
pub struct PatternOp {
    /// The op in the rule file (location, written result types and attributes).
    pub op: Op,
    /// Its name, such as `graph.conv2d`.
    pub name: String,
    /// Its operands.
    pub operands: Vec<PatternValue>,
    /// Its result count.
    pub result_count: usize,
    /// Attributes as written: equal on a match (source), set as they are (target).
    pub written: Vec<(String, MlirAttribute)>,
    /// Attributes bound to names (`rule.bind`).
    pub bound: Vec<(String, String)>,
    /// Integer-array attributes computed from sizes (`rule.set`; target only).
    pub computed: Vec<(String, Vec<Expr>)>,
    /// Result shapes given by the rule (`rule.shape` / `rule.shapes`): built so on a target op,
    /// required of the matched op on a source op.
    pub shapes: Option<Vec<Vec<Expr>>>,
}

/// A function of a rule: its ops in order and the values it returns.
#[derive(Debug, Clone)]
pub struct Body {
    /// The function in the rule file.
    pub function: Op,
    /// Its ops (the terminator excluded).
    pub ops: Vec<PatternOp>,
    /// The returned values.
    pub results: Vec<PatternValue>,
}

/// A wildcard of a rule: one argument of its functions.
#[derive(Debug, Clone)]
pub struct Argument {
    /// Its dimensions (names or fixed sizes); None: any shape (`rule.dims = "*"`).
    pub dims: Option<Vec<Expr>>,
    /// Its element type.
    pub element: MlirType,
}

/// One substitution rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The rule module's symbol name.
    pub name: String,
    /// What it does (`rule.summary`).
    pub summary: String,
    /// The rule module (for diagnostics).
    pub module: Op,
    /// The wildcards.
    pub arguments: Vec<Argument>,
    /// Extra conditions on the bound sizes.
    pub conditions: Vec<Condition>,
    /// The pattern to find.
    pub source: Body,
    /// What replaces it.
    pub target: Body,
}

impl Rule {
    /// Where the rule is written (its module's location).
    pub fn location(&self) -> MlirLocation {
        self.module.location()
    }
}

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
        let module = Op(module);
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
        match std::fs::read_to_string(path) {
            Ok(text) => self.add_text(context, path, &text),
            Err(error) => {
                // SAFETY: the location is alive.
                emit_error(
                    unsafe { Location::from_raw(at) },
                    &format!("cannot read rule file '{path}': {error}"),
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

fn read_rule(module: Op) -> Result<Rule, ()> {
    let fail = |op: Op, message: &str| {
        op.emit_error(message);
        Err(())
    };
    if module.name() != "builtin.module" {
        return fail(
            module,
            "a rule file holds rules: a `module @name` with functions @source and @target",
        );
    }
    let Some(name) = string_attribute(module, "sym_name") else {
        return fail(module, "a rule module needs a name (`module @name`)");
    };
    let function = |wanted: &str| {
        module.body_ops().into_iter().find(|op| {
            op.name() == "func.func" && string_attribute(*op, "sym_name").as_deref() == Some(wanted)
        })
    };
    let (Some(source), Some(target)) = (function("source"), function("target")) else {
        return fail(
            module,
            &format!("rule '{name}' needs functions @source and @target"),
        );
    };
    // SAFETY: both are live func.func ops.
    let (source_type, target_type) = unsafe {
        (
            mlirOperationGetAttributeByName(source.0, string_ref("function_type")),
            mlirOperationGetAttributeByName(target.0, string_ref("function_type")),
        )
    };
    // SAFETY: attributes of one context compare by identity.
    if !unsafe { mlirAttributeEqual(source_type, target_type) } {
        return fail(
            target,
            &format!("rule '{name}': @target's signature differs from @source's"),
        );
    }
    let arguments = read_arguments(source)?;
    let conditions = match string_list(module, "rule.where") {
        Ok(texts) => texts
            .iter()
            .map(|text| Condition::parse(text))
            .collect::<Result<Vec<_>, _>>(),
        Err(message) => Err(message),
    };
    let conditions = match conditions {
        Ok(conditions) => conditions,
        Err(message) => return fail(module, &format!("rule '{name}': rule.where: {message}")),
    };
    let source = read_body(source, false)?;
    let target = read_body(target, true)?;
    if source.ops.is_empty() {
        return fail(
            source.function,
            &format!("rule '{name}': @source has no op to match"),
        );
    }
    for (index, _) in arguments.iter().enumerate() {
        let used = source
            .ops
            .iter()
            .any(|op| op.operands.contains(&PatternValue::Argument(index)));
        if !used {
            return fail(source.function, &format!("rule '{name}': argument {index} is not read by @source, so no match can bind it"));
        }
    }
    let summary = string_attribute(module, "rule.summary").unwrap_or_default();
    let rule = Rule {
        name,
        summary,
        module,
        arguments,
        conditions,
        source,
        target,
    };
    check_names(&rule)?;
    Ok(rule)
}

/// Every name the target reads is bound by the source.
fn check_names(rule: &Rule) -> Result<(), ()> {
    let mut sizes: Vec<&str> = Vec::new();
    for argument in &rule.arguments {
        for dim in argument.dims.iter().flatten() {
            dim.names(&mut sizes);
        }
    }
    // A bare name in a source op's rule.shape is bound by the match too.
    sizes.extend(
        rule.source
            .ops
            .iter()
            .flat_map(|op| op.shapes.iter().flatten().flatten())
            .filter_map(|dim| dim.as_var()),
    );
    let attributes: Vec<&str> = rule
        .source
        .ops
        .iter()
        .flat_map(|op| op.bound.iter().map(|(_, name)| name.as_str()))
        .collect();
    for op in rule.source.ops.iter().chain(&rule.target.ops) {
        for (attribute, name) in &op.bound {
            if !attributes.contains(&name.as_str()) {
                op.op.emit_error(&format!(
                    "rule '{}': '{attribute}' takes '{name}', which @source does not bind",
                    rule.name
                ));
                return Err(());
            }
        }
        let mut read = Vec::new();
        for (_, exprs) in &op.computed {
            exprs.iter().for_each(|expr| expr.names(&mut read));
        }
        for shape in op.shapes.iter().flatten() {
            shape.iter().for_each(|expr| expr.names(&mut read));
        }
        for name in read {
            if !sizes.contains(&name) && !attributes.contains(&name) {
                op.op.emit_error(&format!(
                    "rule '{}': size '{name}' is not bound by @source",
                    rule.name
                ));
                return Err(());
            }
        }
    }
    Ok(())
}

fn read_arguments(function: Op) -> Result<Vec<Argument>, ()> {
    // SAFETY: a live func.func; its function_type is a FunctionType and arg_attrs, when present,
    // an array of dictionaries (the func dialect's verifier guarantees both).
    unsafe {
        let r#type = mlirTypeAttrGetValue(mlirOperationGetAttributeByName(
            function.0,
            string_ref("function_type"),
        ));
        let argument_attributes =
            mlirOperationGetAttributeByName(function.0, string_ref("arg_attrs"));
        let mut arguments = Vec::new();
        for index in 0..mlirFunctionTypeGetNumInputs(r#type) {
            let input = mlirFunctionTypeGetInput(r#type, index);
            if !mlirTypeIsARankedTensor(input) || !mlirShapedTypeHasStaticShape(input) {
                function.emit_error(&format!("argument {index} of a rule must be a statically shaped tensor (an example of the shapes it matches)"));
                return Err(());
            }
            let rank = mlirShapedTypeGetRank(input) as usize;
            let element = mlirShapedTypeGetElementType(input);
            let mut dims: Option<Vec<Expr>> = Some(
                (0..rank)
                    .map(|d| Expr::Var(format!("arg{index}_d{d}")))
                    .collect(),
            );
            if !argument_attributes.ptr.is_null() {
                let dictionary = mlirArrayAttrGetElement(argument_attributes, index);
                let named = mlirDictionaryAttrGetElementByName(dictionary, string_ref("rule.dims"));
                if !named.ptr.is_null()
                    && mlirAttributeIsAString(named)
                    && to_string(mlirStringAttrGetValue(named)) == "*"
                {
                    dims = None;
                } else if !named.ptr.is_null() {
                    dims = match expr_list(named) {
                        Ok(list) if list.len() == rank => Some(list),
                        Ok(list) => {
                            function.emit_error(&format!("rule.dims of argument {index} names {} dimensions, its type has {rank}", list.len()));
                            return Err(());
                        }
                        Err(message) => {
                            function
                                .emit_error(&format!("rule.dims of argument {index}: {message}"));
                            return Err(());
                        }
                    };
                }
            }
            arguments.push(Argument { dims, element });
        }
        Ok(arguments)
    }
}

fn read_body(function: Op, is_target: bool) -> Result<Body, ()> {
    let mut ops: Vec<PatternOp> = Vec::new();
    let mut results = Vec::new();
    // SAFETY: the ops are alive in the parsed rule module; values are compared by handle.
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function.0, 0));
        let value_of = |value: MlirValue, ops: &[PatternOp]| -> PatternValue {
            if mlirValueIsABlockArgument(value) {
                PatternValue::Argument(mlirBlockArgumentGetArgNumber(value) as usize)
            } else {
                let owner = mlirOpResultGetOwner(value);
                let index = ops
                    .iter()
                    .position(|op| mlirOperationEqual(op.op.0, owner))
                    .expect("operands are defined before use");
                PatternValue::Result(index, mlirOpResultGetResultNumber(value) as usize)
            }
        };
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            let handle = Op(op);
            let operands: Vec<PatternValue> = (0..mlirOperationGetNumOperands(op))
                .map(|i| value_of(mlirOperationGetOperand(op, i), &ops))
                .collect();
            if handle.name() == "func.return" {
                results = operands;
            } else {
                if !handle.name().starts_with("graph.") || mlirOperationGetNumRegions(op) > 0 {
                    handle.emit_error("rules match and build `graph` ops without regions");
                    return Err(());
                }
                ops.push(read_op(handle, operands, is_target)?);
            }
            op = mlirOperationGetNextInBlock(op);
        }
    }
    Ok(Body {
        function,
        ops,
        results,
    })
}

fn read_op(op: Op, operands: Vec<PatternValue>, is_target: bool) -> Result<PatternOp, ()> {
    let fail = |message: String| {
        op.emit_error(&message);
        Err(())
    };
    let (mut written, mut bound, mut computed, mut shapes) =
        (Vec::new(), Vec::new(), Vec::new(), None);
    // SAFETY: a live op; attributes are checked by kind before they are read.
    unsafe {
        for index in 0..mlirOperationGetNumAttributes(op.0) {
            let named = mlirOperationGetAttribute(op.0, index);
            let name = to_string(mlirIdentifierStr(named.name));
            let value = named.attribute;
            match name.as_str() {
                "rule.bind" => match string_dictionary(value) {
                    Ok(entries) => bound = entries,
                    Err(message) => return fail(format!("rule.bind: {message}")),
                },
                "rule.set" if !is_target => {
                    return fail("rule.set belongs on @target ops (a source op's attributes are matched or bound)".to_owned())
                }
                "rule.set" => {
                    if !mlirAttributeIsADictionary(value) {
                        return fail("rule.set must be a dictionary of integer lists".to_owned());
                    }
                    for entry in 0..mlirDictionaryAttrGetNumElements(value) {
                        let element = mlirDictionaryAttrGetElement(value, entry);
                        match expr_list(element.attribute) {
                            Ok(list) => computed.push((to_string(mlirIdentifierStr(element.name)), list)),
                            Err(message) => return fail(format!("rule.set: {message}")),
                        }
                    }
                }
                "rule.shape" => match expr_list(value) {
                    Ok(list) => shapes = Some(vec![list]),
                    Err(message) => return fail(format!("rule.shape: {message}")),
                },
                "rule.shapes" => {
                    let mut list = Vec::new();
                    for element in 0..array_len(value) {
                        match expr_list(mlirArrayAttrGetElement(value, element)) {
                            Ok(shape) => list.push(shape),
                            Err(message) => return fail(format!("rule.shapes: {message}")),
                        }
                    }
                    shapes = Some(list);
                }
                other if other.starts_with("rule.") => return fail(format!("unknown rule attribute '{other}'")),
                _ => written.push((name, value)),
            }
        }
        let result_count = mlirOperationGetNumResults(op.0) as usize;
        if let Some(list) = &shapes {
            if list.len() != result_count {
                return fail(format!(
                    "rule.shape(s) gives {} shapes for {result_count} results",
                    list.len()
                ));
            }
        }
        written.retain(|(name, _)| !bound.iter().any(|(attribute, _)| attribute == name));
        Ok(PatternOp {
            op,
            name: op.name(),
            operands,
            result_count,
            written,
            bound,
            computed,
            shapes,
        })
    }
}

/// A string attribute of `op`, None when absent or not a string.
pub(crate) fn string_attribute(op: Op, name: &str) -> Option<String> {
    // SAFETY: a live op; the kind is checked before the value is read.
    unsafe {
        let attribute = mlirOperationGetAttributeByName(op.0, string_ref(name));
        (!attribute.ptr.is_null() && mlirAttributeIsAString(attribute))
            .then(|| to_string(mlirStringAttrGetValue(attribute)))
    }
}

fn string_list(op: Op, name: &str) -> Result<Vec<String>, String> {
    // SAFETY: a live op; kinds are checked before values are read.
    unsafe {
        let attribute = mlirOperationGetAttributeByName(op.0, string_ref(name));
        if attribute.ptr.is_null() {
            return Ok(Vec::new());
        }
        (0..array_len(attribute))
            .map(|index| {
                let element = mlirArrayAttrGetElement(attribute, index);
                if mlirAttributeIsAString(element) {
                    Ok(to_string(mlirStringAttrGetValue(element)))
                } else {
                    Err("expects a list of strings".to_owned())
                }
            })
            .collect()
    }
}

unsafe fn array_len(attribute: MlirAttribute) -> isize {
    // SAFETY: the caller's attribute is alive.
    unsafe {
        if mlirAttributeIsAArray(attribute) {
            mlirArrayAttrGetNumElements(attribute)
        } else {
            0
        }
    }
}

/// A list of sizes: integers and expression strings.
unsafe fn expr_list(attribute: MlirAttribute) -> Result<Vec<Expr>, String> {
    // SAFETY: the caller's attribute is alive; kinds are checked before values are read.
    unsafe {
        if !mlirAttributeIsAArray(attribute) {
            return Err("expects a list of sizes (integers or names)".to_owned());
        }
        (0..mlirArrayAttrGetNumElements(attribute))
            .map(|index| {
                let element = mlirArrayAttrGetElement(attribute, index);
                if mlirAttributeIsAInteger(element) {
                    Ok(Expr::Int(mlirIntegerAttrGetValueInt(element)))
                } else if mlirAttributeIsAString(element) {
                    Expr::parse(&to_string(mlirStringAttrGetValue(element)))
                } else {
                    Err("expects a list of sizes (integers or names)".to_owned())
                }
            })
            .collect()
    }
}

unsafe fn string_dictionary(attribute: MlirAttribute) -> Result<Vec<(String, String)>, String> {
    // SAFETY: as for `expr_list`.
    unsafe {
        if !mlirAttributeIsADictionary(attribute) {
            return Err("expects a dictionary of names".to_owned());
        }
        (0..mlirDictionaryAttrGetNumElements(attribute))
            .map(|index| {
                let element = mlirDictionaryAttrGetElement(attribute, index);
                if mlirAttributeIsAString(element.attribute) {
                    Ok((
                        to_string(mlirIdentifierStr(element.name)),
                        to_string(mlirStringAttrGetValue(element.attribute)),
                    ))
                } else {
                    Err("expects a dictionary of names".to_owned())
                }
            })
            .collect()
    }
}
