//! Static shape inference: the result shape of every supported operator, from its operand shapes
//! and attributes, following the ONNX specification.
//!
//! These rules are shared by constant folding (which allocates the result they give) and by
//! lowering (which writes the result type into the IR, where the graph dialect's verifiers check
//! it again). Numbers from the model (attributes, constant shape operands) are untrusted: each is
//! checked before it takes part in arithmetic, so a hostile value is an error, never an overflow.
//! Errors are messages; the caller wraps them with the node's name.

use crate::types::{element_count, format_shape, MAX_ELEMENTS, MAX_RANK};

/// A shape rule's result: the shape, or why the operands and attributes do not make one.
pub type ShapeResult<T> = Result<T, String>;

/// Rejects a model number whose magnitude exceeds [`MAX_ELEMENTS`]: no real dimension, pad,
/// stride or index is that large, and the bound keeps products of two such numbers inside `i64`.
pub fn bounded(value: i64, what: &str) -> ShapeResult<i64> {
    if value.unsigned_abs() > MAX_ELEMENTS {
        return Err(format!("{what} {value} is out of range"));
    }
    Ok(value)
}

/// A dimension list from a constant shape operand (Reshape, Expand, ConstantOfShape): every
/// value non-negative and the product within [`MAX_ELEMENTS`].
pub fn static_dims(values: &[i64], what: &str) -> ShapeResult<Vec<usize>> {
    if element_count(values).is_none() {
        return Err(format!(
            "{what} {} is negative or too large to be real",
            format_shape(values)
        ));
    }
    Ok(values.iter().map(|&value| value as usize).collect())
}

