//! The entry functions of a lowered module and what their buffers hold, read through typed
//! attribute accessors from the `dsa.arguments` record `convert-dsa-to-runtime` leaves on each
//! entry (the lowered signature, `i32 f(i64 device, ptr buffers)`, no longer says), and the C
//! header that declares them for ahead-of-time use.

use melior::ir::{
    attribute::{
        ArrayAttribute, AttributeLike, DenseElementsAttribute, DictionaryAttribute,
        IntegerAttribute, StringAttribute, TypeAttribute,
    },
    block::BlockLike,
    operation::OperationLike,
    r#type::{DimSize, MemRefType},
    Attribute, Module, ShapedTypeLike,
};
use std::fmt;

/// One entry function of a lowered module: its name and its buffers in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The function's symbol.
    pub name: String,
    /// One per DDR buffer handle the entry takes, in order.
    pub buffers: Vec<EntryBuffer>,
}

/// One buffer argument of an entry: a buffer in DDR (the only kind an entry takes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryBuffer {
    /// Its shape.
    pub shape: Vec<usize>,
    /// Its element type, as MLIR spells it (`f32`, `i64`, `i32`, `i1`).
    pub element: &'static str,
    /// What it holds, from the argument's `dsa.*` attribute.
    pub role: Role,
}

/// What an entry's buffer holds (the argument attributes `convert-graph-to-dsa` writes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// Input `i` of the model (`dsa.input = i`).
    Input(usize),
    /// Result `i` of the model (`dsa.output = i`).
    Output(usize),
    /// The weight of that name in the side file (`dsa.weight = "name"`).
    Weight(String),
    /// An inline constant (`dsa.constant = dense<...>`): the native-order bytes of every element
    /// (a boolean in one byte), as its buffer holds them.
    Constant(Vec<u8>),
    /// No role attribute (a module written by hand at the dsa level).
    Unspecified,
}

impl fmt::Display for EntryBuffer {
    /// `4x64 f32, input 0`: the shape, then the role.
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        let shape: Vec<String> = self.shape.iter().map(usize::to_string).collect();
        write!(formatter, "{} {}, ", shape.join("x"), self.element)?;
        match &self.role {
            Role::Input(index) => write!(formatter, "input {index}"),
            Role::Output(index) => write!(formatter, "output {index}"),
            Role::Weight(name) => write!(formatter, "weight \"{name}\""),
            Role::Constant(bytes) => write!(
                formatter,
                "constant of {} values",
                bytes.len() / element_bytes(self.element)
            ),
            Role::Unspecified => write!(formatter, "no role given"),
        }
    }
}

/// The entry functions of a module lowered by [`crate::lower_to_llvm_dialect`], in module order.
///
/// # Panics
/// When a `dsa.arguments` record is not what `convert-dsa-to-runtime` writes (an array of
/// `{type = <memref type>, attributes = <dictionary>}`): a bug of that pass, not of the input.
pub fn entries(module: &Module) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(function) = op {
        if let Ok(record) = function.attribute("dsa.arguments") {
            let name = function
                .attribute("sym_name")
                .ok()
                .and_then(|name| StringAttribute::try_from(name).ok())
                .map(|name| name.value().to_owned())
                .expect("an entry function has a sym_name");
            let record = ArrayAttribute::try_from(record).expect("dsa.arguments is an array");
            let buffers = (0..record.len())
                .map(|index| buffer(record.element(index).expect("the index is in range")))
                .collect();
            entries.push(Entry { name, buffers });
        }
        op = function.next_in_block();
    }
    entries
}

