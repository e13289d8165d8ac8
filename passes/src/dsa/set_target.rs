//! `dsa-set-target`: attaches the accelerator a module is compiled for, as a `#dsa.target`
//! attribute made from a target description.
//!
//! The description is the same TOML that the software DSA runtime executes with
//! (`turbine-targets`), so the compiler's capacities and counts cannot drift from the machine's.

use crate::{
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::{AttributeLike, OperationRef};
use turbine_dialects::ops::{upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;
use turbine_targets::Target;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct SetTarget {
    /// The built-in target name or the path of a description file, as given.
    target: String,
}

impl Pass for SetTarget {
    const ARGUMENT: &'static str = "dsa-set-target";
    const SUMMARY: &'static str = "Attach the target accelerator to the module as #dsa.target";
    const DESCRIPTION: &'static str = "\
Reads a target description (a built-in name such as `stcp920`, `mini` or `solo`, or the path of a \
TOML file in the format of docs/Targets.md), validates it, and sets the module's `dsa.target` \
attribute, which later passes read for core counts, buffer capacities and bandwidths. An unknown \
target or an invalid file is an error naming it.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::BuiltinModule);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "target",
        description: "Built-in target name or path of a target description (TOML)",
        kind: OptionKind::String,
        default: "stcp920",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        let target = options.string("target");
        if target.is_empty() {
            return Err("option 'target' needs a built-in target name or a file path".into());
        }
        Ok(Self { target })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let module = unsafe { Op::from_raw(operation.to_raw()) };
        let target = Target::load(&self.target).map_err(|error| {
            module.emit_error(&format!("cannot use target '{}': {error}", self.target));
            PassFailure
        })?;
        // SAFETY: the module is alive for the pass run.
        let location = unsafe { melior::ir::Location::from_raw(module.location()) };
        // An out-of-range figure is reported by the attribute's verifier at the module.
        let attribute = crate::target::from_description(&target)
            .attribute(location)
            .ok_or(PassFailure)?;
        module.set_attribute("dsa.target", attribute.to_raw());
        Ok(())
    }
}
