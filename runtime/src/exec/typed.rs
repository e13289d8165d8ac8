//! The instructions that see element types: conversions between them, comparisons and
//! selections of any type, and gathers, whose indices are data.

use super::Fault;
use crate::element::{each_storage, Storage};
use crate::ids::BufferId;
use crate::instr::{BinaryOp, ComparePredicate};
use crate::memory::Buffer;
use crate::view::View;

/// One element on its way through a conversion: a float, or an integer (booleans included).
#[derive(Clone, Copy)]
enum Value {
    Float(f32),
    Int(i64),
}

/// Converts `input` into `out`'s element type (`Instr::Convert`).
pub(super) fn convert<'a>(input: &View, out: &View, get: &dyn Fn(BufferId) -> &'a Buffer) {
    let values: Vec<Value> = {
        let storage = get(input.buffer).read();
        match &*storage {
            Storage::F32(v) => input.gather(v).into_iter().map(Value::Float).collect(),
            Storage::I64(v) => integers(input.gather(v)),
            Storage::I32(v) => integers(input.gather(v)),
            Storage::I8(v) => integers(input.gather(v)),
            Storage::U8(v) => integers(input.gather(v)),
        }
    };
    let out_type = get(out.buffer).dtype;
    let mut storage = get(out.buffer).write();
    // Rust's float-to-integer `as` truncates toward zero, saturates and maps NaN to 0; its
    // integer-to-integer `as` wraps.
    match &mut *storage {
        Storage::F32(d) => out.scatter(d, &map(&values, |x| x, |v| v as f32)),
        Storage::I64(d) => out.scatter(d, &map(&values, |x| x as i64, |v| v)),
        Storage::I32(d) => out.scatter(d, &map(&values, |x| x as i32, |v| v as i32)),
        Storage::I8(d) => out.scatter(d, &map(&values, |x| x as i8, |v| v as i8)),
        Storage::U8(d) if out_type == crate::element::ElementType::Bool => out.scatter(
            d,
            &map(&values, |x| u8::from(x != 0.0), |v| u8::from(v != 0)),
        ),
        Storage::U8(d) => out.scatter(d, &map(&values, |x| x as u8, |v| v as u8)),
    }
}

fn integers<T: Into<i64>>(values: Vec<T>) -> Vec<Value> {
    values.into_iter().map(|x| Value::Int(x.into())).collect()
}

fn map<T>(values: &[Value], float: impl Fn(f32) -> T, int: impl Fn(i64) -> T) -> Vec<T> {
    values
        .iter()
        .map(|&value| match value {
            Value::Float(x) => float(x),
            Value::Int(v) => int(v),
        })
        .collect()
}

/// The indices of `indices` (i64 or i32) in row-major order as positions along an axis of
/// `extent`, negative ones counted from its end; the fault of the first outside it.
fn rows<'a>(
    indices: &View,
    extent: u64,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> Result<Vec<u64>, Fault> {
    let positions: Vec<i64> = match gathered(indices, get) {
        Storage::I64(v) => v,
        Storage::I32(v) => v.into_iter().map(i64::from).collect(),
        _ => unreachable!("indices are i64 or i32, checked when recorded"),
    };
    positions
        .into_iter()
        .map(|index| {
            let row = if index < 0 {
                index + extent as i64
            } else {
                index
            };
            (0..extent as i64)
                .contains(&row)
                .then_some(row as u64)
                .ok_or(Fault::IndexOutOfRange { index, extent })
        })
        .collect()
}

/// Gathers slices of `table` along `axis` into `out` (`Instr::Gather`); an index outside the
/// table is the fault returned, before anything is written.
pub(super) fn gather<'a>(
    axis: usize,
    table: &View,
    indices: &View,
    out: &View,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> Result<(), Fault> {
    let rows = rows(indices, table.shape[axis], get)?;
    let pairs = rows
        .iter()
        .enumerate()
        .map(|(k, &row)| (slice_at(table, axis, row), slice_at(out, axis, k as u64)));
    // The recording checked that the table and the output do not overlap.
    super::copy_pairs((table.buffer, out.buffer), pairs, get);
    Ok(())
}

/// The slice of `view` at position `at` along `axis` (extent 1 there).
fn slice_at(view: &View, axis: usize, at: u64) -> View {
    let mut slice = view.clone();
    slice.offset += at * view.strides[axis];
    slice.shape[axis] = 1;
    slice
}

/// The elements of `view` in row-major order, in a vector of their type; the buffer's lock is
/// released on return, so that an instruction never holds two locks it did not take in order.
fn gathered<'a>(view: &View, get: &dyn Fn(BufferId) -> &'a Buffer) -> Storage {
    match &*get(view.buffer).read() {
        Storage::F32(v) => Storage::F32(view.gather(v)),
        Storage::I64(v) => Storage::I64(view.gather(v)),
        Storage::I32(v) => Storage::I32(view.gather(v)),
        Storage::I8(v) => Storage::I8(view.gather(v)),
        Storage::U8(v) => Storage::U8(view.gather(v)),
    }
}

