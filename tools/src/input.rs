//! The model files a user hands the tools, read within [`turbine_files::MODEL`] and recognised by
//! their content, whatever their extension: an ONNX model is a binary protobuf, a graph-dialect
//! model is MLIR text.

use std::path::{Path, PathBuf};

/// What a model file holds, by its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelFormat {
    /// A binary protobuf: an ONNX `ModelProto`.
    Onnx,
    /// Text: MLIR in the graph dialect.
    MlirText,
    /// MLIR's binary form, which the tools refuse ([`turbine_dialects::source`] says why).
    MlirBytecode,
}

impl ModelFormat {
    /// How a message names the format.
    pub fn describe(self) -> &'static str {
        match self {
            ModelFormat::Onnx => "an ONNX model (binary protobuf)",
            ModelFormat::MlirText => "MLIR text",
            ModelFormat::MlirBytecode => "MLIR bytecode",
        }
    }
}

/// How many leading bytes decide the format.
const SNIFFED_BYTES: usize = 4096;

/// The format of a model file's `bytes`. MLIR bytecode starts with its magic number; MLIR text is
/// UTF-8 without control characters other than whitespace; an ONNX protobuf starts with a field
/// tag (usually `0x08`, its IR version) and holds length prefixes and varints, which are control
/// bytes or not UTF-8.
pub fn recognise(bytes: &[u8]) -> ModelFormat {
    if bytes.starts_with(turbine_dialects::source::BYTECODE_MAGIC) {
        return ModelFormat::MlirBytecode;
    }
    let head = &bytes[..bytes.len().min(SNIFFED_BYTES)];
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        // A character cut at the end of the sniffed bytes is still text.
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&head[..error.valid_up_to()]).unwrap_or_default()
        }
        Err(_) => return ModelFormat::Onnx,
    };
    let is_control = |c: char| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\u{c}');
    if text.chars().any(is_control) {
        ModelFormat::Onnx
    } else {
        ModelFormat::MlirText
    }
}

/// The bytes of the model file at `path` and their format.
pub fn read_model(path: &Path) -> Result<(Vec<u8>, ModelFormat), String> {
    let bytes =
        turbine_files::read(path, turbine_files::MODEL).map_err(|error| error.to_string())?;
    let format = recognise(&bytes);
    Ok((bytes, format))
}

/// The bytes of the model file at `path`, which must hold `expected`; otherwise an error naming
/// what it looks like and `hint`, what to do with such a file. An empty file is no model in
/// either format: the reader of `expected` says so.
pub fn read_model_as(path: &Path, expected: ModelFormat, hint: &str) -> Result<Vec<u8>, String> {
    let (bytes, format) = read_model(path)?;
    if format != expected && !bytes.is_empty() {
        return Err(format!(
            "{}: expected {}, but the file looks like {}: {hint}",
            path.display(),
            expected.describe(),
            format.describe()
        ));
    }
    Ok(bytes)
}

/// The folder of the model file at `path`, where an ONNX model's external data files are.
pub fn model_folder(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The weights (safetensors) file at `path`, read within `turbine_files::WEIGHTS`' limit.
pub fn read_weights(path: &Path) -> Result<turbine_interpreter::Weights, String> {
    let bytes =
        turbine_files::read(path, turbine_files::WEIGHTS).map_err(|error| error.to_string())?;
    turbine_interpreter::Weights::parse(&bytes, &path.display().to_string())
        .map_err(|error| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_text_and_protobuf() {
        assert_eq!(
            recognise(b"func.func @main() {\n\treturn\n}\n"),
            ModelFormat::MlirText
        );
        assert_eq!(
            recognise("// é\nmodule {}".as_bytes()),
            ModelFormat::MlirText
        );
        assert_eq!(recognise(b""), ModelFormat::MlirText);
        assert_eq!(recognise(b"\x08\x07\x12\x07pytorch"), ModelFormat::Onnx);
        assert_eq!(recognise(b":\xa3\x01\n\x04Relu"), ModelFormat::Onnx);
        assert_eq!(recognise(b"ML\xEFR\x00"), ModelFormat::MlirBytecode);
        let mut cut = "é".repeat(SNIFFED_BYTES).into_bytes();
        cut.insert(0, b' ');
        assert_eq!(recognise(&cut), ModelFormat::MlirText);
    }
}
