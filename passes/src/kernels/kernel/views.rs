//! Host views built again inside a kernel on several clusters: a window of a buffer (a
//! `memref.subview` or `memref.reinterpret_cast` whose offsets are constants) reaches the kernel
//! as the same view of its source, made in the preamble, rather than as an argument of its own.
//!
//! Each argument of such a kernel is an argument per cluster (a replicated value) and a selection
//! by the running cluster; a GraphTurbo kernel reads hundreds of windows of its GB arena and of
//! shares of DDR tensors, which as arguments of their own would make calls of thousands of
//! buffers, where LLVM's instruction scheduling grows with the square of a block's size. A view
//! of a replicated source taken alike on every cluster is that view of the selected source;
//! shares of one tensor at offsets growing with the cluster are one view at an offset computed
//! from the cluster.

use super::{Body, Kernel};
use crate::ir::{Op, Val};
use crate::kernels::emit::IndexOp;
use mlir_sys::*;
use turbine_dialects::ops::{upstream, OpKind};

/// An operand of a view after its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operand {
    Constant(i64),
    /// Result `.0` of the `memref.extract_strided_metadata` of the view's source (the offset a
    /// window of a window keeps).
    SourceMetadata(usize),
}

/// The op of a view `value` rebuildable in a kernel, its source and its other operands.
fn view_of(value: Val) -> Option<(Op, Val, Vec<Operand>)> {
    let op = value.defining_op()?;
    if !matches!(
        op.kind().and_then(OpKind::upstream),
        Some(upstream::Kind::MemrefSubview | upstream::Kind::MemrefReinterpretCast)
    ) {
        return None;
    }
    let source = op.operand(0);
    // SAFETY: the op is alive.
    let count = unsafe { mlirOperationGetNumOperands(op.raw()) } as usize;
    let operands = (1..count)
        .map(|index| {
            let operand = op.operand(index);
            if let Some(value) = operand.integer_constant() {
                return Some(Operand::Constant(value));
            }
            operand.defining_op().filter(|m| {
                m.is(upstream::Kind::MemrefExtractStridedMetadata)
                    && m.operand(0).raw().ptr == source.raw().ptr
            })?;
            // SAFETY: the value is an op's result.
            Some(Operand::SourceMetadata(
                unsafe { mlirOpResultGetResultNumber(operand.raw()) } as usize,
            ))
        })
        .collect::<Option<Vec<Operand>>>()?;
    Some((op, source, operands))
}

/// Whether `a` and `b` are ops of one kind with equal attributes (the static parts of a view).
fn same_attributes(a: Op, b: Op) -> bool {
    // SAFETY: the ops are alive; attributes are uniqued, so equal ones compare equal.
    unsafe {
        let count = mlirOperationGetNumAttributes(a.raw());
        a.name() == b.name()
            && count == mlirOperationGetNumAttributes(b.raw())
            && (0..count).all(|index| {
                let named = mlirOperationGetAttribute(a.raw(), index);
                let other = mlirOperationGetAttributeByName(b.raw(), mlirIdentifierStr(named.name));
                !other.ptr.is_null() && mlirAttributeEqual(named.attribute, other)
            })
    }
}

/// Per operand of a view after its source, what it is on cluster 0 and its step per cluster.
type ClusterOperands = Vec<(Operand, i64)>;

/// The operands of the view `constants` (of `source`) on every cluster, given the other
/// clusters' views (`views`, each with its source and operands) and `source`'s replicas: the
/// same view of each cluster's source, or windows of one buffer at offsets growing linearly with
/// the cluster. None when the clusters' views are neither.
fn cluster_operands(
    constants: &[Operand],
    source: Val,
    views: &[(Op, Val, Vec<Operand>)],
    source_replicas: &[Val],
) -> Option<ClusterOperands> {
    let same = || constants.iter().map(|&operand| (operand, 0)).collect();
    if views.is_empty() {
        // A view of one cluster's buffer only, which every cluster reads: from the argument.
        if !source_replicas.is_empty() {
            return None;
        }
        Some(same())
    } else if source_replicas.len() >= views.len()
        && views
            .iter()
            .zip(source_replicas)
            .all(|((_, other_source, other), replica)| {
                other_source.raw().ptr == replica.raw().ptr && *other == constants
            })
    {
        // The same view of each cluster's source.
        Some(same())
    } else if views
        .iter()
        .all(|(_, other_source, _)| other_source.raw().ptr == source.raw().ptr)
    {
        linear_operands(constants, views)
    } else {
        None
    }
}

