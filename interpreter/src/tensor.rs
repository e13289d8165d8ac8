//! Dense row-major tensors of the element types the interpreter evaluates.

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
}

/// Tensor contents; integers of every width are held as i64.
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
