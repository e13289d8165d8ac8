//! A rule at concrete shapes, for checking it: its source built as a function, and the same
//! function after the pass's own matcher and rewrite. Running both through the reference
//! interpreter (the tools do; this crate does not link it) checks the rule, the matcher and the
//! rewrite together, so that a substitution's correctness does not rest on review.

use super::matcher::{bind_argument_types, find, integer_value};
use super::rewrite::{
    apply, instantiate, ranked_tensor, returned_values, shape_of_type, Bindings, Typing,
};
use super::rule::Rule;
use super::sizes::Env;
use crate::graph_view::{ElementType, FunctionView};
use crate::ir::{create, region_with_block, string_attribute, string_ref, InsertionPoint, Op, Val};
use mlir_sys::*;
use std::collections::BTreeMap;
use turbine_dialects::ops::upstream;

/// Why a rule could not be checked at some shapes.
#[derive(Debug, Clone)]
pub enum InstanceError {
    /// The shapes do not suit the rule (its conditions, or an op's shape rules): try others.
    Shapes(String),
    /// The rule is wrong: its target does not build or verify, or its source does not match
    /// itself.
    Unsound(String),
}

/// The attributes the rule's source binds, with the values its file writes but for the integers
/// `integers` gives (an attribute of the same kind holding that value).
pub fn example_attributes(
    rule: &Rule,
    integers: &BTreeMap<String, i64>,
) -> BTreeMap<String, MlirAttribute> {
    let mut attributes = BTreeMap::new();
    for op in &rule.source.ops {
        for (attribute, name) in &op.bound {
            // SAFETY: a live op of the rule file.
            let value =
                unsafe { mlirOperationGetAttributeByName(op.op.raw(), string_ref(attribute)) };
            let value = match integers.get(name) {
                Some(&integer) => with_integer(value, integer),
                None => value,
            };
            attributes.entry(name.clone()).or_insert(value);
        }
    }
    attributes
}

