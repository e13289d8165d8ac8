//! `graph-fold-batch-rows`: a `graph.batch_matmul` whose right operand is shared by every batch
//! (rank 2, or batch dimensions of size 1) and whose batch holds more of the rows than each of
//! its products does is one product: the left operand's batch dimensions fold into its rows,
//! `reshape(matmul(reshape(a, [b·M, K]), B), [b..., M, N])`.
//!
//! Exporters write a linear layer over a sequence as a batched product whatever the layout:
//! `[S, B, H] × [H, N]` for a sequence-first transformer at batch 1 is `S` products of one row,
//! each reading the whole weight. Folded, the weight is read once for all rows, and the tiling
//! sees the product's real M. A product with at least as many rows per batch as batches (the
//! batch-first `[B, S, H]`) keeps its batch: each product is already a real one, and the
//! schedules cut the batch over the clusters (folded, BERT-base at batch 8 ran 3.8 times slower
//! under GraphTurbo's schedule).

use crate::{
    graph_view::TensorType,
    ir::{create, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
    slicing::sliced_body::tensor_like,
};
use melior::ir::OperationRef;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct FoldBatchRows {
    explain: bool,
}

impl Pass for FoldBatchRows {
    const ARGUMENT: &'static str = "graph-fold-batch-rows";
    const SUMMARY: &'static str =
        "Fold the batch of a batch_matmul with a shared right operand into its rows";
    const DESCRIPTION: &'static str = "\
A `graph.batch_matmul` whose right operand is the same matrix for every batch (rank 2, or batch \
dimensions all of size 1), whose left operand is not broadcast, and whose batch count exceeds its \
rows per batch (a sequence-first layout) becomes one `graph.matmul` of the left operand's rows: \
`graph.reshape` to `[b·M, K]`, the product, `graph.reshape` back to `[b..., M, N]`. The weight \
is then read once for all rows and the product is tiled by its real M (a sequence-first \
transformer at batch 1 multiplies `S` batches of one row otherwise). Products \
whose right operand varies by batch (attention's), and batch-first ones whose products already \
have more rows than there are batches, which the schedules cut along the batch, are left alone. \
With `explain`, a remark on each product folded.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit a remark on each product folded, with its batch and rows",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        for op in function.collect_pre_order() {
            if op.is(graph::Kind::BatchMatmul) {
                self.fold(op);
            }
        }
        Ok(())
    }
}

impl FoldBatchRows {
    /// Folds `product` when its right operand is shared and its left operand fills the batch.
    fn fold(&self, product: Op) {
        let shape = |value: Val| TensorType::of(value).map(|ty| ty.shape);
        let (Some(lhs), Some(rhs), Some(result)) = (
            shape(product.operand(0)),
            shape(product.operand(1)),
            shape(product.result(0)),
        ) else {
            return;
        };
        let (rank, rhs_rank) = (lhs.len(), rhs.len());
        let shared = rhs[..rhs_rank - 2].iter().all(|&size| size == 1);
        if !shared || rank < 3 || lhs[..rank - 2] != result[..result.len() - 2] {
            return;
        }
        let batches = lhs[..rank - 2].iter().product::<usize>();
        if batches <= lhs[rank - 2] {
            return;
        }
        let (rows, inner) = (lhs[..rank - 1].iter().product::<usize>(), lhs[rank - 1]);
        let columns = rhs[rhs_rank - 1];
        let at = InsertionPoint::Before(product);
        let location = product.location();
        let reshaped = |value: Val, shape: &[usize]| -> Val {
            create(
                at,
                location,
                graph::Kind::Reshape,
                &[value],
                &[tensor_like(value, shape)],
                &[],
                Vec::new(),
            )
            .result(0)
        };
        let rows_of_lhs = reshaped(product.operand(0), &[rows, inner]);
        let weight = match rhs_rank {
            2 => product.operand(1),
            _ => reshaped(product.operand(1), &[inner, columns]),
        };
        let matmul = create(
            at,
            location,
            graph::Kind::Matmul,
            &[rows_of_lhs, weight],
            &[tensor_like(product.result(0), &[rows, columns])],
            &[],
            Vec::new(),
        );
        let folded = reshaped(matmul.result(0), &result);
        if self.explain {
            matmul.emit_remark(&format!(
                "folds {batches} batches × {} rows into one product of {rows} rows",
                lhs[rank - 2]
            ));
        }
        product.result(0).replace_all_uses_with(folded);
        // SAFETY: the product's uses read the folded result now, it holds no region, and the
        // walk moves on to the next op.
        unsafe { product.erase() };
    }
}
