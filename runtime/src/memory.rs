//! Device memory: buffers with real contents, placed at a level and owner, with capacity
//! accounting and high-water marks per memory instance (each core's LB, each cluster's GB,
//! the DDR).
//!
//! Capacity is checked on the sum of live buffer sizes: placement inside a memory (and so
//! fragmentation) is the compiler's allocator's business, not modelled here.

use crate::element::{ElementType, Storage};
use crate::error::{Result, RuntimeError};
use crate::hashing::IntMap;
use crate::ids::{BufferId, CoreId};
use crate::recycle::Recycler;
use std::fmt;
use std::sync::{Arc, OnceLock, RwLock, RwLockReadGuard, RwLockWriteGuard};
use turbine_targets::{MemLevel, Target};

/// Where a buffer lives: the level and its owner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// The local buffer of a core.
    Lb(CoreId),
    /// The global buffer of a cluster.
    Gb(u32),
    /// DDR.
    Ddr,
}

impl Placement {
    /// The memory level.
    pub fn level(self) -> MemLevel {
        match self {
            Placement::Lb(_) => MemLevel::Lb,
            Placement::Gb(_) => MemLevel::Gb,
            Placement::Ddr => MemLevel::Ddr,
        }
    }

    /// The cluster the memory belongs to (`None` for DDR).
    pub fn cluster(self) -> Option<u32> {
        match self {
            Placement::Lb(c) => Some(c.cluster),
            Placement::Gb(cl) => Some(cl),
            Placement::Ddr => None,
        }
    }
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Lb(c) => write!(f, "lb of {c}"),
            Placement::Gb(cl) => write!(f, "gb of cluster {cl}"),
            Placement::Ddr => f.write_str("ddr"),
        }
    }
}

/// One buffer. Its contents sit behind a lock so that cores executing on different host
/// threads can share GB and DDR buffers; the race check guarantees that concurrent
/// instructions never touch the same elements, so lock order never changes a result.
#[derive(Debug)]
pub(crate) struct Buffer {
    pub placement: Placement,
    /// The type of its elements.
    pub dtype: ElementType,
    /// Number of elements (the length of `data`, readable without the lock).
    pub len: u64,
    /// The elements. A DDR buffer's are allocated with it; an on-chip buffer's when an
    /// instruction first touches them, on the thread that executes it, from the vectors that
    /// executed launches gave back (see `recycle`).
    data: OnceLock<RwLock<Storage>>,
    /// Where the elements go when the buffer is dropped (on-chip buffers).
    recycler: Option<Arc<Recycler>>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if let (Some(recycler), Some(data)) = (&self.recycler, self.data.get_mut()) {
            let storage = data.get_mut().unwrap_or_else(|e| e.into_inner());
            recycler.give(
                std::mem::replace(storage, Storage::F32(Vec::new())),
                self.dtype,
            );
        }
    }
}

impl Buffer {
    /// The elements' lock, allocating them (zeroed) on first use.
    fn data(&self) -> &RwLock<Storage> {
        self.data.get_or_init(|| {
            let len = self.len as usize;
            let recycled = self.recycler.as_ref().and_then(|r| r.take(self.dtype, len));
            let storage = recycled.or_else(|| Storage::zeroed(self.dtype, self.len));
            // An on-chip buffer is at most its memory's capacity, which the target states.
            RwLock::new(storage.unwrap_or_else(|| {
                panic!(
                    "the host cannot allocate the {} bytes of a buffer in {}",
                    self.len * self.dtype.bytes(),
                    self.placement
                )
            }))
        })
    }

    /// Read access to the elements. Lock poisoning is ignored: a panic while a lock was held
    /// is a runtime bug that the C ABI reports, and the data is still plain numbers.
    pub fn read(&self) -> RwLockReadGuard<'_, Storage> {
        self.data().read().unwrap_or_else(|e| e.into_inner())
    }

    /// Write access to the elements.
    pub fn write(&self) -> RwLockWriteGuard<'_, Storage> {
        self.data().write().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes in use and the high-water mark of one memory instance.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    /// Bytes allocated now.
    pub in_use: u64,
    /// Largest `in_use` since the last report reset.
    pub high_water: u64,
}

