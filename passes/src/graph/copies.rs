//! Building data movement (slices, broadcasts, concatenations, gathers by constant indices) and
//! elementwise arithmetic in front of a graph op, at its location: what the decompositions of
//! `graph.resize` and `graph.pad` into ops every schedule compiles are made of.

use crate::{
    ir::{create, i64_array, i64_attribute, InsertionPoint, Op, Val},
    slicing::sliced_body::tensor_like,
};
use mlir_sys::*;
use turbine_dialects::ops::graph;

/// Builds ops before one op, at its location.
pub(super) struct Copies {
    at: InsertionPoint,
    location: MlirLocation,
    context: MlirContext,
}

impl Copies {
    /// A builder before `op`, at its location.
    pub(super) fn before(op: Op) -> Copies {
        Copies {
            at: InsertionPoint::Before(op),
            location: op.location(),
            context: op.context(),
        }
    }

    /// An op of `kind` on `operands` with a result of `shape` (of the first operand's element
    /// type).
    pub(super) fn op(
        &self,
        kind: graph::Kind,
        operands: &[Val],
        shape: &[usize],
        attributes: &[(&str, MlirAttribute)],
    ) -> Val {
        let r#type = tensor_like(operands[0], shape);
        create(
            self.at,
            self.location,
            kind,
            operands,
            &[r#type],
            attributes,
            Vec::new(),
        )
        .result(0)
    }

    /// `count` elements of `value` (of `shape`) along `dimension` from `start` by `step`.
    pub(super) fn slice(
        &self,
        value: Val,
        shape: &[usize],
        dimension: usize,
        start: i64,
        step: i64,
        count: usize,
    ) -> Val {
        let mut starts = vec![0i64; shape.len()];
        let mut steps = vec![1i64; shape.len()];
        starts[dimension] = start;
        steps[dimension] = step;
        let mut sized = shape.to_vec();
        sized[dimension] = count;
        let starts = ("starts", i64_array(self.context, &starts));
        if step == 1 {
            self.op(graph::Kind::Slice, &[value], &sized, &[starts])
        } else {
            let steps = ("steps", i64_array(self.context, &steps));
            self.op(graph::Kind::Slice, &[value], &sized, &[starts, steps])
        }
    }

    /// Element `index` of `value` (of `shape`) along `dimension`, repeated `count` times.
    pub(super) fn repeat(
        &self,
        value: Val,
        shape: &[usize],
        dimension: usize,
        index: i64,
        count: usize,
    ) -> Val {
        let one = self.slice(value, shape, dimension, index, 1, 1);
        if count == 1 {
            return one;
        }
        let mut sized = shape.to_vec();
        sized[dimension] = count;
        self.op(graph::Kind::Broadcast, &[one], &sized, &[])
    }

    /// `values` joined along `dimension` into a result of `shape` (a single value as it is).
    pub(super) fn concat(&self, values: &[Val], shape: &[usize], dimension: usize) -> Val {
        if let [single] = values {
            return *single;
        }
        self.op(graph::Kind::Concat, values, shape, &[self.axis(dimension)])
    }

    /// The `axis` attribute naming `dimension`.
    pub(super) fn axis(&self, dimension: usize) -> (&'static str, MlirAttribute) {
        ("axis", i64_attribute(self.context, dimension as i64))
    }

    /// A 1-D i64 constant holding `values` (the indices of a gather).
    pub(super) fn index_constant(&self, values: &[i64]) -> Val {
        let shape = [values.len() as i64];
        // SAFETY: a ranked tensor type of a live context's i64 and a dense attribute of one value
        // per element; MLIR copies the values.
        let (r#type, attribute) = unsafe {
            let r#type = mlirRankedTensorTypeGet(
                1,
                shape.as_ptr(),
                mlirIntegerTypeGet(self.context, 64),
                mlirAttributeGetNull(),
            );
            let attribute =
                mlirDenseElementsAttrInt64Get(r#type, values.len() as isize, values.as_ptr());
            (r#type, attribute)
        };
        self.constant_of(r#type, attribute)
    }

    /// An f32 constant of `shape` holding `values` (one value: a splat), with the element type
    /// of `like`.
    pub(super) fn constant(&self, like: Val, values: &[f32], shape: &[usize]) -> Val {
        let r#type = tensor_like(like, shape);
        // SAFETY: a live f32 tensor type; a splat of one value or one value per element; MLIR
        // copies the values.
        let attribute = unsafe {
            match values {
                [value] => mlirDenseElementsAttrSplatGet(
                    r#type,
                    mlirFloatAttrDoubleGet(
                        self.context,
                        mlirF32TypeGet(self.context),
                        *value as f64,
                    ),
                ),
                _ => mlirDenseElementsAttrFloatGet(r#type, values.len() as isize, values.as_ptr()),
            }
        };
        self.constant_of(r#type, attribute)
    }

    /// A `graph.constant` of type `r#type` holding the dense `attribute`.
    fn constant_of(&self, r#type: MlirType, attribute: MlirAttribute) -> Val {
        create(
            self.at,
            self.location,
            graph::Kind::Constant,
            &[],
            &[r#type],
            &[("value", attribute)],
            Vec::new(),
        )
        .result(0)
    }
}
