//! Replacing a match by a rule's target: the target's ops are built from the match's values,
//! sizes and attributes, the source's results are replaced by the target's, and the matched ops
//! are erased.
//!
//! The target is inserted before the first matched op. Its inputs may be defined later in the
//! block (a weight read only by the second of two merged convolutions); those definitions and
//! what they depend on move up with it, which keeps every use after its definition because the
//! matcher refused inputs that depend on the match.

use super::infer::{result_shapes, Attributes};
use super::matcher::Match;
use super::rule::{Body, PatternOp, PatternValue, Rule};
use super::sizes::Env;
use super::sizes::{expand, Item};
use crate::graph_view::{FunctionView, ValueId};
use crate::ir::string_ref;
use crate::ir::{create, i64_array, InsertionPoint, Op, Val};
use mlir_sys::*;
use petgraph::visit::{Dfs, Reversed, Walker};
use std::collections::{BTreeMap, BTreeSet};
use turbine_dialects::ops::graph;

/// The handle of `value` of `view`, read from `function`.
pub fn value_handle(view: &FunctionView, function: Op, value: ValueId) -> Val {
    match view.producer(value) {
        Some(op) => {
            let node = &view.ops[op];
            let result = node
                .results
                .iter()
                .position(|(id, _)| *id == value)
                .expect("a producer defines its value");
            node.op.result(result)
        }
        None => {
            let argument = view
                .arguments
                .iter()
                .position(|(id, _)| *id == value)
                .expect("a value without producer is an argument");
            function.entry_argument(argument)
        }
    }
}

/// Replaces `found` (a match of `rule` in `view`, the view of `function`) by the rule's target.
/// Returns the ops built; on an error nothing of the function has changed but the order of ops
/// that do not depend on each other.
pub fn apply(
    rule: &Rule,
    found: &Match,
    view: &FunctionView,
    function: Op,
) -> Result<Vec<Op>, String> {
    let first = *found.ops.iter().min().expect("a match has ops");
    let anchor = view.ops[first].op;
    hoist_inputs(found, view, first, anchor);
    let inputs: Vec<(Val, Vec<i64>)> = found
        .arguments
        .iter()
        .map(|&value| {
            (
                value_handle(view, function, value),
                view.type_of(value)
                    .shape
                    .iter()
                    .map(|&d| d as i64)
                    .collect(),
            )
        })
        .collect();
    let roots: Vec<Val> = rule
        .source
        .results
        .iter()
        .map(|result| match *result {
            PatternValue::Argument(argument) => inputs[argument].0,
            PatternValue::Result(op, index) => view.ops[found.ops[op]].op.result(index),
        })
        .collect();
    let root_types: Vec<MlirType> = roots.iter().map(|root| root.r#type()).collect();
    let bindings = Bindings {
        sizes: &found.sizes,
        attributes: &found.attributes,
    };
    let locations: Vec<MlirLocation> = rule
        .target
        .ops
        .iter()
        .map(|template| location_for(rule, found, view, template))
        .collect();
    let built = instantiate(
        &rule.target,
        &inputs,
        &bindings,
        Typing::Returned(&root_types),
        &locations,
        InsertionPoint::Before(anchor),
    )
    .map_err(|message| format!("rule '{}': {message}", rule.name))?;
    let replacements = returned_values(&rule.target, &inputs, &built);
    if let Some(position) = roots
        .iter()
        .zip(&replacements)
        .position(|(root, replacement)| !root.same_type(*replacement))
    {
        for op in built.into_iter().rev() {
            // SAFETY: the target's ops feed only each other so far (no root was replaced), in
            // reverse order each one's users are gone, and `built` is consumed here.
            unsafe { op.erase() };
        }
        return Err(format!(
            "rule '{}': its result {position} would change type",
            rule.name
        ));
    }
    for (root, replacement) in roots.iter().zip(replacements) {
        // SAFETY: both values are alive and of the same type (the rule's signatures agree and
        // returned target values take the source's types).
        if unsafe { !mlirValueEqual(root.raw(), replacement.raw()) } {
            root.replace_all_uses_with(replacement);
        }
    }
    let mut matched: Vec<usize> = found.ops.clone();
    matched.sort_unstable();
    for op in matched.into_iter().rev() {
        let node = &view.ops[op];
        // Only a constant shared with ops outside the match is still read (see the matcher).
        if (0..node.results.len()).all(|result| node.op.result(result).is_unused()) {
            // SAFETY: nothing reads the op's results (checked), it is a `graph` op without regions,
            // and in reverse block order the matched ops reading it went first; callers do not read
            // `view` after a rewrite (they read the function again or drop the clone's view).
            unsafe { node.op.erase() };
        }
    }
    Ok(built)
}

/// Moves the definitions of inputs that come after `anchor`, and what they depend on, before it.
fn hoist_inputs(found: &Match, view: &FunctionView, first: usize, anchor: Op) {
    let late: Vec<usize> = found
        .arguments
        .iter()
        .filter_map(|&value| view.producer(value))
        .filter(|&op| op > first)
        .collect();
    if late.is_empty() {
        return;
    }
    let reversed = Reversed(&view.graph);
    let mut dfs = Dfs::empty(reversed);
    dfs.stack
        .extend(late.iter().map(|&op| FunctionView::node_index(op)));
    let moving: BTreeSet<usize> = dfs
        .iter(reversed)
        .map(|node| node.index())
        .filter(|&op| op > first)
        .collect();
    for op in moving {
        // SAFETY: both ops are alive in one block.
        unsafe { mlirOperationMoveBefore(view.ops[op].op.raw(), anchor.raw()) }
    }
}

/// Target ops take the location of the matched op of the same kind, else of the first root:
/// every generated op names the model op it comes from.
fn location_for(
    rule: &Rule,
    found: &Match,
    view: &FunctionView,
    template: &PatternOp,
) -> MlirLocation {
    let same = rule
        .source
        .ops
        .iter()
        .position(|op| op.kind == template.kind);
    let source = same.or_else(|| {
        rule.source.results.iter().find_map(|result| match result {
            PatternValue::Result(op, _) => Some(*op),
            PatternValue::Argument(_) => None,
        })
    });
    view.ops[found.ops[source.unwrap_or(0)]].op.location()
}

/// What a body is instantiated with: sizes and attributes by name.
pub struct Bindings<'a> {
    /// Sizes and integer values.
    pub sizes: &'a Env,
    /// Attributes (a null attribute: absent).
    pub attributes: &'a BTreeMap<String, MlirAttribute>,
}

