//! Control flow between launches, as Cocktailer runs loops and branches over kernels: either the
//! host decides, reading each condition from the device (a synchronisation per condition), or
//! the device does, inside a *persistent region*: the launches that end in it are the steps of
//! one persistent kernel that the device sequences itself, its cores meeting after each step
//! and evaluating conditions without the host.
//!
//! Costs, from the target's `[latency]` table: the first launch that ends in a region pays
//! `kernel_launch` like any launch, and each later one `barrier`; a scalar read costs
//! `readback` outside a region and `branch` inside one; a scalar write costs nothing (the
//! host's value travels with the next launch's arguments; inside a region the vector core stores
//! its own counter). [`Device::loop_check`] is the device's watchdog on loops.

use super::Device;
use crate::element::{ElementType, Storage};
use crate::error::{Result, RuntimeError};
use crate::ids::BufferId;

/// The iteration at which [`Device::loop_check`] stops a loop unless
/// [`Device::set_loop_limit`] sets another.
pub const DEFAULT_LOOP_LIMIT: u64 = 1_048_576;

/// An open persistent region.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Region {
    /// Whether a launch has ended in it: the persistent kernel runs, and the next launches are
    /// its steps.
    launched: bool,
    /// Regions opened inside it (a loop's body that has a loop of its own): they belong to the
    /// same persistent kernel.
    nested: u32,
}

impl Device {
    /// Opens a persistent region: the launches that end until [`Device::persistent_end`] are
    /// steps of one persistent kernel. The first pays `latency.kernel_launch` and counts as a
    /// kernel launch; each later one starts `latency.barrier` cycles after the previous one
    /// ended, or after the branch that followed it (the cores meet and go on to the next
    /// kernel), and counts as a device step. A region opened inside an open one (a loop nested
    /// in a loop's body) is part of it: only the outermost end closes the kernel. Refused while
    /// a launch is being recorded.
    pub fn persistent_begin(&mut self) -> Result<()> {
        self.no_launch_recording("persistent_begin")?;
        match &mut self.region {
            Some(region) => region.nested += 1,
            None => self.region = Some(Region::default()),
        }
        Ok(())
    }

    /// Closes the innermost open persistent region; once the outermost is closed, the next
    /// launch pays `latency.kernel_launch` again. Refused without an open region or while a
    /// launch is being recorded (a launch that a recording error discarded is closed by its
    /// `launch_end`, which reports the error).
    pub fn persistent_end(&mut self) -> Result<()> {
        self.no_launch_recording("persistent_end")?;
        match &mut self.region {
            None => return Err(RuntimeError::NoPersistentRegion),
            Some(region) if region.nested > 0 => region.nested -= 1,
            Some(_) => self.region = None,
        }
        Ok(())
    }

    /// True while a persistent region is open.
    pub fn persistent_open(&self) -> bool {
        self.region.is_some()
    }

    /// The cycle at which the next launch starts, and whether it is a step of the open
    /// persistent kernel.
    pub(super) fn next_launch_start(&self) -> (u64, bool) {
        let latency = &self.target.latency;
        match self.region {
            Some(Region { launched: true, .. }) => (self.now.saturating_add(latency.barrier), true),
            _ => (self.now.saturating_add(latency.kernel_launch), false),
        }
    }

    /// Notes that a launch ended: inside a region, the persistent kernel now runs.
    pub(super) fn launched_in_region(&mut self) {
        if let Some(region) = &mut self.region {
            region.launched = true;
        }
    }

    /// Waits for every launch to execute (as [`Device::read`] does), then returns element
    /// `index` of `buffer`, an integer or boolean buffer at any level, widened to `i64`. Outside
    /// a persistent region the host reads it: a synchronisation, `latency.readback` cycles,
    /// counted in the report's `host_syncs`; inside one the cores read it and branch,
    /// `latency.branch` cycles, counted in `device_branches`. Refused while a launch is being
    /// recorded, for a float buffer, and for an index past the buffer's elements.
    pub fn read_scalar(&mut self, buffer: BufferId, index: u64) -> Result<i64> {
        self.scalar("read_scalar", buffer, index)?;
        self.synchronize()?;
        let value = element(&self.memory.get(buffer)?.read(), index as usize);
        let latency = &self.target.latency;
        if self.region.is_some() {
            self.now = self.now.saturating_add(latency.branch);
            self.stats.device_branch();
        } else {
            self.now = self.now.saturating_add(latency.readback);
            self.stats.host_sync();
        }
        Ok(value)
    }

    /// Waits for every launch to execute, then writes `value` into element `index` of `buffer`,
    /// an integer or boolean buffer at any level. Costs no simulated time: outside a persistent
    /// region the host's value travels with the next launch's arguments, inside one the vector
    /// core stores its own counter. Refused while a launch is being recorded, for a float
    /// buffer, for an index past the buffer's elements and for a value the element type cannot
    /// hold (a boolean holds 0 or 1).
    pub fn write_scalar(&mut self, buffer: BufferId, index: u64, value: i64) -> Result<()> {
        let (dtype, (min, max)) = self.scalar("write_scalar", buffer, index)?;
        if !(min..=max).contains(&value) {
            return Err(RuntimeError::BadArgument(format!(
                "write_scalar: {value} does not fit in {buffer}'s {dtype} elements \
                 ({min} to {max})"
            )));
        }
        self.synchronize()?;
        store(&mut self.memory.get(buffer)?.write(), index as usize, value);
        Ok(())
    }

