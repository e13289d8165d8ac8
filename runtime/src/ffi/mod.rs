//! The C ABI for generated host code, declared in `runtime/include/turbine_dsa.h` (which
//! documents every function for C callers; `docs/Runtime.md` gives the overview).
//!
//! Conventions: every function returns a status (`TD_OK` = 0, else a [`crate::ErrorCode`]) and
//! sets a thread-local message readable with [`td_last_error`] when it fails; a failing call on
//! a device is also kept as the device's first error until [`td_device_take_error`]. Handles are
//! `uint64_t` ids (devices, buffers, tokens), never pointers, so a stale or made-up handle is
//! an error, not undefined behaviour. Every body runs under `catch_unwind`: a runtime bug
//! becomes `TD_ERR_INTERNAL`, never an unwind into C. The caller's duty is only to pass
//! pointers that are NULL or valid for the sizes it states.
//!
//! For a JIT that maps symbols by hand (`add_global_mapping`), [`symbols`] lists every
//! function with its address; it also keeps them all linked into Rust executables.

#![allow(clippy::missing_safety_doc)] // Safety is stated once, in the module documentation.

use crate::device::Device;
use crate::element::ElementType;
use crate::error::{Result, RuntimeError};
use crate::ids::{BufferId, CoreId, Token};
use crate::instr::{
    BinaryOp, ComparePredicate, Conv2dParams, Instr, Pool2dParams, PoolKind, ReduceKind, UnaryOp,
};
use crate::memory::Placement;
use crate::trace::TraceFormat;
use crate::view::{View, MAX_RANK};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

mod buffers;
mod control;
mod indexing;
mod instructions;
mod model;
mod top_k;
pub use buffers::*;
pub use control::*;
pub use indexing::*;
pub use instructions::*;
pub use model::*;
pub use top_k::*;

/// A core, as `td_core` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdCore {
    /// Cluster index.
    pub cluster: u32,
    /// Core index within the cluster.
    pub core: u32,
}

/// A strided view, as `td_view` in C (offset, shape and strides in elements).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdView {
    /// Buffer handle.
    pub buffer: u64,
    /// Element offset of the first element.
    pub offset: u64,
    /// Number of dimensions used, 1 to 4.
    pub rank: u32,
    /// Extents, outermost first; entries past `rank` are ignored.
    pub shape: [u64; 4],
    /// Strides in elements; entries past `rank` are ignored.
    pub strides: [u64; 4],
}

/// Convolution parameters, as `td_conv2d_params` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdConv2dParams {
    /// Stride along H, W.
    pub stride: [u64; 2],
    /// Padding top, left, bottom, right.
    pub pad: [u64; 4],
    /// Dilation along H, W.
    pub dilation: [u64; 2],
    /// Groups.
    pub groups: u64,
}

/// Pooling parameters, as `td_pool2d_params` in C.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct TdPool2dParams {
    /// `TD_POOL_MAX` (0) or `TD_POOL_AVG` (1).
    pub kind: u32,
    /// For average pooling: nonzero to divide by the full window.
    pub count_include_pad: u32,
    /// Window along H, W.
    pub kernel: [u64; 2],
    /// Stride along H, W.
    pub stride: [u64; 2],
    /// Padding top, left, bottom, right.
    pub pad: [u64; 4],
}

/// Status of a successful call.
pub const TD_OK: i32 = 0;

/// A device of the C ABI and the first failure of a call on it since the last
/// [`td_device_take_error`] (status and message, prefixed with the failing function's name).
#[derive(Debug)]
struct Slot {
    device: Mutex<Device>,
    first_error: Mutex<Option<(i32, String)>>,
    /// False once the device is destroyed (its handle is then unknown).
    open: AtomicBool,
}

type Shared = Arc<Slot>;

static DEVICES: Mutex<BTreeMap<u64, Shared>> = Mutex::new(BTreeMap::new());
static NEXT_DEVICE: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
    /// The device this thread called last: generated code makes hundreds of thousands of calls
    /// on one device, each of which would otherwise take the global lock to find it.
    static LAST_DEVICE: RefCell<Option<(u64, Weak<Slot>)>> = const { RefCell::new(None) };
}

