//! Functional execution of a checked, race-free launch on real buffers.
//!
//! Barrier phases run one after the other; within a phase each core runs its instructions in
//! program order, and different cores run on host threads when the phase has enough work to
//! repay a thread start ([`PARALLEL_MIN_WORK`]). The race check guarantees that cores of one
//! phase never touch the same elements with a write involved, so neither the interleaving nor
//! the lock order can change a result.

mod conv;
mod locks;
mod matmul;
mod vector;
mod window;

use crate::ids::BufferId;
use crate::instr::Instr;
use crate::launch::{Launch, Recorded};
use crate::memory::Buffer;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

/// Buffers of the launch, by handle.
pub(crate) type Buffers = BTreeMap<BufferId, Arc<Buffer>>;

/// Work (flops, element operations or bytes, as [`Instr::work`] counts them) below which a
/// phase runs on the calling thread: starting threads costs tens of microseconds, about what
/// the host needs for this much work.
pub const PARALLEL_MIN_WORK: f64 = 262_144.0;

/// Runs every instruction of `launch`, with up to `threads` host threads.
pub(crate) fn execute(launch: &Launch, buffers: &Buffers, threads: usize) {
    let mut phases: Vec<Vec<&[Recorded]>> = Vec::new();
    for stream in &launch.streams {
        for (phase, segment) in stream.split(|r| r.instr == Instr::Barrier).enumerate() {
            if phases.len() <= phase {
                phases.resize_with(phase + 1, Vec::new);
            }
            if !segment.is_empty() {
                phases[phase].push(segment);
            }
        }
    }
    for segments in phases {
        let work: f64 = segments
            .iter()
            .flat_map(|s| s.iter())
            .map(|r| r.instr.work(1.0))
            .sum();
        if threads <= 1 || segments.len() <= 1 || work < PARALLEL_MIN_WORK {
            segments.iter().for_each(|s| run(s, buffers));
            continue;
        }
        let next = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.min(segments.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(segment) = segments.get(i) else {
                        break;
                    };
                    run(segment, buffers);
                });
            }
        });
    }
}

/// Runs one core's instructions of one phase, in program order.
fn run(segment: &[Recorded], buffers: &Buffers) {
    for rec in segment {
        let get = |id: BufferId| {
            buffers
                .get(&id)
                .expect("the launch checked every buffer")
                .as_ref()
        };
        match &rec.instr {
            Instr::Dma { src, dst } if src.buffer != dst.buffer => {
                let mut locked = locks::Locked::new(&[src.buffer], dst.buffer, &get);
                let to = locked.writer();
                let from = locked.reader(src.buffer);
                // SAFETY: both buffers are locked, distinct, and as long as their `len` says.
                let (from, to) = unsafe {
                    (
                        std::slice::from_raw_parts(from, get(src.buffer).len as usize),
                        std::slice::from_raw_parts_mut(to, get(dst.buffer).len as usize),
                    )
                };
                src.copy_to(from, dst, to);
            }
            // Within one buffer, gathering first gives memmove semantics to overlapping views.
            Instr::Dma { src, dst } => with_scratch(|values| {
                src.gather_into(&read(get(src.buffer)), values);
                dst.scatter(&mut write(get(dst.buffer)), values);
            }),
            Instr::Matmul {
                a,
                b,
                c,
                accumulate,
            } => matmul::run(a, b, c, *accumulate, &get),
            Instr::Conv2d {
                input,
                filter,
                output,
                params,
                accumulate,
            } => conv::run(input, filter, output, params, *accumulate, &get),
            Instr::Binary { op, a, b, out } => vector::binary(*op, a, b, out, &get),
            Instr::Unary { op, input, out } => vector::unary(*op, input, out, &get),
            Instr::Pool2d {
                kind,
                input,
                out,
                params,
            } => window::pool2d(*kind, input, out, params, &get),
            Instr::Reduce {
                kind,
                axis,
                input,
                out,
            } => window::reduce(*kind, *axis, input, out, &get),
            Instr::Wait | Instr::Barrier => {}
        }
    }
}

thread_local! {
    /// Scratch vectors for operands gathered out of their buffers, kept per host thread: a
    /// launch gathers for most of its instructions, and allocating (and page-faulting) fresh
    /// memory each time costs more host time than the copies.
    static SCRATCH: std::cell::RefCell<Vec<Vec<f32>>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `f` with a scratch vector of this thread (its contents unspecified), nested calls each
/// getting their own.
pub(crate) fn with_scratch<T>(f: impl FnOnce(&mut Vec<f32>) -> T) -> T {
    let mut scratch = SCRATCH
        .with(|pool| pool.borrow_mut().pop())
        .unwrap_or_default();
    let result = f(&mut scratch);
    SCRATCH.with(|pool| pool.borrow_mut().push(scratch));
    result
}

/// Read access to a buffer's elements. Lock poisoning is ignored: a panic while a lock was
/// held is a runtime bug that the C ABI reports, and the data is still plain floats.
pub(crate) fn read(buffer: &Buffer) -> RwLockReadGuard<'_, Vec<f32>> {
    buffer.data.read().unwrap_or_else(|e| e.into_inner())
}

/// Write access to a buffer's elements (see [`read`] about poisoning).
pub(crate) fn write(buffer: &Buffer) -> RwLockWriteGuard<'_, Vec<f32>> {
    buffer.data.write().unwrap_or_else(|e| e.into_inner())
}
