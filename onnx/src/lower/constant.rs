//! Constants too large to fold: `ConstantOfShape` → a splat `graph.constant`.
//!
//! Folding expands a `ConstantOfShape` only up to [`crate::fold::SPLAT_FOLD_LIMIT`] elements; a
//! splat in the IR needs no elements at all, one literal and a type. ONNX's "light" test models
//! store every weight this way (AlexNet's first fully connected layer is a 4096 × 9216
//! ConstantOfShape), and so may any exporter that fills a large tensor.

use super::Builder;
use crate::error::ImportError;
use crate::fold::fill_value;
use crate::node::Node;
use crate::shape;
use crate::types::TensorType;
use crate::value::{Inputs, Value};

/// `ConstantOfShape` with a constant shape input.
pub fn constant_of_shape(
    builder: &mut Builder,
    node: &Node,
    inputs: &Inputs,
) -> Result<Vec<Value>, ImportError> {
    let dims = inputs.required_ints(0, "input")?;
    let shape = shape::static_dims(&dims, "shape").map_err(|message| node.invalid(message))?;
    let value = fill_value(node)?;
    let ty = TensorType::new(shape, value.data.element());
    Ok(vec![Value::Dynamic(
        builder.body.splat(&value, ty, &node.name),
    )])
}
