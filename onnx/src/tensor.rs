//! Constant tensors known at import time: initializers, `Constant` nodes and folded results.
//!
//! Data is decoded from a `TensorProto` only after its shape has passed
//! [`element_count`](crate::types::element_count) and the stored element count has been checked
//! against it, so a corrupt file is an error before any allocation that its numbers would ask for.

use half::{bf16, f16};

use crate::error::{ImportError, TensorProblem};
use crate::proto::TensorProto;
use crate::types::{element_count, format_shape, ElementType, TensorType};

/// The elements of a constant tensor, row-major.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// `f32` elements.
    F32(Vec<f32>),
    /// `i32` elements.
    I32(Vec<i32>),
    /// `i64` elements.
    I64(Vec<i64>),
    /// Boolean elements.
    Bool(Vec<bool>),
    /// `f16` elements.
    F16(Vec<f16>),
    /// `bf16` elements.
    Bf16(Vec<bf16>),
    /// `i8` elements.
    I8(Vec<i8>),
    /// `ui8` elements.
    U8(Vec<u8>),
}

/// `$body` on the elements (`$values`) of whichever variant `$data` is.
macro_rules! any_variant {
    ($data:expr, $values:ident => $body:expr) => {
        match $data {
            Data::F32($values) => $body,
            Data::I32($values) => $body,
            Data::I64($values) => $body,
            Data::Bool($values) => $body,
            Data::F16($values) => $body,
            Data::Bf16($values) => $body,
            Data::I8($values) => $body,
            Data::U8($values) => $body,
        }
    };
}

/// `$body` on the elements (`$values`) of `$data`, as the same variant.
macro_rules! same_variant {
    ($data:expr, $values:ident => $body:expr) => {
        match $data {
            Data::F32($values) => Data::F32($body),
            Data::I32($values) => Data::I32($body),
            Data::I64($values) => Data::I64($body),
            Data::Bool($values) => Data::Bool($body),
            Data::F16($values) => Data::F16($body),
            Data::Bf16($values) => Data::Bf16($body),
            Data::I8($values) => Data::I8($body),
            Data::U8($values) => Data::U8($body),
        }
    };
}

/// An element's identity as it prints: floats by their bits, so that -0.0 and 0.0 differ and a
/// NaN equals itself.
trait Identity: Copy {
    fn identity(self) -> u64;
}

macro_rules! identity_by_bits {
    ($($type:ty),*) => {$(
        impl Identity for $type {
            fn identity(self) -> u64 {
                u64::from(self.to_bits())
            }
        }
    )*};
}
identity_by_bits!(f32, f16, bf16);

macro_rules! identity_by_value {
    ($($type:ty),*) => {$(
        impl Identity for $type {
            fn identity(self) -> u64 {
                self as u64
            }
        }
    )*};
}
identity_by_value!(i32, i64, bool, i8, u8);

