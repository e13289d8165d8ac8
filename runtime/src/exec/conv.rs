//! The matrix engine's convolution tile: im2col into a scratch matrix, then one GEMM per
//! (image, group) with the `gemm` crate. A 1x1, stride-1, unpadded convolution skips im2col
//! (the input already is the column matrix).
//!
//! A tiled convolution unfolds the same input tile for each of its filter tiles (output
//! channels split across instructions), loading it again each time when the LB holds one input
//! tile at a time. Each host thread keeps its last few im2col matrices with copies of the
//! inputs they were built from, and reuses one when a tile's input has the same shapes,
//! parameters and values (compared bit for bit, so the matrix and the result are the same
//! either way): comparing reads the input once where unfolding writes it kh*kw times.

use super::locks::Locked;
use super::matmul::product;
use super::with_scratch;
use crate::ids::BufferId;
use crate::instr::Conv2dParams;
use crate::memory::Buffer;
use crate::view::View;
use std::cell::RefCell;

/// Largest im2col scratch, in elements (16 MiB): bigger tiles are done a band of output rows
/// at a time, so host memory stays bounded whatever the tile.
const COL_LIMIT: usize = 1 << 22;

/// Whole im2col matrices (one image, one group, one band of rows) kept per host thread, and
/// the most elements they and their inputs may hold together.
const KEPT: usize = 8;
const KEPT_ELEMENTS: usize = 1 << 21;

/// What an im2col matrix is built from besides the input's values: the shapes of the input
/// and filter, the output's spatial size and the convolution's parameters.
#[derive(Clone, Copy, PartialEq)]
struct ColumnsKey {
    input: [usize; 4],
    filter: [usize; 4],
    out: [usize; 2],
    params: Conv2dParams,
}

/// An im2col matrix, its key and the input values it unfolds.
struct Unfolded {
    key: ColumnsKey,
    input: Vec<f32>,
    matrix: Vec<f32>,
}

thread_local! {
    /// This host thread's kept matrices, the most recently used first.
    static UNFOLDED: RefCell<Vec<Unfolded>> = const { RefCell::new(Vec::new()) };
}

/// `output (+)= conv2d(input, filter)`; shapes and bounds were checked by the device, and that
/// the output overlaps neither input. Operands are used in place where their views are dense
/// (tiles usually are), else gathered into scratch; the output likewise, scattered afterwards.
pub(super) fn run<'a>(
    input: &View,
    filter: &View,
    output: &View,
    p: &Conv2dParams,
    accumulate: bool,
    get: &dyn Fn(BufferId) -> &'a Buffer,
) {
    let shapes = [dims(&input.shape), dims(&filter.shape), dims(&output.shape)];
    let mut locked = Locked::new(&[input.buffer, filter.buffer], output.buffer, get);
    let key = ColumnsKey {
        input: shapes[0],
        filter: shapes[1],
        out: [shapes[2][2], shapes[2][3]],
        params: *p,
    };
    let out_base = locked.writer();
    let operand = |view: &View, scratch: &mut Vec<f32>| -> *const f32 {
        let base = locked.reader(view.buffer);
        match view.dense_range() {
            // SAFETY: the device checked that the view lies inside its buffer.
            Some(range) => unsafe { base.add(range.start) },
            None => {
                // SAFETY: the buffer is locked and `len` elements long.
                let data =
                    unsafe { std::slice::from_raw_parts(base, get(view.buffer).len as usize) };
                view.gather_into(data, scratch);
                scratch.as_ptr()
            }
        }
    };
    with_scratch(|x_scratch| {
        with_scratch(|w_scratch| {
            let x_ptr = operand(input, x_scratch);
            let w_ptr = operand(filter, w_scratch);
            // SAFETY: each pointer addresses `len()` elements of its view, inside a locked buffer
            // or a scratch vector; the output's elements overlap neither input's (checked by the
            // device), so the one mutable slice aliases no shared one.
            let (x, w) = unsafe {
                (
                    std::slice::from_raw_parts(x_ptr, input.len() as usize),
                    std::slice::from_raw_parts(w_ptr, filter.len() as usize),
                )
            };
            match output.dense_range() {
                Some(range) => {
                    // SAFETY: as above, for the output's dense range of the written buffer.
                    let y = unsafe {
                        std::slice::from_raw_parts_mut(out_base.add(range.start), range.len())
                    };
                    dense(x, w, y, shapes, p, accumulate, (COL_LIMIT, Some(key)));
                }
                None => with_scratch(|y| {
                    let len = get(output.buffer).len as usize;
                    if accumulate {
                        // SAFETY: the written buffer is locked and `len` elements long.
                        let data = unsafe { std::slice::from_raw_parts(out_base, len) };
                        output.gather_into(data, y);
                    } else {
                        y.clear();
                        y.resize(output.len() as usize, 0.0);
                    }
                    dense(x, w, y, shapes, p, accumulate, (COL_LIMIT, Some(key)));
                    // SAFETY: as above; the inputs are no longer read.
                    let data = unsafe { std::slice::from_raw_parts_mut(out_base, len) };
                    output.scatter(data, y);
                }),
            }
        })
    });
}

