//! Reading an op's attributes as the Rust types of their ODS kinds.

use super::lossy;
use crate::attributes::EnumAttribute;
use melior::ir::{Attribute, AttributeLike, OperationRef, Type};
use mlir_sys::{MlirAttribute, MlirStringRef};

/// The attribute `attribute` of `op` (inherent or discardable), None when absent.
pub fn attribute<'c>(op: OperationRef<'c, '_>, attribute: &str) -> Option<Attribute<'c>> {
    let reference = MlirStringRef {
        data: attribute.as_ptr().cast(),
        length: attribute.len(),
    };
    // SAFETY: the op is alive; the attribute is owned by its context.
    let raw = unsafe { mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), reference) };
    // SAFETY: non-null, so a live attribute.
    (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
}

/// The attribute `attribute`, which the op must have.
pub fn required<'c>(op: OperationRef<'c, '_>, op_name: &str, attribute: &str) -> Attribute<'c> {
    self::attribute(op, attribute).unwrap_or_else(|| {
        panic!("`{op_name}` has no `{attribute}` attribute (the op is not verified)")
    })
}

fn mismatch(op: &str, attribute: &str, expected: &str, found: MlirAttribute) -> ! {
    // SAFETY: the attribute is alive.
    let found = unsafe { Attribute::from_raw(found) };
    panic!("`{op}` attribute `{attribute}` is {found}, not {expected} (the op is not verified)")
}

/// Reads a dense array of `count` elements with `get`.
fn dense<T>(
    op: &str,
    attribute: &str,
    value: Attribute,
    expected: &str,
    is_a: unsafe extern "C" fn(MlirAttribute) -> bool,
    get: unsafe extern "C" fn(MlirAttribute, isize) -> T,
) -> Vec<T> {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive; elements are read within its length, from an array of
    // the kind `is_a` checked.
    unsafe {
        if !is_a(raw) {
            mismatch(op, attribute, expected, raw);
        }
        let count = mlir_sys::mlirDenseArrayGetNumElements(raw);
        (0..count).map(|index| get(raw, index)).collect()
    }
}

/// A `DenseI32ArrayAttr`.
pub fn dense_i32_array(op: &str, attribute: &str, value: Attribute) -> Vec<i32> {
    use mlir_sys::{mlirAttributeIsADenseI32Array, mlirDenseI32ArrayGetElement};
    dense(
        op,
        attribute,
        value,
        "an i32 array",
        mlirAttributeIsADenseI32Array,
        mlirDenseI32ArrayGetElement,
    )
}

/// A `DenseI64ArrayAttr`.
pub fn dense_i64_array(op: &str, attribute: &str, value: Attribute) -> Vec<i64> {
    use mlir_sys::{mlirAttributeIsADenseI64Array, mlirDenseI64ArrayGetElement};
    dense(
        op,
        attribute,
        value,
        "an i64 array",
        mlirAttributeIsADenseI64Array,
        mlirDenseI64ArrayGetElement,
    )
}

/// A `DenseF32ArrayAttr`.
pub fn dense_f32_array(op: &str, attribute: &str, value: Attribute) -> Vec<f32> {
    use mlir_sys::{mlirAttributeIsADenseF32Array, mlirDenseF32ArrayGetElement};
    dense(
        op,
        attribute,
        value,
        "an f32 array",
        mlirAttributeIsADenseF32Array,
        mlirDenseF32ArrayGetElement,
    )
}

/// A `DenseF64ArrayAttr`.
#[allow(
    dead_code,
    reason = "generated code calls it for a `DenseF64ArrayAttr`, which no .td uses yet"
)]
pub fn dense_f64_array(op: &str, attribute: &str, value: Attribute) -> Vec<f64> {
    use mlir_sys::{mlirAttributeIsADenseF64Array, mlirDenseF64ArrayGetElement};
    dense(
        op,
        attribute,
        value,
        "an f64 array",
        mlirAttributeIsADenseF64Array,
        mlirDenseF64ArrayGetElement,
    )
}