/// Compares `a` with `b` into the booleans of `out` (`Instr::Compare`).
pub(super) fn compare<'a>(
    predicate: ComparePredicate,
    (a, b, out): (&View, &View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    fn holds<T: PartialOrd>(predicate: ComparePredicate, x: T, y: T) -> u8 {
        u8::from(match predicate {
            ComparePredicate::Eq => x == y,
            ComparePredicate::Ne => x != y,
            ComparePredicate::Lt => x < y,
            ComparePredicate::Le => x <= y,
            ComparePredicate::Gt => x > y,
            ComparePredicate::Ge => x >= y,
        })
    }
    macro_rules! flags {
        ($($variant:ident),*) => {
            match (gathered(a, get), gathered(b, get)) {
                $((Storage::$variant(x), Storage::$variant(y)) => x
                    .into_iter()
                    .zip(y)
                    .map(|(x, y)| holds(predicate, x, y))
                    .collect::<Vec<u8>>(),)*
                _ => unreachable!("a comparison's inputs have one element type"),
            }
        };
    }
    let flags = flags!(F32, I64, I32, I8, U8);
    match &mut *get(out.buffer).write() {
        Storage::U8(data) => out.scatter(data, &flags),
        _ => unreachable!("a comparison writes booleans"),
    }
}

/// Picks `a` where `cond` holds, else `b`, into `out` (`Instr::Select`).
pub(super) fn select<'a>(
    (cond, a, b, out): (&View, &View, &View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let Storage::U8(flags) = gathered(cond, get) else {
        unreachable!("a selection's condition is boolean")
    };
    macro_rules! picked {
        ($($variant:ident),*) => {
            match (gathered(a, get), gathered(b, get)) {
                $((Storage::$variant(x), Storage::$variant(y)) => {
                    let chosen: Vec<_> = flags
                        .iter()
                        .zip(x.into_iter().zip(y))
                        .map(|(&flag, (x, y))| if flag != 0 { x } else { y })
                        .collect();
                    match &mut *get(out.buffer).write() {
                        Storage::$variant(data) => out.scatter(data, &chosen),
                        _ => unreachable!("a selection writes its inputs' element type"),
                    }
                })*
                _ => unreachable!("a selection's inputs have one element type"),
            }
        };
    }
    picked!(F32, I64, I32, I8, U8);
}

