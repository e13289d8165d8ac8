//! Reads a function into a [`FunctionView`] through typed C-API accessors.

use super::attributes::{Attr, Constant};
use super::function::{FunctionView, Node, ViewError};
use super::types::{static_tensor_type, TensorType, ValueId};
use crate::ir::Op;
use mlir_sys::*;
use std::collections::{BTreeMap, HashMap};
use turbine_dialects::attributes::{graph, EnumAttribute};

fn string_from(reference: MlirStringRef) -> String {
    // SAFETY: MLIR string refs point at `length` valid bytes.
    let bytes =
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The most elements a tensor of a viewed function may have: 2^31, the bound of the ONNX importer
/// and of the interpreter. A shape above it comes from hand-written or hostile IR, not a model, and
/// refusing it here keeps every pass's arithmetic on element counts, sizes and offsets (products
/// of a few such counts) far from overflowing.
const MAX_ELEMENTS: usize = 1 << 31;

struct Reader {
    ids: HashMap<usize, ValueId>,
}

impl Reader {
    fn id(&mut self, value: MlirValue) -> ValueId {
        let next = self.ids.len();
        *self.ids.entry(value.ptr as usize).or_insert(next)
    }

    fn tensor_type(&self, r#type: MlirType, op: Option<Op>) -> Result<TensorType, ViewError> {
        let tensor = static_tensor_type(r#type).ok_or_else(|| ViewError {
            op,
            message: "only statically shaped tensors are supported".into(),
        })?;
        let elements = tensor
            .shape
            .iter()
            .try_fold(1usize, |count, &dim| count.checked_mul(dim));
        if elements.is_none_or(|elements| elements > MAX_ELEMENTS) {
            let message = format!(
                "a tensor of shape {:?} has more than 2^31 elements, which is not supported",
                tensor.shape
            );
            return Err(ViewError { op, message });
        }
        Ok(tensor)
    }

    fn node(&mut self, handle: Op) -> Result<Node, ViewError> {
        let op = handle.raw();
        // SAFETY: the op is alive while the module is.
        unsafe {
            let operands = (0..mlirOperationGetNumOperands(op))
                .map(|i| self.id(mlirOperationGetOperand(op, i)))
                .collect();
            let mut results = Vec::new();
            for i in 0..mlirOperationGetNumResults(op) {
                let value = mlirOperationGetResult(op, i);
                results.push((
                    self.id(value),
                    self.tensor_type(mlirValueGetType(value), Some(handle))?,
                ));
            }
            let mut attributes = BTreeMap::new();
            for i in 0..mlirOperationGetNumAttributes(op) {
                let named = mlirOperationGetAttribute(op, i);
                attributes.insert(
                    string_from(mlirIdentifierStr(named.name)),
                    attribute(named.attribute),
                );
            }
            let captures = handle
                .captured_values()
                .into_iter()
                .map(|value| self.id(value.raw()))
                .collect();
            Ok(Node {
                op: handle,
                captures,
                name: handle.name(),
                kind: handle.kind(),
                operands,
                results,
                attributes,
                has_regions: mlirOperationGetNumRegions(op) > 0,
                elementwise: graph::is_elementwise(&melior::ir::OperationRef::from_raw(op)),
            })
        }
    }
}

/// An attribute by kind.
fn attribute(raw: MlirAttribute) -> Attr {
    // SAFETY: the attribute is alive while the module is.
    let attribute = unsafe { melior::ir::Attribute::from_raw(raw) };
    macro_rules! enumeration {
        ($($mirror:ident),+) => {
            $(if let Some(case) = graph::$mirror::from_attribute(attribute) {
                return Attr::$mirror(case);
            })+
        };
    }
    enumeration!(
        Activation,
        PadMode,
        ResizeMode,
        ResizeCoordinates,
        NearestRounding,
        ComparePredicate,
        ScatterReduction
    );
    // SAFETY: each accessor is called only on an attribute of its kind.
    unsafe {
        if mlirAttributeIsABool(raw) {
            Attr::Bool(mlirBoolAttrGetValue(raw))
        } else if mlirAttributeIsAInteger(raw) {
            Attr::Int(mlirIntegerAttrGetValueInt(raw))
        } else if mlirAttributeIsAFloat(raw) {
            Attr::Float(mlirFloatAttrGetValueDouble(raw))
        } else if mlirAttributeIsAString(raw) {
            Attr::Str(string_from(mlirStringAttrGetValue(raw)))
        } else if mlirAttributeIsADenseI64Array(raw) {
            Attr::Ints(
                (0..mlirDenseArrayGetNumElements(raw))
                    .map(|i| mlirDenseI64ArrayGetElement(raw, i))
                    .collect(),
            )
        } else if mlirAttributeIsADenseF32Array(raw) {
            Attr::Floats(
                (0..mlirDenseArrayGetNumElements(raw))
                    .map(|i| mlirDenseF32ArrayGetElement(raw, i))
                    .collect(),
            )
        } else if mlirAttributeIsADenseElements(raw) {
            Attr::Dense(Constant(raw))
        } else {
            Attr::Other
        }
    }
}

/// Reads the first block of `op`'s first region (a function's or a group's body) as `name`.
pub(super) fn read(op: Op, name: String) -> Result<FunctionView, ViewError> {
    let mut reader = Reader {
        ids: HashMap::new(),
    };
    // SAFETY: the op is live and has a region with a block.
    unsafe {
        let block = mlirRegionGetFirstBlock(mlirOperationGetRegion(op.raw(), 0));
        let mut arguments = Vec::new();
        for i in 0..mlirBlockGetNumArguments(block) {
            let argument = mlirBlockGetArgument(block, i);
            arguments.push((
                reader.id(argument),
                reader.tensor_type(mlirValueGetType(argument), None)?,
            ));
        }
        let mut ops = Vec::new();
        for op in op.body_ops() {
            ops.push(reader.node(op)?);
        }
        let count = reader.ids.len();
        Ok(FunctionView::index(name, arguments, ops, count))
    }
}

impl FunctionView {
    /// Reads `function` (a `func.func` with a body).
    pub fn read(function: Op) -> Result<Self, ViewError> {
        read(function, function.symbol_name())
    }

    /// Reads the body of a region op such as `instance.group` (block arguments are the
    /// arguments, the terminator is the last op), called `name`.
    pub fn read_body(op: Op, name: String) -> Result<Self, ViewError> {
        read(op, name)
    }
}
