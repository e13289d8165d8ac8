//! `graph-subsample-strided-convs`: a 1×1 convolution with strides above 1 reads every
//! `stride`-th row and column of its input; it becomes a stride-1 convolution of the input's
//! subsampled copy (`graph.slice` with those steps).
//!
//! The convolution's tiles load whole rows into the LB, the columns its stride skips riding
//! along, and its accumulator leaves no room for them: ResNet-50's stride-2 projections moved
//! about twice the input they use over the GB bus once per block of output channels. Read once
//! into a quarter-size copy, the input is re-read at its useful size. The copy is
//! one slice layer more and one more tensor in the GB, so where it runs in the pipeline matters
//! (docs/Scheduling.md).

use crate::slicing::subsampling::{read_subsampled, subsampling_steps};
use crate::{
    graph_view::TensorType,
    ir::{InsertionPoint, Op},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use melior::ir::OperationRef;
use turbine_dialects::ops::{graph, upstream, OpKind};
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct SubsampleStridedConvs {
    enabled: bool,
    explain: bool,
}

impl Pass for SubsampleStridedConvs {
    const ARGUMENT: &'static str = "graph-subsample-strided-convs";
    const SUMMARY: &'static str =
        "Give a strided 1x1 convolution its input's subsampled copy and stride 1";
    const DESCRIPTION: &'static str = "\
A `graph.conv2d` with a 1x1 filter, strides above 1 and no padding reads only every stride-th row \
and column of its input. It becomes a stride-1 convolution of `graph.slice` with those steps \
(starts 0), located at the convolution: the lowering's tiles, which load whole rows, then move \
only what the convolution uses. Convolutions with a larger filter or padding are left alone (their \
windows overlap or reach outside the input), and so is one whose input is an argument of its \
region (through the windows region inference cut): after `instance-cluster-split` that is a \
segment's input, in DDR, which the convolution's own copy reads once, where a subsampled copy \
would read it again. With `explain`, a remark on each convolution \
rewritten or left alone for its input.";
    const ANCHOR: OpKind = OpKind::Upstream(upstream::Kind::FuncFunc);
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "enabled",
            description:
                "false leaves every convolution as it is (a pipeline's switch, to measure \
                          without it)",
            kind: OptionKind::Bool,
            default: "true",
        },
        OptionInfo {
            name: "explain",
            description: "Emit a remark on each convolution rewritten or left alone, and why",
            kind: OptionKind::Bool,
            default: "false",
        },
    ];

    fn from_options(options: &PassOptions) -> Result<Self, String> {
        Ok(Self {
            enabled: options.bool("enabled")?,
            explain: options.bool("explain")?,
        })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        if !self.enabled {
            return Ok(());
        }
        // SAFETY: the pass manager hands us a live op, alive for the run.
        let function = unsafe { Op::from_raw(operation.to_raw()) };
        for op in function.collect_pre_order() {
            if op.is(graph::Kind::Conv2d) {
                self.subsample(op);
            }
        }
        Ok(())
    }
}

impl SubsampleStridedConvs {
    fn subsample(&self, op: Op) {
        let Some(steps) = subsampling_steps(op) else {
            return;
        };
        // Through the windows region inference cut (unit-step slices), to where the data is.
        let mut source = op.operand(0);
        while let Some(window) = source.defining_op().filter(|op| {
            op.is(graph::Kind::Slice)
                && op
                    .i64_array_value("steps")
                    .is_none_or(|steps| steps.iter().all(|&step| step == 1))
        }) {
            source = window.operand(0);
        }
        if source.defining_op().is_none() {
            if self.explain {
                op.emit_remark(
                    "not subsampled: its input is an argument of its region, read from DDR once \
                     by the convolution's own copy",
                );
            }
            return;
        }
        let slice = read_subsampled(op, steps, InsertionPoint::Before(op));
        if self.explain {
            op.emit_remark(&format!(
                "reads its input subsampled by {}x{}: {}",
                steps[0],
                steps[1],
                describe(slice)
            ));
        }
    }
}

/// "HxW of HxW pixels" for a remark on the slice `slice`.
fn describe(slice: Op) -> String {
    let shape = |value| {
        TensorType::of(value)
            .map(|r#type| r#type.shape)
            .unwrap_or_default()
    };
    let (from, to) = (shape(slice.operand(0)), shape(slice.result(0)));
    format!("{}x{} of {}x{} pixels", to[2], to[3], from[2], from[3])
}