/// `axis` in `[-rank, rank)` as a dimension index.
pub fn axis(axis: i64, rank: usize) -> ShapeResult<usize> {
    let rank_i = rank as i64;
    if axis < -rank_i || axis >= rank_i {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    Ok(if axis < 0 {
        (axis + rank_i) as usize
    } else {
        axis as usize
    })
}

/// A list of distinct axes in `[-rank, rank)` as sorted dimension indices.
pub fn axes(values: &[i64], rank: usize) -> ShapeResult<Vec<usize>> {
    let mut axes = values
        .iter()
        .map(|&value| axis(value, rank))
        .collect::<ShapeResult<Vec<_>>>()?;
    axes.sort_unstable();
    if axes.windows(2).any(|pair| pair[0] == pair[1]) {
        return Err(format!("axes {} repeat an axis", format_shape(values)));
    }
    Ok(axes)
}

/// The numpy (multidirectional) broadcast of two shapes.
pub fn broadcast(lhs: &[usize], rhs: &[usize]) -> ShapeResult<Vec<usize>> {
    let rank = lhs.len().max(rhs.len());
    let at = |shape: &[usize], index: usize| {
        (index + shape.len())
            .checked_sub(rank)
            .map_or(1, |position| shape[position])
    };
    (0..rank)
        .map(|index| match (at(lhs, index), at(rhs, index)) {
            (a, b) if a == b => Ok(a),
            (1, b) => Ok(b),
            (a, 1) => Ok(a),
            _ => Err(format!(
                "shapes {} and {} do not broadcast",
                format_shape(lhs),
                format_shape(rhs)
            )),
        })
        .collect()
}

/// The target of `Reshape`: `0` copies the input dimension (unless `allowzero`), one `-1` is
/// inferred.
pub fn reshape(input: &[usize], target: &[i64], allowzero: bool) -> ShapeResult<Vec<usize>> {
    let count: usize = input.iter().product();
    let mut inferred = None;
    let mut known: usize = 1;
    let mut shape = Vec::with_capacity(target.len());
    for (index, &value) in target.iter().enumerate() {
        let dim = match value {
            -1 if inferred.is_none() => {
                inferred = Some(index);
                shape.push(1);
                continue;
            }
            -1 => {
                return Err(format!(
                    "shape {} has more than one -1",
                    format_shape(target)
                ))
            }
            0 if !allowzero => *input.get(index).ok_or_else(|| {
                format!(
                    "shape {} copies dimension {index} that the input lacks",
                    format_shape(target)
                )
            })?,
            value if value >= 0 => bounded(value, "dimension")? as usize,
            value => {
                return Err(format!(
                    "shape {} has the negative dimension {value}",
                    format_shape(target)
                ))
            }
        };
        known = known
            .checked_mul(dim)
            .filter(|&known| known as u64 <= MAX_ELEMENTS)
            .ok_or_else(|| format!("shape {} is too large to be real", format_shape(target)))?;
        shape.push(dim);
    }
    if let Some(index) = inferred {
        if known == 0 || !count.is_multiple_of(known) {
            return Err(format!(
                "cannot infer the -1 of {}: {count} elements ({}) do not divide by {known}",
                format_shape(target),
                format_shape(input)
            ));
        }
        shape[index] = count / known;
    } else if known != count {
        return Err(format!(
            "cannot reshape {} ({count} elements) into {} ({known} elements)",
            format_shape(input),
            format_shape(target)
        ));
    }
    Ok(shape)
}

/// `Transpose`: result dimension `i` is input dimension `permutation[i]`.
pub fn transpose(input: &[usize], permutation: &[i64]) -> ShapeResult<Vec<usize>> {
    let mut seen = vec![false; input.len()];
    let valid = permutation.len() == input.len()
        && permutation.iter().all(|&dim| {
            usize::try_from(dim)
                .ok()
                .filter(|&dim| dim < input.len())
                .is_some_and(|dim| !std::mem::replace(&mut seen[dim], true))
        });
    if !valid {
        return Err(format!(
            "{} is not a permutation of the {} dimensions",
            format_shape(permutation),
            input.len()
        ));
    }
    Ok(permutation.iter().map(|&dim| input[dim as usize]).collect())
}

/// `Squeeze`: drops `axes` (which must be 1), or every 1 when `axes` is `None`.
pub fn squeeze(input: &[usize], axes_given: Option<&[i64]>) -> ShapeResult<Vec<usize>> {
    let dropped = match axes_given {
        None => (0..input.len()).filter(|&dim| input[dim] == 1).collect(),
        Some(values) => axes(values, input.len())?,
    };
    if let Some(&dim) = dropped.iter().find(|&&dim| input[dim] != 1) {
        return Err(format!(
            "cannot squeeze dimension {dim} of {}: it is not 1",
            format_shape(input)
        ));
    }
    Ok(input
        .iter()
        .enumerate()
        .filter(|(dim, _)| !dropped.contains(dim))
        .map(|(_, &size)| size)
        .collect())
}

/// `Unsqueeze`: inserts 1s at `axes`, which index the result.
pub fn unsqueeze(input: &[usize], axes_given: &[i64]) -> ShapeResult<Vec<usize>> {
    let rank = input.len() + axes_given.len();
    if rank > MAX_RANK {
        return Err(format!(
            "the result would have {rank} dimensions, more than {MAX_RANK}"
        ));
    }
    let inserted = axes(axes_given, rank)?;
    let mut rest = input.iter();
    Ok((0..rank)
        .map(|dim| {
            if inserted.contains(&dim) {
                1
            } else {
                *rest.next().unwrap_or(&1)
            }
        })
        .collect())
}

/// `Flatten` at `axis` in `[-rank, rank]`: `[prod(shape[:axis]), prod(shape[axis:])]`.
pub fn flatten(input: &[usize], axis_given: i64) -> ShapeResult<(usize, Vec<usize>)> {
    let rank = input.len() as i64;
    if axis_given < -rank || axis_given > rank {
        return Err(format!("axis {axis_given} is out of range for rank {rank}"));
    }
    let axis = if axis_given < 0 {
        axis_given + rank
    } else {
        axis_given
    } as usize;
    Ok((
        axis,
        vec![
            input[..axis].iter().product(),
            input[axis..].iter().product(),
        ],
    ))
}

/// `Concat` along `axis`: the operands agree off the axis and their sizes along it add up.
pub fn concat(inputs: &[&[usize]], axis_given: i64) -> ShapeResult<(usize, Vec<usize>)> {
    let first = inputs.first().ok_or("no operands")?;
    let axis = axis(axis_given, first.len())?;
    let mut shape = first.to_vec();
    for input in &inputs[1..] {
        let agrees = input.len() == first.len()
            && (0..first.len()).all(|dim| dim == axis || input[dim] == first[dim]);
        if !agrees {
            return Err(format!(
                "operand shapes {} and {} differ off axis {axis}",
                format_shape(first),
                format_shape(input)
            ));
        }
        shape[axis] += input[axis];
    }
    Ok((axis, shape))
}

/// `Split` along `axis` into pieces of `sizes` (which must add up to the dimension).
pub fn split(input: &[usize], axis: usize, sizes: &[usize]) -> ShapeResult<Vec<Vec<usize>>> {
    if sizes
        .iter()
        .try_fold(0usize, |total, &size| total.checked_add(size))
        != Some(input[axis])
    {
        return Err(format!(
            "split sizes {} do not add up to dimension {axis} of {}",
            format_shape(sizes),
            format_shape(input)
        ));
    }
    Ok(sizes
        .iter()
        .map(|&size| {
            let mut shape = input.to_vec();
            shape[axis] = size;
            shape
        })
        .collect())
}

/// `Gather`: `data[:axis] + indices + data[axis + 1:]`.
pub fn gather(data: &[usize], indices: &[usize], axis: usize) -> Vec<usize> {
    [&data[..axis], indices, &data[axis + 1..]].concat()
}

/// A slice window resolved to what `graph.slice` takes: a non-negative start, a positive step and
/// a size per dimension.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceWindow {
    /// First index read per dimension.
    pub starts: Vec<usize>,
    /// Distance between indices read per dimension.
    pub steps: Vec<usize>,
    /// Elements read per dimension (the result shape).
    pub shape: Vec<usize>,
}

