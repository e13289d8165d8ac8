//! Data movement: every op here is a gather of source indices, so it works on any element type.

use super::elementwise::{broadcast_map, maximum, minimum};
use crate::tensor::{strides, Data};

/// Calls `visit` with every multi-index of `shape` in row-major order.
fn for_each_index(shape: &[usize], mut visit: impl FnMut(&[usize])) {
    let count: usize = shape.iter().product();
    let mut index = vec![0usize; shape.len()];
    for _ in 0..count {
        visit(&index);
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

/// Result dimension `i` is input dimension `permutation[i]`.
pub fn transpose(data: &Data, shape: &[usize], permutation: &[usize]) -> Data {
    let in_strides = strides(shape);
    let out_shape: Vec<usize> = permutation.iter().map(|&p| shape[p]).collect();
    let mut indices = Vec::with_capacity(data.len());
    for_each_index(&out_shape, |index| {
        indices.push(
            index
                .iter()
                .zip(permutation)
                .map(|(&i, &p)| i * in_strides[p])
                .sum(),
        );
    });
    data.gather(&indices)
}

/// Joins `parts` (data and shape) along `axis`.
pub fn concat(parts: &[(&Data, &[usize])], axis: usize) -> Data {
    let outer: usize = parts[0].1[..axis].iter().product();
    let mut out = parts[0].0.empty_like();
    for o in 0..outer {
        for (data, shape) in parts {
            let block: usize = shape[axis..].iter().product();
            let indices: Vec<usize> = (o * block..(o + 1) * block).collect();
            out.extend(&data.gather(&indices));
        }
    }
    out
}

/// The window of `out_shape` elements starting at `starts` with `steps`.
pub fn slice(
    data: &Data,
    shape: &[usize],
    starts: &[usize],
    steps: &[usize],
    out_shape: &[usize],
) -> Data {
    let in_strides = strides(shape);
    let mut indices = Vec::with_capacity(out_shape.iter().product());
    for_each_index(out_shape, |index| {
        indices.push(
            (0..shape.len())
                .map(|d| (starts[d] + index[d] * steps[d]) * in_strides[d])
                .sum(),
        );
    });
    data.gather(&indices)
}

/// How `pad` fills the border.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode {
    /// With a constant.
    Constant(f32),
    /// Mirrored without repeating the edge: `[a b c]` padded by 2 gives `c b [a b c] b a`.
    Reflect,
    /// Repeating the edge.
    Edge,
}

/// Pads each dimension by `pads[d]` before and `pads[rank + d]` after (negative amounts crop).
pub fn pad(data: &Data, shape: &[usize], pads: &[i64], mode: PadMode, out_shape: &[usize]) -> Data {
    let rank = shape.len();
    let in_strides = strides(shape);
    let mut sources: Vec<Option<usize>> = Vec::with_capacity(out_shape.iter().product());
    for_each_index(out_shape, |index| {
        let mut flat = 0;
        for d in 0..rank {
            let position = index[d] as i64 - pads[d];
            let extent = shape[d] as i64;
            let source = if (0..extent).contains(&position) {
                position
            } else {
                match mode {
                    PadMode::Constant(_) => {
                        sources.push(None);
                        return;
                    }
                    PadMode::Edge => position.clamp(0, extent - 1),
                    PadMode::Reflect => {
                        if position < 0 {
                            -position
                        } else {
                            2 * (extent - 1) - position
                        }
                    }
                }
            };
            flat += source as usize * in_strides[d];
        }
        sources.push(Some(flat));
    });
    let fill = match mode {
        PadMode::Constant(value) => value,
        _ => 0.0,
    };
    match data {
        Data::F32(values) => Data::F32(
            sources
                .iter()
                .map(|s| s.map_or(fill, |i| values[i]))
                .collect(),
        ),
        Data::I64(values) => Data::I64(
            sources
                .iter()
                .map(|s| s.map_or(fill as i64, |i| values[i]))
                .collect(),
        ),
        Data::Bool(values) => Data::Bool(
            sources
                .iter()
                .map(|s| s.is_some_and(|i| values[i]))
                .collect(),
        ),
    }
}

/// ONNX Gather along `axis`; an index outside `[-size, size)` is an error naming it.
pub fn gather(data: &Data, shape: &[usize], indices: &[i64], axis: usize) -> Result<Data, String> {
    let outer: usize = shape[..axis].iter().product();
    let size = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut sources = Vec::with_capacity(outer * indices.len() * inner);
    for o in 0..outer {
        for &index in indices {
            let resolved = if index < 0 {
                index + size as i64
            } else {
                index
            };
            if !(0..size as i64).contains(&resolved) {
                return Err(format!(
                    "gather index {index} is out of range for a dimension of size {size}"
                ));
            }
            let start = (o * size + resolved as usize) * inner;
            sources.extend(start..start + inner);
        }
    }
    Ok(data.gather(&sources))
}

/// Numpy broadcast of `data` to `out_shape`.
pub fn broadcast(data: &Data, shape: &[usize], out_shape: &[usize]) -> Data {
    data.gather(&broadcast_map(shape, out_shape))
}

/// ONNX `GatherElements`: the element of `data` (of `shape`) at each position of `indices` (of
/// `index_shape`, the same rank) with the `axis` coordinate replaced by the index there; an index
/// out of range is an error naming it.
pub fn gather_elements(
    data: &Data,
    shape: &[usize],
    indices: &[i64],
    index_shape: &[usize],
    axis: usize,
) -> Result<Data, String> {
    let sources = element_positions(shape, indices, index_shape, axis, "gather_elements")?;
    Ok(data.gather(&sources))
}

/// How `scatter_elements` combines an update with the element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterReduction {
    /// The update replaces it.
    None,
    /// `element + update`.
    Add,
    /// `element * update`.
    Mul,
    /// The larger of the two.
    Max,
    /// The smaller of the two.
    Min,
}

