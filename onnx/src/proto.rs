//! The subset of `onnx.proto` that the importer reads, as hand-written prost messages.
//!
//! Writing the messages by hand (rather than generating them with `prost-build`) keeps protoc out
//! of the build. Field numbers are those of onnx.proto (IR version 10); fields the importer never
//! reads (doc strings, metadata, training info, subgraph-list attributes, the data
//! fields of element types Turbine does not support) are left out, and prost skips them while
//! decoding. Repeated scalars decode in both the packed and the unpacked encoding, which matters
//! because onnx.proto is proto2 and leaves most of them unpacked.
//!
//! prost bounds every length-delimited field by the bytes that remain, so a corrupt length in a
//! truncated or malicious file is a decode error, not a huge allocation.

/// A model: the graph and the operator sets it is written against.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ModelProto {
    /// The ONNX IR version the file follows.
    #[prost(int64, tag = "1")]
    pub ir_version: i64,
    /// The operator sets (domain and version) the graph's nodes use.
    #[prost(message, repeated, tag = "8")]
    pub opset_import: Vec<OperatorSetIdProto>,
    /// The tool that wrote the model, for messages only.
    #[prost(string, tag = "2")]
    pub producer_name: String,
    /// The computation.
    #[prost(message, optional, tag = "7")]
    pub graph: Option<GraphProto>,
}

/// One imported operator set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct OperatorSetIdProto {
    /// The domain: empty or `ai.onnx` for the standard operators.
    #[prost(string, tag = "1")]
    pub domain: String,
    /// The operator set version.
    #[prost(int64, tag = "2")]
    pub version: i64,
}

/// A graph: nodes in topological order, constant tensors, inputs and outputs.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GraphProto {
    /// The nodes, each only using tensors defined before it.
    #[prost(message, repeated, tag = "1")]
    pub node: Vec<NodeProto>,
    /// The graph's name.
    #[prost(string, tag = "2")]
    pub name: String,
    /// Constant tensors (weights), referred to by name.
    #[prost(message, repeated, tag = "5")]
    pub initializer: Vec<TensorProto>,
    /// Sparse constant tensors; the importer rejects them.
    #[prost(message, repeated, tag = "15")]
    pub sparse_initializer: Vec<SparseTensorProto>,
    /// The graph's inputs; an input that is also an initializer is a constant with a default.
    #[prost(message, repeated, tag = "11")]
    pub input: Vec<ValueInfoProto>,
    /// The graph's outputs.
    #[prost(message, repeated, tag = "12")]
    pub output: Vec<ValueInfoProto>,
}

/// One operator application.
#[derive(Clone, PartialEq, prost::Message)]
pub struct NodeProto {
    /// Input tensor names; an empty name is an omitted optional input.
    #[prost(string, repeated, tag = "1")]
    pub input: Vec<String>,
    /// Output tensor names; an empty name is an omitted optional output.
    #[prost(string, repeated, tag = "2")]
    pub output: Vec<String>,
    /// The node's name (optional in ONNX, but what diagnostics show).
    #[prost(string, tag = "3")]
    pub name: String,
    /// The operator.
    #[prost(string, tag = "4")]
    pub op_type: String,
    /// The operator's domain: empty or `ai.onnx` for the standard operators.
    #[prost(string, tag = "7")]
    pub domain: String,
    /// The operator's attributes.
    #[prost(message, repeated, tag = "5")]
    pub attribute: Vec<AttributeProto>,
}

/// A named attribute value of a node.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AttributeProto {
    /// The attribute's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Which of the value fields is set ([`AttributeType`]); 0 in files older than IR version 2.
    #[prost(int32, tag = "20")]
    pub r#type: i32,
    /// The value of a `FLOAT` attribute.
    #[prost(float, tag = "2")]
    pub f: f32,
    /// The value of an `INT` attribute.
    #[prost(int64, tag = "3")]
    pub i: i64,
    /// The value of a `STRING` attribute.
    #[prost(bytes = "vec", tag = "4")]
    pub s: Vec<u8>,
    /// The value of a `TENSOR` attribute.
    #[prost(message, optional, tag = "5")]
    pub t: Option<TensorProto>,
    /// The value of a `GRAPH` attribute: the body of `If`, `Loop` or `Scan`.
    #[prost(message, optional, boxed, tag = "6")]
    pub g: Option<Box<GraphProto>>,
    /// The value of a `FLOATS` attribute.
    #[prost(float, repeated, tag = "7")]
    pub floats: Vec<f32>,
    /// The value of an `INTS` attribute.
    #[prost(int64, repeated, tag = "8")]
    pub ints: Vec<i64>,
    /// The value of a `STRINGS` attribute (the activations of a recurrent operator).
    #[prost(bytes = "vec", repeated, tag = "9")]
    pub strings: Vec<Vec<u8>>,
    /// Set when the attribute refers to an attribute of an enclosing function.
    #[prost(string, tag = "21")]
    pub ref_attr_name: String,
}

