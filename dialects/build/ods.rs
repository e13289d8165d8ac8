//! Reads a dialect's ops out of the TableGen JSON dump of its `.td` (`llvm-tblgen --dump-json`,
//! the standard TableGen JSON backend) into the model that `rust_ops.rs` turns into Rust.
//!
//! The JSON holds every record TableGen saw, with its fields and superclasses: an op is a record
//! deriving from `Op`, its `arguments` a dag of (constraint record, name) pairs, and a constraint
//! tells what it is by its superclasses (`Attr`, `TypeConstraint`, `Optional`, `Variadic`, ...).

use serde_json::{Map, Value};

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

/// ODS enumerations with a Rust mirror in `src/attributes` (C++ namespace and class, Rust path).
/// An enumeration missing here reads and builds as a raw attribute, with a build warning.
const MIRRORED_ENUMS: &[(&str, &str)] = &[
    (
        "::turbine::graph::Activation",
        "crate::attributes::graph::Activation",
    ),
    (
        "::turbine::graph::PadMode",
        "crate::attributes::graph::PadMode",
    ),
    (
        "::turbine::graph::ResizeMode",
        "crate::attributes::graph::ResizeMode",
    ),
    (
        "::turbine::graph::ResizeCoordinates",
        "crate::attributes::graph::ResizeCoordinates",
    ),
    (
        "::turbine::graph::NearestRounding",
        "crate::attributes::graph::NearestRounding",
    ),
    (
        "::turbine::graph::ComparePredicate",
        "crate::attributes::graph::ComparePredicate",
    ),
    (
        "::turbine::instance::Scope",
        "crate::attributes::instance::Scope",
    ),
    (
        "::turbine::dsa::MemorySpace",
        "crate::attributes::dsa::MemorySpace",
    ),
    (
        "::turbine::dsa::BinaryKind",
        "crate::attributes::dsa::BinaryKind",
    ),
    (
        "::turbine::dsa::UnaryKind",
        "crate::attributes::dsa::UnaryKind",
    ),
    (
        "::turbine::dsa::PoolKind",
        "crate::attributes::dsa::PoolKind",
    ),
    (
        "::turbine::dsa::ReduceKind",
        "crate::attributes::dsa::ReduceKind",
    ),
];

/// ODS attribute definitions with a Rust mirror (C++ class, Rust path). The mirror has
/// `from_attribute(Attribute) -> Option<Self>` and
/// `attribute(&self, Location) -> Option<Attribute>`.
const MIRRORED_ATTRIBUTES: &[(&str, &str)] = &[
    (
        "::turbine::instance::SplitAttr",
        "crate::attributes::instance::Split",
    ),
    (
        "::turbine::dsa::TargetAttr",
        "crate::attributes::dsa::Target",
    ),
];

/// The records of one JSON dump.
struct Records<'j> {
    all: &'j Map<String, Value>,
    warnings: Vec<String>,
}

impl<'j> Records<'j> {
    fn get(&self, name: &str) -> &'j Map<String, Value> {
        self.all
            .get(name)
            .and_then(Value::as_object)
            .unwrap_or_else(|| panic!("TableGen JSON has no record `{name}`"))
    }

    /// The record a `{"kind": "def", "def": name}` field points at.
    fn deref(&self, value: &Value) -> Option<&'j Map<String, Value>> {
        let name = value.as_object()?.get("def")?.as_str()?;
        Some(self.get(name))
    }

    fn instances(&self, class: &str) -> Vec<&'j str> {
        let instanceof = self.all["!instanceof"]
            .as_object()
            .expect("!instanceof is an object");
        instanceof
            .get(class)
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default()
    }
}

fn is_a(record: &Map<String, Value>, class: &str) -> bool {
    record["!superclasses"]
        .as_array()
        .is_some_and(|classes| classes.iter().any(|c| c == class))
}

