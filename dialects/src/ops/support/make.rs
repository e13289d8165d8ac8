//! Making attributes of the Rust types of their ODS kinds, and creating ops.

use crate::attributes::EnumAttribute;
use melior::ir::{
    Attribute, AttributeLike, Block, Location, Operation, Region, Type, TypeLike, Value, ValueLike,
};
use mlir_sys::{
    MlirAttribute, MlirBlock, MlirNamedAttribute, MlirRegion, MlirStringRef, MlirType, MlirValue,
};

fn context(location: Location) -> mlir_sys::MlirContext {
    // SAFETY: the location is alive.
    unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()) }
}

/// An attribute made in `location`'s context ('c).
fn made<'c>(_location: Location<'c>, raw: MlirAttribute) -> Attribute<'c> {
    assert!(!raw.ptr.is_null(), "MLIR could not make an attribute");
    // SAFETY: non-null and owned by the context of the location, which lives for 'c.
    unsafe { Attribute::from_raw(raw) }
}

/// `array<i32: ...>`.
#[allow(
    dead_code,
    reason = "generated code calls it for `AttrSizedOperandSegments` and `DenseI32ArrayAttr`, \
              which no .td uses yet"
)]
pub fn dense_i32_array_attribute<'c>(location: Location<'c>, values: &[i32]) -> Attribute<'c> {
    // SAFETY: the context is alive; MLIR copies the values.
    made(location, unsafe {
        mlir_sys::mlirDenseI32ArrayGet(context(location), values.len() as isize, values.as_ptr())
    })
}

/// `array<i64: ...>`.
pub fn dense_i64_array_attribute<'c>(location: Location<'c>, values: &[i64]) -> Attribute<'c> {
    // SAFETY: as for `dense_i32_array_attribute`.
    made(location, unsafe {
        mlir_sys::mlirDenseI64ArrayGet(context(location), values.len() as isize, values.as_ptr())
    })
}

/// `array<f32: ...>`.
pub fn dense_f32_array_attribute<'c>(location: Location<'c>, values: &[f32]) -> Attribute<'c> {
    // SAFETY: as for `dense_i32_array_attribute`.
    made(location, unsafe {
        mlir_sys::mlirDenseF32ArrayGet(context(location), values.len() as isize, values.as_ptr())
    })
}

/// `array<f64: ...>`.
#[allow(
    dead_code,
    reason = "generated code calls it for a `DenseF64ArrayAttr`, which no .td uses yet"
)]
pub fn dense_f64_array_attribute<'c>(location: Location<'c>, values: &[f64]) -> Attribute<'c> {
    // SAFETY: as for `dense_i32_array_attribute`.
    made(location, unsafe {
        mlir_sys::mlirDenseF64ArrayGet(context(location), values.len() as isize, values.as_ptr())
    })
}

/// An integer attribute of type `iN`, `siN` or `uiN` (`signedness` -1, 0 or 1: signed,
/// signless, unsigned), `value` truncated to the width.
pub fn integer_attribute<'c>(
    location: Location<'c>,
    width: u32,
    signedness: i8,
    value: i64,
) -> Attribute<'c> {
    let context = context(location);
    // SAFETY: the context is alive.
    made(location, unsafe {
        let r#type: MlirType = match signedness {
            -1 => mlir_sys::mlirIntegerTypeSignedGet(context, width),
            1 => mlir_sys::mlirIntegerTypeUnsignedGet(context, width),
            _ => mlir_sys::mlirIntegerTypeGet(context, width),
        };
        mlir_sys::mlirIntegerAttrGet(r#type, value)
    })
}

/// A float attribute of type `f32` or `f64` (`width`).
pub fn float_attribute<'c>(location: Location<'c>, width: u32, value: f64) -> Attribute<'c> {
    let context = context(location);
    // SAFETY: the context is alive.
    made(location, unsafe {
        let r#type = if width == 32 {
            mlir_sys::mlirF32TypeGet(context)
        } else {
            mlir_sys::mlirF64TypeGet(context)
        };
        mlir_sys::mlirFloatAttrDoubleGet(context, r#type, value)
    })
}

/// `true` or `false`.
pub fn bool_attribute<'c>(location: Location<'c>, value: bool) -> Attribute<'c> {
    // SAFETY: the context is alive.
    made(location, unsafe {
        mlir_sys::mlirBoolAttrGet(context(location), value.into())
    })
}

/// `unit`.
pub fn unit_attribute<'c>(location: Location<'c>) -> Attribute<'c> {
    // SAFETY: the context is alive.
    made(location, unsafe {
        mlir_sys::mlirUnitAttrGet(context(location))
    })
}