/// How [`instantiate`] types the results it cannot infer.
#[derive(Debug, Clone, Copy)]
pub enum Typing<'a> {
    /// Returned values take these types (a match's roots); others need `rule.shape`.
    Returned(&'a [MlirType]),
    /// Nothing beyond inference and `rule.shape`.
    Inferred,
    /// The types written in the rule file (an instance at the file's own example shapes).
    Written,
}

/// Builds the ops of `body` at `point` for `inputs` (values with their shapes) and `bindings`,
/// each at its location in `locations`, typing results by inference, `rule.shape` and `typing`.
/// Returns the ops built; on an error, none is left.
pub fn instantiate(
    body: &Body,
    inputs: &[(Val, Vec<i64>)],
    bindings: &Bindings,
    typing: Typing,
    locations: &[MlirLocation],
    point: InsertionPoint,
) -> Result<Vec<Op>, String> {
    let mut built: Vec<Op> = Vec::new();
    for (index, template) in body.ops.iter().enumerate() {
        let value = |value: PatternValue| match value {
            PatternValue::Argument(argument) => inputs[argument].clone(),
            PatternValue::Result(op, result) => {
                let handle = built[op].result(result);
                (handle, shape_of(handle))
            }
        };
        let operands: Vec<(Val, Vec<i64>)> = template
            .operands
            .iter()
            .map(|&operand| value(operand))
            .collect();
        match build(
            body,
            bindings,
            template,
            index,
            &operands,
            typing,
            locations[index],
            point,
        ) {
            Ok(op) => built.push(op),
            Err(message) => {
                for op in built.into_iter().rev() {
                    // SAFETY: the ops built so far feed only each other, in reverse order each
                    // one's users are gone, and `built` is consumed here.
                    unsafe { op.erase() };
                }
                return Err(format!("{}: {message}", template.kind));
            }
        }
    }
    Ok(built)
}

