//! An insertion point and the handful of ops the lowering creates there.
//!
//! The lowering replaces one op at a time by the ops that do its work, so every new op goes right
//! before the op being replaced (or at the end of a block it just created); keeping that place in
//! one value lets each lowering read as the sequence of ops it emits.

use super::types::{
    f32_type, i32_array_attribute, i32_type, i64_type, index_type, integer_attribute, pointer_type,
    symbol_reference, type_attribute,
};
use crate::ir::{create, create_inferring, string_attribute, InsertionPoint, Op, Val};
use mlir_sys::*;
use turbine_dialects::ops::{upstream, OpKind};

/// Where new ops go: before `anchor` in its block (or at the end of `block` when None), with the
/// location they get.
///
/// Like [`Op`], a builder holds C-API handles: its block, anchor and context are alive while it
/// is used, and the handles passed to its methods are alive and of that context.
#[derive(Clone, Copy)]
pub(super) struct Builder {
    /// The context of the IR being built.
    pub(super) context: MlirContext,
    block: MlirBlock,
    anchor: Option<Op>,
    /// The location of the ops built here.
    pub(super) location: MlirLocation,
}

impl Builder {
    /// Before `op` (an op in a block), at its location.
    pub(super) fn before(op: Op) -> Builder {
        Builder {
            context: op.context(),
            block: op.parent_block().expect("the anchor is in a block"),
            anchor: Some(op),
            location: op.location(),
        }
    }

    /// A builder appending to the body of `module` (a `builtin.module`), at the module's location
    /// (declarations and globals).
    pub(super) fn at_module_end(module: Op) -> Builder {
        Builder::at_end(
            module.entry_block().expect("a module has a body"),
            module.context(),
            module.location(),
        )
    }

    /// At the end of `block`, whose ops are of `context`.
    pub(super) fn at_end(
        block: MlirBlock,
        context: MlirContext,
        location: MlirLocation,
    ) -> Builder {
        Builder {
            context,
            block,
            anchor: None,
            location,
        }
    }

    /// Creates an op of kind `kind` with operands, result types (None: inferred), attributes and
    /// regions (detached ones, which the new op takes).
    pub(super) fn create(
        &self,
        kind: impl Into<OpKind>,
        operands: &[Val],
        results: Option<&[MlirType]>,
        attributes: &[(&str, MlirAttribute)],
        regions: &[MlirRegion],
    ) -> Op {
        let point = self
            .anchor
            .map_or(InsertionPoint::End(self.block), InsertionPoint::Before);
        let regions = regions.to_vec();
        match results {
            Some(results) => create(
                point,
                self.location,
                kind,
                operands,
                results,
                attributes,
                regions,
            ),
            None => create_inferring(point, self.location, kind, operands, attributes, regions),
        }
    }

    /// Creates a one-result op and returns the result.
    pub(super) fn value(
        &self,
        kind: impl Into<OpKind>,
        operands: &[Val],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> Val {
        self.create(kind, operands, Some(&[result]), attributes, &[])
            .result(0)
    }

    /// `arith.constant value : r#type` for an integer or index `r#type`.
    fn integer_constant(&self, value: i64, r#type: MlirType) -> Val {
        self.value(
            upstream::Kind::ArithConstant,
            &[],
            r#type,
            &[("value", integer_attribute(r#type, value))],
        )
    }

    /// An `i64` constant.
    pub(super) fn constant_i64(&self, value: i64) -> Val {
        self.integer_constant(value, i64_type(self.context))
    }

    /// An `i32` constant.
    pub(super) fn constant_i32(&self, value: i64) -> Val {
        self.integer_constant(value, i32_type(self.context))
    }

    /// An `index` constant.
    pub(super) fn constant_index(&self, value: i64) -> Val {
        self.integer_constant(value, index_type(self.context))
    }

    /// An `f32` constant.
    pub(super) fn constant_f32(&self, value: f64) -> Val {
        let r#type = f32_type(self.context);
        // SAFETY: the context and the type are alive.
        let attribute = unsafe { mlirFloatAttrDoubleGet(self.context, r#type, value) };
        self.value(
            upstream::Kind::ArithConstant,
            &[],
            r#type,
            &[("value", attribute)],
        )
    }

    /// A one-operand, one-result op without attributes (a cast).
    pub(super) fn cast(&self, kind: impl Into<OpKind>, value: Val, to: MlirType) -> Val {
        self.value(kind, &[value], to, &[])
    }

    /// `func.call @callee(arguments) : (...) -> results`.
    pub(super) fn call(&self, callee: &str, arguments: &[Val], results: &[MlirType]) -> Op {
        self.create(
            upstream::Kind::FuncCall,
            arguments,
            Some(results),
            &[("callee", symbol_reference(self.context, callee))],
            &[],
        )
    }

    /// Calls a runtime function (its i32 status is left unused; see the pass's documentation).
    pub(super) fn call_runtime(&self, callee: &str, arguments: &[Val]) {
        self.call(callee, arguments, &[i32_type(self.context)]);
    }

    /// `llvm.getelementptr` on an i64 array at `base` with the given operands and raw constant
    /// indices (`i32::MIN` marks a dynamic index).
    fn element_address(&self, operands: &[Val], raw_constant_indices: &[i32]) -> Val {
        self.value(
            upstream::Kind::LlvmGetelementptr,
            operands,
            pointer_type(self.context),
            &[
                (
                    "rawConstantIndices",
                    i32_array_attribute(self.context, raw_constant_indices),
                ),
                ("elem_type", type_attribute(i64_type(self.context))),
            ],
        )
    }

    /// Address of word `word` of an i64 array at `base`.
    pub(super) fn word(&self, base: Val, word: usize) -> Val {
        let word = i32::try_from(word).expect("scratch words fit in i32");
        self.element_address(&[base], &[word])
    }

    /// Address of word `index` (an i64 value) of an i64 array at `base`.
    pub(super) fn dynamic_word(&self, base: Val, index: Val) -> Val {
        self.element_address(&[base, index], &[i32::MIN])
    }

    /// `llvm.store value, address`.
    pub(super) fn store(&self, value: Val, address: Val) {
        self.create(
            upstream::Kind::LlvmStore,
            &[value, address],
            Some(&[]),
            &[],
            &[],
        );
    }

    /// `llvm.load address : i64`.
    pub(super) fn load_i64(&self, address: Val) -> Val {
        self.value(
            upstream::Kind::LlvmLoad,
            &[address],
            i64_type(self.context),
            &[],
        )
    }

    /// The null pointer.
    pub(super) fn null(&self) -> Val {
        self.value(
            upstream::Kind::LlvmMlirZero,
            &[],
            pointer_type(self.context),
            &[],
        )
    }

    /// The address of LLVM global `global`.
    pub(super) fn address_of(&self, global: &str) -> Val {
        self.value(
            upstream::Kind::LlvmMlirAddressof,
            &[],
            pointer_type(self.context),
            &[("global_name", symbol_reference(self.context, global))],
        )
    }

    /// A `func.func` named `name` of type `function_type` whose body is `body` (an empty region
    /// for a declaration), with `attributes` besides its name and type.
    pub(super) fn function(
        &self,
        name: &str,
        function_type: MlirType,
        attributes: &[(&str, MlirAttribute)],
        body: MlirRegion,
    ) -> Op {
        let mut all = vec![
            ("sym_name", string_attribute(self.context, name)),
            ("function_type", type_attribute(function_type)),
        ];
        all.extend_from_slice(attributes);
        self.create(upstream::Kind::FuncFunc, &[], Some(&[]), &all, &[body])
    }
}