impl Data {
    /// The element type.
    pub fn element(&self) -> ElementType {
        match self {
            Self::F32(_) => ElementType::F32,
            Self::I32(_) => ElementType::I32,
            Self::I64(_) => ElementType::I64,
            Self::Bool(_) => ElementType::Bool,
            Self::F16(_) => ElementType::F16,
            Self::Bf16(_) => ElementType::Bf16,
            Self::I8(_) => ElementType::I8,
            Self::U8(_) => ElementType::U8,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        any_variant!(self, values => values.len())
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements at `indices`, in that order: the one primitive behind every data-movement
    /// kernel (gather, slice, transpose, broadcast, concat), which only compute index lists.
    pub fn take(&self, indices: &[usize]) -> Data {
        same_variant!(self, values => indices.iter().map(|&index| values[index]).collect())
    }

    /// Whether every element equals the first (a tensor that prints as one `dense<v>` value).
    pub fn is_splat(&self) -> bool {
        fn same<T: Identity>(values: &[T]) -> bool {
            values.first().is_none_or(|&first| {
                values
                    .iter()
                    .all(|&value| value.identity() == first.identity())
            })
        }
        any_variant!(self, values => same(values))
    }

    /// Whether the elements at `a` and `b` are the same (bitwise for floats).
    fn same_at(&self, a: usize, b: usize) -> bool {
        any_variant!(self, values => values[a].identity() == values[b].identity())
    }

    /// `count` zeros (`false` for booleans) of type `element`.
    pub fn zeros(element: ElementType, count: usize) -> Data {
        Data::I64(vec![0; count]).convert(element)
    }

    /// `count` copies of the first element (the caller ensures there is one).
    pub fn repeat_first(&self, count: usize) -> Data {
        same_variant!(self, values => vec![values[0]; count])
    }

    /// Appends `more`, which holds the same element type (the callers check it).
    pub fn append(&mut self, more: &Data) {
        match (self, more) {
            (Data::F32(values), Data::F32(more)) => values.extend_from_slice(more),
            (Data::I32(values), Data::I32(more)) => values.extend_from_slice(more),
            (Data::I64(values), Data::I64(more)) => values.extend_from_slice(more),
            (Data::Bool(values), Data::Bool(more)) => values.extend_from_slice(more),
            (Data::F16(values), Data::F16(more)) => values.extend_from_slice(more),
            (Data::Bf16(values), Data::Bf16(more)) => values.extend_from_slice(more),
            (Data::I8(values), Data::I8(more)) => values.extend_from_slice(more),
            (Data::U8(values), Data::U8(more)) => values.extend_from_slice(more),
            _ => unreachable!("appended elements share one element type"),
        }
    }

    /// The elements as little-endian bytes, the layout of safetensors (f16 and bf16 as their
    /// 16-bit patterns).
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Self::Bool(values) => values.iter().map(|&value| u8::from(value)).collect(),
            Self::F16(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::Bf16(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::F32(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::I32(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::I64(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::I8(values) => values.iter().flat_map(|v| v.to_le_bytes()).collect(),
            Self::U8(values) => values.clone(),
        }
    }
}

/// A constant tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// The dimensions, outermost first.
    pub shape: Vec<usize>,
    /// The elements; `data.len()` is the product of `shape`.
    pub data: Data,
}

impl Tensor {
    /// A tensor of `shape` holding `data`.
    pub fn new(shape: Vec<usize>, data: Data) -> Self {
        debug_assert_eq!(
            shape.iter().product::<usize>(),
            data.len(),
            "shape {shape:?}"
        );
        Self { shape, data }
    }

    /// A 1-D `i64` tensor, the type of every ONNX shape.
    pub fn from_i64s(values: Vec<i64>) -> Self {
        Self::new(vec![values.len()], Data::I64(values))
    }

    /// Its type.
    pub fn ty(&self) -> TensorType {
        TensorType::new(self.shape.clone(), self.data.element())
    }

    /// The elements of an integer tensor as `i64`, or `None` for float and bool tensors.
    pub fn to_i64s(&self) -> Option<Vec<i64>> {
        self.data.integers()
    }

    /// The single element of a one-element tensor as `f32` (clip bounds, pad values), or `None`
    /// when the tensor has another size or is boolean.
    pub fn scalar_f32(&self) -> Option<f32> {
        if self.data.len() != 1 {
            return None;
        }
        // Integer pad values and bounds only ever reach f32 attributes, which is what the graph
        // dialect stores.
        match &self.data {
            Data::Bool(_) => None,
            data => data
                .convert(ElementType::F32)
                .floats()
                .map(|values| values[0]),
        }
    }

    /// The smallest tensor that broadcasts to this one, with size 1 in every dimension along
    /// which all of this one's slices are the same; `None` when there is no such dimension.
    /// Folded constants are often expansions (a row of token-type embeddings repeated over the
    /// batch): stored once, they stay weights every share of the batch reads alike.
    pub fn broadcast_source(&self) -> Option<Tensor> {
        let mut source = self.clone();
        for dim in 0..self.shape.len() {
            if source.shape[dim] > 1 && source.repeats_along(dim) {
                source = source.first_along(dim);
            }
        }
        (source.shape != self.shape).then_some(source)
    }

    /// Whether every slice along `dim` equals the first.
    fn repeats_along(&self, dim: usize) -> bool {
        let inner: usize = self.shape[dim + 1..].iter().product();
        let size = self.shape[dim];
        let outer = self.data.len() / (inner * size).max(1);
        (0..outer).all(|o| {
            let first = o * size * inner;
            (inner..size * inner)
                .all(|offset| self.data.same_at(first + offset % inner, first + offset))
        })
    }

    /// The first slice along `dim`, keeping the dimension with size 1.
    fn first_along(&self, dim: usize) -> Tensor {
        let inner: usize = self.shape[dim + 1..].iter().product();
        let size = self.shape[dim];
        let outer = self.data.len() / (inner * size).max(1);
        let indices: Vec<usize> = (0..outer)
            .flat_map(|o| (0..inner).map(move |i| o * size * inner + i))
            .collect();
        let mut shape = self.shape.clone();
        shape[dim] = 1;
        Tensor::new(shape, self.data.take(&indices))
    }

    /// Decodes an ONNX tensor named `name` (the name used in errors).
    pub fn from_proto(proto: &TensorProto, name: &str) -> Result<Self, ImportError> {
        let problem = |problem| ImportError::Tensor {
            tensor: name.to_owned(),
            problem,
        };
        if proto.data_location == 1 || !proto.external_data.is_empty() {
            return Err(problem(TensorProblem::ExternalData(
                "it is read only when the model is imported from a file, beside it".into(),
            )));
        }
        let element = ElementType::from_onnx(proto.data_type).ok_or_else(|| {
            problem(TensorProblem::ElementType(ElementType::onnx_name(
                proto.data_type,
            )))
        })?;
        let dims = format_shape(&proto.dims);
        let count = element_count(&proto.dims)
            .ok_or_else(|| problem(TensorProblem::TooLarge { dims: dims.clone() }))?;
        let shape: Vec<usize> = proto.dims.iter().map(|&dim| dim as usize).collect();

        if !proto.raw_data.is_empty() {
            let raw = &proto.raw_data;
            let expected = count * element.byte_size();
            if raw.len() != expected {
                return Err(problem(TensorProblem::DataSize {
                    dims,
                    expected: format!("{expected} bytes of raw data"),
                    actual: format!("{} bytes", raw.len()),
                }));
            }
            return Ok(Self::new(shape, from_le_bytes(element, raw)));
        }

        let (field, stored) = match element {
            ElementType::F32 => ("float_data", proto.float_data.len()),
            ElementType::I64 => ("int64_data", proto.int64_data.len()),
            _ => ("int32_data", proto.int32_data.len()),
        };
        if stored != count {
            return Err(problem(TensorProblem::DataSize {
                dims,
                expected: format!("{count} {field} values"),
                actual: format!("{stored}"),
            }));
        }
        Ok(Self::new(shape, typed_data(element, proto)))
    }
}

/// The elements of `raw`, little-endian `element`s whose count the caller checked.
fn from_le_bytes(element: ElementType, raw: &[u8]) -> Data {
    fn words<const N: usize, T>(raw: &[u8], read: fn([u8; N]) -> T) -> Vec<T> {
        raw.chunks_exact(N)
            .map(|bytes| read(bytes.try_into().expect("chunks of N bytes")))
            .collect()
    }
    match element {
        ElementType::F32 => Data::F32(words(raw, f32::from_le_bytes)),
        ElementType::I32 => Data::I32(words(raw, i32::from_le_bytes)),
        ElementType::I64 => Data::I64(words(raw, i64::from_le_bytes)),
        ElementType::Bool => Data::Bool(raw.iter().map(|&byte| byte != 0).collect()),
        ElementType::F16 => Data::F16(words(raw, f16::from_le_bytes)),
        ElementType::Bf16 => Data::Bf16(words(raw, bf16::from_le_bytes)),
        ElementType::I8 => Data::I8(words(raw, i8::from_le_bytes)),
        ElementType::U8 => Data::U8(raw.to_vec()),
    }
}

/// The elements of `proto`'s typed field for `element`, whose count the caller checked.
/// `int32_data` holds f16 and bf16 elements as their 16-bit patterns and 8-bit integers as
/// their values; like onnx's `numpy_helper`, wider values keep their low bits.
fn typed_data(element: ElementType, proto: &TensorProto) -> Data {
    let int32 = &proto.int32_data;
    match element {
        ElementType::F32 => Data::F32(proto.float_data.clone()),
        ElementType::I32 => Data::I32(int32.clone()),
        ElementType::I64 => Data::I64(proto.int64_data.clone()),
        ElementType::Bool => Data::Bool(int32.iter().map(|&value| value != 0).collect()),
        ElementType::F16 => Data::F16(int32.iter().map(|&v| f16::from_bits(v as u16)).collect()),
        ElementType::Bf16 => Data::Bf16(int32.iter().map(|&v| bf16::from_bits(v as u16)).collect()),
        ElementType::I8 => Data::I8(int32.iter().map(|&value| value as i8).collect()),
        ElementType::U8 => Data::U8(int32.iter().map(|&value| value as u8).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proto(dims: Vec<i64>, data_type: i32) -> TensorProto {
        TensorProto {
            dims,
            data_type,
            ..Default::default()
        }
    }

    #[test]
    fn broadcast_source_keeps_one_of_each_repeated_slice() {
        // [2, 3, 2]: the same 3 × 2 block twice; within it the columns differ, the rows differ.
        let block = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let repeated = Tensor::new(vec![2, 3, 2], Data::F32([block, block].concat()));
        let source = repeated.broadcast_source().unwrap();
        assert_eq!(source.shape, vec![1, 3, 2]);
        assert_eq!(source.data, Data::F32(block.to_vec()));

        // [2, 2, 2]: each row repeated along the middle dimension only.
        let rows = Tensor::new(
            vec![2, 2, 2],
            Data::F32(vec![1.0, 2.0, 1.0, 2.0, 3.0, 4.0, 3.0, 4.0]),
        );
        let source = rows.broadcast_source().unwrap();
        assert_eq!(source.shape, vec![2, 1, 2]);
        assert_eq!(source.data, Data::F32(vec![1.0, 2.0, 3.0, 4.0]));

        // No repetition, and -0.0 against 0.0 told apart.
        let plain = Tensor::new(vec![2, 2], Data::F32(vec![0.0, 1.0, -0.0, 1.0]));
        assert_eq!(plain.broadcast_source(), None);
    }

    #[test]
    fn decodes_raw_and_typed_data() {
        let mut raw = proto(vec![2], 1);
        raw.raw_data = [1.5f32, -2.0]
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect();
        assert_eq!(
            Tensor::from_proto(&raw, "w").unwrap().data,
            Data::F32(vec![1.5, -2.0])
        );

        let mut typed = proto(vec![3], 7);
        typed.int64_data = vec![1, -1, 7];
        assert_eq!(
            Tensor::from_proto(&typed, "s").unwrap().data,
            Data::I64(vec![1, -1, 7])
        );

        let mut mask = proto(vec![2], 9);
        mask.raw_data = vec![1, 0];
        assert_eq!(
            Tensor::from_proto(&mask, "m").unwrap().data,
            Data::Bool(vec![true, false])
        );

        let scalar = {
            let mut scalar = proto(vec![], 1);
            scalar.float_data = vec![3.0];
            scalar
        };
        assert_eq!(
            Tensor::from_proto(&scalar, "c").unwrap().shape,
            Vec::<usize>::new()
        );
    }

    #[test]
    fn refuses_data_that_disagrees_with_the_shape() {
        let mut short = proto(vec![2, 3], 1);
        short.raw_data = vec![0; 20];
        let error = Tensor::from_proto(&short, "w").unwrap_err().to_string();
        assert_eq!(
            error,
            "tensor 'w': shape [2, 3] needs 24 bytes of raw data but the file holds 20 bytes"
        );

        let huge = proto(vec![1 << 20, 1 << 20], 1);
        let error = Tensor::from_proto(&huge, "big").unwrap_err().to_string();
        assert!(error.contains("too large to be real"), "{error}");

        let mut external = proto(vec![1], 1);
        external.data_location = 1;
        assert!(Tensor::from_proto(&external, "x")
            .unwrap_err()
            .to_string()
            .contains("external data cannot be read"));

        let double = proto(vec![1], 11);
        assert!(Tensor::from_proto(&double, "d")
            .unwrap_err()
            .to_string()
            .contains("DOUBLE"));
    }
}