/// The convolution on dense NCHW / OIHW / NCHW arrays, with at most `col_limit` elements of
/// im2col scratch (one output row at least); an im2col matrix that is the whole convolution's
/// is kept with `key` and `x`, and one kept with the same is reused.
fn dense(
    x: &[f32],
    w: &[f32],
    y: &mut [f32],
    [[n, c, h, wd], [o, cg, kh, kw], [_, _, oh, ow]]: [[usize; 4]; 3],
    p: &Conv2dParams,
    accumulate: bool,
    (col_limit, key): (usize, Option<ColumnsKey>),
) {
    let g = p.groups as usize;
    let og = o / g;
    let taps = cg * kh * kw;
    let pixels = oh * ow;
    let pointwise = kh == 1 && kw == 1 && p.stride == [1, 1] && p.pad == [0; 4];
    // Output rows per GEMM: all of them for a pointwise convolution (no scratch), else as many
    // as keep the im2col scratch under `col_limit` elements.
    let rows = if pointwise {
        oh
    } else {
        (col_limit / (taps * ow).max(1)).clamp(1, oh)
    };
    let whole = !pointwise && n == 1 && g == 1 && rows == oh;
    let key = key.filter(|_| whole);
    // The im2col matrix in per-thread memory (im2col writes every element it reads): a fresh
    // zeroed vector per tile would be a visible part of the host time.
    with_columns(key, x, |col, built| {
        if !pointwise && col.len() < taps * rows * ow {
            col.resize(taps * rows * ow, 0.0);
        }
        for img in 0..n {
            for grp in 0..g {
                let channels = &x[(img * c + grp * cg) * h * wd..][..cg * h * wd];
                let lhs = &w[grp * og * taps..][..og * taps];
                let dst = &mut y[(img * o + grp * og) * pixels..][..og * pixels];
                for y0 in (0..oh).step_by(rows) {
                    let y1 = (y0 + rows).min(oh);
                    let chunk = (y1 - y0) * ow;
                    let (rhs, rhs_rs): (&[f32], usize) = if pointwise {
                        (channels, h * wd)
                    } else if built {
                        (&col[..taps * chunk], chunk)
                    } else {
                        im2col(
                            channels,
                            [cg, h, wd],
                            [kh, kw],
                            [y0, y1, ow],
                            p,
                            &mut col[..taps * chunk],
                        );
                        (&col[..taps * chunk], chunk)
                    };
                    // SAFETY: lhs is og x taps (row stride taps); rhs is taps x chunk with row
                    // stride rhs_rs, inside its slice (pointwise: chunk == pixels == h*w); dst is
                    // og rows of `pixels` elements of which columns [y0*ow, y0*ow + chunk) are
                    // written, inside the og*pixels slice. The three live in distinct vectors.
                    unsafe {
                        product(
                            [og, chunk, taps],
                            (dst.as_mut_ptr().add(y0 * ow), pixels as isize, 1),
                            accumulate,
                            (lhs.as_ptr(), taps as isize, 1),
                            (rhs.as_ptr(), rhs_rs as isize, 1),
                        );
                    }
                }
            }
        }
    });
}

