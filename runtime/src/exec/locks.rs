//! The buffers of one instruction, locked for its whole execution so that it can work on their
//! memory in place rather than on gathered copies.
//!
//! Locks are taken in buffer-id order, the same order in every instruction, so two cores running
//! on different host threads never wait on each other; a buffer named twice is locked once, for
//! writing if the instruction writes it.

use crate::element::Storage;
use crate::ids::BufferId;
use crate::memory::Buffer;
use std::sync::{RwLockReadGuard, RwLockWriteGuard};

enum Guard<'a> {
    Read(RwLockReadGuard<'a, Storage>),
    Write(RwLockWriteGuard<'a, Storage>),
}

/// Up to three locked buffers (an instruction has at most three operands).
pub(super) struct Locked<'a> {
    guards: [Option<(BufferId, Guard<'a>)>; 3],
}

impl<'a> Locked<'a> {
    /// Locks the buffers of `reads` for reading and `written` for writing.
    pub(super) fn new(
        reads: &[BufferId],
        written: BufferId,
        get: &dyn Fn(BufferId) -> &'a Buffer,
    ) -> Locked<'a> {
        let mut ids = [written; 3];
        ids[1..=reads.len()].copy_from_slice(reads);
        let ids = &mut ids[..=reads.len()];
        ids.sort();
        let mut guards: [Option<(BufferId, Guard<'a>)>; 3] = [None, None, None];
        let mut n = 0;
        for (i, &id) in ids.iter().enumerate() {
            if i > 0 && ids[i - 1] == id {
                continue;
            }
            let buffer = get(id);
            let guard = if id == written {
                Guard::Write(buffer.write())
            } else {
                Guard::Read(buffer.read())
            };
            guards[n] = Some((id, guard));
            n += 1;
        }
        Locked { guards }
    }

    /// The first element of `id`'s buffer (one of the locked ones, of f32), for reading.
    pub(super) fn reader(&self, id: BufferId) -> *const f32 {
        self.storage(id).f32().as_ptr()
    }

    /// The storage of `id`'s buffer (one of the locked ones), for reading.
    pub(super) fn storage(&self, id: BufferId) -> &Storage {
        match self.guard(id) {
            Guard::Read(g) => g,
            Guard::Write(g) => g,
        }
    }

    /// The first element of the written buffer (of f32).
    pub(super) fn writer(&mut self) -> *mut f32 {
        self.written().f32_mut().as_mut_ptr()
    }

    /// The storage of `id`'s buffer (locked for reading only) and of the written buffer.
    pub(super) fn read_and_written(&mut self, id: BufferId) -> (&Storage, &mut Storage) {
        let (mut read, mut written) = (None, None);
        for (locked, guard) in self.guards.iter_mut().flatten() {
            match guard {
                Guard::Write(g) => written = Some(&mut **g),
                Guard::Read(g) if *locked == id => read = Some(&**g),
                Guard::Read(_) => {}
            }
        }
        (
            read.expect("a buffer locked for reading only"),
            written.expect("one buffer is locked for writing"),
        )
    }

    /// The storage of the written buffer.
    pub(super) fn written(&mut self) -> &mut Storage {
        self.guards
            .iter_mut()
            .flatten()
            .find_map(|(_, guard)| match guard {
                Guard::Write(g) => Some(&mut **g),
                Guard::Read(_) => None,
            })
            .expect("one buffer is locked for writing")
    }

    fn guard(&self, id: BufferId) -> &Guard<'a> {
        self.guards
            .iter()
            .flatten()
            .find(|(locked, _)| *locked == id)
            .map(|(_, guard)| guard)
            .expect("the instruction's buffers are locked")
    }
}
