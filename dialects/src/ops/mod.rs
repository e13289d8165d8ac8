//! Typed views and builders of the Turbine dialects' ops, generated at build time from the ODS
//! `.td` files (`build/ods.rs` reads TableGen's JSON dump, `build/rust_ops.rs` writes the Rust).
//!
//! For each op `graph.conv2d` the dialect's module has:
//!
//! - a view, `Conv2dOp<'c, 'a>`, over a melior [`OperationRef`]: `Conv2dOp::cast(op)` is
//!   `Some` exactly when `op` is a `graph.conv2d` (the one place its name is compared), and the
//!   view reads operands, results, regions and attributes by their ODS names, typed by their ODS
//!   kind (`strides()` is a `Vec<i64>`, `activation()` an `Option<Activation>`, a default-valued
//!   attribute that is absent reads as its ODS default);
//! - a builder, `Conv2dOp::builder(location, result types, operands, required attributes)`, whose
//!   setters add optional operands and attributes, and whose `build()` gives the new
//!   [`Operation`];
//! - `Conv2dOp::NAME` and, for each trait the dialect declares (the graph dialect's
//!   `Elementwise`), a constant saying whether the op has it;
//!
//! and the module has `AnyOp`, an enum of every op's view for `match`ing on the kind of an op,
//! plus `OPERATION_NAMES` and a list of the ops with each dialect trait (`ELEMENTWISE_OPS`).
//!
//! Views assume a verified op: an accessor of an op that lacks a required attribute or operand
//! (one built by hand and never verified) panics, naming the op and the missing part.

use crate::attributes::EnumAttribute;
use melior::ir::{
    operation::{OperationLike, OperationResult},
    Attribute, AttributeLike, Block, Location, Operation, OperationRef, Region, RegionRef, Type,
    TypeLike, Value, ValueLike,
};
use mlir_sys::{
    MlirAttribute, MlirBlock, MlirNamedAttribute, MlirRegion, MlirStringRef, MlirType, MlirValue,
};
use std::{fmt, ops::Range};

/// The ops of the `graph` dialect (`include/graph/GraphOps.td`): value-semantics tensor operators.
pub mod graph {
    include!(concat!(env!("OUT_DIR"), "/ops/graph.rs"));

    /// Whether `op` has the graph dialect's `Elementwise` trait, asked of the registered op
    /// (`turbineGraphOpIsElementwise`); for an op known at compile time, its view's
    /// `ELEMENTWISE` constant says the same.
    pub fn is_elementwise(op: melior::ir::OperationRef) -> bool {
        crate::attributes::graph::is_elementwise(&op)
    }
}

/// The ops of the `instance` dialect (`include/instance/InstanceOps.td`): GraphTurbo's groups,
/// instances and their data movement.
pub mod instance {
    include!(concat!(env!("OUT_DIR"), "/ops/instance.rs"));
}

/// The ops of the `dsa` dialect (`include/dsa/DsaOps.td`): buffers, DMA, compute units, kernels.
pub mod dsa {
    include!(concat!(env!("OUT_DIR"), "/ops/dsa.rs"));
}

mod kind;
pub mod upstream;

pub use kind::OpKind;

/// What every generated op view has, for code generic over the kind of op.
pub trait OpView<'c: 'a, 'a>: Copy + Into<OperationRef<'c, 'a>> {
    /// The op's full name, such as `graph.conv2d`.
    const NAME: &'static str;

    /// The view of `op` when it is an op of this kind.
    fn cast(op: OperationRef<'c, 'a>) -> Option<Self>;

    /// The viewed operation.
    fn operation(&self) -> OperationRef<'c, 'a>;
}

/// The ops of kind `T` among those directly in `block`, in order.
pub fn ops_in<'c: 'a, 'a, T: OpView<'c, 'a>>(
    block: melior::ir::BlockRef<'c, 'a>,
) -> impl Iterator<Item = T> + use<'c, 'a, T> {
    use melior::ir::block::BlockLike;
    std::iter::successors(block.first_operation(), |op| op.next_in_block()).filter_map(T::cast)
}

/// The error of a view's `TryFrom<OperationRef>`: the op is of another kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrongOp {
    /// The name the view wanted.
    pub expected: &'static str,
    /// The name the op has.
    pub found: String,
}

