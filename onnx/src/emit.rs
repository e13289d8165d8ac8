//! Writing the graph dialect as MLIR text.
//!
//! Operations are written in MLIR's generic form (`"graph.add"(%0, %1) <{...}> : (...) -> ...`),
//! which is the same for every operator, so lowering code never deals with assembly formats; the
//! parser in `turbine-translate` reads it and the printer writes the custom form back. Every
//! operation carries `loc("<ONNX node name>")`, so a verifier error names the node.

use std::fmt::Write as _;

use crate::tensor::{Data, Tensor};
use crate::types::TensorType;

/// An SSA value of the function being written, with its type.
#[derive(Clone, Debug, PartialEq)]
pub struct Operand {
    /// The SSA name, such as `%4`, `%4#1` or `%arg0`.
    pub name: String,
    /// Its type.
    pub ty: TensorType,
}

/// An attribute value in the spelling of MLIR's builtin attributes.
#[derive(Clone, Debug, PartialEq)]
pub enum Attribute {
    /// `3 : i64`.
    Int(i64),
    /// `1.0e-05 : f32`.
    Float(f32),
    /// `true`.
    Bool(bool),
    /// `array<i64: 1, 2>`.
    Ints(Vec<i64>),
    /// `array<f32: 1.0e0, 2.0e0>`.
    Floats(Vec<f32>),
    /// `#graph<mnemonic value>`: one of the graph dialect's enum attributes.
    Enum(&'static str, &'static str),
}

impl Attribute {
    fn write(&self, out: &mut String) {
        match self {
            Self::Int(value) => write!(out, "{value} : i64"),
            Self::Float(value) => write!(out, "{} : f32", float_literal(*value)),
            Self::Bool(value) => write!(out, "{value}"),
            Self::Ints(values) if values.is_empty() => write!(out, "array<i64>"),
            Self::Ints(values) => write!(
                out,
                "array<i64: {}>",
                join(values.iter().map(ToString::to_string))
            ),
            Self::Floats(values) => write!(
                out,
                "array<f32: {}>",
                join(values.iter().map(|&value| float_literal(value)))
            ),
            Self::Enum(mnemonic, value) => write!(out, "#graph<{mnemonic} {value}>"),
        }
        .expect("writing to a String cannot fail");
    }
}

/// The body of `@main` as it is written, operation by operation.
#[derive(Debug, Default)]
pub struct FunctionBody {
    text: String,
    next_id: usize,
}

impl FunctionBody {
    /// Appends `%n = "<name>"(operands) <{attributes}> : (operand types) -> (result types)` at
    /// `location` and returns the results.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&str, Attribute)],
        results: &[TensorType],
        location: &str,
    ) -> Vec<Operand> {
        let id = self.next_id;
        self.next_id += 1;
        let out = &mut self.text;
        out.push_str("    ");
        match results.len() {
            0 => {}
            1 => write!(out, "%{id} = ").unwrap(),
            count => write!(out, "%{id}:{count} = ").unwrap(),
        }
        write!(
            out,
            "\"{name}\"({})",
            join(operands.iter().map(|operand| operand.name.clone()))
        )
        .unwrap();
        if !attributes.is_empty() {
            out.push_str(" <{");
            for (index, (key, value)) in attributes.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                write!(out, "{key} = ").unwrap();
                value.write(out);
            }
            out.push_str("}>");
        }
        let operand_types = join(operands.iter().map(|operand| operand.ty.to_string()));
        let result_types = join(results.iter().map(ToString::to_string));
        writeln!(
            out,
            " : ({operand_types}) -> ({result_types}) loc({})",
            string_literal(location)
        )
        .unwrap();
        match results {
            [ty] => vec![Operand {
                name: format!("%{id}"),
                ty: ty.clone(),
            }],
            _ => results
                .iter()
                .enumerate()
                .map(|(index, ty)| Operand {
                    name: format!("%{id}#{index}"),
                    ty: ty.clone(),
                })
                .collect(),
        }
    }

    /// One result of [`Self::op`].
    pub fn op1(
        &mut self,
        name: &str,
        operands: &[&Operand],
        attributes: &[(&str, Attribute)],
        result: TensorType,
        location: &str,
    ) -> Operand {
        self.op(name, operands, attributes, &[result], location)
            .remove(0)
    }

    /// `graph.constant` holding `tensor` inline.
    pub fn constant(&mut self, tensor: &Tensor, location: &str) -> Operand {
        let ty = tensor.ty();
        let value = format!("dense<{}> : {ty}", dense_literal(tensor));
        self.raw_op1("graph.constant", &format!("value = {value}"), ty, location)
    }

    /// `graph.constant` of type `ty` whose every element is the one element of `value`: a splat
    /// costs one literal whatever its size.
    pub fn splat(&mut self, value: &Tensor, ty: TensorType, location: &str) -> Operand {
        let value = format!("dense<{}> : {ty}", dense_literal(value));
        self.raw_op1("graph.constant", &format!("value = {value}"), ty, location)
    }

    /// `graph.weight "<name>"`, a tensor of the weights file.
    pub fn weight(&mut self, name: &str, ty: TensorType, location: &str) -> Operand {
        self.raw_op1(
            "graph.weight",
            &format!("name = {}", string_literal(name)),
            ty,
            location,
        )
    }

    /// `func.return` of `values`.
    pub fn ret(&mut self, values: &[&Operand], location: &str) {
        self.op("func.return", values, &[], &[], location);
    }

    fn raw_op1(&mut self, name: &str, properties: &str, ty: TensorType, location: &str) -> Operand {
        let id = self.next_id;
        self.next_id += 1;
        writeln!(
            self.text,
            "    %{id} = \"{name}\"() <{{{properties}}}> : () -> {ty} loc({})",
            string_literal(location)
        )
        .unwrap();
        Operand {
            name: format!("%{id}"),
            ty,
        }
    }

    /// The text written so far.
    pub fn text(&self) -> &str {
        &self.text
    }
}

