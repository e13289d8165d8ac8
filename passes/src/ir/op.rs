//! [`Op`]'s methods: what an op is and holds (name, operands, results, attributes, regions,
//! nesting), and the changes passes make to it. Every safe method keeps live handles live; the
//! two that destroy or move ops, [`Op::erase`] and [`Op::move_to_end`], are `unsafe`.

use super::block::block_ops;
use super::build::{create, InsertionPoint};
use super::diagnostics::{emit_error, emit_remark, emit_warning};
use super::handle::{Op, Val};
use super::strings::{string_ref, to_string};
use melior::ir::Location;
use mlir_sys::*;
use turbine_dialects::ops::OpKind;

impl Op {
    /// The op's name, such as `graph.reshape`.
    pub fn name(self) -> String {
        // SAFETY: the op is alive (see the module doc), and so is its name while it is read.
        unsafe { to_string(mlirIdentifierStr(mlirOperationGetName(self.raw()))) }
    }

    /// The op's kind; `None` for an op of a dialect Turbine does not know.
    pub fn kind(self) -> Option<OpKind> {
        OpKind::from_name(&self.name())
    }

    /// Whether the op is of kind `kind`.
    pub fn is(self, kind: impl Into<OpKind>) -> bool {
        self.kind() == Some(kind.into())
    }

    /// The namespace of the op's dialect: its name up to the first dot (`dsa` for `dsa.dma`).
    pub fn dialect(self) -> String {
        let name = self.name();
        match name.split_once('.') {
            Some((dialect, _)) => dialect.to_string(),
            None => name,
        }
    }