/// All buffers of a device and the usage of every memory instance.
#[derive(Debug)]
pub(crate) struct Memory {
    /// Every live buffer and its size in bytes.
    buffers: IntMap<BufferId, (Arc<Buffer>, u64)>,
    next_id: u64,
    lb: Vec<Usage>,
    gb: Vec<Usage>,
    ddr: Usage,
    cores_per_cluster: u32,
    /// Vectors of freed LB and GB buffers, for the next ones.
    recycler: Arc<Recycler>,
}

impl Memory {
    pub fn new(target: &Target) -> Memory {
        Memory {
            buffers: IntMap::default(),
            next_id: 1,
            lb: vec![Usage::default(); target.total_cores() as usize],
            gb: vec![Usage::default(); target.device.clusters as usize],
            ddr: Usage::default(),
            cores_per_cluster: target.cluster.cores,
            // As much as the on-chip memories hold: what generated code frees and allocates
            // again around its kernels.
            recycler: Arc::new(Recycler::new(
                target.capacity(MemLevel::Lb) * u64::from(target.total_cores())
                    + target.capacity(MemLevel::Gb) * u64::from(target.device.clusters),
            )),
        }
    }

    fn usage_mut(&mut self, p: Placement) -> &mut Usage {
        match p {
            Placement::Lb(c) => {
                &mut self.lb[(c.cluster * self.cores_per_cluster + c.core) as usize]
            }
            Placement::Gb(cl) => &mut self.gb[cl as usize],
            Placement::Ddr => &mut self.ddr,
        }
    }

    /// Allocates a zero-filled buffer of `bytes` bytes (whole elements of `dtype`); the
    /// placement has been checked against the target.
    pub fn alloc(
        &mut self,
        placement: Placement,
        bytes: u64,
        dtype: ElementType,
        capacity: u64,
    ) -> Result<BufferId> {
        let recycler = (placement != Placement::Ddr).then(|| Arc::clone(&self.recycler));
        let usage = self.usage_mut(placement);
        if bytes > capacity - usage.in_use {
            return Err(RuntimeError::OutOfMemory {
                memory: placement.to_string(),
                requested: bytes,
                in_use: usage.in_use,
                capacity,
            });
        }
        let len = bytes / dtype.bytes();
        let data = OnceLock::new();
        if placement == Placement::Ddr {
            let storage = Storage::zeroed(dtype, len).ok_or_else(|| RuntimeError::OutOfMemory {
                memory: format!("the host, for {placement}"),
                requested: bytes,
                in_use: usage.in_use,
                capacity,
            })?;
            data.get_or_init(|| RwLock::new(storage));
        }
        usage.in_use += bytes;
        usage.high_water = usage.high_water.max(usage.in_use);
        let id = BufferId(self.next_id);
        self.next_id += 1;
        let buffer = Buffer {
            placement,
            dtype,
            len,
            data,
            recycler,
        };
        self.buffers.insert(id, (Arc::new(buffer), bytes));
        Ok(id)
    }

    pub fn free(&mut self, id: BufferId) -> Result<()> {
        let (buffer, bytes) = self
            .buffers
            .remove(&id)
            .ok_or(RuntimeError::UnknownBuffer(id))?;
        self.usage_mut(buffer.placement).in_use -= bytes;
        Ok(())
    }

    pub fn get(&self, id: BufferId) -> Result<&Arc<Buffer>> {
        self.buffers
            .get(&id)
            .map(|(buffer, _)| buffer)
            .ok_or(RuntimeError::UnknownBuffer(id))
    }

    /// Restarts high-water marks from the current usage (on report reset).
    pub fn reset_high_water(&mut self) {
        for u in self
            .lb
            .iter_mut()
            .chain(self.gb.iter_mut())
            .chain(std::iter::once(&mut self.ddr))
        {
            u.high_water = u.in_use;
        }
    }

    /// Usage of each core's LB (flat core order), each cluster's GB, and the DDR.
    pub fn usage(&self) -> (&[Usage], &[Usage], Usage) {
        (&self.lb, &self.gb, self.ddr)
    }
}
