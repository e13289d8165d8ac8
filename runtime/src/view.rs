//! Strided views: how every instruction names the elements it reads or writes. A view is a
//! buffer, an element offset, and up to four dimensions with an extent and a stride each (in
//! elements, like a memref). Broadcasting is a stride of 0; a transpose is a permutation of
//! strides. All iteration is in row-major order of the view's shape.

use crate::footprint::Footprint;
use crate::ids::BufferId;

/// Maximum rank of a view (the `dsa` dialect's limit).
pub const MAX_RANK: usize = 4;

/// Why a view is unusable; the device adds which instruction and operand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ViewFault {
    /// Wrong rank, stride count, a zero extent, or too many elements.
    Malformed(String),
    /// Reaches element `end - 1` of a shorter buffer.
    OutOfBounds {
        /// One past the last element reached.
        end: u64,
    },
}

/// Extents or strides of a view, stored inline: every recorded instruction holds two or three
/// views, and two heap vectors each would be a good part of the host time spent recording and
/// retiring hundreds of thousands of instructions. It reads as a slice of its values. One more
/// value than [`MAX_RANK`] is kept, and the true length, so that a view of too high a rank is
/// still there to be refused by [`View::check`] with its rank.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    len: usize,
    values: [u64; MAX_RANK + 1],
}

impl Dims {
    /// The first values of `values` (those past `MAX_RANK + 1` are dropped; the length is kept).
    pub fn new(values: &[u64]) -> Dims {
        let mut dims = Dims {
            len: values.len(),
            values: [0; MAX_RANK + 1],
        };
        let kept = values.len().min(MAX_RANK + 1);
        dims.values[..kept].copy_from_slice(&values[..kept]);
        dims
    }

    /// The number of values given, including any dropped.
    pub fn rank(&self) -> usize {
        self.len
    }
}

impl std::ops::Deref for Dims {
    type Target = [u64];
    fn deref(&self) -> &[u64] {
        &self.values[..self.len.min(MAX_RANK + 1)]
    }
}

impl std::ops::DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [u64] {
        let len = self.len.min(MAX_RANK + 1);
        &mut self.values[..len]
    }
}

impl<'a> IntoIterator for &'a Dims {
    type Item = &'a u64;
    type IntoIter = std::slice::Iter<'a, u64>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

impl<const N: usize> PartialEq<[u64; N]> for Dims {
    fn eq(&self, other: &[u64; N]) -> bool {
        **self == other[..]
    }
}

/// A strided view of a buffer's elements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct View {
    /// The buffer.
    pub buffer: BufferId,
    /// Element index of the view's first element.
    pub offset: u64,
    /// Extent of each dimension, outermost first.
    pub shape: Dims,
    /// Distance in elements between neighbours along each dimension.
    pub strides: Dims,
}

impl View {
    /// A view of nothing (rank 0, which [`View::check`] refuses).
    pub const EMPTY: View = View {
        buffer: BufferId(0),
        offset: 0,
        shape: Dims {
            len: 0,
            values: [0; MAX_RANK + 1],
        },
        strides: Dims {
            len: 0,
            values: [0; MAX_RANK + 1],
        },
    };

    /// A view with explicit strides.
    pub fn new(buffer: BufferId, offset: u64, shape: &[u64], strides: &[u64]) -> View {
        View {
            buffer,
            offset,
            shape: Dims::new(shape),
            strides: Dims::new(strides),
        }
    }

    /// A dense row-major view of `shape` starting at `offset`.
    pub fn contiguous(buffer: BufferId, offset: u64, shape: &[u64]) -> View {
        View::new(buffer, offset, shape, &row_major_strides(shape))
    }

    /// Number of elements the view names (the product of the extents).
    pub fn len(&self) -> u64 {
        self.shape.iter().product()
    }

