//! The kinds of work an instruction names and their parameters: the binary and unary
//! functions, comparison predicates, pooling and reduction kinds, and the convolution and
//! pooling geometry.

use turbine_targets::UnitKind;

/// Element-wise binary operations (numpy broadcasting of the two inputs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// The larger of `a` and `b` (NaN if either is NaN).
    Max,
    /// The smaller of `a` and `b` (NaN if either is NaN).
    Min,
    /// `a` to the power `b`.
    Pow,
    /// The remainder of `a / b` truncated, with the sign of `a` (C's `fmod`).
    Fmod,
    /// The remainder of `a / b` floored, with the sign of `b` (Python's `%`).
    Mod,
}

/// Element-wise unary operations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum UnaryOp {
    /// `max(x, 0)`: NaN stays NaN and `-0.0` stays `-0.0` (only values below 0 change).
    Relu,
    /// `1 / (1 + exp(-x))`
    Sigmoid,
    /// Hyperbolic tangent.
    Tanh,
    /// `e^x`
    Exp,
    /// Natural logarithm.
    Log,
    /// Square root.
    Sqrt,
    /// `1 / sqrt(x)`
    Rsqrt,
    /// The error function.
    Erf,
    /// `x * (1 + erf(x / sqrt 2)) / 2` (the exact GELU, as ONNX `Gelu` without approximation).
    Gelu,
    /// `x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3))) / 2` (ONNX `Gelu` with
    /// `approximate = "tanh"`).
    GeluTanh,
    /// `x * sigmoid(x)`
    Silu,
    /// `-x`
    Neg,
    /// `1 / x`
    Reciprocal,
    /// `min` for `x` below `min`, `max` for `x` above `max`, else `x`: NaN and `-0.0` stay, and a
    /// NaN bound clips nothing.
    Clip {
        /// Lower bound.
        min: f32,
        /// Upper bound (not below `min`).
        max: f32,
    },
    /// `scale * x + shift`: scaling, bias by a constant, and the normalisation steps of
    /// layer norm with folded constants.
    Affine {
        /// Multiplier.
        scale: f32,
        /// Addend.
        shift: f32,
    },
    /// `|x|`
    Abs,
}

/// Element-wise comparisons (IEEE for floats: every comparison with NaN is false but `Ne`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ComparePredicate {
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

impl ComparePredicate {
    /// Lower-case name, as in the `dsa` dialect.
    pub fn name(self) -> &'static str {
        match self {
            ComparePredicate::Eq => "eq",
            ComparePredicate::Ne => "ne",
            ComparePredicate::Lt => "lt",
            ComparePredicate::Le => "le",
            ComparePredicate::Gt => "gt",
            ComparePredicate::Ge => "ge",
        }
    }
}

/// Kinds of 2-D pooling.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PoolKind {
    /// Maximum of the window (padding ignored).
    Max,
    /// Mean of the window.
    Avg,
}

/// Kinds of reduction along one axis.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReduceKind {
    /// Sum.
    Sum,
    /// Arithmetic mean.
    Mean,
    /// Maximum (NaN if any element is NaN).
    Max,
    /// Minimum (NaN if any element is NaN).
    Min,
    /// Product.
    Prod,
}

/// Parameters of a 2-D convolution tile (ONNX conventions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Conv2dParams {
    /// Stride along H and W (at least 1).
    pub stride: [u64; 2],
    /// Zero padding `[top, left, bottom, right]`.
    pub pad: [u64; 4],
    /// Dilation along H and W (at least 1).
    pub dilation: [u64; 2],
    /// Number of groups (divides both channel counts).
    pub groups: u64,
}

impl Default for Conv2dParams {
    fn default() -> Self {
        Conv2dParams {
            stride: [1, 1],
            pad: [0; 4],
            dilation: [1, 1],
            groups: 1,
        }
    }
}

/// Parameters of 2-D pooling (ONNX conventions, floor rounding of the output size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pool2dParams {
    /// Window size along H and W (at least 1).
    pub kernel: [u64; 2],
    /// Stride along H and W (at least 1).
    pub stride: [u64; 2],
    /// Padding `[top, left, bottom, right]`, each smaller than the window along its axis so
    /// that every window holds at least one real element.
    pub pad: [u64; 4],
    /// For average pooling: divide by the full window size (true) or by the number of real
    /// elements in the window (false, ONNX's default).
    pub count_include_pad: bool,
}

impl UnaryOp {
    /// True for the functions charged `cost.special_function` element operations each.
    pub fn is_special(self) -> bool {
        !matches!(
            self,
            UnaryOp::Relu
                | UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Clip { .. }
                | UnaryOp::Affine { .. }
        )
    }

    /// The unit kind that runs it.
    pub fn unit(self) -> UnitKind {
        match self {
            UnaryOp::Exp | UnaryOp::Log | UnaryOp::Sqrt | UnaryOp::Rsqrt | UnaryOp::Reciprocal => {
                UnitKind::VectorCore
            }
            _ => UnitKind::VectorEngine,
        }
    }

    /// Lower-case name, as in the `dsa` dialect.
    pub fn name(self) -> &'static str {
        match self {
            UnaryOp::Relu => "relu",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Erf => "erf",
            UnaryOp::Gelu => "gelu",
            UnaryOp::GeluTanh => "gelu_tanh",
            UnaryOp::Silu => "silu",
            UnaryOp::Neg => "neg",
            UnaryOp::Reciprocal => "reciprocal",
            UnaryOp::Clip { .. } => "clip",
            UnaryOp::Affine { .. } => "affine",
            UnaryOp::Abs => "abs",
        }
    }
}

impl BinaryOp {
    /// True for the operations charged `cost.special_function` element operations each.
    pub fn is_special(self) -> bool {
        matches!(
            self,
            BinaryOp::Div | BinaryOp::Pow | BinaryOp::Fmod | BinaryOp::Mod
        )
    }

    /// Lower-case name, as in the `dsa` dialect.
    pub fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Max => "max",
            BinaryOp::Min => "min",
            BinaryOp::Pow => "pow",
            BinaryOp::Fmod => "fmod",
            BinaryOp::Mod => "mod",
        }
    }
}