fn set_last_error(message: String) {
    let c = CString::new(message.replace('\0', " ")).expect("NULs were replaced");
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs a C entry point's body: converts errors to status codes and panics to
/// `TD_ERR_INTERNAL`, recording the message for [`td_last_error`].
fn guard(body: impl FnOnce() -> Result<()>) -> i32 {
    let error = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return TD_OK,
        Ok(Err(e)) => e,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            RuntimeError::Internal(what)
        }
    };
    set_last_error(error.to_string());
    error.code() as i32
}

/// Runs the body of C entry point `call` on device `dev` like [`guard`], and also records a
/// failure as the device's first error if it has none pending (see [`td_device_take_error`]).
fn guard_on(dev: u64, call: &str, body: impl FnOnce() -> Result<()>) -> i32 {
    let status = guard(body);
    if status != TD_OK {
        if let Ok(slot) = device(dev) {
            let mut first = slot.first_error.lock().unwrap_or_else(|e| e.into_inner());
            if first.is_none() {
                let message = LAST_ERROR.with(|e| e.borrow().to_string_lossy().into_owned());
                *first = Some((status, format!("{call}: {message}")));
            }
        }
    }
    status
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, Device> {
    shared.device.lock().unwrap_or_else(|e| e.into_inner())
}

fn device(dev: u64) -> Result<Shared> {
    let last = LAST_DEVICE.with(|last| match &*last.borrow() {
        Some((handle, slot)) if *handle == dev => slot
            .upgrade()
            .filter(|slot| slot.open.load(Ordering::Acquire)),
        _ => None,
    });
    if let Some(slot) = last {
        return Ok(slot);
    }
    let slot = DEVICES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&dev)
        .cloned()
        .ok_or(RuntimeError::UnknownDevice(dev))?;
    LAST_DEVICE.with(|last| *last.borrow_mut() = Some((dev, Arc::downgrade(&slot))));
    Ok(slot)
}

fn with_device<T>(dev: u64, f: impl FnOnce(&mut Device) -> Result<T>) -> Result<T> {
    let shared = device(dev)?;
    let mut guard = lock(&shared);
    f(&mut guard)
}

unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str> {
    if p.is_null() {
        return Err(RuntimeError::BadArgument(format!("{what} is NULL")));
    }
    CStr::from_ptr(p)
        .to_str()
        .map_err(|_| RuntimeError::BadArgument(format!("{what} is not valid UTF-8")))
}

unsafe fn reference<'a, T>(p: *const T, what: &str) -> Result<&'a T> {
    p.as_ref()
        .ok_or_else(|| RuntimeError::BadArgument(format!("{what} is NULL")))
}

unsafe fn slice<'a, T>(p: *const T, n: u64, what: &str) -> Result<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(RuntimeError::BadArgument(format!(
            "{what} is NULL but its length is {n}"
        )));
    }
    Ok(std::slice::from_raw_parts(p, n as usize))
}

unsafe fn out<T>(p: *mut T, value: T) {
    if !p.is_null() {
        p.write(value);
    }
}

unsafe fn view(p: *const TdView, what: &str) -> Result<View> {
    let v = reference(p, what)?;
    let rank = v.rank as usize;
    if rank == 0 || rank > MAX_RANK {
        return Err(RuntimeError::BadArgument(format!(
            "{what}: rank must be 1 to {MAX_RANK}, got {rank}"
        )));
    }
    Ok(View::new(
        BufferId(v.buffer),
        v.offset,
        &v.shape[..rank],
        &v.strides[..rank],
    ))
}

fn flag(value: i32) -> bool {
    value != 0
}

/// Records `instr` and stores its token.
unsafe fn enqueue(
    call: &str,
    dev: u64,
    core: CoreId,
    instr: impl FnOnce() -> Result<Instr>,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    guard_on(dev, call, || {
        let waits = slice(waits, n_waits, "waits")?;
        // SAFETY: Token is a transparent u64, so the slice's memory is `waits.len()` tokens.
        let waits = std::slice::from_raw_parts(waits.as_ptr().cast::<Token>(), waits.len());
        let instr = instr()?;
        let token = with_device(dev, |d| d.enqueue(core, instr, waits))?;
        out(token_out, token.0);
        Ok(())
    })
}

