//! The C ABI's entry points for the instructions whose indices are data: gathers of slices and
//! of elements, and scatters of elements.

use super::*;

/// Records a DMA gather of `table` slices along `axis`, selected by `indices`, into `out`.
#[no_mangle]
pub unsafe extern "C" fn td_gather(
    dev: u64,
    cluster: u32,
    core: u32,
    axis: u32,
    table: *const TdView,
    indices: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Gather {
            axis: axis as usize,
            table: view(table, "table")?,
            indices: view(indices, "indices")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_gather",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records a DMA gather of single `data` elements along `axis`, selected by `indices`, into
/// `out`.
#[no_mangle]
pub unsafe extern "C" fn td_gather_elements(
    dev: u64,
    cluster: u32,
    core: u32,
    axis: u32,
    data: *const TdView,
    indices: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::GatherElements {
            axis: axis as usize,
            data: view(data, "data")?,
            indices: view(indices, "indices")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_gather_elements",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records a DMA scatter of single `updates` elements along `axis` into `out` at `indices`,
/// replacing the elements they land on (`reduction` 0) or combined with them by the binary op
/// of code `reduction - 1` (add, mul, max or min).
#[no_mangle]
pub unsafe extern "C" fn td_scatter_elements(
    dev: u64,
    cluster: u32,
    core: u32,
    axis: u32,
    reduction: u32,
    indices: *const TdView,
    updates: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        let reduction = match reduction {
            0 => None,
            code => match binary_op(code - 1)? {
                op @ (BinaryOp::Add | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min) => Some(op),
                op => {
                    return Err(RuntimeError::BadArgument(format!(
                        "a scatter reduces by add, mul, max or min, not {}",
                        op.name()
                    )))
                }
            },
        };
        Ok(Instr::ScatterElements {
            axis: axis as usize,
            reduction,
            indices: view(indices, "indices")?,
            updates: view(updates, "updates")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_scatter_elements",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}
