//! Zeroed element vectors of freed on-chip buffers, kept for the next allocations.
//!
//! Generated host code allocates and frees LB tiles and GB arenas around every kernel: a
//! ResNet-50 run allocates hundreds of megabytes of them. Fresh zeroed memory costs a page fault
//! per page on first touch, on the thread that records the program. A freed buffer's vector is
//! zeroed instead where its last user lets go of it (usually the execution thread, after the
//! launch that used it) and handed to a later allocation of the same element storage and about
//! the same size. Buffers stay zero-filled when allocated, as the device promises.

use crate::element::{each_storage, ElementType, Storage};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Which vector type holds elements of `dtype` (f32, f16 and bf16 share one, as do u8 and
/// bool), and the bytes of its elements.
fn vector_of(dtype: ElementType) -> (u8, u64) {
    match dtype {
        ElementType::F32 | ElementType::F16 | ElementType::Bf16 => (0, 4),
        ElementType::I64 => (1, 8),
        ElementType::I32 => (2, 4),
        ElementType::I8 => (3, 1),
        ElementType::U8 | ElementType::Bool => (4, 1),
    }
}

/// Pooled vectors, all elements up to their capacity zero, by (variant, capacity in elements).
#[derive(Debug)]
pub(crate) struct Recycler {
    pool: Mutex<Pool>,
    /// Most bytes kept at once.
    limit: u64,
}

#[derive(Debug, Default)]
struct Pool {
    vectors: BTreeMap<(u8, usize), Vec<Storage>>,
    bytes: u64,
}

impl Recycler {
    /// A recycler keeping at most `limit` bytes.
    pub fn new(limit: u64) -> Recycler {
        Recycler {
            pool: Mutex::new(Pool::default()),
            limit,
        }
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `len` zero elements of `dtype` from a pooled vector with room for them and at most
    /// twice as much, if there is one.
    pub fn take(&self, dtype: ElementType, len: usize) -> Option<Storage> {
        let (key, width) = vector_of(dtype);
        let mut pool = self.pool();
        let (&found, _) = pool
            .vectors
            .range((key, len)..=(key, len.saturating_mul(2)))
            .next()?;
        let list = pool.vectors.get_mut(&found)?;
        let mut storage = list.pop()?;
        if list.is_empty() {
            pool.vectors.remove(&found);
        }
        pool.bytes -= found.1 as u64 * width;
        drop(pool);
        // Every element up to the capacity is zero: resizing within it writes zeros too.
        each_storage!(&mut storage, v => v.resize(len, Default::default()));
        Some(storage)
    }

    /// Zeroes `storage`, which holds elements of `dtype`, and keeps it if the pool has room.
    pub fn give(&self, mut storage: Storage, dtype: ElementType) {
        let (key, width) = vector_of(dtype);
        let capacity = each_storage!(&storage, v => v.capacity());
        let bytes = capacity as u64 * width;
        if capacity == 0 || self.pool().bytes + bytes > self.limit {
            return;
        }
        each_storage!(&mut storage, v => v.fill(Default::default()));
        let mut pool = self.pool();
        if pool.bytes + bytes > self.limit {
            return;
        }
        pool.bytes += bytes;
        pool.vectors
            .entry((key, capacity))
            .or_default()
            .push(storage);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_vector_comes_back_zeroed_and_sized() {
        let recycler = Recycler::new(1 << 20);
        let mut used = Storage::zeroed(ElementType::F32, 100).unwrap();
        used.f32_mut().fill(7.0);
        recycler.give(used, ElementType::F32);
        assert!(
            recycler.take(ElementType::I32, 100).is_none(),
            "another vector type"
        );
        assert!(
            recycler.take(ElementType::F32, 40).is_none(),
            "more than twice the size"
        );
        let small = recycler.take(ElementType::F16, 60).unwrap();
        assert_eq!(small.f32(), &[0.0; 60][..]);
        recycler.give(small, ElementType::F32);
        let large = recycler.take(ElementType::F32, 100).unwrap();
        assert_eq!(large.f32(), &[0.0; 100][..]);
    }

    #[test]
    fn the_pool_keeps_no_more_than_its_limit() {
        let recycler = Recycler::new(400);
        recycler.give(
            Storage::zeroed(ElementType::F32, 100).unwrap(),
            ElementType::F32,
        );
        recycler.give(
            Storage::zeroed(ElementType::F32, 100).unwrap(),
            ElementType::F32,
        );
        assert!(recycler.take(ElementType::F32, 100).is_some());
        assert!(recycler.take(ElementType::F32, 100).is_none());
    }
}
