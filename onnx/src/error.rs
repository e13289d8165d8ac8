//! Everything that can make an import fail, each naming the node, tensor or input at fault.

use std::path::PathBuf;

/// Why an ONNX model could not be imported. Every variant's message names what is at fault (the
/// node by its name and operator, the tensor or input by its name) so that the user can find it
/// in the model.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not an ONNX protobuf: a truncated download, another format, corruption.
    #[error("the file is not a valid ONNX model (malformed or truncated protobuf): {0}")]
    Decode(#[from] prost::DecodeError),

    /// The protobuf decodes but is not a model the importer can read (no graph, no opset, a
    /// tensor used before any node defines it, ...).
    #[error("invalid model: {0}")]
    Model(String),

    /// The model's standard operator set is outside the supported range.
    #[error("the model uses ai.onnx opset {version}; Turbine imports opsets 13 to 22")]
    UnsupportedOpset {
        /// The opset version the model imports.
        version: i64,
    },

    /// The model uses other operator sets only (classic ML, training): not a DNN Turbine compiles.
    #[error(
        "the model imports only the operator sets {domains}, which are not supported: \
         Turbine imports ai.onnx (opsets 13 to 22)"
    )]
    UnsupportedDomains {
        /// The domains the model imports, comma-separated.
        domains: String,
    },

    /// A node's operator has no lowering.
    #[error("node '{node}': operator {op_type} is not supported")]
    UnsupportedOp {
        /// The node's name.
        node: String,
        /// The operator, with its domain when it is not the standard one.
        op_type: String,
    },

    /// A supported operator used in a way the graph dialect cannot express (a 1-D convolution,
    /// a negative slice step, ...).
    #[error("node '{node}' ({op_type}): {message}")]
    UnsupportedUse {
        /// The node's name.
        node: String,
        /// The operator.
        op_type: String,
        /// What is unsupported.
        message: String,
    },

    /// A node that breaks the ONNX specification: a missing input, a bad attribute, shapes that
    /// do not agree.
    #[error("node '{node}' ({op_type}): {message}")]
    InvalidNode {
        /// The node's name.
        node: String,
        /// The operator.
        op_type: String,
        /// What is wrong.
        message: String,
    },

    /// A constant tensor (initializer or attribute) that cannot be read.
    #[error("tensor '{tensor}': {problem}")]
    Tensor {
        /// The tensor's name.
        tensor: String,
        /// What is wrong with it.
        problem: TensorProblem,
    },

    /// A graph input dimension that is symbolic or unknown and that the user did not fix.
    #[error(
        "input '{input}' has a dynamic dimension {index}{}: give its static shape with \
         --input-shape {input}=<d0>x<d1>x...",
        symbol.as_ref().map(|symbol| format!(" ('{symbol}')")).unwrap_or_default()
    )]
    DynamicDimension {
        /// The graph input.
        input: String,
        /// The dimension's position.
        index: usize,
        /// Its symbolic name, when it has one.
        symbol: Option<String>,
    },

    /// A graph input whose type cannot be made a static tensor type, or a bad `--input-shape`.
    #[error("input '{input}': {message}")]
    Input {
        /// The graph input.
        input: String,
        /// What is wrong.
        message: String,
    },

    /// Writing the weights file failed.
    #[error("cannot write the weights file {}: {message}", path.display())]
    WriteWeights {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        message: String,
    },
}

/// What is wrong with a constant tensor.
#[derive(Debug, thiserror::Error)]
pub enum TensorProblem {
    /// The dimensions are negative, or multiply to more than [`crate::types::MAX_ELEMENTS`].
    #[error(
        "dimensions {dims} are too large to be real \
         (over 2^31 elements or 64 dimensions, or negative)"
    )]
    TooLarge {
        /// The dimensions as written in the file.
        dims: String,
    },
    /// The data holds more or fewer elements than the dimensions say.
    #[error("shape {dims} needs {expected} but the file holds {actual}")]
    DataSize {
        /// The dimensions.
        dims: String,
        /// What the shape needs ("150528 bytes of raw data", "24 float_data values").
        expected: String,
        /// What is there.
        actual: String,
    },
    /// The element type is not one Turbine supports.
    #[error(
        "element type {0} is not supported (Turbine handles FLOAT, FLOAT16, BFLOAT16, INT8, \
         UINT8, INT32, INT64 and BOOL)"
    )]
    ElementType(String),
    /// The data lives in an external file that cannot be read, for the reason given.
    #[error("its external data cannot be read: {0}")]
    ExternalData(String),
    /// The tensor is sparse.
    #[error("sparse tensors are not supported")]
    Sparse,
}
