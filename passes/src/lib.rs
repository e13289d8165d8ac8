//! Turbine's passes. Each pass is a Rust type implementing [`registry::Pass`], lives in a file
//! named after its flag (`graph-fold-reshapes` is `graph/fold_reshapes.rs`), has a lit test of the
//! same name under `test/`, and is registered into MLIR's pass registry by [`register_all_passes`],
//! so that it runs from `turbine-opt --<flag>` and from `--pass-pipeline` text beside upstream
//! passes. The pipelines the tools run are registered the same way ([`pipelines`]).
#![warn(missing_docs)]

pub mod conversion;
pub mod dsa;
pub mod graph;
pub mod graph_view;
pub mod instance;
mod ir;
pub(crate) mod kernels;
pub mod llvm;
pub mod pipelines;
pub mod registry;
pub(crate) mod slicing;
pub mod substitute;
pub mod target;
pub mod tuning;

use std::sync::Once;

/// Registers every Turbine pass and pipeline with MLIR's global pass registry (idempotent).
pub fn register_all_passes() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        for info in all_passes() {
            registry::register(info);
        }
        for info in pipelines::all_pipelines() {
            registry::pipeline::register(info);
        }
    });
}

/// Every Turbine pass, in the order `--help` and docs/Passes.md list them.
pub fn all_passes() -> Vec<&'static registry::PassInfo> {
    vec![
        registry::info_of::<graph::fold_batch_rows::FoldBatchRows>(),
        registry::info_of::<graph::fold_reshapes::FoldReshapes>(),
        registry::info_of::<graph::reduce_precision::ReducePrecision>(),
        registry::info_of::<graph::resize_to_broadcast::ResizeToBroadcast>(),
        registry::info_of::<graph::decompose_resize::DecomposeResize>(),
        registry::info_of::<graph::decompose_pad::DecomposePad>(),
        registry::info_of::<graph::substitute::GraphSubstitute>(),
        registry::info_of::<graph::split_reductions::SplitReductions>(),
        registry::info_of::<graph::subsample_strided_convs::SubsampleStridedConvs>(),
        registry::info_of::<dsa::set_target::SetTarget>(),
        registry::info_of::<instance::instance_cluster_split::InstanceClusterSplit>(),
        registry::info_of::<instance::hw_group::HwGroup>(),
        registry::info_of::<instance::instance_split::InstanceSplit>(),
        registry::info_of::<instance::instance_order::InstanceOrder>(),
        registry::info_of::<instance::instance_bind::InstanceBind>(),
        registry::info_of::<instance::instance_stitch::InstanceStitch>(),
        registry::info_of::<conversion::graph_to_dsa::ConvertGraphToDsa>(),
        registry::info_of::<conversion::instance_to_dsa::ConvertInstanceToDsa>(),
        registry::info_of::<conversion::dsa_to_runtime::ConvertDsaToRuntime>(),
        registry::info_of::<llvm::fold_aggregates::FoldAggregates>(),
        registry::info_of::<graph::outline_control_flow::OutlineControlFlow>(),
        registry::info_of::<graph::prepare_weights::PrepareWeights>(),
    ]
}
