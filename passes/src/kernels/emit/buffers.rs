//! Buffers and views of them: `dsa.alloc` and `dsa.dealloc`, and the `memref` ops that see a
//! buffer with another shape, offset, permutation or window. A view of a value that stands for
//! one buffer per cluster is made for every cluster ([`super::Replicas`]).

use super::Body;
use crate::ir::{self, Val};
use crate::kernels::view::{to_i64, View};
use mlir_sys::*;
use turbine_dialects::ops::{dsa, upstream};

impl Body {
    /// A buffer of type `view` (`dsa.alloc`).
    pub fn alloc(&mut self, view: &View) -> Val {
        let r#type = view.memref_type(self.context);
        self.op(dsa::Kind::Alloc, &[], &[r#type], &[]).result(0)
    }

    /// A host buffer of type `view` placed on `cluster` (`dsa.alloc {cluster}`), for on-chip
    /// buffers that live across launches.
    pub fn alloc_on(&mut self, view: &View, cluster: usize) -> Val {
        let r#type = view.memref_type(self.context);
        let cluster = ir::i64_attribute(self.context, cluster as i64);
        self.op(dsa::Kind::Alloc, &[], &[r#type], &[("cluster", cluster)])
            .result(0)
    }

    /// `dsa.dealloc`.
    pub fn dealloc(&mut self, buffer: Val) {
        self.op(dsa::Kind::Dealloc, &[buffer], &[], &[]);
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
                upstream::Kind::MemrefReinterpretCast,
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
            element: view.element,
        };
        let index = self.index_type();
        let mut metadata = vec![base.memref_type(self.context), index];
        metadata.extend(std::iter::repeat_n(index, 2 * view.shape.len()));
        let attributes = self.cast_at_dynamic_offset(&result);
        // Each cluster's window has its own offset.
        let value = self.replicated(source, |body, source| {
            let offset = body
                .op(
                    upstream::Kind::MemrefExtractStridedMetadata,
                    &[source],
                    &metadata,
                    &[],
                )
                .result(1);
            body.op(
                upstream::Kind::MemrefReinterpretCast,
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
            body.op(
                upstream::Kind::MemrefReinterpretCast,
                &[source],
                &[r#type],
                &attributes,
            )
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
                upstream::Kind::MemrefTranspose,
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
            body.op(
                upstream::Kind::MemrefSubview,
                &operands,
                &[r#type],
                &attributes,
            )
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
        let empty = View::contiguous_of(&result.shape, result.space, result.element);
        Some(self.reinterpret_at(source, zero, &empty))
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
            element: view.element,
        };
        let source = source.into();
        if let Some(empty) = self.empty_view(source, view, &result) {
            return empty;
        }
        let value = self.subview_op(source, offsets, sizes, steps, &result);
        (value, result)
    }
}
