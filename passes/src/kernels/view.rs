//! Buffer types as the lowering plans them: the memory level, and a view's shape, strides and
//! offset, turned into `memref` types in a `dsa` memory space.

use crate::graph_view::ElementType;
use mlir_sys::*;
use turbine_dialects::attributes::{dsa::MemorySpace, EnumAttribute};

/// A memory level of the accelerator the layer-wise lowering uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Space {
    /// A core's local buffer.
    Lb,
    /// A cluster's global buffer.
    Gb,
    /// DDR.
    Ddr,
}

impl Space {
    /// Bytes per cycle one core can expect to load from this space while the other cores of its
    /// cluster load too (they share the cluster's DDR port or GB bus), for the tiling estimates.
    pub fn core_bandwidth(self, machine: &crate::target::Machine) -> f64 {
        let cores = machine.cores_per_cluster as f64;
        match self {
            Space::Ddr => machine.ddr_bandwidth / cores,
            Space::Gb => machine.gb_bandwidth / cores,
            // LB to LB holds nothing shared.
            Space::Lb => machine.lb_bandwidth,
        }
    }

    /// Bytes per cycle one transfer from this space moves when it has the cluster's DDR port or
    /// GB bus to itself (the runtime gives a transfer the whole port while it holds it).
    pub fn link_bandwidth(self, machine: &crate::target::Machine) -> f64 {
        match self {
            Space::Ddr => machine.ddr_bandwidth,
            Space::Gb => machine.gb_bandwidth,
            Space::Lb => machine.lb_bandwidth,
        }
    }

    /// The shared port a transfer from this space holds (DDR port, GB bus), as an index into a
    /// per-port tally; None for LB↔LB paths, which share nothing.
    pub fn port(self) -> Option<usize> {
        match self {
            Space::Ddr => Some(0),
            Space::Gb => Some(1),
            Space::Lb => None,
        }
    }

    fn memory_space(self) -> MemorySpace {
        match self {
            Space::Lb => MemorySpace::Lb,
            Space::Gb => MemorySpace::Gb,
            Space::Ddr => MemorySpace::Ddr,
        }
    }
}

/// Row-major strides of `shape`, in elements.
pub fn contiguous_strides(shape: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    strides
}

pub(super) fn to_i64(values: &[usize]) -> Vec<i64> {
    values.iter().map(|&v| v as i64).collect()
}

/// The type of a buffer or of a view into one: shape, strides in elements, whether the offset is
/// known (0) or dynamic, and the element type.
#[derive(Debug, Clone, PartialEq)]
pub struct View {
    /// Dimension sizes.
    pub shape: Vec<usize>,
    /// Strides in elements.
    pub strides: Vec<usize>,
    /// True when the offset is a runtime value (a view made with SSA offsets).
    pub dynamic_offset: bool,
    /// Where the buffer lives.
    pub space: Space,
    /// The element type (not [`ElementType::Other`]).
    pub element: ElementType,
}

impl View {
    /// A whole contiguous buffer of f32.
    pub fn contiguous(shape: &[usize], space: Space) -> Self {
        Self::contiguous_of(shape, space, ElementType::F32)
    }

    /// A whole contiguous buffer of `element`s.
    pub fn contiguous_of(shape: &[usize], space: Space, element: ElementType) -> Self {
        Self {
            shape: shape.to_vec(),
            strides: contiguous_strides(shape),
            dynamic_offset: false,
            space,
            element,
        }
    }

    /// Whether the elements are one run of memory in row-major order (the strides of dimensions
    /// of size 1 do not matter).
    pub fn is_contiguous(&self) -> bool {
        let expected = contiguous_strides(&self.shape);
        self.shape
            .iter()
            .zip(&self.strides)
            .zip(&expected)
            .all(|((&size, stride), want)| size == 1 || stride == want)
    }

    /// Number of elements.
    pub fn elements(&self) -> usize {
        self.shape.iter().product()
    }

    /// The memref type in `context`: identity layout when contiguous at offset 0, strided
    /// otherwise.
    pub fn memref_type(&self, context: MlirContext) -> MlirType {
        let shape = to_i64(&self.shape);
        let space = self.space.memory_space().raw_attribute(context);
        // SAFETY: the context is alive; MLIR copies the shape and strides.
        unsafe {
            let element = match self.element {
                ElementType::F32 => mlirF32TypeGet(context),
                ElementType::F16 => mlirF16TypeGet(context),
                ElementType::Bf16 => mlirBF16TypeGet(context),
                ElementType::I64 => mlirIntegerTypeGet(context, 64),
                ElementType::I32 => mlirIntegerTypeGet(context, 32),
                ElementType::I8 => mlirIntegerTypeGet(context, 8),
                ElementType::U8 => mlirIntegerTypeUnsignedGet(context, 8),
                ElementType::Bool => mlirIntegerTypeGet(context, 1),
                ElementType::Other => unreachable!("buffers hold the element types above"),
            };
            let layout = if self.dynamic_offset || self.strides != contiguous_strides(&self.shape) {
                let offset = if self.dynamic_offset {
                    mlirShapedTypeGetDynamicStrideOrOffset()
                } else {
                    0
                };
                let strides = to_i64(&self.strides);
                mlirStridedLayoutAttrGet(context, offset, strides.len() as isize, strides.as_ptr())
            } else {
                MlirAttribute {
                    ptr: std::ptr::null(),
                }
            };
            mlirMemRefTypeGet(element, shape.len() as isize, shape.as_ptr(), layout, space)
        }
    }

    /// The view of `sizes` elements starting at dynamic offsets, keeping only the dimensions
    /// listed in `keep` (the others must have size 1: a rank-reducing subview).
    pub fn window(&self, sizes: &[usize], keep: &[usize]) -> View {
        View {
            shape: keep.iter().map(|&d| sizes[d]).collect(),
            strides: keep.iter().map(|&d| self.strides[d]).collect(),
            dynamic_offset: self.offset_after_dynamic_offsets(),
            space: self.space,
            element: self.element,
        }
    }

    /// Whether a subview at dynamic offsets has a dynamic offset, as MLIR infers it: unless the
    /// view's offset is static and every stride is 0 (a broadcast scalar: any offset lands on
    /// the same element).
    pub fn offset_after_dynamic_offsets(&self) -> bool {
        self.dynamic_offset || self.strides.iter().any(|&stride| stride != 0)
    }

    /// The same elements with dimensions permuted: result dimension i is dimension
    /// `permutation[i]`.
    pub fn permuted(&self, permutation: &[usize]) -> View {
        View {
            shape: permutation.iter().map(|&d| self.shape[d]).collect(),
            strides: permutation.iter().map(|&d| self.strides[d]).collect(),
            dynamic_offset: self.dynamic_offset,
            space: self.space,
            element: self.element,
        }
    }
}

/// Shape of a graph type as a buffer: rank-0 tensors are stored as one element.
pub(crate) fn buffer_shape(shape: &[usize]) -> Vec<usize> {
    if shape.is_empty() {
        vec![1]
    } else {
        shape.to_vec()
    }
}
