//! Building IR: new ops ([`create`], [`create_named`], [`create_inferring`]) at an
//! [`InsertionPoint`], regions for them ([`region_with_block`]), and the attributes Turbine's ops
//! carry.

use super::handle::{Op, Val};
use super::strings::string_ref;
use mlir_sys::*;
use turbine_dialects::ops::OpKind;

/// Where [`create`] puts a new op.
#[derive(Debug, Clone, Copy)]
pub enum InsertionPoint {
    /// At the end of a block.
    End(MlirBlock),
    /// Before an op of a block; [`create`] panics when the op is detached.
    Before(Op),
    /// Nowhere: the caller inserts the op (or destroys it).
    Detached,
}

/// A named attribute for [`create`].
pub type NamedAttribute<'a> = (&'a str, MlirAttribute);

/// Creates an op of kind `kind` at `point` with `location`, operands, result types, attributes and
/// regions (which it takes ownership of). Panics when MLIR cannot create it (the callers build
/// ops of registered dialects with the operands their definitions require) and when `point` is
/// before a detached op.
///
/// Each region must be a detached one the caller owns, such as [`region_with_block`] returns:
/// MLIR moves its blocks into the new op and destroys it, so it is not used again.
pub fn create(
    point: InsertionPoint,
    location: MlirLocation,
    kind: impl Into<OpKind>,
    operands: &[Val],
    results: &[MlirType],
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    create_named(
        point,
        location,
        kind.into().name(),
        operands,
        results,
        attributes,
        regions,
    )
}

/// [`create`] for an op whose name is data, such as an op an e-graph interned: any op of a
/// dialect registered in the context.
pub fn create_named(
    point: InsertionPoint,
    location: MlirLocation,
    name: &str,
    operands: &[Val],
    results: &[MlirType],
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    create_op(
        point,
        location,
        name,
        operands,
        Some(results),
        attributes,
        regions,
    )
}

/// [`create`] with result types the op infers itself (`InferTypeOpInterface`).
pub fn create_inferring(
    point: InsertionPoint,
    location: MlirLocation,
    kind: impl Into<OpKind>,
    operands: &[Val],
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    let name = kind.into().name();
    create_op(point, location, name, operands, None, attributes, regions)
}

/// The op `name` with the result types `results`, or inferred ones when None.
fn create_op(
    point: InsertionPoint,
    location: MlirLocation,
    name: &str,
    operands: &[Val],
    results: Option<&[MlirType]>,
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    if let InsertionPoint::Before(anchor) = point {
        assert!(
            anchor.parent_block().is_some(),
            "'{name}' is created before an op in a block"
        );
    }
    // SAFETY: every handle is alive in one context; the state is consumed by mlirOperationCreate,
    // which takes ownership of the regions; an anchor is in a block (checked above). The new op
    // is alive: MLIR just created it, and its block or the caller owns it.
    unsafe {
        let context = mlirLocationGetContext(location);
        let mut state = mlirOperationStateGet(string_ref(name), location);
        let operands: Vec<MlirValue> = operands.iter().map(|value| value.raw()).collect();
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        match results {
            Some(results) => {
                mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr())
            }
            None => mlirOperationStateEnableResultTypeInference(&mut state),
        }
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(key, value)| {
                mlirNamedAttributeGet(mlirIdentifierGet(context, string_ref(key)), *value)
            })
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
        let op = mlirOperationCreate(&mut state);
        assert!(
            !op.ptr.is_null(),
            "MLIR creates '{name}' from its required parts"
        );
        match point {
            InsertionPoint::End(block) => mlirBlockAppendOwnedOperation(block, op),
            InsertionPoint::Before(anchor) => mlirBlockInsertOwnedOperationBefore(
                mlirOperationGetBlock(anchor.raw()),
                anchor.raw(),
                op,
            ),
            InsertionPoint::Detached => {}
        }
        Op::from_raw(op)
    }
}

/// A region holding one new block with arguments of `types` (at `location`); returns both. The
/// caller owns the region until it gives it to [`create`].
pub fn region_with_block(types: &[MlirType], location: MlirLocation) -> (MlirRegion, MlirBlock) {
    let locations = vec![location; types.len()];
    // SAFETY: the block is handed to the region, which owns it.
    unsafe {
        let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        (region, block)
    }
}

/// The function type `(inputs) -> results`.
pub fn function_type(context: MlirContext, inputs: &[MlirType], results: &[MlirType]) -> MlirType {
    // SAFETY: the handles are alive; the slices are read during the call.
    unsafe {
        mlirFunctionTypeGet(
            context,
            inputs.len() as isize,
            inputs.as_ptr(),
            results.len() as isize,
            results.as_ptr(),
        )
    }
}

/// A string attribute.
pub fn string_attribute(context: MlirContext, text: &str) -> MlirAttribute {
    // SAFETY: MLIR copies the text into the context.
    unsafe { mlirStringAttrGet(context, string_ref(text)) }
}

/// An `array<i64: ...>` attribute.
pub fn i64_array(context: MlirContext, values: &[i64]) -> MlirAttribute {
    // SAFETY: MLIR copies the values.
    unsafe { mlirDenseI64ArrayGet(context, values.len() as isize, values.as_ptr()) }
}

/// An `i64` integer attribute.
pub fn i64_attribute(context: MlirContext, value: i64) -> MlirAttribute {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value) }
}

/// An `f64` float attribute.
pub fn f64_attribute(context: MlirContext, value: f64) -> MlirAttribute {
    // SAFETY: the context is alive.
    unsafe { mlirFloatAttrDoubleGet(context, mlirF64TypeGet(context), value) }
}

/// A dictionary attribute of `entries` (name, value).
pub fn dictionary(context: MlirContext, entries: &[(&str, MlirAttribute)]) -> MlirAttribute {
    // SAFETY: the context and the attributes are alive; MLIR copies the names and the entries.
    unsafe {
        let named: Vec<MlirNamedAttribute> = entries
            .iter()
            .map(|(name, value)| {
                mlirNamedAttributeGet(mlirIdentifierGet(context, string_ref(name)), *value)
            })
            .collect();
        mlirDictionaryAttrGet(context, named.len() as isize, named.as_ptr())
    }
}

/// An array attribute of `elements`.
pub fn array(context: MlirContext, elements: &[MlirAttribute]) -> MlirAttribute {
    // SAFETY: the context and the attributes are alive; MLIR copies the list.
    unsafe { mlirArrayAttrGet(context, elements.len() as isize, elements.as_ptr()) }
}
