//! Comparing a compiled result with the reference interpreter's: the largest error relative to
//! the tolerance `|a - b| <= atol + rtol * |b|`, as `turbine-run --check` and the numeric
//! bisection judge them.

use turbine_interpreter::{Data, Tensor};

/// Largest error of `actual` against `expected` relative to the tolerance (<= 1 passes), and
/// that error. Integers and booleans must be equal: any difference is infinitely many
/// tolerances.
pub fn worst_error(
    actual: &Tensor,
    expected: &Tensor,
    rtol: f64,
    atol: f64,
) -> Result<(f64, f64), String> {
    let differences: Vec<f64> = match (&actual.data, &expected.data) {
        (Data::F32(a), Data::F32(b)) => return worst_float_error(a, b, rtol, atol),
        (Data::I64(a), Data::I64(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .map(|(x, y)| x.abs_diff(*y) as f64)
            .collect(),
        (Data::Bool(a), Data::Bool(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .map(|(x, y)| f64::from(u8::from(x != y)))
            .collect(),
        _ => {
            return Err(format!(
                "{:?} output against {:?} of the interpreter, or another element count",
                actual.element_type, expected.element_type
            ))
        }
    };
    let largest = differences.into_iter().fold(0.0, f64::max);
    Ok(if largest > 0.0 {
        (f64::INFINITY, largest)
    } else {
        (0.0, 0.0)
    })
}

/// [`worst_error`] of f32 values.
fn worst_float_error(a: &[f32], b: &[f32], rtol: f64, atol: f64) -> Result<(f64, f64), String> {
    if a.len() != b.len() {
        return Err(format!("{} elements against {}", a.len(), b.len()));
    }
    let mut worst = (0.0f64, 0.0f64);
    for (&x, &y) in a.iter().zip(b) {
        // NaN where the interpreter has NaN, and the same infinity, agree (numpy's equal_nan):
        // ONNX defines both, for a mean or a maximum over nothing.
        if x == y || (x.is_nan() && y.is_nan()) {
            continue;
        }
        let error = (x as f64 - y as f64).abs();
        let ratio = if error.is_nan() || (x.is_nan() != y.is_nan()) {
            f64::INFINITY
        } else {
            error / (atol + rtol * (y as f64).abs())
        };
        if ratio > worst.0 || ratio.is_nan() {
            worst = (ratio, error);
        }
    }
    Ok(worst)
}