impl WrongOp {
    pub(crate) fn new(expected: &'static str, op: OperationRef) -> Self {
        Self {
            expected,
            found: support::name(op).to_string(),
        }
    }
}

impl fmt::Display for WrongOp {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(
            formatter,
            "expected a `{}`, found a `{}`",
            self.expected, self.found
        )
    }
}

impl std::error::Error for WrongOp {}

/// The values of a variadic operand.
#[derive(Clone)]
pub struct Operands<'c, 'a> {
    op: OperationRef<'c, 'a>,
    range: Range<usize>,
}

impl<'c, 'a> Iterator for Operands<'c, 'a> {
    type Item = Value<'c, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.range
            .next()
            .map(|index| support::operand(self.op, index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Operands<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range
            .next_back()
            .map(|index| support::operand(self.op, index))
    }
}

impl ExactSizeIterator for Operands<'_, '_> {}

/// The values of a variadic result.
#[derive(Clone)]
pub struct Results<'c, 'a> {
    op: OperationRef<'c, 'a>,
    range: Range<usize>,
}

impl<'c, 'a> Iterator for Results<'c, 'a> {
    type Item = OperationResult<'c, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        self.range
            .next()
            .map(|index| support::result(self.op, index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.range.size_hint()
    }
}

impl DoubleEndedIterator for Results<'_, '_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.range
            .next_back()
            .map(|index| support::result(self.op, index))
    }
}

impl ExactSizeIterator for Results<'_, '_> {}

/// What the generated code calls: reading operands and attributes of an op, making attributes
/// and ops. Every function that reads an attribute takes the op's and the attribute's names for
/// the panic message of an unverified op.
pub(crate) mod support {
    use super::*;

