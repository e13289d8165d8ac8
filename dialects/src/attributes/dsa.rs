//! The dsa dialect's attributes and types: `#dsa.target`, `#dsa.memory_space`, `!dsa.token` and
//! the instruction kinds (`include/turbine-c/Dsa.h`).

use super::{mirror_enum, owned, EnumAttribute};
use melior::{
    ir::{Attribute, AttributeLike, Location, Type, TypeLike},
    Context,
};
use mlir_sys::{MlirAttribute, MlirContext, MlirLocation, MlirStringRef, MlirType};

#[repr(C)]
#[derive(Clone, Copy)]
struct RawTargetFields {
    name: MlirStringRef,
    clusters: i64,
    cores_per_cluster: i64,
    matrix_engines_per_core: i64,
    vector_engines_per_core: i64,
    vector_cores_per_core: i64,
    lb_bytes: i64,
    gb_bytes: i64,
    ddr_bytes: i64,
    clock_mhz: f64,
    ddr_gb_bandwidth: f64,
    gb_lb_bandwidth: f64,
    lb_lb_bandwidth: f64,
    matrix_flops: f64,
    dma_setup: i64,
    compute_setup: i64,
    barrier: i64,
    kernel_launch: i64,
}

unsafe extern "C" {
    fn turbineAttributeIsADsaTarget(attribute: MlirAttribute) -> bool;
    fn turbineDsaTargetAttrGetChecked(
        location: MlirLocation,
        fields: *const RawTargetFields,
    ) -> MlirAttribute;
    fn turbineDsaTargetAttrGetFields(attribute: MlirAttribute) -> RawTargetFields;
    fn turbineTypeIsADsaToken(r#type: MlirType) -> bool;
    fn turbineDsaTokenTypeGet(context: MlirContext) -> MlirType;
    fn turbineAttributeIsADsaEnum(attribute: MlirAttribute, kind: u32) -> bool;
    fn turbineDsaEnumAttrGet(context: MlirContext, kind: u32, value: u32) -> MlirAttribute;
    fn turbineDsaEnumAttrGetValue(attribute: MlirAttribute, kind: u32) -> u32;
    fn turbineDsaEnumCaseName(kind: u32, value: u32) -> MlirStringRef;
}

/// Every field of `#dsa.target`: the machine a module is compiled for. Sizes in bytes, bandwidths
/// in bytes per cycle, the clock in MHz, latencies in cycles.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The target's name, for messages.
    pub name: String,
    /// Clusters of the device.
    pub clusters: i64,
    /// Cores of one cluster.
    pub cores_per_cluster: i64,
    /// Matrix engines of one core.
    pub matrix_engines_per_core: i64,
    /// Vector engines of one core.
    pub vector_engines_per_core: i64,
    /// Vector cores of one core.
    pub vector_cores_per_core: i64,
    /// One core's local buffer.
    pub lb_bytes: i64,
    /// One cluster's global buffer.
    pub gb_bytes: i64,
    /// DDR.
    pub ddr_bytes: i64,
    /// Clock.
    pub clock_mhz: f64,
    /// DDR ↔ GB, per cluster.
    pub ddr_gb_bandwidth: f64,
    /// GB ↔ LB.
    pub gb_lb_bandwidth: f64,
    /// LB ↔ LB.
    pub lb_lb_bandwidth: f64,
    /// f32 flops per cycle of one matrix engine.
    pub matrix_flops: f64,
    /// Cycles before a DMA's first byte moves.
    pub dma_setup: i64,
    /// Cycles of a compute instruction's pipeline fill.
    pub compute_setup: i64,
    /// Cycles of a barrier after the last core reaches it.
    pub barrier: i64,
    /// Cycles from a kernel's launch to its first instruction.
    pub kernel_launch: i64,
}

