//! An insertion point and the handful of ops the lowering creates there.
//!
//! The lowering replaces one op at a time by the ops that do its work, so every new op goes right
//! before the op being replaced (or at the end of a block it just created); keeping that place in
//! one value lets each lowering read as the sequence of ops it emits.

use super::ir::string_ref;
use super::types::{
    f32_type, i32_array_attribute, i32_type, i64_type, index_type, integer_attribute, pointer_type,
    string_attribute, symbol_reference, type_attribute,
};
use mlir_sys::*;

/// Where new ops go: before `anchor` in its block (or at the end of `block` when None), with the
/// location they get.
///
/// A builder holds C-API handles, which is why its constructors and every method are `unsafe`:
/// the contract of each is that the builder's block, anchor and context are alive, and that the
/// handles passed are alive and of that context.
#[derive(Clone, Copy)]
pub(super) struct Builder {
    /// The context of the IR being built.
    pub(super) context: MlirContext,
    block: MlirBlock,
    anchor: Option<MlirOperation>,
    /// The location of the ops built here.
    pub(super) location: MlirLocation,
}

impl Builder {
    /// Before `op`, at its location.
    ///
    /// # Safety
    /// `op` is alive and in a block, and stays so while the builder is used.
    pub(super) unsafe fn before(op: MlirOperation) -> Builder {
        // SAFETY: the caller's guarantee.
        unsafe {
            Builder {
                context: mlirOperationGetContext(op),
                block: mlirOperationGetBlock(op),
                anchor: Some(op),
                location: mlirOperationGetLocation(op),
            }
        }
    }

    /// A builder appending to the body of `module`, at the module's location (declarations and
    /// globals).
    ///
    /// # Safety
    /// `module` is an alive `builtin.module` while the builder is used.
    pub(super) unsafe fn at_module_end(module: MlirOperation) -> Builder {
        // SAFETY: the caller's guarantee; the body is the module's only region's first block.
        unsafe {
            Builder::at_end(
                mlirRegionGetFirstBlock(mlirOperationGetRegion(module, 0)),
                mlirOperationGetContext(module),
                mlirOperationGetLocation(module),
            )
        }
    }

    /// At the end of `block`.
    ///
    /// # Safety
    /// `block`, `context` and `location` are alive (the block's ops of that context) while the
    /// builder is used.
    pub(super) unsafe fn at_end(
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

    /// Inserts a detached op at the insertion point.
    ///
    /// # Safety
    /// `op` is alive and not in a block; the block takes ownership.
    pub(super) unsafe fn insert(&self, op: MlirOperation) -> MlirOperation {
        // SAFETY: the caller's guarantee and the builder's (see the type).
        unsafe {
            match self.anchor {
                Some(anchor) => mlirBlockInsertOwnedOperationBefore(self.block, anchor, op),
                None => mlirBlockAppendOwnedOperation(self.block, op),
            }
        }
        op
    }

    /// Creates `name` with operands, result types (None: inferred), attributes and regions.
    ///
    /// # Safety
    /// The handles are alive and of the builder's context; the regions are detached and the new
    /// op takes them.
    pub(super) unsafe fn create(
        &self,
        name: &str,
        operands: &[MlirValue],
        results: Option<&[MlirType]>,
        attributes: &[(&str, MlirAttribute)],
        regions: &[MlirRegion],
    ) -> MlirOperation {
        // SAFETY: the caller's guarantee; the state is filled with live handles and consumed by
        // mlirOperationCreate.
        unsafe {
            let mut state = mlirOperationStateGet(string_ref(name), self.location);
            mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
            match results {
                Some(results) => mlirOperationStateAddResults(
                    &mut state,
                    results.len() as isize,
                    results.as_ptr(),
                ),
                None => mlirOperationStateEnableResultTypeInference(&mut state),
            }
            let named: Vec<MlirNamedAttribute> = attributes
                .iter()
                .map(|(name, value)| {
                    mlirNamedAttributeGet(mlirIdentifierGet(self.context, string_ref(name)), *value)
                })
                .collect();
            mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
            mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
            let op = mlirOperationCreate(&mut state);
            assert!(
                !op.ptr.is_null(),
                "'{name}' is created with its required operands and types"
            );
            self.insert(op)
        }
    }

    /// Creates a one-result op and returns the result.
    pub(super) unsafe fn value(
        &self,
        name: &str,
        operands: &[MlirValue],
        result: MlirType,
        attributes: &[(&str, MlirAttribute)],
    ) -> MlirValue {
        // SAFETY: the caller's guarantee; the op has one result.
        unsafe {
            mlirOperationGetResult(
                self.create(name, operands, Some(&[result]), attributes, &[]),
                0,
            )
        }
    }

    /// `arith.constant value : r#type` for an integer or index `r#type`.
    ///
    /// # Safety
    /// `r#type` is an integer or index type of its context.
    unsafe fn integer_constant(&self, value: i64, r#type: MlirType) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.value(
                "arith.constant",
                &[],
                r#type,
                &[("value", integer_attribute(r#type, value))],
            )
        }
    }

    /// An `i64` constant.
    pub(super) unsafe fn constant_i64(&self, value: i64) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.integer_constant(value, i64_type(self.context)) }
    }

