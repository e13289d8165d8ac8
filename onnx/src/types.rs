//! Element types and static tensor types, and the bound on how large a tensor may be.

use std::fmt;

/// The most dimensions one tensor may have. Real models stay below 8; the bound keeps
/// rank-proportional work (and a hostile `Unsqueeze` with a million axes) small.
pub const MAX_RANK: usize = 64;

/// The most elements one tensor may have: 2^31. A dimension list whose product is above it comes
/// from a corrupt or hostile file rather than a real model (a ResNet-50's largest tensor has 2.4
/// million elements), and refusing it up front means the importer never tries to allocate it.
pub const MAX_ELEMENTS: u64 = 1 << 31;

/// The element types Turbine's graph dialect handles: what the supported models use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementType {
    /// 32-bit IEEE float (`f32`): activations and weights.
    F32,
    /// 32-bit signed integer (`i32`): some exporters' indices.
    I32,
    /// 64-bit signed integer (`i64`): shapes, indices, token ids.
    I64,
    /// Boolean (`i1`): masks and comparison results.
    Bool,
    /// 16-bit IEEE float (`f16`): half-precision activations and weights.
    F16,
    /// bfloat16 (`bf16`): f32's exponent range with an 8-bit significand.
    Bf16,
    /// 8-bit signed integer (`i8`, signless in MLIR and read as signed): quantised data.
    I8,
    /// 8-bit unsigned integer (`ui8`): images and quantised data.
    U8,
}

impl ElementType {
    /// The element type of an ONNX `TensorProto.DataType` code, or `None` when Turbine does not
    /// support it.
    pub fn from_onnx(code: i32) -> Option<Self> {
        match code {
            1 => Some(Self::F32),
            6 => Some(Self::I32),
            7 => Some(Self::I64),
            9 => Some(Self::Bool),
            10 => Some(Self::F16),
            16 => Some(Self::Bf16),
            3 => Some(Self::I8),
            2 => Some(Self::U8),
            _ => None,
        }
    }

    /// The ONNX `TensorProto.DataType` code.
    pub fn onnx_code(self) -> i32 {
        match self {
            Self::F32 => 1,
            Self::I32 => 6,
            Self::I64 => 7,
            Self::Bool => 9,
            Self::F16 => 10,
            Self::Bf16 => 16,
            Self::I8 => 3,
            Self::U8 => 2,
        }
    }

    /// The ONNX name of a `TensorProto.DataType` code, for error messages.
    pub fn onnx_name(code: i32) -> String {
        const NAMES: [&str; 24] = [
            "UNDEFINED",
            "FLOAT",
            "UINT8",
            "INT8",
            "UINT16",
            "INT16",
            "INT32",
            "INT64",
            "STRING",
            "BOOL",
            "FLOAT16",
            "DOUBLE",
            "UINT32",
            "UINT64",
            "COMPLEX64",
            "COMPLEX128",
            "BFLOAT16",
            "FLOAT8E4M3FN",
            "FLOAT8E4M3FNUZ",
            "FLOAT8E5M2",
            "FLOAT8E5M2FNUZ",
            "UINT4",
            "INT4",
            "FLOAT4E2M1",
        ];
        usize::try_from(code)
            .ok()
            .and_then(|index| NAMES.get(index))
            .map_or_else(|| format!("data type {code}"), |name| (*name).to_owned())
    }

    /// Bytes per element in ONNX's `raw_data` encoding.
    pub fn byte_size(self) -> usize {
        match self {
            Self::F32 | Self::I32 => 4,
            Self::I64 => 8,
            Self::F16 | Self::Bf16 => 2,
            Self::Bool | Self::I8 | Self::U8 => 1,
        }
    }

    /// Whether the graph dialect's float-only operators (convolution, activations, ...) accept it.
    pub fn is_float(self) -> bool {
        matches!(self, Self::F32 | Self::F16 | Self::Bf16)
    }

    /// The largest finite value of a float type (`None` for the others): what an omitted `Clip`
    /// bound is, so that infinities clip to it as in onnxruntime.
    pub fn max_finite(self) -> Option<f32> {
        match self {
            Self::F32 => Some(f32::MAX),
            Self::F16 => Some(half::f16::MAX.to_f32()),
            Self::Bf16 => Some(half::bf16::MAX.to_f32()),
            _ => None,
        }
    }
}