/// One element of a `dsa.arguments` record.
fn buffer(element: Attribute) -> EntryBuffer {
    let element = DictionaryAttribute::try_from(element).expect("a record element is a dictionary");
    let field = |name| {
        element
            .element_by_name(name)
            .unwrap_or_else(|| panic!("a record element has '{name}'"))
    };
    let r#type = TypeAttribute::try_from(field("type"))
        .expect("'type' is a type attribute")
        .value();
    let r#type = MemRefType::try_from(r#type).expect("an entry's buffer is a memref");
    let shape = (0..r#type.rank())
        .map(|dim| match r#type.dim_size(dim) {
            Ok(DimSize::Static(size)) => size as usize,
            _ => panic!("an entry's buffer has a static shape"),
        })
        .collect();
    let element = element_name(r#type.element());
    let attributes =
        DictionaryAttribute::try_from(field("attributes")).expect("'attributes' is a dictionary");
    let index = |name| {
        attributes.element_by_name(name).map(|value| {
            IntegerAttribute::try_from(value)
                .expect("an input or output index is an integer")
                .value() as usize
        })
    };
    let role = if let Some(input) = index("dsa.input") {
        Role::Input(input)
    } else if let Some(output) = index("dsa.output") {
        Role::Output(output)
    } else if let Some(weight) = attributes.element_by_name("dsa.weight") {
        Role::Weight(
            StringAttribute::try_from(weight)
                .expect("a weight's name is a string")
                .value()
                .to_owned(),
        )
    } else if let Some(constant) = attributes.element_by_name("dsa.constant") {
        let constant = DenseElementsAttribute::try_from(constant).expect("a constant is dense");
        Role::Constant(constant_bytes(constant, element))
    } else {
        Role::Unspecified
    };
    EntryBuffer {
        shape,
        element,
        role,
    }
}

/// The name of a buffer's element type (the lowering makes buffers of f32, f16, bf16, i64, i32,
/// i8, ui8 and i1).
fn element_name(element: melior::ir::Type) -> &'static str {
    use melior::ir::TypeLike;
    // SAFETY: the type is alive with its module.
    let (f16, bf16) = unsafe {
        (
            mlir_sys::mlirTypeIsAF16(element.to_raw()),
            mlir_sys::mlirTypeIsABF16(element.to_raw()),
        )
    };
    if f16 || bf16 {
        return if f16 { "f16" } else { "bf16" };
    }
    match melior::ir::r#type::IntegerType::try_from(element) {
        Ok(integer) => match (integer.width(), integer.is_unsigned()) {
            (64, _) => "i64",
            (32, _) => "i32",
            (8, true) => "ui8",
            (8, false) => "i8",
            (1, _) => "i1",
            (width, _) => panic!("an entry's buffer has no i{width} elements"),
        },
        Err(_) => "f32",
    }
}

/// Bytes of one element of a buffer of `element`s (a boolean takes one).
pub(crate) fn element_bytes(element: &str) -> usize {
    match element {
        "f32" | "i32" => 4,
        "i64" => 8,
        "f16" | "bf16" => 2,
        _ => 1,
    }
}

/// The native-order bytes of every element of `constant`, a dense attribute of `element`s:
/// its raw data (one element repeated for a splat), booleans one byte each.
fn constant_bytes(constant: DenseElementsAttribute, element: &str) -> Vec<u8> {
    let count = constant.len();
    if count == 0 {
        // An empty attribute may have no storage at all.
        return Vec::new();
    }
    let raw = constant.to_raw();
    // SAFETY: the attribute is a live dense elements attribute of `count` elements of
    // `element`s, whose raw data holds one element (splat) or all of them, in native order.
    unsafe {
        let splat = mlir_sys::mlirDenseElementsAttrIsSplat(raw);
        if element == "i1" {
            return (0..count)
                .map(|index| {
                    u8::from(mlir_sys::mlirDenseElementsAttrGetBoolValue(
                        raw,
                        if splat { 0 } else { index as isize },
                    ))
                })
                .collect();
        }
        let size = element_bytes(element);
        let stored = if splat { size } else { size * count };
        let data = mlir_sys::mlirDenseElementsAttrGetRawData(raw).cast::<u8>();
        let data = std::slice::from_raw_parts(data, stored);
        if splat {
            data.repeat(count)
        } else {
            data.to_vec()
        }
    }
}

/// A C header declaring each entry as `int32_t <name>(uint64_t device, const uint64_t
/// *buffers);`, with a comment listing each buffer's position, shape and role, and its loader
/// functions prefixed by `name` ([`crate::loader_header`]).
pub fn c_header(entries: &[Entry], name: &str) -> String {
    let mut text = String::from(
        "/* Generated by turbine-codegen. Entry points of a compiled module: \
         each records and runs\n \
         * its kernels on a device of the Turbine software DSA (turbine_dsa.h) and returns the\n \
         * status of the first failing runtime call (td_last_error() has its message). */\n\
         #pragma once\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n",
    );
    for entry in entries {
        text.push_str(&format!(
            "\n/* {}: buffers[i] is a DDR buffer handle of\n",
            entry.name
        ));
        for (index, buffer) in entry.buffers.iter().enumerate() {
            text.push_str(&format!(" *   [{index}] {buffer}\n"));
        }
        text.push_str(&format!(
            " */\nint32_t {}(uint64_t device, const uint64_t *buffers);\n",
            entry.name
        ));
    }
    text.push_str(&crate::loader_header(entries, name));
    text.push_str("\n#ifdef __cplusplus\n}\n#endif\n");
    text
}
