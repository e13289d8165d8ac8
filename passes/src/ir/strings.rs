//! Strings across the C API: borrowed as `MlirStringRef`s going in, copied coming out.

use mlir_sys::MlirStringRef;

/// A string reference to `text` for the length of the borrow (MLIR copies what it keeps).
pub(crate) fn string_ref(text: &str) -> MlirStringRef {
    MlirStringRef {
        data: text.as_ptr().cast(),
        length: text.len(),
    }
}

/// Copies the bytes of a string reference MLIR handed out (empty when null), reading invalid
/// UTF-8 lossily.
///
/// # Safety
/// `reference` is null or points at `length` readable bytes for this call: MLIR's string refs do
/// while their owner (an attribute, identifier, location or op) is alive, and the caller holds
/// the owner.
pub(crate) unsafe fn to_string(reference: MlirStringRef) -> String {
    if reference.data.is_null() {
        return String::new();
    }
    // SAFETY: the bytes are readable (the contract above).
    let bytes =
        unsafe { std::slice::from_raw_parts(reference.data.cast::<u8>(), reference.length) };
    String::from_utf8_lossy(bytes).into_owned()
}
