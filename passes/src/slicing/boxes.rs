//! Boxes of tensors: one half-open range per dimension, the whole tensor, one share of it along
//! a dimension, the hull of two, and their spelling in remarks.

use std::ops::Range;

/// A box: one half-open range per dimension.
pub type Region = Vec<Range<usize>>;

/// The whole of a tensor of `shape`.
pub fn full(shape: &[usize]) -> Region {
    shape.iter().map(|&size| 0..size).collect()
}

/// The smallest box holding both.
pub fn hull(a: &Region, b: &Region) -> Region {
    a.iter()
        .zip(b)
        .map(|(a, b)| a.start.min(b.start)..a.end.max(b.end))
        .collect()
}

/// The sizes of a box.
pub fn sizes(region: &Region) -> Vec<usize> {
    region.iter().map(|range| range.end - range.start).collect()
}

/// The slice `index` of `count` of `shape` along `axis`.
pub fn share(shape: &[usize], axis: usize, index: usize, count: usize) -> Region {
    let mut region = full(shape);
    let size = shape[axis] / count;
    region[axis] = index * size..(index + 1) * size;
    region
}

/// Which dimension of a box is one share of `count` along it, everything else whole:
/// `Some(Some(d))`; the whole tensor: `Some(None)`; anything else: None.
pub fn share_axis(
    region: &Region,
    shape: &[usize],
    index: usize,
    count: usize,
) -> Option<Option<usize>> {
    if *region == full(shape) {
        return Some(None);
    }
    (0..shape.len())
        .find(|&d| shape[d].is_multiple_of(count) && *region == share(shape, d, index, count))
        .map(Some)
}

/// Which dimension of a box is one share of `count` along it, whatever the box holds of the other
/// dimensions (a part of them: the rows of a class token a later slice reads); None when no
/// dimension is.
pub fn share_axis_of_part(
    region: &Region,
    shape: &[usize],
    index: usize,
    count: usize,
) -> Option<usize> {
    (0..shape.len())
        .find(|&d| shape[d].is_multiple_of(count) && region[d] == share(shape, d, index, count)[d])
}

/// A box as the remarks spell it, `[0..1, 0..3]`.
pub fn boxed(region: &Region) -> String {
    let ranges: Vec<String> = region
        .iter()
        .map(|range| format!("{}..{}", range.start, range.end))
        .collect();
    format!("[{}]", ranges.join(", "))
}