impl fmt::Display for ElementType {
    /// The MLIR spelling: `f32`, `i32`, `i64`, `i1`, `f16`, `bf16`, `i8`, `ui8`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Self::F32 => "f32",
            Self::I32 => "i32",
            Self::I64 => "i64",
            Self::Bool => "i1",
            Self::F16 => "f16",
            Self::Bf16 => "bf16",
            Self::I8 => "i8",
            Self::U8 => "ui8",
        })
    }
}

/// A ranked tensor type with a static shape, as every value in the graph dialect has.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TensorType {
    /// The dimensions, outermost first; empty for a scalar.
    pub shape: Vec<usize>,
    /// The element type.
    pub element: ElementType,
}

impl TensorType {
    /// A tensor type; the caller has checked the shape with [`element_count`].
    pub fn new(shape: Vec<usize>, element: ElementType) -> Self {
        Self { shape, element }
    }

    /// The number of elements (the product of the dimensions).
    pub fn num_elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// The rank.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The same shape with another element type.
    pub fn with_element(&self, element: ElementType) -> Self {
        Self {
            shape: self.shape.clone(),
            element,
        }
    }
}

impl fmt::Display for TensorType {
    /// The MLIR spelling, such as `tensor<1x3x224x224xf32>` or `tensor<i64>`.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("tensor<")?;
        for dim in &self.shape {
            write!(formatter, "{dim}x")?;
        }
        write!(formatter, "{}>", self.element)
    }
}

/// The element count of `dims`, or `None` when a dimension is negative, the count exceeds
/// [`MAX_ELEMENTS`] (overflow included) or the rank exceeds [`MAX_RANK`]. The one gate every shape
/// from the file or the command line passes before anything is allocated for it.
pub fn element_count(dims: &[i64]) -> Option<usize> {
    if dims.len() > MAX_RANK {
        return None;
    }
    let mut count: u64 = 1;
    for &dim in dims {
        let dim = u64::try_from(dim).ok()?;
        count = count.checked_mul(dim)?;
        // A zero dimension makes the product 0 whatever follows, but every dimension must still be
        // sane on its own.
        if dim > MAX_ELEMENTS {
            return None;
        }
    }
    (count <= MAX_ELEMENTS).then_some(count as usize)
}

/// The element count of an inferred shape, or `None` when it exceeds [`MAX_ELEMENTS`] (overflow
/// included) or its rank [`MAX_RANK`]: broadcasting three shapes that are each within the bound
/// can still multiply past it.
pub fn checked_len(shape: &[usize]) -> Option<usize> {
    if shape.len() > MAX_RANK {
        return None;
    }
    shape
        .iter()
        .try_fold(1usize, |count, &dim| count.checked_mul(dim))
        .filter(|&count| count as u64 <= MAX_ELEMENTS)
}

/// Formats a shape as `[1, 3, 224, 224]` for messages.
pub fn format_shape<T: fmt::Display>(dims: &[T]) -> String {
    let parts: Vec<String> = dims.iter().map(ToString::to_string).collect();
    format!("[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_count_rejects_what_cannot_be_real() {
        assert_eq!(element_count(&[]), Some(1));
        assert_eq!(element_count(&[2, 3, 4]), Some(24));
        assert_eq!(
            element_count(&[0, 1 << 40]),
            None,
            "a huge dimension is refused even beside 0"
        );
        assert_eq!(element_count(&[0, 5]), Some(0));
        assert_eq!(element_count(&[-1, 3]), None);
        assert_eq!(element_count(&[1 << 16, 1 << 16]), None, "2^32 elements");
        assert_eq!(element_count(&[i64::MAX, i64::MAX]), None, "overflow");
        assert_eq!(element_count(&[1 << 31]), Some(1 << 31));
        assert_eq!(element_count(&[1; 65]), None, "rank 65");
    }

    #[test]
    fn types_print_as_mlir() {
        assert_eq!(
            TensorType::new(vec![1, 3, 224, 224], ElementType::F32).to_string(),
            "tensor<1x3x224x224xf32>"
        );
        assert_eq!(
            TensorType::new(vec![], ElementType::I64).to_string(),
            "tensor<i64>"
        );
        assert_eq!(
            TensorType::new(vec![0], ElementType::Bool).to_string(),
            "tensor<0xi1>"
        );
        assert_eq!(
            TensorType::new(vec![2], ElementType::U8).to_string(),
            "tensor<2xui8>"
        );
        for code in [1, 2, 3, 6, 7, 9, 10, 16] {
            let element = ElementType::from_onnx(code).unwrap();
            assert_eq!(element.onnx_code(), code, "{element}");
        }
        assert_eq!(ElementType::onnx_name(11), "DOUBLE");
        assert_eq!(ElementType::onnx_name(99), "data type 99");
    }
}
