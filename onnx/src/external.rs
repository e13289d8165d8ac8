//! ONNX tensors whose data is stored in other files (`data_location = EXTERNAL`): every model over
//! protobuf's 2 GiB, and what several exporters write by default. The data is read into the
//! tensor's `raw_data` before the import, as onnx's `load_external_data_for_model` does, so that
//! the rest of the importer sees only tensors held in the model.
//!
//! The files are read safely: a `location` must name a file inside the model's folder (an absolute
//! path, a `..` component or a symbolic link leading out is refused), the offset and length must
//! lie within the file, and all the external data of a model together stays within
//! [`turbine_files::WEIGHTS`].

use crate::error::{ImportError, TensorProblem};
use crate::proto::{ModelProto, TensorProto};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Component, Path, PathBuf};

/// `TensorProto.DataLocation.EXTERNAL`.
const EXTERNAL: i32 = 1;

/// Reads the external data of every tensor of `model` (initializers and attribute tensors) from
/// the files `folder` holds (the model file's folder); `None` (a model that is not a file) refuses
/// external data.
pub fn load(model: &mut ModelProto, folder: Option<&Path>) -> Result<(), ImportError> {
    let Some(graph) = model.graph.as_mut() else {
        return Ok(());
    };
    let mut reader = Reader { folder, read: 0 };
    for tensor in &mut graph.initializer {
        reader.load(tensor)?;
    }
    for node in &mut graph.node {
        for attribute in &mut node.attribute {
            if let Some(tensor) = attribute.t.as_mut() {
                reader.load(tensor)?;
            }
        }
    }
    Ok(())
}

/// What the reading of one model's external data has read so far.
struct Reader<'a> {
    folder: Option<&'a Path>,
    /// Bytes read, against [`turbine_files::WEIGHTS`].
    read: u64,
}

/// Where a tensor's data is: its file, the offset, and the length if given.
struct Place {
    location: String,
    offset: u64,
    length: Option<u64>,
}

impl Reader<'_> {
    /// Reads `tensor`'s data into its `raw_data` if it is external.
    fn load(&mut self, tensor: &mut TensorProto) -> Result<(), ImportError> {
        if tensor.data_location != EXTERNAL && tensor.external_data.is_empty() {
            return Ok(());
        }
        let problem = |reason: String| ImportError::Tensor {
            tensor: tensor.name.clone(),
            problem: TensorProblem::ExternalData(reason),
        };
        let folder = self.folder.ok_or_else(|| {
            problem("it is read only when the model is imported from a file, beside it".into())
        })?;
        let place = place(tensor).map_err(problem)?;
        let path = inside(folder, &place.location).map_err(problem)?;
        let bytes = self.read_range(&path, &place).map_err(problem)?;
        tensor.raw_data = bytes;
        tensor.external_data.clear();
        tensor.data_location = 0;
        Ok(())
    }

    /// The bytes of `path` at `place`, which must lie within the file and within what is left of
    /// the limit.
    fn read_range(&mut self, path: &Path, place: &Place) -> Result<Vec<u8>, String> {
        let shown = || format!("file '{}'", place.location);
        let io = |error: std::io::Error| format!("{}: {error}", shown());
        let mut file = File::open(path).map_err(io)?;
        let metadata = file.metadata().map_err(io)?;
        if !metadata.is_file() {
            return Err(format!("{} is not a regular file", shown()));
        }
        let size = metadata.len();
        let length = place
            .length
            .unwrap_or_else(|| size.saturating_sub(place.offset));
        let end = place.offset.checked_add(length);
        if place.offset > size || end.is_none_or(|end| end > size) {
            return Err(format!(
                "offset {} and length {length} lie past the end of {} ({size} bytes)",
                place.offset,
                shown()
            ));
        }
        let limit = turbine_files::WEIGHTS;
        if self.read.saturating_add(length) > limit.bytes {
            return Err(format!(
                "the model's external data exceeds the limit for {} ({} bytes)",
                limit.what, limit.bytes
            ));
        }
        self.read += length;
        file.seek(SeekFrom::Start(place.offset)).map_err(io)?;
        let mut bytes = Vec::new();
        file.take(length).read_to_end(&mut bytes).map_err(io)?;
        if bytes.len() as u64 != length {
            return Err(format!("{} ended while it was read", shown()));
        }
        Ok(bytes)
    }
}

/// The place `tensor`'s `external_data` entries give.
fn place(tensor: &TensorProto) -> Result<Place, String> {
    let mut location = None;
    let (mut offset, mut length) = (0, None);
    for entry in &tensor.external_data {
        let number = || {
            entry.value.parse::<u64>().map_err(|_| {
                format!(
                    "entry '{}' is '{}', not a byte count",
                    entry.key, entry.value
                )
            })
        };
        match entry.key.as_str() {
            "location" => location = Some(entry.value.clone()),
            "offset" => offset = number()?,
            "length" => length = Some(number()?),
            // A SHA-1 of the data, which onnx itself does not check either.
            "checksum" => {}
            key => return Err(format!("entry '{key}' is not one ONNX defines")),
        }
    }
    let location = location.ok_or("no 'location' entry names its file")?;
    Ok(Place {
        location,
        offset,
        length,
    })
}

/// The file `location` names inside `folder`; an error unless it is one.
fn inside(folder: &Path, location: &str) -> Result<PathBuf, String> {
    let relative = Path::new(location);
    let plain = relative
        .components()
        .all(|component| matches!(component, Component::Normal(_) | Component::CurDir));
    if location.is_empty() || !plain {
        return Err(format!(
            "location '{location}' is not a path inside the model's folder \
             (absolute paths and '..' are refused)"
        ));
    }
    let path = folder.join(relative);
    let resolved = path
        .canonicalize()
        .map_err(|error| format!("file '{location}': {error}"))?;
    let folder = folder
        .canonicalize()
        .map_err(|error| format!("the model's folder {}: {error}", folder.display()))?;
    if !resolved.starts_with(&folder) {
        return Err(format!("file '{location}' leads out of the model's folder"));
    }
    Ok(resolved)
}
