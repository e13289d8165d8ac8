//! Reading results: a one-line summary, the top entries of each row, the largest error against
//! the interpreter, and two schedules' runs side by side.

use turbine_interpreter::{Data, Tensor};
use turbine_tools::driver;

/// The element type, shape, statistics and first values of a tensor, on one line.
pub(crate) fn summary(tensor: &Tensor) -> String {
    let values: Vec<f64> = match &tensor.data {
        Data::F32(values) => values.iter().map(|&v| v as f64).collect(),
        Data::I64(values) => values.iter().map(|&v| v as f64).collect(),
        Data::Bool(values) => values.iter().map(|&v| v as u8 as f64).collect(),
    };
    if values.is_empty() {
        return format!("{:?} {:?}: empty", tensor.element_type, tensor.shape);
    }
    let head: Vec<String> = values.iter().take(6).map(|v| format!("{v:.6}")).collect();
    // Statistics of the numbers; NaNs (a mean over nothing) are counted, not folded in.
    let numbers: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    let nans = values.len() - numbers.len();
    let statistics = if numbers.is_empty() {
        "all NaN".to_owned()
    } else {
        let (min, max) = numbers
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        let mean = numbers.iter().sum::<f64>() / numbers.len() as f64;
        let nans = if nans > 0 {
            format!(", {nans} NaN")
        } else {
            String::new()
        };
        format!("min {min:.6}, max {max:.6}, mean {mean:.6}{nans}")
    };
    format!(
        "{:?} {:?}: {statistics}, first [{}{}]",
        tensor.element_type,
        tensor.shape,
        head.join(", "),
        if values.len() > head.len() {
            ", ..."
        } else {
            ""
        }
    )
}

/// The largest `k` entries of each row, as "index (value)".
pub(crate) fn top_k(tensor: &Tensor, k: usize) -> Vec<String> {
    let (Some(values), [rows, columns]) = (tensor.as_f32(), tensor.shape.as_slice()) else {
        return Vec::new();
    };
    (0..*rows)
        .map(|row| {
            let slice = &values[row * columns..(row + 1) * columns];
            let mut order: Vec<usize> = (0..*columns).collect();
            order.sort_by(|&a, &b| slice[b].total_cmp(&slice[a]).then(a.cmp(&b)));
            let best: Vec<String> = order
                .iter()
                .take(k)
                .map(|&i| format!("{i} ({:.4})", slice[i]))
                .collect();
            format!("  #{row}: {}", best.join(", "))
        })
        .collect()
}

/// Largest error of `actual` against `expected` relative to the tolerance (<= 1 passes), and
/// that error. Integers and booleans must be equal: any difference is infinitely many
/// tolerances.
pub(crate) fn worst_error(
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

/// Prints two schedules' figures side by side; their outputs must agree.
pub(crate) fn compare(
    ours: &str,
    figures: &driver::Figures,
    results: &[Tensor],
    baseline: &str,
    theirs: &driver::Figures,
    baseline_results: &[Tensor],
) -> Result<(), String> {
    outln!("\nschedules side by side (same inputs, same target)");
    outln!(
        "  {:<22} {:>14} {:>9} {:>16} {:>16} {:>12}",
        "schedule",
        "cycles",
        "kernels",
        "DDR bytes",
        "GB<->LB bytes",
        "matrix util"
    );
    for (name, f) in [(baseline, theirs), (ours, figures)] {
        outln!(
            "  {:<22} {:>14} {:>9} {:>16} {:>16} {:>11.1}%",
            name,
            f.cycles,
            f.launches,
            f.ddr_bytes,
            f.gb_bytes,
            100.0 * f.matrix_utilisation
        );
    }
    let mut largest = 0f64;
    for (index, (a, b)) in results.iter().zip(baseline_results).enumerate() {
        let (Some(a), Some(b)) = (a.as_f32(), b.as_f32()) else {
            return Err(format!("result #{index} is not f32"));
        };
        largest = a
            .iter()
            .zip(b)
            .fold(largest, |m, (x, y)| m.max((x - y).abs() as f64));
    }
    outln!(
        "  speedup of {ours} over {baseline}: {:.2}x; DDR traffic {:.2}x less; \
         outputs differ by at most {largest:.3e}",
        theirs.cycles as f64 / figures.cycles.max(1) as f64,
        theirs.ddr_bytes as f64 / figures.ddr_bytes.max(1) as f64
    );
    Ok(())
}
