//! Writing ONNX models from Rust, for tests and tools that need a model without Python and
//! `onnx.helper`: a graph builder, node attributes, and initializers.
//!
//! ```
//! use turbine_onnx::model_builder::{node, GraphBuilder};
//! use turbine_onnx::ElementType;
//!
//! let model = GraphBuilder::new("tiny")
//!     .input("x", ElementType::F32, &[1, 4])
//!     .node(node("Relu", &["x"], &["y"]).name("relu"))
//!     .output("y")
//!     .model(17);
//! let bytes = turbine_onnx::model_builder::encode(&model);
//! let imported = turbine_onnx::import(&bytes, &Default::default()).unwrap();
//! assert_eq!(imported.module.ops_named("graph.relu").count(), 1);
//! ```

use crate::proto::{
    tensor_shape_proto::{dimension, Dimension},
    type_proto, AttributeProto, AttributeType, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use crate::types::ElementType;

/// One dimension of a declared input shape.
#[derive(Clone, Debug)]
pub enum Dim {
    /// A fixed size.
    Static(i64),
    /// A named size such as `batch`.
    Symbolic(String),
    /// Nothing known.
    Unknown,
}

/// A graph under construction.
#[derive(Clone, Debug, Default)]
pub struct GraphBuilder {
    graph: GraphProto,
}

impl GraphBuilder {
    /// An empty graph called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            graph: GraphProto {
                name: name.to_owned(),
                ..Default::default()
            },
        }
    }

    /// Adds a graph input of static shape `dims`.
    pub fn input(self, name: &str, element: ElementType, dims: &[i64]) -> Self {
        self.input_with_dims(
            name,
            element,
            Some(dims.iter().map(|&dim| Dim::Static(dim)).collect()),
        )
    }

    /// Adds a graph input whose shape may be symbolic, or absent (`None`).
    pub fn input_with_dims(
        mut self,
        name: &str,
        element: ElementType,
        dims: Option<Vec<Dim>>,
    ) -> Self {
        self.graph.input.push(value_info(name, element, dims));
        self
    }

    /// Adds an initializer (a constant tensor, named by its `name`).
    pub fn initializer(mut self, tensor: TensorProto) -> Self {
        self.graph.initializer.push(tensor);
        self
    }

    /// Adds a node after the existing ones.
    pub fn node(mut self, node: impl Into<NodeProto>) -> Self {
        self.graph.node.push(node.into());
        self
    }

    /// Declares graph output `name` without a type.
    pub fn output(mut self, name: &str) -> Self {
        self.graph.output.push(ValueInfoProto {
            name: name.to_owned(),
            r#type: None,
        });
        self
    }

    /// Declares graph output `name` with its type.
    pub fn typed_output(mut self, name: &str, element: ElementType, dims: &[i64]) -> Self {
        self.graph.output.push(value_info(
            name,
            element,
            Some(dims.iter().map(|&dim| Dim::Static(dim)).collect()),
        ));
        self
    }

    /// A model of IR version 10 holding the graph, importing ai.onnx `opset`.
    pub fn model(self, opset: i64) -> ModelProto {
        ModelProto {
            ir_version: 10,
            opset_import: vec![OperatorSetIdProto {
                domain: String::new(),
                version: opset,
            }],
            producer_name: "turbine-onnx".into(),
            graph: Some(self.graph),
        }
    }
}

/// The bytes of a `.onnx` file holding `model`.
pub fn encode(model: &ModelProto) -> Vec<u8> {
    prost::Message::encode_to_vec(model)
}

fn value_info(name: &str, element: ElementType, dims: Option<Vec<Dim>>) -> ValueInfoProto {
    let shape = dims.map(|dims| TensorShapeProto {
        dim: dims
            .into_iter()
            .map(|dim| Dimension {
                value: match dim {
                    Dim::Static(value) => Some(dimension::Value::DimValue(value)),
                    Dim::Symbolic(symbol) => Some(dimension::Value::DimParam(symbol)),
                    Dim::Unknown => None,
                },
            })
            .collect(),
    });
    let tensor = type_proto::Tensor {
        elem_type: element.onnx_code(),
        shape,
    };
    ValueInfoProto {
        name: name.to_owned(),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(tensor)),
        }),
    }
}

