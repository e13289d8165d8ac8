//! `instance-split`: each `instance.group` becomes the instances of its best split (GraphTurbo
//! §3.3): `f` `instance.instance` ops, instance `i` computing the `i`-th of `f` equal slices of
//! the group's output along the split's dimension.
//!
//! Each instance computes only what its slice needs: [`plan`] walks the group's body backwards from
//! the slice, giving every op the box of its result the instance needs and the box of each operand
//! that takes ([`crate::slicing::regions`]: halos of windows with the border's padding only at the
//! border, strides, nearest upsampling, channel ranges of grouped convolutions). [`build`] writes
//! the instances: each reads exactly the boxes it needs of the values outside, picking from the
//! producer instances whose slices overlap the box and no others, so that an instance depends only
//! on the producer instances it reads — the graph of Fig. 6 without its grey edges.
//!
//! A group whose best split cannot be realised (an output no slice divides, control flow in the
//! body) becomes one instance that computes all of it, with a remark. So does a group without a
//! best split: hw-group found no split along one dimension that fits its scope (a single large op
//! in the 64 KB LB, for instance); its kernel tiles it to fit (§4.1) and instance-bind gives its
//! output the scope its per-core share fits. A group with a SplitInfo but no best split, or a best
//! split that does not divide the output, is an error: hw-group writes neither.

mod build;
mod plan;

use crate::{
    graph_view::{FunctionView, TensorType},
    ir::Op,
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use turbine_dialects::attributes::instance::Split;
use turbine_dialects::ops::{instance, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct InstanceSplit {
    explain: bool,
}

impl Pass for InstanceSplit {
    const ARGUMENT: &'static str = "instance-split";
    const SUMMARY: &'static str =
        "Split each instance.group into the instances of its best split (GraphTurbo §3.3)";
    const DESCRIPTION: &'static str = "\
Replaces each `instance.group` with best split (d, f) by f `instance.instance` ops, instance i \
computing slice i of the group's first output along d (and the matching slices of its other \
outputs). Each instance computes only the boxes its slice needs, found by walking the body \
backwards: windows read halos, with the group's padding kept only at the tensor's border; strided \
windows, nearest upsampling by integer scales and channel ranges of grouped convolutions map \
exactly; an op with no rule for the box asked of it computes its whole result. An instance's \
operands are exactly the boxes it reads: an `instance.slice` of a tensor, or of the \
`instance.concat` of just the producer instances whose slices it overlaps, so that it depends on \
those instances and no others. The group's results become the `instance.concat` of its instances' \
slices. A group whose split cannot be realised, or without a best split (nothing along one \
dimension fits its scope: hw-group then leaves both `split_info` and `best_split` out), becomes \
one instance (with a remark); a `split_info` without a best split, or a best split that does not \
divide its output, is an error. With `explain`, a remark on each group says how it was split and \
how much it recomputes, and one on each instance what it reads.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[OptionInfo {
        name: "explain",
        description: "Emit remarks: each group's split and recomputation, each instance's reads",
        kind: OptionKind::Bool,
        default: "false",
    }];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        crate::instance::scopes::schedule_each(operation, |_, scope| self.schedule(scope))
    }
}

impl InstanceSplit {
    /// Schedules one cluster program (`scope`) of `function`.
    fn schedule(&self, scope: Op) -> Result<(), PassFailure> {
        let groups: Vec<Op> = scope
            .body_ops()
            .into_iter()
            .filter(|op| op.is(instance::Kind::Group))
            .collect();
        let mut splits = Vec::with_capacity(groups.len());
        for &group in &groups {
            splits.push(read_split(group)?);
        }
        let mut pieces = build::Pieces::default();
        for (group, name, best) in splits {
            let Some(best) = best else {
                let instance = build::whole(group, &name, 0);
                if self.explain {
                    instance.emit_remark(&format!(
                        "'{name}' stays one instance: hw-group found no split of it along one \
                         dimension that fits its scope; its kernel tiles it"
                    ));
                }
                continue;
            };
            let (dim, factor) = (best.dim as usize, best.factor as usize);
            if factor == 1 {
                let instance = build::whole(group, &name, dim);
                if self.explain {
                    instance.emit_remark(&format!(
                        "'{name}' is one instance: it fits whole (best split factor 1)"
                    ));
                }
                continue;
            }
            self.split_group(group, &name, dim, factor, &mut pieces)?;
        }
        pieces.erase_unused();
        Ok(())
    }

