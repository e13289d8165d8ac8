//! Reading the files a user hands the tools, within limits.
//!
//! Every file is read whole into memory, so each kind of file has a size limit, checked before
//! reading from the size the file system reports and again while reading (a pipe or a file that
//! grows reports no useful size). A folder or a device is refused by its type before any byte is
//! read: reading `/dev/zero` as a model would otherwise never end.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// What a file is read as, with the largest size accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// What the file holds, for messages: "a model", "weights", ...
    pub what: &'static str,
    /// The largest size accepted, in bytes.
    pub bytes: u64,
}

const GIB: u64 = 1 << 30;

/// A model: an ONNX file (protobuf's own limit on a message is 2 GiB; larger models keep their
/// weights in external files) or graph-dialect text (whose weights are a side file).
pub const MODEL: Limit = Limit {
    what: "a model",
    bytes: 2 * GIB,
};

/// A weights side file (safetensors), read whole before the weights are placed in the device's
/// DDR.
pub const WEIGHTS: Limit = Limit {
    what: "weights",
    bytes: 32 * GIB,
};

/// An input tensor (`.npy`).
pub const INPUT: Limit = Limit {
    what: "an input",
    bytes: 16 * GIB,
};

/// A small text a user writes: a target description, a rules file.
pub const TEXT: Limit = Limit {
    what: "a description",
    bytes: 16 << 20,
};

/// Why a file was not read: the file and the reason.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", .path.display())]
pub struct FileError {
    pub path: PathBuf,
    pub reason: Reason,
}

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum Reason {
    #[error("is a folder, not a file")]
    Folder,
    #[error("is a device or socket, not a file")]
    Device,
    #[error("larger than the limit for {what} ({limit} bytes)")]
    TooLarge { what: &'static str, limit: u64 },
    #[error("{0}")]
    Io(String),
    #[error("not UTF-8 text")]
    NotText,
}

/// The bytes of the file at `path`, which must be a regular file or a pipe of at most
/// `limit.bytes` bytes.
pub fn read(path: &Path, limit: Limit) -> Result<Vec<u8>, FileError> {
    let error = |reason: Reason| FileError {
        path: path.to_path_buf(),
        reason,
    };
    let io = |cause: std::io::Error| error(Reason::Io(cause.to_string()));
    let file = File::open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    let kind = metadata.file_type();
    if kind.is_dir() {
        return Err(error(Reason::Folder));
    }
    if kind.is_char_device() || kind.is_block_device() || kind.is_socket() {
        return Err(error(Reason::Device));
    }
    let too_large = || {
        error(Reason::TooLarge {
            what: limit.what,
            limit: limit.bytes,
        })
    };
    if kind.is_file() && metadata.len() > limit.bytes {
        return Err(too_large());
    }
    read_from(file, limit).map_err(|cause| match cause {
        ReadError::TooLarge => too_large(),
        ReadError::Io(cause) => io(cause),
    })
}

/// The text read from the UTF-8 file at `path`, as [`read`] reads it.
pub fn read_text(path: &Path, limit: Limit) -> Result<String, FileError> {
    String::from_utf8(read(path, limit)?).map_err(|_| FileError {
        path: path.to_path_buf(),
        reason: Reason::NotText,
    })
}

/// Why [`read_from`] stopped.
#[derive(Debug)]
pub enum ReadError {
    /// More than the limit's bytes came.
    TooLarge,
    Io(std::io::Error),
}

/// Everything `source` gives, at most `limit.bytes`: standard input, a pipe, an open file.
pub fn read_from(source: impl Read, limit: Limit) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    source
        .take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > limit.bytes {
        return Err(ReadError::TooLarge);
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: Limit = Limit {
        what: "a test file",
        bytes: 4,
    };

    #[test]
    fn reads_a_file_within_the_limit() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), b"abcd").unwrap();
        assert_eq!(read(file.path(), TINY).unwrap(), b"abcd");
    }

    #[test]
    fn refuses_a_file_over_the_limit_before_reading_it() {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), b"abcde").unwrap();
        let error = read(file.path(), TINY).unwrap_err().to_string();
        assert!(
            error.ends_with("larger than the limit for a test file (4 bytes)"),
            "{error}"
        );
    }

    #[test]
    fn refuses_folders_and_devices() {
        let folder = tempfile::tempdir().unwrap();
        assert!(matches!(
            read(folder.path(), TINY).unwrap_err().reason,
            Reason::Folder
        ));
        let error = read(Path::new("/dev/zero"), MODEL).unwrap_err();
        assert_eq!(
            error.to_string(),
            "/dev/zero: is a device or socket, not a file"
        );
    }

    #[test]
    fn stops_a_stream_at_the_limit() {
        let endless = std::io::repeat(0);
        assert!(matches!(read_from(endless, TINY), Err(ReadError::TooLarge)));
        assert_eq!(read_from(&b"abc"[..], TINY).unwrap(), b"abc");
    }

    #[test]
    fn names_a_missing_file() {
        let error = read(Path::new("/nonexistent/model.onnx"), MODEL).unwrap_err();
        assert!(
            error.to_string().starts_with("/nonexistent/model.onnx: "),
            "{error}"
        );
    }
}
