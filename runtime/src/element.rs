//! Element types of buffers and their storage. A buffer holds elements of one type, fixed when
//! it is allocated: f32 for activations and weights, integers and booleans for indices, masks
//! and the results of comparisons. Compute instructions other than conversions and gathers
//! work on f32 buffers; a DMA copies between buffers of the same type.

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
}

impl ElementType {
    /// Every type, in code order.
    pub const ALL: [ElementType; 6] = [
        ElementType::F32,
        ElementType::I64,
        ElementType::I32,
        ElementType::I8,
        ElementType::U8,
        ElementType::Bool,
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
            ElementType::I8 | ElementType::U8 | ElementType::Bool => 1,
        }
    }

    /// The type whose rate a compute unit runs at on these elements: 8-bit elements (u8 and
    /// booleans too) at the `i8` rate.
    pub fn rate_type(self) -> DType {
        match self {
            ElementType::F32 => DType::F32,
            ElementType::I64 => DType::I64,
            ElementType::I32 => DType::I32,
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
        }
    }
}

impl fmt::Display for ElementType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The elements of a buffer, in a vector of their type (booleans as bytes of 0 or 1).
#[derive(Debug, Clone, PartialEq)]
pub enum Storage {
    /// f32 elements.
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
            ElementType::F32 => Storage::F32(zeroed(len)?),
            ElementType::I64 => Storage::I64(zeroed(len)?),
            ElementType::I32 => Storage::I32(zeroed(len)?),
            ElementType::I8 => Storage::I8(zeroed(len)?),
            ElementType::U8 | ElementType::Bool => Storage::U8(zeroed(len)?),
        })
    }

    /// The f32 elements; the runtime checks element types when an instruction is recorded,
    /// so an f32 instruction never reaches a buffer of another type.
    pub fn f32(&self) -> &[f32] {
        match self {
            Storage::F32(values) => values,
            _ => unreachable!("instructions on f32 buffers are checked when recorded"),
        }
    }

    /// The f32 elements, writable (see [`Storage::f32`]).
    pub fn f32_mut(&mut self) -> &mut [f32] {
        match self {
            Storage::F32(values) => values,
            _ => unreachable!("instructions on f32 buffers are checked when recorded"),
        }
    }

    /// Copies `len` elements from element `offset` into `bytes` (native byte order).
    pub fn read_bytes(&self, offset: usize, len: usize, bytes: &mut Vec<u8>) {
        each_storage!(self, v => {
            for x in &v[offset..offset + len] {
                bytes.extend_from_slice(&x.to_ne_bytes());
            }
        })
    }

    /// Overwrites elements from `offset` on with `bytes` (native byte order, whole elements).
    pub fn write_bytes(&mut self, offset: usize, bytes: &[u8]) {
        each_storage!(self, v => decode(&mut v[offset..], bytes))
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
        assert_eq!(ElementType::from_code(6), None);
    }

    #[test]
    fn bytes_round_trip_per_type() {
        let mut storage = Storage::zeroed(ElementType::I64, 3).unwrap();
        let values: Vec<u8> = [-1i64, 7].iter().flat_map(|v| v.to_ne_bytes()).collect();
        storage.write_bytes(1, &values);
        assert_eq!(storage, Storage::I64(vec![0, -1, 7]));
        let mut back = Vec::new();
        storage.read_bytes(1, 2, &mut back);
        assert_eq!(back, values);
    }
}
