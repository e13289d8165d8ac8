//! The handle types, [`Op`] and [`Val`]: their fields are private, so outside this file a handle
//! is made only by `from_raw`, whose contract is the one the module doc describes, or derived
//! from a live handle by a safe method.

use mlir_sys::{MlirOperation, MlirValue};

/// An operation handle: a copy of a live `MlirOperation` (see the module doc's contract).
#[derive(Clone, Copy, Debug)]
pub struct Op(MlirOperation);

/// A value handle: a copy of a live `MlirValue` (see the module doc's contract).
#[derive(Clone, Copy, Debug)]
pub struct Val(MlirValue);

/// Handles are equal when they name the same op.
impl PartialEq for Op {
    fn eq(&self, other: &Op) -> bool {
        self.0.ptr == other.0.ptr
    }
}

impl Eq for Op {}

/// Hashed by the op it names, as it compares.
impl std::hash::Hash for Op {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.ptr.hash(state);
    }
}

/// Handles are equal when they name the same value.
impl PartialEq for Val {
    fn eq(&self, other: &Val) -> bool {
        self.0.ptr == other.0.ptr
    }
}

impl Eq for Val {}

/// Hashed by the value it names, as it compares.
impl std::hash::Hash for Val {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.ptr.hash(state);
    }
}

impl From<&Val> for Val {
    fn from(value: &Val) -> Val {
        *value
    }
}

impl Op {
    /// The handle of `raw`.
    ///
    /// # Safety
    /// `raw` is a live op. It, the IR it is in (its top-level op, or itself when detached) and
    /// its context stay alive for as long as this handle, its copies and everything reached from
    /// them (ops, values, blocks, and the attributes, types and locations read through them) are
    /// used. Ops in it may be destroyed sooner, by [`Op::erase`] or by the C API in unsafe code,
    /// only on `erase`'s terms: no handle into what is destroyed is used afterwards.
    pub unsafe fn from_raw(raw: MlirOperation) -> Op {
        Op(raw)
    }

    /// The C-API handle.
    pub fn raw(self) -> MlirOperation {
        self.0
    }
}

impl Val {
    /// The handle of `raw`.
    ///
    /// # Safety
    /// `raw` is a live value, and its owner (the op defining it or the block it is an argument
    /// of) stays alive as [`Op::from_raw`] requires of an op: for as long as this handle, its
    /// copies and everything reached from them are used.
    pub unsafe fn from_raw(raw: MlirValue) -> Val {
        Val(raw)
    }

    /// The C-API handle.
    pub fn raw(self) -> MlirValue {
        self.0
    }
}
