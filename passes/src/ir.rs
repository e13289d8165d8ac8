//! Small IR helpers over the MLIR C API for rewriting in place, which melior's borrow-based
//! handles make awkward (an op cannot be erased while a walk or another handle borrows it).
//!
//! [`Op`] and [`Val`] are plain copies of C-API handles. They are only valid while the IR they
//! point into is alive and the op has not been erased; passes hold them for the length of one run.

use melior::ir::Location;
use mlir_sys::*;
use std::ffi::CString;
use turbine_dialects::ops::{upstream, OpKind};

/// Emits an error diagnostic at `location` (it reaches `--verify-diagnostics` like any other).
pub fn emit_error(location: Location, message: &str) {
    let message = CString::new(message.replace('\0', " ")).expect("NULs were replaced");
    // SAFETY: the location is valid and MLIR copies the message.
    unsafe { mlirEmitError(location.to_raw(), message.as_ptr()) }
}

/// Emits a remark at `location`: a note about a decision, shown with its location and checked by
/// `expected-remark` under `--verify-diagnostics` (the C API has no function for it).
pub fn emit_remark(location: Location, message: &str) {
    // SAFETY: the location is valid and MLIR copies the message.
    unsafe { turbine_dialects::pass_abi::turbineEmitRemark(location.to_raw(), string_ref(message)) }
}

