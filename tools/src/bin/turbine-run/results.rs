//! Reading results: a one-line summary, the top entries of each row, and two schedules' runs
//! side by side.

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
