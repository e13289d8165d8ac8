//! A node being imported: its name for messages, typed attribute access, and error constructors
//! that name it.

use crate::error::ImportError;
use crate::proto::{AttributeProto, AttributeType, GraphProto, NodeProto, TensorProto};

/// A node of the graph with the name diagnostics use.
pub struct Node<'m> {
    /// The node as decoded.
    pub proto: &'m NodeProto,
    /// Its name, or `<op_type>_<index>` when the model left it empty (as older exporters did).
    pub name: String,
}

impl<'m> Node<'m> {
    /// The node at position `index` of its graph.
    pub fn new(proto: &'m NodeProto, index: usize) -> Self {
        let name = if proto.name.is_empty() {
            format!("{}_{index}", proto.op_type)
        } else {
            proto.name.clone()
        };
        Self { proto, name }
    }

    /// The operator.
    pub fn op_type(&self) -> &'m str {
        &self.proto.op_type
    }

    /// An error for a node that breaks the ONNX specification.
    pub fn invalid(&self, message: impl Into<String>) -> ImportError {
        ImportError::InvalidNode {
            node: self.name.clone(),
            op_type: self.proto.op_type.clone(),
            message: message.into(),
        }
    }

    /// An error for a use of the operator that the graph dialect cannot express.
    pub fn unsupported(&self, message: impl Into<String>) -> ImportError {
        ImportError::UnsupportedUse {
            node: self.name.clone(),
            op_type: self.proto.op_type.clone(),
            message: message.into(),
        }
    }

    fn attribute(
        &self,
        name: &str,
        expected: AttributeType,
    ) -> Result<Option<&'m AttributeProto>, ImportError> {
        let Some(attribute) = self
            .proto
            .attribute
            .iter()
            .find(|attribute| attribute.name == name)
        else {
            return Ok(None);
        };
        if !attribute.ref_attr_name.is_empty() {
            return Err(self.unsupported(format!(
                "attribute '{name}' refers to a function attribute, which is not supported"
            )));
        }
        // Files older than IR version 2 leave the type unset; the field read is then the answer.
        let given = AttributeType::try_from(attribute.r#type).unwrap_or(AttributeType::Undefined);
        if given != expected && given != AttributeType::Undefined {
            return Err(self.invalid(format!(
                "attribute '{name}' is {given:?}, expected {expected:?}"
            )));
        }
        Ok(Some(attribute))
    }

    /// An `INT` attribute, or `default` when absent.
    pub fn int(&self, name: &str, default: i64) -> Result<i64, ImportError> {
        Ok(self
            .attribute(name, AttributeType::Int)?
            .map_or(default, |attribute| attribute.i))
    }

    /// An `INTS` attribute, if present.
    pub fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, ImportError> {
        Ok(self
            .attribute(name, AttributeType::Ints)?
            .map(|attribute| attribute.ints.clone()))
    }

    /// A `FLOAT` attribute, or `default` when absent.
    pub fn float(&self, name: &str, default: f32) -> Result<f32, ImportError> {
        Ok(self
            .attribute(name, AttributeType::Float)?
            .map_or(default, |attribute| attribute.f))
    }

    /// A `FLOATS` attribute, if present.
    pub fn floats(&self, name: &str) -> Result<Option<Vec<f32>>, ImportError> {
        Ok(self
            .attribute(name, AttributeType::Floats)?
            .map(|attribute| attribute.floats.clone()))
    }

    /// A `STRING` attribute, or `default` when absent.
    pub fn string(&self, name: &str, default: &str) -> Result<String, ImportError> {
        match self.attribute(name, AttributeType::String)? {
            None => Ok(default.to_owned()),
            Some(attribute) => String::from_utf8(attribute.s.clone())
                .map_err(|_| self.invalid(format!("attribute '{name}' is not UTF-8"))),
        }
    }

    /// A `STRINGS` attribute, if present.
    pub fn strings(&self, name: &str) -> Result<Option<Vec<String>>, ImportError> {
        let Some(attribute) = self.attribute(name, AttributeType::Strings)? else {
            return Ok(None);
        };
        attribute
            .strings
            .iter()
            .map(|bytes| {
                String::from_utf8(bytes.clone())
                    .map_err(|_| self.invalid(format!("attribute '{name}' is not UTF-8")))
            })
            .collect::<Result<_, _>>()
            .map(Some)
    }

    /// A `TENSOR` attribute, if present.
    pub fn tensor(&self, name: &str) -> Result<Option<&'m TensorProto>, ImportError> {
        match self.attribute(name, AttributeType::Tensor)? {
            None => Ok(None),
            Some(attribute) => attribute
                .t
                .as_ref()
                .map(Some)
                .ok_or_else(|| self.invalid(format!("attribute '{name}' holds no tensor"))),
        }
    }

    /// A `GRAPH` attribute (a body of `If`, `Loop` or `Scan`), which the operator requires.
    pub fn graph(&self, name: &str) -> Result<&'m GraphProto, ImportError> {
        self.attribute(name, AttributeType::Graph)?
            .and_then(|attribute| attribute.g.as_deref())
            .ok_or_else(|| self.invalid(format!("attribute '{name}' (a graph) is missing")))
    }

    /// Whether the node has attribute `name` at all.
    pub fn has(&self, name: &str) -> bool {
        self.proto
            .attribute
            .iter()
            .any(|attribute| attribute.name == name)
    }

    /// Fails naming the first attribute the lowering does not handle in its non-default form:
    /// each `(name, default)` pair is an `INT` attribute that must keep its default.
    pub fn require_int_defaults(&self, attributes: &[(&str, i64)]) -> Result<(), ImportError> {
        for &(name, default) in attributes {
            let value = self.int(name, default)?;
            if value != default {
                return Err(
                    self.unsupported(format!("attribute {name} = {value} is not supported"))
                );
            }
        }
        Ok(())
    }
}
