//! An op's builder: the view's `builder` function, which takes what the op cannot be without,
//! and the builder struct, whose setters add the rest and whose `build()` creates the op.

use super::attributes::{parameter_type, presence, write, Presence};
use super::names::{doc, ident};
use crate::ods::{Argument, Arity, AttributeDecl, Op, Operand, Segments};
use std::fmt::Write;

/// Whether the builder carries values (and so the values' lifetime `'b`).
fn builder_lifetimes(op: &Op, operands: &[&Operand]) -> &'static str {
    if operands.is_empty() && op.successors == 0 {
        "'c"
    } else {
        "'c, 'b"
    }
}

/// Writes the view's `builder` function, which starts a `builder` with the op's result types,
/// operands, required attributes and regions.
pub(super) fn builder_function(
    out: &mut String,
    op: &Op,
    builder: &str,
    operands: &[&Operand],
    results: &[&Operand],
) {
    let lifetimes = builder_lifetimes(op, operands);
    let generics = if lifetimes == "'c" {
        String::new()
    } else {
        "<'b>".to_string()
    };
    let (parameters, fields) = builder_parameters(op, results);
    builder_doc(out, op, results);
    if parameters.len() > 7 {
        writeln!(out, "    #[allow(").unwrap();
        writeln!(out, "        clippy::too_many_arguments,").unwrap();
        writeln!(
            out,
            "        reason = \"one parameter per ODS operand and attribute\""
        )
        .unwrap();
        writeln!(out, "    )]").unwrap();
    }
    let one_line = format!(
        "    pub fn builder{generics}({}) -> {builder}<{lifetimes}> {{",
        parameters.join(", ")
    );
    if one_line.len() <= 100 {
        writeln!(out, "{one_line}").unwrap();
    } else {
        writeln!(out, "    pub fn builder{generics}(").unwrap();
        for parameter in &parameters {
            writeln!(out, "        {parameter},").unwrap();
        }
        writeln!(out, "    ) -> {builder}<{lifetimes}> {{").unwrap();
    }
    if fields.join(", ").len() <= 18 {
        writeln!(out, "        {builder} {{ {} }}", fields.join(", ")).unwrap();
    } else {
        writeln!(out, "        {builder} {{").unwrap();
        for field in &fields {
            writeln!(out, "            {field},").unwrap();
        }
        writeln!(out, "        }}").unwrap();
    }
    writeln!(out, "    }}").unwrap();
}

/// The `builder` function's parameters and the builder fields they initialise.
fn builder_parameters(op: &Op, results: &[&Operand]) -> (Vec<String>, Vec<String>) {
    let mut parameters = vec!["location: Location<'c>".to_string()];
    let mut fields = vec!["location".to_string()];
    for (index, result) in results.iter().enumerate() {
        let name = ident(&result.name, index, "result");
        match result.arity {
            Arity::Single => {
                parameters.push(format!("{name}: Type<'c>"));
                fields.push(name);
            }
            Arity::Optional => fields.push(format!("{name}: None")),
            Arity::Variadic => {
                parameters.push(format!("{name}: &[Type<'c>]"));
                fields.push(format!("{name}: {name}.to_vec()"));
            }
        }
    }
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                match operand.arity {
                    Arity::Single => {
                        parameters.push(format!("{name}: impl Into<Value<'c, 'b>>"));
                        fields.push(format!("{name}: {name}.into()"));
                    }
                    Arity::Optional => fields.push(format!("{name}: None")),
                    Arity::Variadic => {
                        parameters.push(format!(
                            "{name}: impl IntoIterator<Item = impl Into<Value<'c, 'b>>>"
                        ));
                        fields.push(format!(
                            "{name}: {name}.into_iter().map(Into::into).collect()"
                        ));
                    }
                }
            }
            Argument::Attribute(attribute) => {
                let name = ident(&attribute.name, 0, "attribute");
                match presence(attribute) {
                    Presence::Required => {
                        parameters.push(format!("{name}: {}", parameter_type(&attribute.kind)));
                        let value = write(&attribute.kind, &attribute.name, &name, "location");
                        fields.push(if value == name {
                            name
                        } else {
                            format!("{name}: {value}")
                        });
                    }
                    _ => fields.push(format!("{name}: None")),
                }
            }
        }
    }
    for (index, region) in op.regions.iter().enumerate() {
        let name = ident(&region.name, index, "region");
        if region.variadic {
            parameters.push(format!("{name}: Vec<Region<'c>>"));
        } else {
            parameters.push(format!("{name}: Region<'c>"));
        }
        fields.push(name);
    }
    if op.successors > 0 {
        parameters.push("successors: &[&'b melior::ir::Block<'c>]".into());
        fields.push("successors: successors.to_vec()".into());
    }
    (parameters, fields)
}

