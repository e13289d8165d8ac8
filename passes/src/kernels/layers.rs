//! What a layer is, as the kernel emitters see it ([`fusion`](super::fusion) decides which
//! graph ops form one).
//!
//! A layer is an anchor (a convolution, a matrix product, a pooling or row-wise op, a data
//! movement op, or a lone elementwise op) followed by the elementwise ops that only refine its
//! result — the "epilogue" that TVM's fusion attaches to a conv or matmul (bias, batch norm,
//! activation, residual add). The epilogue runs on the anchor's output tile while it is still in
//! the local buffer, so only the layer's final value travels through DDR.

use super::{emit::Tensor, error::LoweringError, view::View};
use crate::graph_view::{ElementType, Node, ValueId};
use crate::target::Machine;
use mlir_sys::MlirLocation;
use std::collections::BTreeMap;
use turbine_dialects::attributes::{
    dsa::{BinaryKind, UnaryKind},
    graph::Activation,
};
use turbine_dialects::ops::graph;

/// A layer to lower: its anchor op, the epilogue fused after it, and the tensor it writes.
pub struct Layer<'p> {
    /// Index of the anchor op in the function body.
    pub index: usize,
    /// The anchor op.
    pub node: &'p Node,
    /// The elementwise steps fused after the anchor.
    pub steps: Vec<Step>,
    /// Where the layer's final value goes.
    pub output: Tensor,
    /// A second place the layer's tiles store its final value in (a segment's output handed
    /// over through DDR whose cluster share also stays in the GB); only the lowerings that
    /// [`writes_mirror`](super::dispatch::writes_mirror) take one.
    pub mirror: Option<Tensor>,
    /// A stepped slice of the layer's final value (every `steps`-th row and column, from the
    /// first) that its tiles store too, picked in the LB: only convolutions take one, their tiles
    /// then covering rows by multiples of the step (see `dispatch::estimate_stepped`).
    pub stepped: Option<(Tensor, [usize; 2])>,
    /// A 1×1 convolution whose product the layer's accumulator takes before its own, in place of
    /// the residual its epilogue adds (`fusion::absorbing_conv`).
    pub absorbed: Option<&'p Node>,
    /// A 1×1 convolution, with the steps fused after it, that reads the layer's result and
    /// nothing else reads: the layer's tiles feed it in the LB (chain fusion, BOLT §3.1), and
    /// [`Layer::output`] is its result. Only convolutions take one.
    pub chained: Option<(&'p Node, Vec<Step>)>,
}

impl Layer<'_> {
    /// Refuses the layer when one of `tensors` (named for the message) is not a contiguous
    /// buffer: the emitters that reshape their operands read them as one run.
    pub fn require_contiguous(&self, tensors: &[(&str, &Tensor)]) -> Result<(), LoweringError> {
        match tensors
            .iter()
            .find(|(_, tensor)| !tensor.view.is_contiguous())
        {
            Some((what, _)) => Err(LoweringError::at(
                self.index,
                format!(
                    "'{}' of a {what} that is not a contiguous buffer is not supported",
                    self.node.name
                ),
            )),
            None => Ok(()),
        }
    }
}

/// What the kernel emitters read: the target, the tensors of values defined so far, and their
/// shapes. Choosing a tiling reads only the values' views, so a scope of bare views (`T = View`)
/// lets the cost model of `graph-substitute` price a layer with the lowering's own choice.
pub struct Scope<'a, T = Tensor> {
    /// The target.
    pub machine: &'a Machine,
    /// Buffers (or views) of the values available to kernels.
    pub tensors: &'a BTreeMap<ValueId, T>,
}

/// What a tiling is chosen from: a value's view (shape, memory space, layout).
pub trait Viewed {
    /// The view.
    fn view(&self) -> &View;
}

impl Viewed for Tensor {
    fn view(&self) -> &View {
        &self.view
    }
}

impl Viewed for View {
    fn view(&self) -> &View {
        self
    }
}

impl Scope<'_> {
    /// The tensor of `value`.
    pub fn tensor(&self, value: ValueId) -> &Tensor {
        &self.tensors[&value]
    }
}

impl<T: Viewed> Scope<'_, T> {
    /// The view of `value`.
    pub fn view(&self, value: ValueId) -> &View {
        self.tensors[&value].view()
    }

    /// Shapes of the external operands of `steps`.
    pub fn external_shapes(&self, steps: &[Step]) -> BTreeMap<ValueId, Vec<usize>> {
        let mut shapes = BTreeMap::new();
        for step in steps {
            for operand in step.operands.iter().chain([&step.target]) {
                if let Operand::External(value) = operand {
                    shapes.insert(*value, self.view(*value).shape.clone());
                }
            }
        }
        shapes
    }
}

