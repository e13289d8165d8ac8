//! Shape inference at the level of nodes: reads a node's attributes and constant operands the way
//! its ONNX operator (opsets 13 to 22) defines them and applies the rules of [`crate::shape`].
//!
//! The data-movement operators live here because both constant folding and lowering need the same
//! answer for them (a `Reshape` of a constant is folded, of a run-time value lowered, and both must
//! agree on the target shape). Operators that are only ever lowered (convolution, pooling, matrix
//! products) infer their shapes in their lowering module.

use crate::error::ImportError;
use crate::node::Node;
use crate::shape::{self, SliceWindow};
use crate::types::ElementType;
use crate::value::Inputs;

/// The shape of input `index`.
fn input_shape(inputs: &Inputs, index: usize, what: &str) -> Result<Vec<usize>, ImportError> {
    Ok(inputs.required(index, what)?.ty().shape)
}

/// `Reshape`: the target shape from input 1, `allowzero` (opset 14) deciding what 0 means.
pub fn reshape(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let input = input_shape(inputs, 0, "data")?;
    let target = inputs.required_ints(1, "shape")?;
    let allowzero = node.int("allowzero", 0)? != 0;
    shape::reshape(&input, &target, allowzero).map_err(|message| node.invalid(message))
}

/// `Flatten` at attribute `axis` (default 1).
pub fn flatten(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let input = input_shape(inputs, 0, "input")?;
    let (_, shape) =
        shape::flatten(&input, node.int("axis", 1)?).map_err(|message| node.invalid(message))?;
    Ok(shape)
}

/// `Squeeze` with the optional `axes` input (an input since opset 13).
pub fn squeeze(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let input = input_shape(inputs, 0, "data")?;
    let axes = inputs.ints(1, "axes")?;
    shape::squeeze(&input, axes.as_deref()).map_err(|message| node.invalid(message))
}

/// `Unsqueeze` with the required `axes` input.
pub fn unsqueeze(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let input = input_shape(inputs, 0, "data")?;
    let axes = inputs.required_ints(1, "axes")?;
    shape::unsqueeze(&input, &axes).map_err(|message| node.invalid(message))
}

/// `Transpose`: the permutation (default: reversed dimensions) and the result shape.
pub fn transpose(node: &Node, inputs: &Inputs) -> Result<(Vec<i64>, Vec<usize>), ImportError> {
    let input = input_shape(inputs, 0, "data")?;
    let permutation = node
        .ints("perm")?
        .unwrap_or_else(|| (0..input.len() as i64).rev().collect());
    let shape = shape::transpose(&input, &permutation).map_err(|message| node.invalid(message))?;
    Ok((permutation, shape))
}

/// `Slice`: starts, ends, axes and steps from constant inputs, resolved to a window. Negative
/// steps (reversal) have no counterpart in `graph.slice`.
pub fn slice(node: &Node, inputs: &Inputs) -> Result<SliceWindow, ImportError> {
    let input = input_shape(inputs, 0, "data")?;
    let starts = inputs.required_ints(1, "starts")?;
    let ends = inputs.required_ints(2, "ends")?;
    let axes = inputs.ints(3, "axes")?;
    let steps = inputs.ints(4, "steps")?;
    if let Some(step) = steps.iter().flatten().find(|&&step| step < 0) {
        return Err(node.unsupported(format!(
            "negative step {step} (reversing slice) is not supported"
        )));
    }
    shape::slice(&input, &starts, &ends, axes.as_deref(), steps.as_deref())
        .map_err(|message| node.invalid(message))
}

/// `Expand`: the numpy broadcast of the input shape and the constant `shape` input.
pub fn expand(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let input = input_shape(inputs, 0, "input")?;
    let target = inputs.required_ints(1, "shape")?;
    let target = shape::static_dims(&target, "shape").map_err(|message| node.invalid(message))?;
    shape::broadcast(&input, &target).map_err(|message| node.invalid(message))
}

/// `Concat` along attribute `axis` (required): the normalised axis and the result shape.
pub fn concat(node: &Node, inputs: &Inputs) -> Result<(usize, Vec<usize>), ImportError> {
    if !node.has("axis") {
        return Err(node.invalid("attribute 'axis' is missing"));
    }
    let types: Vec<_> = inputs.present().map(|value| value.ty()).collect();
    if types
        .windows(2)
        .any(|pair| pair[0].element != pair[1].element)
    {
        return Err(node.invalid("operands have different element types"));
    }
    let shapes: Vec<&[usize]> = types.iter().map(|ty| ty.shape.as_slice()).collect();
    shape::concat(&shapes, node.int("axis", 0)?).map_err(|message| node.invalid(message))
}

/// `Gather` along attribute `axis` (default 0): the normalised axis and the result shape.
pub fn gather(node: &Node, inputs: &Inputs) -> Result<(usize, Vec<usize>), ImportError> {
    let data = input_shape(inputs, 0, "data")?;
    let indices = inputs.required(1, "indices")?.ty();
    if !matches!(indices.element, ElementType::I32 | ElementType::I64) {
        return Err(node.invalid(format!(
            "indices must be int32 or int64, not {}",
            indices.element
        )));
    }
    let axis =
        shape::axis(node.int("axis", 0)?, data.len()).map_err(|message| node.invalid(message))?;
    Ok((axis, shape::gather(&data, &indices.shape, axis)))
}

/// The broadcast shape of all present inputs of an elementwise operator.
pub fn broadcast(node: &Node, inputs: &Inputs) -> Result<Vec<usize>, ImportError> {
    let mut shapes = inputs.present().map(|value| value.ty().shape);
    let first = shapes.next().ok_or_else(|| node.invalid("no operands"))?;
    shapes
        .try_fold(first, |shape, next| shape::broadcast(&shape, &next))
        .map_err(|message| node.invalid(message))
}
