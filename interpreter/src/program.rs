//! The function to interpret, and every function it calls, read out of MLIR into an owned tree.
//!
//! Reading once, up front, keeps the evaluator free of C-API handles and lifetimes and makes
//! every unsupported type and every call to a function without a body show up before any
//! computation starts.

mod module;

use crate::{
    error::InterpretError,
    tensor::{element_count, Data, ElementType, Tensor},
};
use half::{bf16, f16};
use mlir_sys::*;
use std::collections::BTreeMap;

/// Identifies an SSA value within a [`Program`].
pub type ValueId = usize;

/// Shape and element type of a value.
#[derive(Debug, Clone, PartialEq)]
pub struct TensorType {
    /// Static dimension sizes.
    pub shape: Vec<usize>,
    /// Element type.
    pub element_type: ElementType,
}

/// An attribute value, reduced to what kernels need.
#[derive(Debug, Clone, PartialEq)]
pub enum Attr {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(String),
    /// A `array<i64: ...>`.
    Ints(Vec<i64>),
    /// A `array<f32: ...>`.
    Floats(Vec<f32>),
    /// A dense elements attribute (the payload of `graph.constant`).
    Dense(Tensor),
    /// An enumeration case such as `relu` in `#graph<activation relu>`.
    Keyword(String),
    /// A dense elements attribute whose elements were not read ([`Program::structure_of`]).
    Elided,
    /// A flat symbol reference such as the callee `@f` of `func.call`, without the `@`.
    Symbol(String),
}

/// One operation.
#[derive(Debug, Clone)]
pub struct Node {
    /// Op name, such as `graph.conv2d`.
    pub name: String,
    /// Location as MLIR prints it, for error messages.
    pub location: String,
    /// Operand values.
    pub operands: Vec<ValueId>,
    /// Result values with their types.
    pub results: Vec<(ValueId, TensorType)>,
    /// Attributes by name.
    pub attributes: BTreeMap<String, Attr>,
    /// Nested regions (one block each).
    pub regions: Vec<Block>,
}

/// A block: arguments and operations in order.
#[derive(Debug, Clone, Default)]
pub struct Block {
    /// Block arguments with their types.
    pub arguments: Vec<(ValueId, TensorType)>,
    /// Operations, the terminator last.
    pub ops: Vec<Node>,
}

/// The function to interpret, the functions it calls, and where its weights live.
#[derive(Debug, Clone)]
pub struct Program {
    /// The function's name.
    pub name: String,
    /// The body: its arguments are the function's inputs; it ends in `func.return`.
    pub body: Block,
    /// The module's `graph.weights` attribute, if any.
    pub weights_file: Option<String>,
    /// Number of distinct values of the body, for sizing the evaluator's environment.
    pub value_count: usize,
    /// Every function that `func.call` reaches from the body, directly or through other
    /// callees, by name; the function itself is among them when it is recursive. Empty when
    /// the body calls nothing.
    pub callees: BTreeMap<String, Function>,
}

/// A function of the module that a [`Program`] calls, with value ids of its own: a call
/// evaluates it in an environment of its own.
#[derive(Debug, Clone)]
pub struct Function {
    /// The function's name.
    pub name: String,
    /// The body: its arguments are the call's operands; it ends in `func.return`.
    pub body: Block,
    /// Number of distinct values of the body.
    pub value_count: usize,
}

struct Reader {
    ids: std::collections::HashMap<usize, ValueId>,
    /// Whether to read the elements of dense attributes (constants); analyses of the graph's
    /// structure do not need them, and a splat constant of a large tensor would expand.
    payloads: bool,
}