    /// True when some extent is 0 (never the case for a checked view).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Checks rank and extents, that the view names at most `max_elements` elements (the
    /// capacity of its memory: a stride-0 view could otherwise name more elements than the
    /// host can hold), and that every element lies in a buffer of `buffer_len` elements.
    pub fn check(&self, buffer_len: u64, max_elements: u64) -> Result<(), ViewFault> {
        let rank = self.shape.rank();
        if rank == 0 || rank > MAX_RANK {
            return Err(ViewFault::Malformed(format!(
                "rank must be 1 to {MAX_RANK}, got {rank}"
            )));
        }
        if self.strides.rank() != rank {
            return Err(ViewFault::Malformed(format!(
                "{} strides for a rank-{rank} shape",
                self.strides.rank()
            )));
        }
        if let Some(d) = self.shape.iter().position(|&e| e == 0) {
            return Err(ViewFault::Malformed(format!(
                "extent of dimension {d} is 0"
            )));
        }
        let count = self.shape.iter().try_fold(1u64, |n, &e| n.checked_mul(e));
        if count.is_none_or(|n| n > max_elements) {
            return Err(ViewFault::Malformed(format!(
                "shape {:?} names more elements than its memory holds ({max_elements})",
                self.shape
            )));
        }
        let mut last = Some(self.offset);
        for (&e, &s) in self.shape.iter().zip(&self.strides) {
            last = last.and_then(|l| (e - 1).checked_mul(s).and_then(|x| l.checked_add(x)));
        }
        match last {
            Some(last) if last < buffer_len => Ok(()),
            _ => Err(ViewFault::OutOfBounds {
                end: last.map_or(u64::MAX, |l| l.saturating_add(1)),
            }),
        }
    }

    /// True when no two elements of the (checked) view are the same element of the buffer.
    /// Decided from the strides when they nest (each stride, in increasing order, steps over
    /// everything the smaller ones reach), which is the common case; else by counting the
    /// footprint.
    pub fn is_injective(&self) -> bool {
        let mut dims: Vec<(u64, u64)> = self
            .shape
            .iter()
            .copied()
            .zip(self.strides.iter().copied())
            .filter(|&(e, _)| e > 1)
            .collect();
        dims.sort_by_key(|&(_, s)| s);
        let mut reach = 0; // largest offset reached by the dimensions seen so far
        let nested = dims.iter().all(|&(e, s)| {
            let ok = s > reach;
            reach += (e - 1) * s;
            ok
        });
        nested
            || self
                .footprint()
                .runs()
                .iter()
                .map(|(s, e)| e - s)
                .sum::<u64>()
                == self.len()
    }

    /// The (extent, stride) of each dimension, in an array (no heap: this runs for every
    /// operand of every instruction), and how many there are.
    fn dims(&self) -> ([(u64, u64); MAX_RANK], usize) {
        let mut dims = [(1u64, 1u64); MAX_RANK];
        for (d, (&e, &s)) in dims.iter_mut().zip(self.shape.iter().zip(&self.strides)) {
            *d = (e, s);
        }
        (dims, self.shape.len().min(MAX_RANK))
    }

    /// Calls `f(start, count, stride)` for each innermost run of the view, in row-major
    /// order: elements `start, start + stride, ...` (`count` of them). Dimensions that can be
    /// merged are merged first, so a dense view is a single run. The view must be checked.
    pub fn for_each_run(&self, f: impl FnMut(usize, usize, usize)) {
        let (dims, rank) = self.dims();
        runs(self.offset, &dims[..rank], f);
    }

    /// Copies the view's elements out of `data`, in row-major order.
    pub fn gather<T: Copy>(&self, data: &[T]) -> Vec<T> {
        let mut out = Vec::with_capacity(self.len() as usize);
        self.gather_into(data, &mut out);
        out
    }

    /// [`View::gather`] into `out` (cleared first), reusing its allocation.
    pub fn gather_into<T: Copy>(&self, data: &[T], out: &mut Vec<T>) {
        out.clear();
        out.reserve(self.len() as usize);
        self.for_each_run(|start, count, stride| {
            if stride == 1 {
                out.extend_from_slice(&data[start..start + count]);
            } else {
                out.extend((0..count).map(|i| data[start + i * stride]));
            }
        });
    }