fn reference(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// A string attribute.
pub fn string_attribute<'c>(location: Location<'c>, value: &str) -> Attribute<'c> {
    // SAFETY: the context is alive; MLIR copies the string.
    made(location, unsafe {
        mlir_sys::mlirStringAttrGet(context(location), reference(value))
    })
}

/// `@symbol`.
pub fn symbol_attribute<'c>(location: Location<'c>, value: &str) -> Attribute<'c> {
    // SAFETY: the context is alive; MLIR copies the string.
    made(location, unsafe {
        mlir_sys::mlirFlatSymbolRefAttrGet(context(location), reference(value))
    })
}

/// A type attribute.
pub fn type_attribute<'c>(location: Location<'c>, value: Type<'c>) -> Attribute<'c> {
    // SAFETY: the type is alive.
    made(location, unsafe {
        mlir_sys::mlirTypeAttrGet(value.to_raw())
    })
}

/// `[...]`.
pub fn array_attribute<'c>(location: Location<'c>, values: &[Attribute<'c>]) -> Attribute<'c> {
    let raw: Vec<MlirAttribute> = values.iter().map(|value| value.to_raw()).collect();
    // SAFETY: the context and the elements are alive; MLIR copies the list.
    made(location, unsafe {
        mlir_sys::mlirArrayAttrGet(context(location), raw.len() as isize, raw.as_ptr())
    })
}

/// The attribute of an enumeration case.
pub fn enum_attribute<'c, E: EnumAttribute>(location: Location<'c>, value: E) -> Attribute<'c> {
    made(location, value.raw_attribute(context(location)))
}

/// An attribute made by a checked constructor (`Split::attribute`); panics when the dialect
/// rejected the value, whose diagnostic it has reported at the op's location.
pub fn checked<'c>(attribute: &str, value: Option<Attribute<'c>>) -> Attribute<'c> {
    value.unwrap_or_else(|| {
        panic!("the dialect rejected the value of `{attribute}` (see its diagnostic)")
    })
}

/// A segment size for `operandSegmentSizes`.
#[allow(
    dead_code,
    reason = "generated code calls it for `AttrSizedOperandSegments`, which no .td uses yet"
)]
pub fn segment_size(count: usize) -> i32 {
    i32::try_from(count).expect("fewer than 2^31 values")
}

/// Creates op `name`: what every generated builder's `build` ends with.
pub fn create<'c>(
    name: &str,
    location: Location<'c>,
    results: &[Type<'c>],
    operands: &[Value<'c, '_>],
    attributes: &[(&str, Attribute<'c>)],
    regions: Vec<Region<'c>>,
    successors: &[&Block<'c>],
) -> Operation<'c> {
    let context = context(location);
    let results: Vec<MlirType> = results.iter().map(|r#type| r#type.to_raw()).collect();
    let operands: Vec<MlirValue> = operands.iter().map(|value| value.to_raw()).collect();
    // SAFETY: the context, types, values and attributes are alive and MLIR copies the
    // lists; the regions are moved into the state, which mlirOperationCreate consumes.
    unsafe {
        let attributes: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(name, value)| {
                let identifier = mlir_sys::mlirIdentifierGet(context, reference(name));
                mlir_sys::mlirNamedAttributeGet(identifier, value.to_raw())
            })
            .collect();
        let regions: Vec<MlirRegion> = regions.into_iter().map(Region::into_raw).collect();
        let successors: Vec<MlirBlock> = successors.iter().map(|block| block.to_raw()).collect();
        let mut state = mlir_sys::mlirOperationStateGet(reference(name), location.to_raw());
        mlir_sys::mlirOperationStateAddResults(
            &mut state,
            results.len() as isize,
            results.as_ptr(),
        );
        mlir_sys::mlirOperationStateAddOperands(
            &mut state,
            operands.len() as isize,
            operands.as_ptr(),
        );
        mlir_sys::mlirOperationStateAddAttributes(
            &mut state,
            attributes.len() as isize,
            attributes.as_ptr(),
        );
        mlir_sys::mlirOperationStateAddOwnedRegions(
            &mut state,
            regions.len() as isize,
            regions.as_ptr(),
        );
        mlir_sys::mlirOperationStateAddSuccessors(
            &mut state,
            successors.len() as isize,
            successors.as_ptr(),
        );
        let op = mlir_sys::mlirOperationCreate(&mut state);
        assert!(!op.ptr.is_null(), "MLIR could not create `{name}`");
        Operation::from_raw(op)
    }
}