/// A string reference to `text` for the length of the borrow (MLIR copies what it keeps).
pub(crate) fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Copies the bytes of a string reference MLIR handed out (empty when null).
pub(crate) fn to_string(reference: MlirStringRef) -> String {
    if reference.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR's string refs point at `length` valid bytes while their owner lives, and the
    // caller holds the owner (an attribute, identifier or op) for this call.
    let bytes =
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// An operation handle.
#[derive(Clone, Copy, Debug)]
pub struct Op(pub MlirOperation);

/// A value handle.
#[derive(Clone, Copy, Debug)]
pub struct Val(pub MlirValue);

impl From<&Val> for Val {
    fn from(value: &Val) -> Val {
        *value
    }
}

impl Op {
    /// The handle of `raw`.
    ///
    /// # Safety
    /// `raw` is a live op, and it stays alive (not erased, its module not destroyed) for as long
    /// as this handle, its copies and the handles reached from them are used.
    pub unsafe fn from_raw(raw: MlirOperation) -> Op {
        Op(raw)
    }

    /// The C-API handle.
    pub fn raw(self) -> MlirOperation {
        self.0
    }

    /// The op's name, such as `graph.reshape`.
    pub fn name(self) -> String {
        // SAFETY: the op is alive (see the module doc).
        unsafe { to_string(mlirIdentifierStr(mlirOperationGetName(self.0))) }
    }

    /// The op's kind; `None` for an op of a dialect Turbine does not know.
    pub fn kind(self) -> Option<OpKind> {
        OpKind::from_name(&self.name())
    }

    /// Whether the op is of kind `kind`.
    pub fn is(self, kind: impl Into<OpKind>) -> bool {
        self.kind() == Some(kind.into())
    }

    /// Operand `index`; panics past the op's operands (MLIR would read out of bounds).
    pub fn operand(self, index: usize) -> Val {
        // SAFETY: the op is alive; the index is checked.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumOperands(self.0),
                "operand {index} of '{}'",
                self.name()
            );
            Val(mlirOperationGetOperand(self.0, index as isize))
        }
    }

    /// Replaces operand `index`; panics past the op's operands.
    pub fn set_operand(self, index: usize, value: Val) {
        // SAFETY: as for `operand`.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumOperands(self.0),
                "operand {index} of '{}'",
                self.name()
            );
            mlirOperationSetOperand(self.0, index as isize, value.0)
        }
    }

    /// Result `index`; panics past the op's results.
    pub fn result(self, index: usize) -> Val {
        // SAFETY: the op is alive; the index is checked.
        unsafe {
            assert!(
                (index as isize) < mlirOperationGetNumResults(self.0),
                "result {index} of '{}'",
                self.name()
            );
            Val(mlirOperationGetResult(self.0, index as isize))
        }
    }

    /// The op's location.
    pub fn location(self) -> MlirLocation {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetLocation(self.0) }
    }

    /// Erases the op; its results must have no uses left.
    pub fn erase(self) {
        // SAFETY: the op is alive and nothing uses its results.
        unsafe { mlirOperationDestroy(self.0) }
    }

    /// Creates an op of kind `kind` with `operands` and `results` right before this op.
    pub fn create_before(
        self,
        kind: impl Into<OpKind>,
        operands: &[Val],
        results: &[MlirType],
    ) -> Op {
        let name = kind.into().name();
        // SAFETY: the state is filled with live handles and consumed by mlirOperationCreate.
        unsafe {
            let mut state = mlirOperationStateGet(string_ref(name), self.location());
            let operands: Vec<MlirValue> = operands.iter().map(|value| value.0).collect();
            mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
            mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
            let created = mlirOperationCreate(&mut state);
            let block = mlirOperationGetBlock(self.0);
            mlirBlockInsertOwnedOperationBefore(block, self.0, created);
            Op(created)
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

    /// The op this op is nested in, None for a top-level op.
    pub fn parent(self) -> Option<Op> {
        // SAFETY: the op is alive.
        let parent = unsafe { mlirOperationGetParentOperation(self.0) };
        (!parent.ptr.is_null()).then_some(Op(parent))
    }

    /// The attribute `name` (inherent or discardable), None when the op has none.
    pub fn attribute(self, name: &str) -> Option<melior::ir::Attribute<'static>> {
        // SAFETY: the op is alive; the attribute is owned by its context, which outlives the
        // pass run that holds this handle (the 'static is the module doc's contract).
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null()).then(|| melior::ir::Attribute::from_raw(attribute))
        }
    }

    /// The string attribute `name`, None when the op has none. MLIR strings are bytes, so this
    /// reads them lossily rather than as melior's `StringAttribute::value` does, which panics on
    /// a string that is not UTF-8 (`"\FF"` in the IR).
    pub fn string_value(self, name: &str) -> Option<String> {
        // SAFETY: the op is alive; the attribute is checked to be a string before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAString(attribute))
                .then(|| to_string(mlirStringAttrGetValue(attribute)))
        }
    }

    /// The `array<i64: ...>` attribute `name`, None when the op has none of that kind.
    pub fn i64_array_value(self, name: &str) -> Option<Vec<i64>> {
        // SAFETY: the op is alive; the attribute is checked to be a DenseI64Array before it is
        // read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsADenseI64Array(attribute)).then(|| {
                (0..mlirDenseArrayGetNumElements(attribute))
                    .map(|i| mlirDenseI64ArrayGetElement(attribute, i))
                    .collect()
            })
        }
    }

    /// Sets the discardable attribute `name`.
    pub fn set_attribute(self, name: &str, attribute: MlirAttribute) {
        // SAFETY: the op and attribute are alive in one context.
        unsafe { mlirOperationSetAttributeByName(self.0, string_ref(name), attribute) }
    }

    /// Every op nested in this one (itself included), parents before children.
    pub fn collect_pre_order(self) -> Vec<Op> {
        unsafe extern "C" fn push(
            op: MlirOperation,
            data: *mut std::ffi::c_void,
        ) -> MlirWalkResult {
            // SAFETY: `data` is the Vec below, alive for the walk.
            unsafe { (*data.cast::<Vec<Op>>()).push(Op(op)) };
            MlirWalkResult_MlirWalkResultAdvance
        }
        let mut ops = Vec::new();
        // SAFETY: the callback only records handles.
        unsafe {
            mlirOperationWalk(
                self.0,
                Some(push),
                (&mut ops as *mut Vec<Op>).cast(),
                MlirWalkOrder_MlirWalkPreOrder,
            )
        };
        ops
    }
}

impl Val {
    /// The handle of `raw`.
    ///
    /// # Safety
    /// `raw` is a live value, and its owner (op or block) stays alive for as long as this
    /// handle, its copies and the handles reached from them are used.
    pub unsafe fn from_raw(raw: MlirValue) -> Val {
        Val(raw)
    }

    /// The C-API handle.
    pub fn raw(self) -> MlirValue {
        self.0
    }

    /// The op defining this value, or None for a block argument.
    pub fn defining_op(self) -> Option<Op> {
        // SAFETY: the value is alive.
        unsafe { mlirValueIsAOpResult(self.0).then(|| Op(mlirOpResultGetOwner(self.0))) }
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
        unsafe { mlirValueGetType(self.0) }
    }

    /// The value's location (a block argument's own, or its defining op's).
    pub fn location(self) -> MlirLocation {
        // SAFETY: the value is alive.
        unsafe { mlirValueGetLocation(self.0) }
    }

