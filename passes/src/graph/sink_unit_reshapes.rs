//! Sinking reshapes that only add or drop dimensions of size 1 below the element-wise ops and
//! batch normalisations that read them, part of `graph-fold-reshapes`. A 1-D convolution is a
//! 2-D one of height 1 between reshapes (`[N, C, L]` to `[N, C, 1, L]` and back), so the
//! normalisation and activation after it run on the 3-D tensor between the convolution's
//! reshape back and the next layer's reshape up, and the convolution cannot take them as its
//! epilogue. Sunk below them, the reshapes meet and fold away: the layers run as the 2-D
//! network they are.

use crate::graph_view::TensorType;
use crate::ir::{create, InsertionPoint, Op, Val};
use crate::slicing::sliced_body::tensor_like;
use mlir_sys::mlirOperationGetNextInBlock;
use turbine_dialects::ops::graph;

/// Sinks the unit reshapes of `function` below the ops that read them, in order: an op whose
/// non-scalar operands are all reshapes of values of one shape that differs from theirs only in
/// dimensions of size 1 reads those values instead, its result takes their shape, and a reshape
/// after it gives its readers the old one.
pub fn sink_unit_reshapes(function: Op) {
    for op in function.collect_pre_order() {
        if let Some(sources) = unit_reshaped_operands(op) {
            sink_below(op, &sources);
        }
    }
}

/// Per operand of `op`, the value a unit reshape of it reads (None for a scalar operand), when
/// `op` is one a unit reshape sinks below; None otherwise.
fn unit_reshaped_operands(op: Op) -> Option<Vec<Option<Val>>> {
    let kind = op.kind().and_then(|kind| kind.graph())?;
    let batch_norm = kind == graph::Kind::BatchNorm;
    if !(batch_norm || graph::is_elementwise(unsafe_ref(op))) || op.results().len() != 1 {
        return None;
    }
    let result = TensorType::of(op.result(0))?.shape;
    let mut source_shape: Option<Vec<usize>> = None;
    let mut sources = Vec::new();
    for (position, operand) in op.operands().into_iter().enumerate() {
        let shape = TensorType::of(operand)?.shape;
        if (batch_norm && position > 0) || (!batch_norm && shape.iter().all(|&size| size == 1)) {
            sources.push(None);
            continue;
        }
        let reshape = operand
            .defining_op()
            .filter(|d| d.is(graph::Kind::Reshape))?;
        let source = reshape.operand(0);
        let from = TensorType::of(source)?.shape;
        if shape != result || !unit_change(&from, &shape) {
            return None;
        }
        if source_shape.get_or_insert_with(|| from.clone()) != &from {
            return None;
        }
        sources.push(Some(source));
    }
    let from = source_shape?;
    // A batch normalisation keeps its channels at dimension 1 on both sides; a scalar operand
    // of more dimensions than the sources would raise the result's rank.
    if batch_norm && (from.len() < 2 || from[1] != result[1]) {
        return None;
    }
    let operands = op.operands();
    let raises_rank = sources.iter().zip(&operands).any(|(source, operand)| {
        source.is_none() && TensorType::of(*operand).is_some_and(|ty| ty.shape.len() > from.len())
    });
    if !batch_norm && raises_rank {
        return None;
    }
    Some(sources)
}

/// Whether `from` and `to` differ only in dimensions of size 1 (and do differ).
fn unit_change(from: &[usize], to: &[usize]) -> bool {
    let real = |shape: &[usize]| {
        shape
            .iter()
            .copied()
            .filter(|&size| size != 1)
            .collect::<Vec<_>>()
    };
    from != to && real(from) == real(to)
}

/// Makes `op` read `sources` where given, take their shape, and hands its readers a reshape of
/// its result to the old shape; erases the reshapes it read when nothing else reads them.
fn sink_below(op: Op, sources: &[Option<Val>]) {
    let result = op.result(0);
    let old_type = result.r#type();
    let readers = result.uses();
    let mut replaced: Vec<Op> = Vec::new();
    for (position, source) in sources.iter().enumerate() {
        let Some(source) = *source else { continue };
        let reshape = op
            .operand(position)
            .defining_op()
            .expect("a unit reshape reads it");
        op.set_operand(position, source);
        if !replaced
            .iter()
            .any(|seen| seen.raw().ptr == reshape.raw().ptr)
        {
            replaced.push(reshape);
        }
    }
    let shape = TensorType::of(
        sources
            .iter()
            .flatten()
            .next()
            .copied()
            .expect("one source"),
    )
    .expect("a ranked source")
    .shape;
    result.set_type(tensor_like(result, &shape));
    // SAFETY: `op` is alive in its block, which its terminator follows.
    let next = unsafe { Op::from_raw(mlirOperationGetNextInBlock(op.raw())) };
    let back = create(
        InsertionPoint::Before(next),
        op.location(),
        graph::Kind::Reshape,
        &[result],
        &[old_type],
        &[],
        Vec::new(),
    );
    for (reader, position) in readers {
        reader.set_operand(position, back.result(0));
    }
    for reshape in replaced {
        if reshape.result(0).is_unused() {
            // SAFETY: the reshape feeds nothing now and holds no region; the caller's walk has
            // passed it (it precedes `op`) and keeps no handle to it that it uses again.
            unsafe { reshape.erase() };
        }
    }
}

/// `op` as the operation reference `graph::is_elementwise` asks about.
fn unsafe_ref(op: Op) -> melior::ir::OperationRef<'static, 'static> {
    // SAFETY: the op is alive for the pass, longer than the question.
    unsafe { melior::ir::OperationRef::from_raw(op.raw()) }
}
