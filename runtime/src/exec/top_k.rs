//! The top-k of lines (`Instr::TopK`): each line's k largest or smallest elements in order, with
//! their indices.

use crate::element::Storage;
use crate::ids::BufferId;
use crate::memory::Buffer;
use crate::view::View;
use std::cmp::Ordering;

/// The order of a line's elements: the extreme first, equal elements by index, NaNs (the
/// extremes either way) before every number.
fn line_order(largest: bool, (a, i): (f32, usize), (b, j): (f32, usize)) -> Ordering {
    let by_value = match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Less,
        (false, true) => Ordering::Greater,
        _ if largest => b.partial_cmp(&a).expect("neither is NaN"),
        _ => a.partial_cmp(&b).expect("neither is NaN"),
    };
    by_value.then(i.cmp(&j))
}

/// Writes the `k` first elements of each line of `input` along `axis` in [`line_order`] into
/// `values` and their indices into `indices`, `k` being their extent at `axis`.
pub(super) fn run<'a>(
    largest: bool,
    axis: usize,
    input: &View,
    (values, indices): (&View, &View),
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let elements = input.gather(get(input.buffer).read().f32());
    let shape: &[u64] = &input.shape;
    let outer = shape[..axis].iter().product::<u64>() as usize;
    let size = shape[axis] as usize;
    let inner = shape[axis + 1..].iter().product::<u64>() as usize;
    let k = values.shape[axis] as usize;
    let mut picked = vec![0.0; outer * k * inner];
    let mut positions = vec![0i64; outer * k * inner];
    let mut line = Vec::with_capacity(size);
    for o in 0..outer {
        for i in 0..inner {
            line.clear();
            line.extend((0..size).map(|at| (elements[(o * size + at) * inner + i], at)));
            if k < size {
                line.select_nth_unstable_by(k, |&a, &b| line_order(largest, a, b));
            }
            line[..k].sort_unstable_by(|&a, &b| line_order(largest, a, b));
            for (rank, &(value, at)) in line[..k].iter().enumerate() {
                let to = (o * k + rank) * inner + i;
                picked[to] = value;
                positions[to] = at as i64;
            }
        }
    }
    values.scatter(get(values.buffer).write().f32_mut(), &picked);
    match &mut *get(indices.buffer).write() {
        Storage::I64(data) => indices.scatter(data, &positions),
        _ => unreachable!("a top-k writes i64 indices, checked when recorded"),
    }
}