/// A function argument or result: the ONNX name it stands for and its type.
#[derive(Clone, Debug)]
pub struct Signature {
    /// The ONNX graph input or output name (`graph.name`).
    pub name: String,
    /// Its type.
    pub ty: TensorType,
}

/// The whole module: `graph.weights` (when there are weights) and `@main` with `body`.
pub fn module(
    weights_file: Option<&str>,
    location: &str,
    inputs: &[Signature],
    outputs: &[Signature],
    body: &FunctionBody,
) -> String {
    let mut out = String::new();
    out.push_str("module");
    if let Some(file) = weights_file {
        write!(
            out,
            " attributes {{graph.weights = {}}}",
            string_literal(file)
        )
        .unwrap();
    }
    out.push_str(" {\n  func.func @main(");
    let arguments = inputs.iter().enumerate().map(|(index, input)| {
        let name = string_literal(&input.name);
        format!(
            "%arg{index}: {} {{graph.name = {name}}} loc({name})",
            input.ty
        )
    });
    out.push_str(&join(arguments));
    let results = outputs.iter().map(|output| {
        format!(
            "{} {{graph.name = {}}}",
            output.ty,
            string_literal(&output.name)
        )
    });
    writeln!(out, ") -> ({}) {{", join(results)).unwrap();
    out.push_str(body.text());
    let location = string_literal(location);
    writeln!(out, "  }} loc({location})\n}} loc({location})").unwrap();
    out
}

/// The SSA name of function argument `index`.
pub fn argument_name(index: usize) -> String {
    format!("%arg{index}")
}

fn join(items: impl Iterator<Item = String>) -> String {
    items.collect::<Vec<_>>().join(", ")
}

/// An MLIR string literal: quotes, backslashes and control bytes escaped as `\XX`.
pub fn string_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for character in text.chars() {
        match character {
            '"' | '\\' => {
                out.push('\\');
                out.push(character);
            }
            character if (character as u32) < 0x20 || character == '\u{7f}' => {
                write!(out, "\\{:02X}", character as u32).unwrap();
            }
            character => out.push(character),
        }
    }
    out.push('"');
    out
}

/// An `f32` as an MLIR float literal that parses back to the same bits: the shortest decimal
/// with a `.` (MLIR requires one), or the bit pattern in hex for infinities, NaNs, and the rare
/// value whose decimal would round differently through the parser's `f64`.
pub fn float_literal(value: f32) -> String {
    let hex = || format!("0x{:08X}", value.to_bits());
    if !value.is_finite() {
        return hex();
    }
    let shortest = format!("{value:e}");
    let (mantissa, exponent) = shortest.split_once('e').unwrap_or((&shortest, "0"));
    let decimal = if mantissa.contains('.') {
        format!("{mantissa}e{exponent}")
    } else {
        format!("{mantissa}.0e{exponent}")
    };
    match decimal.parse::<f64>() {
        Ok(parsed) if (parsed as f32).to_bits() == value.to_bits() => decimal,
        _ => hex(),
    }
}

