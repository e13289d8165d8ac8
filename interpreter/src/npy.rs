//! Reading and writing NumPy `.npy` files (format versions 1–3, C order, little-endian): how
//! inputs reach the interpreter and how outputs leave it.

use crate::tensor::{element_count, Data, ElementType, Tensor};

/// Parses a `.npy` file's bytes. f64 inputs become f32, i32 stays i32 (held as i64), bool is i1.
pub fn parse(bytes: &[u8]) -> Result<Tensor, String> {
    let (header, header_end) = header(bytes)?;
    let descr = header_field(header, "descr")?;
    let descr = descr
        .strip_prefix('\'')
        .and_then(|d| d.split('\'').next())
        .ok_or("malformed descr in .npy header")?;
    if header_field(header, "fortran_order")?.starts_with("True") {
        return Err("Fortran-ordered .npy arrays are not supported; save with C order".into());
    }
    let shape = shape(header)?;
    let count = element_count(&shape).ok_or_else(|| format!("shape {shape:?} is too large"))?;
    let payload = &bytes[header_end..];
    let (width, element_type) = match descr {
        "<f4" => (4, ElementType::F32),
        "<f8" => (8, ElementType::F32),
        "<i8" => (8, ElementType::I64),
        "<i4" => (4, ElementType::I32),
        "|b1" => (1, ElementType::Bool),
        other => {
            return Err(format!(
                "unsupported .npy dtype '{other}' (f4, f8, i8, i4 and b1 are)"
            ))
        }
    };
    if payload.len() != count * width {
        return Err(format!(
            "{} bytes of data, but shape {shape:?} of '{descr}' needs {}",
            payload.len(),
            count * width
        ));
    }
    Ok(Tensor {
        shape,
        element_type,
        data: decode(descr, payload),
    })
}

/// The header text after the magic, version and length, and the offset where the data
/// starts.
fn header(bytes: &[u8]) -> Result<(&str, usize), String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file (missing the \\x93NUMPY magic)".into());
    }
    let (header_length, header_start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10usize),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()) as usize,
            12usize,
        ),
        version => return Err(format!("unsupported .npy format version {version}")),
    };
    let header_end = header_start
        .checked_add(header_length)
        .filter(|&end| end <= bytes.len())
        .ok_or("truncated .npy header")?;
    let header = std::str::from_utf8(&bytes[header_start..header_end])
        .map_err(|_| "the .npy header is not text")?;
    Ok((header, header_end))
}

/// The text after `'key':` in the header's dictionary, up to the header's end.
fn header_field<'h>(header: &'h str, key: &str) -> Result<&'h str, String> {
    let start = header
        .find(&format!("'{key}'"))
        .ok_or(format!("the .npy header lacks '{key}'"))?;
    let rest = header[start + key.len() + 2..]
        .trim_start()
        .strip_prefix(':')
        .ok_or("malformed .npy header")?;
    Ok(rest.trim_start())
}

/// The header's `shape` tuple.
fn shape(header: &str) -> Result<Vec<usize>, String> {
    let shape_text = header_field(header, "shape")?;
    let shape_text = shape_text
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or("malformed shape in .npy header")?;
    shape_text
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| format!("bad dimension '{s}' in .npy shape"))
        })
        .collect()
}

/// The elements of `payload`, little-endian of type `descr` (one [`parse`] accepts, its length
/// checked).
fn decode(descr: &str, payload: &[u8]) -> Data {
    match descr {
        "<f4" => Data::F32(
            payload
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        ),
        "<f8" => Data::F32(
            payload
                .chunks_exact(8)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap()) as f32)
                .collect(),
        ),
        "<i8" => Data::I64(
            payload
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap()))
                .collect(),
        ),
        "<i4" => Data::I64(
            payload
                .chunks_exact(4)
                .map(|b| i32::from_le_bytes(b.try_into().unwrap()) as i64)
                .collect(),
        ),
        _ => Data::Bool(payload.iter().map(|&b| b != 0).collect()),
    }
}

/// Serialises a tensor as a version-1 `.npy` file, or version 2 when the header outgrows
/// version 1's 16-bit length (a shape of thousands of dimensions, which [`parse`] accepts).
pub fn serialize(tensor: &Tensor) -> Vec<u8> {
    let descr = match tensor.element_type {
        ElementType::F32 => "<f4",
        ElementType::I64 => "<i8",
        ElementType::I32 => "<i4",
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
        (Data::F32(values), _) => values.iter().for_each(|v| bytes.extend(v.to_le_bytes())),
        (Data::I64(values), ElementType::I32) => values
            .iter()
            .for_each(|&v| bytes.extend((v as i32).to_le_bytes())),
        (Data::I64(values), _) => values.iter().for_each(|v| bytes.extend(v.to_le_bytes())),
        (Data::Bool(values), _) => bytes.extend(values.iter().map(|&v| v as u8)),
    }
    bytes
}
