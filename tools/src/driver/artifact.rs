//! The weights file of an ahead-of-time compiled model, written beside its object and header:
//! the weights its entries read, each converted to its buffer's element type and shape so that
//! the runtime's loader checks them exactly (`td_model_create`).

use super::execution::weight_bytes;
use melior::ir::{attribute::StringAttribute, operation::OperationLike, Module};
use std::path::{Path, PathBuf};
use turbine_codegen::{Entry, ObjectCode, Role};
use turbine_interpreter::{ElementType, Weights};
use turbine_runtime::weights::{serialize, NamedTensor};

/// The file the graph-dialect `module` read from `model` names as its weights (`graph.weights`,
/// relative to the model's folder), if it names one.
pub fn side_file(module: &Module, model: &Path) -> Option<PathBuf> {
    let recorded = module.as_operation().attribute("graph.weights").ok()?;
    let recorded = StringAttribute::try_from(recorded).ok()?.value().to_owned();
    Some(crate::input::model_folder(model).join(recorded))
}

/// The weights file of `code`'s entries (None when they read no weight): every weight they
/// name, taken from `weights` (which `origin` names in errors) and stored as its buffer holds it.
pub fn weights_file(
    code: &ObjectCode,
    weights: &Weights,
    origin: &str,
) -> Result<Option<Vec<u8>>, String> {
    let mut tensors: Vec<NamedTensor> = Vec::new();
    for buffer in code.entries.iter().flat_map(|entry: &Entry| &entry.buffers) {
        let Role::Weight(name) = &buffer.role else {
            continue;
        };
        let dtype = turbine_codegen::dtype(buffer.element);
        if let Some(known) = tensors.iter().find(|tensor| tensor.name == *name) {
            if known.dtype != dtype || known.shape != buffer.shape {
                return Err(format!(
                    "weight '{name}' is read as {} {:?} and as {} {:?}",
                    known.dtype, known.shape, dtype, buffer.shape
                ));
            }
            continue;
        }
        let data = weight_bytes(
            weights,
            name,
            interpreter_element(dtype),
            &buffer.shape,
            || format!("the model reads weight '{name}', which is not in {origin}"),
        )?;
        tensors.push(NamedTensor {
            name: name.clone(),
            dtype,
            shape: buffer.shape.clone(),
            data,
        });
    }
    if tensors.is_empty() {
        return Ok(None);
    }
    serialize(&tensors).map(Some)
}

/// The interpreter's element type of runtime buffers of `dtype`.
fn interpreter_element(dtype: turbine_runtime::ElementType) -> ElementType {
    use turbine_runtime::ElementType as Buffer;
    match dtype {
        Buffer::F32 => ElementType::F32,
        Buffer::I64 => ElementType::I64,
        Buffer::I32 => ElementType::I32,
        Buffer::I8 => ElementType::I8,
        Buffer::U8 => ElementType::U8,
        Buffer::Bool => ElementType::Bool,
        Buffer::F16 => ElementType::F16,
        Buffer::Bf16 => ElementType::Bf16,
    }
}
