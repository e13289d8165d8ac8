//! Slices of graph values and the ops that compute them, shared by the graph and instance passes
//! and GraphTurbo's kernels: boxes of tensors ([`boxes`]), the region of each operand that a
//! slice of a result needs ([`demand`], GraphTurbo §3.3's halos) and of every value of a body
//! ([`regions`]), a body rebuilt on slices ([`sliced_body`]), bindings of
//! slices to the cores of a cluster ([`binding`], §3.4), and a strided convolution's subsampled
//! input ([`subsampling`]).

pub mod binding;
pub mod boxes;
pub mod demand;
pub mod regions;
pub mod reshape_box;
pub mod sliced_body;
pub mod subsampling;
