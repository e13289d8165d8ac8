//! Attribute values as the compiler reads them, and typed accessors on [`Node`].

use super::{ElementType, Node};
use turbine_dialects::attributes::graph::{
    Activation, ComparePredicate, NearestRounding, PadMode, ResizeCoordinates, ResizeMode,
};
use mlir_sys::*;

/// A dense elements attribute (the payload of `graph.constant`), kept as a handle: the lowering
/// reuses it, and a splat of a large tensor is never expanded.
#[derive(Debug, Clone, Copy)]
pub struct Constant(pub MlirAttribute);

impl Constant {
    /// The element type of the payload.
    pub fn element_type(self) -> ElementType {
        // SAFETY: the attribute is a live dense elements attribute.
        unsafe { super::reader::element_type(mlirShapedTypeGetElementType(mlirAttributeGetType(self.0))) }
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
                MlirAttribute { ptr: std::ptr::null() },
            );
            mlirDenseElementsAttrReshapeGet(self.0, flat)
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
    /// Any other attribute (types, symbol references, locations...): no pass reads it.
    Other,
}

impl Node {
    fn missing(&self, name: &str, kind: &str) -> ! {
        panic!("'{}' has no {kind} attribute '{name}' (the dialect requires it or gives it a default)", self.name)
    }

    /// The `array<i64: ...>` attribute `name`, None when the op does not carry it.
    pub fn ints_opt(&self, name: &str) -> Option<&[i64]> {
        match self.attributes.get(name) {
            Some(Attr::Ints(values)) => Some(values),
            _ => None,
        }
    }

    /// The `array<i64: ...>` attribute `name`, required or default-valued in ODS.
    pub fn ints(&self, name: &str) -> &[i64] {
        self.ints_opt(name).unwrap_or_else(|| self.missing(name, "i64 array"))
    }

    /// The integer attribute `name`, None when absent.
    pub fn int_opt(&self, name: &str) -> Option<i64> {
        match self.attributes.get(name) {
            Some(Attr::Int(value)) => Some(*value),
            _ => None,
        }
    }

    /// The integer attribute `name`, required or default-valued in ODS.
    pub fn int(&self, name: &str) -> i64 {
        self.int_opt(name).unwrap_or_else(|| self.missing(name, "integer"))
    }

    /// The float attribute `name`, None when absent.
    pub fn float_opt(&self, name: &str) -> Option<f32> {
        match self.attributes.get(name) {
            Some(Attr::Float(value)) => Some(*value as f32),
            _ => None,
        }
    }

    /// The float attribute `name`, required or default-valued in ODS.
    pub fn float(&self, name: &str) -> f32 {
        self.float_opt(name).unwrap_or_else(|| self.missing(name, "float"))
    }

    /// The boolean attribute `name` (a unit or optional flag that is absent reads as false).
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.attributes.get(name), Some(Attr::Bool(true)))
    }

    /// The string attribute `name`, None when absent.
    pub fn string(&self, name: &str) -> Option<&str> {
        match self.attributes.get(name) {
            Some(Attr::Str(value)) => Some(value),
            _ => None,
        }
    }

    /// The fused activation of a convolution, if any.
    pub fn activation(&self) -> Option<Activation> {
        match self.attributes.get("activation") {
            Some(Attr::Activation(activation)) => Some(*activation),
            _ => None,
        }
    }

    /// The fill mode of `graph.pad`.
    pub fn pad_mode(&self) -> PadMode {
        match self.attributes.get("mode") {
            Some(Attr::PadMode(mode)) => *mode,
            _ => self.missing("mode", "pad mode"),
        }
    }

    /// The payload of `graph.constant`.
    pub fn constant(&self) -> Option<Constant> {
        match self.attributes.get("value") {
            Some(Attr::Dense(constant)) => Some(*constant),
            _ => None,
        }
    }

    /// The line of the op's location when it is a file location (for explanations).
    pub fn line(&self) -> Option<u32> {
        // SAFETY: the op is alive (see the module doc of crate::ir).
        unsafe {
            let location = self.op.location();
            mlirLocationIsAFileLineColRange(location)
                .then(|| mlirLocationFileLineColRangeGetStartLine(location) as u32)
        }
    }
}