impl Target {
    /// The `#dsa.target` attribute with these fields, or None after the dialect's verifier has
    /// reported the field out of range as an error at `location`.
    pub fn attribute<'c>(&self, location: Location<'c>) -> Option<Attribute<'c>> {
        let fields = RawTargetFields {
            name: MlirStringRef {
                data: self.name.as_ptr().cast(),
                length: self.name.len(),
            },
            clusters: self.clusters,
            cores_per_cluster: self.cores_per_cluster,
            matrix_engines_per_core: self.matrix_engines_per_core,
            vector_engines_per_core: self.vector_engines_per_core,
            vector_cores_per_core: self.vector_cores_per_core,
            lb_bytes: self.lb_bytes,
            gb_bytes: self.gb_bytes,
            ddr_bytes: self.ddr_bytes,
            clock_mhz: self.clock_mhz,
            ddr_gb_bandwidth: self.ddr_gb_bandwidth,
            gb_lb_bandwidth: self.gb_lb_bandwidth,
            lb_lb_bandwidth: self.lb_lb_bandwidth,
            matrix_flops: self.matrix_flops,
            dma_setup: self.dma_setup,
            compute_setup: self.compute_setup,
            barrier: self.barrier,
            kernel_launch: self.kernel_launch,
        };
        // SAFETY: the location is alive; MLIR copies the name into the context.
        let raw = unsafe { turbineDsaTargetAttrGetChecked(location.to_raw(), &fields) };
        // SAFETY: a non-null result is an attribute owned by the location's context.
        (!raw.ptr.is_null()).then(|| unsafe { Attribute::from_raw(raw) })
    }

    /// The fields of `attribute`, None when it is not a `#dsa.target`.
    pub fn from_attribute(attribute: Attribute) -> Option<Self> {
        let raw = attribute.to_raw();
        // SAFETY: the attribute is alive; fields are read only from a target attribute.
        unsafe {
            if raw.ptr.is_null() || !turbineAttributeIsADsaTarget(raw) {
                return None;
            }
            let fields = turbineDsaTargetAttrGetFields(raw);
            Some(Self {
                name: owned(fields.name),
                clusters: fields.clusters,
                cores_per_cluster: fields.cores_per_cluster,
                matrix_engines_per_core: fields.matrix_engines_per_core,
                vector_engines_per_core: fields.vector_engines_per_core,
                vector_cores_per_core: fields.vector_cores_per_core,
                lb_bytes: fields.lb_bytes,
                gb_bytes: fields.gb_bytes,
                ddr_bytes: fields.ddr_bytes,
                clock_mhz: fields.clock_mhz,
                ddr_gb_bandwidth: fields.ddr_gb_bandwidth,
                gb_lb_bandwidth: fields.gb_lb_bandwidth,
                lb_lb_bandwidth: fields.lb_lb_bandwidth,
                matrix_flops: fields.matrix_flops,
                dma_setup: fields.dma_setup,
                compute_setup: fields.compute_setup,
                barrier: fields.barrier,
                kernel_launch: fields.kernel_launch,
            })
        }
    }

    /// Cores of the whole device (launches name cores `0 .. core_count()`).
    pub fn core_count(&self) -> i64 {
        self.clusters * self.cores_per_cluster
    }
}

/// The `!dsa.token` type of `context`.
pub fn token_type(context: &Context) -> Type<'_> {
    // SAFETY: the context is alive; the type is uniqued in it.
    unsafe { Type::from_raw(turbineDsaTokenTypeGet(context.to_raw())) }
}

/// Whether `r#type` is `!dsa.token`.
pub fn is_token(r#type: Type) -> bool {
    let raw = r#type.to_raw();
    // SAFETY: the type is alive.
    !raw.ptr.is_null() && unsafe { turbineTypeIsADsaToken(raw) }
}

/// Raw forms of [`token_type`] and [`is_token`], for passes holding C-API handles.
pub mod raw {
    use super::*;

    /// `!dsa.token` in `context`.
    ///
    /// # Safety
    /// `context` must be alive.
    pub unsafe fn token_type(context: MlirContext) -> MlirType {
        // SAFETY: the caller's guarantee.
        unsafe { turbineDsaTokenTypeGet(context) }
    }

