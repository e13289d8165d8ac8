//! Result shapes of `graph` ops from their operand shapes and attributes: what a rule's target
//! needs to build ops for a match's sizes. The formulas are the dialect's verifiers' (the ops
//! are verified after every pass, so a wrong inference cannot go unnoticed); an op whose result
//! shape is not a function of its operands (reshape, split, slice, broadcast, resize) takes it
//! from the rule (`rule.shape`) or from the value the target returns.

use mlir_sys::*;
use turbine_dialects::ops::graph;

/// The attributes an op is being built with.
pub struct Attributes<'a>(pub &'a [(String, MlirAttribute)]);

impl Attributes<'_> {
    fn get(&self, name: &str) -> Option<MlirAttribute> {
        self.0
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| *value)
    }

    fn ints(&self, name: &str, default: &[i64]) -> Result<Vec<i64>, String> {
        let Some(attribute) = self.get(name) else {
            return Ok(default.to_vec());
        };
        // SAFETY: a live attribute; the kind is checked before the elements are read.
        unsafe {
            if !mlirAttributeIsADenseI64Array(attribute) {
                return Err(format!("'{name}' is not an array<i64>"));
            }
            Ok((0..mlirDenseArrayGetNumElements(attribute))
                .map(|i| mlirDenseI64ArrayGetElement(attribute, i))
                .collect())
        }
    }

    fn int(&self, name: &str, default: i64) -> Result<i64, String> {
        let Some(attribute) = self.get(name) else {
            return Ok(default);
        };
        // SAFETY: as above.
        unsafe {
            if !mlirAttributeIsAInteger(attribute) {
                return Err(format!("'{name}' is not an integer"));
            }
            Ok(mlirIntegerAttrGetValueInt(attribute))
        }
    }

    fn flag(&self, name: &str) -> bool {
        // SAFETY: as above.
        self.get(name).is_some_and(|attribute| unsafe {
            mlirAttributeIsABool(attribute) && mlirBoolAttrGetValue(attribute)
        })
    }
}

/// The operand shapes of an op of kind `kind`, for error messages that name the op.
struct Operands<'a> {
    kind: graph::Kind,
    shapes: &'a [Vec<i64>],
}

impl Operands<'_> {
    /// The shape of operand `index`, or the error that the op lacks it.
    fn get(&self, index: usize) -> Result<Vec<i64>, String> {
        self.shapes
            .get(index)
            .cloned()
            .ok_or_else(|| format!("'{}' lacks operand {index}", self.kind))
    }
}

/// The result shapes of a `kind` op applied to operands of `shapes` with `attributes`, None when
/// the shape is not a function of them.
pub fn result_shapes(
    kind: graph::Kind,
    shapes: &[Vec<i64>],
    attributes: &Attributes,
) -> Result<Option<Vec<Vec<i64>>>, String> {
    use graph::Kind as K;
    let operands = Operands { kind, shapes };
    let operand = |index: usize| operands.get(index);
    let one = |shape: Vec<i64>| Ok(Some(vec![shape]));
    match kind {
        K::Relu
        | K::Sigmoid
        | K::Tanh
        | K::Silu
        | K::Exp
        | K::Log
        | K::Neg
        | K::Abs
        | K::Reciprocal
        | K::Sqrt
        | K::Erf
        | K::Gelu
        | K::Clip
        | K::Softmax
        | K::Lrn
        | K::BatchNorm
        | K::LayerNorm
        | K::Cast => one(operand(0)?),
        K::Add | K::Sub | K::Mul | K::Div | K::Pow | K::Max | K::Min | K::Mod | K::Compare => {
            one(broadcast(&[operand(0)?, operand(1)?])?)
        }
        K::Where => one(broadcast(&[operand(0)?, operand(1)?, operand(2)?])?),
        K::Conv2d => one(conv2d(&operand(0)?, &operand(1)?, attributes)?),
        K::MaxPool2d | K::AvgPool2d => one(pool2d(&operand(0)?, attributes)?),
        K::GlobalAvgPool => {
            let input = operand(0)?;
            one(input
                .iter()
                .enumerate()
                .map(|(d, &size)| if d < 2 { size } else { 1 })
                .collect())
        }
        K::Matmul => {
            let (a, b) = (operand(0)?, operand(1)?);
            if a.len() != 2 || b.len() != 2 || a[1] != b[0] {
                return Err(format!("matmul of {a:?} and {b:?}"));
            }
            one(vec![a[0], b[1]])
        }
        K::BatchMatmul => one(batch_matmul(&operand(0)?, &operand(1)?)?),
        K::Gemm => one(gemm(&operand(0)?, &operand(1)?, attributes)?),
        K::Transpose => one(transpose(&operand(0)?, attributes)?),
        K::Concat => one(concat(&operands, attributes)?),
        K::Pad => one(pad(&operand(0)?, attributes)?),
        K::Flatten => {
            let input = operand(0)?;
            let axis = axis(attributes.int("axis", 1)?, input.len() + 1)?;
            one(vec![
                input[..axis].iter().product(),
                input[axis..].iter().product(),
            ])
        }
        K::ReduceSum | K::ReduceMean | K::ReduceMax | K::ReduceProd => {
            one(reduce(&operand(0)?, attributes)?)
        }
        K::ArgMax | K::ArgMin => {
            let input = operand(0)?;
            let along = axis(attributes.int("axis", 0)?, input.len())?;
            let keep = attributes.get("keepdims").is_none() || attributes.flag("keepdims");
            one(input
                .iter()
                .enumerate()
                .filter_map(|(d, &size)| match (d == along, keep) {
                    (false, _) => Some(size),
                    (true, true) => Some(1),
                    (true, false) => None,
                })
                .collect())
        }
        K::GatherElements => one(operand(1)?),
        K::ScatterElements => one(operand(0)?),
        K::Gather => {
            let (data, indices) = (operand(0)?, operand(1)?);
            let axis = axis(attributes.int("axis", 0)?, data.len())?;
            one(data[..axis]
                .iter()
                .chain(&indices)
                .chain(&data[axis + 1..])
                .copied()
                .collect())
        }
        // Shapes given by attributes or by operand values, several results, regions.
        K::Constant
        | K::Weight
        | K::Reshape
        | K::Split
        | K::TopK
        | K::Quantize
        | K::Dequantize
        | K::Requantize
        | K::MatmulInteger
        | K::ConvInteger
        | K::Slice
        | K::Resize
        | K::Broadcast
        | K::Yield
        | K::If
        | K::Loop => Ok(None),
    }
}