fn string(record: &Map<String, Value>, field: &str) -> String {
    record
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn name_of(record: &Map<String, Value>) -> &str {
    record["!name"].as_str().expect("records have names")
}

/// The (constraint, name) pairs of a dag field such as `arguments`.
fn dag_args<'j>(record: &'j Map<String, Value>, field: &str) -> Vec<(&'j Value, String)> {
    let Some(args) = record
        .get(field)
        .and_then(|dag| dag.get("args"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    args.iter()
        .map(|pair| {
            let pair = pair.as_array().expect("dag arguments are pairs");
            (&pair[0], pair[1].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// The line of the record's first location, to keep the ops in the order of the `.td`.
fn line_of(record: &Map<String, Value>) -> usize {
    record["!locs"]
        .as_array()
        .and_then(|locs| locs.first())
        .and_then(Value::as_str)
        .and_then(|loc| loc.rsplit(':').next())
        .and_then(|line| line.parse().ok())
        .unwrap_or(0)
}

/// Removes the indentation common to every non-blank line and the blank lines around the text.
pub fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = text
        .lines()
        .map(|line| {
            if line.trim().is_empty() {
                ""
            } else {
                &line[indent..]
            }
        })
        .collect();
    let lines: Vec<&str> = lines.iter().map(|line| line.trim_end()).collect();
    lines.join("\n").trim_matches('\n').to_string()
}

/// Reads dialect `name` out of the JSON dump `json`; warnings (attributes that fall back to raw
/// ones for want of a Rust mirror) are returned beside it.
pub fn read(json: &str, name: &str) -> (Dialect, Vec<String>) {
    let all: Value = serde_json::from_str(json).expect("llvm-tblgen --dump-json gives JSON");
    let mut records = Records {
        all: all.as_object().expect("the dump is an object"),
        warnings: Vec::new(),
    };

    let dialect_def = records
        .instances("Dialect")
        .into_iter()
        .find(|def| string(records.get(def), "name") == name)
        .unwrap_or_else(|| panic!("no dialect `{name}` in the dump"));
    let dialect = records.get(dialect_def);
    let namespace = string(dialect, "cppNamespace");

    let traits: Vec<String> = records
        .instances("NativeOpTrait")
        .into_iter()
        .map(|def| records.get(def))
        .filter(|record| string(record, "cppNamespace") == namespace)
        .map(|record| string(record, "trait"))
        .collect();

    let mut ops: Vec<&Map<String, Value>> = records
        .instances("Op")
        .into_iter()
        .map(|def| records.get(def))
        .filter(|record| {
            record
                .get("opDialect")
                .and_then(|d| d.get("def"))
                .and_then(Value::as_str)
                == Some(dialect_def)
        })
        .collect();
    ops.sort_by_key(|record| line_of(record));
    let ops = ops
        .into_iter()
        .map(|record| read_op(&mut records, record, name, &namespace, &traits))
        .collect();

    let dialect = Dialect {
        name: name.to_string(),
        summary: string(dialect, "summary"),
        traits,
        ops,
    };
    (dialect, records.warnings)
}

fn read_op(
    records: &mut Records,
    record: &Map<String, Value>,
    dialect: &str,
    namespace: &str,
    dialect_traits: &[String],
) -> Op {
    let def = name_of(record);
    // As mlir-tblgen's Operator::getCppClassName: the record name after the first `_`.
    let class = def
        .split_once('_')
        .map_or(def, |(_, class)| class)
        .to_string();
    let name = format!("{dialect}.{}", string(record, "opName"));

    let mut native = Vec::new();
    if let Some(traits) = record.get("traits").and_then(Value::as_array) {
        for r#trait in traits {
            collect_traits(records, r#trait, &mut native);
        }
    }
    let has = |def: &str| native.iter().any(|(record, _, _)| record == def);
    let operand_segments = if has("AttrSizedOperandSegments") {
        Segments::Attribute
    } else if has("SameVariadicOperandSize") {
        Segments::SameSize
    } else {
        Segments::Fixed
    };
    let result_segments = if has("AttrSizedResultSegments") {
        Segments::Attribute
    } else if has("SameVariadicResultSize") {
        Segments::SameSize
    } else {
        Segments::Fixed
    };
    let traits = native
        .iter()
        .filter(|(_, space, r#trait)| space == namespace && dialect_traits.contains(r#trait))
        .map(|(_, _, r#trait)| r#trait.clone())
        .collect();

    let mut arguments = Vec::new();
    for (constraint, arg_name) in dag_args(record, "arguments") {
        let mut constraint = records.deref(constraint).expect("arguments name records");
        // `Arg<constraint, description, decorators>` wraps the constraint.
        while is_a(constraint, "OpVariable") {
            constraint = records
                .deref(&constraint["constraint"])
                .expect("an OpVariable has a constraint");
        }
        if is_a(constraint, "Attr") {
            arguments.push(Argument::Attribute(read_attribute(
                records, constraint, arg_name, &name,
            )));
        } else if is_a(constraint, "TypeConstraint") {
            arguments.push(Argument::Operand(read_operand(constraint, arg_name)));
        } else {
            // A property (`Property` records): no generated accessor, the raw op still has it.
            records.warnings.push(format!(
                "{name}: argument `{arg_name}` is neither an attribute nor an operand; \
                 no accessor generated"
            ));
        }
    }

    let results = dag_args(record, "results")
        .into_iter()
        .map(|(constraint, result_name)| {
            let mut constraint = records.deref(constraint).expect("results name records");
            while is_a(constraint, "OpVariable") {
                constraint = records
                    .deref(&constraint["constraint"])
                    .expect("an OpVariable has a constraint");
            }
            read_operand(constraint, result_name)
        })
        .collect();

    let regions = dag_args(record, "regions")
        .into_iter()
        .map(|(constraint, region_name)| {
            let constraint = records.deref(constraint).expect("regions name records");
            RegionDecl {
                name: region_name,
                variadic: is_a(constraint, "VariadicRegion"),
                summary: string(constraint, "summary"),
            }
        })
        .collect();
    let successors = dag_args(record, "successors").len();

    Op {
        class,
        name,
        summary: string(record, "summary"),
        description: dedent(
            record
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default(),
        ),
        arguments,
        results,
        regions,
        successors,
        operand_segments,
        result_segments,
        traits,
    }
}

/// Flattens trait lists (`Pure` is one) into (record, C++ namespace, trait) of each trait
/// (`SameVariadicOperandSize` is a `GenInternalTrait`, not a native one).
fn collect_traits(records: &Records, r#trait: &Value, out: &mut Vec<(String, String, String)>) {
    let Some(record) = records.deref(r#trait) else {
        return;
    };
    if is_a(record, "TraitList") {
        for inner in record["traits"].as_array().into_iter().flatten() {
            collect_traits(records, inner, out);
        }
    } else if is_a(record, "Trait") {
        out.push((
            name_of(record).to_string(),
            string(record, "cppNamespace"),
            string(record, "trait"),
        ));
    }
}

fn read_operand(constraint: &Map<String, Value>, name: String) -> Operand {
    let arity = if is_a(constraint, "Variadic") {
        Arity::Variadic
    } else if is_a(constraint, "Optional") {
        Arity::Optional
    } else {
        Arity::Single
    };
    Operand {
        name,
        arity,
        summary: string(constraint, "summary"),
    }
}

fn read_attribute(
    records: &mut Records,
    outer: &Map<String, Value>,
    name: String,
    op: &str,
) -> AttributeDecl {
    // OptionalAttr, DefaultValuedAttr, ConfinedAttr, ... wrap the attribute they constrain in
    // `baseAttr`; optionality and the default are the outer record's.
    let mut base = outer;
    while let Some(inner) = base.get("baseAttr").and_then(|value| records.deref(value)) {
        base = inner;
    }
    let default = outer
        .get("defaultValue")
        .and_then(Value::as_str)
        .map(str::to_string);
    let optional = outer.get("isOptional").and_then(Value::as_i64) == Some(1) && default.is_none();
    let kind = attribute_kind(records, base);
    if let AttributeKind::Raw(storage) = &kind {
        if storage.starts_with("::turbine") {
            records.warnings.push(format!(
                "{op}: attribute `{name}` ({storage}) has no Rust mirror in src/attributes; \
                 it reads as a raw Attribute"
            ));
        }
    }
    AttributeDecl {
        name,
        kind,
        optional,
        default,
        summary: string(outer, "summary"),
    }
}

fn attribute_kind(records: &Records, record: &Map<String, Value>) -> AttributeKind {
    if is_a(record, "EnumAttr") {
        // `EnumAttr<Dialect, EnumInfo, mnemonic>`: the enumeration is its `enum` field.
        let info = records
            .deref(&record["enum"])
            .expect("an EnumAttr names its enumeration");
        let cpp = format!(
            "{}::{}",
            string(info, "cppNamespace"),
            string(info, "className")
        );
        let cases = info["enumerants"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|case| records.deref(case))
            .map(|case| string(case, "symbol"))
            .collect();
        return match MIRRORED_ENUMS.iter().find(|(c, _)| *c == cpp) {
            Some((_, path)) => AttributeKind::Enum {
                path: path.to_string(),
                cases,
            },
            None => AttributeKind::Raw(string(record, "storageType")),
        };
    }
    let storage = string(record, "storageType");
    if let Some((_, path)) = MIRRORED_ATTRIBUTES.iter().find(|(c, _)| *c == storage) {
        return AttributeKind::Mirrored {
            path: path.to_string(),
        };
    }
    let value_type = record
        .get("valueType")
        .and_then(|value| records.deref(value));
    let width = value_type
        .and_then(|t| t.get("bitwidth"))
        .and_then(Value::as_u64)
        .map(|w| w as u32);
    match storage.as_str() {
        "::mlir::DenseI32ArrayAttr" => AttributeKind::DenseArray("i32"),
        "::mlir::DenseI64ArrayAttr" => AttributeKind::DenseArray("i64"),
        "::mlir::DenseF32ArrayAttr" => AttributeKind::DenseArray("f32"),
        "::mlir::DenseF64ArrayAttr" => AttributeKind::DenseArray("f64"),
        "::mlir::BoolAttr" => AttributeKind::Bool,
        "::mlir::UnitAttr" => AttributeKind::Unit,
        "::mlir::StringAttr" => AttributeKind::String,
        "::mlir::FlatSymbolRefAttr" => AttributeKind::SymbolRef,
        "::mlir::TypeAttr" => AttributeKind::Type,
        "::mlir::IntegerAttr" => match (value_type, width) {
            (Some(value_type), Some(width)) if width <= 64 => {
                let signedness = if is_a(value_type, "SI") {
                    Signedness::Signed
                } else if is_a(value_type, "UI") {
                    Signedness::Unsigned
                } else if is_a(value_type, "I") {
                    Signedness::Signless
                } else {
                    return AttributeKind::Raw(storage);
                };
                AttributeKind::Integer { width, signedness }
            }
            _ => AttributeKind::Raw(storage),
        },
        "::mlir::FloatAttr" => match width {
            Some(width @ (32 | 64)) if value_type.is_some_and(|t| is_a(t, "F")) => {
                AttributeKind::Float { width }
            }
            _ => AttributeKind::Raw(storage),
        },
        "::mlir::ArrayAttr" => {
            let element = record
                .get("elementAttr")
                .and_then(|value| records.deref(value))
                .map(|element| attribute_kind(records, element))
                .filter(|element| !matches!(element, AttributeKind::Raw(_)));
            AttributeKind::Array(element.map(Box::new))
        }
        _ => AttributeKind::Raw(storage),
    }
}
