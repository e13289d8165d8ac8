//! Reading and writing NumPy `.npy` files (format versions 1.0, 2.0 and 3.0): how inputs reach
//! the interpreter and how outputs leave it. Files are written in C order, little-endian.
//!
//! NumPy has no bfloat16 dtype, so bf16 tensors travel as f32 files: a bf16 result is written as
//! `<f4` (each value exactly a bf16 one), and an f32 file given for a bf16 argument is rounded
//! to bf16 on reading ([`for_argument`]).

mod header;

use crate::tensor::{element_count, strides, Data, ElementType, Tensor};
use half::f16;

/// Parses a `.npy` file's bytes: any file NumPy loads whose dtype is f4, f8, f2, i8, i4, i1, u1
/// or b1 (either byte order; Fortran order is rearranged into C order). f64 inputs become f32,
/// f16 stays f16 (held as f32), i32, i8 and u8 stay i32, i8 and ui8 (held as i64), bool is i1.
pub fn parse(bytes: &[u8]) -> Result<Tensor, String> {
    let header = header::read(bytes)?;
    let (width, element_type, little_endian) = dtype(&header.descr)?;
    let shape = header.shape;
    let count = element_count(&shape).ok_or_else(|| format!("shape {shape:?} is too large"))?;
    let payload = &bytes[header.data_offset..];
    if payload.len() != count * width {
        return Err(format!(
            "{} bytes of data, but shape {shape:?} of '{}' needs {}",
            payload.len(),
            header.descr,
            count * width
        ));
    }
    let mut data = decode(element_type, width, little_endian, payload);
    if header.fortran_order {
        data = c_order(&data, &shape);
    }
    Ok(Tensor {
        shape,
        element_type,
        data,
    })
}

/// The element width, type and byte order of a dtype string.
fn dtype(descr: &str) -> Result<(usize, ElementType, bool), String> {
    let (order, code) = descr.split_at(descr.len().min(1));
    let little_endian = match order {
        "<" | "|" | "=" => true,
        ">" => false,
        _ => return Err(format!("unsupported .npy dtype '{descr}'")),
    };
    let (width, element_type) = match code {
        "f4" => (4, ElementType::F32),
        "f8" => (8, ElementType::F32),
        "f2" => (2, ElementType::F16),
        "i8" => (8, ElementType::I64),
        "i4" => (4, ElementType::I32),
        "i1" => (1, ElementType::I8),
        "u1" => (1, ElementType::U8),
        "b1" => (1, ElementType::Bool),
        _ => {
            return Err(format!(
                "unsupported .npy dtype '{descr}' (f4, f8, f2, i8, i4, i1, u1 and b1 are; \
                 bfloat16 travels as f4)"
            ))
        }
    };
    Ok((width, element_type, little_endian))
}

/// The elements of a Fortran-ordered (column-major) array of `shape`, in C (row-major) order.
fn c_order(data: &Data, shape: &[usize]) -> Data {
    let column_major = {
        let mut strides = strides(&shape.iter().rev().copied().collect::<Vec<_>>());
        strides.reverse();
        strides
    };
    let row_major = strides(shape);
    let count: usize = shape.iter().product();
    let source = |index: usize| {
        row_major
            .iter()
            .zip(&column_major)
            .zip(shape)
            .map(|((&row, &column), &dim)| (index / row % dim) * column)
            .sum::<usize>()
    };
    match data {
        Data::F32(values) => Data::F32((0..count).map(|i| values[source(i)]).collect()),
        Data::I64(values) => Data::I64((0..count).map(|i| values[source(i)]).collect()),
        Data::Bool(values) => Data::Bool((0..count).map(|i| values[source(i)]).collect()),
    }
}

/// The elements of `payload` (its length checked), each `width` bytes of `element_type` in the
/// given byte order.
fn decode(element_type: ElementType, width: usize, little_endian: bool, payload: &[u8]) -> Data {
    let word = |bytes: &[u8]| {
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(bytes);
        if !little_endian {
            word[..width].reverse();
        }
        word
    };
    let words = payload.chunks_exact(width).map(word);
    match (element_type, width) {
        (ElementType::F32, 4) => Data::F32(
            words
                .map(|w| f32::from_le_bytes(w[..4].try_into().unwrap()))
                .collect(),
        ),
        (ElementType::F32, _) => Data::F32(words.map(|w| f64::from_le_bytes(w) as f32).collect()),
        (ElementType::F16, _) => Data::F32(
            words
                .map(|w| f16::from_le_bytes([w[0], w[1]]).to_f32())
                .collect(),
        ),
        (ElementType::I8, _) => Data::I64(payload.iter().map(|&b| i64::from(b as i8)).collect()),
        (ElementType::U8, _) => Data::I64(payload.iter().map(|&b| i64::from(b)).collect()),
        (ElementType::I32, _) => Data::I64(
            words
                .map(|w| i32::from_le_bytes(w[..4].try_into().unwrap()) as i64)
                .collect(),
        ),
        (ElementType::I64, _) => Data::I64(words.map(i64::from_le_bytes).collect()),
        (ElementType::Bool, _) => Data::Bool(payload.iter().map(|&b| b != 0).collect()),
        (ElementType::Bf16, _) => unreachable!("no .npy dtype reads as bf16"),
    }
}

