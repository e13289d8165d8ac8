//! The graph walk: decode the model, give the inputs static types, then take the nodes in order,
//! folding each one whose inputs are known and lowering the others, and finally return the
//! outputs from `@main`.

use std::collections::HashMap;
use std::path::PathBuf;
use std::rc::Rc;

use prost::Message;

use crate::emit::{GraphModule, Signature};
use crate::error::{ImportError, TensorProblem};
use crate::fold;
use crate::lower::{self, Builder};
use crate::node::Node;
use crate::proto::{
    tensor_shape_proto::dimension, type_proto, GraphProto, ModelProto, ValueInfoProto,
};
use crate::tensor::{Data, Tensor};
use crate::types::{checked_len, element_count, format_shape, ElementType, TensorType};
use crate::value::{Inputs, Value};
use crate::weights::Weights;

/// The standard operator set versions the importer reads. 13 is where the operators the supported
/// models use took their current form (axes as inputs, Softmax on one axis); 22 is the newest the
/// pinned onnx package defines, and it only widened operators' types (bfloat16, float8), leaving
/// what every supported operator computes as in 21.
pub const OPSETS: std::ops::RangeInclusive<i64> = 13..=22;

/// How to import a model.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Static shapes for graph inputs, by input name. They replace the declared shape (which may
    /// have symbolic dimensions, or static ones to be changed, such as the batch size) and must
    /// keep its rank.
    pub input_shapes: Vec<(String, Vec<usize>)>,
    /// The weights file name that `graph.weights` records (when there are weights), normally the
    /// output's name with `.safetensors`, relative to the directory of the `.mlir` file.
    pub weights_file: String,
    /// The folder the model's external data files are in (the model file's folder); `None`
    /// refuses tensors stored in external files.
    pub external_data_folder: Option<PathBuf>,
}

/// An imported model: the graph-dialect module as typed records and the weights it refers to.
#[derive(Debug)]
pub struct ImportedModel {
    /// The module (`turbine_tools::graph_module` builds and verifies it as MLIR).
    pub module: GraphModule,
    /// The tensors that the module's `graph.weight` operations name.
    pub weights: Weights,
}

/// Imports an ONNX model (the bytes of a `.onnx` file).
pub fn import(bytes: &[u8], options: &ImportOptions) -> Result<ImportedModel, ImportError> {
    let mut model = ModelProto::decode(bytes)?;
    crate::external::load(&mut model, options.external_data_folder.as_deref())?;
    let graph = checked_graph(&model)?;
    let mut scope = Scope::default();
    define_initializers(graph, &mut scope)?;
    let (arguments, resized) = define_inputs(graph, options, &mut scope)?;

    let mut builder = Builder::default();
    for (index, proto) in graph.node.iter().enumerate() {
        import_node(&Node::new(proto, index), &mut scope, &mut builder)?;
    }

    let mut results = Vec::new();
    let mut signature = Vec::new();
    for output in &graph.output {
        let operand = builder.operand(&scope.resolve(&output.name, None)?);
        check_declared_output(output, &operand.ty, !resized)?;
        signature.push(Signature {
            name: output.name.clone(),
            ty: operand.ty.clone(),
        });
        results.push(operand);
    }
    let location = if graph.name.is_empty() {
        "main"
    } else {
        graph.name.as_str()
    };
    builder
        .body
        .ret(&results.iter().collect::<Vec<_>>(), location);
    let weights_file = (!builder.weights.is_empty()).then(|| options.weights_file.clone());
    let module = GraphModule {
        weights_file,
        location: location.to_owned(),
        inputs: arguments,
        outputs: signature,
        body: builder.body,
    };
    Ok(ImportedModel {
        module,
        weights: Weights::new(builder.weights),
    })
}