/// An `IntegerAttr` of at most 64 bits, sign- or zero-extended by its type's signedness
/// (an unsigned value above `i64::MAX` wraps).
pub fn integer(op: &str, attribute: &str, value: Attribute) -> i64 {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be an integer attribute.
    unsafe {
        if !mlir_sys::mlirAttributeIsAInteger(raw) {
            mismatch(op, attribute, "an integer", raw);
        }
        let r#type = mlir_sys::mlirAttributeGetType(raw);
        if mlir_sys::mlirTypeIsAInteger(r#type) && mlir_sys::mlirIntegerTypeIsSigned(r#type) {
            mlir_sys::mlirIntegerAttrGetValueSInt(raw)
        } else if mlir_sys::mlirTypeIsAInteger(r#type)
            && mlir_sys::mlirIntegerTypeIsUnsigned(r#type)
        {
            mlir_sys::mlirIntegerAttrGetValueUInt(raw) as i64
        } else {
            mlir_sys::mlirIntegerAttrGetValueInt(raw)
        }
    }
}

/// A `FloatAttr`, widened to f64.
pub fn float(op: &str, attribute: &str, value: Attribute) -> f64 {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be a float attribute.
    unsafe {
        if !mlir_sys::mlirAttributeIsAFloat(raw) {
            mismatch(op, attribute, "a float", raw);
        }
        mlir_sys::mlirFloatAttrGetValueDouble(raw)
    }
}

/// A `BoolAttr`.
pub fn boolean(op: &str, attribute: &str, value: Attribute) -> bool {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be a bool attribute.
    unsafe {
        if !mlir_sys::mlirAttributeIsABool(raw) {
            mismatch(op, attribute, "a bool", raw);
        }
        mlir_sys::mlirBoolAttrGetValue(raw)
    }
}

/// A `StringAttr`'s bytes, invalid UTF-8 replaced.
pub fn string(op: &str, attribute: &str, value: Attribute) -> String {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be a string attribute.
    unsafe {
        if !mlir_sys::mlirAttributeIsAString(raw) {
            mismatch(op, attribute, "a string", raw);
        }
        lossy(mlir_sys::mlirStringAttrGetValue(raw))
    }
}

/// A `FlatSymbolRefAttr`'s symbol, invalid UTF-8 replaced.
pub fn symbol(op: &str, attribute: &str, value: Attribute) -> String {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be a flat symbol reference.
    unsafe {
        if !mlir_sys::mlirAttributeIsAFlatSymbolRef(raw) {
            mismatch(op, attribute, "a flat symbol reference", raw);
        }
        lossy(mlir_sys::mlirFlatSymbolRefAttrGetValue(raw))
    }
}

/// A `TypeAttr`'s type.
pub fn type_value<'c>(op: &str, attribute: &str, value: Attribute<'c>) -> Type<'c> {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be a type attribute; the type is owned by
    // its context.
    unsafe {
        if !mlir_sys::mlirAttributeIsAType(raw) {
            mismatch(op, attribute, "a type", raw);
        }
        Type::from_raw(mlir_sys::mlirTypeAttrGetValue(raw))
    }
}

/// An `ArrayAttr`'s elements.
pub fn array<'c>(op: &str, attribute: &str, value: Attribute<'c>) -> Vec<Attribute<'c>> {
    let raw = value.to_raw();
    // SAFETY: the attribute is alive and checked to be an array; elements are read within
    // its length and owned by the context.
    unsafe {
        if !mlir_sys::mlirAttributeIsAArray(raw) {
            mismatch(op, attribute, "an array", raw);
        }
        (0..mlir_sys::mlirArrayAttrGetNumElements(raw))
            .map(|index| Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, index)))
            .collect()
    }
}

/// A case of the enumeration `E`.
pub fn enumeration<E: EnumAttribute>(op: &str, attribute: &str, value: Attribute) -> E {
    mirrored(op, attribute, value, E::from_attribute)
}

/// An attribute read by its Rust mirror's `from_attribute` (`Split`, `Target`).
pub fn mirrored<'c, T>(
    op: &str,
    attribute: &str,
    value: Attribute<'c>,
    from_attribute: impl FnOnce(Attribute<'c>) -> Option<T>,
) -> T {
    from_attribute(value).unwrap_or_else(|| {
        let expected = std::any::type_name::<T>()
            .rsplit("::")
            .next()
            .unwrap_or_default();
        mismatch(op, attribute, &format!("a {expected}"), value.to_raw())
    })
}