/// `Slice` with positive steps: negative starts and ends count from the end, and both are clamped
/// to the dimension, as ONNX says. The caller rejects negative steps (unsupported) first.
pub fn slice(
    input: &[usize],
    starts: &[i64],
    ends: &[i64],
    axes_given: Option<&[i64]>,
    steps: Option<&[i64]>,
) -> ShapeResult<SliceWindow> {
    let count = starts.len();
    let default_axes: Vec<i64> = (0..count as i64).collect();
    let axes_given = axes_given.unwrap_or(&default_axes);
    let ones = vec![1; count];
    let steps = steps.unwrap_or(&ones);
    if ends.len() != count || axes_given.len() != count || steps.len() != count {
        return Err(format!(
            "starts, ends, axes and steps have {count}, {}, {} and {} values",
            ends.len(),
            axes_given.len(),
            steps.len()
        ));
    }
    let mut window = SliceWindow {
        starts: vec![0; input.len()],
        steps: vec![1; input.len()],
        shape: input.to_vec(),
    };
    let mut seen = vec![false; input.len()];
    for index in 0..count {
        let dim = axis(axes_given[index], input.len())?;
        if std::mem::replace(&mut seen[dim], true) {
            return Err(format!("axis {dim} is sliced twice"));
        }
        if steps[index] < 1 {
            return Err(format!(
                "step {} of axis {dim} is not positive",
                steps[index]
            ));
        }
        let size = input[dim] as i64;
        // A step past the dimension reads at most one element, like a step of the dimension.
        let step = steps[index].min(size.max(1));
        let clamp = |value: i64| {
            if value < 0 {
                (value.saturating_add(size)).max(0)
            } else {
                value.min(size)
            }
        };
        let (start, end) = (clamp(starts[index]), clamp(ends[index]));
        let length = if end > start {
            (end - start + step - 1) / step
        } else {
            0
        };
        // A window of no element starts at 0 so that graph.slice's start stays in range.
        window.starts[dim] = if length == 0 { 0 } else { start as usize };
        window.steps[dim] = step as usize;
        window.shape[dim] = length as usize;
    }
    Ok(window)
}

/// A reduction over `axes` (all axes when empty): the sorted axes and the result shape.
pub fn reduce(
    input: &[usize],
    axes_given: &[i64],
    keepdims: bool,
) -> ShapeResult<(Vec<usize>, Vec<usize>)> {
    // onnxruntime reduces a repeated axis once (the specification does not forbid repeating one).
    let mut reduced = if axes_given.is_empty() {
        (0..input.len()).collect()
    } else {
        axes_given
            .iter()
            .map(|&value| axis(value, input.len()))
            .collect::<ShapeResult<Vec<_>>>()?
    };
    reduced.sort_unstable();
    reduced.dedup();
    let shape = input
        .iter()
        .enumerate()
        .filter_map(|(dim, &size)| match reduced.contains(&dim) {
            false => Some(size),
            true if keepdims => Some(1),
            true => None,
        })
        .collect();
    Ok((reduced, shape))
}