/// Copies `text` and its NUL into `buf` if `cap` allows; stores the length without NUL.
unsafe fn copy_out(text: &str, buf: *mut c_char, cap: u64, len_out: *mut u64) -> Result<()> {
    out(len_out, text.len() as u64);
    if buf.is_null() {
        return Ok(());
    }
    let needed = text.len() as u64 + 1;
    if cap < needed {
        return Err(RuntimeError::BadArgument(format!(
            "output buffer of {cap} bytes is too small: {needed} bytes needed (NUL included)"
        )));
    }
    std::ptr::copy_nonoverlapping(text.as_ptr(), buf as *mut u8, text.len());
    buf.add(text.len()).write(0);
    Ok(())
}

/// The message of the last failing call on this thread ("" if none). Valid until the next
/// failing call on this thread.
#[no_mangle]
pub extern "C" fn td_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// Creates a device of a built-in target name or a target file path.
#[no_mangle]
pub unsafe extern "C" fn td_device_create(target: *const c_char, device_out: *mut u64) -> i32 {
    guard(|| {
        let name = text(target, "target")?;
        if device_out.is_null() {
            return Err(RuntimeError::BadArgument("device_out is NULL".into()));
        }
        out(device_out, open_device(name)?);
        Ok(())
    })
}

/// Opens a device of target `name` and registers it; returns its handle.
fn open_device(name: &str) -> Result<u64> {
    let dev = Device::open(name)?;
    let id = NEXT_DEVICE.fetch_add(1, Ordering::Relaxed);
    DEVICES.lock().unwrap_or_else(|e| e.into_inner()).insert(
        id,
        Arc::new(Slot {
            device: Mutex::new(dev),
            first_error: Mutex::new(None),
            open: AtomicBool::new(true),
        }),
    );
    Ok(id)
}

/// Destroys a device and everything in it.
#[no_mangle]
pub extern "C" fn td_device_destroy(dev: u64) -> i32 {
    guard(|| close_device(dev))
}

/// Unregisters device `dev`, destroying it and its buffers.
fn close_device(dev: u64) -> Result<()> {
    let slot = DEVICES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(&dev)
        .ok_or(RuntimeError::UnknownDevice(dev))?;
    slot.open.store(false, Ordering::Release);
    Ok(())
}

/// Returns the first failure of a call on `dev` since the device was created or this was
/// last called, and clears it: `TD_OK` if none failed; otherwise that call's status, with
/// [`td_last_error`] set to its message prefixed by the function's name (`"td_dma: ..."`).
/// Generated code records instructions in loops that cannot exit early, so it ignores each
/// call's status and calls this once at the end instead.
#[no_mangle]
pub extern "C" fn td_device_take_error(dev: u64) -> i32 {
    let first = match device(dev) {
        Ok(slot) => slot
            .first_error
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(),
        Err(error) => {
            set_last_error(error.to_string());
            return error.code() as i32;
        }
    };
    match first {
        None => TD_OK,
        Some((status, message)) => {
            set_last_error(message);
            status
        }
    }
}

/// Sets the number of host threads (0: as many as the host has).
#[no_mangle]
pub extern "C" fn td_device_set_threads(dev: u64, threads: u32) -> i32 {
    guard_on(dev, "td_device_set_threads", || {
        let n = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads as usize
        };
        with_device(dev, |d| d.set_threads(n))
    })
}

/// Simulated cycles since the device was created.
#[no_mangle]
pub unsafe extern "C" fn td_device_cycles(dev: u64, cycles_out: *mut u64) -> i32 {
    guard_on(dev, "td_device_cycles", || {
        let now = with_device(dev, |d| Ok(d.now()))?;
        out(cycles_out, now);
        Ok(())
    })
}