/// The kinds of attribute value (`AttributeProto.AttributeType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, prost::Enumeration)]
#[repr(i32)]
pub enum AttributeType {
    /// Not given (old files): the set field tells.
    Undefined = 0,
    /// `f`.
    Float = 1,
    /// `i`.
    Int = 2,
    /// `s`.
    String = 3,
    /// `t`.
    Tensor = 4,
    /// A subgraph (`g`), as in `If` and `Loop`.
    Graph = 5,
    /// `floats`.
    Floats = 6,
    /// `ints`.
    Ints = 7,
    /// `strings`.
    Strings = 8,
    /// A list of tensors.
    Tensors = 9,
    /// A list of subgraphs.
    Graphs = 10,
    /// A sparse tensor.
    SparseTensor = 11,
    /// A list of sparse tensors.
    SparseTensors = 12,
    /// A type.
    TypeProto = 13,
    /// A list of types.
    TypeProtos = 14,
}

/// A tensor's value: its shape, element type and data in one of several encodings.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorProto {
    /// The shape.
    #[prost(int64, repeated, tag = "1")]
    pub dims: Vec<i64>,
    /// The element type (`TensorProto.DataType`, see [`crate::types::ElementType`]).
    #[prost(int32, tag = "2")]
    pub data_type: i32,
    /// Elements of float tensors.
    #[prost(float, repeated, tag = "4")]
    pub float_data: Vec<f32>,
    /// Elements of int32, int16, int8, uint16, uint8, bool and float16 tensors.
    #[prost(int32, repeated, tag = "5")]
    pub int32_data: Vec<i32>,
    /// Elements of int64 tensors.
    #[prost(int64, repeated, tag = "7")]
    pub int64_data: Vec<i64>,
    /// The tensor's name (for initializers, the name nodes use).
    #[prost(string, tag = "8")]
    pub name: String,
    /// Elements in little-endian byte order, the usual encoding of large tensors.
    #[prost(bytes = "vec", tag = "9")]
    pub raw_data: Vec<u8>,
    /// Where the data lives when it is outside the file; the importer rejects it.
    #[prost(message, repeated, tag = "13")]
    pub external_data: Vec<StringStringEntryProto>,
    /// 1 (`EXTERNAL`) when the data lives in another file.
    #[prost(int32, tag = "14")]
    pub data_location: i32,
}

/// A key-value pair (external data locations).
#[derive(Clone, PartialEq, prost::Message)]
pub struct StringStringEntryProto {
    /// The key.
    #[prost(string, tag = "1")]
    pub key: String,
    /// The value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// A sparse tensor; only its presence matters, since the importer rejects sparse initializers.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SparseTensorProto {
    /// The non-zero values, whose name is the tensor's name.
    #[prost(message, optional, tag = "1")]
    pub values: Option<TensorProto>,
}

/// A name with a type, as graph inputs and outputs are declared.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ValueInfoProto {
    /// The tensor's name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Its type; absent when unknown.
    #[prost(message, optional, tag = "2")]
    pub r#type: Option<TypeProto>,
}

/// A type; the importer reads only tensor types.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TypeProto {
    /// The type, when it is one the importer knows.
    #[prost(oneof = "type_proto::Value", tags = "1")]
    pub value: Option<type_proto::Value>,
}

/// Nested messages of [`TypeProto`].
pub mod type_proto {
    /// The kinds of type the importer reads (sequences, maps and optionals are skipped).
    #[derive(Clone, PartialEq, prost::Oneof)]
    pub enum Value {
        /// A dense tensor.
        #[prost(message, tag = "1")]
        TensorType(Tensor),
    }

    /// A tensor type: element type and (optional) shape.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Tensor {
        /// The element type (`TensorProto.DataType`).
        #[prost(int32, tag = "1")]
        pub elem_type: i32,
        /// The shape; absent when even the rank is unknown.
        #[prost(message, optional, tag = "2")]
        pub shape: Option<super::TensorShapeProto>,
    }
}

/// A shape whose dimensions may be numbers, names or unknown.
#[derive(Clone, PartialEq, prost::Message)]
pub struct TensorShapeProto {
    /// The dimensions, outermost first.
    #[prost(message, repeated, tag = "1")]
    pub dim: Vec<tensor_shape_proto::Dimension>,
}

/// Nested messages of [`TensorShapeProto`].
pub mod tensor_shape_proto {
    /// One dimension.
    #[derive(Clone, PartialEq, prost::Message)]
    pub struct Dimension {
        /// A number or a symbolic name; absent when unknown.
        #[prost(oneof = "dimension::Value", tags = "1, 2")]
        pub value: Option<dimension::Value>,
    }

    /// Nested types of [`Dimension`].
    pub mod dimension {
        /// What a dimension is.
        #[derive(Clone, PartialEq, prost::Oneof)]
        pub enum Value {
            /// A fixed size.
            #[prost(int64, tag = "1")]
            DimValue(i64),
            /// A symbolic size such as `batch`.
            #[prost(string, tag = "2")]
            DimParam(String),
        }
    }
}
