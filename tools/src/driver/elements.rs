//! Tensor contents as the runtime's buffers hold them: the `TD_DTYPE_*` code and element size
//! of each element type, and values to and from native-order bytes (f16 and bf16 as their 16-bit
//! patterns, i8 and ui8 as one byte).

use half::{bf16, f16};
use turbine_interpreter::{Data, ElementType};

/// The runtime's `TD_DTYPE_*` code of buffers of `element`s (runtime/include/turbine_dsa.h).
pub(super) fn dtype_code(element: ElementType) -> u32 {
    match element {
        ElementType::F32 => 0,
        ElementType::I64 => 1,
        ElementType::I32 => 2,
        ElementType::I8 => 3,
        ElementType::U8 => 4,
        ElementType::Bool => 5,
        ElementType::F16 => 6,
        ElementType::Bf16 => 7,
    }
}

/// Bytes of one element in a runtime buffer (a boolean takes one).
pub(super) fn element_bytes(element: ElementType) -> usize {
    match element {
        ElementType::F32 | ElementType::I32 => 4,
        ElementType::I64 => 8,
        ElementType::F16 | ElementType::Bf16 => 2,
        ElementType::I8 | ElementType::U8 | ElementType::Bool => 1,
    }
}

/// The native-order bytes of `data` stored as `element`s; an error when the kinds differ
/// (`what` names the tensor).
pub(super) fn encode(data: &Data, element: ElementType, what: &str) -> Result<Vec<u8>, String> {
    Ok(match (data, element) {
        (Data::F32(values), ElementType::F32) => {
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        (Data::F32(values), ElementType::F16) => values
            .iter()
            .flat_map(|&v| f16::from_f32(v).to_bits().to_ne_bytes())
            .collect(),
        (Data::F32(values), ElementType::Bf16) => values
            .iter()
            .flat_map(|&v| bf16::from_f32(v).to_bits().to_ne_bytes())
            .collect(),
        (Data::I64(values), ElementType::I64) => {
            values.iter().flat_map(|v| v.to_ne_bytes()).collect()
        }
        (Data::I64(values), ElementType::I32) => values
            .iter()
            .flat_map(|&v| (v as i32).to_ne_bytes())
            .collect(),
        (Data::I64(values), ElementType::I8 | ElementType::U8) => {
            values.iter().map(|&v| v as u8).collect()
        }
        (Data::Bool(values), ElementType::Bool) => values.iter().map(|&v| v as u8).collect(),
        _ => {
            return Err(format!(
                "{what} holds other elements than the model's {element:?}"
            ))
        }
    })
}

/// The values of native-order `bytes` of `element`s (floats of every width as f32, integers of
/// every width as i64, as the interpreter holds them).
pub(super) fn decode(bytes: &[u8], element: ElementType) -> Data {
    fn words<const N: usize, T>(bytes: &[u8], read: impl Fn([u8; N]) -> T) -> Vec<T> {
        bytes
            .chunks_exact(N)
            .map(|b| read(b.try_into().expect("chunks of N bytes")))
            .collect()
    }
    match element {
        ElementType::F32 => Data::F32(words(bytes, f32::from_ne_bytes)),
        ElementType::F16 => Data::F32(words(bytes, |b| {
            f16::from_bits(u16::from_ne_bytes(b)).to_f32()
        })),
        ElementType::Bf16 => Data::F32(words(bytes, |b| {
            bf16::from_bits(u16::from_ne_bytes(b)).to_f32()
        })),
        ElementType::I64 => Data::I64(words(bytes, i64::from_ne_bytes)),
        ElementType::I32 => Data::I64(words(bytes, |b| i64::from(i32::from_ne_bytes(b)))),
        ElementType::I8 => Data::I64(bytes.iter().map(|&b| i64::from(b as i8)).collect()),
        ElementType::U8 => Data::I64(bytes.iter().map(|&b| i64::from(b)).collect()),
        ElementType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
    }
}
