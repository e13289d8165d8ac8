//! The weights side file: the tensors that `graph.weight` names, in safetensors format.
//!
//! safetensors is a JSON header (name → dtype, shape, byte range) followed by the raw
//! little-endian bytes, readable without running code (unlike pickles) and memory-mappable, so a
//! 100 MB ResNet-50 costs the IR a file name instead of a 300 MB text attribute.

use std::path::Path;
use std::rc::Rc;

use safetensors::tensor::{Dtype, TensorView};

use crate::error::ImportError;
use crate::tensor::Tensor;
use crate::types::ElementType;

/// The tensors of a model's weights file, by name, in order of first use.
#[derive(Debug, Default)]
pub struct Weights {
    tensors: Vec<(String, Rc<Tensor>)>,
}

impl Weights {
    /// The weights `tensors`.
    pub fn new(tensors: Vec<(String, Rc<Tensor>)>) -> Self {
        Self { tensors }
    }

    /// Whether there are none (the module then has no `graph.weights` and no file is needed).
    pub fn is_empty(&self) -> bool {
        self.tensors.is_empty()
    }

    /// The number of tensors.
    pub fn len(&self) -> usize {
        self.tensors.len()
    }

    /// The safetensors file's bytes.
    pub fn serialize(&self) -> Result<Vec<u8>, safetensors::SafeTensorError> {
        let bytes: Vec<(&str, Vec<u8>, &Tensor)> = self
            .tensors
            .iter()
            .map(|(name, tensor)| (name.as_str(), tensor.data.to_le_bytes(), tensor.as_ref()))
            .collect();
        let views = bytes
            .iter()
            .map(|(name, data, tensor)| {
                TensorView::new(dtype(tensor.data.element()), tensor.shape.clone(), data)
                    .map(|view| (*name, view))
            })
            .collect::<Result<Vec<_>, _>>()?;
        safetensors::serialize(views, &None)
    }

    /// Writes the safetensors file at `path`.
    pub fn write(&self, path: &Path) -> Result<(), ImportError> {
        let failed = |message: String| ImportError::WriteWeights {
            path: path.to_owned(),
            message,
        };
        let bytes = self
            .serialize()
            .map_err(|error| failed(error.to_string()))?;
        std::fs::write(path, bytes).map_err(|error| failed(error.to_string()))
    }
}

fn dtype(element: ElementType) -> Dtype {
    match element {
        ElementType::F32 => Dtype::F32,
        ElementType::I32 => Dtype::I32,
        ElementType::I64 => Dtype::I64,
        ElementType::Bool => Dtype::BOOL,
        ElementType::F16 => Dtype::F16,
        ElementType::Bf16 => Dtype::BF16,
        ElementType::I8 => Dtype::I8,
        ElementType::U8 => Dtype::U8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tensor::Data;

    #[test]
    fn round_trips_through_safetensors() {
        let weight = Tensor::new(vec![2, 2], Data::F32(vec![1.0, -2.0, 3.5, 0.25]));
        let weights = Weights::new(vec![("conv.weight".into(), Rc::new(weight))]);
        let bytes = weights.serialize().unwrap();
        let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let view = file.tensor("conv.weight").unwrap();
        assert_eq!(view.dtype(), Dtype::F32);
        assert_eq!(view.shape(), &[2, 2]);
        let values: Vec<f32> = view
            .data()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(values, vec![1.0, -2.0, 3.5, 0.25]);
    }
}