    /// An `i32` constant.
    pub(super) unsafe fn constant_i32(&self, value: i64) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.integer_constant(value, i32_type(self.context)) }
    }

    /// An `index` constant.
    pub(super) unsafe fn constant_index(&self, value: i64) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.integer_constant(value, index_type(self.context)) }
    }

    /// An `f32` constant.
    pub(super) unsafe fn constant_f32(&self, value: f64) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe {
            let r#type = f32_type(self.context);
            self.value(
                "arith.constant",
                &[],
                r#type,
                &[("value", mlirFloatAttrDoubleGet(self.context, r#type, value))],
            )
        }
    }

    /// A one-operand, one-result op without attributes (a cast).
    pub(super) unsafe fn cast(&self, name: &str, value: MlirValue, to: MlirType) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.value(name, &[value], to, &[]) }
    }

    /// `func.call @callee(arguments) : (...) -> results`.
    pub(super) unsafe fn call(
        &self,
        callee: &str,
        arguments: &[MlirValue],
        results: &[MlirType],
    ) -> MlirOperation {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.create(
                "func.call",
                arguments,
                Some(results),
                &[("callee", symbol_reference(self.context, callee))],
                &[],
            )
        }
    }

    /// Calls a runtime function (its i32 status is left unused; see the pass's documentation).
    pub(super) unsafe fn call_runtime(&self, callee: &str, arguments: &[MlirValue]) {
        // SAFETY: the caller's guarantee.
        unsafe { self.call(callee, arguments, &[i32_type(self.context)]) };
    }

    /// `llvm.getelementptr` on an i64 array at `base` with the given operands and raw constant
    /// indices (`i32::MIN` marks a dynamic index).
    unsafe fn element_address(
        &self,
        operands: &[MlirValue],
        raw_constant_indices: &[i32],
    ) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.value(
                "llvm.getelementptr",
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
    }

    /// Address of word `word` of an i64 array at `base`.
    pub(super) unsafe fn word(&self, base: MlirValue, word: usize) -> MlirValue {
        let word = i32::try_from(word).expect("scratch words fit in i32");
        // SAFETY: the caller's guarantee.
        unsafe { self.element_address(&[base], &[word]) }
    }

    /// Address of word `index` (an i64 value) of an i64 array at `base`.
    pub(super) unsafe fn dynamic_word(&self, base: MlirValue, index: MlirValue) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.element_address(&[base, index], &[i32::MIN]) }
    }

    /// `llvm.store value, address`.
    pub(super) unsafe fn store(&self, value: MlirValue, address: MlirValue) {
        // SAFETY: the caller's guarantee.
        unsafe { self.create("llvm.store", &[value, address], Some(&[]), &[], &[]) };
    }

    /// `llvm.load address : i64`.
    pub(super) unsafe fn load_i64(&self, address: MlirValue) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.value("llvm.load", &[address], i64_type(self.context), &[]) }
    }

    /// The null pointer.
    pub(super) unsafe fn null(&self) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe { self.value("llvm.mlir.zero", &[], pointer_type(self.context), &[]) }
    }

    /// The address of LLVM global `global`.
    pub(super) unsafe fn address_of(&self, global: &str) -> MlirValue {
        // SAFETY: the caller's guarantee.
        unsafe {
            self.value(
                "llvm.mlir.addressof",
                &[],
                pointer_type(self.context),
                &[("global_name", symbol_reference(self.context, global))],
            )
        }
    }

    /// A `func.func` named `name` of type `function_type` whose body is `body` (an empty region
    /// for a declaration), with `attributes` besides its name and type.
    pub(super) unsafe fn function(
        &self,
        name: &str,
        function_type: MlirType,
        attributes: &[(&str, MlirAttribute)],
        body: MlirRegion,
    ) -> MlirOperation {
        // SAFETY: the caller's guarantee.
        unsafe {
            let mut all = vec![
                ("sym_name", string_attribute(self.context, name)),
                ("function_type", type_attribute(function_type)),
            ];
            all.extend_from_slice(attributes);
            self.create("func.func", &[], Some(&[]), &all, &[body])
        }
    }
}
