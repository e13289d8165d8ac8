//! Values and their types as the compiler distinguishes them.

use crate::ir::Val;
use mlir_sys::*;

/// Identifies an SSA value within a [`FunctionView`].
pub type ValueId = usize;

/// The element types the compiler distinguishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// 32-bit float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// bfloat16.
    Bf16,
    /// 64-bit signless integer.
    I64,
    /// 32-bit signless integer.
    I32,
    /// `i8` (signless, read as signed).
    I8,
    /// `ui8`.
    U8,
    /// `i1`.
    Bool,
    /// Any other element type (the passes that meet it say it is unsupported).
    Other,
}

impl ElementType {
    /// The kind of an MLIR element type.
    pub fn of(element: mlir_sys::MlirType) -> Self {
        // SAFETY: the type is alive with its context.
        unsafe { element_type(element) }
    }

    /// Bytes of one element (`Other` counts as 4, the footprint model's default word).
    pub fn bytes(self) -> usize {
        match self {
            ElementType::F32 | ElementType::I32 | ElementType::Other => 4,
            ElementType::I64 => 8,
            ElementType::F16 | ElementType::Bf16 => 2,
            ElementType::I8 | ElementType::U8 | ElementType::Bool => 1,
        }
    }

    /// Whether the elements are floats (f32, f16 or bf16).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F32 | ElementType::F16 | ElementType::Bf16
        )
    }
}

/// The float type all of `elements` are, None when one is not a float or two differ (f32 for
/// none at all).
pub fn uniform_float(elements: impl IntoIterator<Item = ElementType>) -> Option<ElementType> {
    let mut elements = elements.into_iter();
    let first = elements.next().unwrap_or(ElementType::F32);
    (first.is_float() && elements.all(|element| element == first)).then_some(first)
}

/// Shape and element type of a statically shaped tensor.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorType {
    /// Dimension sizes.
    pub shape: Vec<usize>,
    /// Element type.
    pub element_type: ElementType,
}

impl TensorType {
    /// The type of `value`, None when it is not a statically shaped tensor.
    pub fn of(value: Val) -> Option<Self> {
        static_tensor_type(value.r#type())
    }

    /// Bytes of the tensor (a scalar counts one element).
    pub fn bytes(&self) -> usize {
        self.shape.iter().product::<usize>().max(1) * self.element_type.bytes()
    }
}

/// The compiler's name for an element type.
///
/// # Safety
/// `element` must be a live type.
pub(super) unsafe fn element_type(element: MlirType) -> ElementType {
    // SAFETY: the caller's guarantee.
    unsafe {
        if mlirTypeIsAF32(element) {
            ElementType::F32
        } else if mlirTypeIsAF16(element) {
            ElementType::F16
        } else if mlirTypeIsABF16(element) {
            ElementType::Bf16
        } else if mlirTypeIsAInteger(element) {
            let signless = mlirIntegerTypeIsSignless(element);
            match (mlirIntegerTypeGetWidth(element), signless) {
                (64, true) => ElementType::I64,
                (32, true) => ElementType::I32,
                (8, true) => ElementType::I8,
                (8, false) if mlirIntegerTypeIsUnsigned(element) => ElementType::U8,
                (1, true) => ElementType::Bool,
                _ => ElementType::Other,
            }
        } else {
            ElementType::Other
        }
    }
}

/// `r#type` as a [`TensorType`], None when it is not a statically shaped ranked tensor.
pub(super) fn static_tensor_type(r#type: MlirType) -> Option<TensorType> {
    // SAFETY: the type is alive while the module is.
    if !unsafe { mlirTypeIsARankedTensor(r#type) } {
        return None;
    }
    static_shape(r#type)
}

/// The shape and element type of a statically shaped buffer (a host function's parameter),
/// None for any other type.
pub fn static_buffer_type(r#type: MlirType) -> Option<TensorType> {
    // SAFETY: the type is alive while the module is.
    if !unsafe { mlirTypeIsAMemRef(r#type) } {
        return None;
    }
    static_shape(r#type)
}

/// The shape and element type of a statically shaped ranked tensor or memref.
fn static_shape(r#type: MlirType) -> Option<TensorType> {
    // SAFETY: the type is alive while the module is and a ranked shaped type (checked by the
    // callers); shapes are read only when static.
    unsafe {
        if !mlirShapedTypeHasStaticShape(r#type) {
            return None;
        }
        let rank = mlirShapedTypeGetRank(r#type);
        let shape = (0..rank)
            .map(|d| mlirShapedTypeGetDimSize(r#type, d as isize) as usize)
            .collect();
        Some(TensorType {
            shape,
            element_type: element_type(mlirShapedTypeGetElementType(r#type)),
        })
    }
}
