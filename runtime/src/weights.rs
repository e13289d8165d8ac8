//! A compiled model's weights file (safetensors): read whole, then each tensor the model names
//! checked against the buffer it fills (name, element type, shape) before its bytes are used.
//! safetensors stores little-endian data, the byte order of the hosts the runtime supports.

use crate::element::ElementType;
use crate::error::{Result, RuntimeError};
use safetensors::{Dtype, SafeTensors};

/// The bytes of a weights file.
pub struct WeightsFile {
    path: String,
    bytes: Vec<u8>,
}

impl WeightsFile {
    /// Reads the file at `path` (within `turbine_files::WEIGHTS`' size limit).
    pub fn read(path: &str) -> Result<WeightsFile> {
        let bytes =
            turbine_files::read(path.as_ref(), turbine_files::WEIGHTS).map_err(|error| {
                RuntimeError::WeightsFile {
                    path: path.to_owned(),
                    message: error.reason.to_string(),
                }
            })?;
        Ok(WeightsFile {
            path: path.to_owned(),
            bytes,
        })
    }

    /// The parsed header and tensors.
    pub fn tensors(&self) -> Result<SafeTensors<'_>> {
        SafeTensors::deserialize(&self.bytes).map_err(|error| RuntimeError::WeightsFile {
            path: self.path.clone(),
            message: format!("not a safetensors file: {error}"),
        })
    }

    /// The data of tensor `name` of `tensors`, which must hold `dtype` elements of `shape`.
    pub fn tensor<'a>(
        &self,
        tensors: &SafeTensors<'a>,
        name: &str,
        dtype: ElementType,
        shape: &[u64],
    ) -> Result<&'a [u8]> {
        let mismatch = |message: String| RuntimeError::Weight {
            path: self.path.clone(),
            name: name.to_owned(),
            message,
        };
        let view = tensors
            .tensor(name)
            .map_err(|_| mismatch("is missing".into()))?;
        if safetensors_dtype(dtype) != view.dtype() {
            return Err(mismatch(format!(
                "holds {:?} elements, the model expects {dtype}",
                view.dtype()
            )));
        }
        let found: Vec<u64> = view.shape().iter().map(|&dim| dim as u64).collect();
        if found != shape {
            return Err(mismatch(format!(
                "has shape {found:?}, the model expects {shape:?}"
            )));
        }
        Ok(view.data())
    }
}

/// The safetensors element type of `dtype` buffers.
pub fn safetensors_dtype(dtype: ElementType) -> Dtype {
    match dtype {
        ElementType::F32 => Dtype::F32,
        ElementType::I64 => Dtype::I64,
        ElementType::I32 => Dtype::I32,
        ElementType::I8 => Dtype::I8,
        ElementType::U8 => Dtype::U8,
        ElementType::Bool => Dtype::BOOL,
        ElementType::F16 => Dtype::F16,
        ElementType::Bf16 => Dtype::BF16,
    }
}

/// One tensor to write into a weights file: its name, element type, shape and little-endian
/// bytes.
pub struct NamedTensor {
    /// The name the model's entry reads it by.
    pub name: String,
    /// Its element type.
    pub dtype: ElementType,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// The safetensors file of `tensors`; an error names a tensor whose bytes do not fit its shape.
pub fn serialize(tensors: &[NamedTensor]) -> std::result::Result<Vec<u8>, String> {
    let views = tensors
        .iter()
        .map(|tensor| {
            safetensors::tensor::TensorView::new(
                safetensors_dtype(tensor.dtype),
                tensor.shape.clone(),
                &tensor.data,
            )
            .map(|view| (tensor.name.as_str(), view))
            .map_err(|error| format!("weight '{}': {error}", tensor.name))
        })
        .collect::<std::result::Result<Vec<_>, String>>()?;
    safetensors::serialize(views, &None).map_err(|error| error.to_string())
}