/// A float tensor named `name`, stored as raw little-endian data as exporters do.
pub fn f32_tensor(name: &str, dims: &[i64], values: &[f32]) -> TensorProto {
    TensorProto {
        name: name.to_owned(),
        dims: dims.to_vec(),
        data_type: ElementType::F32.onnx_code(),
        raw_data: values
            .iter()
            .flat_map(|value| value.to_le_bytes())
            .collect(),
        ..Default::default()
    }
}

/// An int64 tensor named `name`, stored in `int64_data`.
pub fn i64_tensor(name: &str, dims: &[i64], values: &[i64]) -> TensorProto {
    TensorProto {
        name: name.to_owned(),
        dims: dims.to_vec(),
        data_type: ElementType::I64.onnx_code(),
        int64_data: values.to_vec(),
        ..Default::default()
    }
}

/// A node under construction (see [`node`]).
#[derive(Clone, Debug)]
pub struct NodeBuilder(NodeProto);

/// A node applying `op_type` to `inputs` (an empty name omits an optional input), defining
/// `outputs`; named after its first output until [`NodeBuilder::name`] says otherwise.
pub fn node(op_type: &str, inputs: &[&str], outputs: &[&str]) -> NodeBuilder {
    NodeBuilder(NodeProto {
        input: inputs.iter().map(|&name| name.to_owned()).collect(),
        output: outputs.iter().map(|&name| name.to_owned()).collect(),
        name: outputs
            .first()
            .map_or_else(String::new, |&name| name.to_owned()),
        op_type: op_type.to_owned(),
        ..Default::default()
    })
}

impl NodeBuilder {
    /// Sets the node's name.
    pub fn name(mut self, name: &str) -> Self {
        self.0.name = name.to_owned();
        self
    }

    fn attribute(
        mut self,
        name: &str,
        kind: AttributeType,
        fill: impl FnOnce(&mut AttributeProto),
    ) -> Self {
        let mut attribute = AttributeProto {
            name: name.to_owned(),
            r#type: kind as i32,
            ..Default::default()
        };
        fill(&mut attribute);
        self.0.attribute.push(attribute);
        self
    }

    /// Adds an `INT` attribute.
    pub fn int(self, name: &str, value: i64) -> Self {
        self.attribute(name, AttributeType::Int, |attribute| attribute.i = value)
    }

    /// Adds an `INTS` attribute.
    pub fn ints(self, name: &str, values: &[i64]) -> Self {
        self.attribute(name, AttributeType::Ints, |attribute| {
            attribute.ints = values.to_vec()
        })
    }

    /// Adds a `FLOAT` attribute.
    pub fn float(self, name: &str, value: f32) -> Self {
        self.attribute(name, AttributeType::Float, |attribute| attribute.f = value)
    }

    /// Adds a `FLOATS` attribute.
    pub fn floats(self, name: &str, values: &[f32]) -> Self {
        self.attribute(name, AttributeType::Floats, |attribute| {
            attribute.floats = values.to_vec()
        })
    }

    /// Adds a `STRING` attribute.
    pub fn string(self, name: &str, value: &str) -> Self {
        self.attribute(name, AttributeType::String, |attribute| {
            attribute.s = value.as_bytes().to_vec()
        })
    }

    /// Adds a `TENSOR` attribute.
    pub fn tensor(self, name: &str, value: TensorProto) -> Self {
        self.attribute(name, AttributeType::Tensor, |attribute| {
            attribute.t = Some(value)
        })
    }
}

impl From<NodeBuilder> for NodeProto {
    fn from(builder: NodeBuilder) -> Self {
        builder.0
    }
}