    /// Replaces `group` (named `name`) by its `factor` instances along `dim`, or by one
    /// instance, with a remark, when the split cannot be realised; an error when its body
    /// cannot be read.
    fn split_group(
        &self,
        group: Op,
        name: &str,
        dim: usize,
        factor: usize,
        pieces: &mut build::Pieces,
    ) -> Result<(), PassFailure> {
        let body = FunctionView::read_body(group, name.to_owned()).map_err(|error| {
            error
                .op
                .unwrap_or(group)
                .emit_error(&format!("cannot split group '{name}': {}", error.message));
            PassFailure
        })?;
        match plan::plan(&body, dim, factor) {
            Ok(plan) => {
                let recomputed = plan.recomputed(&body);
                let output = body
                    .type_of(
                        body.ops
                            .last()
                            .expect("a group body has a terminator")
                            .operands[0],
                    )
                    .shape
                    .clone();
                let instances = build::split(group, name, &body, &plan, dim, pieces);
                if self.explain {
                    let slice = output[dim] / factor;
                    instances[0].0.emit_remark(&format!(
                        "'{name}' becomes {factor} instances along dimension {dim} of {output:?}, \
                         slices of {slice}; they compute {:.1}% more elements than the group",
                        recomputed * 100.0
                    ));
                    for (index, (instance, reads)) in instances.iter().enumerate() {
                        instance
                            .emit_remark(&format!("instance {index} of '{name}' reads {reads}"));
                    }
                }
            }
            Err(reason) => {
                let instance = build::whole(group, name, dim);
                instance.emit_remark(&format!(
                    "'{name}' stays one instance: its best split {factor} along dimension {dim} \
                     cannot be realised: {reason}"
                ));
            }
        }
        Ok(())
    }
}

/// Reads the name and the best split of `group`: None when hw-group found none (an empty
/// SplitInfo). An error when it has a SplitInfo but no best split, or a best split that does
/// not divide its output.
fn read_split(group: Op) -> Result<(Op, String, Option<Split>), PassFailure> {
    let name = group_name(group);
    let Some(best) = group
        .attribute("best_split")
        .and_then(Split::from_attribute)
    else {
        // hw-group leaves out the best split only when its SplitInfo is empty.
        let info = group
            .attribute("split_info")
            .and_then(|info| melior::ir::attribute::ArrayAttribute::try_from(info).ok());
        if info.is_some_and(|info| !info.is_empty()) {
            group.emit_error(&format!(
                "group '{name}' has a split_info but no best split: run hw-group, which picks \
                 one (Eq. 1) whenever a split fits"
            ));
            return Err(PassFailure);
        }
        return Ok((group, name, None));
    };
    let size = group_output_size(group, best.dim as usize);
    if size.is_none_or(|size| best.factor < 1 || size % best.factor as usize != 0) {
        group.emit_error(&format!(
            "group '{name}': its best split cuts dimension {} into {} slices, which do not \
             divide it{}",
            best.dim,
            best.factor,
            size.map_or_else(
                || " (the output has no such dimension)".to_owned(),
                |size| format!(" (size {size})")
            )
        ));
        return Err(PassFailure);
    }
    Ok((group, name, Some(best)))
}

/// The size of dimension `dim` of the group's first result.
fn group_output_size(group: Op, dim: usize) -> Option<usize> {
    // SAFETY: the group is alive.
    if unsafe { mlir_sys::mlirOperationGetNumResults(group.raw()) } == 0 {
        return None;
    }
    TensorType::of(group.result(0))?.shape.get(dim).copied()
}

/// The `name` of an `instance.group`.
fn group_name(group: Op) -> String {
    group.string_value("name").unwrap_or_default()
}