/// Writes the `builder` function's documentation, which names what the setters add.
fn builder_doc(out: &mut String, op: &Op, results: &[&Operand]) {
    let setters: Vec<String> = op
        .arguments
        .iter()
        .filter_map(|argument| match argument {
            Argument::Operand(operand) if operand.arity == Arity::Optional => {
                Some(format!("`{}`", operand.name))
            }
            Argument::Attribute(attribute)
                if !matches!(presence(attribute), Presence::Required) =>
            {
                Some(format!("`{}`", attribute.name))
            }
            _ => None,
        })
        .chain(
            results
                .iter()
                .filter(|r| r.arity == Arity::Optional)
                .map(|r| format!("`{}`", r.name)),
        )
        .collect();
    let mut text = format!(
        "Starts a `{}` at `location` with its result types, operands, required attributes and \
         regions, in ODS order",
        op.name
    );
    if setters.is_empty() {
        text.push('.');
    } else {
        write!(text, "; the builder's setters add {}.", setters.join(", ")).unwrap();
    }
    doc(out, "    ", &text);
}

/// Writes the builder struct, its setters and its `build()`.
pub(super) fn builder_struct(
    out: &mut String,
    op: &Op,
    builder: &str,
    operands: &[&Operand],
    results: &[&Operand],
) {
    let lifetimes = builder_lifetimes(op, operands);
    builder_fields(out, op, builder, lifetimes, results);
    writeln!(out, "impl<{lifetimes}> {builder}<{lifetimes}> {{").unwrap();
    setters(out, op, results);
    build(out, op, operands, results);
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
}

/// Writes the builder struct: one field for each result type, operand, attribute and region.
fn builder_fields(out: &mut String, op: &Op, builder: &str, lifetimes: &str, results: &[&Operand]) {
    let class = &op.class;
    doc(
        out,
        "",
        &format!(
            "Builds a [`{class}`] (`{}`): see [`{class}::builder`].",
            op.name
        ),
    );
    writeln!(out, "pub struct {builder}<{lifetimes}> {{").unwrap();
    writeln!(out, "    location: Location<'c>,").unwrap();
    for (index, result) in results.iter().enumerate() {
        let name = ident(&result.name, index, "result");
        let r#type = match result.arity {
            Arity::Single => "Type<'c>",
            Arity::Optional => "Option<Type<'c>>",
            Arity::Variadic => "Vec<Type<'c>>",
        };
        writeln!(out, "    {name}: {type},").unwrap();
    }
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                let r#type = match operand.arity {
                    Arity::Single => "Value<'c, 'b>",
                    Arity::Optional => "Option<Value<'c, 'b>>",
                    Arity::Variadic => "Vec<Value<'c, 'b>>",
                };
                writeln!(out, "    {name}: {type},").unwrap();
            }
            Argument::Attribute(attribute) => {
                let name = ident(&attribute.name, 0, "attribute");
                let r#type = match presence(attribute) {
                    Presence::Required => "Attribute<'c>",
                    _ => "Option<Attribute<'c>>",
                };
                writeln!(out, "    {name}: {type},").unwrap();
            }
        }
    }
    for (index, region) in op.regions.iter().enumerate() {
        let name = ident(&region.name, index, "region");
        let r#type = if region.variadic {
            "Vec<Region<'c>>"
        } else {
            "Region<'c>"
        };
        writeln!(out, "    {name}: {type},").unwrap();
    }
    if op.successors > 0 {
        writeln!(out, "    successors: Vec<&'b melior::ir::Block<'c>>,").unwrap();
    }
    writeln!(out, "}}").unwrap();
    writeln!(out).unwrap();
}

/// Writes the setters of the optional operands, of the attributes that are not required and of
/// the optional results.
fn setters(out: &mut String, op: &Op, results: &[&Operand]) {
    let mut operand_index = 0;
    for argument in &op.arguments {
        match argument {
            Argument::Operand(operand) => {
                let name = ident(&operand.name, operand_index, "operand");
                operand_index += 1;
                if operand.arity == Arity::Optional {
                    doc(
                        out,
                        "    ",
                        &format!("Sets the optional operand `{}`.", operand.name),
                    );
                    writeln!(
                        out,
                        "    pub fn {name}(mut self, {name}: impl Into<Value<'c, 'b>>) -> Self {{"
                    )
                    .unwrap();
                    writeln!(out, "        self.{name} = Some({name}.into());").unwrap();
                    writeln!(out, "        self").unwrap();
                    writeln!(out, "    }}").unwrap();
                    writeln!(out).unwrap();
                }
            }
            Argument::Attribute(attribute) => attribute_setter(out, attribute),
        }
    }
    for (index, result) in results.iter().enumerate() {
        if result.arity == Arity::Optional {
            let name = ident(&result.name, index, "result");
            doc(
                out,
                "    ",
                &format!(
                    "Gives the op the optional result `{}`, of type `{name}`.",
                    result.name
                ),
            );
            writeln!(
                out,
                "    pub fn {name}(mut self, {name}: Type<'c>) -> Self {{"
            )
            .unwrap();
            writeln!(out, "        self.{name} = Some({name});").unwrap();
            writeln!(out, "        self").unwrap();
            writeln!(out, "    }}").unwrap();
            writeln!(out).unwrap();
        }
    }
}