    /// The context the op is in.
    pub fn context(self) -> MlirContext {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetContext(self.raw()) }
    }

    /// The op's location.
    pub fn location(self) -> MlirLocation {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetLocation(self.raw()) }
    }

    /// Operand `index`; panics past the op's operands (MLIR would read out of bounds).
    pub fn operand(self, index: usize) -> Val {
        // SAFETY: the op is alive; the index is checked, and the operand is a live value.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumOperands(self.raw()),
                "operand {index} of '{}'",
                self.name()
            );
            Val::from_raw(mlirOperationGetOperand(self.raw(), index as isize))
        }
    }

    /// The op's operands, in order.
    pub fn operands(self) -> Vec<Val> {
        // SAFETY: the op is alive; indices stay below the operand count, and the operands are
        // live values.
        unsafe {
            (0..mlirOperationGetNumOperands(self.raw()))
                .map(|index| Val::from_raw(mlirOperationGetOperand(self.raw(), index)))
                .collect()
        }
    }

    /// Replaces operand `index`; panics past the op's operands.
    pub fn set_operand(self, index: usize, value: Val) {
        // SAFETY: as for `operand`; the value is alive in the op's context.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumOperands(self.raw()),
                "operand {index} of '{}'",
                self.name()
            );
            mlirOperationSetOperand(self.raw(), index as isize, value.raw())
        }
    }

    /// Replaces all of the op's operands by `operands`.
    pub fn set_operands(self, operands: &[Val]) {
        let raw: Vec<MlirValue> = operands.iter().map(|value| value.raw()).collect();
        // SAFETY: the op and the values are alive in one context; MLIR copies the list.
        unsafe { mlirOperationSetOperands(self.raw(), raw.len() as isize, raw.as_ptr()) }
    }

    /// Result `index`; panics past the op's results.
    pub fn result(self, index: usize) -> Val {
        // SAFETY: the op is alive; the index is checked, and the result lives with the op.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumResults(self.raw()),
                "result {index} of '{}'",
                self.name()
            );
            Val::from_raw(mlirOperationGetResult(self.raw(), index as isize))
        }
    }

    /// The op's results, in order.
    pub fn results(self) -> Vec<Val> {
        // SAFETY: the op is alive; indices stay below the result count, and the results live
        // with the op.
        unsafe {
            (0..mlirOperationGetNumResults(self.raw()))
                .map(|index| Val::from_raw(mlirOperationGetResult(self.raw(), index)))
                .collect()
        }
    }

    /// The attribute `name` (inherent or discardable), None when the op has none.
    pub fn attribute(self, name: &str) -> Option<melior::ir::Attribute<'static>> {
        // SAFETY: the op is alive; the attribute is owned by its context, which stays alive for as
        // long as what is read through the op is used (the 'static is the module doc's contract).
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null()).then(|| melior::ir::Attribute::from_raw(attribute))
        }
    }

    /// The string attribute `name`, None when the op has none. MLIR strings are bytes, so this
    /// reads them lossily rather than as melior's `StringAttribute::value` does, which panics on
    /// a string that is not UTF-8 (`"\FF"` in the IR).
    pub fn string_value(self, name: &str) -> Option<String> {
        // SAFETY: the op is alive; the attribute is checked to be a string before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAString(attribute))
                .then(|| to_string(mlirStringAttrGetValue(attribute)))
        }
    }

    /// The `array<i64: ...>` attribute `name`, None when the op has none of that kind.
    pub fn i64_array_value(self, name: &str) -> Option<Vec<i64>> {
        // SAFETY: the op is alive; the attribute is checked to be a DenseI64Array before it is
        // read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsADenseI64Array(attribute)).then(|| {
                (0..mlirDenseArrayGetNumElements(attribute))
                    .map(|i| mlirDenseI64ArrayGetElement(attribute, i))
                    .collect()
            })
        }
    }

    /// The integer attribute `name`, None when the op has none of that kind.
    pub fn integer_value(self, name: &str) -> Option<i64> {
        // SAFETY: the op is alive; the attribute is checked to be an integer before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAInteger(attribute))
                .then(|| mlirIntegerAttrGetValueInt(attribute))
        }
    }

    /// The float attribute `name`, None when the op has none of that kind.
    pub fn float_value(self, name: &str) -> Option<f64> {
        // SAFETY: the op is alive; the attribute is checked to be a float before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAFloat(attribute))
                .then(|| mlirFloatAttrGetValueDouble(attribute))
        }
    }

    /// The bool attribute `name`, None when the op has none of that kind.
    pub fn bool_value(self, name: &str) -> Option<bool> {
        // SAFETY: the op is alive; the attribute is checked to be a bool before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsABool(attribute))
                .then(|| mlirBoolAttrGetValue(attribute))
        }
    }

    /// Sets the discardable attribute `name`.
    pub fn set_attribute(self, name: &str, attribute: MlirAttribute) {
        // SAFETY: the op and attribute are alive in one context.
        unsafe { mlirOperationSetAttributeByName(self.raw(), string_ref(name), attribute) }
    }

    /// The `sym_name` of a symbol op; panics when the op has no string `sym_name`.
    pub fn symbol_name(self) -> String {
        // SAFETY: the op is alive; the attribute is checked to be a string before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref("sym_name"));
            assert!(
                !attribute.ptr.is_null() && mlirAttributeIsAString(attribute),
                "'{}' is not a symbol",
                self.name()
            );
            to_string(mlirStringAttrGetValue(attribute))
        }
    }

    /// The symbol the flat symbol reference attribute `name` refers to (a call's callee), None
    /// when the op has none of that kind.
    pub fn symbol_reference(self, name: &str) -> Option<String> {
        // SAFETY: the op is alive; the attribute is checked to be a flat symbol reference before
        // it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.raw(), string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAFlatSymbolRef(attribute))
                .then(|| to_string(mlirFlatSymbolRefAttrGetValue(attribute)))
        }
    }

    /// The op this op is nested in, None for a top-level op.
    pub fn parent(self) -> Option<Op> {
        // SAFETY: the op is alive.
        let parent = unsafe { mlirOperationGetParentOperation(self.raw()) };
        // SAFETY: the op holding a live op is alive.
        (!parent.ptr.is_null()).then(|| unsafe { Op::from_raw(parent) })
    }

    /// The closest op of kind `kind` that this op is nested in (itself excluded).
    pub fn enclosing(self, kind: impl Into<OpKind>) -> Option<Op> {
        let kind = kind.into();
        std::iter::successors(self.parent(), |op| op.parent()).find(|op| op.is(kind))
    }

    /// Whether this op is `ancestor` or nested in one of its regions.
    pub fn is_within(self, ancestor: Op) -> bool {
        std::iter::successors(Some(self), |op| op.parent()).any(|op| op == ancestor)
    }

    /// The values that ops nested in this op's regions use but that are defined outside it, in
    /// the order of their first use (what outlining a region must pass in).
    pub fn captured_values(self) -> Vec<Val> {
        let mut captured: Vec<Val> = Vec::new();
        for op in self.collect_pre_order().into_iter().skip(1) {
            for value in op.operands() {
                let defined_inside = match value.defining_op() {
                    Some(definer) => definer.is_within(self),
                    None => value
                        .owner_block()
                        .and_then(super::block_parent)
                        .is_some_and(|holder| holder.is_within(self)),
                };
                if !defined_inside && !captured.contains(&value) {
                    captured.push(value);
                }
            }
        }
        captured
    }

    /// The block holding the op; None for a detached op.
    pub fn parent_block(self) -> Option<MlirBlock> {
        // SAFETY: the op is alive.
        let block = unsafe { mlirOperationGetBlock(self.raw()) };
        (!block.ptr.is_null()).then_some(block)
    }

    /// How many regions the op has (empty ones included).
    pub fn num_regions(self) -> usize {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetNumRegions(self.raw()) as usize }
    }

    /// The blocks of all of the op's regions, region by region, each region's in order.
    pub fn blocks(self) -> Vec<MlirBlock> {
        let mut blocks = Vec::new();
        // SAFETY: the op is alive; the walk stops at each region's null block.
        unsafe {
            for index in 0..mlirOperationGetNumRegions(self.raw()) {
                let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.raw(), index));
                while !block.ptr.is_null() {
                    blocks.push(block);
                    block = mlirBlockGetNextInRegion(block);
                }
            }
        }
        blocks
    }

    /// The first block of the first region (a function's entry block); None when the op has no
    /// region or its first region no block (a declaration).
    pub fn entry_block(self) -> Option<MlirBlock> {
        // SAFETY: the op is alive; the region is read only when it exists.
        unsafe {
            if mlirOperationGetNumRegions(self.raw()) == 0 {
                return None;
            }
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.raw(), 0));
            (!block.ptr.is_null()).then_some(block)
        }
    }

    /// Whether the op has no first block: its first region has none (a declaration), or it has
    /// no region.
    pub fn regions_empty(self) -> bool {
        self.entry_block().is_none()
    }

    /// The ops of the first block of the first region; none when there is no such block.
    pub fn body_ops(self) -> Vec<Op> {
        self.entry_block().map(block_ops).unwrap_or_default()
    }

    /// Argument `index` of the first block of the first region (a function's parameter); panics
    /// when there is no such argument.
    pub fn entry_argument(self, index: usize) -> Val {
        // SAFETY: the op is alive; the region, block and index are checked, and the argument
        // lives with the block.
        unsafe {
            assert!(
                mlirOperationGetNumRegions(self.raw()) > 0,
                "'{}' has no region",
                self.name()
            );
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.raw(), 0));
            assert!(
                !block.ptr.is_null() && (index as isize) < mlirBlockGetNumArguments(block),
                "argument {index} of '{}'",
                self.name()
            );
            Val::from_raw(mlirBlockGetArgument(block, index as isize))
        }
    }

    /// Every op nested in this one (itself included), parents before children.
    pub fn collect_pre_order(self) -> Vec<Op> {
        unsafe extern "C" fn push(
            op: MlirOperation,
            data: *mut std::ffi::c_void,
        ) -> MlirWalkResult {
            // SAFETY: `data` is the Vec below, alive for the walk; `op` is nested in the live op
            // being walked.
            unsafe { (*data.cast::<Vec<Op>>()).push(Op::from_raw(op)) };
            MlirWalkResult_MlirWalkResultAdvance
        }
        let mut ops = Vec::new();
        // SAFETY: the op is alive; the callback only records handles.
        unsafe {
            mlirOperationWalk(
                self.raw(),
                Some(push),
                (&mut ops as *mut Vec<Op>).cast(),
                MlirWalkOrder_MlirWalkPreOrder,
            )
        };
        ops
    }

    /// Creates an op of kind `kind` with `operands` and `results` right before this op, at its
    /// location; panics when this op is detached.
    pub fn create_before(
        self,
        kind: impl Into<OpKind>,
        operands: &[Val],
        results: &[MlirType],
    ) -> Op {
        create(
            InsertionPoint::Before(self),
            self.location(),
            kind,
            operands,
            results,
            &[],
            Vec::new(),
        )
    }

    /// Erases the op, and with it its regions and every op nested in them.
    ///
    /// # Safety
    /// - The op is in a block, or is detached and the caller's (made by [`create`] at
    ///   [`InsertionPoint::Detached`], or a clone): not a top-level op that another owner
    ///   destroys, such as a module a `melior::ir::Module` holds.
    /// - Its results have no uses left, and no op outside it uses a value defined in its
    ///   regions.
    /// - Neither this handle nor any copy of it, nor any handle to its results, its blocks and
    ///   their arguments, or the ops nested in it, is used afterwards.
    pub unsafe fn erase(self) {
        // SAFETY: the op is alive, its block's or the caller's to destroy, and nothing that
        // stays uses what it defines (the contract above).
        unsafe { mlirOperationDestroy(self.raw()) }
    }

    /// Moves the op from its block (if any) to the end of `block`.
    ///
    /// # Safety
    /// - The op is in a block, or is detached and the caller's, as [`Op::erase`] requires: after
    ///   the move `block` owns it, so no other owner may destroy it.
    /// - `block` is alive, in the op's context, and not in one of the op's own regions or nested
    ///   in them (an op cannot hold itself).
    /// - `block` belongs to IR that stays alive for as long as the op's handles are used (the
    ///   promise [`Op::from_raw`] made for the op carries over to its new place).
    pub unsafe fn move_to_end(self, block: MlirBlock) {
        // SAFETY: the op and the block are alive; the block takes the op its old one released
        // (the contract above).
        unsafe {
            mlirOperationRemoveFromParent(self.raw());
            mlirBlockAppendOwnedOperation(block, self.raw());
        }
    }

    /// Emits an error at this op.
    pub fn emit_error(self, message: &str) {
        // SAFETY: the op is alive; the location borrows its context.
        emit_error(unsafe { Location::from_raw(self.location()) }, message)
    }

    /// Emits a remark at this op.
    pub fn emit_remark(self, message: &str) {
        // SAFETY: the op is alive; the location borrows its context.
        emit_remark(unsafe { Location::from_raw(self.location()) }, message)
    }

    /// Emits a warning at this op.
    pub fn emit_warning(self, message: &str) {
        // SAFETY: the op is alive; the location borrows its context.
        emit_warning(unsafe { Location::from_raw(self.location()) }, message)
    }
}
