//! `graph-split-reductions`: rewrites a reduction whose reduced axes alternate with kept ones too
//! often for the lowering's views into a chain of reductions, each over fewer runs of axes.
//!
//! The lowering tiles a reduction as one strided view `[outer, runs..., inner]` (see
//! [`reduction_view`]): the dimensions before the first reduced axis, the alternating runs of
//! reduced and kept dimensions (adjacent dimensions of a kind merged), and those after the last.
//! DMA views have at most four dimensions, so `axes = [0, 2, 4]` of a rank-6 tensor cannot be read
//! in one view. Reducing over disjoint sets of axes one after the other gives the same result for
//! a sum and a maximum, and for a mean too, since every partial mean is over the same number of
//! elements; so the last reduced run is peeled off into a reduction of its own (keeping its
//! dimensions) until the rest fits.

use crate::kernels::reduction_view::{reduction_view, MAX_VIEW_RANK};
use crate::slicing::sliced_body::tensor_like;
use crate::{
    graph_view::TensorType,
    ir::{create, i64_array, InsertionPoint, Op},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The axes of the last run of reduced dimensions (adjacent axes of `axes`, sorted).
fn last_run(axes: &[usize]) -> &[usize] {
    let mut start = axes.len() - 1;
    while start > 0 && axes[start - 1] + 1 == axes[start] {
        start -= 1;
    }
    &axes[start..]
}

/// The reductions, in order, that replace one over `axes` of `shape`: each a set of axes whose
/// view has at most `max_rank` dimensions. One entry when the reduction fits as it is.
pub(crate) fn split_axes(shape: &[usize], axes: &[usize], max_rank: usize) -> Vec<Vec<usize>> {
    let mut steps = Vec::new();
    let mut rest = axes.to_vec();
    while reduction_view(shape, &rest).dims.len() > max_rank {
        let run = last_run(&rest).to_vec();
        rest.truncate(rest.len() - run.len());
        steps.push(run);
    }
    steps.push(rest);
    steps
}

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct SplitReductions {
    max_rank: usize,
    explain: bool,
}

impl Pass for SplitReductions {
    const ARGUMENT: &'static str = "graph-split-reductions";
    const SUMMARY: &'static str =
        "Split reductions whose axes alternate too often for a DMA view into a chain of reductions";
    const DESCRIPTION: &'static str = "\
The lowering reads a reduction's input as one strided view `[outer, runs..., inner]`, the \
alternating runs of reduced and kept dimensions merged; a DMA view has at most `max-view-rank` \
dimensions. A `graph.reduce_sum`, `graph.reduce_mean` or `graph.reduce_max` whose view would be \
larger becomes a chain: its last run of reduced axes first, in a reduction that keeps them as size \
1, until the remaining axes fit; then the rest, and a `graph.reshape` when the original dropped \
its reduced dimensions. Sums and maxima compose over disjoint axes, and so do means (every \
partial mean counts the same number of elements). With `explain`, a remark on each reduction \
split.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "max-view-rank",
            description: "Dimensions of the largest view the lowering reads a reduction with",
            kind: OptionKind::Int,
            default: "4",
        },
        OptionInfo {
            name: "explain",
            description: "Emit a remark on each reduction split, with the steps",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let max_rank = options.int("max-view-rank")?;
        if !(3..=MAX_VIEW_RANK as i64).contains(&max_rank) {
            return Err(format!(
                "max-view-rank must be 3 to {MAX_VIEW_RANK} (a single run needs 3), got {max_rank}"
            ));
        }
        Ok(Self {
            max_rank: max_rank as usize,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        for op in function.collect_pre_order() {
            if matches!(
                op.kind().and_then(OpKind::graph),
                Some(
                    graph::Kind::ReduceSum
                        | graph::Kind::ReduceMean
                        | graph::Kind::ReduceMax
                        | graph::Kind::ReduceProd
                )
            ) {
                self.split(op);
            }
        }
        Ok(())
    }
}

impl SplitReductions {
    fn split(&self, op: Op) {
        let input = op.operand(0);
        let Some(TensorType { shape, .. }) = TensorType::of(input) else {
            return;
        };
        let rank = shape.len();
        let given = op.i64_array_value("axes").unwrap_or_default();
        let mut axes: Vec<usize> = if given.is_empty() {
            (0..rank).collect()
        } else {
            given
                .iter()
                .map(|&axis| {
                    if axis < 0 {
                        (axis + rank as i64) as usize
                    } else {
                        axis as usize
                    }
                })
                .collect()
        };
        axes.sort_unstable();
        axes.dedup();
        if rank == 0 || axes.is_empty() {
            return;
        }
        let steps = split_axes(&shape, &axes, self.max_rank);
        if steps.len() == 1 {
            return;
        }
        if self.explain {
            op.emit_remark(&format!(
                "split over axes {axes:?} into {} reductions over {steps:?}: one view would have \
                 {} dimensions, more than {}",
                steps.len(),
                reduction_view(&shape, &axes).dims.len(),
                self.max_rank
            ));
        }
        // SAFETY: the op is alive.
        let (context, location) = unsafe { (mlirOperationGetContext(op.raw()), op.location()) };
        let kind = op.kind().expect("a graph reduction");
        let mut value = input;
        let mut current = shape.clone();
        for step in &steps {
            for &axis in step {
                current[axis] = 1;
            }
            let axes: Vec<i64> = step.iter().map(|&axis| axis as i64).collect();
            // SAFETY: the context is alive.
            let keep = unsafe { mlirBoolAttrGet(context, 1) };
            let reduction = create(
                InsertionPoint::Before(op),
                location,
                kind,
                &[value],
                &[tensor_like(input, &current)],
                &[("axes", i64_array(context, &axes)), ("keepdims", keep)],
                Vec::new(),
            );
            value = reduction.result(0);
        }
        let result = op.result(0);
        if !value.same_type(result) {
            value = create(
                InsertionPoint::Before(op),
                location,
                graph::Kind::Reshape,
                &[value],
                &[result.r#type()],
                &[],
                Vec::new(),
            )
            .result(0);
        }
        result.replace_all_uses_with(value);
        // SAFETY: the reduction's result now feeds nothing (its uses read the split chain's), it
        // holds no region, and the caller's walk list has passed it and moves on.
        unsafe { op.erase() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_axes_stay_one_reduction() {
        assert_eq!(split_axes(&[2, 3, 4, 5], &[1, 2], 4), vec![vec![1, 2]]);
        assert_eq!(reduction_view(&[2, 3, 4, 5], &[1, 2]).dims, vec![2, 12, 5]);
    }

    #[test]
    fn five_alternating_runs_split_until_they_fit() {
        // [2, 3, 4, 5, 6, 7] over axes 1, 3, 5: [2, 3, 4, 5, 6, 7] as six dimensions.
        let steps = split_axes(&[2, 3, 4, 5, 6, 7], &[1, 3, 5], 4);
        assert_eq!(steps, vec![vec![5], vec![3], vec![1]]);
        // Over axes 0, 2, 4 the outer of 1 is dropped: [2, 3, 4, 5, 6] and then 7 → 6 dimensions.
        let steps = split_axes(&[2, 3, 4, 5, 6, 7], &[0, 2, 4], 4);
        assert!(steps.iter().all(|axes| !axes.is_empty()));
        assert_eq!(steps.concat().len(), 3);
    }

    #[test]
    fn every_split_step_fits_the_view() {
        let shape = [2, 3, 2, 3, 2, 3];
        for mask in 1u32..64 {
            let axes: Vec<usize> = (0..6).filter(|d| mask & (1 << d) != 0).collect();
            let steps = split_axes(&shape, &axes, 4);
            let mut covered: Vec<usize> = steps.concat();
            covered.sort_unstable();
            assert_eq!(covered, axes, "the steps reduce each axis once");
            let mut current = shape.to_vec();
            for step in &steps {
                assert!(
                    reduction_view(&current, step).dims.len() <= 4,
                    "{axes:?}: step {step:?} of {steps:?}"
                );
                for &axis in step {
                    current[axis] = 1;
                }
            }
        }
    }
}
