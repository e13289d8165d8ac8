//! The builder the lowering writes `dsa` code with: buffer types, views, and the ops of one
//! function or kernel body, created in place through [`crate::ir::create`] and returning values.
//!
//! The lowering plans in Rust; this module turns each planned step into an op at the current
//! insertion point, with the location of the graph op being lowered, so that every op of a kernel
//! leads back to the model's layer and data flow is checked as the IR is built. Nested regions
//! (`scf.for`, `scf.if`) are opened and closed like blocks of text: [`Body::open_for`] and
//! [`Body::open_if`] move the insertion point into the new region, [`Body::close`] ends it with
//! its terminator.

use super::view::to_i64;
pub use super::view::{Space, View};
use crate::ir::{self, InsertionPoint, Op, Val};
use mlir_sys::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use turbine_dialects::attributes::{
    dsa::{BinaryKind, PoolKind, ReduceKind, UnaryKind},
    EnumAttribute,
};

/// A graph value as a kernel sees it: the host buffer (or view) and its type.
#[derive(Debug, Clone)]
pub struct Tensor {
    /// The host-side value.
    pub host: Val,
    /// Its type.
    pub view: View,
}

/// A host-side view of `source` with another shape of the same elements (a reshape of a
/// contiguous buffer or window).
pub fn reshaped(host: &mut Body, source: &Tensor, shape: &[usize]) -> Tensor {
    let view = View::contiguous(shape, source.view.space);
    // A strided view seen with another shape would read the wrong elements: refuse loudly.
    assert!(
        source.view.is_contiguous(),
        "reshapes take contiguous views, not {:?}",
        source.view
    );
    if source.view.dynamic_offset {
        // A contiguous window of a larger buffer (a cluster's or an instance's share) keeps its
        // offset.
        let (value, view) = host.reshape_window(source.host, &source.view, &view);
        return Tensor { host: value, view };
    }
    let value = host.reinterpret(source.host, &view);
    Tensor { host: value, view }
}

/// Integer comparisons the lowering makes (`arith.cmpi` predicates).
#[derive(Debug, Clone, Copy)]
pub enum Compare {
    /// `==`.
    Eq = 0,
    /// `!=`.
    Ne = 1,
    /// Unsigned `<`.
    Ult = 6,
    /// Unsigned `>=`.
    Uge = 9,
}

/// Loads a chunk (its index) into a half of a pipeline's double buffers; returns the tokens.
pub type LoadChunk<'a> = dyn FnMut(&mut Body, Val, [Val; 2]) -> Vec<Val> + 'a;
/// Computes from a half of a pipeline's double buffers (accumulating or not, after the tokens).
pub type ComputeChunk<'a> = dyn FnMut(&mut Body, [Val; 2], bool, &[Val]) -> Val + 'a;

/// An insertion frame: the block ops go to, and the `scf.if` whose else region
/// [`Body::reopen`] moves to.
#[derive(Debug, Clone, Copy)]
struct Frame {
    block: MlirBlock,
    if_op: Option<Op>,
    /// Ops go before this op of the block instead of at its end (a kernel's preamble).
    before: Option<Op>,
}

/// Host values that stand for one buffer per cluster (a tensor each cluster holds in its own
/// GB, or its own slice of a DDR tensor), by the handle of the first: the others, in cluster
/// order. A kernel launched on several clusters at once takes them all and picks its cluster's
/// ([`super::kernel::Kernel::per_cluster`]); a host body that knows them makes every view of
/// such a value for each cluster.
pub type Replicas = Rc<RefCell<BTreeMap<usize, Vec<Val>>>>;

/// The body of one function or kernel being built.
#[derive(Debug)]
pub struct Body {
    context: MlirContext,
    location: MlirLocation,
    frames: Vec<Frame>,
    replicas: Option<Replicas>,
}

impl Body {
    /// A body appending to `block`, with ops at `location`.
    pub fn new(block: MlirBlock, location: MlirLocation) -> Self {
        // SAFETY: the location is alive.
        let context = unsafe { mlirLocationGetContext(location) };
        Self {
            context,
            location,
            frames: vec![Frame {
                block,
                if_op: None,
                before: None,
            }],
            replicas: None,
        }
    }

    /// A host body that makes each view of a replicated value for every cluster.
    pub fn with_replicas(mut self, replicas: Replicas) -> Self {
        self.replicas = Some(replicas);
        self
    }

