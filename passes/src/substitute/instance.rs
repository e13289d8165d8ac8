//! A rule at concrete shapes, for checking it: its source built as a function, and the same
//! function after the pass's own matcher and rewrite. Running both through the reference
//! interpreter (the tools do; this crate does not link it) checks the rule, the matcher and the
//! rewrite together, so that a substitution's correctness does not rest on review.

use super::expr::Env;
use super::matcher::{find, integer_value};
use super::rewrite::{
    apply, instantiate, ranked_tensor, returned_values, shape_of_type, Bindings, Typing,
};
use super::rule::Rule;
use crate::graph_view::FunctionView;
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

/// The attributes the rule's source binds, with the values its file writes.
pub fn example_attributes(rule: &Rule) -> BTreeMap<String, MlirAttribute> {
    let mut attributes = BTreeMap::new();
    for op in &rule.source.ops {
        for (attribute, name) in &op.bound {
            // SAFETY: a live op of the rule file.
            let value =
                unsafe { mlirOperationGetAttributeByName(op.op.raw(), string_ref(attribute)) };
            attributes.entry(name.clone()).or_insert(value);
        }
    }
    attributes
}

/// The shapes of the rule file's own example (the types of @source's arguments).
pub fn example_shapes(rule: &Rule) -> Vec<Vec<i64>> {
    (0..rule.arguments.len())
        .map(|index| shape_of_type(rule.source.function.entry_argument(index).r#type()))
        .collect()
}

/// A module holding `@source` (the rule's source for arguments of `shapes`) and `@rewritten`
/// (it after `graph-substitute`'s matcher and rewrite), at `location`. The caller owns the module.
pub fn instantiate_rule(
    rule: &Rule,
    shapes: &[Vec<i64>],
    location: MlirLocation,
) -> Result<Op, InstanceError> {
    let attributes = example_attributes(rule);
    let sizes = sizes_for(rule, shapes, &attributes)?;
    // SAFETY: the location is alive; MLIR just created the module, which stays alive until it
    // is destroyed below or by the caller it is returned to.
    let module = unsafe { Op::from_raw(mlirModuleGetOperation(mlirModuleCreateEmpty(location))) };
    let result = fill(rule, shapes, &sizes, &attributes, module, location);
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
    module: Op,
    location: MlirLocation,
) -> Result<(), InstanceError> {
    let bindings = Bindings { sizes, attributes };
    let body = source_body(rule, shapes, &bindings, location)?;
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
    let typing = if shapes == example_shapes(rule) {
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

/// The sizes `shapes` bind, with the integer attributes of the example; an error when they break
/// the rule's dimensions or conditions.
fn sizes_for(
    rule: &Rule,
    shapes: &[Vec<i64>],
    attributes: &BTreeMap<String, MlirAttribute>,
) -> Result<Env, InstanceError> {
    let mut sizes = Env::new();
    for (name, attribute) in attributes {
        if let Some(value) = integer_value(*attribute) {
            sizes.insert(name.clone(), value);
        }
    }
    for (argument, shape) in rule.arguments.iter().zip(shapes) {
        let Some(dims) = &argument.dims else { continue };
        if dims.len() != shape.len() {
            return Err(InstanceError::Shapes(format!(
                "{shape:?} is not of rank {}",
                dims.len()
            )));
        }
        for (dim, &size) in dims.iter().zip(shape) {
            if let Some(name) = dim.as_var() {
                if *sizes.entry(name.to_owned()).or_insert(size) != size {
                    return Err(InstanceError::Shapes(format!("'{name}' has two sizes")));
                }
            }
        }
    }
    // Sizes named only by a source op's rule.shape: the example's at the example's shapes.
    if shapes == example_shapes(rule) {
        for op in &rule.source.ops {
            for (dims, result) in op.shapes.iter().flatten().zip(0..op.result_count) {
                for (dim, size) in dims
                    .iter()
                    .zip(shape_of_type(op.op.result(result).r#type()))
                {
                    if let Some(name) = dim.as_var() {
                        sizes.entry(name.to_owned()).or_insert(size);
                    }
                }
            }
        }
    }
    for (argument, shape) in rule.arguments.iter().zip(shapes) {
        for (dim, &size) in argument.dims.iter().flatten().zip(shape) {
            if dim.eval(&sizes) != Some(size) {
                return Err(InstanceError::Shapes(format!("{shape:?} breaks {dim:?}")));
            }
        }
    }
    match rule
        .conditions
        .iter()
        .find(|condition| !condition.holds(&sizes))
    {
        Some(condition) => Err(InstanceError::Shapes(format!(
            "{condition:?} does not hold"
        ))),
        None => Ok(sizes),
    }
}
