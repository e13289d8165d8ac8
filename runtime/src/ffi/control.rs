//! The C ABI's control flow between launches (`td_persistent_begin` … `td_loop_check`):
//! persistent regions, the scalars that decide loops and branches, and the watchdog on loops
//! (see [`Device::persistent_begin`], [`Device::read_scalar`], [`Device::loop_check`]). Split
//! from the device, launch and report entry points in the parent module.

use super::*;

/// Opens a persistent region: the launches until `td_persistent_end` are steps of one
/// persistent kernel.
#[no_mangle]
pub extern "C" fn td_persistent_begin(dev: u64) -> i32 {
    guard_on(dev, "td_persistent_begin", || {
        with_device(dev, |d| d.persistent_begin())
    })
}

/// Closes the open persistent region.
#[no_mangle]
pub extern "C" fn td_persistent_end(dev: u64) -> i32 {
    guard_on(dev, "td_persistent_end", || {
        with_device(dev, |d| d.persistent_end())
    })
}

/// Waits for every launch to execute, then stores element `index` of an integer or boolean
/// buffer, widened, in `value_out`.
#[no_mangle]
pub unsafe extern "C" fn td_read_scalar(
    dev: u64,
    buffer: u64,
    index: u64,
    value_out: *mut i64,
) -> i32 {
    guard_on(dev, "td_read_scalar", || {
        if value_out.is_null() {
            return Err(RuntimeError::BadArgument("value_out is NULL".into()));
        }
        let value = with_device(dev, |d| d.read_scalar(BufferId(buffer), index))?;
        out(value_out, value);
        Ok(())
    })
}

/// Waits for every launch to execute, then writes `value` into element `index` of an integer
/// or boolean buffer.
#[no_mangle]
pub extern "C" fn td_write_scalar(dev: u64, buffer: u64, index: u64, value: i64) -> i32 {
    guard_on(dev, "td_write_scalar", || {
        with_device(dev, |d| d.write_scalar(BufferId(buffer), index, value))
    })
}

/// Fails once `iteration` (0 for a loop's first) reaches the device's loop limit.
#[no_mangle]
pub extern "C" fn td_loop_check(dev: u64, iteration: u64, layer: u32) -> i32 {
    guard_on(dev, "td_loop_check", || {
        with_device(dev, |d| d.loop_check(iteration, layer))
    })
}

/// Enters a call that may recurse (see [`Device::frame_push`]); `layer` names it.
#[no_mangle]
pub extern "C" fn td_frame_push(dev: u64, layer: u32) -> i32 {
    guard_on(dev, "td_frame_push", || {
        with_device(dev, |d| d.frame_push(layer))
    })
}

/// Leaves the call the last `td_frame_push` entered.
#[no_mangle]
pub extern "C" fn td_frame_pop(dev: u64) -> i32 {
    guard_on(dev, "td_frame_pop", || with_device(dev, |d| d.frame_pop()))
}

/// Sets the iteration at which the device's watchdog stops a loop (at least 1): see
/// [`Device::set_loop_limit`](crate::Device::set_loop_limit).
#[no_mangle]
pub extern "C" fn td_device_set_loop_limit(dev: u64, limit: u64) -> i32 {
    guard_on(dev, "td_device_set_loop_limit", || {
        with_device(dev, |d| d.set_loop_limit(limit))
    })
}
