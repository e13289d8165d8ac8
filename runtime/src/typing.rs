//! The element-type rules of the instruction set and the bytes an instruction moves, both of
//! which depend on the element types of its buffers rather than on its views alone.

use crate::element::ElementType;
use crate::instr::Instr;
use crate::memory::Memory;
use crate::view::View;
use turbine_targets::MemLevel;

/// The element type of a view's buffer (checked to exist before the rules run).
fn element(memory: &Memory, view: &View) -> ElementType {
    memory
        .get(view.buffer)
        .expect("operand buffers are checked before their types")
        .dtype
}

/// Checks the element types of the operands: a DMA copies between buffers of one type or
/// converts between float types, a gather's table and output share a type and its indices are
/// i64 or i32, a conversion takes any types, a comparison compares two inputs of one type into
/// booleans, a selection picks by a boolean condition between inputs of the output's type, a
/// binary operation computes on floats or on one integer type (i64 or i32) for all three
/// operands, an arg reduction reads floats into i64, a top-k reads floats into float values
/// and i64 indices, and every other instruction computes on floats. Floats of different widths
/// mix freely: units compute in f32 and round to each output's type. The error is the message,
/// without the instruction's name.
pub(crate) fn check(memory: &Memory, instr: &Instr) -> Result<(), String> {
    let of = |view: &View| element(memory, view);
    let same = |(a_name, a): (&str, &View), (b_name, b): (&str, &View)| {
        let (x, y) = (of(a), of(b));
        if x == y {
            Ok(())
        } else {
            Err(format!(
                "{a_name} holds {x} elements but {b_name} holds {y}"
            ))
        }
    };
    let boolean = |name: &str, view: &View| match of(view) {
        ElementType::Bool => Ok(()),
        other => Err(format!("{name} holds {other} elements; bool expected")),
    };
    match instr {
        Instr::Dma { src, dst } if of(src).is_float() && of(dst).is_float() => Ok(()),
        Instr::Dma { src, dst } => same(("src", src), ("dst", dst)),
        Instr::Gather {
            table: data,
            indices,
            out,
            ..
        }
        | Instr::GatherElements {
            data, indices, out, ..
        } => {
            same(("table", data), ("out", out))?;
            match of(indices) {
                ElementType::I64 | ElementType::I32 => Ok(()),
                other => Err(format!(
                    "indices hold {other} elements; i64 or i32 expected"
                )),
            }
        }
        Instr::ScatterElements {
            reduction,
            indices,
            updates,
            out,
            ..
        } => {
            same(("updates", updates), ("out", out))?;
            if !matches!(of(indices), ElementType::I64 | ElementType::I32) {
                return Err(format!(
                    "indices hold {} elements; i64 or i32 expected",
                    of(indices)
                ));
            }
            match (reduction, of(out)) {
                (None, _) | (Some(_), ElementType::I64 | ElementType::I32) => Ok(()),
                (Some(_), element) if element.is_float() => Ok(()),
                (Some(op), other) => Err(format!(
                    "a {} reduction combines floats, i64 or i32, not {other}",
                    op.name()
                )),
            }
        }
        Instr::Compare { a, b, out, .. } => {
            same(("a", a), ("b", b))?;
            boolean("out", out)
        }
        Instr::Select { cond, a, b, out } => {
            boolean("cond", cond)?;
            same(("a", a), ("b", b))?;
            same(("a", a), ("out", out))
        }
        Instr::Binary { a, b, out, .. } if [a, b, out].iter().all(|v| of(v).is_float()) => Ok(()),
        Instr::Binary { a, b, out, .. } => {
            same(("a", a), ("b", b))?;
            same(("a", a), ("out", out))?;
            match of(out) {
                ElementType::I64 | ElementType::I32 => Ok(()),
                other => Err(format!(
                    "{} computes on floats, i64 or i32, not {other}",
                    instr.name()
                )),
            }
        }
        Instr::ArgReduce { input, out, .. } => match (of(input), of(out)) {
            (input, ElementType::I64) if input.is_float() => Ok(()),
            (input, out) => Err(format!(
                "{} reads floats into i64, not {input} into {out}",
                instr.name()
            )),
        },
        Instr::TopK {
            input,
            values,
            indices,
            ..
        } => match (of(input), of(values), of(indices)) {
            (input, values, ElementType::I64) if input.is_float() && values.is_float() => Ok(()),
            (input, values, indices) => Err(format!(
                "{} reads floats into float values and i64 indices, not {input} into {values} \
                 and {indices}",
                instr.name()
            )),
        },
        Instr::Convert { .. } | Instr::Wait | Instr::Barrier => Ok(()),
        _ => match instr
            .operands()
            .iter()
            .find(|(_, view, _)| !of(view).is_float())
        {
            Some((name, view, _)) => Err(format!(
                "operand {name} holds {} elements; {} computes on floats",
                of(view),
                instr.name()
            )),
            None => Ok(()),
        },
    }
}