/// The values `body` returns, among `inputs` and the ops `built` for it.
pub fn returned_values(body: &Body, inputs: &[(Val, Vec<i64>)], built: &[Op]) -> Vec<Val> {
    body.results
        .iter()
        .map(|result| match *result {
            PatternValue::Argument(argument) => inputs[argument].0,
            PatternValue::Result(op, index) => built[op].result(index),
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn build(
    body: &Body,
    bindings: &Bindings,
    template: &PatternOp,
    index: usize,
    operands: &[(Val, Vec<i64>)],
    typing: Typing,
    location: MlirLocation,
    point: InsertionPoint,
) -> Result<Op, String> {
    let operand_shapes: Vec<Vec<i64>> = operands.iter().map(|(_, shape)| shape.clone()).collect();
    let (attributes, results) = plan_op(body, bindings, template, index, &operand_shapes, typing)?;
    let named: Vec<(&str, MlirAttribute)> = attributes
        .iter()
        .map(|(name, value)| (name.as_str(), *value))
        .collect();
    let values: Vec<Val> = operands.iter().map(|(value, _)| *value).collect();
    Ok(create(
        point,
        location,
        template.kind,
        &values,
        &results,
        &named,
        Vec::new(),
    ))
}

/// An op decided but not built: its attributes and result types.
pub type PlannedOp = (Vec<(String, MlirAttribute)>, Vec<MlirType>);

/// The attributes and result types of op `index` of `body` (`template`) for operands of
/// `operand_shapes`: what building it takes, decided without building it (the e-graph engine
/// adds it as a term).
pub fn plan_op(
    body: &Body,
    bindings: &Bindings,
    template: &PatternOp,
    index: usize,
    operand_shapes: &[Vec<i64>],
    typing: Typing,
) -> Result<PlannedOp, String> {
    let attributes = attributes_for(bindings, template)?;
    let inferred = result_shapes(template.kind, operand_shapes, &Attributes(&attributes))?;
    let mut results = Vec::new();
    for result in 0..template.result_count {
        let position = body
            .results
            .iter()
            .position(|value| *value == PatternValue::Result(index, result));
        let written = template.op.result(result).r#type();
        let r#type = if let (Some(position), Typing::Returned(types)) = (position, typing) {
            types[position]
        } else if let Some(shapes) = &template.shapes {
            tensor_type(&eval_all(&shapes[result], bindings.sizes)?, written)
        } else if let Some(shapes) = &inferred {
            tensor_type(&shapes[result], written)
        } else if template.kind == graph::Kind::Constant || matches!(typing, Typing::Written) {
            written
        } else {
            return Err("its result shape cannot be inferred; give it with rule.shape".to_owned());
        };
        if let Some(shapes) = &inferred {
            if let Some(shape) = shapes.get(result) {
                if *shape != shape_of_type(r#type) {
                    return Err(format!(
                        "its result would be {shape:?}, the rule says {:?}",
                        shape_of_type(r#type)
                    ));
                }
            }
        }
        if shape_of_type(r#type).iter().any(|&d| d < 0) {
            return Err("a negative size".to_owned());
        }
        results.push(r#type);
    }
    let mut attributes = fit_constant(template.kind, attributes, results.first().copied());
    if let Some((_, exprs)) = template
        .computed
        .iter()
        .find(|(name, _)| template.kind == graph::Kind::Constant && name == "value")
    {
        let value = constant_value(&eval_all(exprs, bindings.sizes)?, results[0])?;
        attributes.retain(|(name, _)| name != "value");
        attributes.push(("value".to_owned(), value));
    }
    Ok((attributes, results))
}

/// The attributes of a target op: as written, bound, or computed from sizes.
fn attributes_for(
    bindings: &Bindings,
    template: &PatternOp,
) -> Result<Vec<(String, MlirAttribute)>, String> {
    let mut attributes: Vec<(String, MlirAttribute)> = template.written.clone();
    for (name, bound) in &template.bound {
        let value = *bindings
            .attributes
            .get(bound)
            .ok_or_else(|| format!("'{bound}' is not bound"))?;
        if value.ptr.is_null() {
            continue;
        }
        // SAFETY: a live op of the rule file.
        let written =
            unsafe { mlirOperationGetAttributeByName(template.op.raw(), string_ref(name)) };
        attributes.push((
            name.clone(),
            convert(value, written).ok_or_else(|| format!("'{bound}' cannot be '{name}'"))?,
        ));
    }
    for (name, exprs) in &template.computed {
        // A constant's computed value is built once its type is known (`constant_value`).
        if template.kind == graph::Kind::Constant && name == "value" {
            continue;
        }
        let values = eval_all(exprs, bindings.sizes)?;
        // SAFETY: the op of the rule file is alive with its context; the attribute it writes
        // (the example's) is read for its kind only.
        let (context, written) = unsafe {
            (
                mlirOperationGetContext(template.op.raw()),
                mlirOperationGetAttributeByName(template.op.raw(), string_ref(name)),
            )
        };
        attributes.retain(|(existing, _)| existing != name);
        attributes.push((name.clone(), integers_like(context, written, &values)?));
    }
    Ok(attributes)
}

/// `values` in the kind of the example's attribute `written`: an integer attribute of its type
/// for one value, else an `array<i64>`.
fn integers_like(
    context: MlirContext,
    written: MlirAttribute,
    values: &[i64],
) -> Result<MlirAttribute, String> {
    // SAFETY: a live attribute (or null); its kind is checked before its type is read.
    unsafe {
        if written.ptr.is_null() || !mlirAttributeIsAInteger(written) {
            return Ok(i64_array(context, values));
        }
        match values {
            [value] => Ok(mlirIntegerAttrGet(mlirAttributeGetType(written), *value)),
            _ => Err(format!("{} values for an integer attribute", values.len())),
        }
    }
}

/// A bound attribute in the kind the target's op writes: a float becomes a splat of a
/// constant's type and a float splat the float of a float attribute; None when the kinds differ
/// otherwise (a non-splat tensor where a float is written).
fn convert(value: MlirAttribute, written: MlirAttribute) -> Option<MlirAttribute> {
    // SAFETY: live attributes; kinds are checked before values are read.
    unsafe {
        if written.ptr.is_null() {
            return Some(value);
        }
        if mlirAttributeIsADenseElements(written) && mlirAttributeIsAFloat(value) {
            return Some(mlirDenseElementsAttrSplatGet(
                mlirAttributeGetType(written),
                value,
            ));
        }
        if mlirAttributeIsAFloat(written) && !mlirAttributeIsAFloat(value) {
            if !mlirAttributeIsADenseElements(value) || !mlirDenseElementsAttrIsSplat(value) {
                return None;
            }
            let element = mlirDenseElementsAttrGetSplatValue(value);
            if !mlirAttributeIsAFloat(element) {
                return None;
            }
            return Some(mlirFloatAttrDoubleGet(
                mlirAttributeGetContext(written),
                mlirAttributeGetType(written),
                mlirFloatAttrGetValueDouble(element),
            ));
        }
        Some(value)
    }
}

/// A `graph.constant` whose splat was written for the example's shape takes the built shape.
fn fit_constant(
    kind: graph::Kind,
    mut attributes: Vec<(String, MlirAttribute)>,
    result: Option<MlirType>,
) -> Vec<(String, MlirAttribute)> {
    let Some(result) = result.filter(|_| kind == graph::Kind::Constant) else {
        return attributes;
    };
    for (key, value) in attributes.iter_mut() {
        // SAFETY: live attributes; kinds are checked before values are read.
        unsafe {
            if key == "value"
                && mlirAttributeIsADenseElements(*value)
                && mlirDenseElementsAttrIsSplat(*value)
                && !mlirTypeEqual(mlirAttributeGetType(*value), result)
            {
                *value = mlirDenseElementsAttrSplatGet(
                    result,
                    mlirDenseElementsAttrGetSplatValue(*value),
                );
            }
        }
    }
    attributes
}

/// The elements of a constant of `r#type` computed by `rule.set` (shape arithmetic): one value is
/// a splat, else one value per element.
fn constant_value(values: &[i64], r#type: MlirType) -> Result<MlirAttribute, String> {
    // SAFETY: a live ranked tensor type; the element kind is checked before it is built.
    unsafe {
        let element = mlirShapedTypeGetElementType(r#type);
        let count: i64 = shape_of_type(r#type).iter().product();
        if !mlirTypeIsAInteger(element) {
            return Err("rule.set computes integer constants only".to_owned());
        }
        match values {
            [value] => Ok(mlirDenseElementsAttrSplatGet(
                r#type,
                mlirIntegerAttrGet(element, *value),
            )),
            _ if values.len() as i64 == count => Ok(mlirDenseElementsAttrInt64Get(
                r#type,
                values.len() as isize,
                values.as_ptr(),
            )),
            _ => Err(format!(
                "{} values for a constant of {count} elements",
                values.len()
            )),
        }
    }
}

fn eval_all(list: &[Item], sizes: &Env) -> Result<Vec<i64>, String> {
    expand(list, sizes).ok_or_else(|| format!("cannot evaluate {list:?}"))
}

/// A ranked tensor type of `shape` with the element type of `like`.
fn tensor_type(shape: &[i64], like: MlirType) -> MlirType {
    // SAFETY: `like` is a live shaped type.
    ranked_tensor(shape, unsafe { mlirShapedTypeGetElementType(like) })
}

/// A ranked tensor type of `shape` and `element`.
pub(super) fn ranked_tensor(shape: &[i64], element: MlirType) -> MlirType {
    // SAFETY: a live element type; MLIR copies the dimensions.
    unsafe {
        mlirRankedTensorTypeGet(
            shape.len() as isize,
            shape.as_ptr(),
            element,
            mlirAttributeGetNull(),
        )
    }
}

fn shape_of(value: Val) -> Vec<i64> {
    shape_of_type(value.r#type())
}

/// The dimensions of a ranked tensor type.
pub(super) fn shape_of_type(r#type: MlirType) -> Vec<i64> {
    // SAFETY: graph values are ranked tensors.
    unsafe {
        (0..mlirShapedTypeGetRank(r#type) as isize)
            .map(|d| mlirShapedTypeGetDimSize(r#type, d))
            .collect()
    }
}
