//! Reads a dialect's ops out of the TableGen JSON dump of its `.td` (`llvm-tblgen --dump-json`,
//! the standard TableGen JSON backend).
//!
//! The JSON holds every record TableGen saw, with its fields and superclasses: an op is a record
//! deriving from `Op`, its `arguments` a dag of (constraint record, name) pairs, and a constraint
//! tells what it is by its superclasses (`Attr`, `TypeConstraint`, `Optional`, `Variadic`, ...).

use super::mirrors::{MIRRORED_ATTRIBUTES, MIRRORED_ENUMS};
use super::{
    Argument, Arity, AttributeDecl, AttributeKind, Dialect, Op, Operand, RegionDecl, Segments,
    Signedness,
};
use serde_json::{Map, Value};

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
fn dedent(text: &str) -> String {
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
    let segments = |attribute_sized: &str, same_size: &str| {
        if has(attribute_sized) {
            Segments::Attribute
        } else if has(same_size) {
            Segments::SameSize
        } else {
            Segments::Fixed
        }
    };
    let operand_segments = segments("AttrSizedOperandSegments", "SameVariadicOperandSize");
    let result_segments = segments("AttrSizedResultSegments", "SameVariadicResultSize");
    let traits = native
        .iter()
        .filter(|(_, space, r#trait)| space == namespace && dialect_traits.contains(r#trait))
        .map(|(_, _, r#trait)| r#trait.clone())
        .collect();

    let arguments = read_arguments(records, record, &name);
    let results = dag_args(record, "results")
        .into_iter()
        .map(|(constraint, result_name)| {
            read_operand(constraint_of(records, constraint, "results"), result_name)
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

/// The constraint record of an operand, attribute or result that `value` names in the dag
/// `field`, unwrapped from `Arg<constraint, description, decorators>`.
fn constraint_of<'j>(records: &Records<'j>, value: &Value, field: &str) -> &'j Map<String, Value> {
    let mut constraint = records
        .deref(value)
        .unwrap_or_else(|| panic!("{field} name records"));
    while is_a(constraint, "OpVariable") {
        constraint = records
            .deref(&constraint["constraint"])
            .expect("an OpVariable has a constraint");
    }
    constraint
}

/// The operands and attributes of op `op`'s record, in the order of its `arguments`.
fn read_arguments(records: &mut Records, record: &Map<String, Value>, op: &str) -> Vec<Argument> {
    let mut arguments = Vec::new();
    for (constraint, arg_name) in dag_args(record, "arguments") {
        let constraint = constraint_of(records, constraint, "arguments");
        if is_a(constraint, "Attr") {
            arguments.push(Argument::Attribute(read_attribute(
                records, constraint, arg_name, op,
            )));
        } else if is_a(constraint, "TypeConstraint") {
            arguments.push(Argument::Operand(read_operand(constraint, arg_name)));
        } else {
            // A property (`Property` records): no generated accessor, the raw op still has it.
            records.warnings.push(format!(
                "{op}: argument `{arg_name}` is neither an attribute nor an operand; \
                 no accessor generated"
            ));
        }
    }
    arguments
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