/// An attribute of the kind of `attribute` (an integer, or an integer splat) holding `value`.
fn with_integer(attribute: MlirAttribute, value: i64) -> MlirAttribute {
    // SAFETY: a live attribute; its kind is checked before its type is read.
    unsafe {
        let r#type = mlirAttributeGetType(attribute);
        if mlirAttributeIsAInteger(attribute) {
            mlirIntegerAttrGet(r#type, value)
        } else {
            mlirDenseElementsAttrSplatGet(
                r#type,
                mlirIntegerAttrGet(mlirShapedTypeGetElementType(r#type), value),
            )
        }
    }
}

/// The integer attributes the rule's source binds whose values its sizes, conditions or
/// computed attributes read (a constant index, an axis): what an instance may choose besides
/// shapes.
pub fn integer_names(rule: &Rule) -> Vec<String> {
    let mut read: Vec<&str> = Vec::new();
    for condition in &rule.conditions {
        condition.lhs.names(&mut read);
        condition.rhs.names(&mut read);
    }
    for op in rule.source.ops.iter().chain(&rule.target.ops) {
        let lists = op.computed.iter().map(|(_, list)| list);
        for item in lists.chain(op.shapes.iter().flatten()).flatten() {
            item.names(&mut read);
        }
    }
    let no_integers = BTreeMap::new();
    example_attributes(rule, &no_integers)
        .into_iter()
        .filter(|(name, value)| integer_value(*value).is_some() && read.contains(&name.as_str()))
        .map(|(name, _)| name)
        .collect()
}

/// The shapes of the rule file's own example (the types of @source's arguments).
pub fn example_shapes(rule: &Rule) -> Vec<Vec<i64>> {
    (0..rule.arguments.len())
        .map(|index| shape_of_type(rule.source.function.entry_argument(index).r#type()))
        .collect()
}

/// A module holding `@source` (the rule's source for arguments of `shapes`, with the bound
/// integers `integers` gives instead of the example's) and `@rewritten` (it after
/// `graph-substitute`'s matcher and rewrite), at `location`. The caller owns the module.
pub fn instantiate_rule(
    rule: &Rule,
    shapes: &[Vec<i64>],
    integers: &BTreeMap<String, i64>,
    location: MlirLocation,
) -> Result<Op, InstanceError> {
    let attributes = example_attributes(rule, integers);
    let at_example = integers.is_empty() && shapes == example_shapes(rule);
    let sizes = sizes_for(rule, shapes, &attributes, at_example)?;
    // SAFETY: the location is alive; MLIR just created the module, which stays alive until it
    // is destroyed below or by the caller it is returned to.
    let module = unsafe { Op::from_raw(mlirModuleGetOperation(mlirModuleCreateEmpty(location))) };
    let result = fill(
        rule,
        shapes,
        &sizes,
        &attributes,
        at_example,
        module,
        location,
    );
    if result.is_err() {
        // SAFETY: the module was created above and nothing else refers to it.
        unsafe { mlirOperationDestroy(module.raw()) };
    }
    result.map(|()| module)
}

/// Fills `module` with `@source` and `@rewritten` for `instantiate_rule`; an error says why the
/// shapes do not suit the rule or why the rule is wrong.
fn fill(
    rule: &Rule,
    shapes: &[Vec<i64>],
    sizes: &Env,
    attributes: &BTreeMap<String, MlirAttribute>,
    at_example: bool,
    module: Op,
    location: MlirLocation,
) -> Result<(), InstanceError> {
    let bindings = Bindings { sizes, attributes };
    let body = source_body(rule, shapes, &bindings, at_example, location)?;
    let (source, block) = source_function(module, body, location);
    // SAFETY: a live op.
    if unsafe { !mlirOperationVerify(source.raw()) } {
        return Err(InstanceError::Shapes(
            "the source does not verify at these shapes".to_owned(),
        ));
    }
    add_rewritten(rule, source, block, location)
}

/// The body of `@source`: a region whose block takes arguments of `shapes` and returns what
/// the rule's source computes on them.
struct SourceBody {
    region: MlirRegion,
    /// The types of the block's arguments.
    arguments: Vec<MlirType>,
    /// The types of the returned values.
    results: Vec<MlirType>,
}

/// Builds the rule's source on arguments of `shapes` with `bindings`, in a region of its own
/// ending in `func.return`; an error (the region destroyed) when an op does not build at these
/// shapes.
fn source_body(
    rule: &Rule,
    shapes: &[Vec<i64>],
    bindings: &Bindings,
    at_example: bool,
    location: MlirLocation,
) -> Result<SourceBody, InstanceError> {
    let types: Vec<MlirType> = rule
        .arguments
        .iter()
        .zip(shapes)
        .map(|(argument, shape)| ranked_tensor(shape, argument.element))
        .collect();
    let (region, block) = region_with_block(&types, location);
    // SAFETY: the block is alive in its region; its arguments are read by index, and live with
    // the block until the region is destroyed or the function built of it is.
    let inputs: Vec<(Val, Vec<i64>)> = (0..types.len())
        .map(|index| {
            (
                unsafe { Val::from_raw(mlirBlockGetArgument(block, index as isize)) },
                shapes[index].clone(),
            )
        })
        .collect();
    let locations: Vec<MlirLocation> = rule.source.ops.iter().map(|op| op.op.location()).collect();
    // An op whose shape only a match gives (a reshape's) takes the file's type at the file's
    // shapes.
    let typing = if at_example {
        Typing::Written
    } else {
        Typing::Inferred
    };
    let built = instantiate(
        &rule.source,
        &inputs,
        bindings,
        typing,
        &locations,
        InsertionPoint::End(block),
    );
    let built = match built {
        Ok(built) => built,
        Err(message) => {
            // SAFETY: the region was never attached; destroying it destroys its block and ops.
            unsafe { mlirRegionDestroy(region) };
            return Err(InstanceError::Shapes(message));
        }
    };
    let results = returned_values(&rule.source, &inputs, &built);
    create(
        InsertionPoint::End(block),
        location,
        upstream::Kind::FuncReturn,
        &results,
        &[],
        &[],
        Vec::new(),
    );
    let result_types: Vec<MlirType> = results.iter().map(|value| value.r#type()).collect();
    Ok(SourceBody {
        region,
        arguments: types,
        results: result_types,
    })
}

/// Appends `func.func @source` with `body` to `module`; returns it and the module's block.
fn source_function(module: Op, body: SourceBody, location: MlirLocation) -> (Op, MlirBlock) {
    let (types, result_types) = (&body.arguments, &body.results);
    // SAFETY: live types of one context; the module body is its first region's first block.
    let (function_type, block) = unsafe {
        (
            mlirTypeAttrGet(mlirFunctionTypeGet(
                mlirLocationGetContext(location),
                types.len() as isize,
                types.as_ptr(),
                result_types.len() as isize,
                result_types.as_ptr(),
            )),
            mlirRegionGetFirstBlock(mlirOperationGetRegion(module.raw(), 0)),
        )
    };
    // SAFETY: as above.
    let context = unsafe { mlirLocationGetContext(location) };
    let source = create(
        InsertionPoint::End(block),
        location,
        upstream::Kind::FuncFunc,
        &[],
        &[],
        &[
            ("sym_name", string_attribute(context, "source")),
            ("function_type", function_type),
        ],
        vec![body.region],
    );
    (source, block)
}

/// Appends to the module's `block` a clone of `source` named `@rewritten`, and applies to it the
/// rule's match of itself; an error when the source does not match itself or the rewritten
/// function does not verify.
fn add_rewritten(
    rule: &Rule,
    source: Op,
    block: MlirBlock,
    location: MlirLocation,
) -> Result<(), InstanceError> {
    // SAFETY: the location is alive.
    let context = unsafe { mlirLocationGetContext(location) };
    // SAFETY: a live op; MLIR just created the clone, which is inserted into the module, which
    // owns it and keeps it alive.
    let rewritten = unsafe { Op::from_raw(mlirOperationClone(source.raw())) };
    // SAFETY: as above.
    unsafe {
        mlirOperationSetAttributeByName(
            rewritten.raw(),
            string_ref("sym_name"),
            string_attribute(context, "rewritten"),
        );
        mlirBlockAppendOwnedOperation(block, rewritten.raw());
    }
    let view =
        FunctionView::read(rewritten).map_err(|error| InstanceError::Unsound(error.message))?;
    let Some(found) = find(rule, &view, 1).into_iter().next() else {
        return Err(InstanceError::Unsound(
            "its source does not match an instance of itself".to_owned(),
        ));
    };
    apply(rule, &found, &view, rewritten).map_err(InstanceError::Unsound)?;
    // SAFETY: a live op.
    if unsafe { !mlirOperationVerify(rewritten.raw()) } {
        return Err(InstanceError::Unsound(
            "the rewritten function does not verify".to_owned(),
        ));
    }
    Ok(())
}

/// The sizes `shapes` bind, with the integer attributes of `attributes`; an error when they
/// break the rule's dimensions or conditions.
fn sizes_for(
    rule: &Rule,
    shapes: &[Vec<i64>],
    attributes: &BTreeMap<String, MlirAttribute>,
    at_example: bool,
) -> Result<Env, InstanceError> {
    let mut sizes = Env::new();
    for (name, attribute) in attributes {
        if let Some(value) = integer_value(*attribute) {
            sizes.set(name, value);
        }
    }
    // Sizes named only by a source op's rule.shape: the example's at the example's shapes.
    if at_example {
        for op in &rule.source.ops {
            for (dims, result) in op.shapes.iter().flatten().zip(0..op.result_count) {
                for (dim, size) in dims
                    .iter()
                    .zip(shape_of_type(op.op.result(result).r#type()))
                {
                    if let Some(name) = dim.as_var() {
                        sizes.bind(name, size);
                    }
                }
            }
        }
    }
    if shapes.iter().flatten().any(|&size| size < 0) {
        return Err(InstanceError::Shapes(format!(
            "{shapes:?} has a negative size"
        )));
    }
    let types: Vec<(Vec<usize>, ElementType)> = rule
        .arguments
        .iter()
        .zip(shapes)
        .map(|(argument, shape)| {
            let shape = shape.iter().map(|&size| size as usize).collect();
            (shape, ElementType::of(argument.element))
        })
        .collect();
    if bind_argument_types(rule, &types, &mut sizes) {
        Ok(sizes)
    } else {
        Err(InstanceError::Shapes(format!(
            "{shapes:?} break the rule's dimensions or conditions"
        )))
    }
}
