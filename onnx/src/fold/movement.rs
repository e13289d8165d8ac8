//! Folding data movement: reshapes, transposes, slices, gathers, concatenations, expansion —
//! each an index map over the input's elements.

use super::{budget, tensor, Folded};
use crate::infer;
use crate::node::Node;
use crate::tensor::Tensor;
use crate::value::Inputs;

pub(super) fn reshape_like(inputs: &Inputs, shape: Vec<usize>) -> Folded {
    Ok(vec![Tensor::new(
        shape,
        tensor(inputs, 0, "data")?.data.clone(),
    )])
}

/// Row-major strides of `shape`. Only an empty tensor's strides can exceed its element count
/// (`[0, 2^40, 2^40]`), and nothing is read through those, so they saturate instead of
/// overflowing.
fn strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1usize; shape.len()];
    for dim in (0..shape.len().saturating_sub(1)).rev() {
        strides[dim] = strides[dim + 1].saturating_mul(shape[dim + 1]);
    }
    strides
}

/// For every element of a tensor of `shape` (row-major), `source(coordinates)`.
fn index_map(shape: &[usize], count: usize, source: impl Fn(&[usize]) -> usize) -> Vec<usize> {
    let mut indices = Vec::with_capacity(count);
    let mut coordinates = vec![0; shape.len()];
    for _ in 0..count {
        indices.push(source(&coordinates));
        for dim in (0..shape.len()).rev() {
            coordinates[dim] += 1;
            if coordinates[dim] < shape[dim] {
                break;
            }
            coordinates[dim] = 0;
        }
    }
    indices
}

/// For every element of a tensor of `output` shape, the element of a tensor of `input` shape
/// that numpy broadcasting reads.
pub(super) fn broadcast_map(input: &[usize], output: &[usize], count: usize) -> Vec<usize> {
    let offset = output.len() - input.len();
    let input_strides = strides(input);
    index_map(output, count, |coordinates| {
        (0..input.len())
            .filter(|&dim| input[dim] != 1)
            .map(|dim| coordinates[offset + dim] * input_strides[dim])
            .sum()
    })
}

pub(super) fn transpose(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "data")?;
    let (permutation, shape) = infer::transpose(node, inputs)?;
    let count = budget(&shape)?;
    let input_strides = strides(&input.shape);
    let indices = index_map(&shape, count, |coordinates| {
        coordinates
            .iter()
            .zip(&permutation)
            .map(|(&coordinate, &dim)| coordinate * input_strides[dim as usize])
            .sum()
    });
    Ok(vec![Tensor::new(shape, input.data.take(&indices))])
}

pub(super) fn slice(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "data")?;
    let window = infer::slice(node, inputs)?;
    let count = budget(&window.shape)?;
    let input_strides = strides(&input.shape);
    let indices = index_map(&window.shape, count, |coordinates| {
        (0..coordinates.len())
            .map(|dim| {
                (window.starts[dim] + coordinates[dim] * window.steps[dim]) * input_strides[dim]
            })
            .sum()
    });
    Ok(vec![Tensor::new(window.shape, input.data.take(&indices))])
}

pub(super) fn gather(node: &Node, inputs: &Inputs) -> Folded {
    let data = tensor(inputs, 0, "data")?;
    let (axis, shape) = infer::gather(node, inputs)?;
    let count = budget(&shape)?;
    let indices = tensor(inputs, 1, "indices")?.to_i64s().unwrap_or_default();
    let size = data.shape[axis];
    let positions = indices
        .iter()
        .map(|&index| {
            let position = if index < 0 {
                index + size as i64
            } else {
                index
            };
            usize::try_from(position)
                .ok()
                .filter(|&position| position < size)
                .ok_or_else(|| {
                    node.invalid(format!(
                        "index {index} is out of range for dimension {axis} of size {size}"
                    ))
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let inner: usize = data.shape[axis + 1..].iter().product();
    let outer: usize = data.shape[..axis].iter().product();
    let mut map = Vec::with_capacity(count);
    for block in 0..outer {
        for &position in &positions {
            let base = (block * size + position) * inner;
            map.extend(base..base + inner);
        }
    }
    Ok(vec![Tensor::new(shape, data.data.take(&map))])
}

pub(super) fn concat(node: &Node, inputs: &Inputs) -> Folded {
    let (axis, shape) = infer::concat(node, inputs)?;
    let count = budget(&shape)?;
    let parts: Vec<&Tensor> = inputs
        .present()
        .filter_map(|value| value.as_const())
        .collect();
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    // Index into the parts laid end to end.
    let mut offsets = Vec::with_capacity(parts.len());
    let mut total = 0;
    for part in &parts {
        offsets.push(total);
        total += part.data.len();
    }
    let mut map = Vec::with_capacity(count);
    for block in 0..outer {
        for (part, offset) in parts.iter().zip(&offsets) {
            let slab = part.shape[axis] * inner;
            let base = offset + block * slab;
            map.extend(base..base + slab);
        }
    }
    let mut all = parts[0].data.clone();
    for part in &parts[1..] {
        all.append(&part.data);
    }
    Ok(vec![Tensor::new(shape, all.take(&map))])
}

pub(super) fn expand(node: &Node, inputs: &Inputs) -> Folded {
    let input = tensor(inputs, 0, "input")?;
    let shape = infer::expand(node, inputs)?;
    let count = budget(&shape)?;
    Ok(vec![Tensor::new(
        shape.clone(),
        input.data.take(&broadcast_map(&input.shape, &shape, count)),
    )])
}