    /// Whether the two values have the same type.
    pub fn same_type(self, other: Val) -> bool {
        // SAFETY: both values are alive; types are uniqued.
        unsafe { mlirTypeEqual(self.r#type(), other.r#type()) }
    }

    /// Replaces every use of this value with `with`.
    pub fn replace_all_uses_with(self, with: Val) {
        // SAFETY: both values are alive in one context.
        unsafe { mlirValueReplaceAllUsesOfWith(self.0, with.0) }
    }

    /// Whether nothing uses this value.
    pub fn is_unused(self) -> bool {
        // SAFETY: the value is alive.
        unsafe { mlirOpOperandIsNull(mlirValueGetFirstUse(self.0)) }
    }
}

impl Op {
    /// Whether the op's first region has no block (a declaration).
    pub fn regions_empty(self) -> bool {
        // SAFETY: the op is alive.
        unsafe {
            mlirRegionGetFirstBlock(mlirOperationGetRegion(self.0, 0))
                .ptr
                .is_null()
        }
    }

    /// The `sym_name` of a symbol op; panics when the op has no string `sym_name`.
    pub fn symbol_name(self) -> String {
        // SAFETY: the op is alive; the attribute is checked to be a string before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref("sym_name"));
            assert!(
                !attribute.ptr.is_null() && mlirAttributeIsAString(attribute),
                "'{}' is not a symbol",
                self.name()
            );
            to_string(mlirStringAttrGetValue(attribute))
        }
    }

    /// Argument `index` of the first block of the first region (a function's parameter); panics
    /// when there is no such argument.
    pub fn entry_argument(self, index: usize) -> Val {
        // SAFETY: the op is alive; the region, block and index are checked.
        unsafe {
            assert!(
                mlirOperationGetNumRegions(self.0) > 0,
                "'{}' has no region",
                self.name()
            );
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.0, 0));
            assert!(
                !block.ptr.is_null() && (index as isize) < mlirBlockGetNumArguments(block),
                "argument {index} of '{}'",
                self.name()
            );
            Val(mlirBlockGetArgument(block, index as isize))
        }
    }

    /// The ops of the first block of the first region.
    pub fn body_ops(self) -> Vec<Op> {
        let mut ops = Vec::new();
        // SAFETY: the op is alive; the walk only reads handles.
        unsafe {
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.0, 0));
            if block.ptr.is_null() {
                return ops;
            }
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                ops.push(Op(op));
                op = mlirOperationGetNextInBlock(op);
            }
        }
        ops
    }
}

/// Where [`create`] puts a new op.
#[derive(Debug, Clone, Copy)]
pub enum InsertionPoint {
    /// At the end of a block.
    End(MlirBlock),
    /// Before an op of a block.
    Before(Op),
    /// Nowhere: the caller inserts the op (or destroys it).
    Detached,
}

/// A named attribute for [`create`].
pub type NamedAttribute<'a> = (&'a str, MlirAttribute);

/// Creates an op of kind `kind` at `point` with `location`, operands, result types, attributes and
/// regions (which it takes ownership of). Panics when MLIR cannot create it: the callers build
/// ops of registered dialects with the operands their definitions require.
pub fn create(
    point: InsertionPoint,
    location: MlirLocation,
    kind: impl Into<OpKind>,
    operands: &[Val],
    results: &[MlirType],
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    create_named(
        point,
        location,
        kind.into().name(),
        operands,
        results,
        attributes,
        regions,
    )
}

/// [`create`] for an op whose name is data, such as an op an e-graph interned: any op of a
/// dialect registered in the context.
pub fn create_named(
    point: InsertionPoint,
    location: MlirLocation,
    name: &str,
    operands: &[Val],
    results: &[MlirType],
    attributes: &[NamedAttribute],
    regions: Vec<MlirRegion>,
) -> Op {
    // SAFETY: every handle is alive in one context; the state is consumed by mlirOperationCreate,
    // which takes ownership of the regions.
    unsafe {
        let context = mlirLocationGetContext(location);
        let mut state = mlirOperationStateGet(string_ref(name), location);
        let operands: Vec<MlirValue> = operands.iter().map(|value| value.0).collect();
        mlirOperationStateAddOperands(&mut state, operands.len() as isize, operands.as_ptr());
        mlirOperationStateAddResults(&mut state, results.len() as isize, results.as_ptr());
        let named: Vec<MlirNamedAttribute> = attributes
            .iter()
            .map(|(key, value)| {
                mlirNamedAttributeGet(mlirIdentifierGet(context, string_ref(key)), *value)
            })
            .collect();
        mlirOperationStateAddAttributes(&mut state, named.len() as isize, named.as_ptr());
        mlirOperationStateAddOwnedRegions(&mut state, regions.len() as isize, regions.as_ptr());
        let op = mlirOperationCreate(&mut state);
        assert!(
            !op.ptr.is_null(),
            "MLIR creates '{name}' from its required parts"
        );
        match point {
            InsertionPoint::End(block) => mlirBlockAppendOwnedOperation(block, op),
            InsertionPoint::Before(anchor) => {
                mlirBlockInsertOwnedOperationBefore(mlirOperationGetBlock(anchor.0), anchor.0, op)
            }
            InsertionPoint::Detached => {}
        }
        Op(op)
    }
}

