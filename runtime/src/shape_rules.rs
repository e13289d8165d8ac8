//! The shape rules of the instruction set: what [`Instr::check_shapes`] accepts, with the
//! output-size arithmetic of windows and numpy broadcasting it rests on. Split from
//! [`crate::instr`], which says what each instruction means and costs.

use crate::instr::{Conv2dParams, Instr, Pool2dParams, UnaryOp};
use crate::view::View;

impl Instr {
    /// Checks the shape rules between operands and the scalar parameters (not buffers: the
    /// device checks those); the error is the message, without the instruction's name.
    pub fn check_shapes(&self) -> Result<(), String> {
        match self {
            Instr::Dma { src, dst } => check_dma(src, dst),
            Instr::Matmul { a, b, c, .. } => check_matmul(a, b, c),
            Instr::Conv2d {
                input,
                filter,
                output,
                params,
                ..
            } => check_conv2d(input, filter, output, params),
            Instr::Binary { a, b, out, .. } => check_binary(a, b, out),
            Instr::Unary { op, input, out } => check_unary(op, input, out),
            Instr::Pool2d {
                input, out, params, ..
            } => check_pool2d(input, out, params),
            Instr::Reduce {
                axis, input, out, ..
            } => check_reduce(*axis, input, out),
            Instr::Convert { input, out } => check_dma(input, out),
            Instr::ArgReduce {
                axis, input, out, ..
            } => check_reduce(*axis, input, out),
            Instr::TopK {
                axis,
                input,
                values,
                indices,
                ..
            } => check_top_k(*axis, input, values, indices),
            Instr::Compare { a, b, out, .. } => check_same_shapes(&[("a", a), ("b", b)], out),
            Instr::Select { cond, a, b, out } => {
                check_same_shapes(&[("cond", cond), ("a", a), ("b", b)], out)
            }
            Instr::Gather {
                axis,
                table,
                indices,
                out,
            } => check_gather(*axis, table, indices, out),
            Instr::GatherElements {
                axis,
                data,
                indices,
                out,
            } => check_gather_elements(*axis, data, indices, out),
            Instr::ScatterElements {
                axis,
                indices,
                updates,
                out,
                ..
            } => check_scatter_elements(*axis, indices, updates, out),
            Instr::Wait | Instr::Barrier => Ok(()),
        }
    }
}

/// Inputs of the output's shape.
fn check_same_shapes(inputs: &[(&str, &View)], out: &View) -> Result<(), String> {
    match inputs.iter().find(|(_, input)| input.shape != out.shape) {
        Some((name, input)) => Err(format!(
            "{name} shape {:?} differs from out shape {:?}",
            input.shape, out.shape
        )),
        None => Ok(()),
    }
}

/// A gather of elements writes the indices' shape, which is the data's but along `axis`.
fn check_gather_elements(
    axis: usize,
    data: &View,
    indices: &View,
    out: &View,
) -> Result<(), String> {
    if axis >= data.shape.len() {
        return Err(format!(
            "axis {axis} is not a dimension of the rank-{} data",
            data.shape.len()
        ));
    }
    let mut expected = data.shape;
    expected[axis] = out.shape.get(axis).copied().unwrap_or(0);
    if indices.shape != out.shape || out.shape != expected {
        return Err(format!(
            "indices {:?} and out {:?} must have the data's shape {:?} but along axis {axis}",
            indices.shape, out.shape, data.shape
        ));
    }
    Ok(())
}

/// A scatter of elements writes updates of the indices' shape into an output of that shape but
/// along `axis`.
fn check_scatter_elements(
    axis: usize,
    indices: &View,
    updates: &View,
    out: &View,
) -> Result<(), String> {
    if axis >= out.shape.len() {
        return Err(format!(
            "axis {axis} is not a dimension of the rank-{} out",
            out.shape.len()
        ));
    }
    let mut expected = indices.shape;
    expected[axis] = out.shape[axis];
    if updates.shape != indices.shape || out.shape != expected {
        return Err(format!(
            "updates {:?} and out {:?} must have the indices' shape {:?}, out but along axis \
             {axis}",
            updates.shape, out.shape, indices.shape
        ));
    }
    Ok(())
}

/// A gather replaces the extent at `axis` of the table by the number of indices.
fn check_gather(axis: usize, table: &View, indices: &View, out: &View) -> Result<(), String> {
    if axis >= table.shape.len() {
        return Err(format!(
            "axis {axis} is not a dimension of the rank-{} table",
            table.shape.len()
        ));
    }
    let mut expected = table.shape;
    expected[axis] = indices.len();
    if out.shape != expected {
        return Err(format!(
            "out shape {:?} is not the table shape {:?} with {} indices at axis {axis}",
            out.shape,
            table.shape,
            indices.len()
        ));
    }
    Ok(())
}

