//! Constant tensors known at import time: initializers, `Constant` nodes and folded results.
//!
//! Data is decoded from a `TensorProto` only after its shape has passed
//! [`element_count`](crate::types::element_count) and the stored element count has been checked
//! against it, so a corrupt file is an error before any allocation that its numbers would ask for.

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
}

impl Data {
    /// The element type.
    pub fn element(&self) -> ElementType {
        match self {
            Self::F32(_) => ElementType::F32,
            Self::I32(_) => ElementType::I32,
            Self::I64(_) => ElementType::I64,
            Self::Bool(_) => ElementType::Bool,
        }
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        match self {
            Self::F32(values) => values.len(),
            Self::I32(values) => values.len(),
            Self::I64(values) => values.len(),
            Self::Bool(values) => values.len(),
        }
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The elements at `indices`, in that order: the one primitive behind every data-movement
    /// kernel (gather, slice, transpose, broadcast, concat), which only compute index lists.
    pub fn take(&self, indices: &[usize]) -> Data {
        fn pick<T: Copy>(values: &[T], indices: &[usize]) -> Vec<T> {
            indices.iter().map(|&index| values[index]).collect()
        }
        match self {
            Self::F32(values) => Self::F32(pick(values, indices)),
            Self::I32(values) => Self::I32(pick(values, indices)),
            Self::I64(values) => Self::I64(pick(values, indices)),
            Self::Bool(values) => Self::Bool(pick(values, indices)),
        }
    }

    /// Whether every element equals the first (a tensor that prints as one `dense<v>` value).
    pub fn is_splat(&self) -> bool {
        fn same<T: Copy, K: PartialEq>(values: &[T], key: impl Fn(T) -> K) -> bool {
            values
                .first()
                .is_none_or(|&first| values.iter().all(|&value| key(value) == key(first)))
        }
        match self {
            // Compare bits so that -0.0 and 0.0, or two NaNs, are told apart as they print.
            Self::F32(values) => same(values, f32::to_bits),
            Self::I32(values) => same(values, |value| value),
            Self::I64(values) => same(values, |value| value),
            Self::Bool(values) => same(values, |value| value),
        }
    }

    /// Whether the elements at `a` and `b` are the same (bitwise for floats).
    fn same_at(&self, a: usize, b: usize) -> bool {
        match self {
            Self::F32(values) => values[a].to_bits() == values[b].to_bits(),
            Self::I32(values) => values[a] == values[b],
            Self::I64(values) => values[a] == values[b],
            Self::Bool(values) => values[a] == values[b],
        }
    }

    /// `count` zeros (`false` for booleans) of type `element`.
    pub fn zeros(element: ElementType, count: usize) -> Data {
        match element {
            ElementType::F32 => Self::F32(vec![0.0; count]),
            ElementType::I32 => Self::I32(vec![0; count]),
            ElementType::I64 => Self::I64(vec![0; count]),
            ElementType::Bool => Self::Bool(vec![false; count]),
        }
    }

    /// `count` copies of the first element (the caller ensures there is one).
    pub fn repeat_first(&self, count: usize) -> Data {
        match self {
            Self::F32(values) => Self::F32(vec![values[0]; count]),
            Self::I32(values) => Self::I32(vec![values[0]; count]),
            Self::I64(values) => Self::I64(vec![values[0]; count]),
            Self::Bool(values) => Self::Bool(vec![values[0]; count]),
        }
    }

    /// The elements as little-endian bytes, the layout of safetensors.
    pub fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Self::F32(values) => values
                .iter()
                .flat_map(|value| value.to_le_bytes())
                .collect(),
            Self::I32(values) => values
                .iter()
                .flat_map(|value| value.to_le_bytes())
                .collect(),
            Self::I64(values) => values
                .iter()
                .flat_map(|value| value.to_le_bytes())
                .collect(),
            Self::Bool(values) => values.iter().map(|&value| u8::from(value)).collect(),
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
        match &self.data {
            Data::I64(values) => Some(values.clone()),
            Data::I32(values) => Some(values.iter().map(|&value| i64::from(value)).collect()),
            Data::F32(_) | Data::Bool(_) => None,
        }
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
            Data::F32(values) => Some(values[0]),
            Data::I32(values) => Some(values[0] as f32),
            Data::I64(values) => Some(values[0] as f32),
            Data::Bool(_) => None,
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
            let data = match element {
                ElementType::F32 => Data::F32(
                    raw.chunks_exact(4)
                        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                ),
                ElementType::I32 => Data::I32(
                    raw.chunks_exact(4)
                        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                        .collect(),
                ),
                ElementType::I64 => Data::I64(
                    raw.chunks_exact(8)
                        .map(|b| {
                            i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
                        })
                        .collect(),
                ),
                ElementType::Bool => Data::Bool(raw.iter().map(|&byte| byte != 0).collect()),
            };
            return Ok(Self::new(shape, data));
        }

        let (field, stored) = match element {
            ElementType::F32 => ("float_data", proto.float_data.len()),
            ElementType::I32 | ElementType::Bool => ("int32_data", proto.int32_data.len()),
            ElementType::I64 => ("int64_data", proto.int64_data.len()),
        };
        if stored != count {
            return Err(problem(TensorProblem::DataSize {
                dims,
                expected: format!("{count} {field} values"),
                actual: format!("{stored}"),
            }));
        }
        let data = match element {
            ElementType::F32 => Data::F32(proto.float_data.clone()),
            ElementType::I32 => Data::I32(proto.int32_data.clone()),
            ElementType::I64 => Data::I64(proto.int64_data.clone()),
            ElementType::Bool => {
                Data::Bool(proto.int32_data.iter().map(|&value| value != 0).collect())
            }
        };
        Ok(Self::new(shape, data))
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