    /// The op's name as bytes; non-UTF-8 names (MLIR never makes them) read as empty.
    pub fn name<'c>(op: OperationRef<'c, '_>) -> &'c str {
        // SAFETY: the op is alive; its name is an identifier owned by the context ('c).
        let reference =
            unsafe { mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw())) };
        std::str::from_utf8(bytes(reference)).unwrap_or_default()
    }

    fn bytes<'s>(reference: MlirStringRef) -> &'s [u8] {
        if reference.data.is_null() {
            return &[];
        }
        // SAFETY: MLIR string refs point at `length` valid bytes owned by the context.
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) }
    }

    /// An owned copy of a string reference, invalid UTF-8 replaced.
    pub fn lossy(reference: MlirStringRef) -> String {
        String::from_utf8_lossy(bytes(reference)).into_owned()
    }

    /// How one ODS operand or result counts (the generator's `Arity`).
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Arity {
        /// One value.
        Single,
        /// Zero or one.
        Optional,
        /// Any number.
        Variadic,
    }

    /// How the sizes of several variadic operands (or results) are told apart.
    #[derive(Clone, Copy, PartialEq, Eq)]
    pub enum Segments {
        /// At most one is not `Single`; it takes what the others leave.
        Fixed,
        /// `SameVariadicOperandSize`: the non-`Single` ones share the rest equally.
        #[allow(
            dead_code,
            reason = "generated for `SameVariadicOperandSize`, which no .td uses yet"
        )]
        SameSize,
        /// `AttrSizedOperandSegments` / `AttrSizedResultSegments`: this attribute lists them.
        #[allow(
            dead_code,
            reason = "generated for `AttrSizedOperandSegments`, which no .td uses yet"
        )]
        Attribute(&'static str),
    }

    /// The positions of ODS operand `index` among the op's operands.
    pub fn operand_segment(
        op: OperationRef,
        arities: &[Arity],
        segments: Segments,
        index: usize,
    ) -> Range<usize> {
        segment(op, arities, segments, op.operand_count(), index)
    }

    /// The positions of ODS result `index` among the op's results.
    pub fn result_segment(
        op: OperationRef,
        arities: &[Arity],
        segments: Segments,
        index: usize,
    ) -> Range<usize> {
        segment(op, arities, segments, op.result_count(), index)
    }

    fn segment(
        op: OperationRef,
        arities: &[Arity],
        segments: Segments,
        total: usize,
        index: usize,
    ) -> Range<usize> {
        let op_name = name(op);
        if let Segments::Attribute(attribute_name) = segments {
            let sizes = dense_i32_array(
                op_name,
                attribute_name,
                required(op, op_name, attribute_name),
            );
            assert_eq!(
                sizes.len(),
                arities.len(),
                "`{op_name}`: `{attribute_name}` has the wrong length"
            );
            let size =
                |i: usize| usize::try_from(sizes[i]).expect("segment sizes are not negative");
            let start: usize = (0..index).map(size).sum();
            return start..start + size(index);
        }
        let dynamic = arities
            .iter()
            .filter(|arity| **arity != Arity::Single)
            .count();
        let rest = total
            .checked_sub(arities.len() - dynamic)
            .unwrap_or_else(|| {
                panic!(
                    "`{op_name}` has {total} values where ODS declares at least {}",
                    arities.len() - dynamic
                )
            });
        let each = match (dynamic, segments) {
            (0, _) => 0,
            (_, Segments::SameSize) => rest / dynamic,
            _ => rest,
        };
        let size = |arity: Arity| if arity == Arity::Single { 1 } else { each };
        let start: usize = arities[..index].iter().map(|&arity| size(arity)).sum();
        start..start + size(arities[index])
    }

    /// Operand `index`; panics past the op's operands.
    pub fn operand<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Value<'c, 'a> {
        op.operand(index)
            .unwrap_or_else(|_| panic!("`{}` has no operand {index}", name(op)))
    }

    /// The operand in `range`, None when it is empty (an absent `Optional` operand).
    pub fn optional_operand<'c, 'a>(
        op: OperationRef<'c, 'a>,
        range: Range<usize>,
    ) -> Option<Value<'c, 'a>> {
        (!range.is_empty()).then(|| operand(op, range.start))
    }

    /// The operands in `range`.
    pub fn operands<'c, 'a>(op: OperationRef<'c, 'a>, range: Range<usize>) -> Operands<'c, 'a> {
        Operands { op, range }
    }

    /// Result `index`; panics past the op's results.
    pub fn result<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> OperationResult<'c, 'a> {
        op.result(index)
            .unwrap_or_else(|_| panic!("`{}` has no result {index}", name(op)))
    }

    /// The result in `range`, None when it is empty.
    #[allow(
        dead_code,
        reason = "generated code calls it for an `Optional` result, which no .td uses yet"
    )]
    pub fn optional_result<'c, 'a>(
        op: OperationRef<'c, 'a>,
        range: Range<usize>,
    ) -> Option<OperationResult<'c, 'a>> {
        (!range.is_empty()).then(|| result(op, range.start))
    }

    /// The results in `range`.
    pub fn results<'c, 'a>(op: OperationRef<'c, 'a>, range: Range<usize>) -> Results<'c, 'a> {
        Results { op, range }
    }

    /// Region `index`; panics past the op's regions.
    pub fn region<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> RegionRef<'c, 'a> {
        op.region(index)
            .unwrap_or_else(|_| panic!("`{}` has no region {index}", name(op)))
    }

    /// The regions from `index` on (a `VariadicRegion`, always last).
    #[allow(
        dead_code,
        reason = "generated code calls it for a `VariadicRegion`, which no .td uses yet"
    )]
    pub fn regions_from<'c, 'a>(op: OperationRef<'c, 'a>, index: usize) -> Vec<RegionRef<'c, 'a>> {
        (index..op.region_count()).map(|i| region(op, i)).collect()
    }

    /// The attribute `attribute` of `op` (inherent or discardable), None when absent.
    pub fn attribute<'c>(op: OperationRef<'c, '_>, attribute: &str) -> Option<Attribute<'c>> {
        let reference = MlirStringRef {
            data: attribute.as_ptr().cast(),
            length: attribute.len(),
        };
        // SAFETY: the op is alive; the attribute is owned by its context.
        let raw = unsafe { mlir_sys::mlirOperationGetAttributeByName(op.to_raw(), reference) };
        // SAFETY: non-null, so a live attribute.
        (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
    }

    /// The attribute `attribute`, which the op must have.
    pub fn required<'c>(op: OperationRef<'c, '_>, op_name: &str, attribute: &str) -> Attribute<'c> {
        self::attribute(op, attribute).unwrap_or_else(|| {
            panic!("`{op_name}` has no `{attribute}` attribute (the op is not verified)")
        })
    }

    fn mismatch(op: &str, attribute: &str, expected: &str, found: MlirAttribute) -> ! {
        // SAFETY: the attribute is alive.
        let found = unsafe { Attribute::from_raw(found) };
        panic!("`{op}` attribute `{attribute}` is {found}, not {expected} (the op is not verified)")
    }

    /// Reads a dense array of `count` elements with `get`.
    fn dense<T>(
        op: &str,
        attribute: &str,
        value: Attribute,
        expected: &str,
        is_a: unsafe extern "C" fn(MlirAttribute) -> bool,
        get: unsafe extern "C" fn(MlirAttribute, isize) -> T,
    ) -> Vec<T> {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive; elements are read within its length, from an array of
        // the kind `is_a` checked.
        unsafe {
            if !is_a(raw) {
                mismatch(op, attribute, expected, raw);
            }
            let count = mlir_sys::mlirDenseArrayGetNumElements(raw);
            (0..count).map(|index| get(raw, index)).collect()
        }
    }

    /// A `DenseI32ArrayAttr`.
    pub fn dense_i32_array(op: &str, attribute: &str, value: Attribute) -> Vec<i32> {
        use mlir_sys::{mlirAttributeIsADenseI32Array, mlirDenseI32ArrayGetElement};
        dense(
            op,
            attribute,
            value,
            "an i32 array",
            mlirAttributeIsADenseI32Array,
            mlirDenseI32ArrayGetElement,
        )
    }

    /// A `DenseI64ArrayAttr`.
    pub fn dense_i64_array(op: &str, attribute: &str, value: Attribute) -> Vec<i64> {
        use mlir_sys::{mlirAttributeIsADenseI64Array, mlirDenseI64ArrayGetElement};
        dense(
            op,
            attribute,
            value,
            "an i64 array",
            mlirAttributeIsADenseI64Array,
            mlirDenseI64ArrayGetElement,
        )
    }

    /// A `DenseF32ArrayAttr`.
    pub fn dense_f32_array(op: &str, attribute: &str, value: Attribute) -> Vec<f32> {
        use mlir_sys::{mlirAttributeIsADenseF32Array, mlirDenseF32ArrayGetElement};
        dense(
            op,
            attribute,
            value,
            "an f32 array",
            mlirAttributeIsADenseF32Array,
            mlirDenseF32ArrayGetElement,
        )
    }

    /// A `DenseF64ArrayAttr`.
    #[allow(
        dead_code,
        reason = "generated code calls it for a `DenseF64ArrayAttr`, which no .td uses yet"
    )]
    pub fn dense_f64_array(op: &str, attribute: &str, value: Attribute) -> Vec<f64> {
        use mlir_sys::{mlirAttributeIsADenseF64Array, mlirDenseF64ArrayGetElement};
        dense(
            op,
            attribute,
            value,
            "an f64 array",
            mlirAttributeIsADenseF64Array,
            mlirDenseF64ArrayGetElement,
        )
    }

    /// An `IntegerAttr` of at most 64 bits, sign- or zero-extended by its type's signedness
    /// (an unsigned value above `i64::MAX` wraps).
    pub fn integer(op: &str, attribute: &str, value: Attribute) -> i64 {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be an integer attribute.
        unsafe {
            if !mlir_sys::mlirAttributeIsAInteger(raw) {
                mismatch(op, attribute, "an integer", raw);
            }
            let r#type = mlir_sys::mlirAttributeGetType(raw);
            if mlir_sys::mlirTypeIsAInteger(r#type) && mlir_sys::mlirIntegerTypeIsSigned(r#type) {
                mlir_sys::mlirIntegerAttrGetValueSInt(raw)
            } else if mlir_sys::mlirTypeIsAInteger(r#type)
                && mlir_sys::mlirIntegerTypeIsUnsigned(r#type)
            {
                mlir_sys::mlirIntegerAttrGetValueUInt(raw) as i64
            } else {
                mlir_sys::mlirIntegerAttrGetValueInt(raw)
            }
        }
    }

    /// A `FloatAttr`, widened to f64.
    pub fn float(op: &str, attribute: &str, value: Attribute) -> f64 {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be a float attribute.
        unsafe {
            if !mlir_sys::mlirAttributeIsAFloat(raw) {
                mismatch(op, attribute, "a float", raw);
            }
            mlir_sys::mlirFloatAttrGetValueDouble(raw)
        }
    }

    /// A `BoolAttr`.
    pub fn boolean(op: &str, attribute: &str, value: Attribute) -> bool {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be a bool attribute.
        unsafe {
            if !mlir_sys::mlirAttributeIsABool(raw) {
                mismatch(op, attribute, "a bool", raw);
            }
            mlir_sys::mlirBoolAttrGetValue(raw)
        }
    }

    /// A `StringAttr`'s bytes, invalid UTF-8 replaced.
    pub fn string(op: &str, attribute: &str, value: Attribute) -> String {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be a string attribute.
        unsafe {
            if !mlir_sys::mlirAttributeIsAString(raw) {
                mismatch(op, attribute, "a string", raw);
            }
            lossy(mlir_sys::mlirStringAttrGetValue(raw))
        }
    }

    /// A `FlatSymbolRefAttr`'s symbol, invalid UTF-8 replaced.
    pub fn symbol(op: &str, attribute: &str, value: Attribute) -> String {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be a flat symbol reference.
        unsafe {
            if !mlir_sys::mlirAttributeIsAFlatSymbolRef(raw) {
                mismatch(op, attribute, "a flat symbol reference", raw);
            }
            lossy(mlir_sys::mlirFlatSymbolRefAttrGetValue(raw))
        }
    }

    /// A `TypeAttr`'s type.
    pub fn type_value<'c>(op: &str, attribute: &str, value: Attribute<'c>) -> Type<'c> {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be a type attribute; the type is owned by
        // its context.
        unsafe {
            if !mlir_sys::mlirAttributeIsAType(raw) {
                mismatch(op, attribute, "a type", raw);
            }
            Type::from_raw(mlir_sys::mlirTypeAttrGetValue(raw))
        }
    }

    /// An `ArrayAttr`'s elements.
    pub fn array<'c>(op: &str, attribute: &str, value: Attribute<'c>) -> Vec<Attribute<'c>> {
        let raw = value.to_raw();
        // SAFETY: the attribute is alive and checked to be an array; elements are read within
        // its length and owned by the context.
        unsafe {
            if !mlir_sys::mlirAttributeIsAArray(raw) {
                mismatch(op, attribute, "an array", raw);
            }
            (0..mlir_sys::mlirArrayAttrGetNumElements(raw))
                .map(|index| Attribute::from_raw(mlir_sys::mlirArrayAttrGetElement(raw, index)))
                .collect()
        }
    }

    /// A case of the enumeration `E`.
    pub fn enumeration<E: EnumAttribute>(op: &str, attribute: &str, value: Attribute) -> E {
        mirrored(op, attribute, value, E::from_attribute)
    }

    /// An attribute read by its Rust mirror's `from_attribute` (`Split`, `Target`).
    pub fn mirrored<'c, T>(
        op: &str,
        attribute: &str,
        value: Attribute<'c>,
        from_attribute: impl FnOnce(Attribute<'c>) -> Option<T>,
    ) -> T {
        from_attribute(value).unwrap_or_else(|| {
            let expected = std::any::type_name::<T>()
                .rsplit("::")
                .next()
                .unwrap_or_default();
            mismatch(op, attribute, &format!("a {expected}"), value.to_raw())
        })
    }

    fn context(location: Location) -> mlir_sys::MlirContext {
        // SAFETY: the location is alive.
        unsafe { mlir_sys::mlirLocationGetContext(location.to_raw()) }
    }

    /// An attribute made in `location`'s context ('c).
    fn made<'c>(_location: Location<'c>, raw: MlirAttribute) -> Attribute<'c> {
        assert!(!raw.ptr.is_null(), "MLIR could not make an attribute");
        // SAFETY: non-null and owned by the context of the location, which lives for 'c.
        unsafe { Attribute::from_raw(raw) }
    }

    /// `array<i32: ...>`.
    #[allow(
        dead_code,
        reason = "generated code calls it for `AttrSizedOperandSegments` and `DenseI32ArrayAttr`, \
                  which no .td uses yet"
    )]
    pub fn dense_i32_array_attribute<'c>(location: Location<'c>, values: &[i32]) -> Attribute<'c> {
        // SAFETY: the context is alive; MLIR copies the values.
        made(location, unsafe {
            mlir_sys::mlirDenseI32ArrayGet(
                context(location),
                values.len() as isize,
                values.as_ptr(),
            )
        })
    }

    /// `array<i64: ...>`.
    pub fn dense_i64_array_attribute<'c>(location: Location<'c>, values: &[i64]) -> Attribute<'c> {
        // SAFETY: as for `dense_i32_array_attribute`.
        made(location, unsafe {
            mlir_sys::mlirDenseI64ArrayGet(
                context(location),
                values.len() as isize,
                values.as_ptr(),
            )
        })
    }

    /// `array<f32: ...>`.
    pub fn dense_f32_array_attribute<'c>(location: Location<'c>, values: &[f32]) -> Attribute<'c> {
        // SAFETY: as for `dense_i32_array_attribute`.
        made(location, unsafe {
            mlir_sys::mlirDenseF32ArrayGet(
                context(location),
                values.len() as isize,
                values.as_ptr(),
            )
        })
    }

    /// `array<f64: ...>`.
    #[allow(
        dead_code,
        reason = "generated code calls it for a `DenseF64ArrayAttr`, which no .td uses yet"
    )]
    pub fn dense_f64_array_attribute<'c>(location: Location<'c>, values: &[f64]) -> Attribute<'c> {
        // SAFETY: as for `dense_i32_array_attribute`.
        made(location, unsafe {
            mlir_sys::mlirDenseF64ArrayGet(
                context(location),
                values.len() as isize,
                values.as_ptr(),
            )
        })
    }

    /// An integer attribute of type `iN`, `siN` or `uiN` (`signedness` -1, 0 or 1: signed,
    /// signless, unsigned), `value` truncated to the width.
    pub fn integer_attribute<'c>(
        location: Location<'c>,
        width: u32,
        signedness: i8,
        value: i64,
    ) -> Attribute<'c> {
        let context = context(location);
        // SAFETY: the context is alive.
        made(location, unsafe {
            let r#type: MlirType = match signedness {
                -1 => mlir_sys::mlirIntegerTypeSignedGet(context, width),
                1 => mlir_sys::mlirIntegerTypeUnsignedGet(context, width),
                _ => mlir_sys::mlirIntegerTypeGet(context, width),
            };
            mlir_sys::mlirIntegerAttrGet(r#type, value)
        })
    }

    /// A float attribute of type `f32` or `f64` (`width`).
    pub fn float_attribute<'c>(location: Location<'c>, width: u32, value: f64) -> Attribute<'c> {
        let context = context(location);
        // SAFETY: the context is alive.
        made(location, unsafe {
            let r#type = if width == 32 {
                mlir_sys::mlirF32TypeGet(context)
            } else {
                mlir_sys::mlirF64TypeGet(context)
            };
            mlir_sys::mlirFloatAttrDoubleGet(context, r#type, value)
        })
    }

    /// `true` or `false`.
    pub fn bool_attribute<'c>(location: Location<'c>, value: bool) -> Attribute<'c> {
        // SAFETY: the context is alive.
        made(location, unsafe {
            mlir_sys::mlirBoolAttrGet(context(location), value.into())
        })
    }

    /// `unit`.
    pub fn unit_attribute<'c>(location: Location<'c>) -> Attribute<'c> {
        // SAFETY: the context is alive.
        made(location, unsafe {
            mlir_sys::mlirUnitAttrGet(context(location))
        })
    }

    fn reference(text: &str) -> MlirStringRef {
        MlirStringRef {
            data: text.as_ptr().cast(),
            length: text.len(),
        }
    }

    /// A string attribute.
    pub fn string_attribute<'c>(location: Location<'c>, value: &str) -> Attribute<'c> {
        // SAFETY: the context is alive; MLIR copies the string.
        made(location, unsafe {
            mlir_sys::mlirStringAttrGet(context(location), reference(value))
        })
    }

    /// `@symbol`.
    pub fn symbol_attribute<'c>(location: Location<'c>, value: &str) -> Attribute<'c> {
        // SAFETY: the context is alive; MLIR copies the string.
        made(location, unsafe {
            mlir_sys::mlirFlatSymbolRefAttrGet(context(location), reference(value))
        })
    }

    /// A type attribute.
    pub fn type_attribute<'c>(location: Location<'c>, value: Type<'c>) -> Attribute<'c> {
        // SAFETY: the type is alive.
        made(location, unsafe {
            mlir_sys::mlirTypeAttrGet(value.to_raw())
        })
    }

    /// `[...]`.
    pub fn array_attribute<'c>(location: Location<'c>, values: &[Attribute<'c>]) -> Attribute<'c> {
        let raw: Vec<MlirAttribute> = values.iter().map(|value| value.to_raw()).collect();
        // SAFETY: the context and the elements are alive; MLIR copies the list.
        made(location, unsafe {
            mlir_sys::mlirArrayAttrGet(context(location), raw.len() as isize, raw.as_ptr())
        })
    }

    /// The attribute of an enumeration case.
    pub fn enum_attribute<'c, E: EnumAttribute>(location: Location<'c>, value: E) -> Attribute<'c> {
        made(location, value.raw_attribute(context(location)))
    }

    /// An attribute made by a checked constructor (`Split::attribute`); panics when the dialect
    /// rejected the value, whose diagnostic it has reported at the op's location.
    pub fn checked<'c>(attribute: &str, value: Option<Attribute<'c>>) -> Attribute<'c> {
        value.unwrap_or_else(|| {
            panic!("the dialect rejected the value of `{attribute}` (see its diagnostic)")
        })
    }

    /// A segment size for `operandSegmentSizes`.
    #[allow(
        dead_code,
        reason = "generated code calls it for `AttrSizedOperandSegments`, which no .td uses yet"
    )]
    pub fn segment_size(count: usize) -> i32 {
        i32::try_from(count).expect("fewer than 2^31 values")
    }

    /// Creates op `name`: what every generated builder's `build` ends with.
    pub fn create<'c>(
        name: &str,
        location: Location<'c>,
        results: &[Type<'c>],
        operands: &[Value<'c, '_>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
        successors: &[&Block<'c>],
    ) -> Operation<'c> {
        let context = context(location);
        let results: Vec<MlirType> = results.iter().map(|r#type| r#type.to_raw()).collect();
        let operands: Vec<MlirValue> = operands.iter().map(|value| value.to_raw()).collect();
        // SAFETY: the context, types, values and attributes are alive and MLIR copies the
        // lists; the regions are moved into the state, which mlirOperationCreate consumes.
        unsafe {
            let attributes: Vec<MlirNamedAttribute> = attributes
                .iter()
                .map(|(name, value)| {
                    let identifier = mlir_sys::mlirIdentifierGet(context, reference(name));
                    mlir_sys::mlirNamedAttributeGet(identifier, value.to_raw())
                })
                .collect();
            let regions: Vec<MlirRegion> = regions.into_iter().map(Region::into_raw).collect();
            let successors: Vec<MlirBlock> =
                successors.iter().map(|block| block.to_raw()).collect();
            let mut state = mlir_sys::mlirOperationStateGet(reference(name), location.to_raw());
            mlir_sys::mlirOperationStateAddResults(
                &mut state,
                results.len() as isize,
                results.as_ptr(),
            );
            mlir_sys::mlirOperationStateAddOperands(
                &mut state,
                operands.len() as isize,
                operands.as_ptr(),
            );
            mlir_sys::mlirOperationStateAddAttributes(
                &mut state,
                attributes.len() as isize,
                attributes.as_ptr(),
            );
            mlir_sys::mlirOperationStateAddOwnedRegions(
                &mut state,
                regions.len() as isize,
                regions.as_ptr(),
            );
            mlir_sys::mlirOperationStateAddSuccessors(
                &mut state,
                successors.len() as isize,
                successors.as_ptr(),
            );
            let op = mlir_sys::mlirOperationCreate(&mut state);
            assert!(!op.ptr.is_null(), "MLIR could not create `{name}`");
            Operation::from_raw(op)
        }
    }
}

/// What the generated modules use.
mod prelude {
    pub(crate) use super::{
        support::{self, Arity, Segments},
        Operands, Results, WrongOp,
    };
    pub(crate) use melior::ir::{
        operation::OperationResult, Attribute, Location, Operation, OperationRef, Region,
        RegionRef, Type, Value,
    };
}
