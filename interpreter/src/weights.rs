//! The weights side file (safetensors) that `graph.weight` reads by name.

use crate::{
    error::InterpretError,
    tensor::{element_count, Data, ElementType, Tensor},
};
use half::{bf16, f16};
use safetensors::{Dtype, SafeTensors};
use std::collections::HashMap;

/// Named tensors loaded from a safetensors file.
#[derive(Debug, Default)]
pub struct Weights {
    tensors: HashMap<String, Tensor>,
}

impl Weights {
    /// No weights: a module without `graph.weight` needs none.
    pub fn empty() -> Weights {
        Weights::default()
    }

    /// Every tensor of the safetensors `bytes` (a weights file's, or an importer's weights in
    /// memory without the round trip through a file), `origin` naming them in errors; f32, f64
    /// as f32, f16, bf16, i64, i32, i8, u8 and bool.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Weights, InterpretError> {
        let file_error = |message: String| InterpretError::File {
            path: origin.to_string(),
            message,
        };
        let file = SafeTensors::deserialize(bytes)
            .map_err(|error| file_error(format!("not a safetensors file: {error}")))?;
        let mut tensors = HashMap::new();
        for (name, view) in file.tensors() {
            let shape = view.shape().to_vec();
            element_count(&shape).ok_or_else(|| {
                file_error(format!("tensor '{name}' of shape {shape:?} is too large"))
            })?;
            let (element_type, data) = decode(view.dtype(), view.data()).ok_or_else(|| {
                file_error(format!(
                    "tensor '{name}' has unsupported dtype {:?}",
                    view.dtype()
                ))
            })?;
            tensors.insert(
                name,
                Tensor {
                    shape,
                    element_type,
                    data,
                },
            );
        }
        Ok(Weights { tensors })
    }

    /// Adds or replaces one tensor (for tests and tools that build weights in memory).
    pub fn insert(&mut self, name: &str, tensor: Tensor) {
        self.tensors.insert(name.to_owned(), tensor);
    }

    /// The tensor called `name`.
    pub fn get(&self, name: &str) -> Option<&Tensor> {
        self.tensors.get(name)
    }
}

/// The element type and values of little-endian `raw` data of `dtype`, if the interpreter reads
/// it: f64 becomes f32, f16 and bf16 are held as f32, every integer as i64.
fn decode(dtype: Dtype, raw: &[u8]) -> Option<(ElementType, Data)> {
    fn words<const N: usize, T>(raw: &[u8], read: impl Fn([u8; N]) -> T) -> Vec<T> {
        raw.chunks_exact(N)
            .map(|bytes| read(bytes.try_into().expect("chunks of N bytes")))
            .collect()
    }
    Some(match dtype {
        Dtype::F32 => (ElementType::F32, Data::F32(words(raw, f32::from_le_bytes))),
        Dtype::F64 => (
            ElementType::F32,
            Data::F32(words(raw, |b| f64::from_le_bytes(b) as f32)),
        ),
        Dtype::F16 => (
            ElementType::F16,
            Data::F32(words(raw, |b| f16::from_le_bytes(b).to_f32())),
        ),
        Dtype::BF16 => (
            ElementType::Bf16,
            Data::F32(words(raw, |b| bf16::from_le_bytes(b).to_f32())),
        ),
        Dtype::I64 => (ElementType::I64, Data::I64(words(raw, i64::from_le_bytes))),
        Dtype::I32 => (
            ElementType::I32,
            Data::I64(words(raw, |b| i64::from(i32::from_le_bytes(b)))),
        ),
        Dtype::I8 => (
            ElementType::I8,
            Data::I64(words(raw, |b| i64::from(i8::from_le_bytes(b)))),
        ),
        Dtype::U8 => (
            ElementType::U8,
            Data::I64(words(raw, |b: [u8; 1]| i64::from(b[0]))),
        ),
        Dtype::BOOL => (
            ElementType::Bool,
            Data::Bool(raw.iter().map(|&b| b != 0).collect()),
        ),
        _ => return None,
    })
}
