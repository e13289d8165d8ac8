//! The walk the op-by-op graph rewrites share: every op of one kind in a function is planned,
//! then rewritten or left alone, with a remark saying which and why under `explain`.

use crate::{
    graph_view::{FunctionView, Node},
    ir::Op,
    registry::PassFailure,
};
use melior::ir::OperationRef;
use turbine_dialects::ops::graph;

/// Plans every op of `kind` in the function `operation` with `plan` (the plan and the remark
/// saying what it does, or why the op is left alone) and applies `rewrite` to those it plans.
/// A function the graph view cannot read (dynamic shapes) is left as it is: the passes after
/// this one say what they cannot compile.
pub(super) fn rewrite_each<P>(
    operation: OperationRef,
    kind: graph::Kind,
    explain: bool,
    plan: impl Fn(&FunctionView, &Node) -> Result<(P, String), String>,
    rewrite: impl Fn(&Node, P),
) -> Result<(), PassFailure> {
    // SAFETY: the pass manager hands us a live op, alive for the run.
    let function = unsafe { Op::from_raw(operation.to_raw()) };
    if function.regions_empty() {
        return Ok(());
    }
    let view = match FunctionView::read(function) {
        Ok(view) => view,
        Err(error) => {
            if explain {
                function.emit_remark(&format!("left alone: {}", error.message));
            }
            return Ok(());
        }
    };
    for node in view.ops.iter().filter(|node| node.is(kind)) {
        match plan(&view, node) {
            Ok((planned, remark)) => {
                if explain {
                    node.op.emit_remark(&remark);
                }
                rewrite(node, planned);
            }
            Err(reason) if explain => node.op.emit_remark(&format!("left alone: {reason}")),
            Err(_) => {}
        }
    }
    Ok(())
}
