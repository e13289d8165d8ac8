//! The model of a dialect's ops that `build/rust/` turns into Rust, and its reader ([`read`]),
//! which fills it from the TableGen JSON dump of the dialect's `.td`.

mod mirrors;
mod read;

pub use read::read;

/// One dialect as the generator needs it.
pub struct Dialect {
    /// `graph`.
    pub name: String,
    /// The ODS summary.
    pub summary: String,
    /// The marker traits the dialect itself declares (NativeOpTraits in its C++ namespace), such
    /// as the graph dialect's `Elementwise`.
    pub traits: Vec<String>,
    /// Its ops, in the order of the `.td`.
    pub ops: Vec<Op>,
}

/// One op.
pub struct Op {
    /// The Rust (and C++) class name: the record's name without its dialect prefix, `Conv2dOp`.
    pub class: String,
    /// The full op name, `graph.conv2d`.
    pub name: String,
    /// The ODS summary (may be empty).
    pub summary: String,
    /// The ODS description, dedented (may be empty).
    pub description: String,
    /// Operands and attributes, in the order of `arguments`.
    pub arguments: Vec<Argument>,
    /// Results.
    pub results: Vec<Operand>,
    /// Regions.
    pub regions: Vec<RegionDecl>,
    /// Whether the op has successors (the generator then only passes them through its builder).
    pub successors: usize,
    /// How variadic operands share the operand list.
    pub operand_segments: Segments,
    /// How variadic results share the result list.
    pub result_segments: Segments,
    /// The dialect traits (of [`Dialect::traits`]) the op declares.
    pub traits: Vec<String>,
}

/// An operand or an attribute.
pub enum Argument {
    /// An operand.
    Operand(Operand),
    /// An attribute.
    Attribute(AttributeDecl),
}

/// How many values one ODS operand or result stands for.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// Exactly one.
    Single,
    /// Zero or one (`Optional<...>`).
    Optional,
    /// Any number (`Variadic<...>`).
    Variadic,
}

/// An operand or a result.
pub struct Operand {
    /// The ODS name.
    pub name: String,
    /// Its arity.
    pub arity: Arity,
    /// The constraint's summary, for the documentation.
    pub summary: String,
}

/// A region.
pub struct RegionDecl {
    /// The ODS name.
    pub name: String,
    /// Whether it is a `VariadicRegion`.
    pub variadic: bool,
    /// The constraint's summary.
    pub summary: String,
}

/// How an op with several variadic operands (or results) tells their sizes apart.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Segments {
    /// At most one variadic: it takes whatever the fixed ones leave.
    Fixed,
    /// `SameVariadicOperandSize` / `SameVariadicResultSize`.
    SameSize,
    /// `AttrSizedOperandSegments` / `AttrSizedResultSegments`: the sizes are in an attribute.
    Attribute,
}

/// An attribute.
pub struct AttributeDecl {
    /// The ODS name.
    pub name: String,
    /// What Rust type it maps to.
    pub kind: AttributeKind,
    /// `OptionalAttr` (and not default-valued).
    pub optional: bool,
    /// The ODS default value (a C++ expression), for `DefaultValuedAttr`.
    pub default: Option<String>,
    /// The constraint's summary.
    pub summary: String,
}

/// The attribute kinds the generator maps to Rust types; everything else is [`AttributeKind::Raw`].
#[derive(Clone)]
pub enum AttributeKind {
    /// `DenseI32ArrayAttr`, `DenseI64ArrayAttr`, `DenseF32ArrayAttr`, `DenseF64ArrayAttr`: the
    /// Rust element type (`i32`, `i64`, `f32`, `f64`).
    DenseArray(&'static str),
    /// An `IntegerAttr` of a known integer type (`I64Attr`, `SI32Attr`, ...).
    Integer { width: u32, signedness: Signedness },
    /// A `FloatAttr` of a known width (`F32Attr`, `F64Attr`).
    Float { width: u32 },
    /// `BoolAttr`.
    Bool,
    /// `UnitAttr`.
    Unit,
    /// `StrAttr`, `SymbolNameAttr`.
    String,
    /// `FlatSymbolRefAttr`.
    SymbolRef,
    /// `TypeAttr`, `TypeAttrOf<...>`.
    Type,
    /// An `ArrayAttr`, with the kind of its elements when the constraint names one the
    /// generator maps.
    Array(Option<Box<AttributeKind>>),
    /// An enumeration attribute with a Rust mirror in `crate::attributes`.
    Enum { path: String, cases: Vec<String> },
    /// A dialect attribute with a Rust mirror in `crate::attributes` (`#instance.split`).
    Mirrored { path: String },
    /// Anything else: the raw `Attribute`. The string is the C++ storage type.
    Raw(String),
}

/// The signedness of an integer type.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Signedness {
    /// `iN`.
    Signless,
    /// `siN`.
    Signed,
    /// `uiN`.
    Unsigned,
}
