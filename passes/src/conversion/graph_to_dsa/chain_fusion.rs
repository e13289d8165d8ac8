//! When a chain of two products, or of a convolution and a 1×1 convolution, runs as one kernel
//! (BOLT §3.1, [`crate::kernels::chain`]): the `fuse-chains` option of the lowerings and their
//! pipelines.

use crate::registry::OptionInfo;
use turbine_dialects::pass_abi::OptionKind;

/// The `fuse-chains` option of the kernel-generating passes and pipelines.
pub const FUSE_CHAINS_OPTION: OptionInfo = OptionInfo {
    name: "fuse-chains",
    description: "Fuse a product and the product reading its result, or a convolution and the \
                  1x1 convolution reading its result, into one kernel that keeps blocks of the \
                  first result in the LB (BOLT §3.1): 'auto' where the cost model estimates it \
                  faster than two layers, 'always' wherever the blocks fit the LB, 'never'",
    kind: OptionKind::String,
    default: "auto",
};

/// When a chain is fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainFusion {
    /// Where the estimate of the fused kernel is below that of the two layers.
    Auto,
    /// Wherever a tiling of the fused kernel fits the LB.
    Always,
    /// Never: every product is a layer of its own.
    Never,
}

impl ChainFusion {
    /// The choice an option value names.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "auto" => Ok(Self::Auto),
            "always" => Ok(Self::Always),
            "never" => Ok(Self::Never),
            other => Err(format!(
                "option 'fuse-chains': unknown choice '{other}' (available: auto, always, never)"
            )),
        }
    }
}
