//! The builder the lowering writes `dsa` code with: buffer types, views, and the ops of one
//! function or kernel body, created in place through [`crate::ir::create`] and returning values.
//!
//! The lowering plans in Rust; this module turns each planned step into an op at the current
//! insertion point, with the location of the graph op being lowered, so that every op of a kernel
//! leads back to the model's layer and data flow is checked as the IR is built. Nested regions
//! (`scf.for`, `scf.if`) are opened and closed like blocks of text: [`Body::open_for`] and
//! [`Body::open_if`] move the insertion point into the new region, [`Body::close`] ends it with
//! its terminator.
//!
//! Here: the body, its insertion point and index arithmetic; [`buffers`] adds buffers and views
//! of them, [`regions`] nested regions and chunk loops, [`instructions`] the `dsa` instructions.

mod buffers;
mod instructions;
mod regions;

pub use super::view::{Space, View};
use crate::ir::{self, InsertionPoint, Op, Val};
use mlir_sys::*;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use turbine_dialects::ops::{dsa, upstream, OpKind};

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
    let view = View::contiguous_of(shape, source.view.space, source.view.element);
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

/// A host-side view of `source` (a contiguous buffer or window) with the shape and strides of
/// `view` (its offset is the source's): a broadcast with strides 0, a merged shape.
pub fn restrided(host: &mut Body, source: &Tensor, view: &View) -> Tensor {
    if source.view.dynamic_offset {
        let (value, view) = host.reshape_window(source.host, &source.view, view);
        return Tensor { host: value, view };
    }
    Tensor {
        host: host.reinterpret(source.host, view),
        view: view.clone(),
    }
}

/// Integer comparisons the lowering makes (`arith.cmpi` predicates).
#[derive(Debug, Clone, Copy)]
pub enum Compare {
    /// `==`.
    Eq = 0,
    /// `!=`.
    Ne = 1,
    /// Signed `<`.
    Slt = 2,
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
            .and_then(|replicas| replicas.borrow().get(&(source.raw().ptr as usize)).cloned());
        if let (Some(others), Some(replicas)) = (others, self.replicas.clone()) {
            let made: Vec<Val> = others.into_iter().map(|other| make(self, other)).collect();
            replicas.borrow_mut().insert(value.raw().ptr as usize, made);
        }
        value
    }

    /// The replicated values this body knows, if it makes views of them for every cluster.
    pub fn replicas(&self) -> Option<Replicas> {
        self.replicas.clone()
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
                mlirOperationGetBlock(op.raw()),
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

    /// Creates an op of kind `kind` at the insertion point.
    pub fn op(
        &mut self,
        kind: impl Into<OpKind>,
        operands: &[Val],
        results: &[MlirType],
        attributes: &[ir::NamedAttribute],
    ) -> Op {
        ir::create(
            self.point(),
            self.location,
            kind,
            operands,
            results,
            attributes,
            Vec::new(),
        )
    }

    /// `dsa.cluster_id`.
    pub fn cluster_id(&mut self) -> Val {
        let r#type = self.index_type();
        self.op(dsa::Kind::ClusterId, &[], &[r#type], &[]).result(0)
    }

    /// `condition ? if_true : if_false` (`arith.select`, any type).
    pub fn select(&mut self, condition: Val, if_true: Val, if_false: Val) -> Val {
        let r#type = if_true.r#type();
        self.op(
            upstream::Kind::ArithSelect,
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
        self.op(
            upstream::Kind::ArithConstant,
            &[],
            &[r#type],
            &[("value", attribute)],
        )
        .result(0)
    }

    /// `lhs op rhs` on indices.
    pub fn arith(&mut self, op: IndexOp, lhs: impl Into<Val>, rhs: impl Into<Val>) -> Val {
        let (lhs, rhs) = (lhs.into(), rhs.into());
        let r#type = self.index_type();
        self.op(op.kind(), &[lhs, rhs], &[r#type], &[]).result(0)
    }

    /// `value * factor`, folded when the factor is 1.
    pub fn scaled(&mut self, value: impl Into<Val>, factor: usize) -> Val {
        let value = value.into();
        if factor == 1 {
            return value;
        }
        let factor = self.index(factor);
        self.arith(IndexOp::Mul, value, factor)
    }

    /// `value + delta` for a signed constant delta, folded when it is 0.
    pub fn shifted(&mut self, value: impl Into<Val>, delta: i64) -> Val {
        let value = value.into();
        match delta {
            0 => value,
            d if d > 0 => {
                let delta = self.index(d as usize);
                self.arith(IndexOp::Add, value, delta)
            }
            d => {
                let delta = self.index((-d) as usize);
                self.arith(IndexOp::Sub, value, delta)
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
            upstream::Kind::ArithCmpi,
            &[lhs, rhs],
            &[i1],
            &[("predicate", attribute)],
        )
        .result(0)
    }

    /// `lhs and rhs` / `lhs or rhs` on `i1`.
    pub fn logic(&mut self, op: Logic, lhs: Val, rhs: Val) -> Val {
        let i1 = self.i1();
        let kind = match op {
            Logic::And => upstream::Kind::ArithAndi,
            Logic::Or => upstream::Kind::ArithOri,
        };
        self.op(kind, &[lhs, rhs], &[i1], &[]).result(0)
    }

    /// `dsa.core_id`.
    pub fn core_id(&mut self) -> Val {
        let r#type = self.index_type();
        self.op(dsa::Kind::CoreId, &[], &[r#type], &[]).result(0)
    }

    /// `dsa.wait` on `tokens`.
    pub fn wait(&mut self, tokens: &[Val]) {
        self.op(dsa::Kind::Wait, tokens, &[], &[]);
    }
}

/// Divisors of `n`, largest first (none for 0), found in pairs `(d, n / d)` with `d` up to the
/// square root: `sqrt(n)` steps.
pub fn divisors_descending(n: usize) -> Vec<usize> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d <= n / d {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    large.extend(small.into_iter().rev());
    large
}

/// An integer operation on indices ([`Body::arith`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexOp {
    /// `arith.addi`.
    Add,
    /// `arith.subi`.
    Sub,
    /// `arith.muli`.
    Mul,
    /// `arith.divui`.
    DivU,
    /// `arith.remui`.
    RemU,
    /// `arith.maxui`.
    MaxU,
}

impl IndexOp {
    /// The `arith` op it builds.
    pub fn kind(self) -> upstream::Kind {
        match self {
            Self::Add => upstream::Kind::ArithAddi,
            Self::Sub => upstream::Kind::ArithSubi,
            Self::Mul => upstream::Kind::ArithMuli,
            Self::DivU => upstream::Kind::ArithDivui,
            Self::RemU => upstream::Kind::ArithRemui,
            Self::MaxU => upstream::Kind::ArithMaxui,
        }
    }
}

/// A logical operation on `i1` ([`Body::logic`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Logic {
    /// `arith.andi`.
    And,
    /// `arith.ori`.
    Or,
}

#[cfg(test)]
mod tests {
    use super::divisors_descending;

    #[test]
    fn divisors_are_every_divisor_largest_first() {
        for n in 0..500usize {
            let expected: Vec<usize> = (1..=n).rev().filter(|d| n.is_multiple_of(*d)).collect();
            assert_eq!(divisors_descending(n), expected, "{n}");
        }
        assert_eq!(divisors_descending(1 << 40).len(), 41);
    }
}
