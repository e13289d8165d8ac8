//! The matrix engine's matmul: one call of the `gemm` crate's packed SIMD kernel directly on
//! the LB buffers' memory, with the views' strides (so transposed or strided operands cost no
//! copy).

use super::{read, write};
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
    // Locks are taken in buffer-id order (the same order in every instruction, so two cores
    // can never wait on each other), once per distinct buffer.
    let mut ids = vec![a.buffer, b.buffer, c.buffer];
    ids.sort();
    ids.dedup();
    let mut readers = Vec::new();
    let mut writer = None;
    for &id in &ids {
        if id == c.buffer {
            writer = Some(write(get(id)));
        } else {
            readers.push((id, read(get(id))));
        }
    }
    let mut writer = writer.expect("c's buffer is among the ids");
    let c_base = writer.as_mut_ptr();
    let base = |id: BufferId| -> *const f32 {
        if id == c.buffer {
            c_base
        } else {
            readers
                .iter()
                .find(|(r, _)| *r == id)
                .expect("locked above")
                .1
                .as_ptr()
        }
    };
    let s = |v: &View, d: usize| v.strides[d] as isize;
    // SAFETY: every pointer below stays inside its buffer: the device checked that each view's
    // last element (offset + sum of (extent-1)*stride) is within the buffer, and gemm reads or
    // writes only the M x K, K x N and M x N elements the strides describe. The buffers are
    // locked (c for writing, a and b for reading) for the whole call, and c overlaps neither a
    // nor b, so the mutable accesses do not alias the shared ones.
    unsafe {
        gemm(
            m,
            n,
            k,
            c_base.add(c.offset as usize),
            s(c, 1),
            s(c, 0),
            accumulate,
            base(a.buffer).add(a.offset as usize),
            s(a, 1),
            s(a, 0),
            base(b.buffer).add(b.offset as usize),
            s(b, 1),
            s(b, 0),
            1.0f32,
            1.0f32,
            false,
            false,
            false,
            Parallelism::None,
        );
    }
}
