//! Dense row-major tensors of the element types the interpreter evaluates.
//!
//! Values are held wide: floats of every width as `f32`, integers of every width as `i64`. Each
//! op computes in the wide type, and its result is then rounded or wrapped to the type the IR
//! declares ([`Tensor::conform`]), once per op, as numpy's float16 operations and onnxruntime's
//! kernels do. So an f16 value is always an f16 number, held in an `f32`.

use half::{bf16, f16};

/// The element type of a tensor, as the IR declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementType {
    /// `f32`.
    F32,
    /// `i64`.
    I64,
    /// `i32` (held as i64 while computing).
    I32,
    /// `i1`.
    Bool,
    /// `f16` (held as f32, every value an f16 one).
    F16,
    /// `bf16` (held as f32, every value a bf16 one).
    Bf16,
    /// `i8`, signless in the IR and read as signed (held as i64).
    I8,
    /// `ui8` (held as i64).
    U8,
}

impl ElementType {
    /// Whether it is a float type (held in [`Data::F32`]).
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F16 | Self::Bf16)
    }

    /// `value` rounded to this float type, to the nearest value with ties to even (beyond the
    /// largest finite value is infinity, NaN stays NaN); the value itself for f32.
    pub fn round(self, value: f32) -> f32 {
        match self {
            Self::F16 => f16::from_f32(value).to_f32(),
            Self::Bf16 => bf16::from_f32(value).to_f32(),
            _ => value,
        }
    }

    /// `value` wrapped to this integer type (two's complement, as numpy's integer arithmetic
    /// and casts wrap); the value itself for i64.
    pub fn wrap(self, value: i64) -> i64 {
        match self {
            Self::I32 => i64::from(value as i32),
            Self::I8 => i64::from(value as i8),
            Self::U8 => i64::from(value as u8),
            _ => value,
        }
    }
}

/// Tensor contents; integers of every width are held as i64, floats of every width as f32.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    /// Floating-point elements.
    F32(Vec<f32>),
    /// Integer elements.
    I64(Vec<i64>),
    /// Boolean elements.
    Bool(Vec<bool>),
}

/// A dense tensor in row-major order.
#[derive(Debug, Clone, PartialEq)]
pub struct Tensor {
    /// Dimension sizes.
    pub shape: Vec<usize>,
    /// The declared element type.
    pub element_type: ElementType,
    /// The elements, `shape.iter().product()` of them.
    pub data: Data,
}

/// The largest tensor the interpreter will allocate, in elements: 2^31, far above any model it is
/// meant for and far below what would exhaust memory.
pub const MAX_ELEMENTS: usize = 1 << 31;

/// Number of elements of `shape`, or None when it overflows or exceeds [`MAX_ELEMENTS`].
pub fn element_count(shape: &[usize]) -> Option<usize> {
    shape
        .iter()
        .try_fold(1usize, |count, &dim| count.checked_mul(dim))
        .filter(|&count| count <= MAX_ELEMENTS)
}

/// Row-major strides of `shape`.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

impl Data {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            Data::F32(values) => values.len(),
            Data::I64(values) => values.len(),
            Data::Bool(values) => values.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements at `indices`, in that order: every data-movement op (transpose, slice, gather,
    /// broadcast, concat) is a gather of source indices, whatever the element type.
    pub fn gather(&self, indices: &[usize]) -> Data {
        match self {
            Data::F32(values) => Data::F32(indices.iter().map(|&i| values[i]).collect()),
            Data::I64(values) => Data::I64(indices.iter().map(|&i| values[i]).collect()),
            Data::Bool(values) => Data::Bool(indices.iter().map(|&i| values[i]).collect()),
        }
    }

    /// Appends `other`, which must hold the same element type.
    pub fn extend(&mut self, other: &Data) {
        match (self, other) {
            (Data::F32(a), Data::F32(b)) => a.extend_from_slice(b),
            (Data::I64(a), Data::I64(b)) => a.extend_from_slice(b),
            (Data::Bool(a), Data::Bool(b)) => a.extend_from_slice(b),
            _ => unreachable!("the verifier ensures concatenated tensors share an element type"),
        }
    }

    /// An empty container of the same element type.
    pub fn empty_like(&self) -> Data {
        match self {
            Data::F32(_) => Data::F32(Vec::new()),
            Data::I64(_) => Data::I64(Vec::new()),
            Data::Bool(_) => Data::Bool(Vec::new()),
        }
    }
}

impl Tensor {
    /// A tensor of f32 values.
    pub fn f32(shape: Vec<usize>, values: Vec<f32>) -> Tensor {
        debug_assert_eq!(shape.iter().product::<usize>(), values.len());
        Tensor {
            shape,
            element_type: ElementType::F32,
            data: Data::F32(values),
        }
    }

    /// The tensor with its elements rounded or wrapped to `element` and declared of that type:
    /// what every op's result goes through, so that each op rounds once to its result type.
    pub fn conform(mut self, element: ElementType) -> Tensor {
        match &mut self.data {
            Data::F32(values) if matches!(element, ElementType::F16 | ElementType::Bf16) => {
                values
                    .iter_mut()
                    .for_each(|value| *value = element.round(*value));
            }
            Data::I64(values)
                if matches!(
                    element,
                    ElementType::I32 | ElementType::I8 | ElementType::U8
                ) =>
            {
                values
                    .iter_mut()
                    .for_each(|value| *value = element.wrap(*value));
            }
            _ => {}
        }
        self.element_type = element;
        self
    }

    /// The f32 values, or None for another element type.
    pub fn as_f32(&self) -> Option<&[f32]> {
        match &self.data {
            Data::F32(values) => Some(values),
            _ => None,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }
}