/// Gathers single elements of `data` along `axis` into `out` (`Instr::GatherElements`); an
/// index outside `data` is the fault returned, before anything is written.
pub(super) fn gather_elements<'a>(
    axis: usize,
    (data, indices, out): (&View, &View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> Result<(), Fault> {
    let rows = rows(indices, data.shape[axis], get)?;
    let sources = element_offsets(data, axis, &out.shape, &rows);
    let values = each_storage!(&*get(data.buffer).read(), v => {
        let picked: Vec<_> = sources.iter().map(|&i| v[i]).collect();
        Storage::from(picked)
    });
    macro_rules! store {
        ($($variant:ident),*) => {
            match (values, &mut *get(out.buffer).write()) {
                $((Storage::$variant(values), Storage::$variant(target)) => {
                    out.scatter(target, &values)
                })*
                _ => unreachable!("a gather's data and output have one element type"),
            }
        };
    }
    store!(F32, I64, I32, I8, U8);
    Ok(())
}

/// Scatters `updates` into `out` along `axis` at `indices` (`Instr::ScatterElements`), in
/// row-major order of the indices, each replacing the element it lands on or combined with it by
/// `reduction`; an index outside `out` is the fault returned, before anything is written.
pub(super) fn scatter_elements<'a>(
    axis: usize,
    reduction: Option<BinaryOp>,
    (indices, updates, out): (&View, &View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> Result<(), Fault> {
    let rows = rows(indices, out.shape[axis], get)?;
    let targets = element_offsets(out, axis, &indices.shape, &rows);
    let values = gathered(updates, get);
    fn apply<T: Copy>(data: &mut [T], targets: &[usize], values: &[T], op: impl Fn(T, T) -> T) {
        for (&target, &value) in targets.iter().zip(values) {
            data[target] = op(data[target], value);
        }
    }
    let float = |x: f32, y: f32| match reduction {
        None => y,
        Some(BinaryOp::Add) => x + y,
        Some(BinaryOp::Mul) => x * y,
        Some(BinaryOp::Max) => super::vector::nan_max(x, y),
        Some(_) => super::vector::nan_min(x, y),
    };
    macro_rules! integer {
        () => {
            |x, y| match reduction {
                None => y,
                Some(BinaryOp::Add) => x.wrapping_add(y),
                Some(BinaryOp::Mul) => x.wrapping_mul(y),
                Some(BinaryOp::Max) => std::cmp::max(x, y),
                Some(_) => std::cmp::min(x, y),
            }
        };
    }
    match (values, &mut *get(out.buffer).write()) {
        (Storage::F32(values), Storage::F32(data)) => apply(data, &targets, &values, float),
        (Storage::I64(values), Storage::I64(data)) => apply(data, &targets, &values, integer!()),
        (Storage::I32(values), Storage::I32(data)) => apply(data, &targets, &values, integer!()),
        (Storage::I8(values), Storage::I8(data)) => apply(data, &targets, &values, |_, y| y),
        (Storage::U8(values), Storage::U8(data)) => apply(data, &targets, &values, |_, y| y),
        _ => unreachable!("a scatter's updates and output have one element type"),
    }
    Ok(())
}

/// The offset in `data`'s buffer of each position of an index array of `shape` (row-major, the
/// rank of `data`), its coordinate along `axis` replaced by the index's row in `rows`.
fn element_offsets(data: &View, axis: usize, shape: &[u64], rows: &[u64]) -> Vec<usize> {
    let mut coordinate = vec![0u64; shape.len()];
    let mut offsets = Vec::with_capacity(rows.len());
    for &row in rows {
        let offset = coordinate
            .iter()
            .enumerate()
            .map(|(d, &c)| if d == axis { row } else { c } * data.strides[d])
            .sum::<u64>();
        offsets.push((data.offset + offset) as usize);
        for d in (0..shape.len()).rev() {
            coordinate[d] += 1;
            if coordinate[d] < shape[d] {
                break;
            }
            coordinate[d] = 0;
        }
    }
    offsets
}

/// `out = a op b` on integers, `a` and `b` broadcast to `out`'s shape (`Instr::Binary` on i64 or
/// i32 buffers): wrapping arithmetic, division truncating toward zero, a power through f64 as
/// ONNX's reference does; a division by zero is the fault returned, before anything is written.
pub(super) fn integer_binary<'a>(
    op: BinaryOp,
    (a, b, out): (&View, &View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) -> Result<(), Fault> {
    let (a, b) = (a.broadcast_to(&out.shape), b.broadcast_to(&out.shape));
    macro_rules! compute {
        ($($variant:ident),*) => {
            match (gathered(&a, get), gathered(&b, get)) {
                $((Storage::$variant(x), Storage::$variant(y)) => {
                    let mut values = Vec::with_capacity(x.len());
                    for (x, y) in x.into_iter().zip(y) {
                        values.push(match op {
                            BinaryOp::Add => x.wrapping_add(y),
                            BinaryOp::Sub => x.wrapping_sub(y),
                            BinaryOp::Mul => x.wrapping_mul(y),
                            BinaryOp::Div => x.checked_div(y).ok_or(Fault::DivisionByZero)?,
                            BinaryOp::Max => x.max(y),
                            BinaryOp::Min => x.min(y),
                            BinaryOp::Pow => (x as f64).powf(y as f64) as _,
                            BinaryOp::Fmod => x.checked_rem(y).ok_or(Fault::DivisionByZero)?,
                            BinaryOp::Mod => {
                                let r = x.checked_rem(y).ok_or(Fault::DivisionByZero)?;
                                if r != 0 && (r < 0) != (y < 0) {
                                    r + y
                                } else {
                                    r
                                }
                            }
                        });
                    }
                    match &mut *get(out.buffer).write() {
                        Storage::$variant(data) => out.scatter(data, &values),
                        _ => unreachable!("a binary operation's operands have one element type"),
                    }
                })*
                _ => unreachable!("integer binary operations are on i64 or i32, of one type"),
            }
        };
    }
    compute!(I64, I32);
    Ok(())
}

/// The index of each line's extreme along `axis` (`Instr::ArgReduce`): `largest` or smallest,
/// the `last` of equals or the first; a NaN is the extreme and the first NaN wins.
pub(super) fn arg_reduce<'a>(
    (largest, last): (bool, bool),
    axis: usize,
    (input, out): (&View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let Storage::F32(values) = gathered(input, get) else {
        unreachable!("an arg reduction reads f32, checked when recorded")
    };
    let shape: &[u64] = &input.shape;
    let outer: u64 = shape[..axis].iter().product();
    let size = shape[axis] as usize;
    let inner = shape[axis + 1..].iter().product::<u64>() as usize;
    let better = |candidate: f32, best: f32| -> bool {
        if best.is_nan() {
            return false;
        }
        if candidate.is_nan() {
            return true;
        }
        match (largest, last) {
            (true, false) => candidate > best,
            (true, true) => candidate >= best,
            (false, false) => candidate < best,
            (false, true) => candidate <= best,
        }
    };
    let mut indices = Vec::with_capacity(outer as usize * inner);
    for o in 0..outer as usize {
        for i in 0..inner {
            let at = |k: usize| values[(o * size + k) * inner + i];
            let mut best = 0;
            for k in 1..size {
                if better(at(k), at(best)) {
                    best = k;
                }
            }
            indices.push(best as i64);
        }
    }
    match &mut *get(out.buffer).write() {
        Storage::I64(data) => out.scatter(data, &indices),
        _ => unreachable!("an arg reduction writes i64, checked when recorded"),
    }
}