/// A copy keeps the shape.
fn check_dma(src: &View, dst: &View) -> Result<(), String> {
    if src.shape != dst.shape {
        return Err(format!(
            "src shape {:?} differs from dst shape {:?}",
            src.shape, dst.shape
        ));
    }
    Ok(())
}

/// A matrix product takes [M, K] and [K, N] into [M, N].
fn check_matmul(a: &View, b: &View, c: &View) -> Result<(), String> {
    if a.shape.len() != 2 || b.shape.len() != 2 || c.shape.len() != 2 {
        return Err("a, b and c must be rank 2".into());
    }
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    if b.shape[0] != k || c.shape != [m, n] {
        return Err(format!(
            "shapes a {:?}, b {:?}, c {:?} do not form [M,K]x[K,N]->[M,N]",
            a.shape, b.shape, c.shape
        ));
    }
    Ok(())
}

/// A grouped, strided, padded and dilated convolution of NCHW by OIHW into NCHW.
fn check_conv2d(
    input: &View,
    filter: &View,
    output: &View,
    p: &Conv2dParams,
) -> Result<(), String> {
    if input.shape.len() != 4 || filter.shape.len() != 4 || output.shape.len() != 4 {
        return Err("input, filter and output must be rank 4 (NCHW, OIHW, NCHW)".into());
    }
    if p.groups == 0 || p.stride.contains(&0) || p.dilation.contains(&0) {
        return Err("groups, strides and dilations must be at least 1".into());
    }
    let (n, c, h, w) = (
        input.shape[0],
        input.shape[1],
        input.shape[2],
        input.shape[3],
    );
    let (o, ci, kh, kw) = (
        filter.shape[0],
        filter.shape[1],
        filter.shape[2],
        filter.shape[3],
    );
    if c % p.groups != 0 || o % p.groups != 0 || ci != c / p.groups {
        return Err(format!(
            "input channels {c}, filter {:?} and groups {} do not match \
             (C and O divisible by groups, filter dim 1 = C/groups)",
            filter.shape, p.groups
        ));
    }
    let oh = window_count(h, [p.pad[0], p.pad[2]], kh, p.dilation[0], p.stride[0]);
    let ow = window_count(w, [p.pad[1], p.pad[3]], kw, p.dilation[1], p.stride[1]);
    match (oh, ow) {
        (Some(oh), Some(ow)) if output.shape == [n, o, oh, ow] => Ok(()),
        (Some(oh), Some(ow)) => Err(format!(
            "output shape {:?} should be {:?}",
            output.shape,
            [n, o, oh, ow]
        )),
        _ => {
            Err("the dilated filter is larger than the padded input (or its size overflows)".into())
        }
    }
}

/// An elementwise binary operation writes the numpy broadcast of its operands' shapes.
fn check_binary(a: &View, b: &View, out: &View) -> Result<(), String> {
    match broadcast_shape(&a.shape, &b.shape) {
        Some(s) if *s == *out.shape => Ok(()),
        Some(s) => Err(format!(
            "out shape {:?} should be the broadcast shape {s:?}",
            out.shape
        )),
        None => Err(format!(
            "shapes {:?} and {:?} do not broadcast",
            a.shape, b.shape
        )),
    }
}

/// An elementwise unary operation keeps the shape; a clip's upper bound is not below its lower
/// one (a NaN bound is allowed: it clips nothing).
fn check_unary(op: &UnaryOp, input: &View, out: &View) -> Result<(), String> {
    if input.shape != out.shape {
        return Err(format!(
            "input shape {:?} differs from out shape {:?}",
            input.shape, out.shape
        ));
    }
    if let UnaryOp::Clip { min, max } = op {
        if min > max {
            return Err(format!("clip bounds [{min}, {max}] are not an interval"));
        }
    }
    Ok(())
}

