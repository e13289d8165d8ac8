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
mod top_k;
mod typed;
mod vector;
mod window;

use crate::element::{each_storage, ElementType, Storage};
use crate::hashing::IntMap;
use crate::ids::BufferId;
use crate::instr::Instr;
use crate::launch::{Launch, Recorded};
use crate::memory::Buffer;
use crate::operands::Access;
use crate::view::View;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

/// Buffers of the launch, by handle.
pub(crate) type Buffers = IntMap<BufferId, Arc<Buffer>>;

/// Work (flops, element operations or bytes, as [`Instr::work`] counts them) below which a
/// phase runs on the calling thread: starting threads costs tens of microseconds, about what
/// the host needs for this much work.
pub const PARALLEL_MIN_WORK: f64 = 262_144.0;

/// What went wrong in an instruction whose operands were fine when recorded but whose data
/// is not: a gather's or scatter's indices, an integer divisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Fault {
    /// An integer division (or remainder) by zero.
    DivisionByZero,
    /// A gather or scatter index outside `-extent..extent`.
    IndexOutOfRange {
        /// The index.
        index: i64,
        /// The extent of the indexed tensor along the axis.
        extent: u64,
    },
}

/// The first fault of a launch: the faulting instruction's slot and stream index, and what.
pub(crate) type Failure = (usize, usize, Fault);

/// Runs every instruction of `launch`, with up to `threads` host threads. A fault stops the
/// core that meets it and the launch after the phase it is in; what the launch wrote is then
/// unspecified.
pub(crate) fn execute(launch: &Launch, buffers: &Buffers, threads: usize) -> Result<(), Failure> {
    let mut phases: Vec<Vec<(usize, usize, &[Recorded])>> = Vec::new();
    for (slot, stream) in launch.streams.iter().enumerate() {
        let mut first = 0;
        for (phase, segment) in stream.split(|r| r.instr == Instr::Barrier).enumerate() {
            if phases.len() <= phase {
                phases.resize_with(phase + 1, Vec::new);
            }
            if !segment.is_empty() {
                phases[phase].push((slot, first, segment));
            }
            first += segment.len() + 1;
        }
    }
    for segments in phases {
        let work: f64 = segments
            .iter()
            .flat_map(|(_, _, s)| s.iter())
            .map(|r| r.work(1.0))
            .sum();
        let run_at = |&(slot, first, segment): &(usize, usize, &[Recorded])| {
            run(segment, buffers).map_err(|(at, fault)| (slot, first + at, fault))
        };
        if threads <= 1 || segments.len() <= 1 || work < PARALLEL_MIN_WORK {
            let failures = segments.iter().map(run_at).filter_map(Result::err);
            match failures.min() {
                Some(failure) => return Err(failure),
                None => continue,
            }
        }
        let next = AtomicUsize::new(0);
        let failures = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for _ in 0..threads.min(segments.len()) {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(segment) = segments.get(i) else {
                        break;
                    };
                    if let Err(failure) = run_at(segment) {
                        failures
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push(failure);
                    }
                });
            }
        });
        let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
        if let Some(&failure) = failures.iter().min() {
            return Err(failure);
        }
    }
    Ok(())
}

/// Runs one core's instructions of one phase, in program order, up to the first fault (its
/// index in `segment` is returned with it).
fn run(segment: &[Recorded], buffers: &Buffers) -> Result<(), (usize, Fault)> {
    for (at, rec) in segment.iter().enumerate() {
        let get = |id: BufferId| {
            buffers
                .get(&id)
                .expect("the launch checked every buffer")
                .as_ref()
        };
        match &rec.instr {
            Instr::Dma { src, dst } => {
                copy_pairs((src.buffer, dst.buffer), [(src.clone(), dst.clone())], &get)
            }
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
            Instr::Binary { op, a, b, out } if !get(out.buffer).dtype.is_float() => {
                typed::integer_binary(*op, (a, b, out), &get).map_err(|fault| (at, fault))?
            }
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
            Instr::Convert { input, out } => typed::convert(input, out, &get),
            Instr::ArgReduce {
                largest,
                last,
                axis,
                input,
                out,
            } => typed::arg_reduce((*largest, *last), *axis, (input, out), &get),
            Instr::TopK {
                largest,
                axis,
                input,
                values,
                indices,
            } => top_k::run(*largest, *axis, input, (values, indices), &get),
            Instr::Compare {
                predicate,
                a,
                b,
                out,
            } => typed::compare(*predicate, (a, b, out), &get),
            Instr::Select { cond, a, b, out } => typed::select((cond, a, b, out), &get),
            Instr::Gather {
                axis,
                table,
                indices,
                out,
            } => typed::gather(*axis, table, indices, out, &get).map_err(|fault| (at, fault))?,
            Instr::GatherElements {
                axis,
                data,
                indices,
                out,
            } => typed::gather_elements(*axis, (data, indices, out), &get)
                .map_err(|fault| (at, fault))?,
            Instr::ScatterElements {
                axis,
                reduction,
                indices,
                updates,
                out,
            } => typed::scatter_elements(*axis, *reduction, (indices, updates, out), &get)
                .map_err(|fault| (at, fault))?,
            Instr::Wait | Instr::Barrier => {}
        }
        round_stores(&rec.instr, &get);
    }
    Ok(())
}

