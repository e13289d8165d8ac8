//! The vector core's windowed and cross-element work: 2-D pooling and reductions along one
//! axis, on dense scratch copies of the operands. Accumulation order is fixed (row-major over
//! the window or axis), so results are bit-identical from run to run.

use super::vector::{nan_max, nan_min};
use super::{read, write};
use crate::ids::BufferId;
use crate::instr::{Pool2dParams, PoolKind, ReduceKind};
use crate::memory::Buffer;
use crate::view::View;

/// 2-D pooling of `[N,C,H,W]` into `[N,C,OH,OW]`.
pub(super) fn pool2d<'a>(
    kind: PoolKind,
    input: &View,
    out: &View,
    p: &Pool2dParams,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let x = input.gather(&read(get(input.buffer)));
    let s: Vec<usize> = input.shape.iter().map(|&e| e as usize).collect();
    let (h, w) = (s[2], s[3]);
    let (oh, ow) = (out.shape[2] as usize, out.shape[3] as usize);
    let [kh, kw] = p.kernel.map(|k| k as usize);
    let [sh, sw] = p.stride.map(|k| k as usize);
    let (pt, pl) = (p.pad[0] as usize, p.pad[1] as usize);
    let mut y = Vec::with_capacity(out.len() as usize);
    for plane in x.chunks_exact(h * w) {
        for oy in 0..oh {
            for ox in 0..ow {
                let mut acc = match kind {
                    PoolKind::Max => f32::NEG_INFINITY,
                    PoolKind::Avg => 0.0,
                };
                let mut count = 0usize;
                for i in 0..kh {
                    let hy = (oy * sh + i).wrapping_sub(pt);
                    if hy >= h {
                        continue;
                    }
                    for j in 0..kw {
                        let wx = (ox * sw + j).wrapping_sub(pl);
                        if wx >= w {
                            continue;
                        }
                        let v = plane[hy * w + wx];
                        acc = match kind {
                            PoolKind::Max => nan_max(acc, v),
                            PoolKind::Avg => acc + v,
                        };
                        count += 1;
                    }
                }
                y.push(match kind {
                    PoolKind::Max => acc,
                    PoolKind::Avg if p.count_include_pad => acc / (kh * kw) as f32,
                    PoolKind::Avg => acc / count as f32,
                });
            }
        }
    }
    out.scatter(&mut write(get(out.buffer)), &y);
}

/// Reduction of `input` along `axis` into `out` (keepdims).
pub(super) fn reduce<'a>(
    kind: ReduceKind,
    axis: usize,
    input: &View,
    out: &View,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let x = input.gather(&read(get(input.buffer)));
    let len = input.shape[axis] as usize;
    let inner: usize = input.shape[axis + 1..].iter().product::<u64>() as usize;
    let outer = x.len() / (len * inner);
    let mut y = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            let values = (0..len).map(|k| x[(o * len + k) * inner + i]);
            y.push(match kind {
                ReduceKind::Sum => values.sum(),
                ReduceKind::Mean => values.sum::<f32>() / len as f32,
                ReduceKind::Max => values.fold(f32::NEG_INFINITY, nan_max),
                ReduceKind::Min => values.fold(f32::INFINITY, nan_min),
                ReduceKind::Prod => values.product(),
            });
        }
    }
    out.scatter(&mut write(get(out.buffer)), &y);
}