/// `Pad`: `pads` holds the amounts before each dimension, then after each; negative amounts crop.
pub fn pad(input: &[usize], pads: &[i64]) -> ShapeResult<Vec<usize>> {
    let rank = input.len();
    if pads.len() != 2 * rank {
        return Err(format!(
            "expects {} pad amounts for rank {rank}, got {}",
            2 * rank,
            pads.len()
        ));
    }
    (0..rank)
        .map(|dim| {
            let size =
                input[dim] as i64 + bounded(pads[dim], "pad")? + bounded(pads[rank + dim], "pad")?;
            usize::try_from(size).map_err(|_| {
                format!(
                    "pads {} remove more than dimension {dim} holds",
                    format_shape(pads)
                )
            })
        })
        .collect()
}

/// `MatMul` (numpy semantics): 1-D operands are promoted to matrices and the promoted dimension
/// dropped from the result; batch dimensions broadcast.
pub fn matmul(lhs: &[usize], rhs: &[usize]) -> ShapeResult<Vec<usize>> {
    if lhs.is_empty() || rhs.is_empty() {
        return Err("MatMul operands must have rank at least 1".into());
    }
    let lhs_matrix: Vec<usize> = if lhs.len() == 1 {
        vec![1, lhs[0]]
    } else {
        lhs.to_vec()
    };
    let rhs_matrix: Vec<usize> = if rhs.len() == 1 {
        vec![rhs[0], 1]
    } else {
        rhs.to_vec()
    };
    let (lhs_batch, lhs_mk) = lhs_matrix.split_at(lhs_matrix.len() - 2);
    let (rhs_batch, rhs_kn) = rhs_matrix.split_at(rhs_matrix.len() - 2);
    if lhs_mk[1] != rhs_kn[0] {
        return Err(format!(
            "inner dimensions differ: {} x {}",
            format_shape(lhs),
            format_shape(rhs)
        ));
    }
    let mut shape = broadcast(lhs_batch, rhs_batch)?;
    if lhs.len() > 1 {
        shape.push(lhs_mk[0]);
    }
    if rhs.len() > 1 {
        shape.push(rhs_kn[1]);
    }
    Ok(shape)
}

/// The padding of one spatial dimension that `auto_pad` asks for, as `(begin, end)`:
/// `SAME_UPPER` puts the odd amount at the end, `SAME_LOWER` at the beginning, `VALID` pads
/// nothing. `NOTSET` is handled by the caller (explicit pads).
pub fn auto_pad(
    mode: &str,
    input: usize,
    kernel: i64,
    stride: i64,
    dilation: i64,
) -> ShapeResult<(i64, i64)> {
    let input = input as i64;
    match mode {
        "VALID" => Ok((0, 0)),
        "SAME_UPPER" | "SAME_LOWER" => {
            let output = (input + stride - 1) / stride;
            let total = ((output - 1) * stride + (kernel - 1) * dilation + 1 - input).max(0);
            let (small, large) = (total / 2, total - total / 2);
            Ok(if mode == "SAME_UPPER" {
                (small, large)
            } else {
                (large, small)
            })
        }
        other => Err(format!("unknown auto_pad '{other}'")),
    }
}

