//! Linear quantization (ONNX QuantizeLinear, DequantizeLinear, and the requantization that ends
//! QLinearMatMul and QLinearConv): rounding to nearest with ties to even, saturation to the
//! integer type's range, scales and zero points per tensor or per axis.

/// Which scale and zero point an element uses: the only one (per tensor), or the one of its
/// index along the quantization axis (per axis).
#[derive(Debug, Clone, Copy)]
pub struct Parameters {
    /// The number of scales: 1 per tensor, the axis' size per axis.
    pub count: usize,
    /// The elements after the axis (the product of the later dimensions).
    pub inner: usize,
}

impl Parameters {
    /// The parameters of a tensor of `shape` quantized along `axis` with `count` scales.
    pub fn new(shape: &[usize], axis: usize, count: usize) -> Parameters {
        let inner = if count > 1 {
            shape[axis + 1..].iter().product()
        } else {
            1
        };
        Parameters { count, inner }
    }

    /// The parameter index of the element at flat (row-major) index `at`.
    pub fn of(self, at: usize) -> usize {
        if self.count > 1 {
            (at / self.inner) % self.count
        } else {
            0
        }
    }
}

/// `value` (an integer already) plus `zero_point`, saturated to `[low, high]`.
fn saturate(value: f64, zero_point: i64, (low, high): (i64, i64)) -> i64 {
    (value + zero_point as f64).clamp(low as f64, high as f64) as i64
}

/// `saturate(round(x / scale) + zero_point)`: the quotient in the input's float type (`narrow`
/// rounds it to f16 or bf16 where the input is of such a type), rounded to nearest with ties to
/// even.
pub fn quantize(
    x: &[f32],
    (scale, zero_point): (&[f32], &[i64]),
    parameters: Parameters,
    narrow: impl Fn(f32) -> f32,
    range: (i64, i64),
) -> Vec<i64> {
    x.iter()
        .enumerate()
        .map(|(at, &value)| {
            let p = parameters.of(at);
            let quotient = narrow(value / scale[p]).round_ties_even();
            saturate(f64::from(quotient), zero_point[p], range)
        })
        .collect()
}

/// `(x - zero_point) * scale`: the difference exact, converted to f32 and multiplied in f32.
pub fn dequantize(
    x: &[i64],
    (scale, zero_point): (&[f32], &[i64]),
    parameters: Parameters,
) -> Vec<f32> {
    x.iter()
        .enumerate()
        .map(|(at, &value)| {
            let p = parameters.of(at);
            (value - zero_point[p]) as f32 * scale[p]
        })
        .collect()
}

/// `saturate(round(acc * multiplier) + zero_point)`: the product in f64 (the i32 accumulator
/// times the f32 multiplier, as ONNX's reference QLinearMatMul and QLinearConv compute it),
/// rounded to nearest with ties to even.
pub fn requantize(
    acc: &[i64],
    (multiplier, zero_point): (&[f32], &[i64]),
    parameters: Parameters,
    range: (i64, i64),
) -> Vec<i64> {
    acc.iter()
        .enumerate()
        .map(|(at, &value)| {
            let p = parameters.of(at);
            let product = value as f64 * f64::from(multiplier[p]);
            saturate(product.round_ties_even(), zero_point[p], range)
        })
        .collect()
}

/// `values` less `zero_point[(at / inner) % count]` for the element at flat index `at`: an
/// operand of an integer product with its zero point taken off (one per tensor, row, column or
/// output channel).
pub fn centred(values: &[i64], zero_point: &[i64], parameters: Parameters) -> Vec<i64> {
    values
        .iter()
        .enumerate()
        .map(|(at, &value)| value - zero_point[parameters.of(at)])
        .collect()
}