/// The body of a `dense<...>` literal: one value for a splat, nested lists otherwise.
fn dense_literal(tensor: &Tensor) -> String {
    let element = |index: usize| match &tensor.data {
        Data::F32(values) => float_literal(values[index]),
        Data::I32(values) => values[index].to_string(),
        Data::I64(values) => values[index].to_string(),
        Data::Bool(values) => values[index].to_string(),
    };
    if tensor.data.is_empty() {
        return String::new();
    }
    if tensor.data.is_splat() {
        return element(0);
    }
    let mut out = String::new();
    nested(&tensor.shape, 0, &mut out, &element);
    out
}

/// Writes the elements from `offset` of a tensor of `shape` as nested lists.
fn nested(shape: &[usize], offset: usize, out: &mut String, element: &dyn Fn(usize) -> String) {
    let Some((&outer, inner)) = shape.split_first() else {
        out.push_str(&element(offset));
        return;
    };
    let stride: usize = inner.iter().product();
    out.push('[');
    for index in 0..outer {
        if index > 0 {
            out.push_str(", ");
        }
        nested(inner, offset + index * stride, out, element);
    }
    out.push(']');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ElementType;

    #[test]
    fn float_literals_round_trip_through_f64() {
        assert_eq!(float_literal(1e-5), "1.0e-5");
        assert_eq!(float_literal(0.75), "7.5e-1");
        assert_eq!(float_literal(-0.0), "-0.0e0");
        assert_eq!(float_literal(f32::INFINITY), "0x7F800000");
        assert_eq!(float_literal(f32::NEG_INFINITY), "0xFF800000");
        // A sweep over the bit patterns: every literal parses back to the same bits.
        for bits in (0u32..u32::MAX).step_by(4093) {
            let value = f32::from_bits(bits);
            let literal = float_literal(value);
            let parsed = match literal.strip_prefix("0x") {
                Some(hex) => f32::from_bits(u32::from_str_radix(hex, 16).unwrap()),
                None => literal.parse::<f64>().unwrap() as f32,
            };
            assert_eq!(parsed.to_bits(), bits, "{literal}");
        }
    }

    #[test]
    fn strings_are_escaped() {
        assert_eq!(string_literal("/layer1/Conv"), "\"/layer1/Conv\"");
        assert_eq!(string_literal("a\"b\\c\n"), "\"a\\\"b\\\\c\\0A\"");
    }

    #[test]
    fn dense_literals_nest_by_shape() {
        let tensor = Tensor::new(vec![2, 2], Data::I64(vec![1, 2, 3, 4]));
        assert_eq!(dense_literal(&tensor), "[[1, 2], [3, 4]]");
        let splat = Tensor::new(vec![3], Data::F32(vec![0.5; 3]));
        assert_eq!(dense_literal(&splat), "5.0e-1");
        let scalar = Tensor::new(vec![], Data::Bool(vec![true]));
        assert_eq!(dense_literal(&scalar), "true");
        let empty = Tensor::new(vec![0], Data::I64(vec![]));
        assert_eq!(dense_literal(&empty), "");
    }

    #[test]
    fn ops_are_written_in_generic_form() {
        let mut body = FunctionBody::default();
        let ty = TensorType::new(vec![2], ElementType::F32);
        let a = body.weight("w", ty.clone(), "w");
        let sum = body.op1("graph.add", &[&a, &a], &[], ty.clone(), "add");
        let parts = body.op(
            "graph.split",
            &[&sum],
            &[("axis", Attribute::Int(0))],
            &vec![TensorType::new(vec![1], ElementType::F32); 2],
            "split",
        );
        assert_eq!(parts[1].name, "%2#1");
        assert_eq!(
            body.text(),
            "    %0 = \"graph.weight\"() <{name = \"w\"}> : () -> tensor<2xf32> loc(\"w\")\n\
             \x20   %1 = \"graph.add\"(%0, %0) : (tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>) loc(\"add\")\n\
             \x20   %2:2 = \"graph.split\"(%1) <{axis = 0 : i64}> : (tensor<2xf32>) -> (tensor<1xf32>, tensor<1xf32>) loc(\"split\")\n"
        );
    }
}