    /// Stores `values` (row-major, `len()` of them) into the view's elements of `data`.
    pub fn scatter<T: Copy>(&self, data: &mut [T], values: &[T]) {
        let mut next = 0;
        self.for_each_run(|start, count, stride| {
            let src = &values[next..next + count];
            if stride == 1 {
                data[start..start + count].copy_from_slice(src);
            } else {
                for (i, &v) in src.iter().enumerate() {
                    data[start + i * stride] = v;
                }
            }
            next += count;
        });
    }

    /// The element range of the (checked) view when it names exactly those elements in
    /// row-major order (one dense run), so that it can be read or written in place.
    pub fn dense_range(&self) -> Option<std::ops::Range<usize>> {
        let (dims, rank) = self.dims();
        let (merged, n) = collapse(&dims[..rank]);
        let (count, stride) = merged[n - 1];
        (n == 1 && (stride == 1 || count == 1)).then(|| {
            let start = self.offset as usize;
            start..start + count as usize
        })
    }

    /// Copies the view's elements of `data` to the elements of `dst` (a checked view of the
    /// same shape) in `dst_data`, in one pass: what [`View::gather`] then [`View::scatter`] do
    /// through a scratch vector, for views of different buffers.
    pub fn copy_to<T: Copy>(&self, data: &[T], dst: &View, dst_data: &mut [T]) {
        // Dimensions of both views, merged where both step over their inner neighbour exactly.
        let mut dims = [(1u64, 1u64, 1u64); MAX_RANK];
        let mut n = 0;
        for ((&e, &s), &d) in self.shape.iter().zip(&self.strides).zip(&dst.strides).rev() {
            if e == 1 {
                continue;
            }
            if n > 0 {
                let (ie, is, id) = dims[n - 1];
                if s == ie * is && d == ie * id {
                    dims[n - 1].0 *= e;
                    continue;
                }
            }
            dims[n] = (e, s, d);
            n += 1;
        }
        let n = n.max(1);
        dims[..n].reverse();
        let (count, s_inner, d_inner) = dims[n - 1];
        let (count, s_inner, d_inner) = (count as usize, s_inner as usize, d_inner as usize);
        let outer = &dims[..n - 1];
        let mut index = [0u64; MAX_RANK];
        loop {
            let (mut from, mut to) = (self.offset, dst.offset);
            for (&(_, s, d), &i) in outer.iter().zip(&index) {
                from += i * s;
                to += i * d;
            }
            let (from, to) = (from as usize, to as usize);
            if s_inner == 1 && d_inner == 1 {
                dst_data[to..to + count].copy_from_slice(&data[from..from + count]);
            } else {
                for i in 0..count {
                    dst_data[to + i * d_inner] = data[from + i * s_inner];
                }
            }
            if !advance(&mut index[..outer.len()], |d| outer[d].0) {
                return;
            }
        }
    }

    /// The set of element indices the view touches. Independent of dimension order, so the
    /// dimensions are sorted by stride before merging: a transposed dense view is one run.
    pub fn footprint(&self) -> Footprint {
        let (mut dims, rank) = self.dims();
        dims[..rank].sort_unstable_by_key(|d| std::cmp::Reverse(d.1));
        let mut out = Vec::new();
        runs(self.offset, &dims[..rank], |start, count, stride| {
            let start = start as u64;
            match stride {
                0 => out.push((start, start + 1)),
                1 => out.push((start, start + count as u64)),
                s => out.extend(
                    (0..count as u64).map(|i| (start + i * s as u64, start + i * s as u64 + 1)),
                ),
            }
        });
        Footprint::from_runs(out)
    }

