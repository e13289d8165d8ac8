//! `graph-resize-to-matmul`: a `graph.resize` is separable — each output element is a weighted
//! sum over every resized dimension's taps, the weights of one dimension depending only on its
//! own coordinate — so along one dimension it is a product by a constant `[in, out]` matrix whose
//! column `o` holds the weights output `o` gives the input elements. The pass rewrites a resize
//! into one `graph.matmul` per dimension it changes, over the rows of all other dimensions (that
//! dimension moved last by a transpose when it is not), which every schedule compiles on the
//! matrix engines.
//!
//! The weights follow ONNX's definition (its reference implementation's handling of coordinates
//! outside the input: they read the edge): linear between the two neighbours, Keys' cubic
//! convolution over four with `cubic_coeff_a` and `exclude_outside`, and nearest as one weight
//! of 1 for resizes `graph-resize-to-broadcast` leaves alone (downsampling, fractional scales).
//! A dimension whose matrix is the identity is not multiplied.

use crate::{
    graph_view::{Attr, FunctionView, Node},
    ir::{create, i64_array, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    slicing::sliced_body::tensor_like,
};
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::attributes::graph::{NearestRounding, ResizeCoordinates, ResizeMode};
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct ResizeToMatmul {
    explain: bool,
}

impl Pass for ResizeToMatmul {
    const ARGUMENT: &'static str = "graph-resize-to-matmul";
    const SUMMARY: &'static str =
        "Rewrite a resize into one product per resized dimension by its interpolation matrix";
    const DESCRIPTION: &'static str = "\
A `graph.resize` is separable: along each dimension it changes, it is the product of the input's \
rows (that dimension moved last by `graph.transpose` when it is not, every other dimension \
flattened by `graph.reshape`) by a constant `[in, out]` matrix whose column `o` holds the \
weights output element `o` gives the input elements — linear between two neighbours, Keys' \
cubic convolution over four (cubic_coeff_a, exclude_outside), nearest as a single 1 — under the \
op's coordinate mode, neighbours outside the input reading its edge as in ONNX's reference. The \
pass rewrites every resize so into `graph.matmul`s, which both schedules compile; dimensions \
whose matrix is the identity are left as they are, and a resize with an empty dimension is left \
alone. Run after graph-resize-to-broadcast, which turns whole-factor nearest upsampling into a \
copy instead. With `explain`, a remark on each resize with the dimensions it multiplies.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit a remark on each resize rewritten or left alone, and why",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        if function.regions_empty() {
            return Ok(());
        }
        // A function the compiler's graph view cannot read (dynamic shapes) is left as it is:
        // the passes after this one say what they cannot compile.
        let view = match FunctionView::read(function) {
            Ok(view) => view,
            Err(error) => {
                if self.explain {
                    function.emit_remark(&format!("left alone: {}", error.message));
                }
                return Ok(());
            }
        };
        for node in view.ops.iter().filter(|node| node.is(graph::Kind::Resize)) {
            let input = view.type_of(node.operands[0]).shape.clone();
            match matrices(node, &input) {
                Ok(matrices) => {
                    if self.explain {
                        let dims: Vec<usize> = matrices.iter().map(|(d, _)| *d).collect();
                        node.op.emit_remark(&format!(
                            "one product per dimension of {dims:?} by its interpolation matrix"
                        ));
                    }
                    rewrite(node.op, &input, &matrices);
                }
                Err(reason) if self.explain => {
                    node.op.emit_remark(&format!("left alone: {reason}"))
                }
                Err(_) => {}
            }
        }
        Ok(())
    }
}

/// How one dimension's output coordinates read the input.
#[derive(Debug, Clone, Copy)]
struct Interpolation {
    mode: ResizeMode,
    coordinates: ResizeCoordinates,
    rounding: NearestRounding,
    cubic_coeff_a: f64,
    exclude_outside: bool,
}