/// ONNX `ScatterElements`: `data` (of `shape`) with each element of `updates` written at its
/// position in `indices` (of `index_shape`, the shape of `updates`) with the `axis` coordinate
/// replaced by the index there, in row-major order (the last of duplicates wins), or combined by
/// `reduction`; an index out of range is an error naming it.
pub fn scatter_elements(
    data: &Data,
    shape: &[usize],
    (indices, index_shape): (&[i64], &[usize]),
    updates: &Data,
    axis: usize,
    reduction: ScatterReduction,
) -> Result<Data, String> {
    let targets = element_positions(shape, indices, index_shape, axis, "scatter_elements")?;
    fn apply<T: Copy>(
        out: &mut [T],
        targets: &[usize],
        updates: &[T],
        combine: impl Fn(T, T) -> T,
    ) {
        for (&target, &update) in targets.iter().zip(updates) {
            out[target] = combine(out[target], update);
        }
    }
    let mut out = data.clone();
    match (&mut out, updates) {
        (Data::F32(out), Data::F32(updates)) => {
            apply(out, &targets, updates, |a, b| match reduction {
                ScatterReduction::None => b,
                ScatterReduction::Add => a + b,
                ScatterReduction::Mul => a * b,
                ScatterReduction::Max => maximum(a, b),
                ScatterReduction::Min => minimum(a, b),
            })
        }
        (Data::I64(out), Data::I64(updates)) => {
            apply(out, &targets, updates, |a, b| match reduction {
                ScatterReduction::None => b,
                ScatterReduction::Add => a.wrapping_add(b),
                ScatterReduction::Mul => a.wrapping_mul(b),
                ScatterReduction::Max => a.max(b),
                ScatterReduction::Min => a.min(b),
            })
        }
        (Data::Bool(out), Data::Bool(updates)) => apply(out, &targets, updates, |_, b| b),
        _ => unreachable!("the verifier ensures updates of the data's element type"),
    }
    Ok(out)
}

/// The position in `data` (of `shape`) of each element of `indices` (of `index_shape`, the same
/// rank): its own position with the `axis` coordinate replaced by the index (negative from the
/// end); an index out of range is an error naming `op` and the index.
fn element_positions(
    shape: &[usize],
    indices: &[i64],
    index_shape: &[usize],
    axis: usize,
    op: &str,
) -> Result<Vec<usize>, String> {
    let (strides, size) = (crate::tensor::strides(shape), shape[axis]);
    let mut position = vec![0usize; index_shape.len()];
    let mut targets = Vec::with_capacity(indices.len());
    for &index in indices {
        let resolved = if index < 0 {
            index + size as i64
        } else {
            index
        };
        if !(0..size as i64).contains(&resolved) {
            return Err(format!(
                "{op} index {index} is out of range for a dimension of size {size}"
            ));
        }
        let target: usize = (0..shape.len())
            .map(|d| {
                strides[d]
                    * if d == axis {
                        resolved as usize
                    } else {
                        position[d]
                    }
            })
            .sum();
        targets.push(target);
        for d in (0..index_shape.len()).rev() {
            position[d] += 1;
            if position[d] < index_shape[d] {
                break;
            }
            position[d] = 0;
        }
    }
    Ok(targets)
}