/// The output size of a sliding window along one dimension (the graph dialect's rule: with
/// `ceil_mode`, a last window that would start in the end padding is dropped).
pub fn window(
    input: usize,
    pad_begin: i64,
    pad_end: i64,
    kernel: i64,
    stride: i64,
    dilation: i64,
    ceil_mode: bool,
) -> ShapeResult<usize> {
    let input = input as i64;
    let span = dilation * (kernel - 1) + 1;
    let padded = input + pad_begin + pad_end;
    if padded < span {
        return Err(format!(
            "a window of {kernel} (dilation {dilation}) larger than the padded size {padded} \
             (an empty result) is not supported"
        ));
    }
    let steps = padded - span;
    let mut output = if ceil_mode {
        (steps + stride - 1) / stride
    } else {
        steps / stride
    } + 1;
    if ceil_mode && (output - 1) * stride >= input + pad_begin {
        output -= 1;
    }
    Ok(output as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_follows_numpy() {
        assert_eq!(broadcast(&[1, 3, 1], &[4]).unwrap(), vec![1, 3, 4]);
        assert_eq!(broadcast(&[2, 1, 5], &[3, 1]).unwrap(), vec![2, 3, 5]);
        assert_eq!(broadcast(&[], &[2]).unwrap(), vec![2]);
        assert!(broadcast(&[3], &[4]).is_err());
    }

    #[test]
    fn reshape_copies_zeros_and_infers_minus_one() {
        assert_eq!(
            reshape(&[1, 128, 768], &[0, 0, 12, 64], false).unwrap(),
            vec![1, 128, 12, 64]
        );
        assert_eq!(reshape(&[2, 3, 4], &[-1, 4], false).unwrap(), vec![6, 4]);
        assert_eq!(
            reshape(&[0, 4], &[0, -1], true).unwrap_err(),
            "cannot infer the -1 of [0, -1]: 0 elements ([0, 4]) do not divide by 0"
        );
        assert!(reshape(&[6], &[-1, -1], false).is_err());
        assert!(reshape(&[6], &[4], false).is_err());
        assert!(reshape(&[6], &[i64::MAX, 2], false).is_err());
    }

    #[test]
    fn slice_resolves_negative_and_clamped_bounds() {
        let window = slice(&[10, 8], &[-3, 0], &[i64::MAX, -1], None, Some(&[1, 2])).unwrap();
        assert_eq!(
            window,
            SliceWindow {
                starts: vec![7, 0],
                steps: vec![1, 2],
                shape: vec![3, 4]
            }
        );
        let empty = slice(&[4], &[5], &[9], Some(&[-1]), None).unwrap();
        assert_eq!(empty.shape, vec![0]);
        assert_eq!(empty.starts, vec![0]);
        assert!(slice(&[4], &[0], &[4], Some(&[0]), Some(&[0])).is_err());
    }

    #[test]
    fn squeeze_unsqueeze_flatten() {
        assert_eq!(squeeze(&[1, 3, 1, 2], None).unwrap(), vec![3, 2]);
        assert_eq!(squeeze(&[1, 3, 1, 2], Some(&[-2])).unwrap(), vec![1, 3, 2]);
        assert!(squeeze(&[1, 3], Some(&[1])).is_err());
        assert_eq!(unsqueeze(&[3, 4], &[0, -1]).unwrap(), vec![1, 3, 4, 1]);
        assert_eq!(flatten(&[2, 3, 4], -1).unwrap().1, vec![6, 4]);
        assert_eq!(flatten(&[2, 3, 4], 3).unwrap().1, vec![24, 1]);
    }

    #[test]
    fn matmul_promotes_vectors() {
        assert_eq!(matmul(&[4], &[4]).unwrap(), Vec::<usize>::new());
        assert_eq!(matmul(&[4], &[2, 4, 5]).unwrap(), vec![2, 5]);
        assert_eq!(matmul(&[2, 3, 4], &[4]).unwrap(), vec![2, 3]);
        assert_eq!(
            matmul(&[1, 12, 128, 64], &[64, 128]).unwrap(),
            vec![1, 12, 128, 128]
        );
        assert!(matmul(&[2, 3], &[4, 5]).is_err());
    }

    #[test]
    fn same_padding_and_windows() {
        assert_eq!(auto_pad("SAME_UPPER", 224, 7, 2, 1).unwrap(), (2, 3));
        assert_eq!(auto_pad("SAME_LOWER", 224, 7, 2, 1).unwrap(), (3, 2));
        assert_eq!(window(224, 3, 3, 7, 2, 1, false).unwrap(), 112);
        // SqueezeNet's ceil-mode max pool: 111 -> 55.
        assert_eq!(window(111, 0, 0, 3, 2, 1, true).unwrap(), 55);
        assert_eq!(window(112, 0, 0, 3, 2, 1, true).unwrap(), 56);
    }
}