/// The model's graph, once the header says that it is an ONNX model of a supported opset.
fn checked_graph(model: &ModelProto) -> Result<&GraphProto, ImportError> {
    if model.ir_version <= 0 {
        return Err(ImportError::Model(
            "the file declares no ONNX IR version (it is empty, truncated, or not an ONNX model)"
                .into(),
        ));
    }
    let graph = model
        .graph
        .as_ref()
        .ok_or_else(|| ImportError::Model("the file holds no graph (is it truncated?)".into()))?;
    let version = model
        .opset_import
        .iter()
        .find(|opset| opset.domain.is_empty() || opset.domain == "ai.onnx")
        .map(|opset| opset.version)
        .ok_or_else(|| {
            if model.opset_import.is_empty() {
                ImportError::Model(
                    "the model imports no ai.onnx opset (is the file truncated?)".into(),
                )
            } else {
                let domains: Vec<&str> = model
                    .opset_import
                    .iter()
                    .map(|opset| opset.domain.as_str())
                    .collect();
                ImportError::UnsupportedDomains {
                    domains: domains.join(", "),
                }
            }
        })?;
    if !OPSETS.contains(&version) {
        return Err(ImportError::UnsupportedOpset { version });
    }
    Ok(graph)
}

/// Decodes the initializers into constants.
fn define_initializers(graph: &GraphProto, scope: &mut Scope) -> Result<(), ImportError> {
    if let Some(sparse) = graph.sparse_initializer.first() {
        let tensor = sparse
            .values
            .as_ref()
            .map_or_else(String::new, |values| values.name.clone());
        return Err(ImportError::Tensor {
            tensor,
            problem: TensorProblem::Sparse,
        });
    }
    for initializer in &graph.initializer {
        let tensor = Tensor::from_proto(initializer, &initializer.name)?;
        scope.define(
            &initializer.name,
            Value::Const {
                name: initializer.name.clone(),
                tensor: Rc::new(tensor),
            },
        )?;
    }
    Ok(())
}

/// Gives the graph inputs that are not initializers their static types and function arguments;
/// also says whether an override changed a dimension the model fixed (the declared output shapes
/// are then stale and not checked).
fn define_inputs(
    graph: &GraphProto,
    options: &ImportOptions,
    scope: &mut Scope,
) -> Result<(Vec<Signature>, bool), ImportError> {
    let mut overrides: HashMap<&str, &[usize]> = options
        .input_shapes
        .iter()
        .map(|(name, shape)| (name.as_str(), shape.as_slice()))
        .collect();
    // An input with an initializer is a constant with a default value (IR version < 4).
    let runtime_inputs: Vec<&ValueInfoProto> = graph
        .input
        .iter()
        .filter(|input| !scope.values.contains_key(&input.name))
        .collect();
    let names: Vec<&str> = runtime_inputs
        .iter()
        .map(|input| input.name.as_str())
        .collect();
    if let Some(name) = overrides.keys().find(|name| !names.contains(name)) {
        return Err(ImportError::Input {
            input: (*name).to_owned(),
            message: format!(
                "the model has no such input (its inputs are {})",
                names.join(", ")
            ),
        });
    }
    let mut arguments = Vec::new();
    let mut resized = false;
    for input in runtime_inputs {
        let (ty, changed) = input_type(input, overrides.remove(input.name.as_str()))?;
        resized |= changed;
        let operand = GraphModule::argument(arguments.len(), ty.clone());
        scope.define(&input.name, Value::Dynamic(operand))?;
        arguments.push(Signature {
            name: input.name.clone(),
            ty,
        });
    }
    Ok((arguments, resized))
}

