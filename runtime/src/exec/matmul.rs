//! The matrix engine's matmul: one call of the `gemm` crate's packed SIMD kernel directly on
//! the LB buffers' memory, with the views' strides (so transposed or strided operands cost no
//! copy).

use super::locks::Locked;
use crate::ids::BufferId;
use crate::memory::Buffer;
use crate::view::View;
use gemm::{gemm, Parallelism};

/// `c (+)= a · b`. The device checked bounds, shapes (`[M,K]x[K,N]->[M,N]`), that `c` writes
/// each element once, and that `c` overlaps neither `a` nor `b`.
pub(super) fn run<'a>(
    a: &View,
    b: &View,
    c: &View,
    accumulate: bool,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let (m, k, n) = (
        a.shape[0] as usize,
        a.shape[1] as usize,
        b.shape[1] as usize,
    );
    let mut locked = Locked::new(&[a.buffer, b.buffer], c.buffer, get);
    let c_base = locked.writer();
    let (a_base, b_base) = (locked.reader(a.buffer), locked.reader(b.buffer));
    let s = |v: &View, d: usize| v.strides[d] as isize;
    // SAFETY: every pointer below stays inside its buffer: the device checked that each view's
    // last element (offset + sum of (extent-1)*stride) is within the buffer, and gemm reads or
    // writes only the M x K, K x N and M x N elements the strides describe. The buffers are
    // locked (c for writing, a and b for reading) for the whole call, and c overlaps neither a
    // nor b, so the mutable accesses do not alias the shared ones.
    unsafe {
        product(
            [m, n, k],
            (c_base.add(c.offset as usize), s(c, 0), s(c, 1)),
            accumulate,
            (a_base.add(a.offset as usize), s(a, 0), s(a, 1)),
            (b_base.add(b.offset as usize), s(b, 0), s(b, 1)),
        );
    }
}

/// `dst (+)= lhs · rhs` for an `[m, k] x [k, n]` product, as one single-threaded call of the
/// `gemm` crate (the cores already run on host threads). Each operand is its first element and
/// its row and column strides, in elements.
///
/// # Safety
/// Each pointer addresses the elements its strides describe for its shape, and `dst`'s
/// overlap neither input's.
pub(super) unsafe fn product(
    [m, n, k]: [usize; 3],
    dst: (*mut f32, isize, isize),
    accumulate: bool,
    lhs: (*const f32, isize, isize),
    rhs: (*const f32, isize, isize),
) {
    // SAFETY: the caller's guarantee.
    unsafe {
        gemm(
            m,
            n,
            k,
            dst.0,
            dst.2,
            dst.1,
            accumulate,
            lhs.0,
            lhs.2,
            lhs.1,
            rhs.0,
            rhs.2,
            rhs.1,
            1.0f32,
            1.0f32,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}