/// The element type a compute instruction computes on, whose rate times it: the widest of its
/// float inputs (a product of f16 operands runs at the f16 rate whatever it accumulates
/// into), an integer binary operation's type, a comparison's inputs', a selection's values', a
/// conversion's wider side (the more lanes' worth of bytes); f32 for the instructions of DMA
/// channels, which bytes time instead.
pub(crate) fn computed_element(memory: &Memory, instr: &Instr) -> ElementType {
    let of = |view: &View| element(memory, view);
    // The first of the widest, so that a conversion between equal widths runs at its input's
    // rate.
    let widest = |views: &[&View]| {
        views
            .iter()
            .map(|view| of(view))
            .reduce(|first, next| {
                if next.bytes() > first.bytes() {
                    next
                } else {
                    first
                }
            })
            .expect("an instruction reads at least one operand")
    };
    match instr {
        Instr::Binary { a, b, .. } => widest(&[a, b]),
        Instr::Matmul { a, b, .. } => widest(&[a, b]),
        Instr::Conv2d { input, filter, .. } => widest(&[input, filter]),
        Instr::Unary { input, .. }
        | Instr::Pool2d { input, .. }
        | Instr::Reduce { input, .. }
        | Instr::ArgReduce { input, .. }
        | Instr::TopK { input, .. } => of(input),
        Instr::Compare { a, .. } | Instr::Select { a, .. } => of(a),
        Instr::Convert { input, out } => widest(&[input, out]),
        _ => ElementType::F32,
    }
}

/// The levels a data movement (a copy, gather or scatter) moves between, from its source
/// (a gather's table, a scatter's updates) to its output; `None` for the others.
pub(crate) fn moved_between(memory: &Memory, instr: &Instr) -> Option<(MemLevel, MemLevel)> {
    let level = |view: &View| {
        memory
            .get(view.buffer)
            .expect("operand buffers are checked before their costs")
            .placement
            .level()
    };
    match instr {
        Instr::Dma { src, dst: out }
        | Instr::GatherElements { data: src, out, .. }
        | Instr::ScatterElements {
            updates: src, out, ..
        }
        | Instr::Gather {
            table: src, out, ..
        } => Some((level(src), level(out))),
        _ => None,
    }
}

/// Bytes an instruction of a DMA channel moves: a copy's elements (a converting copy converts
/// at its wider end, so its path carries the narrower elements), a gather's gathered elements
/// and its indices; 0 for the others.
pub(crate) fn moved_bytes(memory: &Memory, instr: &Instr) -> u64 {
    let bytes = |view: &View| view.len() * element(memory, view).bytes();
    match instr {
        Instr::Dma { src, dst } => bytes(src).min(bytes(dst)),
        Instr::Gather { indices, out, .. } | Instr::GatherElements { indices, out, .. } => {
            bytes(out) + bytes(indices)
        }
        // A reduction reads the elements it lands on as well.
        Instr::ScatterElements {
            reduction,
            indices,
            updates,
            ..
        } => bytes(updates) * if reduction.is_some() { 2 } else { 1 } + bytes(indices),
        _ => 0,
    }
}