/// Opens a launch of `kernel` on `n_cores` cores.
#[no_mangle]
pub unsafe extern "C" fn td_launch_begin(
    dev: u64,
    kernel: *const c_char,
    cores: *const TdCore,
    n_cores: u64,
) -> i32 {
    guard_on(dev, "td_launch_begin", || {
        let name = text(kernel, "kernel")?;
        let cores: Vec<CoreId> = slice(cores, n_cores, "cores")?
            .iter()
            .map(|c| CoreId::new(c.cluster, c.core))
            .collect();
        with_device(dev, |d| d.launch_begin(name, &cores))
    })
}

/// Checks, times and executes the open launch; stores its simulated cycles.
#[no_mangle]
pub unsafe extern "C" fn td_launch_end(dev: u64, cycles_out: *mut u64) -> i32 {
    guard_on(dev, "td_launch_end", || {
        let summary = with_device(dev, |d| d.launch_end())?;
        out(cycles_out, summary.cycles());
        Ok(())
    })
}

fn report_text(dev: u64, format: u32) -> Result<String> {
    let report = with_device(dev, |d| Ok(d.report()))?;
    match format {
        0 => Ok(report.to_json()),
        1 => Ok(report.text(false)),
        2 => Ok(report.text(true)),
        other => Err(RuntimeError::BadArgument(format!(
            "unknown report format {other} (0 json, 1 text, 2 text with every unit)"
        ))),
    }
}

/// Copies the report (format 0 JSON, 1 text summary, 2 text with every unit) into `buf` of `cap`
/// bytes, NUL-terminated, and stores its length (without NUL) in `len_out`. With `buf` NULL, only
/// the length is stored.
#[no_mangle]
pub unsafe extern "C" fn td_report(
    dev: u64,
    format: u32,
    buf: *mut c_char,
    cap: u64,
    len_out: *mut u64,
) -> i32 {
    guard_on(dev, "td_report", || {
        copy_out(&report_text(dev, format)?, buf, cap, len_out)
    })
}

/// Writes the report (format 0 JSON, 1 text summary, 2 text with every unit) to a file.
#[no_mangle]
pub unsafe extern "C" fn td_report_write(dev: u64, format: u32, path: *const c_char) -> i32 {
    guard_on(dev, "td_report_write", || {
        let path = text(path, "path")?;
        let content = report_text(dev, format)?;
        std::fs::write(path, content).map_err(|e| RuntimeError::Io {
            path: path.to_string(),
            message: e.to_string(),
        })
    })
}

/// Waits until every launch has executed; the first fault of their execution, if any.
#[no_mangle]
pub extern "C" fn td_device_synchronize(dev: u64) -> i32 {
    guard_on(dev, "td_device_synchronize", || {
        with_device(dev, |d| d.synchronize())
    })
}

/// Restarts the report's counters and high-water marks.
#[no_mangle]
pub extern "C" fn td_report_reset(dev: u64) -> i32 {
    guard_on(dev, "td_report_reset", || {
        with_device(dev, |d| {
            d.reset_report();
            Ok(())
        })
    })
}

/// Turns the race check of every launch on (nonzero, the default) or off (zero): see
/// [`Device::set_race_check`](crate::Device::set_race_check).
#[no_mangle]
pub extern "C" fn td_device_set_race_check(dev: u64, on: i32) -> i32 {
    guard_on(dev, "td_device_set_race_check", || {
        with_device(dev, |d| {
            d.set_race_check(on != 0);
            Ok(())
        })
    })
}

/// Turns trace recording on (nonzero) or off (zero, dropping recorded events).
#[no_mangle]
pub extern "C" fn td_trace_enable(dev: u64, on: i32) -> i32 {
    guard_on(dev, "td_trace_enable", || {
        with_device(dev, |d| {
            d.set_tracing(on != 0);
            Ok(())
        })
    })
}

/// Writes the recorded trace to a file as Chrome trace-event JSON with one event per run of a
/// layer's instructions on a track (`td_trace_write_format` with format 0).
#[no_mangle]
pub unsafe extern "C" fn td_trace_write(dev: u64, path: *const c_char) -> i32 {
    guard_on(dev, "td_trace_write", || {
        let path = text(path, "path")?;
        with_device(dev, |d| d.write_trace(path, TraceFormat::Layers))
    })
}

