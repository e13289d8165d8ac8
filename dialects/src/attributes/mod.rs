//! Typed Rust access to the attributes and types the Turbine dialects define, over the C API of
//! `include/turbine-c/` (the pattern of CIRCT's `include/circt-c/Dialect/`).
//!
//! Passes build and read these through here and never through their printed form: the assembly
//! formats are for people and lit tests, not a contract with Rust code. Each enumeration is
//! mirrored by a Rust enum whose discriminants are the ODS case values; [`EnumAttribute::ALL`]
//! lists the cases so that a test can check every keyword against the dialect's own
//! (`case_name`).

pub mod dsa;
pub mod graph;
pub mod instance;

use melior::ir::{Attribute, AttributeLike};
use mlir_sys::{MlirAttribute, MlirContext, MlirStringRef};

/// A Rust mirror of one ODS `I32EnumAttr`.
pub trait EnumAttribute: Sized + Copy + 'static {
    /// Every case, in the order of their values.
    const ALL: &'static [Self];
    /// The case's ODS value.
    fn value(self) -> u32;
    /// The case's keyword as Rust spells it (must equal the dialect's, see the module doc).
    fn keyword(self) -> &'static str;
    /// The case's keyword as the dialect declares it (empty if ODS has no such case).
    fn case_name(self) -> String;
    /// Whether `attribute` is an attribute of this enumeration.
    fn is_a(attribute: MlirAttribute) -> bool;
    /// The attribute of this case.
    fn raw_attribute(self, context: MlirContext) -> MlirAttribute;
    /// The case value of an attribute for which [`EnumAttribute::is_a`] holds.
    fn raw_value(attribute: MlirAttribute) -> u32;

    /// The case of `attribute`, None when it is not an attribute of this enumeration.
    fn from_attribute(attribute: Attribute) -> Option<Self> {
        let raw = attribute.to_raw();
        if raw.ptr.is_null() || !Self::is_a(raw) {
            return None;
        }
        let value = Self::raw_value(raw);
        Self::ALL.iter().copied().find(|case| case.value() == value)
    }

    /// The case whose keyword is `keyword`.
    fn from_keyword(keyword: &str) -> Option<Self> {
        Self::ALL
            .iter()
            .copied()
            .find(|case| case.keyword() == keyword)
    }

    /// The attribute of this case in `context`.
    fn attribute<'c>(self, context: &'c melior::Context) -> Attribute<'c> {
        // SAFETY: the C API returns a valid attribute of the context for every declared case
        // (checked by the enum tests), uniqued and owned by the context.
        unsafe { Attribute::from_raw(self.raw_attribute(context.to_raw())) }
    }
}

/// Copies an MLIR string reference into an owned string.
pub(crate) fn owned(reference: MlirStringRef) -> String {
    if reference.data.is_null() {
        return String::new();
    }
    // SAFETY: MLIR string refs point at `length` valid bytes.
    let bytes =
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Declares a Rust enum mirroring an ODS enumeration reached through a dispatching C API
/// (`is_a(attribute, kind)`, `get(context, kind, value)`, `value(attribute, kind)`,
/// `name(kind, value)`).
macro_rules! mirror_enum {
    (
        $(#[$meta:meta])*
        $name:ident, kind = $kind:expr, api = ($is_a:path, $get:path, $value:path, $case:path),
        { $($(#[$case_meta:meta])* $variant:ident = $number:literal => $keyword:literal),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$case_meta])* $variant = $number),+
        }

        impl $crate::attributes::EnumAttribute for $name {
            const ALL: &'static [Self] = &[$(Self::$variant),+];
            fn value(self) -> u32 {
                self as u32
            }
            fn keyword(self) -> &'static str {
                match self {
                    $(Self::$variant => $keyword),+
                }
            }
            fn case_name(self) -> String {
                // SAFETY: the C API takes any value and returns a static string.
                $crate::attributes::owned(unsafe { $case($kind, self as u32) })
            }
            fn is_a(attribute: ::mlir_sys::MlirAttribute) -> bool {
                // SAFETY: the attribute is non-null (checked by the callers) and alive.
                unsafe { $is_a(attribute, $kind) }
            }
            fn raw_attribute(self, context: ::mlir_sys::MlirContext) -> ::mlir_sys::MlirAttribute {
                // SAFETY: the context is alive; the value is a declared case.
                unsafe { $get(context, $kind, self as u32) }
            }
            fn raw_value(attribute: ::mlir_sys::MlirAttribute) -> u32 {
                // SAFETY: callers check `is_a` first.
                unsafe { $value(attribute, $kind) }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, formatter: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                use $crate::attributes::EnumAttribute;
                formatter.write_str(self.keyword())
            }
        }
    };
}
pub(crate) use mirror_enum;
