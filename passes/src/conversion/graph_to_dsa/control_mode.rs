//! Who runs the control flow between launches (Cocktailer): the `control` option of the
//! layer-wise lowering and its pipeline.

use crate::registry::OptionInfo;
use turbine_dialects::pass_abi::OptionKind;

/// The `control` option of the kernel-generating passes and pipelines.
pub const CONTROL_OPTION: OptionInfo = OptionInfo {
    name: "control",
    description: "Who runs graph.if and graph.loop (Cocktailer): 'device' (the cores read each \
                  condition and a construct's launches are steps of one persistent kernel) or \
                  'host' (the host reads each condition back and launches every kernel, the \
                  baseline)",
    kind: OptionKind::String,
    default: "device",
};

/// Who runs the control flow between launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ControlMode {
    /// The host reads conditions back and launches the bodies' kernels.
    Host,
    /// The cores read conditions; a branch's or loop's launches form one persistent kernel.
    Device,
}

impl ControlMode {
    /// The mode an option value names.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "device" => Ok(Self::Device),
            "host" => Ok(Self::Host),
            other => Err(format!(
                "option 'control': unknown mode '{other}' (available: device, host)"
            )),
        }
    }
}
