//! The instance dialect's attributes: a SplitInfo tuple (`#instance.split`) and a memory scope
//! (`#instance<scope ...>`), `include/turbine-c/Instance.h`. Bindings (`array<i64: ...>`) and
//! orders (`i64`) are builtin attributes.

use super::mirror_enum;
use melior::ir::{Attribute, AttributeLike, Location};
use mlir_sys::{MlirAttribute, MlirContext, MlirLocation, MlirStringRef};

unsafe extern "C" {
    fn turbineAttributeIsAInstanceSplit(attribute: MlirAttribute) -> bool;
    fn turbineInstanceSplitAttrGetChecked(
        location: MlirLocation,
        dim: i64,
        factor: i64,
        ops: i64,
    ) -> MlirAttribute;
    fn turbineInstanceSplitAttrGetDim(attribute: MlirAttribute) -> i64;
    fn turbineInstanceSplitAttrGetFactor(attribute: MlirAttribute) -> i64;
    fn turbineInstanceSplitAttrGetOps(attribute: MlirAttribute) -> i64;
    fn turbineAttributeIsAInstanceScope(attribute: MlirAttribute) -> bool;
    fn turbineInstanceScopeAttrGet(context: MlirContext, scope: u32) -> MlirAttribute;
    fn turbineInstanceScopeAttrGetValue(attribute: MlirAttribute) -> u32;
    fn turbineInstanceScopeCaseName(scope: u32) -> MlirStringRef;
}

/// One SplitInfo tuple of GraphTurbo's Algorithm 1: the group's output split along loop `dim`
/// into `factor` instances, a split that reaches `ops` of the group's operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Split {
    /// `d`: the loop depth, 0 outermost.
    pub dim: i64,
    /// `f_d`: how many instances.
    pub factor: i64,
    /// `n_d`: how many operators the split reaches.
    pub ops: i64,
}

impl Split {
    /// The `#instance.split` attribute, or None after the dialect's verifier has reported the
    /// out-of-range field at `location`.
    pub fn attribute<'c>(self, location: Location<'c>) -> Option<Attribute<'c>> {
        // SAFETY: the location is alive.
        let raw = unsafe {
            turbineInstanceSplitAttrGetChecked(location.to_raw(), self.dim, self.factor, self.ops)
        };
        // SAFETY: a non-null result is an attribute owned by the location's context.
        (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
    }

    /// The tuple of `attribute`, None when it is not an `#instance.split`.
    pub fn from_attribute(attribute: Attribute) -> Option<Self> {
        let raw = attribute.to_raw();
        // SAFETY: the attribute is alive; fields are read only from a split attribute.
        unsafe {
            if raw.ptr.is_null() || !turbineAttributeIsAInstanceSplit(raw) {
                return None;
            }
            Some(Self {
                dim: turbineInstanceSplitAttrGetDim(raw),
                factor: turbineInstanceSplitAttrGetFactor(raw),
                ops: turbineInstanceSplitAttrGetOps(raw),
            })
        }
    }
}

unsafe fn scope_is_a(attribute: MlirAttribute, _kind: u32) -> bool {
    // SAFETY: the caller's guarantee (a live attribute).
    unsafe { turbineAttributeIsAInstanceScope(attribute) }
}
unsafe fn scope_get(context: MlirContext, _kind: u32, value: u32) -> MlirAttribute {
    // SAFETY: the caller's guarantee (a live context).
    unsafe { turbineInstanceScopeAttrGet(context, value) }
}
unsafe fn scope_value(attribute: MlirAttribute, _kind: u32) -> u32 {
    // SAFETY: the caller checked that the attribute is a scope.
    unsafe { turbineInstanceScopeAttrGetValue(attribute) }
}
unsafe fn scope_name(_kind: u32, value: u32) -> MlirStringRef {
    // SAFETY: takes any value.
    unsafe { turbineInstanceScopeCaseName(value) }
}

mirror_enum! {
    /// `#instance<scope ...>`: the memory level holding an instance's output (Algorithm 4).
    Scope, kind = 0, api = (scope_is_a, scope_get, scope_value, scope_name),
    {
        /// The local buffers of the bound cores.
        Lb = 0 => "lb",
        /// The cluster's global buffer.
        Gb = 1 => "gb",
        /// DDR.
        Ddr = 2 => "ddr",
    }
}