/// `graph.gemm` of `a` and `b`, each transposed when its flag says so: the rows of `a` by the
/// columns of `b`, or the error that the inner sizes differ.
fn gemm(a: &[i64], b: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let (a, b) = (
        if attributes.flag("trans_a") {
            [a[1], a[0]]
        } else {
            [a[0], a[1]]
        },
        if attributes.flag("trans_b") {
            [b[1], b[0]]
        } else {
            [b[0], b[1]]
        },
    );
    if a[1] != b[0] {
        return Err(format!("gemm of {a:?} and {b:?}"));
    }
    Ok(vec![a[0], b[1]])
}

/// `graph.transpose` of `input`: its sizes in the order of `permutation`, or the error that the
/// permutation does not fit the rank.
fn transpose(input: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let permutation = attributes.ints("permutation", &[])?;
    let shape: Option<Vec<i64>> = permutation
        .iter()
        .map(|&d| usize::try_from(d).ok().and_then(|d| input.get(d).copied()))
        .collect();
    match shape {
        Some(shape) if shape.len() == input.len() => Ok(shape),
        _ => Err(format!(
            "permutation {permutation:?} of a rank-{} tensor",
            input.len()
        )),
    }
}

/// `graph.concat`: the first operand's shape with the operands' sizes along the axis summed.
fn concat(operands: &Operands, attributes: &Attributes) -> Result<Vec<i64>, String> {
    let shapes = operands.shapes;
    let axis = axis(
        attributes.int("axis", 0)?,
        shapes.first().map_or(0, Vec::len),
    )?;
    let mut shape = operands.get(0)?;
    shape[axis] = shapes
        .iter()
        .map(|shape| shape.get(axis).copied().unwrap_or(0))
        .sum();
    Ok(shape)
}

/// `graph.pad` of `input`: every size grown by its padding before and after, or the error that
/// the pads do not fit the rank.
fn pad(input: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let pads = attributes.ints("pads", &[])?;
    if pads.len() != 2 * input.len() {
        return Err(format!(
            "{} pads for a rank-{} tensor",
            pads.len(),
            input.len()
        ));
    }
    Ok(input
        .iter()
        .enumerate()
        .map(|(d, size)| size + pads[d] + pads[d + input.len()])
        .collect())
}