    /// Whether `r#type` (alive, non-null) is `!dsa.token`.
    ///
    /// # Safety
    /// `r#type` must be alive.
    pub unsafe fn is_token(r#type: MlirType) -> bool {
        // SAFETY: the caller's guarantee.
        unsafe { turbineTypeIsADsaToken(r#type) }
    }
}

mod kind {
    pub const MEMORY_SPACE: u32 = 0;
    pub const BINARY: u32 = 1;
    pub const UNARY: u32 = 2;
    pub const POOL: u32 = 3;
    pub const REDUCE: u32 = 4;
    pub const COMPARE: u32 = 5;
}

mirror_enum! {
    /// `#dsa.memory_space<...>`: where a buffer lives.
    MemorySpace, kind = kind::MEMORY_SPACE,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// A core's local buffer.
        Lb = 0 => "lb",
        /// A cluster's global buffer.
        Gb = 1 => "gb",
        /// DDR.
        Ddr = 2 => "ddr",
    }
}

mirror_enum! {
    /// `#dsa<binary ...>`: a vector-engine binary operation.
    BinaryKind, kind = kind::BINARY,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// `lhs + rhs`.
        Add = 0 => "add",
        /// `lhs - rhs`.
        Sub = 1 => "sub",
        /// `lhs * rhs`.
        Mul = 2 => "mul",
        /// `lhs / rhs`.
        Div = 3 => "div",
        /// `max(lhs, rhs)`.
        Max = 4 => "max",
        /// `min(lhs, rhs)`.
        Min = 5 => "min",
        /// `lhs ^ rhs`.
        Pow = 6 => "pow",
        /// The remainder of `lhs / rhs` with the sign of `lhs` (C's `fmod`).
        Fmod = 7 => "fmod",
        /// The remainder of `lhs / rhs` with the sign of `rhs` (Python's `%`).
        Mod = 8 => "mod",
    }
}

mirror_enum! {
    /// `#dsa<unary ...>`: a vector-unit unary operation.
    UnaryKind, kind = kind::UNARY,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// `max(x, 0)`.
        Relu = 0 => "relu",
        /// Logistic sigmoid.
        Sigmoid = 1 => "sigmoid",
        /// Hyperbolic tangent.
        Tanh = 2 => "tanh",
        /// Exponential.
        Exp = 3 => "exp",
        /// Natural logarithm.
        Log = 4 => "log",
        /// Square root.
        Sqrt = 5 => "sqrt",
        /// Reciprocal square root.
        Rsqrt = 6 => "rsqrt",
        /// Gauss error function.
        Erf = 7 => "erf",
        /// GELU.
        Gelu = 8 => "gelu",
        /// SiLU.
        Silu = 9 => "silu",
        /// Negation.
        Neg = 10 => "neg",
        /// `1 / x`.
        Reciprocal = 11 => "reciprocal",
        /// Clamp to `[min, max]`.
        Clip = 12 => "clip",
        /// Copy.
        Copy = 13 => "copy",
        /// `scale * x + shift`.
        Affine = 14 => "affine",
        /// Absolute value.
        Abs = 15 => "abs",
        /// GELU in its tanh approximation.
        GeluTanh = 16 => "gelu_tanh",
    }
}

mirror_enum! {
    /// `#dsa<pool ...>`: a pooling window.
    PoolKind, kind = kind::POOL,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// Maximum.
        Max = 0 => "max",
        /// Average.
        Avg = 1 => "avg",
    }
}

mirror_enum! {
    /// `#dsa<reduce ...>`: a reduction along one axis.
    ReduceKind, kind = kind::REDUCE,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// Sum.
        Sum = 0 => "sum",
        /// Mean.
        Mean = 1 => "mean",
        /// Maximum.
        Max = 2 => "max",
        /// Product.
        Prod = 3 => "prod",
    }
}

mirror_enum! {
    /// `#dsa<compare ...>`: an elementwise comparison.
    ComparePredicate, kind = kind::COMPARE,
    api = (
        turbineAttributeIsADsaEnum,
        turbineDsaEnumAttrGet,
        turbineDsaEnumAttrGetValue,
        turbineDsaEnumCaseName
    ),
    {
        /// `==`.
        Eq = 0 => "eq",
        /// `!=`.
        Ne = 1 => "ne",
        /// `<`.
        Lt = 2 => "lt",
        /// `<=`.
        Le = 3 => "le",
        /// `>`.
        Gt = 4 => "gt",
        /// `>=`.
        Ge = 5 => "ge",
    }
}

impl MemorySpace {
    /// The memory space of a memref type, None when it has none of the dialect's.
    pub fn of_type(r#type: Type) -> Option<Self> {
        let raw = r#type.to_raw();
        // SAFETY: the type is alive; the memory space is read only from a memref type.
        unsafe {
            if raw.ptr.is_null() || !mlir_sys::mlirTypeIsAMemRef(raw) {
                return None;
            }
            Self::from_attribute(Attribute::from_raw(mlir_sys::mlirMemRefTypeGetMemorySpace(
                raw,
            )))
        }
    }
}