/// Runs `f` with im2col memory and whether it already holds the matrix of `key` and input
/// `x` (a kept one); what `f` leaves in it is kept as that matrix. Without a key, `f` gets
/// scratch memory and nothing is kept.
fn with_columns<T>(
    key: Option<ColumnsKey>,
    x: &[f32],
    f: impl FnOnce(&mut Vec<f32>, bool) -> T,
) -> T {
    let Some(key) = key else {
        return with_scratch(|col| f(col, false));
    };
    // Taken out of the thread's list while `f` runs, so that a panic leaves nothing stale.
    let (mut unfolded, built) = UNFOLDED.with(|cell| {
        let mut kept = cell.borrow_mut();
        match kept
            .iter()
            .position(|u| u.key == key && bits(&u.input) == bits(x))
        {
            Some(i) => (kept.remove(i), true),
            None => {
                let mut reused =
                    if kept.len() >= KEPT { kept.pop() } else { None }.unwrap_or(Unfolded {
                        key,
                        input: Vec::new(),
                        matrix: Vec::new(),
                    });
                reused.key = key;
                reused.input.clear();
                reused.input.extend_from_slice(x);
                (reused, false)
            }
        }
    });
    let result = f(&mut unfolded.matrix, built);
    UNFOLDED.with(|cell| {
        let mut kept = cell.borrow_mut();
        kept.insert(0, unfolded);
        let mut total = 0;
        kept.retain(|u| {
            total += u.input.len() + u.matrix.len();
            total <= KEPT_ELEMENTS
        });
    });
    result
}

/// The bytes of `values`: equal bytes are equal values, NaNs and signed zeros included.
fn bits(values: &[f32]) -> &[u8] {
    // SAFETY: an initialised f32 is 4 initialised bytes, u8 has no alignment requirement, and
    // the result borrows `values` for its lifetime.
    unsafe {
        std::slice::from_raw_parts(values.as_ptr().cast::<u8>(), std::mem::size_of_val(values))
    }
}

fn dims(shape: &[u64]) -> [usize; 4] {
    [
        shape[0] as usize,
        shape[1] as usize,
        shape[2] as usize,
        shape[3] as usize,
    ]
}

