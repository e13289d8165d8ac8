//! Element types of buffers and their storage. A buffer holds elements of one type, fixed when
//! it is allocated: floats (f32, f16, bf16) for activations and weights, integers and booleans
//! for indices, masks and the results of comparisons. Compute instructions other than
//! conversions and gathers work on float buffers; a DMA copies between buffers of one type or
//! converts between float types.
//!
//! f16 and bf16 buffers hold their elements widened to f32, each exactly a value of the type:
//! the units compute in f32 and round to the type when they store, as half-precision hardware
//! does, so every f32 kernel reads them directly and only stores round. Their bytes (sizes,
//! traffic, host transfers) are those of the 16-bit type.

use std::fmt;
use turbine_targets::DType;

/// The element type of a buffer. The discriminant is the C ABI's `dtype` code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ElementType {
    /// 32-bit IEEE float.
    F32 = 0,
    /// 64-bit signed integer.
    I64 = 1,
    /// 32-bit signed integer.
    I32 = 2,
    /// 8-bit signed integer.
    I8 = 3,
    /// 8-bit unsigned integer.
    U8 = 4,
    /// Boolean, one byte holding 0 or 1.
    Bool = 5,
    /// 16-bit IEEE float.
    F16 = 6,
    /// bfloat16: f32's exponent with an 8-bit significand.
    Bf16 = 7,
}

impl ElementType {
    /// Every type, in code order.
    pub const ALL: [ElementType; 8] = [
        ElementType::F32,
        ElementType::I64,
        ElementType::I32,
        ElementType::I8,
        ElementType::U8,
        ElementType::Bool,
        ElementType::F16,
        ElementType::Bf16,
    ];