/// A strided, padded pooling window over NCHW, each pad smaller than the kernel.
fn check_pool2d(input: &View, out: &View, p: &Pool2dParams) -> Result<(), String> {
    if input.shape.len() != 4 || out.shape.len() != 4 {
        return Err("input and out must be rank 4 (NCHW)".into());
    }
    if p.kernel.contains(&0) || p.stride.contains(&0) {
        return Err("kernel and stride must be at least 1".into());
    }
    if p.pad[0] >= p.kernel[0]
        || p.pad[2] >= p.kernel[0]
        || p.pad[1] >= p.kernel[1]
        || p.pad[3] >= p.kernel[1]
    {
        return Err(format!(
            "pads {:?} must be smaller than the kernel {:?}",
            p.pad, p.kernel
        ));
    }
    let s = &input.shape;
    let oh = window_count(s[2], [p.pad[0], p.pad[2]], p.kernel[0], 1, p.stride[0]);
    let ow = window_count(s[3], [p.pad[1], p.pad[3]], p.kernel[1], 1, p.stride[1]);
    match (oh, ow) {
        (Some(oh), Some(ow)) if out.shape == [s[0], s[1], oh, ow] => Ok(()),
        (Some(oh), Some(ow)) => Err(format!(
            "out shape {:?} should be {:?}",
            out.shape,
            [s[0], s[1], oh, ow]
        )),
        _ => Err("the window is larger than the padded input".into()),
    }
}

/// A reduction along `axis` keeps that dimension with size 1.
fn check_reduce(axis: usize, input: &View, out: &View) -> Result<(), String> {
    if axis >= input.shape.len() {
        return Err(format!(
            "axis {axis} is out of range for rank {}",
            input.shape.len()
        ));
    }
    let mut expect = input.shape;
    expect[axis] = 1;
    if out.shape != expect {
        return Err(format!(
            "out shape {:?} should be {expect:?} (keepdims)",
            out.shape
        ));
    }
    Ok(())
}

/// A top-k writes values and indices of one shape: the input's, with at most its extent at
/// `axis`.
fn check_top_k(axis: usize, input: &View, values: &View, indices: &View) -> Result<(), String> {
    if axis >= input.shape.len() {
        return Err(format!(
            "axis {axis} is out of range for rank {}",
            input.shape.len()
        ));
    }
    if indices.shape != values.shape {
        return Err(format!(
            "indices shape {:?} differs from values shape {:?}",
            indices.shape, values.shape
        ));
    }
    let k = values.shape.get(axis).copied().unwrap_or(0);
    let mut expect = input.shape;
    expect[axis] = k;
    if values.shape != expect || k > input.shape[axis] {
        return Err(format!(
            "values shape {:?} should be the input's {:?} with at most {} at axis {axis}",
            values.shape, input.shape, input.shape[axis]
        ));
    }
    Ok(())
}

/// Number of positions of a `kernel`-tap window with the given dilation, moved by `stride`
/// over `size` elements padded by `pads` (before, after): floor rounding, as ONNX. `None`
/// when no window fits or a size overflows. `kernel` and `stride` are at least 1.
pub(crate) fn window_count(
    size: u64,
    pads: [u64; 2],
    kernel: u64,
    dilation: u64,
    stride: u64,
) -> Option<u64> {
    let padded = size.checked_add(pads[0])?.checked_add(pads[1])?;
    let window = dilation.checked_mul(kernel - 1)?.checked_add(1)?;
    (padded >= window).then(|| (padded - window) / stride + 1)
}

/// The numpy broadcast of two shapes, if they are compatible.
pub fn broadcast_shape(a: &[u64], b: &[u64]) -> Option<Vec<u64>> {
    let rank = a.len().max(b.len());
    let at = |s: &[u64], d: usize| {
        let lead = rank - s.len();
        if d < lead {
            1
        } else {
            s[d - lead]
        }
    };
    (0..rank)
        .map(|d| match (at(a, d), at(b, d)) {
            (x, y) if x == y => Some(x),
            (1, y) => Some(y),
            (x, 1) => Some(x),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_follows_numpy() {
        assert_eq!(broadcast_shape(&[2, 1, 4], &[3, 1]), Some(vec![2, 3, 4]));
        assert_eq!(broadcast_shape(&[4], &[2, 4]), Some(vec![2, 4]));
        assert_eq!(broadcast_shape(&[3], &[4]), None);
    }

    #[test]
    fn output_sizes_use_floor_rounding() {
        assert_eq!(window_count(7, [1, 1], 3, 1, 2), Some(4));
        assert_eq!(window_count(224, [3, 3], 7, 1, 2), Some(112));
        assert_eq!(window_count(10, [2, 2], 3, 2, 1), Some(10));
        assert_eq!(window_count(2, [0, 0], 3, 1, 1), None);
        assert_eq!(window_count(2, [u64::MAX, 1], 3, 1, 1), None);
    }
}
