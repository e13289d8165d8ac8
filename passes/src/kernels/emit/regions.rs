//! Nested regions, opened and closed like blocks of text (`scf.for`, `scf.if` and its else
//! branch), and the loops over a tile's accumulation chunks built of them.

use super::{Body, Compare, ComputeChunk, Frame, LoadChunk};
use crate::ir::{self, InsertionPoint, Val};
use crate::kernels::emit::IndexOp;
use mlir_sys::*;
use turbine_dialects::ops::upstream;

impl Body {
    /// Opens `scf.for %i = low to high step step` and returns `%i`; close with [`Body::close`].
    pub fn open_for(&mut self, low: Val, high: Val, step: Val) -> Val {
        let (region, block) = ir::region_with_block(&[self.index_type()], self.location);
        ir::create(
            self.point(),
            self.location,
            upstream::Kind::ScfFor,
            &[low, high, step],
            &[],
            &[],
            vec![region],
        );
        self.frames.push(Frame {
            block,
            if_op: None,
            before: None,
        });
        // SAFETY: the block has its one argument, which lives with the block, now the loop's.
        unsafe { Val::from_raw(mlirBlockGetArgument(block, 0)) }
    }

    /// Creates an op of kind `kind` with `regions` (detached ones it takes over, such as
    /// [`ir::region_with_block`] returns) at the insertion point.
    pub fn op_with_regions(
        &mut self,
        kind: impl Into<turbine_dialects::ops::OpKind>,
        operands: &[Val],
        results: &[MlirType],
        regions: Vec<MlirRegion>,
    ) -> crate::ir::Op {
        ir::create(
            self.point(),
            self.location,
            kind,
            operands,
            results,
            &[],
            regions,
        )
    }

    /// Opens `scf.if condition` (then branch); [`Body::reopen`] moves to the else branch.
    pub fn open_if(&mut self, condition: Val) {
        let (then_region, block) = ir::region_with_block(&[], self.location);
        // SAFETY: an empty region for the else branch, owned by the op.
        let else_region = unsafe { mlirRegionCreate() };
        let op = ir::create(
            self.point(),
            self.location,
            upstream::Kind::ScfIf,
            &[condition],
            &[],
            &[],
            vec![then_region, else_region],
        );
        self.frames.push(Frame {
            block,
            if_op: Some(op),
            before: None,
        });
    }

    /// Ends the then branch of the innermost `scf.if` and continues in its else branch.
    pub fn reopen(&mut self) {
        let frame = self.frames.pop().expect("reopen follows open_if");
        let op = frame.if_op.expect("reopen follows open_if");
        ir::create(
            InsertionPoint::End(frame.block),
            self.location,
            upstream::Kind::ScfYield,
            &[],
            &[],
            &[],
            Vec::new(),
        );
        // SAFETY: the if op is alive; its else region is empty until now.
        let block = unsafe {
            let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
            mlirRegionAppendOwnedBlock(mlirOperationGetRegion(op.raw(), 1), block);
            block
        };
        self.frames.push(Frame {
            block,
            if_op: None,
            before: None,
        });
    }

    /// Ends the innermost region with `scf.yield`.
    pub fn close(&mut self) {
        let frame = self.frames.pop().expect("close follows an open");
        assert!(!self.frames.is_empty(), "close never ends the body itself");
        ir::create(
            InsertionPoint::End(frame.block),
            self.location,
            upstream::Kind::ScfYield,
            &[],
            &[],
            &[],
            Vec::new(),
        );
    }

    /// Emits `emit` for `count` accumulation chunks: chunk 0 overwrites (`accumulate` false),
    /// the others, in an `scf.for`, accumulate.
    pub fn chunks(&mut self, count: usize, emit: &mut dyn FnMut(&mut Body, Val, bool)) {
        let first = self.index(0);
        emit(self, first, false);
        if count > 1 {
            let start = self.index(1);
            let end = self.index(count);
            let step = self.index(1);
            let chunk = self.open_for(start, end, step);
            emit(self, chunk, true);
            self.close();
        }
    }

    /// Emits `count` (at least 2) accumulation chunks as a software pipeline over two halves of
    /// double buffers (GraphTurbo §4.4 within a layer): `load` fills a half with a chunk's
    /// operands and returns their tokens; `compute` reads a half (overwriting the accumulator for
    /// chunk 0, accumulating after) and returns its token. Each compute is emitted before the next
    /// chunk's loads, which then start at once, and the wait ending a chunk covers both: chunk
    /// c + 2's loads, into the half chunk c read, come after it.
    pub fn pipelined_chunks(
        &mut self,
        count: usize,
        halves: [[Val; 2]; 2],
        load: &mut LoadChunk<'_>,
        compute: &mut ComputeChunk<'_>,
    ) {
        debug_assert!(count >= 2, "a pipeline of one chunk has nothing to overlap");
        let zero = self.index(0);
        let loaded = load(self, zero, halves[0]);
        let first = compute(self, halves[0], false, &loaded);
        let one = self.index(1);
        let mut fence = load(self, one, halves[1]);
        fence.push(first);
        self.wait(&fence);
        let end = self.index(count);
        let chunk = self.open_for(one, end, one);
        let two = self.index(2);
        let parity = self.arith(IndexOp::RemU, chunk, two);
        let even = self.compare(Compare::Eq, parity, zero);
        let pick = |body: &mut Body, a: [Val; 2], b: [Val; 2]| {
            [body.select(even, a[0], b[0]), body.select(even, a[1], b[1])]
        };
        let current = pick(self, halves[0], halves[1]);
        let next = pick(self, halves[1], halves[0]);
        let token = compute(self, current, true, &[]);
        let following = self.arith(IndexOp::Add, chunk, one);
        let more = self.compare(Compare::Ult, following, end);
        self.open_if(more);
        let mut fence = load(self, following, next);
        fence.push(token);
        self.wait(&fence);
        self.reopen();
        self.wait(&[token]);
        self.close();
        self.close();
    }
}