/// Writes the recorded trace to a file: format 0, Chrome trace-event JSON per layer; 1, the same
/// per instruction; 2, an SVG timeline.
#[no_mangle]
pub unsafe extern "C" fn td_trace_write_format(dev: u64, format: u32, path: *const c_char) -> i32 {
    guard_on(dev, "td_trace_write_format", || {
        let format = match format {
            0 => TraceFormat::Layers,
            1 => TraceFormat::Instructions,
            2 => TraceFormat::TimelineSvg,
            other => {
                return Err(RuntimeError::BadArgument(format!(
                    "unknown trace format {other} (0 json per layer, 1 json per instruction, \
                     2 svg timeline)"
                )))
            }
        };
        let path = text(path, "path")?;
        with_device(dev, |d| d.write_trace(path, format))
    })
}

/// Every C ABI function with its address, for JIT symbol mapping; the list is also what keeps
/// the functions linked into Rust executables that use them only from generated code.
pub fn symbols() -> Vec<(&'static str, *const ())> {
    vec![
        ("td_last_error", td_last_error as *const ()),
        ("td_device_create", td_device_create as *const ()),
        ("td_device_destroy", td_device_destroy as *const ()),
        ("td_device_take_error", td_device_take_error as *const ()),
        ("td_device_set_threads", td_device_set_threads as *const ()),
        (
            "td_device_set_race_check",
            td_device_set_race_check as *const (),
        ),
        (
            "td_device_set_loop_limit",
            td_device_set_loop_limit as *const (),
        ),
        ("td_device_cycles", td_device_cycles as *const ()),
        ("td_buffer_alloc", td_buffer_alloc as *const ()),
        ("td_buffer_free", td_buffer_free as *const ()),
        ("td_buffer_release", td_buffer_release as *const ()),
        ("td_buffer_write", td_buffer_write as *const ()),
        ("td_buffer_read", td_buffer_read as *const ()),
        ("td_launch_begin", td_launch_begin as *const ()),
        ("td_launch_end", td_launch_end as *const ()),
        ("td_dma", td_dma as *const ()),
        ("td_matmul", td_matmul as *const ()),
        ("td_conv2d", td_conv2d as *const ()),
        ("td_binary", td_binary as *const ()),
        ("td_unary", td_unary as *const ()),
        ("td_pool2d", td_pool2d as *const ()),
        ("td_convert", td_convert as *const ()),
        ("td_gather", td_gather as *const ()),
        ("td_arg_reduce", td_arg_reduce as *const ()),
        ("td_top_k", td_top_k as *const ()),
        ("td_gather_elements", td_gather_elements as *const ()),
        ("td_scatter_elements", td_scatter_elements as *const ()),
        ("td_compare", td_compare as *const ()),
        ("td_select", td_select as *const ()),
        ("td_reduce", td_reduce as *const ()),
        ("td_wait", td_wait as *const ()),
        ("td_barrier", td_barrier as *const ()),
        ("td_layer_name", td_layer_name as *const ()),
        ("td_layer_names", td_layer_names as *const ()),
        ("td_layer", td_layer as *const ()),
        ("td_report", td_report as *const ()),
        ("td_report_write", td_report_write as *const ()),
        ("td_report_reset", td_report_reset as *const ()),
        ("td_device_synchronize", td_device_synchronize as *const ()),
        ("td_persistent_begin", td_persistent_begin as *const ()),
        ("td_persistent_end", td_persistent_end as *const ()),
        ("td_read_scalar", td_read_scalar as *const ()),
        ("td_write_scalar", td_write_scalar as *const ()),
        ("td_loop_check", td_loop_check as *const ()),
        ("td_frame_push", td_frame_push as *const ()),
        ("td_frame_pop", td_frame_pop as *const ()),
        ("td_trace_enable", td_trace_enable as *const ()),
        ("td_trace_write", td_trace_write as *const ()),
        ("td_model_create", td_model_create as *const ()),
        ("td_model_run", td_model_run as *const ()),
        ("td_model_device", td_model_device as *const ()),
        ("td_model_destroy", td_model_destroy as *const ()),
        ("td_trace_write_format", td_trace_write_format as *const ()),
    ]
}