fn string_from(reference: MlirStringRef) -> String {
    // An empty string ref may have a null pointer, which no slice may have.
    if reference.length == 0 {
        return String::new();
    }
    // SAFETY: MLIR string refs point at `length` valid bytes.
    let bytes =
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

unsafe extern "C" fn append_text(text: MlirStringRef, user_data: *mut std::ffi::c_void) {
    // SAFETY: user_data is the String passed by `printed`.
    unsafe { (*user_data.cast::<String>()).push_str(&string_from(text)) }
}

fn printed(print: impl FnOnce(MlirStringCallback, *mut std::ffi::c_void)) -> String {
    let mut text = String::new();
    print(Some(append_text), (&mut text as *mut String).cast());
    text
}

fn location_text(location: MlirLocation) -> String {
    // SAFETY: the location is alive while the module is.
    let text = printed(|callback, data| unsafe { mlirLocationPrint(location, callback, data) });
    text.strip_prefix("loc(")
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or(&text)
        .to_owned()
}

/// The interpreter's name for the MLIR element type `element`, if it evaluates it: `i8` is
/// signless (read as signed), `ui8` unsigned.
///
/// # Safety
/// `element` is a live type.
unsafe fn element_type(element: MlirType) -> Option<ElementType> {
    // SAFETY: the caller's guarantee.
    unsafe {
        if mlirTypeIsAF32(element) {
            return Some(ElementType::F32);
        }
        if mlirTypeIsAF16(element) {
            return Some(ElementType::F16);
        }
        if mlirTypeIsABF16(element) {
            return Some(ElementType::Bf16);
        }
        if !mlirTypeIsAInteger(element) {
            return None;
        }
        let unsigned = mlirIntegerTypeIsUnsigned(element);
        let signed = mlirIntegerTypeIsSigned(element);
        match (mlirIntegerTypeGetWidth(element), unsigned, signed) {
            (64, false, false) => Some(ElementType::I64),
            (32, false, false) => Some(ElementType::I32),
            (8, false, false) => Some(ElementType::I8),
            (8, true, false) => Some(ElementType::U8),
            (1, false, false) => Some(ElementType::Bool),
            _ => None,
        }
    }
}

/// The 16-bit patterns of the `count` elements of a dense f16 or bf16 attribute (a splat holds
/// one).
///
/// # Safety
/// `attribute` is a live dense elements attribute of f16 or bf16 elements with `count` of them.
unsafe fn half_bits(attribute: MlirAttribute, count: usize) -> Vec<u16> {
    if count == 0 {
        return Vec::new();
    }
    // SAFETY: the raw data of 16-bit elements is one u16 per element, or one for a splat.
    unsafe {
        let raw = mlirDenseElementsAttrGetRawData(attribute).cast::<u16>();
        let stored = if mlirDenseElementsAttrIsSplat(attribute) {
            1
        } else {
            count
        };
        let bits = std::slice::from_raw_parts(raw, stored);
        (0..count).map(|i| bits[i % stored]).collect()
    }
}

/// The `count` elements of the dense elements attribute `attribute` of `element`s, held as
/// the interpreter holds them (a splat gives `count` copies).
///
/// # Safety
/// `attribute` is a live dense elements attribute of that element type with `count` elements.
pub unsafe fn dense_data(attribute: MlirAttribute, element: ElementType, count: usize) -> Data {
    let positions = 0..count as isize;
    // SAFETY: the caller's guarantee; the getters read within the attribute's elements.
    unsafe {
        match element {
            ElementType::F32 => Data::F32(
                positions
                    .map(|i| mlirDenseElementsAttrGetFloatValue(attribute, i))
                    .collect(),
            ),
            ElementType::I64 => Data::I64(
                positions
                    .map(|i| mlirDenseElementsAttrGetInt64Value(attribute, i))
                    .collect(),
            ),
            ElementType::I32 => Data::I64(
                positions
                    .map(|i| mlirDenseElementsAttrGetInt32Value(attribute, i).into())
                    .collect(),
            ),
            ElementType::I8 => Data::I64(
                positions
                    .map(|i| mlirDenseElementsAttrGetInt8Value(attribute, i).into())
                    .collect(),
            ),
            ElementType::U8 => Data::I64(
                positions
                    .map(|i| mlirDenseElementsAttrGetUInt8Value(attribute, i).into())
                    .collect(),
            ),
            ElementType::Bool => Data::Bool(
                positions
                    .map(|i| mlirDenseElementsAttrGetBoolValue(attribute, i))
                    .collect(),
            ),
            ElementType::F16 => Data::F32(
                (half_bits(attribute, count).into_iter())
                    .map(|bits| f16::from_bits(bits).to_f32())
                    .collect(),
            ),
            ElementType::Bf16 => Data::F32(
                (half_bits(attribute, count).into_iter())
                    .map(|bits| bf16::from_bits(bits).to_f32())
                    .collect(),
            ),
        }
    }
}

impl Reader {
    fn id(&mut self, value: MlirValue) -> ValueId {
        let next = self.ids.len();
        *self.ids.entry(value.ptr as usize).or_insert(next)
    }

    fn tensor_type(&self, r#type: MlirType, location: &str) -> Result<TensorType, InterpretError> {
        let unsupported = |what: String| InterpretError::Unsupported {
            location: location.to_owned(),
            message: what,
        };
        // SAFETY: the type is alive while the module is.
        unsafe {
            if !mlirTypeIsARankedTensor(r#type) || !mlirShapedTypeHasStaticShape(r#type) {
                let text = printed(|callback, data| mlirTypePrint(r#type, callback, data));
                return Err(unsupported(format!(
                    "type {text} (only statically shaped tensors are)"
                )));
            }
            let rank = mlirShapedTypeGetRank(r#type) as usize;
            let shape: Vec<usize> = (0..rank)
                .map(|d| mlirShapedTypeGetDimSize(r#type, d as isize) as usize)
                .collect();
            let element = mlirShapedTypeGetElementType(r#type);
            let Some(element_type) = element_type(element) else {
                let text = printed(|callback, data| mlirTypePrint(element, callback, data));
                return Err(unsupported(format!(
                    "element type {text} (f32, f16, bf16, i64, i32, i8, ui8 and i1 are)"
                )));
            };
            if element_count(&shape).is_none() {
                return Err(unsupported(format!(
                    "a tensor of shape {shape:?} is too large"
                )));
            }
            Ok(TensorType {
                shape,
                element_type,
            })
        }
    }

    fn attribute(&self, attribute: MlirAttribute, location: &str) -> Result<Attr, InterpretError> {
        // SAFETY: the attribute is alive while the module is.
        unsafe {
            if mlirAttributeIsABool(attribute) {
                Ok(Attr::Bool(mlirBoolAttrGetValue(attribute)))
            } else if mlirAttributeIsAInteger(attribute) {
                Ok(Attr::Int(mlirIntegerAttrGetValueInt(attribute)))
            } else if mlirAttributeIsAFloat(attribute) {
                Ok(Attr::Float(mlirFloatAttrGetValueDouble(attribute)))
            } else if mlirAttributeIsAString(attribute) {
                Ok(Attr::Str(string_from(mlirStringAttrGetValue(attribute))))
            } else if mlirAttributeIsADenseI64Array(attribute) {
                let count = mlirDenseArrayGetNumElements(attribute);
                Ok(Attr::Ints(
                    (0..count)
                        .map(|i| mlirDenseI64ArrayGetElement(attribute, i))
                        .collect(),
                ))
            } else if mlirAttributeIsADenseF32Array(attribute) {
                let count = mlirDenseArrayGetNumElements(attribute);
                Ok(Attr::Floats(
                    (0..count)
                        .map(|i| mlirDenseF32ArrayGetElement(attribute, i))
                        .collect(),
                ))
            } else if mlirAttributeIsAFlatSymbolRef(attribute) {
                Ok(Attr::Symbol(string_from(mlirFlatSymbolRefAttrGetValue(
                    attribute,
                ))))
            } else if mlirAttributeIsADenseElements(attribute) && !self.payloads {
                Ok(Attr::Elided)
            } else if mlirAttributeIsADenseElements(attribute) {
                self.dense(attribute, location).map(Attr::Dense)
            } else {
                // Dialect enumerations print as `#graph<activation relu>`: keep the case.
                let text = printed(|callback, data| mlirAttributePrint(attribute, callback, data));
                let case = text
                    .trim_end_matches('>')
                    .rsplit([' ', '<'])
                    .next()
                    .unwrap_or("")
                    .to_owned();
                Ok(Attr::Keyword(case))
            }
        }
    }

    fn dense(&self, attribute: MlirAttribute, location: &str) -> Result<Tensor, InterpretError> {
        // SAFETY: the attribute is a DenseElementsAttr alive while the module is.
        unsafe {
            let r#type = self.tensor_type(mlirAttributeGetType(attribute), location)?;
            let count = r#type.shape.iter().product::<usize>();
            Ok(Tensor {
                data: dense_data(attribute, r#type.element_type, count),
                shape: r#type.shape,
                element_type: r#type.element_type,
            })
        }
    }

    fn block(&mut self, block: MlirBlock) -> Result<Block, InterpretError> {
        let mut result = Block::default();
        // SAFETY: the block and everything in it are alive while the module is.
        unsafe {
            let parent = mlirBlockGetParentOperation(block);
            let parent_location = location_text(mlirOperationGetLocation(parent));
            for i in 0..mlirBlockGetNumArguments(block) {
                let argument = mlirBlockGetArgument(block, i);
                let r#type = self.tensor_type(mlirValueGetType(argument), &parent_location)?;
                result.arguments.push((self.id(argument), r#type));
            }
            let mut op = mlirBlockGetFirstOperation(block);
            while !op.ptr.is_null() {
                result.ops.push(self.node(op)?);
                op = mlirOperationGetNextInBlock(op);
            }
        }
        Ok(result)
    }

    fn node(&mut self, op: MlirOperation) -> Result<Node, InterpretError> {
        // SAFETY: the op is alive while the module is.
        unsafe {
            let name = string_from(mlirIdentifierStr(mlirOperationGetName(op)));
            let location = location_text(mlirOperationGetLocation(op));
            let operands = (0..mlirOperationGetNumOperands(op))
                .map(|i| self.id(mlirOperationGetOperand(op, i)))
                .collect();
            let mut results = Vec::new();
            for i in 0..mlirOperationGetNumResults(op) {
                let value = mlirOperationGetResult(op, i);
                let r#type = self.tensor_type(mlirValueGetType(value), &location)?;
                results.push((self.id(value), r#type));
            }
            let mut attributes = BTreeMap::new();
            for i in 0..mlirOperationGetNumAttributes(op) {
                let named = mlirOperationGetAttribute(op, i);
                let key = string_from(mlirIdentifierStr(named.name));
                attributes.insert(key, self.attribute(named.attribute, &location)?);
            }
            let mut regions = Vec::new();
            for i in 0..mlirOperationGetNumRegions(op) {
                let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, i));
                regions.push(if block.ptr.is_null() {
                    Block::default()
                } else {
                    self.block(block)?
                });
            }
            Ok(Node {
                name,
                location,
                operands,
                results,
                attributes,
                regions,
            })
        }
    }
}