/// Fills `col` (`[cg*kh*kw, (y1-y0)*ow]`, row-major) with the input taps of output rows
/// `y0..y1`, zero where a tap falls in the padding.
fn im2col(
    x: &[f32],
    [cg, h, w]: [usize; 3],
    [kh, kw]: [usize; 2],
    [y0, y1, ow]: [usize; 3],
    p: &Conv2dParams,
    col: &mut [f32],
) {
    let (sh, sw) = (p.stride[0] as usize, p.stride[1] as usize);
    let (dh, dw) = (p.dilation[0] as usize, p.dilation[1] as usize);
    let (pt, pl) = (p.pad[0] as usize, p.pad[1] as usize);
    let width = (y1 - y0) * ow;
    let mut row = 0;
    for ch in 0..cg {
        for i in 0..kh {
            for j in 0..kw {
                let out = &mut col[row * width..][..width];
                for (y, line) in (y0..y1).zip(out.chunks_exact_mut(ow)) {
                    let hy = (y * sh + i * dh).wrapping_sub(pt);
                    if hy >= h {
                        line.fill(0.0);
                        continue;
                    }
                    let src = &x[(ch * h + hy) * w..][..w];
                    // Output columns whose tap falls inside the row: wx = xo*sw + j*dw - pl in
                    // [0, w); the rest read padding.
                    let shift = j * dw;
                    let lo = pl.saturating_sub(shift).div_ceil(sw).min(ow);
                    let hi = (w + pl).saturating_sub(shift).div_ceil(sw).clamp(lo, ow);
                    line[..lo].fill(0.0);
                    line[hi..].fill(0.0);
                    if lo == hi {
                        continue;
                    }
                    let first = lo * sw + shift - pl;
                    if sw == 1 {
                        line[lo..hi].copy_from_slice(&src[first..first + (hi - lo)]);
                    } else {
                        for (v, &value) in
                            line[lo..hi].iter_mut().zip(src[first..].iter().step_by(sw))
                        {
                            *v = value;
                        }
                    }
                }
                row += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn im2col_matches_a_tap_by_tap_copy() {
        // Strides, dilations and pads that leave whole rows and columns in the padding.
        for (sw, dw, pl, pr, w, kw) in [
            (1, 1, 1, 1, 5, 3),
            (2, 1, 3, 0, 4, 3),
            (3, 2, 4, 5, 6, 3),
            (1, 3, 0, 2, 2, 2),
            (2, 2, 6, 6, 3, 4),
        ] {
            let p = Conv2dParams {
                stride: [1, sw as u64],
                pad: [1, pl as u64, 0, pr as u64],
                dilation: [1, dw as u64],
                groups: 1,
            };
            let (cg, h, kh) = (2, 3, 2);
            let ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
            let oh = h + 1 - kh + 1;
            let x: Vec<f32> = (0..cg * h * w).map(|i| i as f32 + 1.0).collect();
            let mut col = vec![-1.0; cg * kh * kw * oh * ow];
            im2col(&x, [cg, h, w], [kh, kw], [0, oh, ow], &p, &mut col);
            let mut expected = Vec::new();
            for ch in 0..cg {
                for i in 0..kh {
                    for j in 0..kw {
                        for y in 0..oh {
                            for xo in 0..ow {
                                let hy = (y + i) as isize - 1;
                                let wx = (xo * sw + j * dw) as isize - pl as isize;
                                let inside =
                                    (0..h as isize).contains(&hy) && (0..w as isize).contains(&wx);
                                expected.push(if inside {
                                    x[(ch * h + hy as usize) * w + wx as usize]
                                } else {
                                    0.0
                                });
                            }
                        }
                    }
                }
            }
            assert_eq!(
                col, expected,
                "stride {sw}, dilation {dw}, pads {pl}/{pr}, w {w}, kw {kw}"
            );
        }
    }

    #[test]
    fn a_kept_im2col_matrix_is_reused_only_for_the_same_input_values() {
        let p = Conv2dParams {
            stride: [1, 1],
            pad: [1, 1, 1, 1],
            dilation: [1, 1],
            groups: 1,
        };
        let shapes = [[1, 2, 4, 4], [3, 2, 3, 3], [1, 3, 4, 4]];
        let key = ColumnsKey {
            input: shapes[0],
            filter: shapes[1],
            out: [4, 4],
            params: p,
        };
        let conv = |x: &[f32], w: &[f32], key: Option<ColumnsKey>| {
            let mut y = vec![0.0; 48];
            dense(x, w, &mut y, shapes, &p, false, (usize::MAX, key));
            y
        };
        let x: Vec<f32> = (0..32).map(|i| (i % 7) as f32 - 3.0).collect();
        let w1: Vec<f32> = (0..54).map(|i| (i % 5) as f32 - 2.0).collect();
        let w2: Vec<f32> = w1.iter().map(|v| v * 0.5 + 1.0).collect();
        assert_eq!(conv(&x, &w1, Some(key)), conv(&x, &w1, None));
        // The same input again (another filter tile): the kept matrix serves.
        assert_eq!(conv(&x, &w2, Some(key)), conv(&x, &w2, None));
        // Another value anywhere: unfolded again, not served the kept matrix.
        let mut changed = x.clone();
        changed[21] = 9.0;
        assert_ne!(conv(&changed, &w2, None), conv(&x, &w2, None));
        assert_eq!(conv(&changed, &w2, Some(key)), conv(&changed, &w2, None));
        assert_eq!(conv(&x, &w2, Some(key)), conv(&x, &w2, None));
    }

    #[test]
    fn banded_im2col_gives_the_same_result_as_one_band() {
        // 1x3x7x6 input, 4x3x3x3 filter, stride 2, asymmetric pads: output 1x4x4x3.
        let p = Conv2dParams {
            stride: [2, 2],
            pad: [1, 0, 2, 1],
            dilation: [1, 1],
            groups: 1,
        };
        let x: Vec<f32> = (0..3 * 7 * 6).map(|i| (i % 11) as f32 - 5.0).collect();
        let w: Vec<f32> = (0..4 * 3 * 9).map(|i| (i % 7) as f32 - 3.0).collect();
        let shapes = [[1, 3, 7, 6], [4, 3, 3, 3], [1, 4, 4, 3]];
        let mut whole = vec![1.0; 48];
        let mut banded = vec![1.0; 48];
        dense(&x, &w, &mut whole, shapes, &p, true, (usize::MAX, None));
        dense(&x, &w, &mut banded, shapes, &p, true, (1, None));
        assert_eq!(whole, banded);
        assert!(whole.iter().any(|&v| v != 1.0));
    }
}