    /// Applies `make` to `source` and, when `source` stands for one buffer per cluster, to each
    /// other cluster's too, recording the results as replicas of the first.
    fn replicated(&mut self, source: Val, make: impl Fn(&mut Body, Val) -> Val) -> Val {
        let value = make(self, source);
        let others = self
            .replicas
            .as_ref()
            .and_then(|replicas| replicas.borrow().get(&(source.0.ptr as usize)).cloned());
        if let (Some(others), Some(replicas)) = (others, self.replicas.clone()) {
            let made: Vec<Val> = others.into_iter().map(|other| make(self, other)).collect();
            replicas.borrow_mut().insert(value.0.ptr as usize, made);
        }
        value
    }

    /// The context ops are built in.
    pub fn context(&self) -> MlirContext {
        self.context
    }

    /// The location new ops get.
    pub fn location(&self) -> MlirLocation {
        self.location
    }

    /// Gives the following ops `location` (the graph op being lowered).
    pub fn set_location(&mut self, location: MlirLocation) {
        self.location = location;
    }

    /// A body inserting before `op` (in `op`'s block), with ops at `location`.
    pub fn before(op: Op, location: MlirLocation) -> Self {
        // SAFETY: the op and the location are alive.
        let (context, block) = unsafe {
            (
                mlirLocationGetContext(location),
                mlirOperationGetBlock(op.0),
            )
        };
        Self {
            context,
            location,
            frames: vec![Frame {
                block,
                if_op: None,
                before: Some(op),
            }],
            replicas: None,
        }
    }

    /// Where new ops go: the end of the innermost block, or before the op a body was made for.
    fn point(&self) -> InsertionPoint {
        let frame = self.frames.last().expect("a body has a block");
        match frame.before {
            Some(op) => InsertionPoint::Before(op),
            None => InsertionPoint::End(frame.block),
        }
    }

    /// Creates `name` at the insertion point.
    pub fn op(
        &mut self,
        name: &str,
        operands: &[Val],
        results: &[MlirType],
        attributes: &[ir::NamedAttribute],
    ) -> Op {
        ir::create(
            self.point(),
            self.location,
            name,
            operands,
            results,
            attributes,
            Vec::new(),
        )
    }