/// The interpolation matrix (`[in, out]`, row-major) of each dimension the resize `node` of an
/// input of shape `input` changes, or why it is left alone.
fn matrices(node: &Node, input: &[usize]) -> Result<Vec<(usize, Vec<f32>)>, String> {
    let output = &node.results[0].1.shape;
    if input.contains(&0) || output.contains(&0) {
        return Err("it has an empty dimension".to_owned());
    }
    let Some(Attr::Floats(scales)) = node.attributes.get("scales") else {
        return Err("it has no scales".to_owned());
    };
    let interpolation = interpolation_of(node);
    let mut found = Vec::new();
    for (d, (&length, &out_length)) in input.iter().zip(output).enumerate() {
        let matrix = matrix(&interpolation, f64::from(scales[d]), length, out_length);
        let identity = length == out_length
            && (0..length).all(|i| {
                (0..length).all(|o| matrix[i * length + o] == if i == o { 1.0 } else { 0.0 })
            });
        if !identity {
            found.push((d, matrix));
        }
    }
    if found.is_empty() {
        return Err("it is the identity".to_owned());
    }
    Ok(found)
}

/// The interpolation attributes of the resize `node`, with the dialect's defaults.
fn interpolation_of(node: &Node) -> Interpolation {
    let mut interpolation = Interpolation {
        mode: ResizeMode::Nearest,
        coordinates: ResizeCoordinates::HalfPixel,
        rounding: NearestRounding::RoundPreferFloor,
        cubic_coeff_a: -0.75,
        exclude_outside: false,
    };
    if let Some(Attr::ResizeMode(mode)) = node.attributes.get("mode") {
        interpolation.mode = *mode;
    }
    if let Some(Attr::ResizeCoordinates(coordinates)) = node.attributes.get("coordinates") {
        interpolation.coordinates = *coordinates;
    }
    if let Some(Attr::NearestRounding(rounding)) = node.attributes.get("nearest") {
        interpolation.rounding = *rounding;
    }
    if let Some(Attr::Float(a)) = node.attributes.get("cubic_coeff_a") {
        interpolation.cubic_coeff_a = *a;
    }
    if let Some(Attr::Bool(exclude)) = node.attributes.get("exclude_outside") {
        interpolation.exclude_outside = *exclude;
    }
    interpolation
}

/// The `[length, out_length]` matrix of one dimension resized by `scale`.
fn matrix(interpolation: &Interpolation, scale: f64, length: usize, out_length: usize) -> Vec<f32> {
    let mut matrix = vec![0f32; length * out_length];
    for o in 0..out_length {
        let position = source(interpolation.coordinates, o, scale, length);
        for (i, weight) in taps(interpolation, position, length) {
            matrix[i * out_length + o] += weight;
        }
    }
    matrix
}

/// The input coordinate output coordinate `x` maps to; the resized length in these formulas is
/// `length * scale` before rounding, as in ONNX's reference.
fn source(coordinates: ResizeCoordinates, x: usize, scale: f64, length: usize) -> f64 {
    let x = x as f64;
    let resized = length as f64 * scale;
    match coordinates {
        ResizeCoordinates::HalfPixel => (x + 0.5) / scale - 0.5,
        ResizeCoordinates::PytorchHalfPixel if resized != 1.0 => (x + 0.5) / scale - 0.5,
        ResizeCoordinates::AlignCorners if resized != 1.0 => {
            x * (length as f64 - 1.0) / (resized - 1.0)
        }
        ResizeCoordinates::PytorchHalfPixel | ResizeCoordinates::AlignCorners => 0.0,
        ResizeCoordinates::Asymmetric => x / scale,
    }
}

