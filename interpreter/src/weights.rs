//! The weights side file (safetensors) that `graph.weight` reads by name.

use crate::{
    error::InterpretError,
    tensor::{element_count, Data, ElementType, Tensor},
};
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
    /// as f32, i64, i32 and bool.
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
            let raw = view.data();
            let (element_type, data) = match view.dtype() {
                Dtype::F32 => (
                    ElementType::F32,
                    Data::F32(
                        raw.chunks_exact(4)
                            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                            .collect(),
                    ),
                ),
                Dtype::F64 => (
                    ElementType::F32,
                    Data::F32(
                        raw.chunks_exact(8)
                            .map(|b| f64::from_le_bytes(b.try_into().unwrap()) as f32)
                            .collect(),
                    ),
                ),
                Dtype::I64 => (
                    ElementType::I64,
                    Data::I64(
                        raw.chunks_exact(8)
                            .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
                            .collect(),
                    ),
                ),
                Dtype::I32 => (
                    ElementType::I32,
                    Data::I64(
                        raw.chunks_exact(4)
                            .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as i64)
                            .collect(),
                    ),
                ),
                Dtype::BOOL => (
                    ElementType::Bool,
                    Data::Bool(raw.iter().map(|&b| b != 0).collect()),
                ),
                other => {
                    return Err(file_error(format!(
                        "tensor '{name}' has unsupported dtype {other:?}"
                    )))
                }
            };
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