    /// Stops a loop whose condition never turns false: an error once `iteration` (0 for the
    /// first) reaches the device's loop limit ([`DEFAULT_LOOP_LIMIT`] unless
    /// [`Device::set_loop_limit`] sets another), naming the loop by the model op `layer` names
    /// (`td_layer_names`; [`crate::NO_LAYER`] when none).
    pub fn loop_check(&self, iteration: u64, layer: u32) -> Result<()> {
        if iteration >= self.loop_limit {
            return Err(RuntimeError::LoopLimit {
                limit: self.loop_limit,
                looping: self
                    .layer_names
                    .get(&layer)
                    .map_or_else(|| "a loop".into(), |name| format!("loop '{name}'")),
            });
        }
        Ok(())
    }

    /// Enters a call that may recurse: an error, naming the call by its layer (`layer`, an id of
    /// `td_layer_names`; [`crate::NO_LAYER`] when none), when the target's `core.call_depth`
    /// calls are running already, so that a recursion that does not end stops with an error
    /// (before it could overflow the host's stack too). A call allowed ends with
    /// [`Device::frame_pop`].
    pub fn frame_push(&mut self, layer: u32) -> Result<()> {
        let depth = self.target.core.call_depth;
        if self.frames >= depth {
            return Err(RuntimeError::CallDepth {
                limit: depth,
                calling: self
                    .layer_names
                    .get(&layer)
                    .map_or_else(|| "a call".into(), |name| format!("call '{name}'")),
            });
        }
        self.frames += 1;
        Ok(())
    }

    /// Leaves the call the last [`Device::frame_push`] entered; an error when none is running.
    pub fn frame_pop(&mut self) -> Result<()> {
        self.frames = self
            .frames
            .checked_sub(1)
            .ok_or(RuntimeError::NoCallRunning)?;
        Ok(())
    }

    /// Sets the iteration at which [`Device::loop_check`] stops a loop (at least 1).
    pub fn set_loop_limit(&mut self, limit: u64) -> Result<()> {
        if limit == 0 {
            return Err(RuntimeError::BadArgument(
                "the loop limit must be at least 1".into(),
            ));
        }
        self.loop_limit = limit;
        Ok(())
    }

    /// The iteration at which [`Device::loop_check`] stops a loop.
    pub fn loop_limit(&self) -> u64 {
        self.loop_limit
    }

    /// An error naming `call` when a launch is being recorded.
    fn no_launch_recording(&self, call: &'static str) -> Result<()> {
        match &self.launch {
            Some(launch) => Err(RuntimeError::LaunchBeingRecorded {
                call,
                launch: launch.name.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Checks a scalar access of `call` to element `index` of `buffer` (no launch being
    /// recorded, an integer or boolean buffer, the index in bounds); returns the buffer's
    /// element type and the range of values it holds.
    fn scalar(
        &self,
        call: &'static str,
        buffer: BufferId,
        index: u64,
    ) -> Result<(ElementType, (i64, i64))> {
        self.no_launch_recording(call)?;
        let b = self.memory.get(buffer)?;
        let range = integer_range(b.dtype).ok_or_else(|| {
            RuntimeError::BadArgument(format!(
                "{call}: {buffer} holds {} elements; a scalar that decides control flow is \
                 an integer or a boolean",
                b.dtype
            ))
        })?;
        if index >= b.len {
            return Err(RuntimeError::OutOfBounds {
                context: call.into(),
                buffer,
                end: index.saturating_add(1),
                len: b.len,
            });
        }
        Ok((b.dtype, range))
    }
}

/// The smallest and largest value of an integer or boolean element type; `None` for floats.
fn integer_range(dtype: ElementType) -> Option<(i64, i64)> {
    match dtype {
        ElementType::I64 => Some((i64::MIN, i64::MAX)),
        ElementType::I32 => Some((i32::MIN.into(), i32::MAX.into())),
        ElementType::I8 => Some((i8::MIN.into(), i8::MAX.into())),
        ElementType::U8 => Some((0, u8::MAX.into())),
        ElementType::Bool => Some((0, 1)),
        ElementType::F32 | ElementType::F16 | ElementType::Bf16 => None,
    }
}

/// Element `index` of integer or boolean elements, widened.
fn element(storage: &Storage, index: usize) -> i64 {
    match storage {
        Storage::I64(v) => v[index],
        Storage::I32(v) => v[index].into(),
        Storage::I8(v) => v[index].into(),
        Storage::U8(v) => v[index].into(),
        Storage::F32(_) => unreachable!("scalar accesses to float buffers are refused"),
    }
}

/// Stores `value`, which the element type holds, into element `index`.
fn store(storage: &mut Storage, index: usize, value: i64) {
    const CHECKED: &str = "the value was checked against the element type's range";
    match storage {
        Storage::I64(v) => v[index] = value,
        Storage::I32(v) => v[index] = value.try_into().expect(CHECKED),
        Storage::I8(v) => v[index] = value.try_into().expect(CHECKED),
        Storage::U8(v) => v[index] = value.try_into().expect(CHECKED),
        Storage::F32(_) => unreachable!("scalar accesses to float buffers are refused"),
    }
}