/// The operands of the windows `constants` (cluster 0's) and `views` (the other clusters', of
/// the same buffer) as offsets growing linearly with the cluster; None when they are not
/// constants that grow so.
fn linear_operands(
    constants: &[Operand],
    views: &[(Op, Val, Vec<Operand>)],
) -> Option<ClusterOperands> {
    // Windows of one buffer at offsets growing linearly with the cluster.
    let value = |operand: &Operand| match operand {
        Operand::Constant(value) => Some(*value),
        Operand::SourceMetadata(_) => None,
    };
    let first: Vec<i64> = constants.iter().map(value).collect::<Option<_>>()?;
    let next: Vec<i64> = views[0].2.iter().map(value).collect::<Option<_>>()?;
    let steps: Vec<i64> = next
        .iter()
        .zip(&first)
        .map(|(next, first)| next - first)
        .collect();
    let linear = views.iter().enumerate().all(|(index, (_, _, other))| {
        other
            .iter()
            .zip(&first)
            .zip(&steps)
            .all(|((v, first), step)| *v == Operand::Constant(first + (index as i64 + 1) * step))
    });
    if !linear || steps.iter().any(|&step| step < 0) {
        return None;
    }
    Some(constants.iter().copied().zip(steps).collect())
}

impl Kernel {
    /// The kernel-side value of the host view `host` made in the preamble, if it is a view whose
    /// every cluster's counterpart the kernel can compute from one source.
    pub(super) fn rebuilt_view(&mut self, host: Val) -> Option<Val> {
        let spmd = self.per_cluster.as_ref()?;
        let (op, source, constants) = view_of(host)?;
        let others: Vec<Val> = match spmd.replicas.borrow().get(&(host.raw().ptr as usize)) {
            None => Vec::new(),
            Some(others) => others.iter().take(spmd.clusters - 1).copied().collect(),
        };
        let (anchor, cluster, location) = (spmd.preamble_end, spmd.cluster, self.body.location());
        let source_replicas = spmd
            .replicas
            .borrow()
            .get(&(source.raw().ptr as usize))
            .cloned()
            .unwrap_or_default();
        let views: Vec<(Op, Val, Vec<Operand>)> = others
            .iter()
            .map(|&other| view_of(other))
            .collect::<Option<_>>()?;
        let negative = constants
            .iter()
            .any(|operand| matches!(operand, Operand::Constant(value) if *value < 0));
        if negative
            || !(views.is_empty() || views.len() + 1 == spmd.clusters)
            || views
                .iter()
                .any(|(other, _, _)| !same_attributes(op, *other))
        {
            return None;
        }
        let operands = cluster_operands(&constants, source, &views, &source_replicas)?;
        let source_op = op.operand(0);
        let source = self.argument_of_type(source_op, source_op.r#type());
        let mut preamble = Body::before(anchor, location);
        let values = preamble_operands((&mut preamble, anchor), op, source, &operands, cluster);
        // SAFETY: the op is alive; its clone is detached until inserted before the anchor, in the
        // kernel's preamble, with operands of the kernel, and its result lives with it.
        unsafe {
            let clone = mlirOperationClone(op.raw());
            mlirOperationSetOperand(clone, 0, source.raw());
            for (index, value) in values.iter().enumerate() {
                mlirOperationSetOperand(clone, index as isize + 1, value.raw());
            }
            mlirBlockInsertOwnedOperationBefore(
                mlirOperationGetBlock(anchor.raw()),
                anchor.raw(),
                clone,
            );
            Some(Val::from_raw(mlirOperationGetResult(clone, 0)))
        }
    }
}

/// The running cluster's operands after the source of the host view `op` in the kernel, made by
/// `preamble` (inserting before `anchor`) from `operands` (each cluster 0's and its step per
/// cluster `cluster`): constants, and results of a copy of the view's
/// `memref.extract_strided_metadata` reading the kernel-side `source`.
fn preamble_operands(
    (preamble, anchor): (&mut Body, Op),
    op: Op,
    source: Val,
    operands: &[(Operand, i64)],
    cluster: Val,
) -> Vec<Val> {
    let mut metadata: Option<MlirOperation> = None;
    operands
        .iter()
        .map(|&(operand, step)| match operand {
            Operand::Constant(first) => {
                let first = preamble.index(first as usize);
                if step == 0 {
                    return first;
                }
                let moved = preamble.scaled(cluster, step as usize);
                preamble.arith(IndexOp::Add, first, moved)
            }
            // SAFETY: the host view's metadata op is alive; its clone reads the kernel-side
            // source and is inserted in the preamble before the view, and its results live
            // with it.
            Operand::SourceMetadata(number) => unsafe {
                let copy = *metadata.get_or_insert_with(|| {
                    let host = (1..mlirOperationGetNumOperands(op.raw()) as usize)
                        .filter_map(|index| op.operand(index).defining_op())
                        .find(|m| m.is(upstream::Kind::MemrefExtractStridedMetadata))
                        .expect("a view with a metadata operand");
                    let copy = mlirOperationClone(host.raw());
                    mlirOperationSetOperand(copy, 0, source.raw());
                    mlirBlockInsertOwnedOperationBefore(
                        mlirOperationGetBlock(anchor.raw()),
                        anchor.raw(),
                        copy,
                    );
                    copy
                });
                Val::from_raw(mlirOperationGetResult(copy, number as isize))
            },
        })
        .collect()
}
