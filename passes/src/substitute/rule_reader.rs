//! Reading one rule module of a rule file into a [`Rule`] ([`read_rule`]), with the checks that
//! need no interpreter: the signatures of @source and @target, the `rule.*` attributes, and the
//! names the target and the conditions use.

use super::expr::{Condition, Expr};
use super::pattern::{Argument, Body, PatternOp, PatternValue, Rule};
use super::sizes::Item;
use crate::ir::{string_ref, to_string, Op};
use mlir_sys::*;
use turbine_dialects::ops::{graph, upstream, OpKind};

/// Reads the rule module `module`; the diagnostics of what is wrong with it were emitted.
pub(super) fn read_rule(module: Op) -> Result<Rule, ()> {
    let fail = |op: Op, message: &str| {
        op.emit_error(message);
        Err(())
    };
    if !module.is(upstream::Kind::BuiltinModule) {
        return fail(
            module,
            "a rule file holds rules: a `module @name` with functions @source and @target",
        );
    }
    let Some(name) = string_attribute(module, "sym_name") else {
        return fail(module, "a rule module needs a name (`module @name`)");
    };
    let (source, target) = rule_functions(module, &name)?;
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
    let source = read_body(source)?;
    let target = read_body(target)?;
    if source.ops.is_empty() {
        return fail(
            source.function,
            &format!("rule '{name}': @source has no op to match"),
        );
    }
    arguments_read(&name, &source, arguments.len())?;
    let summary = string_attribute(module, "rule.summary").unwrap_or_default();
    let weight_fold = module.attribute("rule.weight_fold").is_some();
    let rule = Rule {
        name,
        summary,
        weight_fold,
        module,
        arguments,
        conditions,
        source,
        target,
    };
    check_names(&rule)?;
    Ok(rule)
}

/// The functions @source and @target of the rule module `module` (rule `name`); an error, emitted,
/// when one is missing or their signatures differ.
fn rule_functions(module: Op, name: &str) -> Result<(Op, Op), ()> {
    let function = |wanted: &str| {
        module.body_ops().into_iter().find(|op| {
            op.is(upstream::Kind::FuncFunc)
                && string_attribute(*op, "sym_name").as_deref() == Some(wanted)
        })
    };
    let (Some(source), Some(target)) = (function("source"), function("target")) else {
        module.emit_error(&format!(
            "rule '{name}' needs functions @source and @target"
        ));
        return Err(());
    };
    // SAFETY: both are live func.func ops.
    let (source_type, target_type) = unsafe {
        (
            mlirOperationGetAttributeByName(source.raw(), string_ref("function_type")),
            mlirOperationGetAttributeByName(target.raw(), string_ref("function_type")),
        )
    };
    // SAFETY: attributes of one context compare by identity.
    if !unsafe { mlirAttributeEqual(source_type, target_type) } {
        target.emit_error(&format!(
            "rule '{name}': @target's signature differs from @source's"
        ));
        return Err(());
    }
    Ok((source, target))
}

/// Checks that @source (of rule `name`) reads each of its `count` arguments, which a match must
/// bind; an error, emitted at @source, names the first it does not read.
fn arguments_read(name: &str, source: &Body, count: usize) -> Result<(), ()> {
    for index in 0..count {
        let used = source
            .ops
            .iter()
            .any(|op| op.operands.contains(&PatternValue::Argument(index)));
        if !used {
            source.function.emit_error(&format!(
                "rule '{name}': argument {index} is not read by @source, so no match can bind it"
            ));
            return Err(());
        }
    }
    Ok(())
}

