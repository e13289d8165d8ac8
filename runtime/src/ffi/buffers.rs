//! The C ABI's buffer entry points (`td_buffer_alloc` … `td_buffer_read`): allocation at a
//! level and owner with an element type, freeing, and the host's access to DDR buffers in whole
//! elements. Split from the device, launch and report entry points in the parent module.

use super::*;

/// Allocates a buffer at `level` (0 lb, 1 gb, 2 ddr) owned by `cluster`/`core` (core ignored
/// for gb, both ignored for ddr), of `bytes` bytes of `dtype` elements (`TD_DTYPE_*`).
#[no_mangle]
pub unsafe extern "C" fn td_buffer_alloc(
    dev: u64,
    level: u32,
    cluster: u32,
    core: u32,
    bytes: u64,
    dtype: u32,
    buffer_out: *mut u64,
) -> i32 {
    guard_on(dev, "td_buffer_alloc", || {
        let dtype = ElementType::from_code(dtype).ok_or_else(|| {
            RuntimeError::BadArgument(format!(
                "unknown dtype code {dtype} \
                 (0 f32, 1 i64, 2 i32, 3 i8, 4 u8, 5 bool, 6 f16, 7 bf16)"
            ))
        })?;
        let placement = match level {
            0 => Placement::Lb(CoreId::new(cluster, core)),
            1 => Placement::Gb(cluster),
            2 => Placement::Ddr,
            other => {
                return Err(RuntimeError::BadArgument(format!(
                    "unknown memory level code {other} (0 lb, 1 gb, 2 ddr)"
                )))
            }
        };
        if buffer_out.is_null() {
            return Err(RuntimeError::BadArgument("buffer_out is NULL".into()));
        }
        let id = with_device(dev, |d| d.alloc_typed(placement, bytes, dtype))?;
        out(buffer_out, id.0);
        Ok(())
    })
}

/// Frees a buffer.
#[no_mangle]
pub extern "C" fn td_buffer_free(dev: u64, buffer: u64) -> i32 {
    guard_on(dev, "td_buffer_free", || {
        with_device(dev, |d| d.free(BufferId(buffer)))
    })
}

/// Frees a buffer now, or when the open launch ends if that launch uses it.
#[no_mangle]
pub extern "C" fn td_buffer_release(dev: u64, buffer: u64) -> i32 {
    guard_on(dev, "td_buffer_release", || {
        with_device(dev, |d| d.release(BufferId(buffer)))
    })
}

/// The element type of `buffer` and the element range of `bytes` bytes at `byte_offset`,
/// which must be whole elements.
fn element_range(
    d: &Device,
    buffer: BufferId,
    byte_offset: u64,
    bytes: u64,
) -> Result<(ElementType, u64, u64)> {
    let dtype = d.dtype(buffer)?;
    let size = dtype.bytes();
    if !byte_offset.is_multiple_of(size) || !bytes.is_multiple_of(size) {
        return Err(RuntimeError::BadArgument(format!(
            "byte offset {byte_offset} and size {bytes} must be multiples of {size} \
             (whole {dtype} elements of {buffer})"
        )));
    }
    Ok((dtype, byte_offset / size, bytes / size))
}

/// Host write of `bytes` bytes from `src` into a DDR buffer at `byte_offset` (whole elements).
#[no_mangle]
pub unsafe extern "C" fn td_buffer_write(
    dev: u64,
    buffer: u64,
    byte_offset: u64,
    src: *const c_void,
    bytes: u64,
) -> i32 {
    guard_on(dev, "td_buffer_write", || {
        let raw = slice(src as *const u8, bytes, "src")?;
        with_device(dev, |d| {
            let buffer = BufferId(buffer);
            let (dtype, offset, _) = element_range(d, buffer, byte_offset, bytes)?;
            d.write_elements(buffer, dtype, offset, raw)
        })
    })
}

/// Host read of `bytes` bytes of a DDR buffer at `byte_offset` (whole elements) into `dst`.
#[no_mangle]
pub unsafe extern "C" fn td_buffer_read(
    dev: u64,
    buffer: u64,
    byte_offset: u64,
    dst: *mut c_void,
    bytes: u64,
) -> i32 {
    guard_on(dev, "td_buffer_read", || {
        if dst.is_null() && bytes > 0 {
            return Err(RuntimeError::BadArgument("dst is NULL".into()));
        }
        let raw = with_device(dev, |d| {
            let buffer = BufferId(buffer);
            let (dtype, offset, len) = element_range(d, buffer, byte_offset, bytes)?;
            d.read_elements(buffer, dtype, offset, len)
        })?;
        std::ptr::copy_nonoverlapping(raw.as_ptr(), dst as *mut u8, raw.len());
        Ok(())
    })
}