    /// `dsa.cluster_id`.
    pub fn cluster_id(&mut self) -> Val {
        let r#type = self.index_type();
        self.op("dsa.cluster_id", &[], &[r#type], &[]).result(0)
    }

    /// `condition ? if_true : if_false` (`arith.select`, any type).
    pub fn select(&mut self, condition: Val, if_true: Val, if_false: Val) -> Val {
        let r#type = if_true.r#type();
        self.op(
            "arith.select",
            &[condition, if_true, if_false],
            &[r#type],
            &[],
        )
        .result(0)
    }

    fn index_type(&self) -> MlirType {
        // SAFETY: the context is alive.
        unsafe { mlirIndexTypeGet(self.context) }
    }

    fn i1(&self) -> MlirType {
        // SAFETY: the context is alive.
        unsafe { mlirIntegerTypeGet(self.context, 1) }
    }

    fn token_type(&self) -> MlirType {
        // SAFETY: the context is alive.
        unsafe { turbine_dialects::attributes::dsa::raw::token_type(self.context) }
    }

    /// An `index` constant.
    pub fn index(&mut self, value: usize) -> Val {
        let r#type = self.index_type();
        // SAFETY: an index-typed integer attribute of the context.
        let attribute = unsafe { mlirIntegerAttrGet(r#type, value as i64) };
        self.op("arith.constant", &[], &[r#type], &[("value", attribute)])
            .result(0)
    }

    /// `lhs op rhs` on indices (`muli`, `addi`, `subi`, `divui`, `remui`).
    pub fn arith(&mut self, op: &str, lhs: impl Into<Val>, rhs: impl Into<Val>) -> Val {
        let (lhs, rhs) = (lhs.into(), rhs.into());
        let r#type = self.index_type();
        self.op(&format!("arith.{op}"), &[lhs, rhs], &[r#type], &[])
            .result(0)
    }

    /// `value * factor`, folded when the factor is 1.
    pub fn scaled(&mut self, value: impl Into<Val>, factor: usize) -> Val {
        let value = value.into();
        if factor == 1 {
            return value;
        }
        let factor = self.index(factor);
        self.arith("muli", value, factor)
    }

    /// `value + delta` for a signed constant delta, folded when it is 0.
    pub fn shifted(&mut self, value: impl Into<Val>, delta: i64) -> Val {
        let value = value.into();
        match delta {
            0 => value,
            d if d > 0 => {
                let delta = self.index(d as usize);
                self.arith("addi", value, delta)
            }
            d => {
                let delta = self.index((-d) as usize);
                self.arith("subi", value, delta)
            }
        }
    }

    /// An index comparison.
    pub fn compare(&mut self, predicate: Compare, lhs: Val, rhs: Val) -> Val {
        let i1 = self.i1();
        // SAFETY: the predicate is an i64 attribute of the context.
        let attribute =
            unsafe { mlirIntegerAttrGet(mlirIntegerTypeGet(self.context, 64), predicate as i64) };
        self.op(
            "arith.cmpi",
            &[lhs, rhs],
            &[i1],
            &[("predicate", attribute)],
        )
        .result(0)
    }

    /// `lhs and rhs` / `lhs or rhs` on `i1` (`andi`, `ori`).
    pub fn logic(&mut self, op: &str, lhs: Val, rhs: Val) -> Val {
        let i1 = self.i1();
        self.op(&format!("arith.{op}"), &[lhs, rhs], &[i1], &[])
            .result(0)
    }

    /// `dsa.core_id`.
    pub fn core_id(&mut self) -> Val {
        let r#type = self.index_type();
        self.op("dsa.core_id", &[], &[r#type], &[]).result(0)
    }

    /// A buffer of type `view` (`dsa.alloc`).
    pub fn alloc(&mut self, view: &View) -> Val {
        let r#type = view.memref_type(self.context);
        self.op("dsa.alloc", &[], &[r#type], &[]).result(0)
    }

    /// A host buffer of type `view` placed on `cluster` (`dsa.alloc {cluster}`), for on-chip
    /// buffers that live across launches.
    pub fn alloc_on(&mut self, view: &View, cluster: usize) -> Val {
        let r#type = view.memref_type(self.context);
        let cluster = ir::i64_attribute(self.context, cluster as i64);
        self.op("dsa.alloc", &[], &[r#type], &[("cluster", cluster)])
            .result(0)
    }

    /// `dsa.dealloc`.
    pub fn dealloc(&mut self, buffer: Val) {
        self.op("dsa.dealloc", &[buffer], &[], &[]);
    }

    /// `dsa.wait` on `tokens`.
    pub fn wait(&mut self, tokens: &[Val]) {
        self.op("dsa.wait", tokens, &[], &[]);
    }

    /// The attributes of a `memref.reinterpret_cast` to `view` at a dynamic offset operand.
    fn cast_at_dynamic_offset(&self, view: &View) -> [ir::NamedAttribute<'static>; 4] {
        let segments = [1, 1, 0, 0];
        // SAFETY: the context is alive; MLIR copies the arrays; the dynamic marker is MLIR's.
        let (segments, dynamic) = unsafe {
            (
                mlirDenseI32ArrayGet(self.context, 4, segments.as_ptr()),
                mlirShapedTypeGetDynamicStrideOrOffset(),
            )
        };
        [
            ("operandSegmentSizes", segments),
            ("static_offsets", ir::i64_array(self.context, &[dynamic])),
            (
                "static_sizes",
                ir::i64_array(self.context, &to_i64(&view.shape)),
            ),
            (
                "static_strides",
                ir::i64_array(self.context, &to_i64(&view.strides)),
            ),
        ]
    }

    /// The elements of `view`'s shape and strides starting at element `offset` of `source`
    /// (`memref.reinterpret_cast` with a dynamic offset); returns the view and its type.
    pub fn reinterpret_at(&mut self, source: Val, offset: Val, view: &View) -> (Val, View) {
        let result = View {
            dynamic_offset: true,
            ..view.clone()
        };
        let r#type = result.memref_type(self.context);
        let attributes = self.cast_at_dynamic_offset(&result);
        let value = self.replicated(source, |body, source| {
            body.op(
                "memref.reinterpret_cast",
                &[source, offset],
                &[r#type],
                &attributes,
            )
            .result(0)
        });
        (value, result)
    }

    /// The elements of the contiguous window `source` (of type `view`, at a dynamic offset into
    /// its buffer) seen with the shape and strides of `result`: the same offset
    /// (`memref.extract_strided_metadata`), another shape (`memref.reinterpret_cast`).
    pub fn reshape_window(&mut self, source: Val, view: &View, result: &View) -> (Val, View) {
        let result = View {
            dynamic_offset: true,
            ..result.clone()
        };
        let r#type = result.memref_type(self.context);
        let base = View {
            shape: Vec::new(),
            strides: Vec::new(),
            dynamic_offset: false,
            space: view.space,
        };
        let index = self.index_type();
        let mut metadata = vec![base.memref_type(self.context), index];
        metadata.extend(std::iter::repeat_n(index, 2 * view.shape.len()));
        let attributes = self.cast_at_dynamic_offset(&result);
        // Each cluster's window has its own offset.
        let value = self.replicated(source, |body, source| {
            let offset = body
                .op("memref.extract_strided_metadata", &[source], &metadata, &[])
                .result(1);
            body.op(
                "memref.reinterpret_cast",
                &[source, offset],
                &[r#type],
                &attributes,
            )
            .result(0)
        });
        (value, result)
    }

    /// A contiguous view of `source` with another shape (`memref.reinterpret_cast`).
    pub fn reinterpret(&mut self, source: Val, view: &View) -> Val {
        let r#type = view.memref_type(self.context);
        let segments = [1, 0, 0, 0];
        // SAFETY: the context is alive; MLIR copies the arrays.
        let segments = unsafe { mlirDenseI32ArrayGet(self.context, 4, segments.as_ptr()) };
        let attributes = [
            ("operandSegmentSizes", segments),
            ("static_offsets", ir::i64_array(self.context, &[0])),
            (
                "static_sizes",
                ir::i64_array(self.context, &to_i64(&view.shape)),
            ),
            (
                "static_strides",
                ir::i64_array(self.context, &to_i64(&view.strides)),
            ),
        ];
        self.replicated(source, |body, source| {
            body.op("memref.reinterpret_cast", &[source], &[r#type], &attributes)
                .result(0)
        })
    }

    /// The view of `source` with dimensions permuted (`memref.transpose`); `result` is the
    /// permuted view (see [`View::permuted`]).
    pub fn transpose(&mut self, source: Val, result: &View, permutation: &[usize]) -> Val {
        let r#type = result.memref_type(self.context);
        let mut permutation: Vec<u32> = permutation.iter().map(|&d| d as u32).collect();
        // SAFETY: the context is alive; MLIR copies the permutation.
        let map = unsafe {
            mlirAffineMapAttrGet(mlirAffineMapPermutationGet(
                self.context,
                permutation.len() as isize,
                permutation.as_mut_ptr(),
            ))
        };
        self.replicated(source, |body, source| {
            body.op(
                "memref.transpose",
                &[source],
                &[r#type],
                &[("permutation", map)],
            )
            .result(0)
        })
    }

    fn subview_op(
        &mut self,
        source: Val,
        offsets: &[Val],
        sizes: &[usize],
        steps: &[usize],
        result: &View,
    ) -> Val {
        let r#type = result.memref_type(self.context);
        let segments = [1, offsets.len() as i32, 0, 0];
        // SAFETY: as in `reinterpret`; every offset is dynamic.
        let (segments, dynamic) = unsafe {
            (
                mlirDenseI32ArrayGet(self.context, 4, segments.as_ptr()),
                mlirShapedTypeGetDynamicStrideOrOffset(),
            )
        };
        let attributes = [
            ("operandSegmentSizes", segments),
            (
                "static_offsets",
                ir::i64_array(self.context, &vec![dynamic; offsets.len()]),
            ),
            ("static_sizes", ir::i64_array(self.context, &to_i64(sizes))),
            (
                "static_strides",
                ir::i64_array(self.context, &to_i64(steps)),
            ),
        ];
        self.replicated(source, |body, source| {
            let mut operands = vec![source];
            operands.extend_from_slice(offsets);
            body.op("memref.subview", &operands, &[r#type], &attributes)
                .result(0)
        })
    }

    /// A view without elements (of a buffer with a zero-size dimension, or of no elements of
    /// one) as a contiguous one at offset 0: nothing reads or writes it, and `memref.subview`
    /// would infer dynamic strides for the dimensions outside a zero-size one, which a `View`
    /// does not express. None when the view has elements.
    fn empty_view(&mut self, source: Val, view: &View, result: &View) -> Option<(Val, View)> {
        if view.elements() > 0 && result.elements() > 0 {
            return None;
        }
        let zero = self.index(0);
        Some(self.reinterpret_at(source, zero, &View::contiguous(&result.shape, result.space)))
    }

    /// A subview of `source` (of type `view`) at `offsets` with `sizes`, keeping the dimensions
    /// `keep` (all when None). Returns the view and its type.
    pub fn subview(
        &mut self,
        source: impl Into<Val>,
        view: &View,
        offsets: &[Val],
        sizes: &[usize],
        keep: Option<&[usize]>,
    ) -> (Val, View) {
        let all: Vec<usize> = (0..sizes.len()).collect();
        let result = view.window(sizes, keep.unwrap_or(&all));
        let source = source.into();
        if let Some(empty) = self.empty_view(source, view, &result) {
            return empty;
        }
        let value = self.subview_op(source, offsets, sizes, &vec![1; sizes.len()], &result);
        (value, result)
    }

    /// A subview taking every `steps[d]`-th element (a strided slice), keeping every dimension.
    pub fn subview_strided(
        &mut self,
        source: impl Into<Val>,
        view: &View,
        offsets: &[Val],
        sizes: &[usize],
        steps: &[usize],
    ) -> (Val, View) {
        let result = View {
            shape: sizes.to_vec(),
            strides: view
                .strides
                .iter()
                .zip(steps)
                .map(|(stride, step)| stride * step)
                .collect(),
            dynamic_offset: view.offset_after_dynamic_offsets(),
            space: view.space,
        };
        let source = source.into();
        if let Some(empty) = self.empty_view(source, view, &result) {
            return empty;
        }
        let value = self.subview_op(source, offsets, sizes, steps, &result);
        (value, result)
    }

    /// Opens `scf.for %i = low to high step step` and returns `%i`; close with [`Body::close`].
    pub fn open_for(&mut self, low: Val, high: Val, step: Val) -> Val {
        let (region, block) = ir::region_with_block(&[self.index_type()], self.location);
        ir::create(
            self.point(),
            self.location,
            "scf.for",
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
        // SAFETY: the block has its one argument.
        Val(unsafe { mlirBlockGetArgument(block, 0) })
    }

    /// Opens `scf.if condition` (then branch); [`Body::reopen`] moves to the else branch.
    pub fn open_if(&mut self, condition: Val) {
        let (then_region, block) = ir::region_with_block(&[], self.location);
        // SAFETY: an empty region for the else branch, owned by the op.
        let else_region = unsafe { mlirRegionCreate() };
        let op = ir::create(
            self.point(),
            self.location,
            "scf.if",
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
            "scf.yield",
            &[],
            &[],
            &[],
            Vec::new(),
        );
        // SAFETY: the if op is alive; its else region is empty until now.
        let block = unsafe {
            let block = mlirBlockCreate(0, std::ptr::null(), std::ptr::null());
            mlirRegionAppendOwnedBlock(mlirOperationGetRegion(op.0, 1), block);
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
            "scf.yield",
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
        let parity = self.arith("remui", chunk, two);
        let even = self.compare(Compare::Eq, parity, zero);
        let pick = |body: &mut Body, a: [Val; 2], b: [Val; 2]| {
            [body.select(even, a[0], b[0]), body.select(even, a[1], b[1])]
        };
        let current = pick(self, halves[0], halves[1]);
        let next = pick(self, halves[1], halves[0]);
        let token = compute(self, current, true, &[]);
        let following = self.arith("addi", chunk, one);
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

    /// An asynchronous instruction `name` returning its token; `after` lists the tokens it waits
    /// on (the instruction's last, variadic operands).
    pub fn instruction(
        &mut self,
        name: &str,
        buffers: &[Val],
        after: &[Val],
        attributes: &[ir::NamedAttribute],
    ) -> Val {
        let token = self.token_type();
        let mut operands = buffers.to_vec();
        operands.extend_from_slice(after);
        self.op(name, &operands, &[token], attributes).result(0)
    }

    /// `dsa.dma source to target`.
    pub fn dma(&mut self, source: impl Into<Val>, target: impl Into<Val>, after: &[Val]) -> Val {
        self.instruction("dsa.dma", &[source.into(), target.into()], after, &[])
    }

    /// `dsa.unary kind input into output`, with `min`/`max` (clip) or `scale`/`shift` (affine).
    pub fn unary(
        &mut self,
        kind: UnaryKind,
        input: Val,
        output: Val,
        parameters: &[(&str, f32)],
        after: &[Val],
    ) -> Val {
        let mut attributes = vec![("kind", kind.raw_attribute(self.context))];
        for &(name, value) in parameters {
            // SAFETY: an f32 attribute of the context.
            attributes.push((name, unsafe {
                mlirFloatAttrDoubleGet(self.context, mlirF32TypeGet(self.context), value as f64)
            }));
        }
        self.instruction("dsa.unary", &[input, output], after, &attributes)
    }

    /// `dsa.binary kind lhs, rhs into output`.
    pub fn binary(
        &mut self,
        kind: BinaryKind,
        lhs: Val,
        rhs: Val,
        output: Val,
        after: &[Val],
    ) -> Val {
        let attributes = [("kind", kind.raw_attribute(self.context))];
        self.instruction("dsa.binary", &[lhs, rhs, output], after, &attributes)
    }

    /// `dsa.matmul lhs, rhs into acc [accumulate]`.
    pub fn matmul(&mut self, lhs: Val, rhs: Val, acc: Val, accumulate: bool, after: &[Val]) -> Val {
        let mut attributes = Vec::new();
        if accumulate {
            // SAFETY: the context is alive.
            attributes.push(("accumulate", unsafe { mlirUnitAttrGet(self.context) }));
        }
        self.instruction("dsa.matmul", &[lhs, rhs, acc], after, &attributes)
    }

    /// `dsa.conv2d input, filter into output` with its window.
    #[allow(clippy::too_many_arguments)]
    pub fn conv2d(
        &mut self,
        input: Val,
        filter: Val,
        output: Val,
        strides: [usize; 2],
        pads: [usize; 4],
        dilations: [usize; 2],
        groups: usize,
        accumulate: bool,
        after: &[Val],
    ) -> Val {
        let context = self.context;
        let mut attributes = vec![
            ("strides", ir::i64_array(context, &to_i64(&strides))),
            ("pads", ir::i64_array(context, &to_i64(&pads))),
            ("dilations", ir::i64_array(context, &to_i64(&dilations))),
            ("groups", ir::i64_attribute(context, groups as i64)),
        ];
        if accumulate {
            // SAFETY: the context is alive.
            attributes.push(("accumulate", unsafe { mlirUnitAttrGet(context) }));
        }
        self.instruction("dsa.conv2d", &[input, filter, output], after, &attributes)
    }

    /// `dsa.pool kind input into output` with its window.
    #[allow(clippy::too_many_arguments)]
    pub fn pool(
        &mut self,
        kind: PoolKind,
        input: Val,
        output: Val,
        kernel: [usize; 2],
        strides: [usize; 2],
        pads: [usize; 4],
        count_include_pad: bool,
        after: &[Val],
    ) -> Val {
        let context = self.context;
        let attributes = [
            ("kind", kind.raw_attribute(context)),
            ("kernel", ir::i64_array(context, &to_i64(&kernel))),
            ("strides", ir::i64_array(context, &to_i64(&strides))),
            ("pads", ir::i64_array(context, &to_i64(&pads))),
            // SAFETY: the context is alive.
            ("count_include_pad", unsafe {
                mlirBoolAttrGet(context, count_include_pad as i32)
            }),
        ];
        self.instruction("dsa.pool", &[input, output], after, &attributes)
    }

    /// `dsa.reduce kind input into output` along `axis`.
    pub fn reduce(
        &mut self,
        kind: ReduceKind,
        input: Val,
        output: Val,
        axis: i64,
        after: &[Val],
    ) -> Val {
        let attributes = [
            ("kind", kind.raw_attribute(self.context)),
            ("axis", ir::i64_attribute(self.context, axis)),
        ];
        self.instruction("dsa.reduce", &[input, output], after, &attributes)
    }
}

/// Divisors of `n`, largest first.
pub fn divisors_descending(n: usize) -> Vec<usize> {
    let mut divisors: Vec<usize> = (1..=n).filter(|d| n.is_multiple_of(*d)).collect();
    divisors.reverse();
    divisors
}
