//! The C ABI's entry point of the top-k instruction, beside the others of `instructions.rs`.

use super::*;

/// Records the `k` largest (`largest` non-zero) or smallest elements of each line of `input`
/// (f32) along `axis`, in order, into `values` (f32) and their indices into `indices` (i64), `k`
/// being their extent at `axis`, on the vector core.
#[no_mangle]
pub unsafe extern "C" fn td_top_k(
    dev: u64,
    cluster: u32,
    core: u32,
    largest: i32,
    axis: u32,
    input: *const TdView,
    values: *const TdView,
    indices: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::TopK {
            largest: flag(largest),
            axis: axis as usize,
            input: view(input, "input")?,
            values: view(values, "values")?,
            indices: view(indices, "indices")?,
        })
    };
    enqueue(
        "td_top_k",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}
