//! `graph-subsample-strided-convs`: a 1×1 convolution with strides above 1 reads every
//! `stride`-th row and column of its input; it becomes a stride-1 convolution of the input's
//! subsampled copy (`graph.slice` with those steps).
//!
//! The convolution's tiles load whole rows into the LB, the columns its stride skips riding
//! along, and its accumulator leaves no room for them: ResNet-50's stride-2 projections moved
//! about twice the input they use over the GB bus once per block of output channels. Read once
//! into a quarter-size copy, the input is re-read at its useful size (ResNet-50 b8 under
//! GraphTurbo: layer2.0.downsample 323 k → 180 k cycles, layer3.0's 221 k → 158 k). The copy is
//! one slice layer more and one more tensor in the GB, so where it runs in the pipeline matters
//! (docs/Scheduling.md).

use crate::{
    graph_view::TensorType,
    ir::{create, i64_array, InsertionPoint, Op},
    registry::{OptionInfo, Pass, PassFailure, PassOptions},
};
use crate::instance::sliced_body::tensor_like;
use melior::ir::OperationRef;
use mlir_sys::*;
use turbine_dialects::pass_abi::OptionKind;

/// The pass; see the module documentation.
#[derive(Debug)]
pub struct SubsampleStridedConvs {
    enabled: bool,
    explain: bool,
}

impl Pass for SubsampleStridedConvs {
    const ARGUMENT: &'static str = "graph-subsample-strided-convs";
    const SUMMARY: &'static str = "Give a strided 1x1 convolution its input's subsampled copy and stride 1";
    const DESCRIPTION: &'static str = "\
A `graph.conv2d` with a 1x1 filter, strides above 1 and no padding reads only every stride-th row \
and column of its input. It becomes a stride-1 convolution of `graph.slice` with those steps \
(starts 0), located at the convolution: the lowering's tiles, which load whole rows, then move \
only what the convolution uses. Convolutions with a larger filter or padding are left alone (their \
windows overlap or reach outside the input), and so is one whose input is an argument of its \
region (through the windows region inference cut): after `instance-cluster-split` that is a \
segment's input, in DDR, which the convolution's own copy reads once (ResNet-18 b8's channel-cut \
projection: 55 k -> 145 k cycles subsampled). With `explain`, a remark on each convolution \
rewritten or left alone for its input.";
    const ANCHOR: &'static str = "func.func";
    const OPTIONS: &'static [OptionInfo] = &[
        OptionInfo {
            name: "enabled",
            description: "false leaves every convolution as it is (a pipeline's switch, to measure without it)",
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
        Ok(Self { enabled: options.bool("enabled")?, explain: options.bool("explain")? })
    }

    fn run(&self, operation: OperationRef) -> Result<(), PassFailure> {
        if !self.enabled {
            return Ok(());
        }
        let function = Op(operation.to_raw());
        for op in function.collect_pre_order() {
            if op.name() == "graph.conv2d" {
                self.subsample(op);
            }
        }
        Ok(())
    }
}

impl SubsampleStridedConvs {
    fn subsample(&self, op: Op) {
        let Some(steps) = subsampling_steps(op) else { return };
        // Through the windows region inference cut (unit-step slices), to where the data is.
        let mut source = op.operand(0);
        while let Some(window) = source.defining_op().filter(|op| op.name() == "graph.slice" && op.i64_array_value("steps").is_none_or(|steps| steps.iter().all(|&step| step == 1))) {
            source = window.operand(0);
        }
        if source.defining_op().is_none() {
            if self.explain {
                op.emit_remark("not subsampled: its input is an argument of its region, read from DDR once by the convolution's own copy");
            }
            return;
        }
        let slice = read_subsampled(op, steps, InsertionPoint::Before(op));
        if self.explain {
            op.emit_remark(&format!("reads its input subsampled by {}x{}: {}", steps[0], steps[1], describe(slice)));
        }
    }
}

/// The row and column steps of `op`'s subsampling when it is a 1×1 `graph.conv2d` of a 4-D
/// input with strides above 1 and no padding (what the rewrite keeps exact).
pub(crate) fn subsampling_steps(op: Op) -> Option<[usize; 2]> {
    if op.name() != "graph.conv2d" {
        return None;
    }
    let (shape, filter) = (TensorType::of(op.operand(0))?.shape, TensorType::of(op.operand(1))?.shape);
    let strides = op.i64_array_value("strides").unwrap_or_else(|| vec![1, 1]);
    let unpadded = op.i64_array_value("pads").is_none_or(|pads| pads.iter().all(|&pad| pad == 0));
    if shape.len() != 4 || filter.get(2..) != Some(&[1, 1][..]) || !unpadded || strides.iter().all(|&stride| stride == 1) {
        return None;
    }
    match strides.iter().map(|&stride| usize::try_from(stride)).collect::<Vec<_>>()[..] {
        [Ok(rows @ 1..), Ok(columns @ 1..)] => Some([rows, columns]),
        _ => None,
    }
}

/// Makes the convolution `op` (whose [`subsampling_steps`] are `steps`) read a `graph.slice` of
/// its input with those steps, created at `at` (after the input is defined, before `op`), at
/// stride 1; returns the slice.
pub(crate) fn read_subsampled(op: Op, [rows, columns]: [usize; 2], at: InsertionPoint) -> Op {
    let input = op.operand(0);
    let shape = TensorType::of(input).expect("a convolution with subsampling steps has a tensor input").shape;
    let subsampled = [shape[0], shape[1], shape[2].div_ceil(rows), shape[3].div_ceil(columns)];
    // SAFETY: the op is alive.
    let (context, location) = unsafe { (mlirOperationGetContext(op.0), op.location()) };
    let slice = create(
        at,
        location,
        "graph.slice",
        &[input],
        &[tensor_like(input, &subsampled)],
        &[("starts", i64_array(context, &[0; 4])), ("steps", i64_array(context, &[1, 1, rows as i64, columns as i64]))],
        Vec::new(),
    );
    op.set_operand(0, slice.result(0));
    op.set_attribute("strides", i64_array(context, &[1, 1]));
    slice
}

/// "HxW of HxW pixels" for a remark on the slice `slice`.
fn describe(slice: Op) -> String {
    let shape = |value| TensorType::of(value).map(|r#type| r#type.shape).unwrap_or_default();
    let (from, to) = (shape(slice.operand(0)), shape(slice.result(0)));
    format!("{}x{} of {}x{} pixels", to[2], to[3], from[2], from[3])
}