/// Folds or lowers one node and defines its outputs.
pub(crate) fn import_node(
    node: &Node,
    scope: &mut Scope,
    builder: &mut Builder,
) -> Result<(), ImportError> {
    let proto = node.proto;
    if !(proto.domain.is_empty() || proto.domain == "ai.onnx") {
        return Err(ImportError::UnsupportedOp {
            node: node.name.clone(),
            op_type: format!("{}.{}", proto.domain, proto.op_type),
        });
    }
    if crate::operators::find(node.op_type()).is_none() {
        return Err(ImportError::UnsupportedOp {
            node: node.name.clone(),
            op_type: proto.op_type.clone(),
        });
    }
    crate::schema::check(node)?;
    let resolved = proto
        .input
        .iter()
        .map(|name| {
            if name.is_empty() {
                Ok(None)
            } else {
                scope.resolve(name, Some(node)).map(Some)
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let inputs = Inputs::new(node, &resolved);
    let outputs = match node.op_type() {
        // Inference-time identities.
        "Identity" => vec![inputs.required(0, "input")?.clone()],
        "Dropout" => {
            // Training mode drops random elements: not an identity, and not supported.
            let training = inputs.constant(2, "training_mode")?;
            if training.is_some_and(
                |mode| matches!(&mode.data, Data::Bool(values) if values.first() == Some(&true)),
            ) {
                return Err(
                    node.unsupported("training_mode true (random dropout) is not supported")
                );
            }
            vec![inputs.required(0, "data")?.clone()]
        }
        "If" | "Loop" | "Scan" => crate::subgraph::import(node, &inputs, scope, builder)?,
        _ => match fold::evaluate(node, &inputs)? {
            Some(tensors) => tensors
                .into_iter()
                .zip(&proto.output)
                .map(|(tensor, name)| Value::Const {
                    name: name.clone(),
                    tensor: Rc::new(tensor),
                })
                .collect(),
            None => lower::lower(builder, node, &inputs)?,
        },
    };
    for (position, name) in proto.output.iter().enumerate() {
        if name.is_empty() {
            continue;
        }
        match outputs.get(position) {
            Some(value) => {
                let shape = value.ty().shape;
                if checked_len(&shape).is_none() {
                    return Err(node.invalid(format!(
                        "result shape {} is too large to be real",
                        format_shape(&shape)
                    )));
                }
                scope.define(name, value.clone())?;
            }
            // Training outputs and the like: an error only if something uses them.
            None => {
                scope.unsupported.insert(
                    name.clone(),
                    node.unsupported(format!("output {position} ('{name}') is not supported")),
                );
            }
        }
    }
    Ok(())
}

/// The values of the tensor names defined so far.
#[derive(Default)]
pub(crate) struct Scope {
    values: HashMap<String, Value>,
    /// Outputs that a node defines but the importer does not (training statistics, pooling
    /// indices), with the error that a use of them reports.
    unsupported: HashMap<String, ImportError>,
}

impl Scope {
    fn define(&mut self, name: &str, value: Value) -> Result<(), ImportError> {
        if self.values.insert(name.to_owned(), value).is_some() {
            return Err(ImportError::Model(format!(
                "tensor '{name}' is defined twice"
            )));
        }
        Ok(())
    }

    /// A scope for a subgraph: it sees every name defined so far, and what it defines stays in
    /// it.
    pub(crate) fn nested(&self) -> Scope {
        Scope {
            values: self.values.clone(),
            unsupported: HashMap::new(),
        }
    }

    /// Binds `name` to `value`, hiding what an enclosing graph calls `name` (a subgraph's inputs
    /// and initializers).
    pub(crate) fn bind(&mut self, name: &str, value: Value) {
        self.values.insert(name.to_owned(), value);
    }

    /// The value of `name`, used by `user` (a node, or the graph's outputs when `None`).
    pub(crate) fn resolve(
        &mut self,
        name: &str,
        user: Option<&Node>,
    ) -> Result<Value, ImportError> {
        if let Some(value) = self.values.get(name) {
            return Ok(value.clone());
        }
        if let Some(error) = self.unsupported.remove(name) {
            return Err(error);
        }
        Err(ImportError::Model(match user {
            Some(node) => format!(
                "node '{}' uses tensor '{name}', which nothing defines before it",
                node.name
            ),
            None => format!("graph output '{name}' is not computed by any node"),
        }))
    }
}

/// The static type of graph input `info`: its declared shape, or `given` (from `--input-shape`),
/// and whether `given` changed a dimension the model fixed.
fn input_type(
    info: &ValueInfoProto,
    given: Option<&[usize]>,
) -> Result<(TensorType, bool), ImportError> {
    let error = |message: String| ImportError::Input {
        input: info.name.clone(),
        message,
    };
    let Some(type_proto::Value::TensorType(tensor)) =
        info.r#type.as_ref().and_then(|ty| ty.value.as_ref())
    else {
        return Err(error("is not a tensor".into()));
    };
    let element = ElementType::from_onnx(tensor.elem_type).ok_or_else(|| {
        error(format!(
            "element type {} is not supported",
            ElementType::onnx_name(tensor.elem_type)
        ))
    })?;
    let declared = tensor.shape.as_ref().map(|shape| &shape.dim);
    let (dims, changed) = match (given, declared) {
        (Some(given), declared) => {
            let mut changed = false;
            if let Some(declared) = declared {
                if declared.len() != given.len() {
                    return Err(error(format!(
                        "--input-shape gives {} dimensions but the model declares {}",
                        given.len(),
                        declared.len()
                    )));
                }
                changed = declared
                    .iter()
                    .zip(given)
                    .any(|(dim, &size)| match dim.value {
                        Some(dimension::Value::DimValue(value)) => value != size as i64,
                        _ => false,
                    });
            }
            (
                given
                    .iter()
                    .map(|&size| i64::try_from(size).unwrap_or(i64::MAX))
                    .collect::<Vec<_>>(),
                changed,
            )
        }
        (None, None) => {
            return Err(error(
                "the model declares no shape: give one with --input-shape".into(),
            ))
        }
        (None, Some(declared)) => {
            let dims = declared
                .iter()
                .enumerate()
                .map(|(index, dim)| match &dim.value {
                    Some(dimension::Value::DimValue(value)) if *value >= 0 => Ok(*value),
                    Some(dimension::Value::DimValue(value)) => {
                        Err(error(format!("dimension {index} is {value}")))
                    }
                    Some(dimension::Value::DimParam(symbol)) if !symbol.is_empty() => {
                        Err(ImportError::DynamicDimension {
                            input: info.name.clone(),
                            index,
                            symbol: Some(symbol.clone()),
                        })
                    }
                    _ => Err(ImportError::DynamicDimension {
                        input: info.name.clone(),
                        index,
                        symbol: None,
                    }),
                })
                .collect::<Result<Vec<_>, _>>()?;
            (dims, false)
        }
    };
    if element_count(&dims).is_none() {
        return Err(error(format!(
            "shape {} is too large to be real (over 2^31 elements or 64 dimensions)",
            format_shape(&dims)
        )));
    }
    Ok((
        TensorType::new(dims.iter().map(|&dim| dim as usize).collect(), element),
        changed,
    ))
}

/// Checks the inferred type of a graph output against what the model declares: the element type
/// always, the static dimensions when `dims` (no input was resized). A difference means a wrong
/// model or an importer bug, and either is better reported here than computed.
fn check_declared_output(
    info: &ValueInfoProto,
    ty: &TensorType,
    dims: bool,
) -> Result<(), ImportError> {
    let Some(type_proto::Value::TensorType(tensor)) =
        info.r#type.as_ref().and_then(|ty| ty.value.as_ref())
    else {
        return Ok(());
    };
    let mismatch = |declared: String| {
        ImportError::Model(format!(
            "output '{}' is declared {declared} but the graph computes {ty}",
            info.name
        ))
    };
    if tensor.elem_type != 0 && ElementType::from_onnx(tensor.elem_type) != Some(ty.element) {
        return Err(mismatch(ElementType::onnx_name(tensor.elem_type)));
    }
    let Some(shape) = tensor.shape.as_ref().filter(|_| dims) else {
        return Ok(());
    };
    let agrees = shape.dim.len() == ty.rank()
        && shape
            .dim
            .iter()
            .zip(&ty.shape)
            .all(|(dim, &size)| match dim.value {
                Some(dimension::Value::DimValue(value)) => value == size as i64,
                _ => true,
            });
    if !agrees {
        let declared: Vec<String> = shape
            .dim
            .iter()
            .map(|dim| match &dim.value {
                Some(dimension::Value::DimValue(value)) => value.to_string(),
                Some(dimension::Value::DimParam(symbol)) => symbol.clone(),
                None => "?".into(),
            })
            .collect();
        return Err(mismatch(format!("with shape {}", format_shape(&declared))));
    }
    Ok(())
}
