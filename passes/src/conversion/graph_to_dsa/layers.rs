//! Layer formation for the layer-wise schedule: which graph ops become one kernel.
//!
//! A layer is an anchor (a convolution, a matrix product, a pooling or row-wise op, a data
//! movement op, or a lone elementwise op) followed by the elementwise ops that only refine its
//! result — the "epilogue" that TVM's fusion attaches to a conv or matmul (bias, batch norm,
//! activation, residual add). The epilogue runs on the anchor's output tile while it is still in
//! the local buffer, so only the layer's final value travels through DDR.

use crate::graph_view::{Node, ValueId};
use turbine_dialects::attributes::graph::Activation;

/// An elementwise operation of an epilogue, as the vector units run it.
#[derive(Debug, Clone, PartialEq)]
pub enum Elementwise {
    /// `dsa.unary <kind>`, with `min`/`max` for clip and `scale`/`shift` for affine.
    Unary {
        kind: &'static str,
        bounds: Option<(f32, f32)>,
        affine: Option<(f32, f32)>,
    },
    /// `dsa.binary <kind>`.
    Binary { kind: &'static str },
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
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The operation.
    pub op: Elementwise,
    /// Its operands: one for unary, two for binary.
    pub operands: Vec<Operand>,
    /// Where the result goes: the chain, or (for per-channel parameters prepared in place, such
    /// as a batch norm's `rsqrt(var + eps)`) an external operand's tile.
    pub target: Operand,
}

impl Step {
    /// A step whose result continues the chain.
    pub fn chained(op: Elementwise, operands: Vec<Operand>) -> Self {
        Self {
            op,
            operands,
            target: Operand::Chain,
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
            op: unary("affine", Some((1.0, epsilon))),
            operands: vec![var],
            target: var,
        },
        Step {
            op: unary("rsqrt", None),
            operands: vec![var],
            target: var,
        },
        Step::chained(binary("sub"), vec![Operand::Chain, Operand::External(mean)]),
        Step::chained(binary("mul"), vec![Operand::Chain, var]),
        Step::chained(
            binary("mul"),
            vec![Operand::Chain, Operand::External(scale)],
        ),
        Step::chained(binary("add"), vec![Operand::Chain, Operand::External(bias)]),
    ]
}

/// How a graph op maps to elementwise steps, if it is elementwise.
pub fn elementwise_steps(node: &Node) -> Option<Vec<(Elementwise, usize)>> {
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
    match node.name.as_str() {
        "graph.add" => binary("add"),
        "graph.sub" => binary("sub"),
        "graph.mul" => binary("mul"),
        "graph.div" => binary("div"),
        "graph.max" => binary("max"),
        "graph.min" => binary("min"),
        "graph.pow" => binary("pow"),
        "graph.relu" => unary("relu"),
        "graph.sigmoid" => unary("sigmoid"),
        "graph.tanh" => unary("tanh"),
        "graph.exp" => unary("exp"),
        "graph.log" => unary("log"),
        "graph.sqrt" => unary("sqrt"),
        "graph.erf" => unary("erf"),
        "graph.silu" => unary("silu"),
        "graph.neg" => unary("neg"),
        "graph.reciprocal" => unary("reciprocal"),
        "graph.abs" => unary("abs"),
        "graph.gelu" if !node.flag("approximate") => {
            unary("gelu")
        }
        "graph.clip" => {
            let bound = |name| node.float_opt(name);
            Some(vec![(
                Elementwise::Unary {
                    kind: "clip",
                    bounds: Some((bound("min")?, bound("max")?)),
                    affine: None,
                },
                1,
            )])
        }
        _ => None,
    }
}

/// The elementwise steps of a fused `activation` attribute (conv2d), if any.
pub fn activation_step(activation: Activation) -> Elementwise {
    let unary = |kind| Elementwise::Unary {
        kind,
        bounds: None,
        affine: None,
    };
    match activation {
        Activation::Relu => unary("relu"),
        Activation::Relu6 => Elementwise::Unary {
            kind: "clip",
            bounds: Some((0.0, 6.0)),
            affine: None,
        },
        Activation::Sigmoid => unary("sigmoid"),
        Activation::Tanh => unary("tanh"),
        Activation::Silu => unary("silu"),
        Activation::Gelu => unary("gelu"),
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