/// A region holding one new block with arguments of `types` (at `location`); returns both.
pub fn region_with_block(types: &[MlirType], location: MlirLocation) -> (MlirRegion, MlirBlock) {
    let locations = vec![location; types.len()];
    // SAFETY: the block is handed to the region, which owns it.
    unsafe {
        let block = mlirBlockCreate(types.len() as isize, types.as_ptr(), locations.as_ptr());
        let region = mlirRegionCreate();
        mlirRegionAppendOwnedBlock(region, block);
        (region, block)
    }
}

/// A string attribute.
pub fn string_attribute(context: MlirContext, text: &str) -> MlirAttribute {
    // SAFETY: MLIR copies the text into the context.
    unsafe { mlirStringAttrGet(context, string_ref(text)) }
}

/// An `array<i64: ...>` attribute.
pub fn i64_array(context: MlirContext, values: &[i64]) -> MlirAttribute {
    // SAFETY: MLIR copies the values.
    unsafe { mlirDenseI64ArrayGet(context, values.len() as isize, values.as_ptr()) }
}

/// An `i64` integer attribute.
pub fn i64_attribute(context: MlirContext, value: i64) -> MlirAttribute {
    // SAFETY: the context is alive.
    unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(context, 64), value) }
}

impl Op {
    /// The context the op is in.
    pub fn context(self) -> MlirContext {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetContext(self.0) }
    }

    /// The namespace of the op's dialect: its name up to the first dot (`dsa` for `dsa.dma`).
    pub fn dialect(self) -> String {
        let name = self.name();
        match name.split_once('.') {
            Some((dialect, _)) => dialect.to_string(),
            None => name,
        }
    }

    /// The block holding the op; null for a detached op.
    pub fn parent_block(self) -> MlirBlock {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetBlock(self.0) }
    }

    /// The op's operands, in order.
    pub fn operands(self) -> Vec<Val> {
        // SAFETY: the op is alive; indices stay below the operand count.
        unsafe {
            (0..mlirOperationGetNumOperands(self.0))
                .map(|index| Val(mlirOperationGetOperand(self.0, index)))
                .collect()
        }
    }

    /// Replaces all of the op's operands by `operands`.
    pub fn set_operands(self, operands: &[Val]) {
        let raw: Vec<MlirValue> = operands.iter().map(|value| value.0).collect();
        // SAFETY: the op and the values are alive in one context; MLIR copies the list.
        unsafe { mlirOperationSetOperands(self.0, raw.len() as isize, raw.as_ptr()) }
    }

    /// The op's results, in order.
    pub fn results(self) -> Vec<Val> {
        // SAFETY: the op is alive; indices stay below the result count.
        unsafe {
            (0..mlirOperationGetNumResults(self.0))
                .map(|index| Val(mlirOperationGetResult(self.0, index)))
                .collect()
        }
    }

    /// How many regions the op has (empty ones included).
    pub fn num_regions(self) -> usize {
        // SAFETY: the op is alive.
        unsafe { mlirOperationGetNumRegions(self.0) as usize }
    }

    /// The blocks of all of the op's regions, region by region, each region's in order.
    pub fn blocks(self) -> Vec<MlirBlock> {
        let mut blocks = Vec::new();
        // SAFETY: the op is alive; the walk stops at each region's null block.
        unsafe {
            for index in 0..mlirOperationGetNumRegions(self.0) {
                let mut block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.0, index));
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
            if mlirOperationGetNumRegions(self.0) == 0 {
                return None;
            }
            let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(self.0, 0));
            (!block.ptr.is_null()).then_some(block)
        }
    }

    /// The closest op of kind `kind` that this op is nested in (itself excluded).
    pub fn enclosing(self, kind: impl Into<OpKind>) -> Option<Op> {
        let kind = kind.into();
        std::iter::successors(self.parent(), |op| op.parent()).find(|op| op.is(kind))
    }

    /// The integer attribute `name`, None when the op has none of that kind.
    pub fn integer_value(self, name: &str) -> Option<i64> {
        // SAFETY: the op is alive; the attribute is checked to be an integer before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAInteger(attribute))
                .then(|| mlirIntegerAttrGetValueInt(attribute))
        }
    }

    /// The float attribute `name`, None when the op has none of that kind.
    pub fn float_value(self, name: &str) -> Option<f64> {
        // SAFETY: the op is alive; the attribute is checked to be a float before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAFloat(attribute))
                .then(|| mlirFloatAttrGetValueDouble(attribute))
        }
    }

    /// The bool attribute `name`, None when the op has none of that kind.
    pub fn bool_value(self, name: &str) -> Option<bool> {
        // SAFETY: the op is alive; the attribute is checked to be a bool before it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsABool(attribute))
                .then(|| mlirBoolAttrGetValue(attribute))
        }
    }

    /// The symbol the flat symbol reference attribute `name` refers to (a call's callee), None
    /// when the op has none of that kind.
    pub fn symbol_reference(self, name: &str) -> Option<String> {
        // SAFETY: the op is alive; the attribute is checked to be a flat symbol reference before
        // it is read.
        unsafe {
            let attribute = mlirOperationGetAttributeByName(self.0, string_ref(name));
            (!attribute.ptr.is_null() && mlirAttributeIsAFlatSymbolRef(attribute))
                .then(|| to_string(mlirFlatSymbolRefAttrGetValue(attribute)))
        }
    }

    /// Whether this symbol table op (a module) defines the symbol `name`.
    pub fn defines_symbol(self, name: &str) -> bool {
        // SAFETY: the op is alive; the table is destroyed before returning.
        unsafe {
            let table = mlirSymbolTableCreate(self.0);
            let found = !mlirSymbolTableLookup(table, string_ref(name)).ptr.is_null();
            mlirSymbolTableDestroy(table);
            found
        }
    }

    /// Moves the op from its block to the end of `block`.
    pub fn move_to_end(self, block: MlirBlock) {
        // SAFETY: the op and the block are alive; the block takes the op its old one released.
        unsafe {
            mlirOperationRemoveFromParent(self.0);
            mlirBlockAppendOwnedOperation(block, self.0);
        }
    }
}