/// `tensor`, read from a `.npy` file, as an argument of `element`s takes it: an f32 tensor for a
/// bf16 argument rounded to bf16 (to nearest, ties to even), since NumPy has no bfloat16 dtype,
/// and for an f16 argument rounded to f16, as a host converts its data for a model of reduced
/// precision (`--precision`); any other tensor as it is (a mismatch is the caller's to report).
pub fn for_argument(tensor: Tensor, element: ElementType) -> Tensor {
    let narrows = matches!(element, ElementType::Bf16 | ElementType::F16);
    if narrows && tensor.element_type == ElementType::F32 {
        tensor.conform(element)
    } else {
        tensor
    }
}

/// Serialises a tensor as a version-1 `.npy` file, or version 2 when the header outgrows
/// version 1's 16-bit length (a shape of thousands of dimensions, which [`parse`] accepts). A
/// bf16 tensor is written as `<f4`.
pub fn serialize(tensor: &Tensor) -> Vec<u8> {
    let descr = match tensor.element_type {
        ElementType::F32 | ElementType::Bf16 => "<f4",
        ElementType::F16 => "<f2",
        ElementType::I64 => "<i8",
        ElementType::I32 => "<i4",
        ElementType::I8 => "|i1",
        ElementType::U8 => "|u1",
        ElementType::Bool => "|b1",
    };
    let shape = match tensor.shape.len() {
        0 => "()".to_owned(),
        1 => format!("({},)", tensor.shape[0]),
        _ => format!(
            "({})",
            tensor
                .shape
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    // The header, with magic, version and length (2 bytes in version 1, 4 in version 2), is
    // padded with spaces to a multiple of 64 bytes.
    let version_1 = 10 + header.len() + 64 <= usize::from(u16::MAX);
    let preamble = if version_1 { 10 } else { 12 };
    while (preamble + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut bytes = b"\x93NUMPY".to_vec();
    if version_1 {
        bytes.extend([1, 0]);
        bytes.extend((header.len() as u16).to_le_bytes());
    } else {
        bytes.extend([2, 0]);
        bytes.extend((header.len() as u32).to_le_bytes());
    }
    bytes.extend(header.as_bytes());
    match (&tensor.data, tensor.element_type) {
        (Data::F32(values), ElementType::F16) => values
            .iter()
            .for_each(|&v| bytes.extend(f16::from_f32(v).to_le_bytes())),
        (Data::F32(values), _) => values.iter().for_each(|v| bytes.extend(v.to_le_bytes())),
        (Data::I64(values), ElementType::I32) => values
            .iter()
            .for_each(|&v| bytes.extend((v as i32).to_le_bytes())),
        (Data::I64(values), ElementType::I8 | ElementType::U8) => {
            bytes.extend(values.iter().map(|&v| v as u8))
        }
        (Data::I64(values), _) => values.iter().for_each(|v| bytes.extend(v.to_le_bytes())),
        (Data::Bool(values), _) => bytes.extend(values.iter().map(|&v| v as u8)),
    }
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(descr: &str, fortran_order: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let header =
            format!("{{'descr': '{descr}', 'fortran_order': {fortran_order}, 'shape': {shape}}}\n");
        let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
        bytes.extend((header.len() as u16).to_le_bytes());
        bytes.extend(header.as_bytes());
        bytes.extend(data);
        bytes
    }

    #[test]
    fn rearranges_fortran_order_into_c_order() {
        // a[i][j] = 3i + j, stored column by column.
        let data: Vec<u8> = [0.0f32, 3.0, 1.0, 4.0, 2.0, 5.0]
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect();
        let tensor = parse(&file("<f4", "True", "(2, 3)", &data)).unwrap();
        assert_eq!(tensor.shape, [2, 3]);
        assert_eq!(tensor.data, Data::F32(vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]));
        // b[i][j][k] = 6i + 3j + k, i fastest.
        let data: Vec<u8> = (0..12)
            .map(|offset| {
                let (i, j, k) = (offset % 2, offset / 2 % 2, offset / 4);
                6 * i + 3 * j + k
            })
            .flat_map(|value: i64| value.to_le_bytes())
            .collect();
        let tensor = parse(&file("<i8", "True", "(2, 2, 3)", &data)).unwrap();
        assert_eq!(tensor.data, Data::I64((0..12).collect()));
    }

    #[test]
    fn reads_big_endian_data() {
        let data: Vec<u8> = [1.5f64, -2.0]
            .iter()
            .flat_map(|v| v.to_be_bytes())
            .collect();
        let tensor = parse(&file(">f8", "False", "(2,)", &data)).unwrap();
        assert_eq!(tensor.data, Data::F32(vec![1.5, -2.0]));
        let data: Vec<u8> = [7i32, -1].iter().flat_map(|v| v.to_be_bytes()).collect();
        let tensor = parse(&file(">i4", "False", "(2,)", &data)).unwrap();
        assert_eq!(tensor.data, Data::I64(vec![7, -1]));
    }

    #[test]
    fn round_trips_what_it_writes() {
        let tensor = Tensor {
            shape: vec![2, 2],
            element_type: ElementType::I32,
            data: Data::I64(vec![1, -2, 3, -4]),
        };
        assert_eq!(parse(&serialize(&tensor)).unwrap(), tensor);
    }
}
