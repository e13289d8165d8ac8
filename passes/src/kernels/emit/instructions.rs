//! The asynchronous instructions of the `dsa` dialect: each returns its token and waits on the
//! tokens it is given.

use super::Body;
use crate::ir::{self, Val};
use crate::kernels::view::to_i64;
use mlir_sys::*;
use turbine_dialects::attributes::{
    dsa::{BinaryKind, ComparePredicate, PoolKind, ReduceKind, UnaryKind},
    EnumAttribute,
};
use turbine_dialects::ops::dsa;

impl Body {
    /// An asynchronous instruction of kind `kind` returning its token; `after` lists the tokens
    /// it waits on (the instruction's last, variadic operands).
    pub fn instruction(
        &mut self,
        kind: dsa::Kind,
        buffers: &[Val],
        after: &[Val],
        attributes: &[ir::NamedAttribute],
    ) -> Val {
        let token = self.token_type();
        let mut operands = buffers.to_vec();
        operands.extend_from_slice(after);
        self.op(kind, &operands, &[token], attributes).result(0)
    }

    /// `dsa.dma source to target`.
    pub fn dma(&mut self, source: impl Into<Val>, target: impl Into<Val>, after: &[Val]) -> Val {
        self.instruction(dsa::Kind::Dma, &[source.into(), target.into()], after, &[])
    }

    /// `dsa.convert input into output` (to the output's element type).
    pub fn convert(&mut self, input: Val, output: Val, after: &[Val]) -> Val {
        self.instruction(dsa::Kind::Convert, &[input, output], after, &[])
    }

    /// `dsa.compare predicate lhs, rhs into output` (booleans).
    pub fn compare_elements(
        &mut self,
        predicate: ComparePredicate,
        (lhs, rhs, output): (Val, Val, Val),
        after: &[Val],
    ) -> Val {
        let attributes = [("predicate", predicate.raw_attribute(self.context))];
        self.instruction(dsa::Kind::Compare, &[lhs, rhs, output], after, &attributes)
    }

    /// `dsa.select condition, lhs, rhs into output`.
    pub fn select_elements(
        &mut self,
        (condition, lhs, rhs, output): (Val, Val, Val, Val),
        after: &[Val],
    ) -> Val {
        self.instruction(
            dsa::Kind::Select,
            &[condition, lhs, rhs, output],
            after,
            &[],
        )
    }

    /// `dsa.gather table[indices] to target` along `axis`.
    pub fn gather(
        &mut self,
        table: Val,
        indices: Val,
        target: Val,
        axis: usize,
        after: &[Val],
    ) -> Val {
        let axis = ("axis", ir::i64_attribute(self.context, axis as i64));
        self.instruction(dsa::Kind::Gather, &[table, indices, target], after, &[axis])
    }

    /// `dsa.argmax input into output` (or `dsa.argmin` without `largest`) along `axis`, the last
    /// of equal extremes with `last`.
    pub fn arg_reduce(
        &mut self,
        (largest, last): (bool, bool),
        (input, output): (Val, Val),
        axis: usize,
        after: &[Val],
    ) -> Val {
        let kind = if largest {
            dsa::Kind::ArgMax
        } else {
            dsa::Kind::ArgMin
        };
        let mut attributes = vec![("axis", ir::i64_attribute(self.context, axis as i64))];
        if last {
            // SAFETY: the context is alive.
            attributes.push(("select_last", unsafe { mlirUnitAttrGet(self.context) }));
        }
        self.instruction(kind, &[input, output], after, &attributes)
    }

    /// `dsa.top_k input into values, indices` along `axis`: the largest elements of each line
    /// with `largest`, else the smallest.
    pub fn top_k(
        &mut self,
        largest: bool,
        (input, values, indices): (Val, Val, Val),
        axis: usize,
        after: &[Val],
    ) -> Val {
        let mut attributes = vec![("axis", ir::i64_attribute(self.context, axis as i64))];
        if largest {
            // SAFETY: the context is alive.
            attributes.push(("largest", unsafe { mlirUnitAttrGet(self.context) }));
        }
        let buffers = [input, values, indices];
        self.instruction(dsa::Kind::TopK, &buffers, after, &attributes)
    }

    /// `dsa.gather_elements data[indices] to target` along `axis`.
    pub fn gather_elements(
        &mut self,
        (data, indices, target): (Val, Val, Val),
        axis: usize,
        after: &[Val],
    ) -> Val {
        let axis = ("axis", ir::i64_attribute(self.context, axis as i64));
        self.instruction(
            dsa::Kind::GatherElements,
            &[data, indices, target],
            after,
            &[axis],
        )
    }

    /// `dsa.scatter_elements updates[indices] into target` along `axis`, combining by
    /// `reduction` (replacing when none).
    pub fn scatter_elements(
        &mut self,
        (updates, indices, target): (Val, Val, Val),
        axis: usize,
        reduction: Option<BinaryKind>,
        after: &[Val],
    ) -> Val {
        let mut attributes = vec![("axis", ir::i64_attribute(self.context, axis as i64))];
        if let Some(kind) = reduction {
            attributes.push(("reduction", kind.raw_attribute(self.context)));
        }
        self.instruction(
            dsa::Kind::ScatterElements,
            &[updates, indices, target],
            after,
            &attributes,
        )
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
        self.instruction(dsa::Kind::Unary, &[input, output], after, &attributes)
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
        self.instruction(dsa::Kind::Binary, &[lhs, rhs, output], after, &attributes)
    }

    /// `dsa.matmul lhs, rhs into acc [accumulate]`.
    pub fn matmul(&mut self, lhs: Val, rhs: Val, acc: Val, accumulate: bool, after: &[Val]) -> Val {
        let mut attributes = Vec::new();
        if accumulate {
            // SAFETY: the context is alive.
            attributes.push(("accumulate", unsafe { mlirUnitAttrGet(self.context) }));
        }
        self.instruction(dsa::Kind::Matmul, &[lhs, rhs, acc], after, &attributes)
    }

    /// `dsa.conv2d input, filter into output` with its window.
    // One parameter per operand and attribute of the op, as the other builders take them.
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
        self.instruction(
            dsa::Kind::Conv2d,
            &[input, filter, output],
            after,
            &attributes,
        )
    }

    /// `dsa.pool kind input into output` with its window.
    // One parameter per operand and attribute of the op, as the other builders take them.
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
        self.instruction(dsa::Kind::Pool, &[input, output], after, &attributes)
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
        self.instruction(dsa::Kind::Reduce, &[input, output], after, &attributes)
    }
}
