//! Conversions between element types with ONNX `Cast` semantics, which folding, `Pow`'s exponent
//! and constants of a declared type share.
//!
//! Every conversion goes through a wide form: floats as `f32` (which holds f16 and bf16
//! exactly), integers as `i64`, booleans as they are. From there:
//!
//! - to f16 and bf16, rounding to the nearest value, ties to even (an integer goes through
//!   `f32` first, as onnxruntime's cast does); beyond the largest finite value is infinity;
//! - float to integer truncates toward zero; to i32 and i64 out-of-range values saturate and
//!   NaN gives 0, while to i8 and ui8 the truncation goes through 32 bits and wraps, as
//!   onnxruntime's cast and numpy's `astype` do on x86 (300.0 is 44, -1.5 as ui8 is 255; NaN,
//!   infinities and values beyond i32 truncate to i32's minimum, whose low byte is 0). ONNX
//!   leaves out-of-range conversions undefined;
//! - integer to narrower integer wraps (two's complement), as numpy does;
//! - to bool, non-zero (NaN included) is true; from bool, 1 and 0.

use half::{bf16, f16};

use crate::tensor::Data;
use crate::types::ElementType;

/// `convert` applied to every element of `values`.
fn map<T: Copy, U>(values: &[T], convert: impl Fn(T) -> U) -> Vec<U> {
    values.iter().map(|&value| convert(value)).collect()
}

/// `value` truncated toward zero to 32 bits as x86's `cvttss2si` does: NaN and values outside
/// i32's range give `i32::MIN`, the "integer indefinite" value.
fn truncate_i32(value: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&value) {
        value as i32
    } else {
        i32::MIN
    }
}

impl Data {
    /// The elements of a float tensor (f32, f16, bf16) as `f32`, exactly; `None` for the others.
    pub fn floats(&self) -> Option<Vec<f32>> {
        Some(match self {
            Data::F32(values) => values.clone(),
            Data::F16(values) => map(values, f16::to_f32),
            Data::Bf16(values) => map(values, bf16::to_f32),
            _ => return None,
        })
    }

    /// The elements of an integer tensor (i64, i32, i8, ui8) as `i64`, exactly; `None` for the
    /// others.
    pub fn integers(&self) -> Option<Vec<i64>> {
        Some(match self {
            Data::I64(values) => values.clone(),
            Data::I32(values) => map(values, i64::from),
            Data::I8(values) => map(values, i64::from),
            Data::U8(values) => map(values, i64::from),
            _ => return None,
        })
    }

    /// `values` converted to `element` as `Cast` converts floats.
    pub fn from_floats(values: &[f32], element: ElementType) -> Data {
        match element {
            ElementType::F32 => Data::F32(values.to_vec()),
            ElementType::F16 => Data::F16(map(values, f16::from_f32)),
            ElementType::Bf16 => Data::Bf16(map(values, bf16::from_f32)),
            ElementType::I32 => Data::I32(map(values, |value| value as i32)),
            ElementType::I64 => Data::I64(map(values, |value| value as i64)),
            ElementType::I8 => Data::I8(map(values, |value| truncate_i32(value) as i8)),
            ElementType::U8 => Data::U8(map(values, |value| truncate_i32(value) as u8)),
            ElementType::Bool => Data::Bool(map(values, |value| value != 0.0)),
        }
    }

    /// `values` converted to `element` as `Cast` converts integers.
    pub fn from_integers(values: &[i64], element: ElementType) -> Data {
        match element {
            ElementType::F32 => Data::F32(map(values, |value| value as f32)),
            ElementType::F16 => Data::F16(map(values, |value| f16::from_f32(value as f32))),
            ElementType::Bf16 => Data::Bf16(map(values, |value| bf16::from_f32(value as f32))),
            ElementType::I32 => Data::I32(map(values, |value| value as i32)),
            ElementType::I64 => Data::I64(values.to_vec()),
            ElementType::I8 => Data::I8(map(values, |value| value as i8)),
            ElementType::U8 => Data::U8(map(values, |value| value as u8)),
            ElementType::Bool => Data::Bool(map(values, |value| value != 0)),
        }
    }

    /// The elements converted to `element` as ONNX `Cast` does (see the module's rules).
    pub fn convert(&self, element: ElementType) -> Data {
        if self.element() == element {
            return self.clone();
        }
        match self {
            Data::Bool(values) => match element {
                ElementType::Bool => self.clone(),
                _ => Data::from_integers(&map(values, i64::from), element),
            },
            data => match data.floats() {
                Some(floats) => Data::from_floats(&floats, element),
                None => Data::from_integers(&data.integers().unwrap_or_default(), element),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn converted(values: &[f32], element: ElementType) -> Data {
        Data::F32(values.to_vec()).convert(element)
    }

    #[test]
    fn floats_round_to_nearest_even() {
        // 2049 lies halfway between the f16 values 2048 and 2050: the even one wins; 2051
        // rounds up to 2052; 65520 is past f16's largest value (65504) by half an ulp.
        let Data::F16(halves) = converted(&[2049.0, 2051.0, 65519.0, 65520.0], ElementType::F16)
        else {
            panic!("f16 elements")
        };
        let halves: Vec<f32> = halves.iter().map(|value| value.to_f32()).collect();
        assert_eq!(halves, [2048.0, 2052.0, 65504.0, f32::INFINITY]);
        // 1 + 2^-8 lies halfway between the bf16 values 1 and 1 + 2^-7.
        let Data::Bf16(brains) = converted(&[1.003_906_3, 1.011_718_8], ElementType::Bf16) else {
            panic!("bf16 elements")
        };
        let brains: Vec<f32> = brains.iter().map(|value| value.to_f32()).collect();
        assert_eq!(brains, [1.0, 1.015_625]);
    }

    #[test]
    fn floats_truncate_into_bytes_through_32_bits() {
        let values = [
            300.0,
            -300.0,
            127.7,
            -128.9,
            -1.5,
            1e10,
            f32::NAN,
            f32::INFINITY,
        ];
        assert_eq!(
            converted(&values, ElementType::I8),
            Data::I8(vec![44, -44, 127, -128, -1, 0, 0, 0])
        );
        assert_eq!(
            converted(&values, ElementType::U8),
            Data::U8(vec![44, 212, 127, 128, 255, 0, 0, 0])
        );
    }

    #[test]
    fn integers_wrap_and_booleans_count_one() {
        let wide = Data::I64(vec![300, -129, 255, 2049]);
        assert_eq!(
            wide.convert(ElementType::I8),
            Data::I8(vec![44, 127, -1, 1])
        );
        assert_eq!(
            wide.convert(ElementType::U8),
            Data::U8(vec![44, 127, 255, 1])
        );
        assert_eq!(
            Data::U8(vec![255, 128]).convert(ElementType::I8),
            Data::I8(vec![-1, -128])
        );
        assert_eq!(
            Data::Bool(vec![true, false]).convert(ElementType::F16),
            Data::F16(vec![f16::ONE, f16::ZERO])
        );
        assert_eq!(
            Data::I8(vec![0, -3]).convert(ElementType::Bool),
            Data::Bool(vec![false, true])
        );
    }
}