/// Reductions of `input` over `axes` (all when empty): the reduced sizes 1 when `keepdims`
/// (the default) holds, dropped otherwise.
fn reduce(input: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let mut axes = attributes
        .ints("axes", &[])?
        .into_iter()
        .map(|a| axis(a, input.len()))
        .collect::<Result<Vec<_>, _>>()?;
    if axes.is_empty() {
        axes = (0..input.len()).collect();
    }
    let keep = attributes.get("keepdims").is_none() || attributes.flag("keepdims");
    Ok(input
        .iter()
        .enumerate()
        .filter_map(|(d, &size)| match (axes.contains(&d), keep) {
            (false, _) => Some(size),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

/// A possibly negative `axis` of a tensor of `rank` dimensions as a dimension, or the error that
/// it is out of range.
fn axis(axis: i64, rank: usize) -> Result<usize, String> {
    let resolved = if axis < 0 { axis + rank as i64 } else { axis };
    usize::try_from(resolved)
        .ok()
        .filter(|&a| a < rank.max(1))
        .ok_or_else(|| format!("axis {axis} of a rank-{rank} tensor"))
}

/// Numpy broadcasting of `shapes`.
pub fn broadcast(shapes: &[Vec<i64>]) -> Result<Vec<i64>, String> {
    let rank = shapes.iter().map(Vec::len).max().unwrap_or(0);
    (0..rank)
        .map(|d| {
            let mut size = 1;
            for shape in shapes {
                let Some(index) = (d + shape.len()).checked_sub(rank) else {
                    continue;
                };
                match (size, shape[index]) {
                    (_, 1) => {}
                    (1, other) => size = other,
                    (a, b) if a == b => {}
                    _ => return Err(format!("shapes {shapes:?} do not broadcast")),
                }
            }
            Ok(size)
        })
        .collect()
}

/// `graph.batch_matmul`: the broadcast batch dimensions, then the rows of `a` by the columns of
/// `b`, or the error that the inner sizes differ.
fn batch_matmul(a: &[i64], b: &[i64]) -> Result<Vec<i64>, String> {
    if a.len() < 2 || b.len() < 2 || a[a.len() - 1] != b[b.len() - 2] {
        return Err(format!("batch_matmul of {a:?} and {b:?}"));
    }
    let mut shape = broadcast(&[a[..a.len() - 2].to_vec(), b[..b.len() - 2].to_vec()])?;
    shape.extend([a[a.len() - 2], b[b.len() - 1]]);
    Ok(shape)
}

/// `graph.conv2d` of `input` with `filter`: batch, filters and the windows' output sizes, or the
/// error that the channels and groups do not fit.
fn conv2d(input: &[i64], filter: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let (strides, pads, dilations) = (
        attributes.ints("strides", &[1, 1])?,
        attributes.ints("pads", &[0, 0, 0, 0])?,
        attributes.ints("dilations", &[1, 1])?,
    );
    let groups = attributes.int("groups", 1)?;
    if input.len() != 4
        || filter.len() != 4
        || groups < 1
        || input[1] != filter[1] * groups
        || filter[0] % groups != 0
    {
        return Err(format!(
            "conv2d of {input:?} with filter {filter:?} in {groups} groups"
        ));
    }
    let out = |d: usize| {
        window_output(
            input[2 + d],
            filter[2 + d],
            strides[d],
            pads[d] + pads[d + 2],
            dilations[d],
            false,
        )
    };
    Ok(vec![input[0], filter[0], out(0)?, out(1)?])
}

/// Pooling of `input`: batch, channels and the windows' output sizes.
fn pool2d(input: &[i64], attributes: &Attributes) -> Result<Vec<i64>, String> {
    let kernel = attributes.ints("kernel", &[])?;
    let (strides, pads, dilations) = (
        attributes.ints("strides", &[1, 1])?,
        attributes.ints("pads", &[0, 0, 0, 0])?,
        attributes.ints("dilations", &[1, 1])?,
    );
    if input.len() != 4 || kernel.len() != 2 {
        return Err(format!("pooling of {input:?} with kernel {kernel:?}"));
    }
    let ceil = attributes.flag("ceil_mode");
    let out = |d: usize| {
        window_output(
            input[2 + d],
            kernel[d],
            strides[d],
            pads[d] + pads[d + 2],
            dilations[d],
            ceil,
        )
    };
    Ok(vec![input[0], input[1], out(0)?, out(1)?])
}

/// The output size of a window of `kernel` (dilated by `dilation`) sliding by `stride` over
/// `size` elements plus `pads`, rounding up when `ceil`; or the error that it does not fit.
fn window_output(
    size: i64,
    kernel: i64,
    stride: i64,
    pads: i64,
    dilation: i64,
    ceil: bool,
) -> Result<i64, String> {
    let span = size + pads - dilation * (kernel - 1) - 1;
    if span < 0 || stride < 1 {
        return Err(format!(
            "a window of {kernel} does not fit {size} (+{pads} padding)"
        ));
    }
    Ok(if ceil {
        (span + stride - 1) / stride + 1
    } else {
        span / stride + 1
    })
}