/// Every name the target reads is bound by the source.
fn check_names(rule: &Rule) -> Result<(), ()> {
    let mut sizes: Vec<&str> = Vec::new();
    for argument in &rule.arguments {
        for dim in argument.dims.iter().flatten() {
            dim.names(&mut sizes);
        }
    }
    // A bare name or a group in a source op's rule.shape is bound by the match too.
    sizes.extend(
        rule.source
            .ops
            .iter()
            .flat_map(|op| op.shapes.iter().flatten().flatten())
            .filter_map(|dim| match dim {
                Item::Group(group) => Some(group.as_str()),
                dim => dim.as_var(),
            }),
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
            function.raw(),
            string_ref("function_type"),
        ));
        let argument_attributes =
            mlirOperationGetAttributeByName(function.raw(), string_ref("arg_attrs"));
        let mut arguments = Vec::new();
        for index in 0..mlirFunctionTypeGetNumInputs(r#type) {
            let input = mlirFunctionTypeGetInput(r#type, index);
            if !mlirTypeIsARankedTensor(input) || !mlirShapedTypeHasStaticShape(input) {
                function.emit_error(&format!(
                    "argument {index} of a rule must be a statically shaped tensor (an example \
                     of the shapes it matches)"
                ));
                return Err(());
            }
            let rank = mlirShapedTypeGetRank(input) as usize;
            let element = mlirShapedTypeGetElementType(input);
            let mut dims: Option<Vec<Item>> = Some(
                (0..rank)
                    .map(|d| Item::Size(Expr::Var(format!("arg{index}_d{d}"))))
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
                    dims = match item_list(named).and_then(|list| dims_of(list, rank)) {
                        Ok(list) => Some(list),
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

fn read_body(function: Op) -> Result<Body, ()> {
    let mut ops: Vec<PatternOp> = Vec::new();
    let mut results = Vec::new();
    // SAFETY: the ops are alive in the parsed rule module, and so are the handles made of them;
    // values are compared by handle.
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(function.raw(), 0));
        let value_of = |value: MlirValue, ops: &[PatternOp]| -> PatternValue {
            if mlirValueIsABlockArgument(value) {
                PatternValue::Argument(mlirBlockArgumentGetArgNumber(value) as usize)
            } else {
                let owner = mlirOpResultGetOwner(value);
                let index = ops
                    .iter()
                    .position(|op| mlirOperationEqual(op.op.raw(), owner))
                    .expect("operands are defined before use");
                PatternValue::Result(index, mlirOpResultGetResultNumber(value) as usize)
            }
        };
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            let handle = Op::from_raw(op);
            let operands: Vec<PatternValue> = (0..mlirOperationGetNumOperands(op))
                .map(|i| value_of(mlirOperationGetOperand(op, i), &ops))
                .collect();
            if handle.is(upstream::Kind::FuncReturn) {
                results = operands;
            } else {
                let kind = handle.kind().and_then(OpKind::graph);
                let (Some(kind), 0) = (kind, mlirOperationGetNumRegions(op)) else {
                    handle.emit_error("rules match and build `graph` ops without regions");
                    return Err(());
                };
                ops.push(read_op(handle, kind, operands)?);
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

fn read_op(op: Op, kind: graph::Kind, operands: Vec<PatternValue>) -> Result<PatternOp, ()> {
    let fail = |message: String| {
        op.emit_error(&message);
        Err(())
    };
    let (mut written, mut bound, mut computed, mut shapes) =
        (Vec::new(), Vec::new(), Vec::new(), None);
    // SAFETY: a live op; attributes are checked by kind before they are read.
    unsafe {
        for index in 0..mlirOperationGetNumAttributes(op.raw()) {
            let named = mlirOperationGetAttribute(op.raw(), index);
            let name = to_string(mlirIdentifierStr(named.name));
            let value = named.attribute;
            match name.as_str() {
                "rule.bind" => match string_dictionary(value) {
                    Ok(entries) => bound = entries,
                    Err(message) => return fail(format!("rule.bind: {message}")),
                },
                "rule.set" => {
                    if !mlirAttributeIsADictionary(value) {
                        return fail("rule.set must be a dictionary of integer lists".to_owned());
                    }
                    for entry in 0..mlirDictionaryAttrGetNumElements(value) {
                        let element = mlirDictionaryAttrGetElement(value, entry);
                        match item_list(element.attribute) {
                            Ok(list) => {
                                computed.push((to_string(mlirIdentifierStr(element.name)), list))
                            }
                            Err(message) => return fail(format!("rule.set: {message}")),
                        }
                    }
                }
                "rule.shape" => match item_list(value) {
                    Ok(list) => shapes = Some(vec![list]),
                    Err(message) => return fail(format!("rule.shape: {message}")),
                },
                "rule.shapes" => {
                    let mut list = Vec::new();
                    for element in 0..array_len(value) {
                        match item_list(mlirArrayAttrGetElement(value, element)) {
                            Ok(shape) => list.push(shape),
                            Err(message) => return fail(format!("rule.shapes: {message}")),
                        }
                    }
                    shapes = Some(list);
                }
                other if other.starts_with("rule.") => {
                    return fail(format!("unknown rule attribute '{other}'"))
                }
                _ => written.push((name, value)),
            }
        }
        let result_count = mlirOperationGetNumResults(op.raw()) as usize;
        if let Some(list) = &shapes {
            if list.len() != result_count {
                return fail(format!(
                    "rule.shape(s) gives {} shapes for {result_count} results",
                    list.len()
                ));
            }
        }
        written.retain(|(name, _)| {
            !bound.iter().any(|(attribute, _)| attribute == name)
                && !computed.iter().any(|(attribute, _)| attribute == name)
        });
        Ok(PatternOp {
            op,
            kind,
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
        let attribute = mlirOperationGetAttributeByName(op.raw(), string_ref(name));
        (!attribute.ptr.is_null() && mlirAttributeIsAString(attribute))
            .then(|| to_string(mlirStringAttrGetValue(attribute)))
    }
}

fn string_list(op: Op, name: &str) -> Result<Vec<String>, String> {
    // SAFETY: a live op; kinds are checked before values are read.
    unsafe {
        let attribute = mlirOperationGetAttributeByName(op.raw(), string_ref(name));
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

/// The dimensions of an argument of rank `rank`: sizes and groups only (what a match binds), as
/// many sizes as the rank without groups, at most as many with them.
fn dims_of(list: Vec<Item>, rank: usize) -> Result<Vec<Item>, String> {
    if list
        .iter()
        .any(|item| !matches!(item, Item::Size(_) | Item::Group(_)))
    {
        return Err("only sizes and groups (\"p...\") name dimensions".to_owned());
    }
    let groups = list.iter().any(|item| matches!(item, Item::Group(_)));
    let sizes = list
        .iter()
        .filter(|item| matches!(item, Item::Size(_)))
        .count();
    if sizes == rank || (groups && sizes < rank) {
        Ok(list)
    } else {
        Err(format!("names {sizes} dimensions, its type has {rank}"))
    }
}

/// A list of sizes: integers and item strings ([`Item::parse`]).
unsafe fn item_list(attribute: MlirAttribute) -> Result<Vec<Item>, String> {
    // SAFETY: the caller's attribute is alive; kinds are checked before values are read.
    unsafe {
        if !mlirAttributeIsAArray(attribute) {
            return Err("expects a list of sizes (integers or names)".to_owned());
        }
        (0..mlirArrayAttrGetNumElements(attribute))
            .map(|index| {
                let element = mlirArrayAttrGetElement(attribute, index);
                if mlirAttributeIsAInteger(element) {
                    Ok(Item::Size(Expr::Int(mlirIntegerAttrGetValueInt(element))))
                } else if mlirAttributeIsAString(element) {
                    Item::parse(&to_string(mlirStringAttrGetValue(element)))
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
