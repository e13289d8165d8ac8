//! `graph-fold-reshapes`: collapses chains of reshapes into one and drops reshapes that change
//! nothing.
//!
//! Importers produce long reshape chains (ONNX exporters reshape around every Flatten, Squeeze and
//! Unsqueeze). A reshape only depends on its input's element order, so `reshape(reshape(x))` is
//! `reshape(x)` whatever the intermediate shape was. Reshapes that only add or drop dimensions
//! of size 1 are first sunk below the element-wise ops and batch normalisations that read them
//! ([`super::sink_unit_reshapes`]), so that those around a 1-D convolution meet and fold.

use super::sink_unit_reshapes::sink_unit_reshapes;
use crate::{
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct FoldReshapes {
    /// Also treat `graph.flatten` as the reshape it is, rewriting it into `graph.reshape`.
    include_flatten: bool,
}

impl Pass for FoldReshapes {
    const ARGUMENT: &'static str = "graph-fold-reshapes";
    const SUMMARY: &'static str = "Collapse chains of graph.reshape and drop identity reshapes";
    const DESCRIPTION: &'static str = "\
Rewrites `graph.reshape(graph.reshape(x))` into `graph.reshape(x)`, erases the inner reshape when \
nothing else uses it, and replaces a reshape whose result type equals its input type by its input. \
First, an element-wise op or `graph.batch_norm` whose non-scalar operands are all reshapes that \
only add or drop dimensions of size 1, of values of one shape (a batch normalisation keeping its \
channels at dimension 1), reads those values instead and is followed by a reshape to its old \
type: the reshapes around a 1-D convolution (a 2-D one of height 1) then meet and fold, and the \
normalisation and activation after it run in 4-D. With `include-flatten` (the default), \
`graph.flatten` is first rewritten into the equivalent `graph.reshape` so that it folds too.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "include-flatten",
        description:
            "Rewrite graph.flatten into graph.reshape so that it folds with other reshapes",
        kind: OptionKind::Bool,
        default: "true",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            include_flatten: options.bool("include-flatten")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        sink_unit_reshapes(function);
        for op in function.collect_pre_order() {
            let op = match op.kind().and_then(OpKind::graph) {
                Some(graph::Kind::Flatten) if self.include_flatten => flatten_to_reshape(op),
                Some(graph::Kind::Reshape) => op,
                _ => continue,
            };
            fold_reshape(op);
        }
        Ok(())
    }
}

/// Rewrites a `graph.flatten` into the `graph.reshape` with the same result type.
fn flatten_to_reshape(flatten: Op) -> Op {
    let reshape = flatten.create_before(
        graph::Kind::Reshape,
        &[flatten.operand(0)],
        &[flatten.result(0).r#type()],
    );
    flatten.result(0).replace_all_uses_with(reshape.result(0));
    // SAFETY: the flatten's uses read the reshape now, it holds no region, and the walk list has
    // passed it; only the reshape is used after.
    unsafe { flatten.erase() };
    reshape
}

/// Folds one reshape into its producer reshape, then drops it if it became the identity.
fn fold_reshape(reshape: Op) {
    if let Some(producer) = reshape.operand(0).defining_op() {
        if producer.is(graph::Kind::Reshape) {
            reshape.set_operand(0, producer.operand(0));
            if producer.result(0).is_unused() {
                // SAFETY: the producer feeds nothing now and holds no region; defined before
                // `reshape`, it is behind the caller's walk (or not in its list, when a flatten
                // became it), which does not come back to it, and its handle is dropped here.
                unsafe { producer.erase() };
            }
        }
    }
    let (input, result) = (reshape.operand(0), reshape.result(0));
    if input.same_type(result) {
        result.replace_all_uses_with(input);
        // SAFETY: the identity reshape's uses read its input now, it holds no region, and the
        // caller's walk moves on to the next op.
        unsafe { reshape.erase() };
    }
}
