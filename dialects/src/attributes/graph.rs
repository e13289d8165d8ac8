//! The graph dialect's enumeration attributes and op traits (`include/turbine-c/Graph.h`); the
//! other attributes of graph ops are builtin.

use super::mirror_enum;
use melior::ir::operation::OperationLike;
use mlir_sys::{MlirAttribute, MlirContext, MlirOperation, MlirStringRef};

unsafe extern "C" {
    fn turbineGraphOpIsElementwise(op: MlirOperation) -> bool;
    fn turbineAttributeIsAGraphEnum(attribute: MlirAttribute, kind: u32) -> bool;
    fn turbineGraphEnumAttrGet(context: MlirContext, kind: u32, value: u32) -> MlirAttribute;
    fn turbineGraphEnumAttrGetValue(attribute: MlirAttribute, kind: u32) -> u32;
    fn turbineGraphEnumCaseName(kind: u32, value: u32) -> MlirStringRef;
}

/// Whether `op` has the graph dialect's `Elementwise` trait: each result element depends only on
/// the operand elements at its (broadcast) position. The trait, set in GraphOps.td, is the one
/// definition of which ops may form an elementwise epilogue.
pub fn is_elementwise<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>) -> bool {
    // SAFETY: the borrow keeps the op alive.
    unsafe { turbineGraphOpIsElementwise(op.to_raw()) }
}

mirror_enum! {
    /// `#graph<activation ...>`: an activation fused into a convolution.
    Activation, kind = 0,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// `max(x, 0)`.
        Relu = 0 => "relu",
        /// `min(max(x, 0), 6)`.
        Relu6 = 1 => "relu6",
        /// Logistic sigmoid.
        Sigmoid = 2 => "sigmoid",
        /// Hyperbolic tangent.
        Tanh = 3 => "tanh",
        /// SiLU.
        Silu = 4 => "silu",
        /// GELU.
        Gelu = 5 => "gelu",
    }
}

mirror_enum! {
    /// `#graph<pad_mode ...>`: how `graph.pad` fills the border.
    PadMode, kind = 1,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// A constant value.
        Constant = 0 => "constant",
        /// Mirrored without the edge.
        Reflect = 1 => "reflect",
        /// The edge repeated.
        Edge = 2 => "edge",
    }
}

mirror_enum! {
    /// `#graph<resize_mode ...>`: how `graph.resize` interpolates.
    ResizeMode, kind = 2,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// Nearest neighbour.
        Nearest = 0 => "nearest",
        /// (Bi)linear.
        Linear = 1 => "linear",
        /// (Bi)cubic.
        Cubic = 2 => "cubic",
    }
}

mirror_enum! {
    /// `#graph<resize_coordinates ...>`: how output coordinates map to input coordinates.
    ResizeCoordinates, kind = 3,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// `(x + 0.5) / scale - 0.5`.
        HalfPixel = 0 => "half_pixel",
        /// As half_pixel, 0 when the output has one element.
        PytorchHalfPixel = 1 => "pytorch_half_pixel",
        /// Corners aligned.
        AlignCorners = 2 => "align_corners",
        /// `x / scale`.
        Asymmetric = 3 => "asymmetric",
    }
}

mirror_enum! {
    /// `#graph<nearest_rounding ...>`: how nearest mode rounds.
    NearestRounding, kind = 4,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// Halves round down.
        RoundPreferFloor = 0 => "round_prefer_floor",
        /// Halves round up.
        RoundPreferCeil = 1 => "round_prefer_ceil",
        /// Floor.
        Floor = 2 => "floor",
        /// Ceiling.
        Ceil = 3 => "ceil",
    }
}

mirror_enum! {
    /// `#graph<predicate ...>`: an elementwise comparison.
    ComparePredicate, kind = 5,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// `==`.
        Eq = 0 => "eq",
        /// `!=`.
        Ne = 1 => "ne",
        /// `<`.
        Lt = 2 => "lt",
        /// `<=`.
        Le = 3 => "le",
        /// `>`.
        Gt = 4 => "gt",
        /// `>=`.
        Ge = 5 => "ge",
    }
}

mirror_enum! {
    /// `#graph<reduction ...>`: how a scattered element meets the one it lands on.
    ScatterReduction, kind = 6,
    api = (
        turbineAttributeIsAGraphEnum,
        turbineGraphEnumAttrGet,
        turbineGraphEnumAttrGetValue,
        turbineGraphEnumCaseName
    ),
    {
        /// Replaces it.
        None = 0 => "none",
        /// Adds to it.
        Add = 1 => "add",
        /// Multiplies it.
        Mul = 2 => "mul",
        /// Keeps the larger.
        Max = 3 => "max",
        /// Keeps the smaller.
        Min = 4 => "min",
    }
}