/// Writes the setter of an attribute that is not required (none for a required one).
fn attribute_setter(out: &mut String, attribute: &AttributeDecl) {
    let name = ident(&attribute.name, 0, "attribute");
    let ods = &attribute.name;
    match presence(attribute) {
        Presence::Required => {}
        Presence::Unit => {
            doc(
                out,
                "    ",
                &format!("Sets (`true`) or leaves out the unit attribute `{ods}`."),
            );
            writeln!(out, "    pub fn {name}(mut self, {name}: bool) -> Self {{").unwrap();
            writeln!(
                out,
                "        self.{name} = \
                     {name}.then(|| support::unit_attribute(self.location));"
            )
            .unwrap();
            writeln!(out, "        self").unwrap();
            writeln!(out, "    }}").unwrap();
            writeln!(out).unwrap();
        }
        Presence::Defaulted(_) | Presence::Optional => {
            let default = match &attribute.default {
                Some(default) => format!(" (`{}` when not set)", default.trim()),
                None => String::new(),
            };
            doc(
                out,
                "    ",
                &format!("Sets the attribute `{ods}`{default}."),
            );
            let parameter = parameter_type(&attribute.kind);
            writeln!(
                out,
                "    pub fn {name}(mut self, {name}: {parameter}) -> Self {{"
            )
            .unwrap();
            let value = write(&attribute.kind, ods, &name, "self.location");
            writeln!(out, "        self.{name} = Some({value});").unwrap();
            writeln!(out, "        self").unwrap();
            writeln!(out, "    }}").unwrap();
            writeln!(out).unwrap();
        }
    }
}

/// Writes `build()`, which makes the op's lists and hands them to `support::create`.
fn build(out: &mut String, op: &Op, operands: &[&Operand], results: &[&Operand]) {
    doc(
        out,
        "    ",
        &format!("Creates the `{}` (not inserted in any block).", op.name),
    );
    writeln!(out, "    pub fn build(self) -> Operation<'c> {{").unwrap();
    let result_names = named(results, "result");
    let operand_names = named(operands, "operand");
    let result_list = value_list(out, "results", &result_names);
    let operand_list = value_list(out, "operands", &operand_names);
    let attribute_list = attribute_list(out, op, &operand_names, &result_names);
    let region_list = region_list(out, op);
    let successor_list = if op.successors > 0 {
        "&self.successors"
    } else {
        "&[]"
    };
    writeln!(out, "        support::create(").unwrap();
    writeln!(out, "            {}::NAME,", op.class).unwrap();
    writeln!(out, "            self.location,").unwrap();
    writeln!(out, "            {result_list},").unwrap();
    writeln!(out, "            {operand_list},").unwrap();
    writeln!(out, "            {attribute_list},").unwrap();
    writeln!(out, "            {region_list},").unwrap();
    writeln!(out, "            {successor_list},").unwrap();
    writeln!(out, "        )").unwrap();
    writeln!(out, "    }}").unwrap();
}

/// The builder field of each operand (or result) with its arity.
fn named(values: &[&Operand], what: &str) -> Vec<(String, Arity)> {
    values
        .iter()
        .enumerate()
        .map(|(index, value)| (ident(&value.name, index, what), value.arity))
        .collect()
}

/// Writes the statements that make the list `variable` (`results` or `operands`) of `build()`
/// from the builder fields `names`, and returns the expression that passes it.
fn value_list(out: &mut String, variable: &str, names: &[(String, Arity)]) -> String {
    let items = names
        .iter()
        .map(|(name, arity)| match arity {
            Arity::Single => Item::Single(format!("self.{name}")),
            // Copied, not moved: segment sizes may read the lists later.
            Arity::Optional => Item::Statements(vec![format!("{variable}.extend(self.{name});")]),
            Arity::Variadic => Item::Statements(vec![format!(
                "{variable}.extend(self.{name}.iter().copied());"
            )]),
        })
        .collect();
    list(out, variable, items, false)
}