    /// This view read as if it had `shape` (numpy broadcasting: shapes aligned on the right,
    /// extents of 1 repeated with stride 0). The caller has checked that it broadcasts.
    pub fn broadcast_to(&self, shape: &[u64]) -> View {
        let lead = shape.len() - self.shape.len();
        let mut strides = Dims::new(&[0; MAX_RANK + 1][..shape.len().min(MAX_RANK + 1)]);
        for (d, (&e, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            strides[lead + d] = if e == 1 { 0 } else { s };
        }
        View {
            buffer: self.buffer,
            offset: self.offset,
            shape: Dims::new(shape),
            strides,
        }
    }
}

/// Row-major (C order) strides of a dense array of `shape`.
pub fn row_major_strides(shape: &[u64]) -> Vec<u64> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

/// Calls `f(start, count, stride)` for each innermost run of the (extent, stride) dimensions
/// `dims` from `offset`, in row-major order, after merging what can be merged. No heap use:
/// this runs for every operand of every instruction.
fn runs(offset: u64, dims: &[(u64, u64)], mut f: impl FnMut(usize, usize, usize)) {
    let (merged, n) = collapse(dims);
    let (inner_e, inner_s) = merged[n - 1];
    let outer = &merged[..n - 1];
    let mut index = [0u64; MAX_RANK];
    loop {
        let base = offset
            + outer
                .iter()
                .zip(&index)
                .map(|(&(_, s), &i)| i * s)
                .sum::<u64>();
        f(base as usize, inner_e as usize, inner_s as usize);
        if !advance(&mut index[..outer.len()], |d| outer[d].0) {
            return;
        }
    }
}

/// Advances `index` to the next position in row-major order within `extent(d)` per dimension
/// (an odometer, innermost dimension first); false once every position has been visited.
fn advance(index: &mut [u64], extent: impl Fn(usize) -> u64) -> bool {
    for d in (0..index.len()).rev() {
        index[d] += 1;
        if index[d] < extent(d) {
            return true;
        }
        index[d] = 0;
    }
    false
}

/// Drops extent-1 dimensions and merges a dimension into its inner neighbour when it steps
/// exactly over it, keeping at least one dimension; iteration order is unchanged. Returns the
/// dimensions, outermost first, and how many there are.
fn collapse(dims: &[(u64, u64)]) -> ([(u64, u64); MAX_RANK], usize) {
    let mut out = [(1u64, 1u64); MAX_RANK];
    let mut n = 0;
    for &(e, s) in dims.iter().rev() {
        if e == 1 {
            continue;
        }
        if n > 0 && s == out[n - 1].0 * out[n - 1].1 {
            out[n - 1].0 *= e;
        } else {
            out[n] = (e, s);
            n += 1;
        }
    }
    let n = n.max(1);
    out[..n].reverse();
    (out, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(offset: u64, shape: &[u64], strides: &[u64]) -> View {
        View::new(BufferId(1), offset, shape, strides)
    }

    #[test]
    fn dense_views_are_one_run() {
        let mut runs = Vec::new();
        View::contiguous(BufferId(1), 3, &[2, 3, 4]).for_each_run(|s, c, st| runs.push((s, c, st)));
        assert_eq!(runs, [(3, 24, 1)]);
    }

    #[test]
    fn gather_and_scatter_follow_row_major_order() {
        let data: Vec<f32> = (0..12).map(|x| x as f32).collect();
        // The transpose of a 3x4 matrix.
        let t = v(0, &[4, 3], &[1, 4]);
        assert_eq!(
            t.gather(&data),
            [0., 4., 8., 1., 5., 9., 2., 6., 10., 3., 7., 11.]
        );
        let mut out = vec![0.0; 12];
        t.scatter(&mut out, &data);
        assert_eq!(out, [0., 3., 6., 9., 1., 4., 7., 10., 2., 5., 8., 11.]);
    }

    #[test]
    fn bounds_are_checked_without_overflow() {
        assert!(v(0, &[3, 4], &[4, 1]).check(12, 100).is_ok());
        assert_eq!(
            v(1, &[3, 4], &[4, 1]).check(12, 100),
            Err(ViewFault::OutOfBounds { end: 13 })
        );
        assert!(v(0, &[2], &[u64::MAX]).check(12, 100).is_err());
        assert!(v(0, &[], &[]).check(12, 100).is_err());
        assert!(v(0, &[1, 0], &[1, 1]).check(12, 100).is_err());
        assert!(v(0, &[1, 1, 1, 1, 1], &[1; 5]).check(12, 100).is_err());
        // A broadcast view may name more elements than its buffer, but not than its memory.
        assert!(v(0, &[50, 2], &[0, 1]).check(12, 100).is_ok());
        assert!(v(0, &[51, 2], &[0, 1]).check(12, 100).is_err());
        assert!(v(0, &[1 << 40, 1 << 40], &[0, 0])
            .check(12, u64::MAX)
            .is_err());
    }

    #[test]
    fn footprints_are_exact() {
        // Column block 1 of a 4x8 matrix split into two 4x4 blocks.
        let right = v(4, &[4, 4], &[8, 1]).footprint();
        let left = v(0, &[4, 4], &[8, 1]).footprint();
        assert_eq!(left.first_common(&right), None);
        assert_eq!(right.runs(), &[(4, 8), (12, 16), (20, 24), (28, 32)]);
        // A transposed dense view covers a single run.
        assert_eq!(v(0, &[8, 4], &[1, 8]).footprint().runs(), &[(0, 32)]);
        // Broadcast dimensions touch one element.
        assert_eq!(v(5, &[3, 2], &[0, 1]).footprint().runs(), &[(5, 7)]);
    }

    #[test]
    fn injectivity_is_decided_from_nested_strides_or_the_footprint() {
        assert!(v(0, &[3, 4], &[4, 1]).is_injective());
        assert!(v(0, &[4, 3], &[1, 4]).is_injective());
        assert!(v(0, &[3, 4], &[5, 1]).is_injective());
        assert!(!v(0, &[3, 4], &[2, 1]).is_injective());
        assert!(!v(0, &[2, 3], &[0, 1]).is_injective());
        assert!(v(0, &[1, 3], &[0, 1]).is_injective());
        // Strides 3 and 2 over extents 2 and 3 do not nest, yet hit 6 distinct elements? No:
        // {0,2,4} and {3,5,7} are disjoint, so the footprint decides "injective".
        assert!(v(0, &[2, 3], &[3, 2]).is_injective());
        assert!(!v(0, &[2, 3], &[2, 2]).is_injective());
    }

    #[test]
    fn dense_ranges_are_single_row_major_runs() {
        assert_eq!(v(3, &[2, 3, 4], &[12, 4, 1]).dense_range(), Some(3..27));
        assert_eq!(v(5, &[1, 4], &[0, 1]).dense_range(), Some(5..9));
        assert_eq!(v(0, &[4, 1], &[1, 7]).dense_range(), Some(0..4));
        assert_eq!(v(0, &[2, 4], &[8, 1]).dense_range(), None);
        assert_eq!(v(0, &[4, 3], &[1, 4]).dense_range(), None);
        assert_eq!(v(0, &[3, 2], &[0, 1]).dense_range(), None);
    }

    #[test]
    fn copy_to_matches_gather_then_scatter() {
        let data: Vec<f32> = (0..64).map(|x| x as f32).collect();
        let cases = [
            (v(3, &[2, 3, 4], &[16, 4, 1]), v(0, &[2, 3, 4], &[12, 4, 1])),
            (v(0, &[4, 3], &[1, 8]), v(1, &[4, 3], &[3, 1])),
            (v(2, &[3, 1, 5], &[10, 0, 2]), v(0, &[3, 1, 5], &[5, 5, 1])),
            (v(7, &[1, 1], &[1, 1]), v(9, &[1, 1], &[4, 2])),
        ];
        for (src, dst) in cases {
            let mut expected = vec![-1.0; 40];
            dst.scatter(&mut expected, &src.gather(&data));
            let mut got = vec![-1.0; 40];
            src.copy_to(&data, &dst, &mut got);
            assert_eq!(got, expected, "{src:?} -> {dst:?}");
        }
    }

    #[test]
    fn broadcasting_aligns_on_the_right() {
        let b = View::contiguous(BufferId(1), 0, &[3, 1]).broadcast_to(&[2, 3, 4]);
        assert_eq!(b.strides, [0, 1, 0]);
    }
}
