//! Region inference: the box of each operand an op reads to compute a box of its result, and the
//! attributes of the op that computes just that box (GraphTurbo §3.3 slices; §3.6 upsampling);
//! and, over a whole body, the box of every value that computing given boxes of its outputs takes.
//! `instance-split` cuts groups into instances with it, `instance-cluster-split` a function into
//! the clusters' shares.
//!
//! A window (convolution, pooling) reads a halo around its output rows; where the box touches the
//! border, the op keeps the border's padding, and inside it reads real rows instead, so each
//! slice's op has its own `pads`. An op without a rule for the box asked of it (a reduction over
//! the split dimension, linear resampling, control flow) computes its whole result, and the
//! consumer slices what it needs: slower, never wrong.
//!
//! The rules of single ops are in [`super::demand`] and the boxes in [`super::boxes`]; both are
//! re-exported here, beside the walk over a body.

pub use super::boxes::{boxed, full, hull, share, share_axis, share_axis_of_part, sizes, Region};
pub use super::demand::{demand, Changed, Demand};

use crate::graph_view::{FunctionView, ValueId};
use turbine_dialects::ops::graph;

/// The boxes every op must compute for the outputs to cover `seeds`, walking the body backwards.
pub fn sweep(
    body: &FunctionView,
    seeds: &[(ValueId, Region)],
) -> (Vec<Option<Region>>, Vec<Option<Demand>>) {
    let mut needed: Vec<Option<Region>> = vec![None; body.value_count];
    for (value, region) in seeds {
        needed[*value] = Some(match &needed[*value] {
            Some(known) => hull(known, region),
            None => region.clone(),
        });
    }
    let mut computed: Vec<Option<Region>> = vec![None; body.value_count];
    let mut demands = vec![None; body.ops.len()];
    let last = body.ops.len().saturating_sub(1);
    for position in (0..last).rev() {
        let node = &body.ops[position];
        let Some((first, output)) = node.results.first() else {
            continue;
        };
        let wanted = match node.results.len() {
            1 => needed[*first].clone(),
            _ => node
                .results
                .iter()
                .any(|(value, _)| needed[*value].is_some())
                .then(|| full(&output.shape)),
        };
        let Some(wanted) = wanted else { continue };
        let shapes: Vec<&[usize]> = node
            .operands
            .iter()
            .map(|&value| body.type_of(value).shape.as_slice())
            .collect();
        let (region, taken) = match demand(node, &wanted, &shapes) {
            Some(taken) => (wanted, taken),
            None => {
                let whole = full(&output.shape);
                let taken =
                    demand(node, &whole, &shapes).expect("every op computes its whole result");
                (whole, taken)
            }
        };
        for (value, result) in &node.results {
            computed[*value] = Some(if node.results.len() == 1 {
                region.clone()
            } else {
                full(&result.shape)
            });
        }
        for (&operand, box_) in node.operands.iter().zip(&taken.operands) {
            needed[operand] = Some(match &needed[operand] {
                Some(known) => hull(known, box_),
                None => box_.clone(),
            });
        }
        demands[position] = Some(taken);
    }
    for (argument, _) in &body.arguments {
        computed[*argument] = needed[*argument].clone();
    }
    (computed, demands)
}

/// Elements computed by several programs (instances of a group, clusters of a function) beyond
/// the body's own, as a fraction of those: halos and ops computed whole by each. `computed` holds
/// each program's box of every value; weights and constants are not work.
pub fn recomputation<'a>(
    body: &FunctionView,
    computed: impl Iterator<Item = &'a [Option<Region>]> + Clone,
) -> f64 {
    let elements =
        |region: &Region| region.iter().map(|range| range.len()).product::<usize>() as f64;
    let (mut own, mut done) = (0.0, 0.0);
    for node in &body.ops[..body.ops.len().saturating_sub(1)] {
        if matches!(
            node.graph_kind(),
            Some(graph::Kind::Weight | graph::Kind::Constant)
        ) {
            continue;
        }
        for (value, r#type) in &node.results {
            own += r#type.shape.iter().product::<usize>() as f64;
            done += computed
                .clone()
                .filter_map(|boxes| boxes[*value].as_ref())
                .map(elements)
                .sum::<f64>();
        }
    }
    if own == 0.0 {
        0.0
    } else {
        done / own - 1.0
    }
}
