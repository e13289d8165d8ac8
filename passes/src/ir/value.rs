//! [`Val`]'s methods: where a value comes from (an op's result or a block's argument), its type,
//! its uses, and replacing them.

use super::handle::{Op, Val};
use mlir_sys::*;
use turbine_dialects::ops::upstream;

impl Val {
    /// The op defining this value, or None for a block argument.
    pub fn defining_op(self) -> Option<Op> {
        // SAFETY: the value is alive, and so is the op whose result it is.
        unsafe {
            mlirValueIsAOpResult(self.raw()).then(|| Op::from_raw(mlirOpResultGetOwner(self.raw())))
        }
    }

    /// The block this value is an argument of; None for an op's result.
    pub fn owner_block(self) -> Option<MlirBlock> {
        // SAFETY: the value is alive.
        unsafe {
            mlirValueIsABlockArgument(self.raw()).then(|| mlirBlockArgumentGetOwner(self.raw()))
        }
    }

    /// The value when it is an `arith.constant` of an integer or index type.
    pub fn integer_constant(self) -> Option<i64> {
        let op = self.defining_op()?;
        if !op.is(upstream::Kind::ArithConstant) {
            return None;
        }
        op.attribute("value")
            .and_then(|a| melior::ir::attribute::IntegerAttribute::try_from(a).ok())
            .map(|a| a.value())
    }

    /// The value's type.
    pub fn r#type(self) -> MlirType {
        // SAFETY: the value is alive.
        unsafe { mlirValueGetType(self.raw()) }
    }

    /// Gives the value the type `r#type` (callers keep the IR valid, as a type conversion does).
    pub fn set_type(self, r#type: MlirType) {
        // SAFETY: the value and the type are alive in one context.
        unsafe { mlirValueSetType(self.raw(), r#type) }
    }

    /// Whether the two values have the same type.
    pub fn same_type(self, other: Val) -> bool {
        // SAFETY: both values are alive; types are uniqued.
        unsafe { mlirTypeEqual(self.r#type(), other.r#type()) }
    }

    /// The value's location (a block argument's own, or its defining op's).
    pub fn location(self) -> MlirLocation {
        // SAFETY: the value is alive.
        unsafe { mlirValueGetLocation(self.raw()) }
    }

    /// Whether nothing uses this value.
    pub fn is_unused(self) -> bool {
        // SAFETY: the value is alive.
        unsafe { mlirOpOperandIsNull(mlirValueGetFirstUse(self.raw())) }
    }

    /// Every use of the value, in MLIR's use-list order: the op using it and the operand's
    /// position.
    pub fn uses(self) -> Vec<(Op, usize)> {
        let mut uses = Vec::new();
        // SAFETY: the value is alive; the walk stops at the null use past the last, and each
        // user is a live op.
        unsafe {
            let mut operand = mlirValueGetFirstUse(self.raw());
            while !mlirOpOperandIsNull(operand) {
                uses.push((
                    Op::from_raw(mlirOpOperandGetOwner(operand)),
                    mlirOpOperandGetOperandNumber(operand) as usize,
                ));
                operand = mlirOpOperandGetNextUse(operand);
            }
        }
        uses
    }

    /// Replaces every use of this value with `with`.
    pub fn replace_all_uses_with(self, with: Val) {
        // SAFETY: both values are alive in one context.
        unsafe { mlirValueReplaceAllUsesOfWith(self.raw(), with.raw()) }
    }
}