/// The input elements the coordinate `position` reads and their weights; neighbours outside
/// the input read its edge (or weigh 0 for cubic with `exclude_outside`).
fn taps(interpolation: &Interpolation, position: f64, length: usize) -> Vec<(usize, f32)> {
    let clamp = |i: f64| i.clamp(0.0, length as f64 - 1.0) as usize;
    match interpolation.mode {
        ResizeMode::Nearest => {
            let half = position.fract() == 0.5;
            let rounded = match interpolation.rounding {
                NearestRounding::RoundPreferFloor if half => position.floor(),
                NearestRounding::RoundPreferCeil if half => position.ceil(),
                NearestRounding::RoundPreferFloor | NearestRounding::RoundPreferCeil => {
                    position.round()
                }
                NearestRounding::Floor => position.floor(),
                NearestRounding::Ceil => position.ceil(),
            };
            vec![(clamp(rounded), 1.0)]
        }
        ResizeMode::Linear => {
            let low = position.floor();
            let ratio = (position - low) as f32;
            vec![(clamp(low), 1.0 - ratio), (clamp(low + 1.0), ratio)]
        }
        ResizeMode::Cubic => {
            let low = position.floor();
            let a = interpolation.cubic_coeff_a;
            let far = |t: f64| ((a * t - 5.0 * a) * t + 8.0 * a) * t - 4.0 * a;
            let near = |t: f64| ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
            let ratio = position - low;
            let mut weights = [
                far(ratio + 1.0),
                near(ratio),
                near(1.0 - ratio),
                far(2.0 - ratio),
            ];
            let neighbours = [low - 1.0, low, low + 1.0, low + 2.0];
            if interpolation.exclude_outside {
                for (weight, &neighbour) in weights.iter_mut().zip(&neighbours) {
                    if neighbour < 0.0 || neighbour >= length as f64 {
                        *weight = 0.0;
                    }
                }
                let total: f64 = weights.iter().sum();
                weights.iter_mut().for_each(|weight| *weight /= total);
            }
            neighbours
                .iter()
                .zip(weights)
                .map(|(&neighbour, weight)| (clamp(neighbour), weight as f32))
                .collect()
        }
    }
}

/// Replaces `resize` (of an input of shape `input`) by one product per `(dimension, matrix)`.
fn rewrite(resize: Op, input: &[usize], matrices: &[(usize, Vec<f32>)]) {
    let (at, location) = (InsertionPoint::Before(resize), resize.location());
    let build = |kind: graph::Kind,
                 operands: &[Val],
                 shape: &[usize],
                 attributes: &[(&str, MlirAttribute)]|
     -> Val {
        let r#type = tensor_like(operands[0], shape);
        create(
            at,
            location,
            kind,
            operands,
            &[r#type],
            attributes,
            Vec::new(),
        )
        .result(0)
    };
    let context = resize.context();
    let last = input.len() - 1;
    let (mut value, mut shape) = (resize.operand(0), input.to_vec());
    for (d, matrix) in matrices {
        let (length, out_length) = (shape[*d], matrix.len() / shape[*d]);
        let permutation: Vec<i64> = (0..shape.len())
            .map(|axis| match axis {
                axis if axis == *d => last as i64,
                axis if axis == last => *d as i64,
                axis => axis as i64,
            })
            .collect();
        let mut moved = shape.clone();
        moved.swap(*d, last);
        let swap = [("permutation", i64_array(context, &permutation))];
        if *d != last {
            value = build(graph::Kind::Transpose, &[value], &moved, &swap);
        }
        let rows = moved[..last].iter().product();
        let flat = build(graph::Kind::Reshape, &[value], &[rows, length], &[]);
        let weights = constant(flat, matrix, [length, out_length], at, location);
        let product = build(
            graph::Kind::Matmul,
            &[flat, weights],
            &[rows, out_length],
            &[],
        );
        moved[last] = out_length;
        value = build(graph::Kind::Reshape, &[product], &moved, &[]);
        if *d != last {
            moved.swap(*d, last);
            value = build(graph::Kind::Transpose, &[value], &moved, &swap);
        }
        shape = moved;
    }
    resize.result(0).replace_all_uses_with(value);
    // SAFETY: the resize's uses read the last product's value now, it holds no region, and the
    // view's handles to it are not used after this.
    unsafe { resize.erase() };
}

/// A `graph.constant` of the f32 `values` of `shape` (the element type of `like`).
fn constant(
    like: Val,
    values: &[f32],
    shape: [usize; 2],
    at: InsertionPoint,
    location: MlirLocation,
) -> Val {
    let r#type = tensor_like(like, &shape);
    // SAFETY: a live f32 tensor type of `values.len()` elements; MLIR copies the values.
    let value =
        unsafe { mlirDenseElementsAttrFloatGet(r#type, values.len() as isize, values.as_ptr()) };
    create(
        at,
        location,
        graph::Kind::Constant,
        &[],
        &[r#type],
        &[("value", value)],
        Vec::new(),
    )
    .result(0)
}
