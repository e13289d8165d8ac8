//! What a compile recorded for the tuner: the header its tuned kernels hold for (the module's
//! `dsa.tuning`) and, per kernel, how each of its layers' tilings was chosen (the kernel's
//! `dsa.tuning`), read through the attributes' typed accessors.

use super::{string, symbol_name};
use melior::ir::{block::BlockLike, operation::OperationLike, Module};
use mlir_sys::*;
use std::ffi::CStr;
use turbine_passes::tuning::{Decision, Header, KERNEL_ATTRIBUTE, MODULE_ATTRIBUTE};

/// The tuning record of a compiled module.
#[derive(Debug, Clone, Default)]
pub struct Tuned {
    /// What the choices hold for, when the compile chose by rank or by cache.
    pub header: Option<Header>,
    /// Per kernel (by name), its layers' decisions.
    pub kernels: Vec<(String, Vec<Decision>)>,
}

/// The tuning record of `module`, lowered to the `dsa` dialect.
pub fn tuned(module: &Module) -> Tuned {
    // SAFETY: the module is alive; the attributes read are the ones the lowering wrote, checked
    // for their kinds before their values are read.
    let header = unsafe { header(module.as_operation().to_raw()) };
    let mut kernels = Vec::new();
    let mut op = module.body().first_operation();
    while let Some(kernel) = op {
        if kernel.name().as_string_ref().as_str() == Ok("dsa.kernel") {
            // SAFETY: as above.
            let decisions = unsafe { decisions(kernel.to_raw()) };
            if !decisions.is_empty() {
                kernels.push((symbol_name(&kernel).unwrap_or_default(), decisions));
            }
        }
        op = kernel.next_in_block();
    }
    Tuned { header, kernels }
}

/// The attribute `name` of `op`, null when it has none.
unsafe fn attribute(op: MlirOperation, name: &str) -> MlirAttribute {
    mlirOperationGetAttributeByName(
        op,
        MlirStringRef {
            data: name.as_ptr().cast(),
            length: name.len(),
        },
    )
}

/// The entry `name` of the dictionary attribute `dictionary`, null when it has none.
unsafe fn entry(dictionary: MlirAttribute, name: &CStr) -> MlirAttribute {
    mlirDictionaryAttrGetElementByName(dictionary, mlirStringRefCreateFromCString(name.as_ptr()))
}

/// The text of the string entry `name` of `dictionary`, empty when it is no string.
unsafe fn text(dictionary: MlirAttribute, name: &CStr) -> String {
    let value = entry(dictionary, name);
    if value.ptr.is_null() || !mlirAttributeIsAString(value) {
        return String::new();
    }
    string(mlirStringAttrGetValue(value))
}

/// The module's header, if its lowering recorded one.
unsafe fn header(module: MlirOperation) -> Option<Header> {
    let dictionary = attribute(module, MODULE_ATTRIBUTE);
    if dictionary.ptr.is_null() || !mlirAttributeIsADictionary(dictionary) {
        return None;
    }
    let pipeline = entry(dictionary, c"pipeline");
    Some(Header {
        format: text(dictionary, c"format"),
        compiler: text(dictionary, c"compiler"),
        target: text(dictionary, c"target"),
        figures: text(dictionary, c"figures"),
        pipeline: !pipeline.ptr.is_null()
            && mlirAttributeIsABool(pipeline)
            && mlirBoolAttrGetValue(pipeline),
    })
}

/// The decisions a kernel recorded.
unsafe fn decisions(kernel: MlirOperation) -> Vec<Decision> {
    let list = attribute(kernel, KERNEL_ATTRIBUTE);
    if list.ptr.is_null() || !mlirAttributeIsAArray(list) {
        return Vec::new();
    }
    (0..mlirArrayAttrGetNumElements(list))
        .map(|index| mlirArrayAttrGetElement(list, index))
        .filter(|decision| mlirAttributeIsADictionary(*decision))
        .map(|decision| {
            let estimate = entry(decision, c"estimate");
            let ranked = entry(decision, c"ranked");
            Decision {
                key: text(decision, c"key"),
                choice: text(decision, c"choice"),
                estimate: if !estimate.ptr.is_null() && mlirAttributeIsAFloat(estimate) {
                    mlirFloatAttrGetValueDouble(estimate)
                } else {
                    f64::NAN
                },
                ranked: if !ranked.ptr.is_null() && mlirAttributeIsAInteger(ranked) {
                    mlirIntegerAttrGetValueInt(ranked).max(0) as usize
                } else {
                    0
                },
                rejected: None,
            }
        })
        .collect()
}