/// An elementwise operation of an epilogue, as the vector units run it.
#[derive(Debug, Clone, PartialEq)]
pub enum Elementwise {
    /// `dsa.unary <kind>`, with `min`/`max` for clip and `scale`/`shift` for affine.
    Unary {
        kind: UnaryKind,
        bounds: Option<(f32, f32)>,
        affine: Option<(f32, f32)>,
    },
    /// `dsa.binary <kind>`.
    Binary { kind: BinaryKind },
}

/// Where an epilogue step reads an operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Operand {
    /// The value computed so far (the anchor's tile, refined by earlier steps).
    Chain,
    /// A graph value loaded tile by tile from DDR (broadcast as numpy does).
    External(ValueId),
}

/// One step of an epilogue.
#[derive(Debug, Clone)]
pub struct Step {
    /// The operation.
    pub op: Elementwise,
    /// Its operands: one for unary, two for binary.
    pub operands: Vec<Operand>,
    /// Where the result goes: the chain, or (for per-channel parameters prepared in place, such
    /// as a batch norm's `rsqrt(var + eps)`) an external operand's tile.
    pub target: Operand,
    /// The location of the graph op the step computes (its instruction carries it).
    pub location: MlirLocation,
}

impl Step {
    /// A step of the graph op at `location` whose result continues the chain.
    pub fn chained(op: Elementwise, operands: Vec<Operand>, location: MlirLocation) -> Self {
        Self {
            op,
            operands,
            target: Operand::Chain,
            location,
        }
    }
}

/// The steps of an inference batch norm `(x - mean) * scale * rsqrt(var + eps) + bias` on the
/// chain, with the four parameters as external operands (one value per channel).
pub fn batch_norm_steps(
    scale: ValueId,
    bias: ValueId,
    mean: ValueId,
    variance: ValueId,
    epsilon: f32,
    location: MlirLocation,
) -> Vec<Step> {
    let var = Operand::External(variance);
    let unary = |kind, affine| Elementwise::Unary {
        kind,
        bounds: None,
        affine,
    };
    let binary = |kind| Elementwise::Binary { kind };
    vec![
        Step {
            op: unary(UnaryKind::Affine, Some((1.0, epsilon))),
            operands: vec![var],
            target: var,
            location,
        },
        Step {
            op: unary(UnaryKind::Rsqrt, None),
            operands: vec![var],
            target: var,
            location,
        },
        Step::chained(
            binary(BinaryKind::Sub),
            vec![Operand::Chain, Operand::External(mean)],
            location,
        ),
        Step::chained(binary(BinaryKind::Mul), vec![Operand::Chain, var], location),
        Step::chained(
            binary(BinaryKind::Mul),
            vec![Operand::Chain, Operand::External(scale)],
            location,
        ),
        Step::chained(
            binary(BinaryKind::Add),
            vec![Operand::Chain, Operand::External(bias)],
            location,
        ),
    ]
}