/// Rounds what `instr` wrote into f16 or bf16 buffers to their type: units compute in f32 and
/// round when they store. Moving elements between buffers of one type keeps them exact.
fn round_stores<'a>(instr: &Instr, get: &dyn Fn(BufferId) -> &'a Buffer) {
    let exact = match instr {
        Instr::Dma { src, dst } => get(src.buffer).dtype == get(dst.buffer).dtype,
        Instr::Gather { .. } | Instr::GatherElements { .. } => true,
        Instr::ScatterElements { reduction, .. } => reduction.is_none(),
        _ => false,
    };
    if exact {
        return;
    }
    for (_, view, access) in instr.operands() {
        let dtype = get(view.buffer).dtype;
        if access != Access::Write || !dtype.is_float() || dtype == ElementType::F32 {
            continue;
        }
        let mut storage = get(view.buffer).write();
        let data = storage.f32_mut();
        view.for_each_run(|start, count, stride| {
            for i in 0..count {
                let x = &mut data[start + i * stride];
                *x = dtype.round(*x);
            }
        });
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

/// Copies each `(source, target)` pair of views (equal shapes), the sources of buffer `from`
/// and the targets of buffer `to`, which hold one storage (floats of every width as f32): a
/// DMA's one pair, a gather's slices. Within one buffer each pair is gathered before it is
/// scattered, which gives memmove semantics to overlapping views.
pub(crate) fn copy_pairs<'a>(
    (from, to): (BufferId, BufferId),
    pairs: impl IntoIterator<Item = (View, View)>,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    if from == to {
        each_storage!(&mut *get(from).write(), data => {
            for (source, target) in pairs {
                let values = source.gather(data);
                target.scatter(data, &values);
            }
        });
        return;
    }
    let mut locked = locks::Locked::new(&[from], to, get);
    let (source, target) = locked.read_and_written(from);
    macro_rules! copy {
        ($($variant:ident),*) => {
            match (source, target) {
                $((Storage::$variant(a), Storage::$variant(b)) => {
                    for (from, to) in pairs {
                        from.copy_to(a, &to, b);
                    }
                })*
                _ => unreachable!("copies are between buffers of one type, checked when recorded"),
            }
        };
    }
    copy!(F32, I64, I32, I8, U8);
}

/// Read access to the elements of an f32 buffer.
pub(crate) struct F32Read<'a>(RwLockReadGuard<'a, Storage>);

impl std::ops::Deref for F32Read<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        self.0.f32()
    }
}

/// Write access to the elements of an f32 buffer.
pub(crate) struct F32Write<'a>(RwLockWriteGuard<'a, Storage>);

impl std::ops::Deref for F32Write<'_> {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        self.0.f32()
    }
}

impl std::ops::DerefMut for F32Write<'_> {
    fn deref_mut(&mut self) -> &mut [f32] {
        self.0.f32_mut()
    }
}

/// Read access to an f32 buffer's elements.
pub(crate) fn read(buffer: &Buffer) -> F32Read<'_> {
    F32Read(buffer.read())
}

/// Write access to an f32 buffer's elements.
pub(crate) fn write(buffer: &Buffer) -> F32Write<'_> {
    F32Write(buffer.write())
}
