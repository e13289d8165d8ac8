//! The C ABI's instruction-recording entry points (`td_dma` … `td_barrier`): each checks its
//! operands, builds the [`Instr`] and enqueues it on the named core of the open launch. Split
//! from the device, buffer, launch and report entry points in the parent module.

use super::*;

/// Records a DMA copy from `src` to `dst` (equal shapes).
#[no_mangle]
pub unsafe extern "C" fn td_dma(
    dev: u64,
    cluster: u32,
    core: u32,
    src: *const TdView,
    dst: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    enqueue(
        "td_dma",
        dev,
        CoreId::new(cluster, core),
        || {
            Ok(Instr::Dma {
                src: view(src, "src")?,
                dst: view(dst, "dst")?,
            })
        },
        waits,
        n_waits,
        token_out,
    )
}

/// Records `c (+)= a · b` on the matrix engine.
#[no_mangle]
pub unsafe extern "C" fn td_matmul(
    dev: u64,
    cluster: u32,
    core: u32,
    a: *const TdView,
    b: *const TdView,
    c: *const TdView,
    accumulate: i32,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Matmul {
            a: view(a, "a")?,
            b: view(b, "b")?,
            c: view(c, "c")?,
            accumulate: flag(accumulate),
        })
    };
    enqueue(
        "td_matmul",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records a convolution tile on the matrix engine.
#[no_mangle]
pub unsafe extern "C" fn td_conv2d(
    dev: u64,
    cluster: u32,
    core: u32,
    input: *const TdView,
    filter: *const TdView,
    output: *const TdView,
    params: *const TdConv2dParams,
    accumulate: i32,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        let p = reference(params, "params")?;
        Ok(Instr::Conv2d {
            input: view(input, "input")?,
            filter: view(filter, "filter")?,
            output: view(output, "output")?,
            params: Conv2dParams {
                stride: p.stride,
                pad: p.pad,
                dilation: p.dilation,
                groups: p.groups,
            },
            accumulate: flag(accumulate),
        })
    };
    enqueue(
        "td_conv2d",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

pub(super) fn binary_op(code: u32) -> Result<BinaryOp> {
    use BinaryOp::*;
    [Add, Sub, Mul, Div, Max, Min, Pow, Fmod, Mod]
        .get(code as usize)
        .copied()
        .ok_or_else(|| RuntimeError::BadArgument(format!("unknown binary op code {code} (0..=8)")))
}

fn unary_op(code: u32, p0: f32, p1: f32) -> Result<UnaryOp> {
    use UnaryOp::*;
    Ok(match code {
        0 => Relu,
        1 => Sigmoid,
        2 => Tanh,
        3 => Exp,
        4 => Log,
        5 => Sqrt,
        6 => Rsqrt,
        7 => Erf,
        8 => Gelu,
        9 => Silu,
        10 => Neg,
        11 => Reciprocal,
        12 => Clip { min: p0, max: p1 },
        13 => Affine {
            scale: p0,
            shift: p1,
        },
        14 => Abs,
        15 => GeluTanh,
        other => {
            return Err(RuntimeError::BadArgument(format!(
                "unknown unary op code {other} (0..=15)"
            )))
        }
    })
}

/// Records `out = a op b` (broadcasting) on the vector engine.
#[no_mangle]
pub unsafe extern "C" fn td_binary(
    dev: u64,
    cluster: u32,
    core: u32,
    op: u32,
    a: *const TdView,
    b: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Binary {
            op: binary_op(op)?,
            a: view(a, "a")?,
            b: view(b, "b")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_binary",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records `out = op(input)`; `p0`, `p1` are clip's min/max or affine's scale/shift.
#[no_mangle]
pub unsafe extern "C" fn td_unary(
    dev: u64,
    cluster: u32,
    core: u32,
    op: u32,
    p0: f32,
    p1: f32,
    input: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Unary {
            op: unary_op(op, p0, p1)?,
            input: view(input, "input")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_unary",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records 2-D pooling on the vector core.
#[no_mangle]
pub unsafe extern "C" fn td_pool2d(
    dev: u64,
    cluster: u32,
    core: u32,
    params: *const TdPool2dParams,
    input: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        let p = reference(params, "params")?;
        let kind = match p.kind {
            0 => PoolKind::Max,
            1 => PoolKind::Avg,
            other => {
                return Err(RuntimeError::BadArgument(format!(
                    "unknown pool kind {other} (0 max, 1 avg)"
                )))
            }
        };
        Ok(Instr::Pool2d {
            kind,
            input: view(input, "input")?,
            out: view(out_view, "out")?,
            params: Pool2dParams {
                kernel: p.kernel,
                stride: p.stride,
                pad: p.pad,
                count_include_pad: p.count_include_pad != 0,
            },
        })
    };
    enqueue(
        "td_pool2d",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records a reduction along `axis` (keepdims) on the vector core.
#[no_mangle]
pub unsafe extern "C" fn td_reduce(
    dev: u64,
    cluster: u32,
    core: u32,
    kind: u32,
    axis: u32,
    input: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        let kind = match kind {
            0 => ReduceKind::Sum,
            1 => ReduceKind::Mean,
            2 => ReduceKind::Max,
            3 => ReduceKind::Min,
            4 => ReduceKind::Prod,
            other => {
                return Err(RuntimeError::BadArgument(format!(
                    "unknown reduce kind {other} (0..=4)"
                )))
            }
        };
        Ok(Instr::Reduce {
            kind,
            axis: axis as usize,
            input: view(input, "input")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_reduce",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records a wait: later instructions of the core start after the tokens are ready.
#[no_mangle]
pub unsafe extern "C" fn td_wait(
    dev: u64,
    cluster: u32,
    core: u32,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    enqueue(
        "td_wait",
        dev,
        CoreId::new(cluster, core),
        || Ok(Instr::Wait),
        waits,
        n_waits,
        token_out,
    )
}

/// Records this core's arrival at the next barrier of the launch.
#[no_mangle]
pub unsafe extern "C" fn td_barrier(dev: u64, cluster: u32, core: u32, token_out: *mut u64) -> i32 {
    enqueue(
        "td_barrier",
        dev,
        CoreId::new(cluster, core),
        || Ok(Instr::Barrier),
        std::ptr::null(),
        0,
        token_out,
    )
}

/// Names layer `layer` for the report: the instructions a core records after
/// `td_layer(…, layer)` are attributed to it.
#[no_mangle]
pub unsafe extern "C" fn td_layer_name(dev: u64, layer: u32, name: *const c_char) -> i32 {
    guard_on(dev, "td_layer_name", || {
        let name = text(name, "name")?;
        with_device(dev, |d| {
            d.name_layer(layer, name);
            Ok(())
        })
    })
}

/// Names layers `0..count` for the report from `names`: `count` NUL-terminated names back to
/// back, layer `i`'s the `i`-th, so that a program names all of its layers with one call.
#[no_mangle]
pub unsafe extern "C" fn td_layer_names(dev: u64, count: u32, names: *const c_char) -> i32 {
    guard_on(dev, "td_layer_names", || {
        let mut next = names;
        let mut texts = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let name = text(next, "names")?;
            next = next.add(name.len() + 1);
            texts.push(name);
        }
        with_device(dev, |d| {
            for (layer, name) in (0..count).zip(texts) {
                d.name_layer(layer, name);
            }
            Ok(())
        })
    })
}

/// Attributes the instructions the core records next in the open launch to layer `layer`
/// (`UINT32_MAX`: to none), so that the report can say what each layer of the model cost.
#[no_mangle]
pub unsafe extern "C" fn td_layer(dev: u64, cluster: u32, core: u32, layer: u32) -> i32 {
    guard_on(dev, "td_layer", || {
        with_device(dev, |d| d.set_layer(CoreId::new(cluster, core), layer))
    })
}

/// Records `out = input` converted to `out`'s element type, on the vector engine.
#[no_mangle]
pub unsafe extern "C" fn td_convert(
    dev: u64,
    cluster: u32,
    core: u32,
    input: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Convert {
            input: view(input, "input")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_convert",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

fn compare_predicate(code: u32) -> Result<ComparePredicate> {
    use ComparePredicate::*;
    [Eq, Ne, Lt, Le, Gt, Ge]
        .get(code as usize)
        .copied()
        .ok_or_else(|| {
            RuntimeError::BadArgument(format!("unknown compare predicate code {code} (0..=5)"))
        })
}

/// Records `out = a predicate b` (booleans) on the vector engine.
#[no_mangle]
pub unsafe extern "C" fn td_compare(
    dev: u64,
    cluster: u32,
    core: u32,
    predicate: u32,
    a: *const TdView,
    b: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Compare {
            predicate: compare_predicate(predicate)?,
            a: view(a, "a")?,
            b: view(b, "b")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_compare",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records `out = cond ? a : b` on the vector engine.
#[no_mangle]
pub unsafe extern "C" fn td_select(
    dev: u64,
    cluster: u32,
    core: u32,
    cond: *const TdView,
    a: *const TdView,
    b: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::Select {
            cond: view(cond, "cond")?,
            a: view(a, "a")?,
            b: view(b, "b")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_select",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}

/// Records the index of each line's largest (`largest` non-zero) or smallest element along
/// `axis` of `input` (f32) into `out` (i64), the last of equals with `last` non-zero, on the
/// vector core.
#[no_mangle]
pub unsafe extern "C" fn td_arg_reduce(
    dev: u64,
    cluster: u32,
    core: u32,
    largest: i32,
    last: i32,
    axis: u32,
    input: *const TdView,
    out_view: *const TdView,
    waits: *const u64,
    n_waits: u64,
    token_out: *mut u64,
) -> i32 {
    let instr = || {
        Ok(Instr::ArgReduce {
            largest: flag(largest),
            last: flag(last),
            axis: axis as usize,
            input: view(input, "input")?,
            out: view(out_view, "out")?,
        })
    };
    enqueue(
        "td_arg_reduce",
        dev,
        CoreId::new(cluster, core),
        instr,
        waits,
        n_waits,
        token_out,
    )
}
