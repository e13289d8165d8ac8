//! Tensor contents as the runtime's buffers hold them: the `TD_DTYPE_*` code and element size
//! of each element type, and values to and from native-order bytes.

use turbine_interpreter::{Data, ElementType};

/// The runtime's `TD_DTYPE_*` code of buffers of `element`s (runtime/include/turbine_dsa.h).
pub(super) fn dtype_code(element: ElementType) -> u32 {
    match element {
        ElementType::F32 => 0,
        ElementType::I64 => 1,
        ElementType::I32 => 2,
        ElementType::Bool => 5,
    }
}

/// Bytes of one element in a runtime buffer (a boolean takes one).
pub(super) fn element_bytes(element: ElementType) -> usize {
    match element {
        ElementType::F32 | ElementType::I32 => 4,
        ElementType::I64 => 8,
        ElementType::Bool => 1,
    }
}

/// The native-order bytes of `data` stored as `element`s; an error when the kinds differ
/// (`what` names the tensor).
pub(super) fn encode(data: &Data, element: ElementType, what: &str) -> Result<Vec<u8>, String> {
    Ok(match (data, element) {
        (Data::F32(values), ElementType::F32) => {
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        (Data::I64(values), ElementType::I64) => {
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        (Data::I64(values), ElementType::I32) => values
            .iter()
            .flat_map(|&v| (v as i32).to_ne_bytes())
            .collect(),
        (Data::Bool(values), ElementType::Bool) => values.iter().map(|&v| v as u8).collect(),
        _ => {
            return Err(format!(
                "{what} holds other elements than the model's {element:?}"
            ))
        }
    })
}

/// The values of native-order `bytes` of `element`s (integers of every width as i64, as the
/// interpreter holds them).
pub(super) fn decode(bytes: &[u8], element: ElementType) -> Data {
    match element {
        ElementType::F32 => Data::F32(
            bytes
                .chunks_exact(4)
                .map(|b| f32::from_ne_bytes(b.try_into().expect("4 bytes")))
                .collect(),
        ),
        ElementType::I64 => Data::I64(
            bytes
                .chunks_exact(8)
                .map(|b| i64::from_ne_bytes(b.try_into().expect("8 bytes")))
                .collect(),
        ),
        ElementType::I32 => Data::I64(
            bytes
                .chunks_exact(4)
                .map(|b| i32::from_ne_bytes(b.try_into().expect("4 bytes")) as i64)
                .collect(),
        ),
        ElementType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
    }
}