impl Val {
    /// Gives the value the type `r#type` (callers keep the IR valid, as a type conversion does).
    pub fn set_type(self, r#type: MlirType) {
        // SAFETY: the value and the type are alive in one context.
        unsafe { mlirValueSetType(self.0, r#type) }
    }

    /// The block this value is an argument of; None for an op's result.
    pub fn owner_block(self) -> Option<MlirBlock> {
        // SAFETY: the value is alive.
        unsafe { mlirValueIsABlockArgument(self.0).then(|| mlirBlockArgumentGetOwner(self.0)) }
    }

    /// Every use of the value, in MLIR's use-list order: the op using it and the operand's
    /// position.
    pub fn uses(self) -> Vec<(Op, usize)> {
        let mut uses = Vec::new();
        // SAFETY: the value is alive; the walk stops at the null use past the last.
        unsafe {
            let mut operand = mlirValueGetFirstUse(self.0);
            while !mlirOpOperandIsNull(operand) {
                uses.push((
                    Op(mlirOpOperandGetOwner(operand)),
                    mlirOpOperandGetOperandNumber(operand) as usize,
                ));
                operand = mlirOpOperandGetNextUse(operand);
            }
        }
        uses
    }
}

/// The ops of `block` (an alive block), in order.
pub fn block_ops(block: MlirBlock) -> Vec<Op> {
    let mut ops = Vec::new();
    // SAFETY: the block is alive; the walk stops at the null op past the last.
    unsafe {
        let mut op = mlirBlockGetFirstOperation(block);
        while !op.ptr.is_null() {
            ops.push(Op(op));
            op = mlirOperationGetNextInBlock(op);
        }
    }
    ops
}

/// The arguments of `block` (an alive block), in order.
pub fn block_arguments(block: MlirBlock) -> Vec<Val> {
    // SAFETY: the block is alive; indices stay below the argument count.
    unsafe {
        (0..mlirBlockGetNumArguments(block))
            .map(|index| Val(mlirBlockGetArgument(block, index)))
            .collect()
    }
}

/// The op whose region holds `block` (an alive block), None for a detached block.
pub fn block_parent(block: MlirBlock) -> Option<Op> {
    // SAFETY: the block is alive.
    let parent = unsafe { mlirBlockGetParentOperation(block) };
    (!parent.ptr.is_null()).then_some(Op(parent))
}
