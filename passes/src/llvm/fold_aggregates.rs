//! `llvm-fold-aggregates`: reads each field of a memref descriptor from where it was computed,
//! through `llvm.insertvalue` chains and `llvm.select`s of whole descriptors, so that no
//! aggregate reaches instruction selection.
//!
//! The memref lowering builds a descriptor struct for every view and extracts its fields where
//! they are used; a kernel that alternates between two buffers selects whole descriptors. LLVM's
//! fast instruction selector handles neither `insertvalue` nor an aggregate `select`, and falls
//! back to SelectionDAG for the rest of the basic block, whose scheduler is superlinear in the
//! block's length: GraphTurbo's kernels are long blocks, and their JIT takes seconds at
//! `--opt 0` unless no aggregate is left.
//! `extractvalue (insertvalue v, c[p])[q]` is `v` when `p == q` and `c[q]` when neither position
//! is a prefix of the other; `extractvalue (select b, x, y)[q]` is `select b, x[q], y[q]`. The
//! aggregates left without users are erased.

use crate::{
    ir::{create, i64_array, InsertionPoint, Op, Val},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::ops::{upstream, OpKind};

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct FoldAggregates;

impl Pass for FoldAggregates {
    const ARGUMENT: &'static str = "llvm-fold-aggregates";
    const SUMMARY: &'static str = "Read descriptor fields through llvm.insertvalue and aggregate \
                                   llvm.select, and erase the aggregates";
    const DESCRIPTION: &'static str = "\
Rewrites `llvm.extractvalue` of an `llvm.insertvalue` to the inserted value (same position) or to \
an extract from the insertvalue's container (unrelated positions), and `llvm.extractvalue` of an \
`llvm.select` of aggregates to an `llvm.select` of the two extracted fields; then erases the \
insertvalue, extractvalue, select and poison ops left without users. Memref descriptors are built \
and selected whole by the upstream lowerings; LLVM's fast instruction selector (`--opt 0`) handles \
neither, and falls back to SelectionDAG for the rest of the block, which is superlinear in the \
block's length. Runs last in `turbine-dsa-to-llvm`.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::LlvmFunc);
    const OPTIONS: &'static [OptionInfo] = &[];

    fn from_options(_: &PassOptions) -> Result<Self, String> {
        Ok(Self)
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        let mut work: Vec<Op> = function
            .collect_pre_order()
            .into_iter()
            .filter(|op| op.is(upstream::Kind::LlvmExtractvalue))
            .collect();
        work.reverse();
        while let Some(extract) = work.pop() {
            work.extend(fold(extract));
        }
        erase_dead_aggregates(function);
        Ok(())
    }
}

/// The `position` of an extractvalue or insertvalue.
fn position(op: Op) -> Vec<i64> {
    op.i64_array_value("position").unwrap_or_default()
}

/// Folds one extractvalue as far as it goes; returns the extractvalues it created, to fold next.
fn fold(extract: Op) -> Vec<Op> {
    let wanted = position(extract);
    loop {
        let Some(source) = extract.operand(0).defining_op() else {
            return Vec::new();
        };
        match source.kind().and_then(OpKind::upstream) {
            Some(upstream::Kind::LlvmInsertvalue) => {
                // Operands: the container, then the inserted value.
                let inserted = position(source);
                if inserted == wanted {
                    extract.result(0).replace_all_uses_with(source.operand(1));
                    // SAFETY: the extract's uses read the inserted value now, it holds no region,
                    // and it was popped from the work list, which held it once; it is not used
                    // after.
                    unsafe { extract.erase() };
                    return Vec::new();
                }
                if wanted.starts_with(&inserted) || inserted.starts_with(&wanted) {
                    // A field of the inserted aggregate, or an aggregate holding the inserted
                    // field: not a single scalar to forward.
                    return Vec::new();
                }
                extract.set_operand(0, source.operand(0));
            }
            Some(upstream::Kind::LlvmSelect) => {
                let point = InsertionPoint::Before(extract);
                let (location, r#type) = (extract.location(), extract.result(0).r#type());
                let context = extract.context();
                let field = |from: Val| {
                    create(
                        point,
                        location,
                        upstream::Kind::LlvmExtractvalue,
                        &[from],
                        &[r#type],
                        &[("position", i64_array(context, &wanted))],
                        Vec::new(),
                    )
                };
                let (on_true, on_false) = (field(source.operand(1)), field(source.operand(2)));
                let select = create(
                    point,
                    location,
                    upstream::Kind::LlvmSelect,
                    &[source.operand(0), on_true.result(0), on_false.result(0)],
                    &[r#type],
                    &[],
                    Vec::new(),
                );
                extract.result(0).replace_all_uses_with(select.result(0));
                // SAFETY: the extract's uses read the new select now, it holds no region, and it
                // was popped from the work list, which held it once; it is not used after.
                unsafe { extract.erase() };
                return vec![on_true, on_false];
            }
            _ => return Vec::new(),
        }
    }
}

/// Erases insertvalue, extractvalue, struct select and poison ops without users, last first so that
/// a chain goes in one sweep.
fn erase_dead_aggregates(function: Op) {
    for op in function.collect_pre_order().into_iter().rev() {
        let aggregate = match op.kind().and_then(OpKind::upstream) {
            Some(
                upstream::Kind::LlvmInsertvalue
                | upstream::Kind::LlvmExtractvalue
                | upstream::Kind::LlvmMlirPoison,
            ) => true,
            // SAFETY: the result type is alive.
            Some(upstream::Kind::LlvmSelect) => unsafe {
                mlirTypeIDEqual(
                    mlirTypeGetTypeID(op.result(0).r#type()),
                    mlirLLVMStructTypeGetTypeID(),
                )
            },
            _ => false,
        };
        if aggregate && op.result(0).is_unused() {
            // SAFETY: the op feeds nothing and holds no region; in reverse pre-order the walk has
            // passed its users and does not come back to it.
            unsafe { op.erase() };
        }
    }
}