/// Writes the statements that make the attribute list of `build()`, segment sizes included, and
/// returns the expression that passes it.
fn attribute_list(
    out: &mut String,
    op: &Op,
    operand_names: &[(String, Arity)],
    result_names: &[(String, Arity)],
) -> String {
    let mut items: Vec<Item> = op
        .arguments
        .iter()
        .filter_map(|argument| {
            if let Argument::Attribute(a) = argument {
                Some(a)
            } else {
                None
            }
        })
        .map(|attribute| {
            let name = ident(&attribute.name, 0, "attribute");
            match presence(attribute) {
                Presence::Required => {
                    Item::Single(format!("(\"{}\", self.{name})", attribute.name))
                }
                _ => Item::Statements(vec![
                    format!("if let Some(value) = self.{name} {{"),
                    format!("    attributes.push((\"{}\", value));", attribute.name),
                    "}".to_string(),
                ]),
            }
        })
        .collect();
    if op.operand_segments == Segments::Attribute {
        let sizes = segment_sizes(operand_names);
        items.push(Item::Statements(vec![
            format!("let sizes = support::dense_i32_array_attribute(self.location, {sizes});"),
            "attributes.push((\"operandSegmentSizes\", sizes));".to_string(),
        ]));
    }
    if op.result_segments == Segments::Attribute {
        let sizes = segment_sizes(result_names);
        items.push(Item::Statements(vec![
            format!("let sizes = support::dense_i32_array_attribute(self.location, {sizes});"),
            "attributes.push((\"resultSegmentSizes\", sizes));".to_string(),
        ]));
    }
    list(out, "attributes", items, false)
}

/// The `&[...]` of the segment sizes of the builder fields `values`.
fn segment_sizes(values: &[(String, Arity)]) -> String {
    let sizes: Vec<String> = values
        .iter()
        .map(|(name, arity)| match arity {
            Arity::Single => "1".to_string(),
            Arity::Optional => format!("i32::from(self.{name}.is_some())"),
            Arity::Variadic => format!("support::segment_size(self.{name}.len())"),
        })
        .collect();
    format!("&[{}]", sizes.join(", "))
}

/// Writes the statements that make the region list of `build()` and returns the expression
/// that passes it.
fn region_list(out: &mut String, op: &Op) -> String {
    let items: Vec<Item> = op
        .regions
        .iter()
        .enumerate()
        .map(|(index, region)| {
            let name = ident(&region.name, index, "region");
            if region.variadic {
                Item::Statements(vec![format!("regions.extend(self.{name});")])
            } else {
                Item::Single(format!("self.{name}"))
            }
        })
        .collect();
    list(out, "regions", items, true)
}

/// One element of a list that `build()` hands to `support::create`.
enum Item {
    /// An expression always in the list.
    Single(String),
    /// Statements that add zero or more elements to the list's variable.
    Statements(Vec<String>),
}

/// Writes `[a, b]` or, when it is long, one element a line at `indent` (as rustfmt does).
fn elements(items: &[String], indent: &str) -> String {
    if items.join(", ").len() <= 60 {
        format!("[{}]", items.join(", "))
    } else {
        let lines: Vec<String> = items
            .iter()
            .map(|item| format!("{indent}    {item},\n"))
            .collect();
        format!("[\n{}{indent}]", lines.concat())
    }
}

/// Writes the statements that make list `variable` in `build()` and returns the expression that
/// passes it: a slice, or a `Vec` when `owned`. A list of single elements is written in place.
fn list(out: &mut String, variable: &str, items: Vec<Item>, owned: bool) -> String {
    let leading = items
        .iter()
        .position(|item| matches!(item, Item::Statements(_)))
        .unwrap_or(items.len());
    let head: Vec<String> = items[..leading]
        .iter()
        .map(|item| match item {
            Item::Single(expression) => expression.clone(),
            Item::Statements(_) => unreachable!("the head is single elements"),
        })
        .collect();
    if leading == items.len() {
        if head.is_empty() {
            return if owned {
                "Vec::new()".into()
            } else {
                "&[]".into()
            };
        }
        let list = elements(&head, "            ");
        return if owned {
            format!("vec!{list}")
        } else {
            format!("&{list}")
        };
    }
    if head.is_empty() {
        writeln!(out, "        let mut {variable} = Vec::new();").unwrap();
    } else {
        writeln!(
            out,
            "        let mut {variable} = vec!{};",
            elements(&head, "        ")
        )
        .unwrap();
    }
    for item in &items[leading..] {
        match item {
            Item::Single(expression) => {
                writeln!(out, "        {variable}.push({expression});").unwrap()
            }
            Item::Statements(statements) => {
                for statement in statements {
                    writeln!(out, "        {statement}").unwrap();
                }
            }
        }
    }
    if owned {
        variable.to_string()
    } else {
        format!("&{variable}")
    }
}
