//! Passes on the `graph` dialect.

mod copies;
pub mod decompose_pad;
pub mod decompose_resize;
pub mod fold_batch_rows;
pub mod fold_reshapes;
pub mod outline_control_flow;
mod perturb;
pub mod prepare_weights;
pub mod reduce_precision;
pub mod resize_to_broadcast;
mod rewrite_each;
mod sink_unit_reshapes;
pub mod split_reductions;
pub mod subsample_strided_convs;
pub mod substitute;