/// The dsa binary operation of an integer elementwise op (its result i64 or i32): a layer of its
/// own (`selection`), never a step of an f32 layer's epilogue; None for the others.
pub fn integer_binary(node: &Node) -> Option<BinaryKind> {
    let integer = node.results.first().is_some_and(|(_, r#type)| {
        matches!(r#type.element_type, ElementType::I64 | ElementType::I32)
    });
    use graph::Kind as K;
    integer.then_some(())?;
    Some(match node.graph_kind()? {
        K::Add => BinaryKind::Add,
        K::Sub => BinaryKind::Sub,
        K::Mul => BinaryKind::Mul,
        K::Div => BinaryKind::Div,
        K::Max => BinaryKind::Max,
        K::Min => BinaryKind::Min,
        K::Pow => BinaryKind::Pow,
        K::Mod => remainder(node),
        _ => return None,
    })
}

/// The dsa remainder of a `graph.mod`: with the dividend's sign under `fmod`, else the
/// divisor's (ONNX Mod).
fn remainder(node: &Node) -> BinaryKind {
    if node.flag("fmod") {
        BinaryKind::Fmod
    } else {
        BinaryKind::Mod
    }
}

/// How a graph op maps to elementwise steps, if it is an elementwise op on f32.
pub fn elementwise_steps(node: &Node) -> Option<Vec<(Elementwise, usize)>> {
    if integer_binary(node).is_some() {
        return None;
    }
    let unary = |kind| {
        Some(vec![(
            Elementwise::Unary {
                kind,
                bounds: None,
                affine: None,
            },
            1,
        )])
    };
    let binary = |kind| Some(vec![(Elementwise::Binary { kind }, 2)]);
    use graph::Kind as K;
    match node.graph_kind()? {
        K::Add => binary(BinaryKind::Add),
        K::Sub => binary(BinaryKind::Sub),
        K::Mul => binary(BinaryKind::Mul),
        K::Div => binary(BinaryKind::Div),
        K::Max => binary(BinaryKind::Max),
        K::Min => binary(BinaryKind::Min),
        K::Pow => binary(BinaryKind::Pow),
        K::Mod => binary(remainder(node)),
        K::Relu => unary(UnaryKind::Relu),
        K::Sigmoid => unary(UnaryKind::Sigmoid),
        K::Tanh => unary(UnaryKind::Tanh),
        K::Exp => unary(UnaryKind::Exp),
        K::Log => unary(UnaryKind::Log),
        K::Sqrt => unary(UnaryKind::Sqrt),
        K::Erf => unary(UnaryKind::Erf),
        K::Silu => unary(UnaryKind::Silu),
        K::Neg => unary(UnaryKind::Neg),
        K::Reciprocal => unary(UnaryKind::Reciprocal),
        K::Abs => unary(UnaryKind::Abs),
        K::Gelu if node.flag("approximate") => unary(UnaryKind::GeluTanh),
        K::Gelu => unary(UnaryKind::Gelu),
        K::Clip => {
            let bound = |name| node.float_opt(name);
            Some(vec![(
                Elementwise::Unary {
                    kind: UnaryKind::Clip,
                    bounds: Some((bound("min")?, bound("max")?)),
                    affine: None,
                },
                1,
            )])
        }
        // Elementwise ops that map to no steps here: the tanh approximation of GELU, and ops
        // the vector units do not run (a batch norm's steps read per-channel views of its
        // parameters, which `fusion` makes).
        K::BatchNorm | K::Compare | K::Where | K::Cast => None,
        // Not elementwise.
        K::Constant
        | K::Weight
        | K::Conv2d
        | K::Matmul
        | K::BatchMatmul
        | K::Gemm
        | K::LayerNorm
        | K::Softmax
        | K::MaxPool2d
        | K::AvgPool2d
        | K::GlobalAvgPool
        | K::Reshape
        | K::Transpose
        | K::Flatten
        | K::Concat
        | K::Split
        | K::Slice
        | K::Pad
        | K::Resize
        | K::Lrn
        | K::Gather
        | K::GatherElements
        | K::ScatterElements
        | K::ReduceProd
        | K::ArgMax
        | K::ArgMin
        | K::TopK
        | K::Quantize
        | K::Dequantize
        | K::Requantize
        | K::MatmulInteger
        | K::ConvInteger
        | K::Broadcast
        | K::ReduceSum
        | K::ReduceMean
        | K::ReduceMax
        | K::Yield
        | K::If
        | K::Loop => None,
    }
}

/// The steps of the elementwise op `user` (`user_steps`, from [`elementwise_steps`]) on the
/// chain `value`: the operands equal to it read the chain, the others are external.
pub fn chained_steps(
    user: &Node,
    value: ValueId,
    user_steps: Vec<(Elementwise, usize)>,
) -> impl Iterator<Item = Step> + '_ {
    let operands: Vec<Operand> = user
        .operands
        .iter()
        .map(|&operand| {
            if operand == value {
                Operand::Chain
            } else {
                Operand::External(operand)
            }
        })
        .collect();
    user_steps
        .into_iter()
        .map(move |(op, _)| Step::chained(op, operands.clone(), user.op.location()))
}

/// The elementwise steps of a fused `activation` attribute (conv2d), if any.
pub fn activation_step(activation: Activation) -> Elementwise {
    let unary = |kind| Elementwise::Unary {
        kind,
        bounds: None,
        affine: None,
    };
    match activation {
        Activation::Relu => unary(UnaryKind::Relu),
        Activation::Relu6 => Elementwise::Unary {
            kind: UnaryKind::Clip,
            bounds: Some((0.0, 6.0)),
            affine: None,
        },
        Activation::Sigmoid => unary(UnaryKind::Sigmoid),
        Activation::Tanh => unary(UnaryKind::Tanh),
        Activation::Silu => unary(UnaryKind::Silu),
        Activation::Gelu => unary(UnaryKind::Gelu),
    }
}

/// Normalises an axis that may count from the end.
pub fn axis(value: i64, rank: usize) -> usize {
    if value < 0 {
        (value + rank as i64) as usize
    } else {
        value as usize
    }
}
