//! Attribute values as the compiler reads them (the typed accessors on a node are in
//! [`function`](super::function)).

use super::types::{element_type, ElementType};
use mlir_sys::*;
use turbine_dialects::attributes::graph::{
    Activation, ComparePredicate, NearestRounding, PadMode, ResizeCoordinates, ResizeMode,
    ScatterReduction,
};

/// A dense elements attribute (the payload of `graph.constant`), kept as a handle: the lowering
/// reuses it, and a splat of a large tensor is never expanded.
#[derive(Debug, Clone, Copy)]
pub struct Constant(pub MlirAttribute);

impl Constant {
    /// The element type of the payload.
    pub fn element_type(self) -> ElementType {
        // SAFETY: the attribute is a live dense elements attribute.
        unsafe { element_type(mlirShapedTypeGetElementType(mlirAttributeGetType(self.0))) }
    }

    /// The same elements as a rank-1 tensor (`tensor<N x T>`); a splat stays a splat.
    pub fn flattened(self) -> MlirAttribute {
        // SAFETY: a live dense elements attribute; the new type has its element count.
        unsafe {
            let r#type = mlirAttributeGetType(self.0);
            let count = [mlirElementsAttrGetNumElements(self.0)];
            let flat = mlirRankedTensorTypeGet(
                1,
                count.as_ptr(),
                mlirShapedTypeGetElementType(r#type),
                MlirAttribute {
                    ptr: std::ptr::null(),
                },
            );
            mlirDenseElementsAttrReshapeGet(self.0, flat)
        }
    }

    /// The value of a one-element integer or boolean constant (a boolean as 0 or 1).
    pub fn scalar_integer(self) -> Option<i64> {
        // SAFETY: a live dense elements attribute; element 0 exists when the count is 1, and
        // each getter is called on the element type it reads.
        unsafe {
            if mlirElementsAttrGetNumElements(self.0) != 1 {
                return None;
            }
            let element = mlirShapedTypeGetElementType(mlirAttributeGetType(self.0));
            if !mlirTypeIsAInteger(element) {
                return None;
            }
            Some(match mlirIntegerTypeGetWidth(element) {
                1 => mlirDenseElementsAttrGetBoolValue(self.0, 0) as i64,
                8 => mlirDenseElementsAttrGetInt8Value(self.0, 0) as i64,
                32 => mlirDenseElementsAttrGetInt32Value(self.0, 0) as i64,
                64 => mlirDenseElementsAttrGetInt64Value(self.0, 0),
                _ => return None,
            })
        }
    }

    /// Whether every element is the same.
    pub fn is_splat(self) -> bool {
        // SAFETY: as above.
        unsafe { mlirDenseElementsAttrIsSplat(self.0) }
    }
}

/// An attribute value, by kind.
#[derive(Debug, Clone)]
pub enum Attr {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// An `array<i64: ...>`.
    Ints(Vec<i64>),
    /// An `array<f32: ...>`.
    Floats(Vec<f32>),
    /// A dense elements attribute.
    Dense(Constant),
    /// `#graph<activation ...>`.
    Activation(Activation),
    /// `#graph<pad_mode ...>`.
    PadMode(PadMode),
    /// `#graph<resize_mode ...>`.
    ResizeMode(ResizeMode),
    /// `#graph<resize_coordinates ...>`.
    ResizeCoordinates(ResizeCoordinates),
    /// `#graph<nearest_rounding ...>`.
    NearestRounding(NearestRounding),
    /// `#graph<predicate ...>`.
    ComparePredicate(ComparePredicate),
    /// `#graph<reduction ...>`.
    ScatterReduction(ScatterReduction),
    /// Any other attribute (types, symbol references, locations...): no pass reads it.
    Other,
}