    /// The type of a C ABI code, if it names one.
    pub fn from_code(code: u32) -> Option<ElementType> {
        ElementType::ALL.get(code as usize).copied()
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            ElementType::F32 | ElementType::I32 => 4,
            ElementType::I64 => 8,
            ElementType::F16 | ElementType::Bf16 => 2,
            ElementType::I8 | ElementType::U8 | ElementType::Bool => 1,
        }
    }

    /// Whether the elements are floats (f32, f16 or bf16), which compute instructions take.
    pub fn is_float(self) -> bool {
        matches!(
            self,
            ElementType::F32 | ElementType::F16 | ElementType::Bf16
        )
    }

    /// `x` rounded to the nearest value of this float type (ties to even), as a store rounds;
    /// `x` itself for f32 and for the other types.
    pub fn round(self, x: f32) -> f32 {
        match self {
            ElementType::F16 => half::f16::from_f32(x).to_f32(),
            ElementType::Bf16 => half::bf16::from_f32(x).to_f32(),
            _ => x,
        }
    }

    /// The type whose rate a compute unit runs at on these elements: 8-bit elements (u8 and
    /// booleans too) at the `i8` rate.
    pub fn rate_type(self) -> DType {
        match self {
            ElementType::F32 => DType::F32,
            ElementType::I64 => DType::I64,
            ElementType::I32 => DType::I32,
            ElementType::F16 => DType::F16,
            ElementType::Bf16 => DType::Bf16,
            ElementType::I8 | ElementType::U8 | ElementType::Bool => DType::I8,
        }
    }

    /// Lower-case name, as MLIR spells the element type (`bool` for `i1`).
    pub fn name(self) -> &'static str {
        match self {
            ElementType::F32 => "f32",
            ElementType::I64 => "i64",
            ElementType::I32 => "i32",
            ElementType::I8 => "i8",
            ElementType::U8 => "u8",
            ElementType::Bool => "bool",
            ElementType::F16 => "f16",
            ElementType::Bf16 => "bf16",
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The elements of a buffer, in a vector of their type (booleans as bytes of 0 or 1, f16 and
/// bf16 widened to f32).
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// f32 elements, or f16 or bf16 ones widened.
    F32(Vec<f32>),
    /// i64 elements.
    I64(Vec<i64>),
    /// i32 elements.
    I32(Vec<i32>),
    /// i8 elements.
    I8(Vec<i8>),
    /// u8 elements, or booleans.
    U8(Vec<u8>),
}

/// Runs `$body` with `$v` bound to the vector inside `$storage`, whatever its element type.
macro_rules! each_storage {
    ($storage:expr, $v:ident => $body:expr) => {
        match $storage {
            $crate::element::Storage::F32($v) => $body,
            $crate::element::Storage::I64($v) => $body,
            $crate::element::Storage::I32($v) => $body,
            $crate::element::Storage::I8($v) => $body,
            $crate::element::Storage::U8($v) => $body,
        }
    };
}
pub(crate) use each_storage;

impl Storage {
    /// `len` zero elements of `dtype`, or `None` when the host cannot allocate them: a target's
    /// DDR may be larger than the host's memory, and `vec!` would abort the process.
    pub fn zeroed(dtype: ElementType, len: u64) -> Option<Storage> {
        Some(match dtype {
            ElementType::F32 | ElementType::F16 | ElementType::Bf16 => Storage::F32(zeroed(len)?),
            ElementType::I64 => Storage::I64(zeroed(len)?),
            ElementType::I32 => Storage::I32(zeroed(len)?),
            ElementType::I8 => Storage::I8(zeroed(len)?),
            ElementType::U8 | ElementType::Bool => Storage::U8(zeroed(len)?),
        })
    }

    /// The float elements (widened to f32); the runtime checks element types when an
    /// instruction is recorded, so a float instruction never reaches a buffer of another type.
    pub fn f32(&self) -> &[f32] {
        match self {
            Storage::F32(values) => values,
            _ => unreachable!("instructions on float buffers are checked when recorded"),
        }
    }

    /// The float elements, writable (see [`Storage::f32`]).
    pub fn f32_mut(&mut self) -> &mut [f32] {
        match self {
            Storage::F32(values) => values,
            _ => unreachable!("instructions on float buffers are checked when recorded"),
        }
    }

    /// Copies `len` elements of `dtype` (the buffer's type) from element `offset` into `bytes`
    /// (native byte order; f16 and bf16 as their 16-bit patterns).
    pub fn read_bytes(&self, dtype: ElementType, offset: usize, len: usize, bytes: &mut Vec<u8>) {
        let half = match dtype {
            ElementType::F16 => |x: f32| half::f16::from_f32(x).to_bits(),
            ElementType::Bf16 => |x: f32| half::bf16::from_f32(x).to_bits(),
            _ => {
                return each_storage!(self, v => {
                    for x in &v[offset..offset + len] {
                        bytes.extend_from_slice(&x.to_ne_bytes());
                    }
                })
            }
        };
        for &x in &self.f32()[offset..offset + len] {
            bytes.extend_from_slice(&half(x).to_ne_bytes());
        }
    }

    /// Overwrites elements of `dtype` (the buffer's type) from `offset` on with `bytes` (native
    /// byte order, whole elements; f16 and bf16 as their 16-bit patterns).
    pub fn write_bytes(&mut self, dtype: ElementType, offset: usize, bytes: &[u8]) {
        let widen = match dtype {
            ElementType::F16 => |bits: u16| half::f16::from_bits(bits).to_f32(),
            ElementType::Bf16 => |bits: u16| half::bf16::from_bits(bits).to_f32(),
            _ => return each_storage!(self, v => decode(&mut v[offset..], bytes)),
        };
        let bits = bytes
            .chunks_exact(2)
            .map(|b| u16::from_ne_bytes([b[0], b[1]]));
        for (x, bits) in self.f32_mut()[offset..].iter_mut().zip(bits) {
            *x = widen(bits);
        }
    }
}

/// Overwrites the first elements of `target` with `bytes` (native byte order, whole elements).
fn decode<T: FromBytes>(target: &mut [T], bytes: &[u8]) {
    for (x, chunk) in target
        .iter_mut()
        .zip(bytes.chunks_exact(std::mem::size_of::<T>()))
    {
        *x = T::from_ne(chunk);
    }
}

macro_rules! storage_from {
    ($($t:ty => $variant:ident),*) => {$(
        impl From<Vec<$t>> for Storage {
            fn from(values: Vec<$t>) -> Storage {
                Storage::$variant(values)
            }
        }
    )*};
}
storage_from!(f32 => F32, i64 => I64, i32 => I32, i8 => I8, u8 => U8);

/// Building an element from its native-order bytes.
trait FromBytes {
    fn from_ne(bytes: &[u8]) -> Self;
}

macro_rules! from_bytes {
    ($($t:ty),*) => {$(
        impl FromBytes for $t {
            fn from_ne(bytes: &[u8]) -> Self {
                <$t>::from_ne_bytes(bytes.try_into().expect("whole elements"))
            }
        }
    )*};
}
from_bytes!(f32, i64, i32, i8, u8);

/// A zero-filled vector of `len` elements, or `None` when the host cannot allocate it. The
/// memory comes from `alloc_zeroed`, so the operating system maps pages lazily and a large,
/// mostly unused DDR buffer costs little.
fn zeroed<T: Copy + Default>(len: u64) -> Option<Vec<T>> {
    let len = usize::try_from(len).ok()?;
    if len == 0 || std::mem::size_of::<T>() == 0 {
        return Some(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(len).ok()?;
    // SAFETY: the layout has a non-zero size (len > 0 and T is not zero-sized, checked above)
    // and is the one `Vec<T>` uses for capacity `len`; `alloc_zeroed` returns either null or
    // memory of that layout whose bytes are all zero, which for the plain numeric types this
    // module stores (f32, i64, i32, i8, u8) is `len` valid zero values. The vector takes
    // ownership and frees it with the same global allocator and layout.
    unsafe {
        let ptr = std::alloc::alloc_zeroed(layout) as *mut T;
        (!ptr.is_null()).then(|| Vec::from_raw_parts(ptr, len, len))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for dtype in ElementType::ALL {
            assert_eq!(ElementType::from_code(dtype as u32), Some(dtype));
        }
        assert_eq!(ElementType::from_code(8), None);
    }

    #[test]
    fn bytes_round_trip_per_type() {
        let mut storage = Storage::zeroed(ElementType::I64, 3).unwrap();
        let values: Vec<u8> = [-1i64, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        storage.write_bytes(ElementType::I64, 1, &values);
        assert_eq!(storage, Storage::I64(vec![0, -1, 7]));
        let mut back = Vec::new();
        storage.read_bytes(ElementType::I64, 1, 2, &mut back);
        assert_eq!(back, values);
    }

    #[test]
    fn half_types_travel_as_sixteen_bits() {
        for (dtype, one) in [(ElementType::F16, 0x3c00u16), (ElementType::Bf16, 0x3f80)] {
            let mut storage = Storage::zeroed(dtype, 2).unwrap();
            storage.write_bytes(dtype, 1, &one.to_ne_bytes());
            assert_eq!(storage, Storage::F32(vec![0.0, 1.0]));
            let mut back = Vec::new();
            storage.read_bytes(dtype, 0, 2, &mut back);
            assert_eq!(back, [0u16.to_ne_bytes(), one.to_ne_bytes()].concat());
        }
    }

    #[test]
    fn stores_round_to_nearest_even() {
        // 1 + 2^-11 lies halfway between f16's 1 and 1 + 2^-10: ties go to the even 1.
        assert_eq!(ElementType::F16.round(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(
            ElementType::F16.round(1.0 + 3.0 * 2f32.powi(-11)),
            1.0 + 2f32.powi(-9)
        );
        assert_eq!(ElementType::Bf16.round(1.0 + 2f32.powi(-9)), 1.0);
        assert_eq!(ElementType::F16.round(1e6), f32::INFINITY);
        assert_eq!(ElementType::F32.round(0.1), 0.1);
    }
}
